"""Places instead of a gridded battlemap (P1-P6, seed 003): golden scenarios citing their
rules, the loader's checks, brute-force oracles for the best-way search (P3-P4) and the
projectile's way (P5) on seeded random maps, the commands, and the picture."""

from __future__ import annotations

import itertools
import json
import random
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Annotated, Any

import networkx as nx
import pytest
import typer
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from arbitre.errors import RulesError, ScenarioError
from arbitre.faces.cli.places import register, render_places_file
from arbitre.faces.svg.places import CARD_H, CARD_W, layout, render_places
from arbitre.places import (
    PlaceMap,
    catalogue,
    find_junction_kind,
    find_place_type,
    load_places,
    loads_places,
    places_from_dict,
)
from arbitre.rules import placemap as rules

HERE = Path(__file__).parent
GOLDEN = sorted((HERE / "golden" / "places").glob("*.yaml"))
EXAMPLE = HERE.parent / "examples" / "village-forest-places.yaml"
RULES = {f"P{i}" for i in range(1, 7)}


# -- golden scenarios ---------------------------------------------------------------------


def test_every_p_rule_has_a_golden_scenario() -> None:
    cited: set[str] = set()
    for path in GOLDEN:
        cited |= set(yaml.safe_load(path.read_text(encoding="utf-8"))["cites"])
    assert cited >= RULES, RULES - cited


def _cited(reasons: Any) -> set[str]:
    return {r.rule for r in reasons}


def _check_move(pm: PlaceMap, want: dict[str, Any], where: str) -> set[str]:
    opts = rules.options(pm, **want.get("options", {}))
    ruling = rules.move(pm, want["move"], points=want.get("points"), opts=opts)
    if "places" in want:
        assert list(ruling.places) == want["places"], where
    if "unreachable" in want:
        assert set(ruling.unreachable) == set(want["unreachable"]), where
    expected: dict[str, list[dict[str, Any]]] = {}
    for way in want.get("ways", []):
        expected.setdefault(way["place"], []).append(way)
    for place, ways in expected.items():
        got = ruling.ways_to(place)
        assert len(got) == len(ways), (where, place, got)
        for w, g in zip(ways, got, strict=True):
            for key in ("spent", "left", "exhaustion", "bleeding"):
                if key in w:
                    assert getattr(g, key) == w[key], (where, place, key)
            if "path" in w:
                assert list(g.path) == w["path"], (where, place)
            if "junctions" in w:
                assert list(g.junctions) == w["junctions"], (where, place)
            if "effects" in w:
                assert [e.describe() for e in g.effects] == w["effects"], (where, place)
    return _cited(ruling.reasons) | {r.rule for w in ruling.ways for r in w.reasons}


def _check_shot(pm: PlaceMap, want: dict[str, Any], where: str) -> set[str]:
    opts = rules.options(pm, **want.get("options", {}))
    ruling = rules.shot(pm, *want["shot"], opts=opts)
    for key in ("allowed", "reduction", "range_bonus"):
        if key in want:
            assert getattr(ruling, key) == want[key], (where, key, ruling.reasons)
    for key in ("crossed", "covers", "junctions", "counted"):
        if key in want:
            assert list(getattr(ruling, key)) == want[key], (where, key)
    for text in want.get("refusals", []):
        assert any(text in r for r in ruling.refusals), (where, text, ruling.refusals)
    assert ruling.allowed is (not ruling.refusals)
    json.dumps(ruling.to_json())
    return _cited(ruling.reasons)


def _check_place(pm: PlaceMap, want: dict[str, Any], where: str) -> set[str]:
    opts = rules.options(pm, **want.get("options", {}))
    ruling = rules.place_info(pm, want["place"], opts=opts)
    for key in ("encumbrance", "cover", "type"):
        if key in want:
            assert getattr(ruling, key) == want[key], (where, key)
    if "lineage" in want:
        assert list(ruling.lineage) == want["lineage"], where
    for key, value in want.get("sources", {}).items():
        assert dict(ruling.sources)[key] == value, (where, key)
    if "effects" in want:
        assert [e.describe() for e in ruling.effects] == want["effects"], where
    if "arriving" in want:
        assert [e.describe() for e in ruling.arriving] == want["arriving"], where
    if "neighbours" in want:
        assert [n for n, _ in ruling.neighbours] == want["neighbours"], where
    by_unit = {o.unit: o for o in ruling.occupants}
    for unit, value in want.get("obstruction", {}).items():
        assert by_unit[unit].obstruction == value, (where, unit)
    for unit, effects in want.get("holds", {}).items():
        conditional = [e.describe() for e in by_unit[unit].effects if e.when != "always"]
        assert conditional == effects, (where, unit)
    json.dumps(ruling.to_json())
    return _cited(ruling.reasons)


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
    (way,) = rules.move(pm, "john").ways_to("beyond")
    assert (way.spent, way.exhaustion, way.left) == (3, 2, 4)
    assert way.steps[0].adversaries == ("barbarian-1", "barbarian-2")


# -- the catalogue (P4, P6) ---------------------------------------------------------------

SEED_TABLE = {
    "Barricades": (3, "Ruine"), "Champ de bataille": (3, "Ruine"),
    "Clairière": (3, "Forêt"), "Echoppe": (4, "Ville"), "Forêt": (4, None),
    "Forêt lugubre": (4, "Forêt"), "Forge": (4, "Ville"), "Fosse": (5, "Ruine"),
    "Hautes herbes": (3, "Plaine"), "Plaine": (2, None),
    "Rivière tumultueuse": (5, "Forêt"), "Ronce": (3, "Forêt"),
    "Ronces denses": (4, "Forêt"), "Rue": (2, "Ville"), "Ruine": (3, None),
    "Site de magie": (3, "Plaine"), "Taverne": (4, "Ville"), "Tour abandonnée": (4, "Ruine"),
    "Ville": (3, None),
}


def test_catalogue_is_the_seeds_table() -> None:
    cat = catalogue()
    assert {p.name: (p.encumbrance, p.parent) for p in cat.places} == SEED_TABLE
    assert all(p.cover is None and p.effects for p in cat.places)
    kinds = {j.name: (j.encumbrance, j.ranged_reduction, j.blocks_ranged, j.bleeding)
             for j in cat.junctions}
    assert kinds == {
        "Barricade grande": (3, 0, False, 0), "Barricade moyenne": (2, 0, False, 0),
        "Barricade petite": (1, 0, False, 0), "Brume": (0, 2, False, 0),
        "Porte": (0, 0, True, 0), "Ronce/pieux": (0, 0, False, 1),
    }


@pytest.mark.parametrize("name, expected", [
    ("Forêt", "Forêt"), ("foret", "Forêt"), ("FORÊT", "Forêt"), ("forest", "Forêt"),
    ("Tour abandonnee", "Tour abandonnée"), ("abandoned tower", "Tour abandonnée"),
    ("hautes-herbes", "Hautes herbes"), ("tall grass", "Hautes herbes"),
    ("Échoppe", "Echoppe"), ("street", "Rue"), ("Riviere tumultueuse", "Rivière tumultueuse"),
])
def test_place_types_by_french_or_english_name(name: str, expected: str) -> None:
    assert find_place_type(name).name == expected


@pytest.mark.parametrize("name, expected", [
    ("Brume", "Brume"), ("mist", "Brume"), ("porte", "Porte"), ("door", "Porte"),
    ("Ronce/pieux", "Ronce/pieux"), ("ronce pieux", "Ronce/pieux"), ("stakes", "Ronce/pieux"),
    ("large barricade", "Barricade grande"), ("barricade PETITE", "Barricade petite"),
])
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
    assert (j.id, j.kind, j.between, j.encumbrance) == ("road~woods", "Barricade petite",
                                                        ("road", "woods"), 1)
    assert [u.arrived for u in pm.units] == [1, 2]
    assert pm.neighbours("road") == ("square", "woods")


def test_json_and_golden_keys() -> None:
    doc = _doc(cites=["P1"], expect=[{"anything": 1}], name="x", rules="Places",
               options={"tower_counts": "cover"})
    pm = loads_places(json.dumps(doc))
    assert pm.name == "x"
    assert rules.options(pm).tower_counts == "cover"


@pytest.mark.parametrize("change, expected", [
    ({"arbitre": 2}, "arbitre: must be 1, got 2"),
    ({"arbitre": True}, "arbitre: must be 1, got True"),
    ({"places": []}, "places: required"),
    ({"rules": "frostgrave"}, "rules: a places scenario uses the rules 'places'"),
    ({"colour": 1}, "colour: unknown field"),
    ({"adjacent": [["square", "nowhere"]]}, "adjacent[0][1]: unknown place id 'nowhere'"),
    ({"adjacent": [["square", "square"]]}, "adjacent[0]: a place cannot be adjacent to itself"),
    ({"adjacent": [["square", "road"], ["road", "square"]]}, "adjacent[1]: 'road' and "
                                                             "'square' are already adjacent"),
    ({"adjacent": [["square", "road", {"junction": "Portail"}]]},
     "adjacent[0][2].junction: unknown junction kind 'Portail' (did you mean Porte?)"),
    ({"adjacent": [["square", "road", {"junction": ["Porte", "Brume"], "id": "x"}]]},
     "adjacent[0][2].id: 2 junctions need 2 ids, got 1"),
    ({"adjacent": [["square", "road", {"jonction": "Porte"}]]},
     "adjacent[0][2].jonction: unknown field (did you mean 'junction'?)"),
    ({"adjacent": "square"}, "adjacent: must be a list"),
    ({"adjacent": [["square"]]}, "adjacent[0]: must be [place, place]"),
])
def test_problems_have_paths(change: dict[str, Any], expected: str) -> None:
    assert any(p.startswith(expected) for p in _problems(_doc(**change))), _problems(
        _doc(**change))


def test_every_problem_reported_at_once() -> None:
    doc = _doc()
    doc["places"] += [
        {"id": "square", "type": "Villle"},               # duplicate id, unknown type
        {"id": "bad", "encumbrance": 0, "cover": -1},     # floors (P2)
        {"id": "a", "parent": "b"}, {"id": "b", "parent": "a"},  # a loop
        {"id": "c", "parent": "Nowhere"},
    ]
    doc["adjacent"].append(["road", "square", {"junction": "Porte", "id": "door"}])
    doc["units"] += [
        {"id": "x", "side": "s", "place": "road~woods"},  # on a junction
        {"id": "road", "side": "s", "place": "woods"},    # duplicate id
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
    assert _problems([1, 2]) == ["a places scenario must be a mapping (arbitre, places, "
                                 "adjacent, units), got a list"]
    with pytest.raises(ScenarioError, match="invalid YAML"):
        loads_places("places: [")
    with pytest.raises(ScenarioError, match="cannot read the file"):
        load_places(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.json"
    bad.write_text('{"arbitre": 1,', encoding="utf-8")
    with pytest.raises(ScenarioError, match="invalid JSON"):
        load_places(bad)


def test_inheritance_from_a_place_of_the_map() -> None:
    pm = places_from_dict(_doc(places=[
        {"id": "wood", "type": "forest", "cover": 2},
        {"id": "copse", "parent": "wood"},
        {"id": "shed", "type": "Taverne", "parent": "wood"},  # parent replaces Ville
        {"id": "bare", "parent": "wood", "effects": []},      # states no effects
    ], adjacent=[], units=[]))
    copse, shed, bare = (pm.place(i) for i in ("copse", "shed", "bare"))
    assert (copse.encumbrance, copse.cover, copse.lineage) == (4, 2, ("wood", "Forêt"))
    assert (shed.encumbrance, shed.cover, shed.lineage) == (4, 2, ("Taverne", "wood", "Forêt"))
    assert [e.describe() for e in shed.effects] == ["resource provisions +2"]
    assert bare.effects == () and len(bare.lineage_effects) == 1


def test_unknown_ids_name_the_known_ones() -> None:
    pm = loads_places(GOOD)
    with pytest.raises(RulesError, match=r"unknown unit id 'bob' \(units: john, barbarian-1\)"):
        rules.move(pm, "bob")
    with pytest.raises(RulesError, match=r"unknown place id 'x'.*places: square, road, woods"):
        rules.place_info(pm, "x")
    with pytest.raises(RulesError, match="'road~woods' is a junction"):
        rules.place_info(pm, "road~woods")
    with pytest.raises(RulesError, match="no movement"):
        rules.move(pm, "barbarian-1")
    with pytest.raises(RulesError, match="cannot shoot itself"):
        rules.shot(pm, "john", "john")


def test_options_are_checked() -> None:
    pm = loads_places(GOOD)
    with pytest.raises(RulesError, match=r"unknown option 'tower' .*tower_counts"):
        rules.options(pm, tower=1)
    with pytest.raises(RulesError, match="option tower_counts: got 'x', expected one of"):
        rules.options(pm, tower_counts="x")
    with pytest.raises(RulesError, match="unknown option"):
        rules.move(places_from_dict(_doc(options={"bogus": True})), "john")


junk = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 5) | st.sampled_from(
        ["a", "b", "road", "Forêt", "Porte", "", "places"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["arbitre", "places", "adjacent", "units", "id", "type", "place",
                         "side", "junction", "parent", "encumbrance", "cover", "at",
                         "arrived", "effects", "kind", "name"]), inner, max_size=5),
    max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(junk)
def test_loader_never_crashes(doc: Any) -> None:
    try:
        pm = places_from_dict(doc)
    except ScenarioError as exc:
        assert exc.problems and all(isinstance(p.message, str) for p in exc.problems)
    else:
        assert isinstance(pm, PlaceMap)


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
    units = [{"id": "mover", "side": "a", "place": f"p{rng.randrange(n)}",
              "movement": rng.randint(0, 18)}]
    for k in range(rng.randint(0, 9)):
        units.append({"id": f"u{k}", "side": rng.choice("abc"), "place": f"p{rng.randrange(n)}",
                      "obstruction": rng.randint(0, 3)})
    return places_from_dict({"arbitre": 1, "places": places, "adjacent": adjacent,
                             "units": units})


def bf_moves(pm: PlaceMap, unit: str, points: int,
             opts: rules.PlacesOptions) -> dict[str, set[tuple[int, int]]]:
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
        front = {(e, left) for e, left in labels
                 if not any(e2 <= e and l2 >= left and (e2, l2) != (e, left)
                            for e2, l2 in labels)}
        if front:
            found[target] = front
    return found


@pytest.mark.parametrize("batch", range(8))
def test_best_ways_agree_with_brute_force(batch: int) -> None:
    """P3-P4: the label-setting search is exact (30 random maps a batch, 240 in all)."""
    for seed in range(batch * 30, batch * 30 + 30):
        pm = random_map(seed)
        opts = rules.options(pm)
        mover = pm.unit("mover")
        assert mover.movement is not None
        ruling = rules.move(pm, "mover", opts=opts)
        got: dict[str, set[tuple[int, int]]] = {}
        for w in ruling.ways:
            got.setdefault(w.place, set()).add((w.exhaustion, w.left))
            # the way's own figures add up
            assert w.spent == sum(s.cost for s in w.steps), seed
            assert w.exhaustion == sum(s.exhaustion for s in w.steps), seed
            assert w.path[0] == mover.place and w.path[-1] == w.place, seed
            assert len(set(w.path)) == len(w.path), seed
        assert got == bf_moves(pm, "mover", mover.movement, opts), seed
        assert len(ruling.ways) == sum(len(v) for v in got.values()), seed
        reachable = set(got)
        assert set(ruling.unreachable) == {p.id for p in pm.places} - reachable - {
            mover.place}, seed


def bf_line(pm: PlaceMap, a: str, b: str) -> tuple[int, int, tuple[str, ...]] | None:
    """Brute force of the P5 decision: every shortest path, (doors, reduction, ids)."""
    if a == b:
        return (0, 0, (a,))
    if not nx.has_path(pm.graph, a, b):
        return None
    best = None
    for path in nx.all_shortest_paths(pm.graph, a, b):
        js = [j for x, y in itertools.pairwise(path) for j in pm.junctions_between(x, y)]
        key = (sum(j.blocks_ranged for j in js),
               sum(pm.place(p).cover for p in path[1:]) + sum(j.ranged_reduction for j in js),
               tuple(path))
        best = key if best is None or key < best else best
    return best


def test_projectile_way_agrees_with_brute_force() -> None:
    """P5: among shortest ways, fewest doors, then least reduction, then ids (240 maps)."""
    checked = 0
    for seed in range(240):
        pm = random_map(seed)
        opts = rules.options(pm, tower_counts="cover")
        for s, t in itertools.permutations([u.id for u in pm.units], 2):
            ruling = rules.shot(pm, s, t, opts=opts)
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
    app = typer.Typer()
    register(app)

    @app.command()
    def render(file: Path, output: Annotated[Path, typer.Option("-o")]) -> None:
        render_places_file(file, output)

    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(app, [str(a) for a in args])

    return run


def test_cli_move_json_john(cli: Any) -> None:
    result = cli("move", GOLDEN[0].parent / "p3_john_worked_example.yaml", "john", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["arbitre"] == 1 and doc["rules"] == "places"
    (ruling,) = doc["rulings"]
    beyond = [w for w in ruling["ways"] if w["place"] == "beyond"]
    assert [(w["spent"], w["exhaustion"], w["left"]) for w in beyond] == [(3, 2, 4)]
    assert doc["options"]["tower_counts"] == "encumbrance"


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
    assert json.loads(result.output)["rulings"][0]["reduction"] == 0
    result = cli("shot", EXAMPLE, "archer", "scout")
    assert result.exit_code == 0 and "cannot shoot" in result.output
    assert "cannot be targeted by ranged weapons" in result.output


def test_cli_place(cli: Any) -> None:
    result = cli("place", EXAMPLE, "glade")
    assert result.exit_code == 0, result.output
    assert "encumbrance 3 (from Clairière)" in result.output
    assert "a unit arriving now gets: if last arrived: defence score +2" in result.output
    doc = json.loads(cli("place", EXAMPLE, "main-street", "--json").output)
    assert doc["rulings"][0]["units"][0]["obstruction"] == 3  # sentry 2, Rue +1


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
    ids = {g.get("data-id"): g.get("class") for g in root.iter("{http://www.w3.org/2000/svg}g")}
    for p in pm.places:
        assert ids[p.id] == "place"
    for j in pm.junctions:
        assert ids[j.id] == "junction"
    for u in pm.units:
        assert ids[u.id] == "unit"


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
    render_places_file(EXAMPLE, svg)
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


def test_option_effects_on_passing() -> None:
    """P6 option: arrival effects of the places crossed, not only of the final one."""
    pm = loads_places(OPTIONS_MAP)
    (way,) = rules.move(pm, "archer").ways_to("field")
    assert way.bleeding == 1 and [e.describe() for e in way.effects] == ["will +1"]
    opts = rules.options(pm, effects_on_passing=True)
    (way,) = rules.move(pm, "archer", opts=opts).ways_to("field")
    assert way.bleeding == 2
    assert [e.describe() for e in way.effects] == ["bleeding 1", "will +1"]


def test_option_bleeding_stacks() -> None:
    pm = loads_places(OPTIONS_MAP)
    (way,) = rules.move(pm, "archer").ways_to("yard")
    assert way.bleeding == 3
    opts = rules.options(pm, bleeding_stacks=False)
    (way,) = rules.move(pm, "archer", opts=opts).ways_to("yard")
    assert way.bleeding == 1


def test_option_tower_over_doors() -> None:
    pm = loads_places(OPTIONS_MAP)
    ruling = rules.shot(pm, "archer", "target")
    assert not ruling.allowed and "door" in ruling.refusals[0]
    ruling = rules.shot(pm, "archer", "target", opts=rules.options(pm, tower_over_doors=True))
    assert ruling.allowed and ruling.reduction == 2 and ruling.counted == ("field",)
