"""A French run says nothing in English (issue 12): a broad set of commands, run through
:func:`arbitre.faces.cli.main` with ``--lang fr`` on every example and a sample of the
golden tables, prints no English word once the table's own ids and names, the rule IDs
and the option names are removed.

The commands: ``los --explain`` for each ruleset that rules lines of sight on a table,
``los`` (every pair: the matrix), ``targets`` and ``shoot --seed 1`` (Mordheim), ``breath``
(every breath weapon, rolled with ``--seed 1``), ``activation`` and ``rolloff`` (Dark Age),
``move``/``shot``/``place`` (maps of places), ``map``, ``render -o tmp.svg`` (the words of
the SVG's ``<text>``), ``validate`` on bad files and on a file with warnings, and the
summary of ``import``. Errors count too: a refusal is read by a player as well.

A failure lists each English word with the line it is in, so that the sentence can be
found in the catalogue or the source (``grep -rn``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import arbitre
from arbitre.faces.cli import main
from arbitre.places import PlaceMap
from arbitre.rules import RULESETS
from arbitre.table import Table

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
GOLDEN = ROOT / "tests" / "golden"
LANG_CORE = GOLDEN / "lang" / "core"
IMPORTS = ROOT / "tests" / "data" / "imports"

#: English words no French output may hold. Words French shares (visible, base, terrain,
#: contact, action, points, place, table, large, centre, chance, via, on, a, or, but,
#: file, score, apex, touches...) are left out; an English possessive ('s) counts as one.
_WORDS = """the and with of through from not sees seen see passes pass blocks blocked block cover
    covers covered hidden behind within inside outside target targets shooter shooters
    nearest window windows template move moves moved line lines wall walls small is are
    has have no none touch touching at by to in it its this that there when which
    who whom may must can cannot only every each than roll rolled rolls seed
    needs need needed odds enemy enemies friend friends model models piece pieces unit
    units spent left lost victims victim cone blast breath edge gap between over
    under into out for be been was were will would should warning error expected got
    missing unknown write picture shot shoots shoot aim best value yes clear close
    call height size tall sight what where why how because so if then else also too again
    first last next other same one two three all any some more less most least hit miss
    missed range weapon weapons side sides nothing region regions seen reach way ways
    leaving arriving crossed cost counts refused holds gets across reduced attack past"""
ENGLISH = frozenset(_WORDS.split())

#: Keys of a scenario whose string values are the table's own words (ids, names, sides,
#: types), removed before the check; every other value (sight, size, rules...) is not.
OWN_KEYS = frozenset(
    {
        "id",
        "name",
        "side",
        "sides",
        "type",
        "junction",
        "inside",
        "engaged",
        "place",
        "places",
        "adjacent",
        "units",
        "target",
        "shooter",
        "players",
        "label",
    }
)


def _sample(folder: Path, n: int = 2) -> list[Path]:
    files = sorted(folder.glob("*.yaml"))
    step = max(1, len(files) // n)
    return files[::step][:n]


TABLES = EXAMPLES + [
    f for folder in sorted(GOLDEN.iterdir()) if folder.name != "lang" for f in _sample(folder)
]


def _strings(doc: Any, own: bool = False) -> Iterator[str]:
    """The string values of ``doc`` under :data:`OWN_KEYS` (and everything below them)."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _strings(v, own or k in OWN_KEYS)
    elif isinstance(doc, list):
        for v in doc:
            yield from _strings(v, own)
    elif isinstance(doc, str) and own:
        yield doc


def own_words(path: Path) -> set[str]:
    """The ids and names of the scenario ``path`` (its models, pieces, weapons, places,
    units, sides, types, its name)."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return set()
    words = set(_strings(doc))
    try:
        subject = arbitre.load(path)
    except arbitre.ArbitreError:
        return {w for w in words if w}
    if isinstance(subject, Table):
        for m in subject.models:
            words |= {m.id, m.name or "", m.side or "", *(w.name for w in m.weapons)}
        for t in subject.terrain:
            words |= {t.id, t.name or ""}
    else:
        for p in subject.places:
            words |= {p.id, p.name or "", p.type or ""}
        for u in subject.units:
            words |= {u.id, u.side or "", u.name or ""}
    words.add(subject.name or "")
    return {w for w in words if w}


def english_words(text: str, own: set[str]) -> list[tuple[str, str]]:
    """``(word, line)`` for each English word of ``text`` once ``own`` words, rule IDs,
    option names and file paths are removed."""
    found: list[tuple[str, str]] = []
    names = sorted(own, key=len, reverse=True)
    lowered = {n.lower() for n in own}
    for line in text.splitlines():
        clean = line
        for name in names:
            clean = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", clean)
        clean = re.sub(r"(?<!\w)(/|~)[^\s:;,)]+", " ", clean)  # file paths
        clean = re.sub(r"`[^`]*`|\{[^}]*\}", " ", clean)  # code: `inside: ruin`, {at: ...}
        clean = re.sub(r"\b[a-z_]+(?:\[\d+\]|\.[a-z_]+)+(?:\[\d+\]|\.[a-z_]+)*", " ", clean)
        clean = re.sub(r"^\s*(arbitre : [^ ]+ : )?[a-z_]+ : ", " ", clean)  # a field's path
        clean = re.sub(r"\b[\w-]+:(?=\s|$)", " ", clean)  # code (French puts a space before ':')
        clean = re.sub(r"\b[a-z]+_[a-z_]+ : [^)]*", " ", clean)  # a field's values
        clean = re.sub(r"--[\w-]+", " ", clean)  # option names
        clean = re.sub(r"\b[A-Z]\d+\b", " ", clean)  # rule IDs
        clean = re.sub(r"(?<!\w)'[^'\n]*'(?!\w)", " ", clean)  # quoted values ('Acid')
        if re.search(r"\w's\b", clean):
            found.append(("'s", line.strip()))
        for word in re.findall(r"[^\W\d_]+", clean):
            w = word.lower()
            if w in ENGLISH and w not in lowered:
                found.append((w, line.strip()))
    return found


def _run(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    main([*args, "--lang", "fr"])
    out, err = capsys.readouterr()
    return out + err


def _svg_texts(path: Path) -> str:
    if not path.exists():
        return ""
    root = ET.parse(path).getroot()
    return "\n".join(
        "".join(el.itertext()) for el in root.iter() if el.tag.rsplit("}", 1)[-1] == "text"
    )


#: The tables ``map`` is run on (it is the slowest command).
MAPPED = {"frostgrave-demo", "darkage-wall"}


def _table_cases(path: Path, subject: Table) -> list[list[str]]:
    """The commands asked of a table: every ruleset's ``los --explain`` on the examples
    (the scenario's own on a golden table), the matrix, and what its models can do."""
    f = str(path)
    cases: list[list[str]] = [["los", f]]
    for name, r in RULESETS.items():
        q = r.questions.get("los")
        if q is not None and q.subject == "table" and (path in EXAMPLES or name == subject.rules):
            cases.append(["los", f, "--explain", "--rules", name])
    shooters = [m for m in subject.models if any(w.range and not w.breath for w in m.weapons)]
    if shooters:
        s = shooters[0]
        others = [m for m in subject.models if m.side != s.side]
        cases.append(["targets", f, s.id, "--explain", "--rules", "mordheim"])
        if others:
            cases.append(["shoot", f, s.id, others[0].id, "--seed", "1", "--rules", "mordheim"])
    for m in subject.models:
        for w in m.weapons:
            if w.breath:
                enemy = next((o for o in subject.models if o.side != m.side), None)
                aim = ["--toward", enemy.id] if enemy else ["--angle", "0"]
                cases.append(["breath", f, m.id, "--weapon", w.name, *aim, "--seed", "1"])
    if subject.rules == "darkage" and subject.models:
        cases.append(["activation", f, subject.models[0].id, "move", "attack", "--ap", "3"])
    if subject.models and path.stem in MAPPED:
        cases.append(["map", f, "--model", subject.models[0].id])
    return cases


def _places_cases(path: Path, subject: PlaceMap) -> list[list[str]]:
    f = str(path)
    cases = [["move", f, u.id, "--explain"] for u in subject.units[:3]]
    units = list(subject.units)
    for a in units[:2]:
        b = next((u for u in units if u.side != a.side), None)
        if b is not None:
            cases.append(["shot", f, a.id, b.id])
    cases += [["place", f, p.id] for p in subject.places[:3]]
    return cases


def cases() -> Iterator[Any]:
    for path in TABLES:
        subject = arbitre.load(path)
        found = (
            _table_cases(path, subject)
            if isinstance(subject, Table)
            else _places_cases(path, subject)
        )
        for args in found:
            yield pytest.param(path, args, id=f"{path.stem}:{' '.join(args[:1] + args[2:])}")
        yield pytest.param(path, ["render", str(path)], id=f"{path.stem}:render")
    for bad in sorted(LANG_CORE.glob("*.yaml")):
        yield pytest.param(bad, ["validate", str(bad)], id=f"{bad.stem}:validate")
    for scene in sorted(IMPORTS.glob("*"))[:2]:
        yield pytest.param(scene, ["import", str(scene)], id=f"{scene.name}:import")
    yield pytest.param(None, ["rolloff", "--seed", "1"], id="rolloff")


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize(("path", "args"), list(cases()))
def test_a_french_run_holds_no_english_word(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, path: Path | None, args: list[str]
) -> None:
    own = own_words(path) if path is not None and path.suffix == ".yaml" else set()
    if args[0] == "render":
        svg = tmp_path / "tmp.svg"
        shooter = _first_model(path)
        text = _run(capsys, [*args, "-o", str(svg), *(["--shooter", shooter] if shooter else [])])
        text += "\n" + _svg_texts(svg)
    elif args[0] == "import":
        text = _run(capsys, [*args, "-o", str(tmp_path / "scene.yaml")])
        own |= own_words(tmp_path / "scene.yaml")
    elif args[0] == "map":
        text = _run(capsys, [*args, "-o", str(tmp_path / "map.svg")])
        text += "\n" + _svg_texts(tmp_path / "map.svg")
    else:
        text = _run(capsys, args)
    assert text.strip(), "no output"
    left = english_words(text, own)
    assert not left, "English in a French run:\n" + "\n".join(
        f"  {w!r} in: {line}" for w, line in dict.fromkeys(left)
    )


def _first_model(path: Path | None) -> str | None:
    if path is None:
        return None
    subject = arbitre.load(path)
    if isinstance(subject, Table) and subject.models:
        return subject.models[0].id
    return None


def test_the_check_finds_english_where_there_is_some(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same command in English is caught: the check is not blind."""
    demo = ROOT / "examples" / "frostgrave-demo.yaml"
    main(["los", str(demo), "--explain", "--lang", "en"])
    out, _ = capsys.readouterr()
    words = {w for w, _ in english_words(out, own_words(demo))}
    assert {"the", "passes", "through"} <= words
    assert "archer" not in words and not english_words("F3 hedge archer --seed", own_words(demo))
