"""The Mordheim shooting phase (M1-M12, seed 002) in French and in English (issue 12).

Golden files: the full output of ``arbitre targets|shoot ... --lang en|fr`` for the seed's
worked example of target priority (``tests/golden/mordheim/m3_priority_seed.yaml``: the
hunter must shoot the orc, the closest enemy, behind a hedge; the rat is easier to hit,
the ogre a large target; the goblin and the zombie may not be picked), its third
exception (``m3_priority_status.yaml``: closer enemies stunned, knocked down, fleeing), a
seeded shot (``--seed 1``), a shot into a multiplayer fight (the M4 die) and a refused
shot, in ``tests/golden/lang/mordheim/<case>.<lang>.txt`` (stdout, then stderr after a
``--- stderr ---`` line). When an output changes on purpose, rewrite them with
``ARBITRE_WRITE_GOLDEN=1 python -m pytest tests/test_lang_mordheim.py`` and read the diff.

Also: the JSON of a question is the same in both languages but for its ``text`` and
``need_text`` fields; French output holds no English word once the table's own ids and
names are set aside; French plurals (0 and 1 take the singular); the picture's legend and
marks are worded in French too.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from lang_support import as_a_user, check_case, run

import arbitre
from arbitre import i18n
from arbitre.faces.svg.mordheim import overlays

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "lang" / "mordheim"
TABLES = ROOT / "tests" / "golden" / "mordheim"
SEED = "tests/golden/mordheim/m3_priority_seed.yaml"
STATUS = "tests/golden/mordheim/m3_priority_status.yaml"
MULTI = "tests/golden/mordheim/m4_multiplayer.yaml"
WRITE = os.environ.get("ARBITRE_WRITE_GOLDEN") == "1"

#: The golden cases: a name, the command's arguments (files relative to the repository),
#: and the exit code.
CASES: dict[str, tuple[list[str], int]] = {
    "seed-targets": (["targets", SEED, "hunter", "--explain"], 0),
    "seed-shoot-orc": (["shoot", SEED, "hunter", "orc", "--seed", "1"], 0),
    "seed-shoot-goblin-refused": (["shoot", SEED, "hunter", "goblin", "--seed", "1"], 2),
    "status-targets": (["targets", STATUS, "archer", "--explain"], 0),
    "multiplayer-shoot": (["shoot", MULTI, "archer", "mercenary", "--seed", "1"], 0),
}

#: English words no French output may hold. ("closest" is left out while the G8 margin
#: test "closest a-b" is not among vocabulary.MARGIN_WORDS.)
ENGLISH = set(
    re.findall(
        r"\w+",
        """the and with of through from not sees seen passes blocks blocked cover hidden behind
    within target targets shooter nearest window windows template move moved points
    may must shoot shoots shot hit hits miss misses range long short legal yes no out
    odds seed die dice result enemy enemies fight warband warbands close
    stunned knocked down fleeing ran rallied charge picked easier farther closer base
    edges away none nothing rolled needing automatic automatically inside building
    stands tall wide rule models terrain piece hides alone plain view margin call""",
    )
)


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    as_a_user(monkeypatch)


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_outputs(capsys: pytest.CaptureFixture[str], case: str, lang: str) -> None:
    args, wanted = CASES[case]
    check_case(capsys, GOLDEN, case, lang, args, wanted)


def test_the_worked_example_in_both_languages(capsys: pytest.CaptureFixture[str]) -> None:
    _, en, _ = run(capsys, *CASES["seed-targets"][0], "--lang", "en")
    _, fr, _ = run(capsys, *CASES["seed-targets"][0], "--lang", "fr")
    must = "it must be targeted unless an exception allows another"
    assert f"orc is the closest enemy hunter may target: {must}" in en
    assert "rat is easier to hit than orc (rat 4+, p 1/2; orc 5+, p 1/3)" in en
    assert "orc est l'ennemi le plus proche que hunter peut prendre pour cible" in fr
    assert "rat est plus facile à toucher que orc (rat 4+, p 1/2 ; orc 5+, p 1/3)" in fr
    assert "ogre est plus éloigné que l'ennemi le plus proche mais c'est une grande cible" in fr
    assert "M8  à couvert : du socle de orc vu depuis hunter, hedge cache 100 %" in fr
    assert "CT 3 : 4+, longue portée -1, grande cible +1 = 4+ ; p(touche) 1/2" in fr
    assert "Bow 24 po : longue portée (au-delà de 12 po)" in fr
    assert "ogre est à 13,5 po (bords de socle les plus proches)" in fr
    assert re.search(r"^orc +100 % +6 +courte +hedge +5\+ .* plus proche", fr, re.M)


def _without_texts(doc: Any) -> Any:
    """The document with every worded field blanked (``text``, ``need_text``)."""
    if isinstance(doc, dict):
        return {k: "" if k in ("text", "need_text") else _without_texts(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_without_texts(v) for v in doc]
    return doc


@pytest.mark.parametrize("case", ["seed-targets", "seed-shoot-orc", "status-targets"])
def test_json_differs_only_in_its_texts(capsys: pytest.CaptureFixture[str], case: str) -> None:
    args = [a for a in CASES[case][0] if a != "--explain"]
    docs = {}
    for lang in ("en", "fr"):
        code, out, err = run(capsys, *args, "--json", "--lang", lang)
        assert code == 0, err
        docs[lang] = json.loads(out)
    assert _without_texts(docs["en"]) == _without_texts(docs["fr"])
    assert docs["en"] != docs["fr"]  # the texts are worded in each language


def _words(text: str, ids: set[str]) -> set[str]:
    """The words of ``text`` once the table's ids, names and option spellings are removed."""
    for literal in ("option windows: open", "option windows: closed", "stats.bs"):
        text = text.replace(literal, " ")
    for ident in sorted(ids, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(ident)}(?![\w-])", " ", text)
    return {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ']+", text)}


def _ids(file: str) -> set[str]:
    table = arbitre.load(ROOT / file)
    assert isinstance(table, arbitre.Table)
    names = {w.name for m in table.models for w in m.weapons}
    return (
        {m.id for m in table.models}
        | {t.id for t in table.terrain}
        | {m.side for m in table.models}
        | names
    )


#: Every golden Mordheim table with the shooters its expectations name.
SHOOTERS = sorted(
    (f"tests/golden/mordheim/{p.name}", s)
    for p in TABLES.glob("*.yaml")
    for s in sorted(set(re.findall(r"^\s*-?\s*shooter: ([\w-]+)", p.read_text(), re.M)))
)


@pytest.mark.parametrize(("file", "shooter"), SHOOTERS)
def test_french_holds_no_english_word(
    capsys: pytest.CaptureFixture[str], file: str, shooter: str
) -> None:
    code, out, err = run(capsys, "targets", file, shooter, "--explain", "--lang", "fr")
    assert code == 0, err
    left = _words(out, _ids(file)) & ENGLISH
    assert not left, (file, shooter, sorted(left))


def test_french_errors_hold_no_english_word(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (
        ["shoot", SEED, "hunter", "zombie"],
        ["shoot", SEED, "orc", "rat"],
        ["targets", SEED, "hunter", "--weapon", "Sling"],
        ["shoot", "tests/golden/mordheim/m1_who_may_shoot.yaml", "runner", "orc"],
    ):
        code, _, err = run(capsys, *args, "--lang", "fr")
        assert code == 2
        assert not _words(err, _ids(args[1])) & ENGLISH, err


def test_french_plurals_take_the_singular_for_0_and_1() -> None:
    one = "{rest} is in the fight but not engaged with {target}: not hit"
    many = "{rest} are in the fight but not engaged with {target}: not hit"
    for n, form in ((0, "est"), (1, "est"), (2, "sont")):
        text = i18n.TN_(one, many, "n", rest="a", target="b", n=n)
        assert text.render("fr").startswith(f"a {form} "), text.render("fr")
    assert i18n.TN_(one, many, "n", rest="a", target="b", n=0).render("en").startswith("a are")
    closer = "rat est plus proche : goblin n'est pas plus facile"
    several = "orc, rat, goblin, ogre sont plus proches : zombie n'est pas plus facile"
    table = arbitre.load(ROOT / SEED)
    ruling = arbitre.rules.ask(table, "targets", rules="mordheim", shooter="hunter").ruling
    texts = {t.target: [r.render("fr") for r in t.refusals] for t in ruling.targets}
    assert any(r.startswith(closer) for r in texts["goblin"])
    assert any(r.startswith(several) for r in texts["zombie"])


def test_the_picture_speaks_french() -> None:
    table = arbitre.load(ROOT / SEED)
    assert isinstance(table, arbitre.Table)
    with i18n.speaking("fr"):
        (fr,) = overlays(table, "hunter")
    (en,) = overlays(table, "hunter")
    legend_fr = [row[2] for row in fr.legend]
    legend_en = [row[2] for row in en.legend]
    assert "peut tirer (M1)" in legend_fr and "may shoot (M1)" in legend_en
    assert "portée 24 po (M6)" in legend_fr and "range 24 in (M6)" in legend_en
    assert "plus proche : à prendre (M3)" in legend_fr
    assert "-1 à couvert (M8)" in legend_fr
    titles = " ".join(d.title or "" for d in fr.drawings)
    assert "orc : M7 5+, p 1/3 ; M3 orc est l'ennemi le plus proche" in titles
    assert not _words(" ".join([*legend_fr, titles]), _ids(SEED)) & ENGLISH
