"""The places ruleset (P1-P6, seed 003) in French and in English (issue 12).

Golden files: the full output of ``arbitre move|shot|place ... --lang en|fr`` for the
seed's worked example (John, movement 7, fighting two barbarians: 3 points spent, 2
exhaustion gained, 4 points left; ``tests/golden/places/p3_john_worked_example.yaml`` and
the village of ``examples/``), a shot and a place, in
``tests/golden/lang/places/<case>.<lang>.txt``. When an output changes on purpose,
rewrite them with ``ARBITRE_WRITE_GOLDEN=1 python -m pytest tests/test_lang_places.py``
and read the diff.

Also: the JSON of a question is the same in both languages but for its ``text`` fields;
French output holds no English word once the map's own ids and names are set aside;
French plurals (0 and 1 take the singular); the catalogue keeps the seed's French names
and takes English aliases; errors and the picture are worded in French too.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from lang_support import as_a_user, check_golden, without_texts

from arbitre import i18n
from arbitre.errors import ArbitreError, ScenarioError
from arbitre.faces.cli import main
from arbitre.faces.svg.places import render_places
from arbitre.places import find_junction_kind, find_place_type, load_places, loads_places
from arbitre.rules import ask

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "lang" / "places"
VILLAGE = "examples/village-forest-places.yaml"
JOHN = "tests/golden/places/p3_john_worked_example.yaml"
WRITE = os.environ.get("ARBITRE_WRITE_GOLDEN") == "1"

#: The golden cases: a name and the command's arguments (files relative to the repository).
CASES: dict[str, list[str]] = {
    "john-move": ["move", JOHN, "john", "--explain"],
    "village-john-move": ["move", VILLAGE, "john", "--explain"],
    "village-brute-move": ["move", VILLAGE, "brute", "--explain"],
    "village-archer-shot": ["shot", VILLAGE, "archer", "witch"],
    "village-john-shot": ["shot", VILLAGE, "john", "scout"],
    "village-sentry-shot": ["shot", VILLAGE, "sentry", "witch"],
    "village-glade-place": ["place", VILLAGE, "glade"],
    "village-meadow-place": ["place", VILLAGE, "meadow"],
}

#: English words no French output may hold (``points``, ``adjacent``, ``score`` and
#: ``parent`` are French words too).
ENGLISH = frozenset(
    """the and with of through from not sees seen passes blocks blocked cover visible hidden
    behind within target shooter nearest window template move place places left exhaustion
    encumbrance junction junctions way ways leaving arriving crossing bleeding stated default
    arrival arrived first last unit units reduced range attack ranged gets nothing none
    next across holds side effect reach out shot shoot can cannot refused counting counts
    crossed cost shots more than less there here element inherits order movement
    resource damage quickness will defence ardour provisions ingredients reinforcement""".split()  # noqa: SIM905
)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main([*args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    as_a_user(monkeypatch)


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_outputs(capsys: pytest.CaptureFixture[str], case: str, lang: str) -> None:
    text = run(capsys, *CASES[case], "--lang", lang)
    check_golden(GOLDEN / f"{case}.{lang}.txt", text)


def test_the_worked_example_in_both_languages(capsys: pytest.CaptureFixture[str]) -> None:
    en = run(capsys, *CASES["john-move"], "--lang", "en")
    fr = run(capsys, *CASES["john-move"], "--lang", "fr")
    assert "leaving fight gains 2 exhaustion: the obstruction of barbarian-1, barbarian-2" in en
    assert "john on fight has 7 movement points" in en
    assert "quitter fight fait gagner 2 épuisements : l'obstruction de barbarian-1" in fr
    assert "john sur fight a 7 points de mouvement" in fr
    assert "fight -> beyond : encombrement 3 : 3 points" in fr
    assert "en quittant fight : +2 épuisements (barbarian-1, barbarian-2)" in fr


def _texts(doc: Any) -> list[str]:
    if isinstance(doc, dict):
        return [v for k, v in doc.items() if k == "text"] + [
            t for k, v in doc.items() if k != "text" for t in _texts(v)
        ]
    if isinstance(doc, list):
        return [t for v in doc for t in _texts(v)]
    return []


@pytest.mark.parametrize("case", sorted(CASES))
def test_json_differs_only_in_its_texts(capsys: pytest.CaptureFixture[str], case: str) -> None:
    args = [a for a in CASES[case] if a != "--explain"]
    en = json.loads(run(capsys, *args, "--json", "--lang", "en"))
    fr = json.loads(run(capsys, *args, "--json", "--lang", "fr"))
    assert without_texts(en) == without_texts(fr)
    en_texts, fr_texts = _texts(en), _texts(fr)
    assert len(en_texts) == len(fr_texts) > 0
    assert all(isinstance(t, str) for t in fr_texts)
    assert any(a != b for a, b in zip(en_texts, fr_texts, strict=True))


def _ids(files: list[str]) -> set[str]:
    """Every id and name a map states: its places, types, junctions, units, sides."""
    names: set[str] = set()
    for f in files:
        m = load_places(ROOT / f)
        names.add(m.name)
        for p in m.places:
            names |= {p.id, p.name, p.type or "", *p.lineage}
        for j in m.junctions:
            names |= {j.id, j.kind}
        for u in m.units:
            names |= {u.id, u.side, u.name}
    return {n for n in names if n}


def english_words(text: str, ids: set[str]) -> set[str]:
    """The English words of ``text`` once the map's ids and names are removed."""
    for name in sorted(ids, key=len, reverse=True):
        if len(name) > 1 and (" " in name or "/" in name or "~" in name):
            text = text.replace(name, " ")
    tokens = re.findall(r"[\w'~-]+", text.lower())
    return {t for t in tokens if t in ENGLISH and t not in {i.lower() for i in ids}}


def test_french_outputs_hold_no_english_word(capsys: pytest.CaptureFixture[str]) -> None:
    ids = _ids([VILLAGE, JOHN])
    outputs = [run(capsys, *args, "--lang", "fr") for args in CASES.values()]
    village = load_places(ROOT / VILLAGE)
    outputs += [run(capsys, "place", VILLAGE, p.id, "--lang", "fr") for p in village.places]
    outputs += [run(capsys, "move", VILLAGE, u.id, "--lang", "fr") for u in village.units]
    for text in outputs:
        assert not english_words(text, ids), text
    english = run(capsys, *CASES["village-glade-place"], "--lang", "en")
    assert english_words(english, ids)  # the check finds English where there is some


def _reason(ruling: Any, start: str, lang: i18n.Lang) -> str:
    return next(r.render(lang) for r in ruling.reasons if r.render(lang).startswith(start))


ONE_FOE = """
arbitre: 1
places: [{id: fight}, {id: beyond}]
adjacent: [[fight, beyond]]
units:
  - {id: john, side: heroes, place: fight, movement: 7}
  - {id: barbarian, side: barbarians, place: fight}
"""


@pytest.mark.parametrize(
    ("points", "fr"),
    [
        (0, "john sur fight a 0 point de mouvement"),
        (1, "john sur fight a 1 point de mouvement"),
        (2, "john sur fight a 2 points de mouvement"),
    ],
)
def test_french_plurals_take_the_singular_for_0_and_1(points: int, fr: str) -> None:
    ruling = ask(loads_places(ONE_FOE), "move", unit="john", points=points).ruling
    assert _reason(ruling, "john sur", "fr").startswith(fr)
    english = _reason(ruling, "john on", "en")
    assert english.startswith(f"john on fight has {points} movement points")  # as ever
    assert _reason(ruling, "quitter", "fr") == (
        "quitter fight fait gagner 1 épuisement : l'obstruction de barbarian"
    )
    noun = "point" if points < 2 else "points"
    assert (
        _reason(ruling, "hors de portée", "fr") == f"hors de portée avec {points} {noun} : beyond"
    )


def test_the_catalogue_keeps_the_seeds_french_names_with_english_aliases() -> None:
    assert find_place_type("glade").name == "Clairière"
    assert find_place_type("clairiere").name == "Clairière"
    assert find_place_type("gloomy forest").name == "Forêt lugubre"
    assert find_junction_kind("door").name == "Porte"
    assert find_junction_kind("mist").name == "Brume"
    m = loads_places("arbitre: 1\nplaces: [{id: g, type: glade}, {id: w, type: woods}]\n")
    ruling = ask(m, "place", place="w").ruling
    assert ruling.type == "Forêt"
    effects = [r for r in ruling.reasons if r.rule == "P6"]
    assert [r.render("en") for r in effects] == ["quickness +1 (Forêt)"]
    assert [r.render("fr") for r in effects] == ["vivacité +1 (Forêt)"]
    with i18n.speaking("fr"):
        assert ruling.to_json()["effects"][0]["text"] == "vivacité +1"
    assert ruling.to_json(None)["effects"][0]["text"] == "quickness +1"


def test_errors_are_worded_in_french() -> None:
    bad = (
        "arbitre: 1\nplaces: [{id: a, type: Foret lugubr}]\n"
        "adjacent: [[a, b, {junction: Portee}]]\n"
    )
    with pytest.raises(ScenarioError) as caught:
        loads_places(bad)
    with i18n.speaking("fr"):
        text = str(caught.value)
    assert "type de lieu 'Foret lugubr' inconnu (vouliez-vous dire Forêt lugubre ?)" in text
    assert "lieu 'b' inconnu" in text
    assert "type de jonction 'Portee' inconnu (vouliez-vous dire Porte ?)" in text
    assert "unknown place type 'Foret lugubr' (did you mean Forêt lugubre?)" in str(caught.value)
    m = load_places(ROOT / VILLAGE)
    with pytest.raises(ArbitreError) as unknown:
        ask(m, "move", unit="nobody")
    with i18n.speaking("fr"):
        assert str(unknown.value).startswith("unité 'nobody' inconnue (unités : john,")


def test_the_picture_in_french() -> None:
    m = load_places(ROOT / VILLAGE)
    english = render_places(m)
    with i18n.speaking("fr"):
        french = render_places(m)
    assert "Card colour: family (P2)" in english and "Forêt (forest) and its kinds" in english
    assert "Couleur de carte : famille (P2)" in french and "Forêt et ses variantes" in french
    assert ">couverture<" in french and ">cover<" in english
    assert "si dernier arrivé : score" in french
    texts = re.findall(r">([^<>]+)<", french)
    assert not english_words(" ".join(texts), _ids([VILLAGE]))
