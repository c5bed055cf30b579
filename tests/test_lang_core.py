"""The core's words in French and in English (issue 12): the problems of a scenario file
with their paths, the refusals of a question (unknown option, ruleset, model id), the
warnings of a table, the summary of an import.

Golden files: ``tests/golden/lang/core/<case>.<lang>.txt`` hold the exit code, stdout and
stderr of one command run through :func:`arbitre.faces.cli.main` with ``--lang <lang>``;
the scenario files they read are beside them. Regenerate them after a deliberate change of
wording with ``ARBITRE_WRITE_GOLDEN=1 python3 -m pytest tests/test_lang_core.py``, and read
the diff.

The language is chosen in this order: ``--lang``, the scenario's ``lang:`` field, the
environment (``LC_ALL``, ``LC_MESSAGES``, ``LANG`` starting with ``fr``), English. The
problems of a file that does not load are worded when they are printed, before any
scenario was read: a broken file's own ``lang: fr`` cannot apply to them (it was never
read as a scenario); only ``--lang`` and the environment do (``bad-lang.yaml``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from arbitre import i18n, scenario
from arbitre.errors import ScenarioError
from arbitre.faces.cli import main
from arbitre.i18n import TN_

ROOT = Path(__file__).resolve().parents[1]
HERE = Path("tests/golden/lang/core")
FROST = "examples/frostgrave-demo.yaml"
KEEP = "tests/data/imports/keep-v11.json"
WRITE = os.environ.get("ARBITRE_WRITE_GOLDEN") == "1"

#: Each case: the command line (``<tmp>`` is a temporary directory), without ``--lang``.
CASES: dict[str, list[str]] = {
    "validate-types": ["validate", str(HERE / "bad-types.yaml")],
    "validate-units": ["validate", str(HERE / "bad-units.yaml")],
    "validate-geometry": ["validate", str(HERE / "bad-geometry.yaml")],
    "validate-warnings": ["validate", str(HERE / "warnings.yaml")],
    "unknown-option": ["los", FROST, "-O", "zzz=1"],
    "bad-option-value": ["los", FROST, "-O", "visible_fraction=zz"],
    "unknown-ruleset": ["los", FROST, "--rules", "nope"],
    "unknown-model": ["los", FROST, "--shooter", "nobody"],
    "import": ["import", KEEP, "-o", "<tmp>/keep.yaml"],
}

#: English words no French output of the core holds (once ids, paths, option names and
#: quoted values are removed).
ENGLISH = frozenset(
    [
        "the",
        "and",
        "with",
        "of",
        "through",
        "not",
        "sees",
        "seen",
        "passes",
        "blocks",
        "blocked",
        "cover",
        "visible",
        "hidden",
        "behind",
        "within",
        "target",
        "shooter",
        "nearest",
        "window",
        "template",
        "move",
        "points",
        "unknown",
        "must",
        "be",
        "required",
        "field",
        "got",
        "expected",
        "walls",
        "tokens",
        "dropped",
        "merged",
        "scale",
        "wrote",
        "shared",
        "known",
        "valid",
        "is",
        "are",
        "has",
        "a",
        "an",
        "in",
    ]
)


@pytest.fixture(autouse=True)
def english_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every command from the checkout, the environment saying nothing of French."""
    monkeypatch.chdir(ROOT)
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


def run(
    args: list[str], capsys: pytest.CaptureFixture[str], tmp: Path | None = None
) -> tuple[int, str, str]:
    """``arbitre <args>``: its exit code, stdout and stderr (the temporary directory
    written ``<tmp>``)."""
    where = str(tmp) if tmp is not None else "<tmp>"
    code = main([a.replace("<tmp>", where) for a in args])
    out, err = capsys.readouterr()
    return code, out.replace(where, "<tmp>"), err.replace(where, "<tmp>")


def shown(code: int, out: str, err: str) -> str:
    return f"exit {code}\n--- stdout\n{out}--- stderr\n{err}"


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(case: str, lang: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = shown(*run([*CASES[case], "--lang", lang], capsys, tmp_path))
    golden = ROOT / HERE / f"{case}.{lang}.txt"
    if WRITE:
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "case", ["validate-types", "validate-units", "validate-geometry", "unknown-option"]
)
def test_errors_go_to_stderr_with_exit_code_2(
    case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*CASES[case], "--lang", "fr"], capsys)
    assert code == 2 and out == "" and err.startswith("arbitre : ")


def words_left(text: str) -> set[str]:
    """The words of ``text`` once its paths, ids, quoted values, option names and file
    names are removed."""
    text = re.sub(r"'[^']*'|`[^`]*`|\{touching[^}]*\}", " ", text)
    text = re.sub(r"\S*[\[\]_./=<>]\S*", " ", text)  # paths, options, files, ids
    ids = {"ogre", "orc", "goblin", "scout", "archer", "ruin", "hedge", "wall", "wide", "ft"}
    return set(re.findall(r"[^\W\d_]+", text)) - ids


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_french_run_holds_no_english_sentence(
    case: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, out, err = run([*CASES[case], "--lang", "fr"], capsys, tmp_path)
    ids = {"friendly", "hostile", "neutral", "Foundry", "VTT", "to", "from"}  # the file's
    left = words_left(out + err) - ids
    assert not left & ENGLISH, sorted(left & ENGLISH)


def test_a_scenario_in_french_speaks_french_unless_the_flag_says_otherwise(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fr_file = str(HERE / "lang-fr.yaml")
    _, out, err = run(["validate", fr_file], capsys)
    assert "se tient dans le décor bloquant ruin" in err and ": ok (3 figurines" in out
    _, out, err = run(["validate", fr_file, "--lang", "en"], capsys)
    assert "stands inside blocking terrain ruin" in err and ": ok (3 models" in out


def test_the_environment_chooses_french_after_the_flag(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    code, _, err = run(CASES["validate-types"], capsys)
    assert code == 2 and "champ inconnu (vouliez-vous dire 'base' ?)" in err
    _, _, err = run([*CASES["validate-types"], "--lang", "en"], capsys)
    assert "unknown field (did you mean 'base'?)" in err


def test_a_broken_file_cannot_choose_its_own_language(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bad-lang.yaml`` says ``lang: fr`` but does not load: its problem is worded in
    the language of the flag or of the environment (see the module docstring)."""
    broken = ["validate", str(HERE / "bad-lang.yaml")]
    assert "unknown field (did you mean 'base'?)" in run(broken, capsys)[2]
    assert "champ inconnu" in run([*broken, "--lang", "fr"], capsys)[2]
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert "champ inconnu" in run(broken, capsys)[2]


def test_the_import_summary_in_json_differs_only_in_its_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    found = {}
    for lang in ("en", "fr"):
        code, out, _ = run([*CASES["import"], "--json", "--lang", lang], capsys, tmp_path)
        assert code == 0
        found[lang] = json.loads(out)
    en, fr = found["en"], found["fr"]
    assert list(en) == list(fr)
    words = {"cell", "objects_as", "dropped"}
    assert {k: v for k, v in en.items() if k not in words} == {
        k: v for k, v in fr.items() if k not in words
    }
    assert en["cell"].startswith("1 in (the default") and fr["cell"].startswith("1 po (par")
    assert [(d["what"], d["count"]) for d in en["dropped"]] == [
        (d["what"], d["count"]) for d in fr["dropped"]
    ]
    assert [d["reason"] for d in en["dropped"]] != [d["reason"] for d in fr["dropped"]]


def problems(doc: dict[str, object], lang: i18n.Lang) -> list[str]:
    with i18n.speaking(lang):
        return [str(p) for p in scenario.validate(doc)]


def test_problems_keep_their_paths_in_both_languages() -> None:
    doc = {"arbitre": 1, "unit": "in", "table": [24, 24], "models": [{"id": "a", "at": 3}]}
    en, fr = problems(doc, "en"), problems(doc, "fr")
    assert [p.split(":")[0].strip() for p in en] == [p.split(":")[0].strip() for p in fr]
    assert "models[0].side : obligatoire" in fr and "models[0].side: required" in en


def test_plural_forms_follow_the_language() -> None:
    """French takes the singular for 0 and 1; English for 1 only."""
    wall = {"points": [[1, 1], [5, 1]], "thickness": 0.5, "windows": []}
    doc = {
        "arbitre": 1,
        "unit": "in",
        "table": [24, 24],
        "terrain": [{"id": "w", "sight": "blocks", "wall": wall}],
        "models": [{"id": "a", "side": "red", "at": {"touching": "w", "window": 2}}],
    }
    assert "w has 0 windows, got 2" in problems(doc, "en")[0]
    assert "w a 0 fenêtre, et non une fenêtre 2" in problems(doc, "fr")[0]
    many = TN_("{n} problem", "{n} problems", "n", n=0)
    assert (many.render("en"), many.render("fr")) == ("0 problems", "0 problème")
    one = TN_("must have at most {n} items", "must have at most {n} items", "n", n=1)
    assert one.render("fr") == "doit avoir au plus 1 élément"


def test_numbers_take_the_decimal_comma_in_french() -> None:
    doc = {
        "arbitre": 1,
        "unit": "in",
        "table": [24.5, 24],
        "models": [{"id": "a", "side": "red", "at": [30.5, 1]}],
    }
    assert "[30,5 ; 1] est hors de la table [24,5 ; 24]" in problems(doc, "fr")[0]
    assert "[30.5, 1] is off the table [24.5, 24]" in problems(doc, "en")[0]


def test_a_scenario_error_is_worded_when_printed() -> None:
    with pytest.raises(ScenarioError) as caught:
        scenario.loads("arbitre: 1\nunit: in\ntable: [24, 24]\nmodels: [{id: a, at: [1, 1]}]\n")
    assert str(caught.value) == "models[0].side: required"
    with i18n.speaking("fr"):
        assert str(caught.value) == "models[0].side : obligatoire"
