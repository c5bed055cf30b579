"""Dark Age (D1-D5, seed 004) and the sight maps in French and in English (issue 12).

Golden files: the full output of ``arbitre los <file> --rules darkage --explain --lang
en|fr`` for the seed's three figures (``examples/darkage-three-in-a-row.yaml``: three
Medium models in a row obstruct; ``darkage-huge-between.yaml``: the Huge model between
a Medium and a Large one; ``darkage-wall.yaml``: the Large wall), a seeded roll-off
(D2), activations (D1: the action points spent, lost, refused; an error), and the
summary of ``arbitre map examples/frostgrave-demo.yaml --model hunter``, in
``tests/golden/lang/darkage/<case>.<lang>.txt`` (stdout, then stderr after a
``--- stderr ---`` line). When an output changes on purpose, rewrite them with
``ARBITRE_WRITE_GOLDEN=1 python -m pytest tests/test_lang_darkage.py`` and read the diff.

Also: the JSON of a question is the same in both languages but for its ``text`` fields
(and a map's ``method``); French output holds no English word once the table's own ids
are set aside; French plurals (0 and 1 take the singular); the size classes in the
seed's words (Petit, Moyen, Large, Énorme); the pictures' legends, tooltips and notes
worded in French.
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
from arbitre import i18n, maps
from arbitre.faces.svg.darkage import overlay
from arbitre.faces.svg.maps import render_map

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "lang" / "darkage"
ROW = "examples/darkage-three-in-a-row.yaml"
HUGE = "examples/darkage-huge-between.yaml"
WALL = "examples/darkage-wall.yaml"
ACT = "tests/golden/lang/darkage/activation.yaml"
DEMO = "examples/frostgrave-demo.yaml"
WRITE = os.environ.get("ARBITRE_WRITE_GOLDEN") == "1"

#: The golden cases: a name, the command's arguments (files relative to the repository),
#: and the exit code.
CASES: dict[str, tuple[list[str], int]] = {
    "three-in-a-row": (["los", ROW, "--rules", "darkage", "--explain"], 0),
    "huge-between": (["los", HUGE, "--rules", "darkage", "--explain"], 0),
    "wall": (["los", WALL, "--rules", "darkage", "--explain"], 0),
    "rolloff": (["rolloff", "--seed", "3"], 0),
    "activation-spent": (["activation", ACT, "scout", "move", "attack", "move", "move"], 0),
    "activation-stopped": (["activation", ACT, "scout", "skill", "end"], 0),
    "activation-nothing": (["activation", ACT, "scout"], 0),
    "activation-no-ap": (["activation", ACT, "ogre", "move"], 2),
    "activation-unknown": (["activation", ACT, "scout", "fly"], 2),
    "map-hunter": (["map", DEMO, "--model", "hunter"], 0),
}

#: English words no French output may hold. ("clear", "line", "closed" and "past" are left
#: out while the G8 margin tests "clear line past" and "closed window" are not among
#: vocabulary.MARGIN_WORDS.)
_WORDS = """the and with of through from not sees seen passes blocks blocked cover hidden
    behind within target shooter nearest window windows template move moved lines
    join joins joined bases base size sizes smaller larger these those close closes
    obstruct obstructs touch touches also nothing others leave open sight round tie
    rolled again lower decides order odds each rounds average seed spent left lost over
    cannot costs refused unknown give stat whole number enemy enemies reach grid cells
    best spot away regions piece"""
ENGLISH = frozenset(_WORDS.split())


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    as_a_user(monkeypatch)


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_outputs(capsys: pytest.CaptureFixture[str], case: str, lang: str) -> None:
    args, wanted = CASES[case]
    check_case(capsys, GOLDEN, case, lang, args, wanted)


def test_the_seeds_figures_in_both_languages(capsys: pytest.CaptureFixture[str]) -> None:
    _, en, _ = run(capsys, *CASES["three-in-a-row"][0], "--lang", "en")
    _, fr, _ = run(capsys, *CASES["three-in-a-row"][0], "--lang", "fr")
    assert "of brown's size (medium) or larger, these close the window: red-1, red-2" in en
    assert (
        "de la taille de brown (Moyen) ou plus grands, ces éléments ferment la fenêtre : "
        "red-1, red-2, red-3" in fr
    )
    assert "red-1 et red-2 se touchent (G4) : un seul obstacle" in fr
    assert "aucune ligne droite non obstruée ne relie les socles : brown n'est pas" in fr
    assert "la fenêtre de ligne de vue relie les côtés des socles de blue et de brown" in fr
    _, fr, _ = run(capsys, *CASES["huge-between"][0], "--lang", "fr")
    assert "de la taille de L (Large) ou plus grand, cet élément ferme la fenêtre : H" in fr
    _, fr, _ = run(capsys, *CASES["wall"][0], "--lang", "fr")
    assert "de (93,76 ; 219) à (475,3 ; 344,3) : M2 est dans la ligne de vue" in fr


def _without_texts(doc: Any) -> Any:
    """The document with every worded field blanked (``text``, a map's ``method``)."""
    if isinstance(doc, dict):
        return {k: "" if k in ("text", "method") else _without_texts(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_without_texts(v) for v in doc]
    return doc


@pytest.mark.parametrize(
    "args",
    [
        ["los", WALL, "--rules", "darkage"],
        ["los", ROW, "--rules", "darkage"],
        ["rolloff", "--seed", "3"],
        ["activation", ACT, "scout", "move", "attack", "move", "move"],
    ],
    ids=["wall", "three-in-a-row", "rolloff", "activation"],
)
def test_json_differs_only_in_its_texts(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    docs = {}
    for lang in ("en", "fr"):
        code, out, err = run(capsys, *args, "--json", "--lang", lang)
        assert code == 0, err
        docs[lang] = json.loads(out)
    assert _without_texts(docs["en"]) == _without_texts(docs["fr"])
    assert docs["en"] != docs["fr"]  # the texts are worded in each language


def _words(text: str, ids: set[str]) -> set[str]:
    """The words of ``text`` once the table's ids and the options one types are removed."""
    text = re.sub(r"--[a-z-]+( ID)?|ap=", " ", text)  # options are typed as they are
    for ident in sorted(ids, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(ident)}(?![\w-])", " ", text)
    return {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ']+", text)}


def _ids(file: str | None) -> set[str]:
    """The ids of the table (models, pieces, sides), the ruleset names, the actions one
    types (``move``...: the list of valid ones in an error) and the dice players."""
    found = {"darkage", "frostgrave", "A", "B", "fly", "move", "attack", "skill", "end"}
    found |= {"psychogenics", "PA", "ap", "D"}
    if file is None:
        return found
    table = arbitre.load(ROOT / file)
    assert isinstance(table, arbitre.Table)
    found |= {m.id for m in table.models} | {t.id for t in table.terrain}
    return found | {m.side for m in table.models}


def _file(args: list[str]) -> str | None:
    return next((a for a in args if a.endswith(".yaml")), None)


@pytest.mark.parametrize("case", sorted(CASES))
def test_french_output_holds_no_english_word(case: str) -> None:
    args, _ = CASES[case]
    text = (GOLDEN / f"{case}.fr.txt").read_text(encoding="utf-8")
    if case == "activation-unknown":  # the actions one may type are listed as they are
        text = text.split("(actions")[0]
    english = _words(text, _ids(_file(args))) & ENGLISH
    assert not english, (case, sorted(english))


def test_plurals_follow_french_rules(capsys: pytest.CaptureFixture[str]) -> None:
    table = arbitre.load(ROOT / ACT)
    for actions, lost, fr, en in [
        (("move", "move", "move"), 0, "0 PA perdu", "0 AP lost"),
        (("move", "attack", "end"), 1, "1 PA perdu", "1 AP lost"),
        (("move", "end"), 2, "2 PA perdus", "2 AP lost"),
    ]:
        ruling = arbitre.ask(table, "activation", model="scout", actions=actions).ruling
        assert ruling.lost == lost
        assert ruling.reasons[-1].render("fr") == f"activation terminée, {fr}"
        assert ruling.reasons[-1].render("en") == f"activation over, {en}"
    _, fr, _ = run(capsys, "activation", ACT, "scout", "move", "move", "--lang", "fr")
    assert "1 PA restant" in fr and "PA restants" not in fr
    _, fr, _ = run(capsys, "activation", ACT, "scout", "--lang", "fr")
    assert "dépensés : rien ; 3 PA restants" in fr
    one = arbitre.ask(arbitre.load(ROOT / HUGE), "los", rules="darkage", pairs=[("M", "L")])
    assert "cet élément ferme la fenêtre : H" in one.ruling.reasons[1].render("fr")
    three = arbitre.ask(arbitre.load(ROOT / ROW), "los", rules="darkage", pairs=[("blue", "brown")])
    assert "ces éléments ferment la fenêtre" in three.ruling.reasons[1].render("fr")


def test_the_seeds_size_classes() -> None:
    table = arbitre.load(ROOT / "tests" / "golden" / "darkage" / "d4_not_symmetric.yaml")
    ruling = arbitre.ask(table, "los", rules="darkage", pairs=[("S", "L")]).ruling
    d4 = next(r for r in ruling.reasons if r.rule == "D4")
    assert d4.render("en") == "smaller than L (large), these do not obstruct: M"
    assert d4.render("fr") == "plus petit que L (Large), cet élément n'obstrue pas la vue : M"
    huge = arbitre.ask(arbitre.load(ROOT / HUGE), "los", rules="darkage", pairs=[("M", "L")])
    with i18n.speaking("fr"):
        words = overlay(huge.rulings, table=huge_table()).notes
    assert [size for _, size, _ in words] == ["Moyen", "Énorme", "Large"]
    with i18n.speaking("en"):
        words = overlay(huge.rulings, table=huge_table()).notes
    assert [size for _, size, _ in words] == ["medium", "huge", "large"]


def huge_table() -> arbitre.Table:
    table = arbitre.load(ROOT / HUGE)
    assert isinstance(table, arbitre.Table)
    return table


def test_the_window_picture_in_french() -> None:
    table = arbitre.load_table(ROOT / WALL)
    answer = arbitre.ask(table, "los", rules="darkage", shooter="L")
    with i18n.speaking("fr"):
        drawn = overlay(answer.rulings, table=table)
    labels = [label for _, _, label in drawn.legend]
    assert labels == [
        "côtés de la fenêtre (D3)",
        "fenêtre ouverte (D3)",
        "une ligne non obstruée (D3)",
        "fenêtre fermée (D4)",
        "Large classe de taille (D4)",
    ]
    titles = {d.title for d in drawn.drawings if d.title}
    assert titles == {
        "fenêtre D3 L - M1 (fermée, D4)",
        "fenêtre D3 L - M2",
        "ligne non obstruée L -> M2",
    }
    with i18n.speaking("en"):
        drawn = overlay(answer.rulings, table=table)
    assert [label for _, _, label in drawn.legend][-1] == "large size class (D4)"


@pytest.fixture(scope="module")
def hunter_map() -> maps.SightMap:
    table = arbitre.load(ROOT / DEMO)
    assert isinstance(table, arbitre.Table)
    return maps.sight_map(table, model="hunter", reach=6 * 25.4)


def test_the_map_legend_in_french(hunter_map: maps.SightMap) -> None:
    with i18n.speaking("fr"):
        svg = render_map(hunter_map)
    texts = re.findall(r"<text[^>]*>([^<]+)</text>", svg)
    for label in (
        "Où hunter peut se placer",
        "vu par aucun ennemi",
        "vu par 1 ennemi",
        "vu par 2 ennemis",
        "vu par 3+ ennemis",
        "à couvert de tout tireur",
        "accessible en 6 po",
        "meilleur endroit et chemin",
        "meilleur",
    ):
        assert label in texts, label
    assert "<title>vu par aucun ennemi</title>" in svg
    ids = {m.id for m in hunter_map.table.models} | {t.id for t in hunter_map.table.terrain}
    ids |= {m.side for m in hunter_map.table.models} | {hunter_map.table.name or ""}
    titles = re.findall(r"<title>([^<]+)</title>", svg)
    assert not _words(" ".join(texts + titles), ids) & ENGLISH
    with i18n.speaking("en"):
        svg = render_map(hunter_map)
    assert "Where hunter can stand" in svg and "reach 6 in" in svg


def test_map_errors_in_french(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "map", WALL, "--side", "nobody", "--lang", "fr")
    assert code == 2 and "map : camp inconnu 'nobody' (camps : blue, red)" in err
    code, _, err = run(capsys, "map", WALL, "--side", "red", "--base", "1zz", "--lang", "fr")
    assert code == 2 and "--base '1zz' : unité inconnue 'zz'" in err
    code, _, err = run(capsys, "map", WALL, "--side", "red", "--reach", "3in", "--lang", "fr")
    assert code == 2 and "--reach demande une figurine (--model ID)" in err
    code, _, err = run(capsys, "map", WALL, "--model", "L", "--side", "red", "--lang", "fr")
    assert code == 2 and "donnez un id de figurine ou un camp" in err
