"""Places instead of a gridded battlemap (P1-P6, seed 003): golden scenarios citing their
rules (checked on the JSON 2 of each answer, which the output schema validates), the
loader's checks, brute-force oracles for the best-way search (P3-P4) and the projectile's
way (P5) on seeded random maps, the commands, and the picture (drawn from the ``place``
rulings)."""

from __future__ import annotations

import itertools
import json
import random
import shutil
import subprocess
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import networkx as nx
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import arbitre
from arbitre.errors import RulesError, ScenarioError
from arbitre.faces.cli import app
from arbitre.faces.svg.places import CARD_H, CARD_W, layout, render_places
from arbitre.i18n import Text
from arbitre.places import (
    PlaceMap,
    catalogue,
    find_junction_kind,
    find_place_type,
    load_places,
    loads_places,
    places_from_dict,
)
from arbitre.rules import Answer, ask, find_ruleset
from arbitre.rules import places as rules
from arbitre.rules.ruling import Reason, Ruling
from arbitre.rules.schema import output_schema

HERE = Path(__file__).parent
GOLDEN = sorted((HERE / "golden" / "places").glob("*.yaml"))
EXAMPLE = HERE.parent / "examples" / "village-forest-places.yaml"
RULES = {f"P{i}" for i in range(1, 7)}
SVG = "{http://www.w3.org/2000/svg}"


@cache
def validator() -> Any:
    return jsonschema.Draft202012Validator(output_schema())


def asked(pm: PlaceMap, question: str, options: Any = None, **request: Any) -> dict[str, Any]:
    """The one ruling of a question, in JSON 2, after checking the envelope and the schema."""
    answer: Answer = ask(pm, question, options=options, **request)
    doc = answer.to_json()
    validator().validate(doc)
    assert (doc["arbitre"], doc["kind"], doc["rules"], doc["unit"]) == (2, question, "places", None)
    (ruling,) = doc["rulings"]
    assert ruling["kind"] == question
    assert json.loads(json.dumps(doc)) == doc
    return dict(ruling)


# -- golden scenarios ---------------------------------------------------------------------


def test_every_p_rule_has_a_golden_scenario() -> None:
    cited: set[str] = set()
    for path in GOLDEN:
        cited |= set(yaml.safe_load(path.read_text(encoding="utf-8"))["cites"])
    assert cited >= RULES, RULES - cited


def _cited(*reasons: list[dict[str, Any]]) -> set[str]:
    return {r["rule"] for items in reasons for r in items}


def _texts(effects: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in effects]


def _check_move(pm: PlaceMap, want: dict[str, Any], where: str) -> set[str]:
    r = asked(pm, "move", want.get("options"), unit=want["move"], points=want.get("points"))
    if "places" in want:
        assert list(dict.fromkeys(w["place"] for w in r["ways"])) == want["places"], where
    if "unreachable" in want:
        assert set(r["unreachable"]) == set(want["unreachable"]), where
    expected: dict[str, list[dict[str, Any]]] = {}
    for way in want.get("ways", []):
        expected.setdefault(way["place"], []).append(way)
    for place, ways in expected.items():
        got = [w for w in r["ways"] if w["place"] == place]
        assert len(got) == len(ways), (where, place, got)
        for w, g in zip(ways, got, strict=True):
            for key in ("spent", "left", "exhaustion", "bleeding", "path", "junctions"):
                if key in w:
                    assert g[key] == w[key], (where, place, key)
            if "effects" in w:
                assert _texts(g["effects"]) == w["effects"], (where, place)
    return _cited(r["reasons"], *(w["reasons"] for w in r["ways"]))


def _check_shot(pm: PlaceMap, want: dict[str, Any], where: str) -> set[str]:
    shooter, target = want["shot"]
    r = asked(pm, "shot", want.get("options"), shooter=shooter, target=target)
    for key in ("allowed", "reduction", "range_bonus", "crossed", "junctions", "counted"):
        if key in want:
            assert r[key] == want[key], (where, key, r["reasons"])
    if "covers" in want:
        assert [c["cover"] for c in r["way"] if c["kind"] == "place"] == want["covers"], where
    for text in want.get("refusals", []):
        assert any(text in x["text"] for x in r["refusals"]), (where, text, r["refusals"])
    assert r["allowed"] is (not r["refusals"])
    assert sum(c["adds"] or 0 for c in r["way"]) == r["reduction"], where  # the column adds up
    return _cited(r["reasons"], r["refusals"])


def _check_place(pm: PlaceMap, want: dict[str, Any], where: str) -> set[str]:
    r = asked(pm, "place", want.get("options"), place=want["place"])
    for key in ("encumbrance", "cover", "type", "lineage"):
        if key in want:
            assert r[key] == want[key], (where, key)
    for key, value in want.get("sources", {}).items():
        assert r["sources"][key] == value, (where, key)
    for key in ("effects", "arriving"):
        if key in want:
            assert _texts(r[key]) == want[key], (where, key)
    if "neighbours" in want:
        assert [n["place"] for n in r["neighbours"]] == want["neighbours"], where
    by_unit = {o["unit"]: o for o in r["units"]}
    for unit, value in want.get("obstruction", {}).items():
        assert by_unit[unit]["obstruction"] == value, (where, unit)
    for unit, effects in want.get("holds", {}).items():
        conditional = [e["text"] for e in by_unit[unit]["effects"] if e["when"] != "always"]
        assert conditional == effects, (where, unit)
    return _cited(r["reasons"])


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden(path: Path) -> None:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    pm = load_places(path)
    for k, want in enumerate(doc["expect"]):
        where = f"{path.name} expect[{k}]"
        if "move" in want:
            cited = _check_move(pm, want, where)
        elif "shot" in want:
            cited = _check_shot(pm, want, where)
        else:
            cited = _check_place(pm, want, where)
        for rule in want.get("rules", []):
            assert rule in cited, (where, rule, cited)
            assert rule in doc["cites"], (where, "cite the rules you check", rule)


def test_john_worked_example_exact_figures() -> None:
    """P3: the seed's figures, 3 spent, 2 exhaustion, 4 left."""
    pm = load_places(HERE / "golden" / "places" / "p3_john_worked_example.yaml")
    ruling = ask(pm, "move", unit="john").ruling
    assert isinstance(ruling, rules.MoveRuling)
    (way,) = ruling.ways_to("beyond")
    assert (way.spent, way.exhaustion, way.left) == (3, 2, 4)
    assert way.steps[0].adversaries == ("barbarian-1", "barbarian-2")


def _example_questions() -> list[tuple[str, dict[str, Any]]]:
    pm = load_places(EXAMPLE)
    asks: list[tuple[str, dict[str, Any]]] = [
        ("move", {"unit": u.id}) for u in pm.units if u.movement is not None
    ]
    asks += [
        ("shot", {"shooter": s.id, "target": t.id}) for s, t in itertools.permutations(pm.units, 2)
    ]
    return asks + [("place", {"place": p.id}) for p in pm.places]


@pytest.mark.parametrize(
    "options",
    [None, {"parent_effects": "merge", "tower_counts": "cover", "effects_on_passing": True}],
)
def test_every_answer_of_the_example_validates_against_the_output_schema(options: Any) -> None:
    """JSON 2: every move, shot and place of the example is one envelope the published
    schema accepts; refusals are reasons citing P rules."""
    pm = load_places(EXAMPLE)
    kinds = set()
    for question, request in _example_questions():
        ruling = asked(pm, question, options, **request)
        kinds.add(question)
        for reason in (*ruling["reasons"], *ruling["refusals"]):
            assert reason["rule"] in RULES, (question, request, reason)
        if question == "shot":
            assert sum(c["adds"] or 0 for c in ruling["way"]) == ruling["reduction"]
    assert kinds == {"move", "shot", "place"}


def test_the_schema_refuses_a_plain_string_refusal() -> None:
    pm = load_places(EXAMPLE)
    doc = ask(pm, "shot", shooter="archer", target="scout").to_json()
    assert doc["rulings"][0]["refusals"], "scout is in Hautes herbes"
    bad = json.loads(json.dumps(doc))
    bad["rulings"][0]["refusals"] = ["scout cannot be targeted"]
    with pytest.raises(jsonschema.ValidationError):
        validator().validate(bad)


def test_the_questions_are_registered() -> None:
    ruleset = find_ruleset("lieux")
    assert ruleset is rules.RULESET and not ruleset.geometric
    assert list(ruleset.questions) == ["move", "shot", "place"]
    assert {q.subject for q in ruleset.questions.values()} == {"places"}
    requests = {q.name: q.request for q in ruleset.questions.values()}
    assert requests == {
        "move": rules.MoveRequest,
        "shot": rules.ShotRequest,
        "place": rules.PlaceRequest,
    }


def test_rulings_follow_the_ruling_protocol() -> None:
    """kind, reasons and refusals as Reason tuples, to_json with the kind first."""
    pm = load_places(EXAMPLE)
    asks: list[tuple[str, dict[str, Any]]] = [
        ("move", {"unit": "john"}),
        ("shot", {"shooter": "archer", "target": "scout"}),
        ("place", {"place": "glade"}),
    ]
    for question, request in asks:
        ruling = ask(pm, question, **request).ruling
        assert isinstance(ruling, Ruling) and type(ruling).kind == question
        assert all(isinstance(r, Reason) for r in (*ruling.reasons, *ruling.refusals))
        doc = ruling.to_json(None)
        assert next(iter(doc)) == "kind" and list(doc)[-2:] == ["reasons", "refusals"]
    refused = ask(pm, "shot", shooter="archer", target="scout").ruling
    assert [r.rule for r in refused.refusals] == ["P6"] and not refused.allowed


def test_a_places_question_of_a_table_is_refused() -> None:
    table = arbitre.load(arbitre.DEMO_SCENARIO)
    with pytest.raises(RulesError, match="shot rules a map of places"):
        ask(table, "shot", shooter="archer", target="hunter")


# -- the catalogue (P4, P6) ---------------------------------------------------------------

SEED_TABLE = {
    "Barricades": (3, "Ruine"),
    "Champ de bataille": (3, "Ruine"),
    "Clairière": (3, "Forêt"),
    "Echoppe": (4, "Ville"),
    "Forêt": (4, None),
    "Forêt lugubre": (4, "Forêt"),
    "Forge": (4, "Ville"),
    "Fosse": (5, "Ruine"),
    "Hautes herbes": (3, "Plaine"),
    "Plaine": (2, None),
    "Rivière tumultueuse": (5, "Forêt"),
    "Ronce": (3, "Forêt"),
    "Ronces denses": (4, "Forêt"),
    "Rue": (2, "Ville"),
    "Ruine": (3, None),
    "Site de magie": (3, "Plaine"),
    "Taverne": (4, "Ville"),
    "Tour abandonnée": (4, "Ruine"),
    "Ville": (3, None),
}


def test_catalogue_is_the_seeds_table() -> None:
    cat = catalogue()
    assert {p.name: (p.encumbrance, p.parent) for p in cat.places} == SEED_TABLE
    assert all(p.cover is None and p.effects for p in cat.places)
    kinds = {
        j.name: (j.encumbrance, j.ranged_reduction, j.blocks_ranged, j.bleeding)
        for j in cat.junctions
    }
    assert kinds == {
        "Barricade grande": (3, 0, False, 0),
        "Barricade moyenne": (2, 0, False, 0),
        "Barricade petite": (1, 0, False, 0),
        "Brume": (0, 2, False, 0),
        "Porte": (0, 0, True, 0),
        "Ronce/pieux": (0, 0, False, 1),
    }


@pytest.mark.parametrize(
    "name, expected",
    [
        ("Forêt", "Forêt"),
        ("foret", "Forêt"),
        ("FORÊT", "Forêt"),
        ("forest", "Forêt"),
        ("Tour abandonnee", "Tour abandonnée"),
        ("abandoned tower", "Tour abandonnée"),
        ("hautes-herbes", "Hautes herbes"),
        ("tall grass", "Hautes herbes"),
        ("Échoppe", "Echoppe"),
        ("street", "Rue"),
        ("Riviere tumultueuse", "Rivière tumultueuse"),
    ],
)
def test_place_types_by_french_or_english_name(name: str, expected: str) -> None:
    assert find_place_type(name).name == expected


@pytest.mark.parametrize(
    "name, expected",
    [
        ("Brume", "Brume"),
        ("mist", "Brume"),
        ("porte", "Porte"),
        ("door", "Porte"),
        ("Ronce/pieux", "Ronce/pieux"),
        ("ronce pieux", "Ronce/pieux"),
        ("stakes", "Ronce/pieux"),
        ("large barricade", "Barricade grande"),
        ("barricade PETITE", "Barricade petite"),
    ],
)
def test_junction_kinds_by_name(name: str, expected: str) -> None:
    assert find_junction_kind(name).name == expected


def test_unknown_names_suggest_or_list() -> None:
    with pytest.raises(RulesError, match="did you mean Forêt"):
        find_place_type("Foret sombre")
    with pytest.raises(RulesError, match=r"known: .*Porte"):
        find_junction_kind("xyz")


# -- loading and its checks ---------------------------------------------------------------

GOOD = """
arbitre: 1
places:
  - {id: square, type: Ville}
  - {id: road, encumbrance: 2}
  - {id: woods, type: Forêt}
adjacent:
  - [square, road]
  - [road, woods, {junction: Barricade petite}]
units:
  - {id: john, side: heroes, place: road, movement: 7}
  - {id: barbarian-1, side: raiders, place: road, arrived: 2}
"""


def _problems(doc: Any) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        places_from_dict(doc)
    return [str(p) for p in info.value.problems]


def _doc(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(GOOD)
    doc.update(changes)
    return doc


def test_loads_the_scenario_md_example() -> None:
    pm = loads_places(GOOD)
    assert [p.id for p in pm.places] == ["square", "road", "woods"]
    assert pm.place("road").encumbrance == 2
    assert pm.place("woods").encumbrance == 4
    (j,) = pm.junctions
    assert (j.id, j.kind, j.between, j.encumbrance) == (
        "road~woods",
        "Barricade petite",
        ("road", "woods"),
        1,
    )
    assert [u.arrived for u in pm.units] == [1, 2]
    assert pm.neighbours("road") == ("square", "woods")


def test_json_and_golden_keys() -> None:
    doc = _doc(
        cites=["P1"],
        expect=[{"anything": 1}],
        name="x",
        rules="Places",
        options={"tower_counts": "cover"},
    )
    pm = loads_places(json.dumps(doc))
    assert pm.name == "x"
    assert ask(pm, "place", place="square").options["tower_counts"] == "cover"


@pytest.mark.parametrize(
    "change, expected",
    [
        ({"arbitre": 2}, "arbitre: must be 1, got 2"),
        ({"arbitre": True}, "arbitre: must be 1, got True"),
        ({"places": []}, "places: required"),
        ({"rules": "frostgrave"}, "rules: a places scenario uses the rules 'places'"),
        ({"colour": 1}, "colour: unknown field"),
        ({"adjacent": [["square", "nowhere"]]}, "adjacent[0][1]: unknown place id 'nowhere'"),
        ({"adjacent": [["square", "square"]]}, "adjacent[0]: a place cannot be adjacent to itself"),
        (
            {"adjacent": [["square", "road"], ["road", "square"]]},
            "adjacent[1]: 'road' and 'square' are already adjacent",
        ),
        (
            {"adjacent": [["square", "road", {"junction": "Portail"}]]},
            "adjacent[0][2].junction: unknown junction kind 'Portail' (did you mean Porte?)",
        ),
        (
            {"adjacent": [["square", "road", {"junction": ["Porte", "Brume"], "id": "x"}]]},
            "adjacent[0][2].id: 2 junctions need 2 ids, got 1",
        ),
        (
            {"adjacent": [["square", "road", {"jonction": "Porte"}]]},
            "adjacent[0][2].jonction: unknown field (did you mean 'junction'?)",
        ),
        ({"adjacent": "square"}, "adjacent: must be a list"),
        ({"adjacent": [["square"]]}, "adjacent[0]: must be [place, place]"),
    ],
)
def test_problems_have_paths(change: dict[str, Any], expected: str) -> None:
    assert any(p.startswith(expected) for p in _problems(_doc(**change))), _problems(_doc(**change))


def test_every_problem_reported_at_once() -> None:
    doc = _doc()
    doc["places"] += [
        {"id": "square", "type": "Villle"},  # duplicate id, unknown type
        {"id": "bad", "encumbrance": 0, "cover": -1},  # floors (P2)
        {"id": "a", "parent": "b"},
        {"id": "b", "parent": "a"},  # a loop
        {"id": "c", "parent": "Nowhere"},
    ]
    doc["adjacent"].append(["road", "square", {"junction": "Porte", "id": "door"}])
    doc["units"] += [
        {"id": "x", "side": "s", "place": "road~woods"},  # on a junction
        {"id": "road", "side": "s", "place": "woods"},  # duplicate id
        {"id": "y", "side": "s", "place": "nowhere"},
        {"id": "z", "side": "s", "place": "road", "arrived": 1},  # john arrived 1 there
        {"id": "w", "side": "s", "place": "woods", "movement": -1},
    ]
    found = "\n".join(_problems(doc))
    for text in [
        "places[3].id: duplicate id 'square' (also places[0].id)",
        "places[3].type: unknown place type 'Villle' (did you mean Ville?)",
        "places[4].encumbrance: must be >= 1, got 0",
        "places[4].cover: must be >= 0, got -1",
        "places[5].parent: the parent chain loops: a -> b -> a",
        "places[7].parent: unknown parent 'Nowhere'",
        "adjacent[2]: 'road' and 'square' are already adjacent (adjacent[0])",
        "units[2].place: 'road~woods' is a junction: nobody can stop on a junction",
        "units[3].id: duplicate id 'road' (also places[1].id)",
        "units[4].place: unknown place id 'nowhere'",
        "units[5].arrived: john also arrived 1 on 'road'",
        "units[6].movement: must be >= 0, got -1",
    ]:
        assert text in found, (text, found)


def test_not_a_mapping_and_bad_text(tmp_path: Path) -> None:
    assert _problems([1, 2]) == [
        "a places scenario must be a mapping (arbitre, places, adjacent, units), got a list"
    ]
    with pytest.raises(ScenarioError, match="invalid YAML"):
        loads_places("places: [")
    with pytest.raises(ScenarioError, match="cannot read the file"):
        load_places(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.json"
    bad.write_text('{"arbitre": 1,', encoding="utf-8")
    with pytest.raises(ScenarioError, match="invalid JSON"):
        load_places(bad)


def test_inheritance_from_a_place_of_the_map() -> None:
    pm = places_from_dict(
        _doc(
            places=[
                {"id": "wood", "type": "forest", "cover": 2},
                {"id": "copse", "parent": "wood"},
                {"id": "shed", "type": "Taverne", "parent": "wood"},  # parent replaces Ville
                {"id": "bare", "parent": "wood", "effects": []},  # states no effects
            ],
            adjacent=[],
            units=[],
        )
    )
    copse, shed, bare = (pm.place(i) for i in ("copse", "shed", "bare"))
    assert (copse.encumbrance, copse.cover, copse.lineage) == (4, 2, ("wood", "Forêt"))
    assert (shed.encumbrance, shed.cover, shed.lineage) == (4, 2, ("Taverne", "wood", "Forêt"))
    assert [rules.describe(e) for e in shed.effects] == ["resource provisions +2"]
    assert bare.effects == () and len(bare.lineage_effects) == 1


def test_unknown_ids_name_the_known_ones() -> None:
    pm = loads_places(GOOD)
    with pytest.raises(RulesError, match=r"unknown unit id 'bob' \(units: john, barbarian-1\)"):
        ask(pm, "move", unit="bob")
    with pytest.raises(RulesError, match=r"unknown place id 'x'.*places: square, road, woods"):
        ask(pm, "place", place="x")
    with pytest.raises(RulesError, match="'road~woods' is a junction"):
        ask(pm, "place", place="road~woods")
    with pytest.raises(RulesError, match="no movement"):
        ask(pm, "move", unit="barbarian-1")
    with pytest.raises(RulesError, match="cannot shoot itself"):
        ask(pm, "shot", shooter="john", target="john")


def test_options_are_checked() -> None:
    pm = loads_places(GOOD)
    with pytest.raises(RulesError, match=r"unknown option 'tower' .*tower_counts"):
        ask(pm, "move", options={"tower": 1}, unit="john")
    with pytest.raises(RulesError, match="option tower_counts: got 'x', expected one of"):
        ask(pm, "move", options={"tower_counts": "x"}, unit="john")
    with pytest.raises(RulesError, match="unknown option"):
        ask(places_from_dict(_doc(options={"bogus": True})), "move", unit="john")


junk = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 5)
    | st.sampled_from(["a", "b", "road", "Forêt", "Porte", "", "places"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "arbitre",
                    "places",
                    "adjacent",
                    "units",
                    "id",
                    "type",
                    "place",
                    "side",
                    "junction",
                    "parent",
                    "encumbrance",
                    "cover",
                    "at",
                    "arrived",
                    "effects",
                    "kind",
                    "name",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=25,
)


def _loads_or_refuses(doc: Any) -> None:
    try:
        pm = places_from_dict(doc)
    except ScenarioError as exc:
        assert exc.problems and all(isinstance(p.message, str | Text) for p in exc.problems)
    else:
        assert isinstance(pm, PlaceMap)


@settings(max_examples=100, deadline=None)
@given(junk)
def test_loader_never_crashes(doc: Any) -> None:
    _loads_or_refuses(doc)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(junk)
def test_loader_never_crashes_full(doc: Any) -> None:
    _loads_or_refuses(doc)


# -- oracles on random maps ---------------------------------------------------------------


def random_map(seed: int) -> PlaceMap:
    """A seeded random map: places of random encumbrance/cover/types, junctions, units."""
    rng = random.Random(seed)
    n = rng.randint(2, 9)
    types = [None, None, "Rue", "Forêt", "Hautes herbes", "Plaine", "Tour abandonnée"]
    places = []
    for i in range(n):
        p: dict[str, Any] = {"id": f"p{i}"}
        kind = rng.choice(types)
        if kind:
            p["type"] = kind
        if rng.random() < 0.6:
            p["encumbrance"] = rng.randint(1, 5)
        if rng.random() < 0.5:
            p["cover"] = rng.randint(0, 3)
        places.append(p)
    kinds = ["Barricade grande", "Barricade petite", "Brume", "Porte", "Ronce/pieux"]
    adjacent: list[list[Any]] = []
    for a, b in itertools.combinations(range(n), 2):
        if rng.random() < 0.45:
            way: list[Any] = [f"p{a}", f"p{b}"]
            if rng.random() < 0.35:
                way.append({"junction": rng.sample(kinds, rng.randint(1, 2))})
            adjacent.append(way)
    units = [
        {
            "id": "mover",
            "side": "a",
            "place": f"p{rng.randrange(n)}",
            "movement": rng.randint(0, 18),
        }
    ]
    for k in range(rng.randint(0, 9)):
        units.append(
            {
                "id": f"u{k}",
                "side": rng.choice("abc"),
                "place": f"p{rng.randrange(n)}",
                "obstruction": rng.randint(0, 3),
            }
        )
    return places_from_dict({"arbitre": 1, "places": places, "adjacent": adjacent, "units": units})


def bf_moves(
    pm: PlaceMap, unit: str, points: int, opts: rules.PlacesOptions
) -> dict[str, set[tuple[int, int]]]:
    """Brute force: every simple path, its (exhaustion, points left); keep the Pareto front."""
    mover = pm.unit(unit)
    found: dict[str, set[tuple[int, int]]] = {}
    for target in pm.graph.nodes:
        if target == mover.place:
            continue
        labels = set()
        for path in nx.all_simple_paths(pm.graph, mover.place, target):
            spent = sum(rules.step_cost(pm, a, b) for a, b in itertools.pairwise(path))
            if spent > points:
                continue
            exhaustion = sum(rules.leaving(pm, mover, a, opts)[0] for a in path[:-1])
            labels.add((exhaustion, points - spent))
        front = {
            (e, left)
            for e, left in labels
            if not any(e2 <= e and l2 >= left and (e2, l2) != (e, left) for e2, l2 in labels)
        }
        if front:
            found[target] = front
    return found


@pytest.mark.parametrize("batch", range(8))
def test_best_ways_agree_with_brute_force(batch: int) -> None:
    """P3-P4: the label-setting search is exact (30 random maps a batch, 240 in all)."""
    for seed in range(batch * 30, batch * 30 + 30):
        pm = random_map(seed)
        mover = pm.unit("mover")
        assert mover.movement is not None
        ruling = ask(pm, "move", unit="mover").ruling
        got: dict[str, set[tuple[int, int]]] = {}
        for w in ruling.ways:
            got.setdefault(w.place, set()).add((w.exhaustion, w.left))
            # the way's own figures add up
            assert w.spent == sum(s.cost for s in w.steps), seed
            assert w.exhaustion == sum(s.exhaustion for s in w.steps), seed
            assert w.path[0] == mover.place and w.path[-1] == w.place, seed
            assert len(set(w.path)) == len(w.path), seed
        assert got == bf_moves(pm, "mover", mover.movement, rules.PlacesOptions()), seed
        assert len(ruling.ways) == sum(len(v) for v in got.values()), seed
        reachable = set(got)
        assert set(ruling.unreachable) == {p.id for p in pm.places} - reachable - {mover.place}, (
            seed
        )


def bf_line(pm: PlaceMap, a: str, b: str) -> tuple[int, int, tuple[str, ...]] | None:
    """Brute force of the P5 decision: every shortest path, (doors, reduction, ids)."""
    if a == b:
        return (0, 0, (a,))
    if not nx.has_path(pm.graph, a, b):
        return None
    best = None
    for path in nx.all_shortest_paths(pm.graph, a, b):
        js = [j for x, y in itertools.pairwise(path) for j in pm.junctions_between(x, y)]
        key = (
            sum(j.blocks_ranged for j in js),
            sum(pm.place(p).cover for p in path[1:]) + sum(j.ranged_reduction for j in js),
            tuple(path),
        )
        best = key if best is None or key < best else best
    return best


def test_projectile_way_agrees_with_brute_force() -> None:
    """P5: among shortest ways, fewest doors, then least reduction, then ids (240 maps)."""
    checked = 0
    for seed in range(240):
        pm = random_map(seed)
        for s, t in itertools.permutations([u.id for u in pm.units], 2):
            ruling = ask(pm, "shot", shooter=s, target=t).ruling
            assert sum(c.adds or 0 for c in ruling.way) == ruling.reduction, seed
            tower = any(e.kind == "final_place_only" for e in pm.place(pm.unit(s).place).effects)
            if tower:
                continue
            want = bf_line(pm, pm.unit(s).place, pm.unit(t).place)
            if want is None:
                assert ruling.crossed == () and not ruling.allowed
                continue
            assert ruling.crossed == want[2], seed
            assert ruling.reduction == want[1], seed
            checked += 1
    assert checked > 500


# -- the commands ---------------------------------------------------------------------------


@pytest.fixture()
def cli() -> Any:
    runner = CliRunner()

    def run(*args: object) -> Any:
        return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "120"})

    return run


def test_cli_move_json_john(cli: Any) -> None:
    result = cli("move", GOLDEN[0].parent / "p3_john_worked_example.yaml", "john", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    validator().validate(doc)
    assert (doc["arbitre"], doc["kind"], doc["rules"], doc["unit"]) == (2, "move", "places", None)
    (ruling,) = doc["rulings"]
    beyond = [w for w in ruling["ways"] if w["place"] == "beyond"]
    assert [(w["spent"], w["exhaustion"], w["left"]) for w in beyond] == [(3, 2, 4)]
    assert doc["options"]["tower_counts"] == "encumbrance"
    assert "grazing_blocks" not in doc["options"]  # no geometry on a map of places


def test_cli_move_points_and_text(cli: Any) -> None:
    result = cli("move", EXAMPLE, "john", "--points", "3")
    assert result.exit_code == 0, result.output
    assert "john on meadow: 3 movement points" in result.output
    assert "tall-grass" in result.output and "out of reach" in result.output


def test_cli_shot_and_options(cli: Any) -> None:
    result = cli("shot", EXAMPLE, "archer", "witch", "--json")
    (ruling,) = json.loads(result.output)["rulings"]
    assert ruling["allowed"] and ruling["reduction"] == 3 and ruling["range_bonus"] == 1
    result = cli("shot", EXAMPLE, "archer", "witch", "-O", "tower_counts=cover", "--json")
    doc = json.loads(result.output)
    assert doc["rulings"][0]["reduction"] == 0 and doc["options"]["tower_counts"] == "cover"
    result = cli("shot", EXAMPLE, "archer", "scout")
    assert result.exit_code == 0 and "cannot shoot" in result.output
    assert "cannot be targeted by ranged weapons" in result.output


def _rows(output: str) -> list[list[str]]:
    """The cells of the shot table's rows, cut at its header's column starts."""
    lines = output.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("crossed"))
    starts = [lines[head].index(h) for h in ("crossed", "cover", "counts")]
    rows = []
    for line in lines[head + 2 :]:
        if not line.strip() or line.startswith(("  attack", "  refused", "  P")):
            break
        cuts = [*starts[1:], len(line) + 1]
        rows.append([line[a:b].strip() for a, b in zip(starts, cuts, strict=True)])
    return rows


def _row(output: str, first: str) -> list[str]:
    """The cells of the table row starting with ``first``."""
    return next(cells for cells in _rows(output) if cells[0] == first)


@pytest.mark.parametrize(
    ("shooter", "target", "reduction"),
    [("archer", "witch", 3), ("scout", "sentry", 2), ("john", "sentry", 2)],
)
def test_cli_shot_table_adds_up_to_the_reduction(
    cli: Any, shooter: str, target: str, reduction: int
) -> None:
    """The counts column shows what each crossed place or junction adds to the reduction:
    Tour abandonnée counts the final place's encumbrance (3) though every cover is 0
    (P6); mist adds 2 (P4); barricades their cover (P5)."""
    result = cli("shot", EXAMPLE, shooter, target)
    assert result.exit_code == 0, result.output
    counts = [int(cells[2]) for cells in _rows(result.output) if cells[2]]
    assert sum(counts) == reduction and counts
    assert f"attack score -{reduction}" in result.output
    if shooter == "archer":
        assert _row(result.output, "glade (target)") == ["glade (target)", "0", "3"]
        assert _row(result.output, "old-tower (shooter)") == ["old-tower (shooter)", "0", ""]


def test_cli_place(cli: Any) -> None:
    result = cli("place", EXAMPLE, "glade")
    assert result.exit_code == 0, result.output
    assert "encumbrance 3 (from Clairière)" in result.output
    assert "a unit arriving now gets: if last arrived: defence score +2" in result.output
    doc = json.loads(cli("place", EXAMPLE, "main-street", "--json").output)
    assert doc["rulings"][0]["units"][0]["obstruction"] == 3  # sentry 2, Rue +1
    merged = cli("place", EXAMPLE, "glade", "-O", "parent_effects=merge")
    assert "effect: quickness +1" in merged.output


def test_cli_errors_are_arbitre_errors(cli: Any, tmp_path: Path) -> None:
    result = cli("move", EXAMPLE, "nobody")
    assert isinstance(result.exception, RulesError)
    assert "units: john, barbarian-1" in str(result.exception)
    result = cli("place", EXAMPLE, "x", "-O", "nope=1")
    assert isinstance(result.exception, RulesError)
    bad = tmp_path / "bad.yaml"
    bad.write_text("arbitre: 1\nplaces: [{id: a}, {id: a}]\n", encoding="utf-8")
    result = cli("shot", bad, "a", "b")
    assert isinstance(result.exception, ScenarioError)
    assert "places[1].id: duplicate id 'a'" in str(result.exception)


def test_cli_render(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "map.svg"
    result = cli("render", EXAMPLE, "-o", out)
    assert result.exit_code == 0, result.output
    ET.fromstring(out.read_text(encoding="utf-8"))


def test_cli_places_commands_in_their_panel(cli: Any) -> None:
    result = cli("--help")
    assert result.exit_code == 0
    assert "Places" in result.output


# -- the example and the picture ------------------------------------------------------------


def test_example_uses_most_of_the_seed() -> None:
    pm = load_places(EXAMPLE)
    assert len({p.type for p in pm.places if p.type}) >= 15
    assert len({j.kind for j in pm.junctions}) >= 5
    assert nx.is_connected(pm.graph)


def test_render_draws_every_place_junction_and_unit() -> None:
    pm = load_places(EXAMPLE)
    svg = render_places(pm)
    assert svg == render_places(pm)  # deterministic
    root = ET.fromstring(svg)
    ids = {g.get("data-id"): g.get("class") for g in root.iter(f"{SVG}g")}
    for p in pm.places:
        assert ids[p.id] == "place"
    for j in pm.junctions:
        assert ids[j.id] == "junction"
    for u in pm.units:
        assert ids[u.id] == "unit"


def _card_effects(svg: str) -> dict[str, list[str]]:
    """Each card's effect words: the whole texts (its title) and the lines drawn."""
    found: dict[str, list[str]] = {}
    for card in ET.fromstring(svg).iter(f"{SVG}g"):
        if card.get("class") != "place":
            continue
        group = next((g for g in card.iter(f"{SVG}g") if g.get("class") == "effects"), None)
        texts: list[str] = []
        if group is not None:
            title = group.find(f"{SVG}title")
            assert title is not None and title.text
            texts = title.text.split("\n")
            drawn = " ".join(t.text or "" for t in group.findall(f"{SVG}text"))
            if not drawn.endswith("…"):
                assert drawn == " ".join(" ".join(t.split()) for t in texts)
        found[str(card.get("data-id"))] = texts
    return found


@pytest.mark.parametrize("options", [None, {"parent_effects": "merge"}])
def test_the_picture_shows_the_effects_the_place_ruling_words(options: Any) -> None:
    """P6 in the picture: the effects a place grants under the options in force, in the
    words of the ``place`` ruling (what ``arbitre place`` says), not re-worded."""
    pm = load_places(EXAMPLE)
    cards = _card_effects(render_places(pm, options=options))
    for p in pm.places:
        assert cards[p.id] == _texts(asked(pm, "place", options, place=p.id)["effects"]), p.id
    if options:
        assert cards["glade"] == ["if last arrived: defence score +2", "quickness +1"]
    else:
        assert cards["glade"] == ["if last arrived: defence score +2"]


def test_the_picture_takes_the_maps_own_options() -> None:
    doc = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    doc["options"] = {"parent_effects": "merge"}
    pm = places_from_dict(doc)
    assert _card_effects(render_places(pm))["glade"][-1] == "quickness +1"


def test_the_picture_shows_each_units_obstruction_there() -> None:
    """Rue: every unit present has obstruction +1 (P6), as the place ruling says."""
    pm = load_places(EXAMPLE)
    root = ET.fromstring(render_places(pm))
    unit = next(g for g in root.iter(f"{SVG}g") if g.get("data-id") == "sentry")
    title = unit.find(f"{SVG}title")
    assert title is not None and "obstruction 3" in (title.text or "")


@pytest.mark.parametrize("seed", range(12))
def test_automatic_layout_has_no_overlapping_cards(seed: int) -> None:
    pm = random_map(seed)
    pos = layout(pm)
    for a, b in itertools.combinations(pos, 2):
        (ax, ay), (bx, by) = pos[a], pos[b]
        assert abs(ax - bx) >= CARD_W - 1e-6 or abs(ay - by) >= CARD_H - 1e-6, (seed, a, b)


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="needs rsvg-convert")
def test_render_rasterises(tmp_path: Path) -> None:
    svg, png = tmp_path / "map.svg", tmp_path / "map.png"
    svg.write_text(render_places(load_places(EXAMPLE)), encoding="utf-8")
    subprocess.run(["rsvg-convert", str(svg), "-o", str(png)], check=True)
    assert png.stat().st_size > 10_000


OPTIONS_MAP = """
arbitre: 1
places:
  - {id: tower, type: Tour abandonnée}
  - {id: thorns, type: Ronces denses}
  - {id: field, type: Plaine}
  - {id: yard, encumbrance: 1}
adjacent:
  - [tower, thorns, {junction: Ronce/pieux}]
  - [thorns, field, {junction: Porte, id: door}]
  - [field, yard, {junction: [Ronce/pieux, Ronce/pieux], id: [s1, s2]}]
units:
  - {id: archer, side: red, place: tower, movement: 20}
  - {id: target, side: blue, place: field}
"""


def _way_to(pm: PlaceMap, place: str, **options: Any) -> Any:
    (way,) = ask(pm, "move", options=options, unit="archer").ruling.ways_to(place)
    return way


def test_option_effects_on_passing() -> None:
    """P6 option: arrival effects of the places crossed, not only of the final one."""
    pm = loads_places(OPTIONS_MAP)
    way = _way_to(pm, "field")
    assert way.bleeding == 1 and [e.text for e in way.effects] == ["will +1"]
    way = _way_to(pm, "field", effects_on_passing=True)
    assert way.bleeding == 2
    assert [e.text for e in way.effects] == ["bleeding 1", "will +1"]


def test_option_bleeding_stacks() -> None:
    pm = loads_places(OPTIONS_MAP)
    assert _way_to(pm, "yard").bleeding == 3
    assert _way_to(pm, "yard", bleeding_stacks=False).bleeding == 1


def test_option_tower_over_doors() -> None:
    pm = loads_places(OPTIONS_MAP)
    ruling = ask(pm, "shot", shooter="archer", target="target").ruling
    assert not ruling.allowed and "door" in ruling.refusals[0].text
    assert ruling.refusals[0].rule == "P4" and ruling.refusals[0].ids[0] == "door"
    ruling = ask(
        pm, "shot", options={"tower_over_doors": True}, shooter="archer", target="target"
    ).ruling
    assert ruling.allowed and ruling.reduction == 2 and ruling.counted == ("field",)


# -- the picture's labels and legend (issue 11) ----------------------------------------------


def _boxes(svg: str) -> tuple[list[tuple[str, Any]], list[Any], list[Any]]:
    """The picture's text boxes (a generous estimate of each text's extent), its cards and
    its junction badges, as (x0, y0, x1, y1)."""
    root = ET.fromstring(svg)
    texts = []
    for t in root.iter(f"{SVG}text"):
        size, words = float(t.get("font-size", "10")), t.text or ""
        w = (0.62 if t.get("font-weight") == "bold" else 0.58) * size * len(words)
        x, y = float(t.get("x", "0")), float(t.get("y", "0"))
        x0 = {"middle": x - w / 2, "end": x - w}.get(t.get("text-anchor", "start"), x)
        texts.append((words, (x0, y - 0.75 * size, x0 + w, y + 0.2 * size)))
    rects: dict[str, list[Any]] = {"place": [], "junction": []}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") in rects:
            r = g.find(f"{SVG}rect")
            assert r is not None
            x, y = float(r.get("x", "0")), float(r.get("y", "0"))
            box = (x, y, x + float(r.get("width", "0")), y + float(r.get("height", "0")))
            rects[str(g.get("class"))].append(box)
    return texts, rects["place"], rects["junction"]


def _meet(a: Any, b: Any) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def _example_without_at() -> PlaceMap:
    doc = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    for p in doc["places"]:
        p.pop("at")
    return places_from_dict(doc)


def _grid_map(seed: int) -> PlaceMap:
    """A map of cards side by side (a grid with holes), junctions on a third of the ways."""
    rng = random.Random(seed)
    cells = {(i, j) for i in range(5) for j in range(4) if rng.random() < 0.8}
    kinds = ["Barricade grande", "Brume", "Porte", "Ronce/pieux", "Barricade moyenne"]
    ways: list[list[Any]] = []
    for i, j in sorted(cells):
        for nb in ((i + 1, j), (i, j + 1)):
            if nb in cells and rng.random() < 0.8:
                way: list[Any] = [f"c{i}-{j}", f"c{nb[0]}-{nb[1]}"]
                if rng.random() < 0.35:
                    way.append({"junction": rng.sample(kinds, rng.randint(1, 2))})
                ways.append(way)
    names = [t.name for t in catalogue().places]
    places = [{"id": f"c{i}-{j}", "type": rng.choice(names)} for i, j in sorted(cells)]
    units = [
        {"id": f"unit-{k}", "side": rng.choice(["red", "wardens"]), "place": places[k]["id"]}
        for k in range(0, len(places), 2)
    ]
    return places_from_dict({"arbitre": 1, "places": places, "adjacent": ways, "units": units})


@pytest.mark.parametrize("which", ["example", "example-auto", *(f"grid-{s}" for s in range(6))])
def test_no_label_overlaps_another(which: str) -> None:
    """Issue 11: no text over another text, no badge over a card or another badge."""
    if which == "example":
        pm = load_places(EXAMPLE)
    elif which == "example-auto":
        pm = _example_without_at()
    else:
        pm = _grid_map(int(which.split("-")[1]))
    texts, cards, badges = _boxes(render_places(pm))
    for (s, a), (t, b) in itertools.combinations(texts, 2):
        assert not _meet(a, b), (which, s, t)
    for k, badge in enumerate(badges):
        assert not any(_meet(badge, card) for card in cards), (which, k)
        assert not any(_meet(badge, other) for other in badges[k + 1 :]), (which, k)


def test_the_automatic_layout_of_the_example_is_its_grid() -> None:
    """Without its `at`, the example is laid out as the grid it is: every way joins cards
    side by side, none passes under a card."""
    pos = layout(_example_without_at())
    pm = _example_without_at()
    steps = {
        (round(abs(pos[a][0] - pos[b][0])), round(abs(pos[a][1] - pos[b][1])))
        for a, b in pm.adjacent
    }
    assert all(dx == 0 or dy == 0 for dx, dy in steps)
    assert len({dx for dx, _ in steps if dx}) == 1 and len({dy for _, dy in steps if dy}) == 1


def test_the_legend_has_one_entry_per_meaning() -> None:
    """Issue 11: every card colour is in the legend, each colour and each text once."""
    for pm in (load_places(EXAMPLE), _grid_map(1)):
        root = ET.fromstring(render_places(pm))
        legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
        swatches = [r.get("fill") for r in legend.iter(f"{SVG}rect")]
        words = [t.text for t in legend.iter(f"{SVG}text")]
        assert len(swatches) == len(set(swatches)) and len(words) == len(set(words))
        fills = {
            g.find(f"{SVG}rect").get("fill")  # type: ignore[union-attr]
            for g in root.iter(f"{SVG}g")
            if g.get("class") in ("place", "junction")
        }
        assert fills <= set(swatches)
    words = [
        t.text or "" for t in ET.fromstring(render_places(load_places(EXAMPLE))).iter(f"{SVG}text")
    ]
    assert "Forêt (forest) and its kinds" in words and "other places" not in words


def test_side_colours_follow_side_names_not_file_order() -> None:
    from arbitre.faces.svg.places import side_colours

    one = side_colours(("wardens", "raiders", "red"))
    assert one == side_colours(("red", "raiders", "wardens"))
    assert one["red"] == "#c0392b" and len(set(one.values())) == 3
