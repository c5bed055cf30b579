"""Frostgrave (F1-F9, seed 000) and the commands every table shares in French and in
English (issue 12).

Golden files: the full output of ``arbitre los <file> --explain --lang en|fr`` for the
demo table (``examples/frostgrave-demo.yaml``: cover, F4, windows, a model without a
base), the windows cases of the seed (``tests/golden/frostgrave/f5_f6_both_at_windows``:
both models at windows, F5 and F6; ``f6_friend_inside``: seeing the window is the whole
test), the F8/F9 words (``f8_no_base`` with ``-O visible_fraction=true``), the G5 words
(``g5_beam_graze``), and ``arbitre validate`` of the demo, in
``tests/golden/lang/frostgrave/<case>.<lang>.txt`` (stdout, then stderr after a
``--- stderr ---`` line). When an output changes on purpose, rewrite them with
``ARBITRE_WRITE_GOLDEN=1 python -m pytest tests/test_lang_frostgrave.py`` and read the
diff.

Also: the JSON of a question is the same in both languages but for its ``text`` fields;
French output holds no English word once the table's own ids are set aside; plurals by
each language's rule (French: 0 and 1 take the singular); the ``because`` summary does
not depend on the language the rulings were made in; the pictures' legends and titles
worded in French.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest
from lang_support import as_a_user, check_case, run, without_texts

import arbitre
from arbitre import i18n
from arbitre.faces.cli.table import print_los
from arbitre.faces.svg.table import render_table

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "lang" / "frostgrave"
DEMO = "examples/frostgrave-demo.yaml"
FG = "tests/golden/frostgrave"
BOTH = f"{FG}/f5_f6_both_at_windows.yaml"
FRIEND = f"{FG}/f6_friend_inside.yaml"
NO_BASE = f"{FG}/f8_no_base.yaml"
GRAZE = f"{FG}/g5_beam_graze.yaml"
STATUS = "tests/golden/mordheim/m3_priority_status.yaml"
WRITE = os.environ.get("ARBITRE_WRITE_GOLDEN") == "1"

#: The golden cases: a name, the command's arguments (files relative to the repository),
#: and the exit code.
CASES: dict[str, tuple[list[str], int]] = {
    "demo": (["los", DEMO, "--explain"], 0),
    "f5-f6-both-at-windows": (["los", BOTH, "--explain"], 0),
    "f6-friend-inside": (["los", FRIEND, "--explain"], 0),
    "f8-f9-no-base": (["los", NO_BASE, "--explain", "-O", "visible_fraction=true"], 0),
    "g5-beam-graze": (["los", GRAZE, "--explain"], 0),
    "validate-demo": (["validate", DEMO], 0),
}

#: English words no French output may hold ("visible", "centre", "contact" and "ok" are
#: French words too).
_WORDS = """the and with of through from not sees seen passes blocks blocked cover hidden
    behind within target targets shooter window windows template move points line lines
    sight yes no clear because base bases vis cov margin close call measure care stands
    wall small large terrain touches touching nothing model models pieces pair pairs
    obstacle opening whole test only which that there away goes out wrote drawn scenario
    beam"""
ENGLISH = frozenset(_WORDS.split())


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    as_a_user(monkeypatch)


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_outputs(capsys: pytest.CaptureFixture[str], case: str, lang: str) -> None:
    args, wanted = CASES[case]
    check_case(capsys, GOLDEN, case, lang, args, wanted)


def test_the_seeds_rules_in_french(capsys: pytest.CaptureFixture[str]) -> None:
    _, fr, _ = run(capsys, *CASES["demo"][0], "--lang", "fr")
    assert "Lignes de vue (frostgrave, 70 paires)" in fr
    assert "tireur " in fr and "cible " in fr and "socle vu" in fr and "raisons" in fr
    assert "! cas limite : marge inférieure à 2 mm (0,07874 po), mesurez avec soin (G8)" in fr
    assert "archer -> hunter : visible, couvert +4" in fr
    assert "F4  hunter est derrière le petit décor hedge et le touche : +3" in fr
    assert "F3  la ligne passe par le petit décor rubble : +1" in fr
    assert "F2  la ligne passe par le grand décor tower" in fr
    assert "F2  witch n'est pas visible pour archer" in fr
    assert (
        "F5  archer touche le mur chapel à une fenêtre et la ligne sort par celle-ci : "
        "archer voit depuis la fenêtre ; couvert +1 dû au mur" in fr
    )
    assert "F6  marksman touche le mur chapel à une fenêtre et archer voit la fenêtre" in fr
    assert "F8  imp n'a pas de socle : son centre en tient lieu" in fr
    assert "F9  86 % du socle de la cible marksman est visible depuis le centre du tireur" in fr
    assert "G8  marge 0,01969 po (contact à la fenêtre marksman-chapel) ! cas limite" in fr
    assert "oui !" in fr and "non" in fr and "dégagée" in fr
    _, fr, _ = run(capsys, *CASES["f6-friend-inside"][0], "--lang", "fr")
    assert (
        "voir la fenêtre suffit : ce qui est sur la ligne de centre à centre (f) ne bloque pas"
        in fr
    )
    assert "(au point (310,6 ; 300)) : +3" in fr
    _, fr, _ = run(capsys, *CASES["g5-beam-graze"][0], "--lang", "fr")
    assert "est à 0,3 mm de la ligne : dans le faisceau de 1 mm" in fr


@pytest.mark.parametrize("file", [DEMO, BOTH, FRIEND, NO_BASE])
def test_json_differs_only_in_its_texts(capsys: pytest.CaptureFixture[str], file: str) -> None:
    docs = {}
    for lang in ("en", "fr"):
        code, out, err = run(
            capsys, "los", file, "--json", "-O", "visible_fraction=true", "--lang", lang
        )
        assert code == 0, err
        docs[lang] = json.loads(out)
    assert without_texts(docs["en"]) == without_texts(docs["fr"])
    assert docs["en"] != docs["fr"]  # the texts are worded in each language


def _words(text: str, ids: set[str]) -> set[str]:
    """The words of ``text`` once the table's ids are removed (the longest first: a
    margin test joins two ids by a hyphen, "f-wall")."""
    for ident in sorted(ids, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(ident)}(?!\w)", " ", text)
    return {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ']+", text)}


def _ids(file: str) -> set[str]:
    """The ids of the table (models, pieces, sides, its name), the ruleset's name."""
    table = arbitre.load(ROOT / file)
    assert isinstance(table, arbitre.Table)
    found = {"frostgrave", "examples", "yaml", "tests", "golden"}
    found |= {m.id for m in table.models} | {t.id for t in table.terrain}
    return found | {m.side for m in table.models}


@pytest.mark.parametrize("case", sorted(CASES))
def test_french_output_holds_no_english_word(case: str) -> None:
    args, _ = CASES[case]
    file = next(a for a in args if a.endswith(".yaml"))
    text = (GOLDEN / f"{case}.fr.txt").read_text(encoding="utf-8")
    english = _words(text, _ids(file)) & ENGLISH
    assert not english, (case, sorted(english))


@pytest.mark.parametrize(
    ("n", "fr", "en"),
    [(0, "0 paire", "0 pairs"), (1, "1 paire", "1 pair"), (2, "2 paires", "2 pairs")],
)
def test_plurals_follow_each_language(
    capsys: pytest.CaptureFixture[str], n: int, fr: str, en: str
) -> None:
    table = arbitre.load(ROOT / NO_BASE)
    answer = arbitre.ask(table, "los", rules="frostgrave")
    answer = replace(answer, rulings=answer.rulings[:n])
    for lang, title in (
        ("fr", f"Lignes de vue (frostgrave, {fr})"),
        ("en", f"Lines of sight (frostgrave, {en})"),
    ):
        with i18n.speaking(lang):  # type: ignore[arg-type]
            print_los(answer)
        assert capsys.readouterr().out.startswith(title + "\n")
    models = i18n.TN_("{n} model", "{n} models", "n", n=n)
    assert models.render("fr") == (f"{n} figurines" if n > 1 else f"{n} figurine")
    assert models.render("en") == (f"{n} model" if n == 1 else f"{n} models")


def test_because_does_not_depend_on_the_language() -> None:
    table = arbitre.load(ROOT / DEMO)
    en = arbitre.ask(table, "los", rules="frostgrave").rulings
    with i18n.speaking("fr"):
        fr = arbitre.ask(table, "los", rules="frostgrave").rulings
    assert [r.because for r in en] == [r.because for r in fr]
    assert all("F2" not in r.because or "F2 " in r.because for r in fr)  # no F2 summary


def test_an_f9_share_is_worded_per_language() -> None:
    table = arbitre.load(ROOT / DEMO)
    answer = arbitre.ask(
        table,
        "los",
        rules="frostgrave",
        pairs=[("archer", "marksman")],
        options={"visible_fraction": True},
    )
    f9 = answer.ruling.reasons[-1]
    assert f9.rule == "F9"
    assert f9.render("en") == "86% of marksman's base is visible from archer's centre"
    assert f9.render("fr") == (
        "86 % du socle de la cible marksman est visible depuis le centre du tireur archer"
    )


def test_the_picture_is_worded_in_french() -> None:
    table = arbitre.load(ROOT / DEMO)
    assert isinstance(table, arbitre.Table)
    rulings = arbitre.ask(table, "los", rules="frostgrave", shooter="archer").rulings
    with i18n.speaking("fr"):
        svg = render_table(table, rulings=rulings, shooter="archer", title="x")
    for words in (
        "Camps",
        "Décors",
        "bloque la vue",
        "couvert (petit décor)",
        "fenêtre dans un mur",
        "Ligne de vue",
        "dégagée",
        "à couvert (+n)",
        "bloquée",
        "tireur",
        "bloque la ligne",
        "donne un couvert",
        ">5 po<",
    ):
        assert words in svg, words
    legend = svg.split('class="legend"')[1]
    texts = " ".join(re.findall(r">([^<>]+)</text>", legend))
    assert not ({w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ']+", texts)} & ENGLISH), texts
    en = render_table(table, rulings=rulings, shooter="archer", title="x")
    for words in ("Sides", "Terrain", "blocks sight", "cover (small)", "in cover (+n)", ">5 in<"):
        assert words in en, words


def test_statuses_in_the_picture_are_worded_in_french() -> None:
    table = arbitre.load(ROOT / STATUS)
    assert isinstance(table, arbitre.Table)
    with i18n.speaking("fr"):
        svg = render_table(table, title="x")
    assert "à terre" in svg and "sonné" in svg and "en fuite" in svg
    assert "état d'une figurine" in svg and "knocked" not in svg


def test_the_demo_command_in_french(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    picture = tmp_path / "demo.svg"
    code, out, err = run(capsys, "demo", "-o", str(picture), "--lang", "fr")
    assert code == 0, err
    assert "The frozen chapel - 12 figurines, 7 décors" in out
    assert "scénario : " in out and "dessiné : " in out
    assert "(lignes de vue du tireur archer)" in out
    assert "The frozen chapel : lignes de vue du tireur archer" in picture.read_text("utf-8")
    code, out, err = run(capsys, "render", DEMO, "-o", str(picture), "--lang", "fr")
    assert code == 0 and out.startswith("fichier écrit : "), err
