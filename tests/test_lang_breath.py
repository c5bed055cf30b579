"""The breath ruleset (B1-B10, seed 001) in French and in English (issue 12).

Golden files under ``tests/golden/lang/breath/``: the full output of ``arbitre breath``
on the seed's worked examples, ``<case>.en.txt`` and ``<case>.fr.txt``, compared exactly.
Regenerate them after a deliberate change of wording with::

    ARBITRE_WRITE_GOLDEN=1 python3 -m pytest tests/test_lang_breath.py

and read the diff (``git diff tests/golden/lang/breath``) before committing it.

Also: the JSON of one question has the same keys, ids and rule IDs in both languages and
differs only in its ``text`` fields; a French run holds no English word once the table's
own ids are removed; counts take the French plural rule (0 and 1 singular); errors of
the notation (B4) are worded in French too.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from arbitre import i18n
from arbitre.errors import RulesError
from arbitre.faces.cli import main
from arbitre.i18n import TN_
from arbitre.rules.breath.notation import parse
from arbitre.templates import Degrees
from arbitre.vocabulary import count

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "lang" / "breath"
WRITE = os.environ.get("ARBITRE_WRITE_GOLDEN") == "1"

ACID = str(ROOT / "examples" / "breath-acid.yaml")
SEED_ACID = str(ROOT / "tests" / "golden" / "breath" / "b4_b5_acid_example.yaml")
GRAPESHOT = str(ROOT / "examples" / "breath-grapeshot.yaml")

#: The cases: a name and the arguments of ``arbitre breath``.
CASES: dict[str, list[str]] = {
    # seed 001's example: « souffle englobant (acide • puissance 5/2) », aimed along +x
    "seed_acid": [SEED_ACID, "wyrm", "--angle", "0", "--seed", "1"],
    # the same breath on the example table, placed at its best (B2), with a B8 spill
    "acid_best": [ACID, "wyrm", "-w", "Acid cloud", "--best", "--seed", "1"],
    # an impacting breath measured in toises: cover (B6), a tie drawn (B7)
    "grapeshot": [GRAPESHOT, "gunner", "-w", "Blunderbuss", "--angle", "0", "--seed", "7"],
}

#: English words a French run must not hold (once the ids are removed); "points" and
#: "chance" are French words too, so they are not listed.
ENGLISH = (
    "the", "and", "with", "of", "through", "from", "not", "sees", "seen", "passes",
    "blocks", "blocked", "cover", "visible", "hidden", "behind", "within", "target",
    "shooter", "nearest", "window", "template", "move", "each", "die", "dice",
    "hits", "victim", "victims", "breath", "cone", "apex", "axis", "degrees", "base",
    "lost", "margin", "roll", "seed", "touched", "engaged", "outside", "enemies",
    "friends", "expected", "mean", "step", "best", "value", "searched", "cells", "slices",
)  # fmt: skip


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def ids_of(path: str) -> set[str]:
    """The ids and names of a scenario's models, weapons and pieces (they stay as they are)."""
    text = Path(path).read_text(encoding="utf-8")
    found = set(re.findall(r"\bid: ([\w-]+)", text))
    found |= set(re.findall(r"\bname: ([^,}\n]+)", text))
    found |= set(re.findall(r"\bside: ([\w-]+)", text))
    return {f.strip() for f in found}


def english_words(text: str, ids: set[str]) -> set[str]:
    """The English words of :data:`ENGLISH` in ``text`` once ``ids`` are removed."""
    for ident in sorted(ids, key=len, reverse=True):
        text = text.replace(ident, " ")
    # option names and values (order_from: base, cover_effect: none...) are ids too
    text = re.sub(r"\b[a-z]+_[a-z_]+(: [a-z]+)?", " ", text)
    text = text.replace("Enveloping breath", " ").replace("--seed", " ").replace("--json", " ")
    words = set(re.findall(r"[A-Za-z]+", text.lower()))
    return words & set(ENGLISH)


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_worked_examples_read_as_stored(
    capsys: pytest.CaptureFixture[str], case: str, lang: str
) -> None:
    code, out, err = run(capsys, "breath", *CASES[case], "--lang", lang)
    assert code == 0, err
    path = GOLDEN / f"{case}.{lang}.txt"
    if WRITE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_french_run_holds_no_english_word(capsys: pytest.CaptureFixture[str], case: str) -> None:
    code, out, err = run(capsys, "breath", *CASES[case], "--lang", "fr")
    assert code == 0, err
    assert english_words(out, ids_of(CASES[case][0])) == set()


def test_the_english_run_is_caught_by_the_word_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "breath", *CASES["seed_acid"], "--lang", "en")
    assert code == 0
    assert {"each", "victim", "template"} <= english_words(out, ids_of(SEED_ACID))


def _texts_removed(value: Any, texts: list[str]) -> Any:
    """``value`` with every ``text`` field replaced by a marker (its words kept aside)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "text" and isinstance(v, str):
                texts.append(v)
                out[k] = "<text>"
            else:
                out[k] = _texts_removed(v, texts)
        return out
    if isinstance(value, list):
        return [_texts_removed(v, texts) for v in value]
    return value


@pytest.mark.parametrize("case", ["seed_acid", "grapeshot"])
def test_the_json_differs_only_in_its_texts(capsys: pytest.CaptureFixture[str], case: str) -> None:
    answers: dict[str, Any] = {}
    texts: dict[str, Any] = {}
    for lang in ("en", "fr"):
        code, out, err = run(capsys, "breath", *CASES[case], "--json", "--lang", lang)
        assert code == 0, err
        texts[lang] = []
        answers[lang] = _texts_removed(json.loads(out), texts[lang])
    assert answers["en"] == answers["fr"]  # keys, ids, rule IDs, numbers: all the same
    assert len(texts["en"]) == len(texts["fr"]) > 3
    assert all(e != f for e, f in zip(texts["en"], texts["fr"], strict=True))
    assert not english_words(" ".join(texts["fr"]), ids_of(CASES[case][0]))


def test_counts_take_each_language_s_plural_rule() -> None:
    slices = TN_("{n} slice", "{n} slices", "n", n=0)
    assert slices.render("en") == "0 slices"
    assert slices.render("fr") == "0 tranche"
    assert TN_("{n} slice", "{n} slices", "n", n=1).render("fr") == "1 tranche"
    assert TN_("{n} slice", "{n} slices", "n", n=2).render("fr") == "2 tranches"
    assert count("hits", 0, "fr").startswith("0 ")
    assert count("hits", 1, "en") != count("hits", 2, "en")


def test_angles_take_the_french_singular_below_two() -> None:
    assert Degrees(0.0).render("en") == "0 degrees"
    assert Degrees(0.0).render("fr") == "0 degré"
    assert Degrees(1.5).render("fr") == "1,5 degré"
    assert Degrees(355.2).render("fr") == "355,2 degrés"
    assert Degrees(2.434, ".3g").render("en") == "2.43 degrees"


@pytest.mark.parametrize(
    ("notation", "english", "french"),
    [
        ("", "it is empty", "elle est vide"),
        ("Souffle brûlant (feu • 4/1)", "unknown nature 'brûlant'", "nature 'brûlant' inconnue"),
        ("Souffle englobant (acide 5/2)", "found no separator", "trouvé aucun séparateur"),
        ("Souffle englobant (a • b • 5/2)", "found 2 separators", "trouvé 2 séparateurs"),
        ("Souffle englobant (acide • 7/2)", "Difficulty 7 is not 1 to 6", "Difficulté 7"),
    ],
)
def test_bad_notations_are_worded_in_both_languages(
    notation: str, english: str, french: str
) -> None:
    with pytest.raises(RulesError) as caught:
        parse(notation, where="models[0].weapons[0].breath")
    error = caught.value
    assert english in str(error)
    with i18n.speaking("fr"):
        said = str(error)
    assert french in said
    assert said.startswith("models[0].weapons[0].breath : notation de souffle ")
    assert "(B4)" in said


def test_a_refusal_is_printed_in_french(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys, "breath", SEED_ACID, "wyrm", "--angle", "0", "--order", "Vae victis", "--lang", "fr"
    )
    assert code == 2
    assert "B9 : l'ordre 'Vae victis' (Vae victis) ne peut pas être utilisé" in err
