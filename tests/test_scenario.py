"""Scenario files (SCENARIO.md): loading, conversion to mm (G1), checks, errors, dump."""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbitre import scenario
from arbitre.errors import ScenarioError
from arbitre.geometry import (
    CircleFootprint,
    Disc,
    Point,
    PolygonFootprint,
    WallFootprint,
    Window,
    rect_points,
)
from arbitre.table import Table, Unit

# The table scenario of SCENARIO.md, verbatim but for the blue-ogre model, added so that
# red-archer's `engaged: [blue-ogre]` names a model that exists.
EXAMPLE = """\
arbitre: 1                  # required: format version
name: Ruined village        # optional
rules: frostgrave           # default ruleset for commands that need one
unit: mm                    # mm | cm | in | toise
toise: 25                   # mm per toise; required only when unit or a length uses toise
table: [900, 900]           # required: width, depth
contact_tolerance: 0.5      # G4, in mm whatever the unit
beam: 1                     # G5, sight beam width, in mm whatever the unit
options: {}                 # ruleset options by name, e.g. {natural_one_misses: true}

terrain:
  - id: house-1             # required, unique among terrain and models
    name: Farmhouse         # optional
    sight: blocks           # blocks (large, seed 000) | cover (small)
    size: huge              # D4 size class; default: huge if sight=blocks, small if cover
    height: 80              # optional, scenario unit (M5, M10)
    building: true          # optional: models inside it are "in the same building" (M5)
    polygon: [[100, 100], [220, 100], [220, 180], [100, 180]]
  - id: hedge-1
    sight: cover
    rect: {at: [400, 300], width: 120, depth: 15, angle: 30}   # at = centre
  - id: well
    sight: blocks
    circle: {at: [600, 600], radius: 30}
  - id: wall-1
    sight: blocks
    wall:                   # a polyline with a thickness
      points: [[50, 500], [350, 500], [350, 800]]
      thickness: 8
      windows:              # F5-F7: openings, by distance along the polyline
        - {from: 100, to: 130}

models:
  - id: red-archer          # required, unique
    name: Archer            # optional
    side: red               # required: warband / player
    at: [120, 80]           # required: centre of the base
    base: 25                # diameter; 0 or null = no base (F8)
    size: medium            # D4: small | medium | large | huge
    height: 30              # optional, scenario unit (M10)
    elevation: 0            # height of the model's feet above the table (M5)
    inside: house-1         # optional: terrain id of the building it stands in (M5)
    large_target: false     # M10 special rule
    stats: {bs: 3, tir: 2, protection: 1, hp: 3, ap: 2, obstruction: 1}
    status: [moved]         # any of: moved, ran, failed_charge, rallied, stunned,
                            #         knocked_down, fleeing
    engaged: [blue-ogre]    # ids of enemies in base contact / close combat with it
    weapons:
      - {name: Short bow, range: 16, unit: in}        # range in `unit` (default: the scenario's)
      - {name: Dragon breath, breath: "Souffle englobant (feu • puissance 5/2)"}
  - id: blue-ogre
    side: blue
    at: [140, 80]
    base: 40
    size: large

size_classes: [small, medium, large, huge]   # optional: ordered, smallest first
"""


@functools.cache
def _parsed_example() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(EXAMPLE)
    return doc


def example() -> dict[str, Any]:
    """A fresh copy of the example (parsed once: the pure-Python YAML parser took most of
    the mutation test's time)."""
    return copy.deepcopy(_parsed_example())


def problems(doc: object) -> list[str]:
    """The problems ``from_dict`` raises for ``doc``, as ``path: message`` lines."""
    with pytest.raises(ScenarioError) as info:
        scenario.from_dict(doc)
    assert [str(p) for p in info.value.problems] == [str(p) for p in scenario.validate(doc)]
    return [str(p) for p in info.value.problems]


def paths(doc: object) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        scenario.from_dict(doc)
    return [p.path for p in info.value.problems]


# -- loading the example, units (G1) ------------------------------------------------------


def test_example_loads_in_mm() -> None:
    table = scenario.loads(EXAMPLE, source="example.yaml")
    assert (table.width, table.depth) == (900, 900)
    assert table.unit == Unit("mm", 1.0) and table.toise == 25
    assert table.name == "Ruined village" and table.rules == "frostgrave"
    assert table.contact_tolerance == 0.5 and table.beam == 1 and table.options == ()
    house, hedge, well, wall = table.terrain
    assert house.footprint == PolygonFootprint(
        (Point(100, 100), Point(220, 100), Point(220, 180), Point(100, 180))
    )
    assert house.size == "huge" and house.height == 80 and house.building and house.blocks
    assert hedge.footprint == PolygonFootprint(rect_points(Point(400, 300), 120, 15, 30))
    assert hedge.sight == "cover" and hedge.size == "small"
    assert well.footprint == CircleFootprint(Point(600, 600), 30)
    assert wall.footprint == WallFootprint(
        (Point(50, 500), Point(350, 500), Point(350, 800)), 8, (Window(100, 130),)
    )
    archer = table.model("red-archer")
    assert archer.at == Point(120, 80) and archer.base == Disc(25) and archer.height == 30
    assert archer.inside == "house-1" and archer.engaged == ("blue-ogre",)
    assert archer.status == frozenset({"moved"}) and archer.stat("bs") == 3
    assert archer.stats == tuple(sorted(archer.stats))
    bow, breath = archer.weapons
    assert bow.range == pytest.approx(16 * 25.4) and bow.breath is None
    assert breath.range is None and breath.breath is not None and "5/2" in breath.breath
    assert table.model("blue-ogre").base == Disc(40)


def test_centimetres_are_converted_but_contact_and_beam_are_mm() -> None:
    doc = {
        "arbitre": 1,
        "unit": "cm",
        "table": [90, 60],
        "contact_tolerance": 0.3,
        "beam": 2,
        "terrain": [
            {"id": "w", "circle": {"at": [30, 30], "radius": 2.5}, "height": 4},
            {
                "id": "wall",
                "wall": {
                    "points": [[0, 10], [50, 10]],
                    "thickness": 1,
                    "windows": [{"from": 5, "to": 7.5}],
                },
            },
        ],
        "models": [
            {
                "id": "a",
                "side": "red",
                "at": [12, 8],
                "elevation": 5,
                "weapons": [
                    {"name": "bow", "range": 40},
                    {"name": "gun", "range": 10, "unit": "in"},
                ],
            },
            {"id": "b", "side": "blue", "at": [20, 8], "base": 4},
        ],
    }
    table = scenario.from_dict(doc)
    assert (table.width, table.depth) == (900, 600)
    assert table.unit == Unit("cm", 10.0)
    assert table.contact_tolerance == 0.3 and table.beam == 2
    assert table.terrain[0].footprint == CircleFootprint(Point(300, 300), 25)
    assert table.terrain[0].height == 40
    assert table.terrain[1].footprint == WallFootprint(
        (Point(0, 100), Point(500, 100)), 10, (Window(50, 75),)
    )
    a, b = table.models
    assert a.at == Point(120, 80) and a.elevation == 50
    assert a.base == Disc(25.0), "an absent base is 25 mm whatever the unit (F8)"
    assert [w.range for w in a.weapons] == [400, pytest.approx(254)]
    assert b.base == Disc(40)


def test_inches() -> None:
    doc = {
        "arbitre": 1,
        "unit": "in",
        "table": [36, 24],
        "terrain": [{"id": "r", "rect": {"at": [10, 10], "width": 2, "depth": 1}}],
        "models": [{"id": "a", "side": "red", "at": [1, 2], "base": 1, "height": 2}],
    }
    table = scenario.from_dict(doc)
    assert table.width == pytest.approx(914.4) and table.depth == pytest.approx(609.6)
    assert table.unit == Unit("in", 25.4)
    model = table.models[0]
    assert model.at == Point(25.4, 50.8) and model.base == Disc(25.4) and model.height == 50.8
    assert table.terrain[0].footprint == PolygonFootprint(
        rect_points(Point(254, 254), 50.8, 25.4, 0)
    )


def test_toise() -> None:
    doc = {
        "arbitre": 1,
        "unit": "toise",
        "toise": 25,
        "table": [36, 36],
        "models": [
            {
                "id": "a",
                "side": "red",
                "at": [2, 3],
                "weapons": [
                    {"name": "bow", "range": 6},
                    {"name": "sling", "range": 100, "unit": "mm"},
                ],
            }
        ],
    }
    table = scenario.from_dict(doc)
    assert (table.width, table.depth) == (900, 900)
    assert table.unit == Unit("toise", 25) and table.toise == 25
    assert table.models[0].at == Point(50, 75)
    assert [w.range for w in table.models[0].weapons] == [150, 100]
    mixed = {
        "arbitre": 1,
        "toise": 30,
        "table": [900, 900],
        "models": [
            {
                "id": "a",
                "side": "red",
                "at": [2, 3],
                "weapons": [{"name": "b", "range": 2, "unit": "toise"}],
            }
        ],
    }
    assert scenario.from_dict(mixed).models[0].weapons[0].range == 60


def test_defaults() -> None:
    table = scenario.from_dict(
        {
            "arbitre": 1,
            "table": [10, 10],
            "terrain": None,
            "models": [{"id": "a", "side": "s", "at": [1, 1], "base": None}],
        }
    )
    assert table.unit == Unit("mm", 1.0) and table.rules is None and table.name == ""
    assert table.contact_tolerance == 0.5 and table.beam == 1
    assert table.size_classes == ("small", "medium", "large", "huge")
    assert table.models[0].base == Disc(0) and table.models[0].size == "medium"
    assert table.options == () and table.toise is None


def test_golden_test_annotations_are_ignored() -> None:
    doc = example() | {"cites": ["F1", "F2"], "expect": [{"shooter": "a", "visible": True}]}
    assert scenario.from_dict(doc) == scenario.from_dict(example())
    assert problems(doc | {"cites": "F1"}) == ["cites: must be a list, got 'F1'"]


def test_options_are_sorted_pairs_and_not_checked() -> None:
    doc = example() | {"options": {"zeta": 1, "alpha": True, "unknown": "kept"}}
    table = scenario.from_dict(doc)
    assert table.options == (("alpha", True), ("unknown", "kept"), ("zeta", 1))


def test_json_and_yaml_give_the_same_table(tmp_path: Path) -> None:
    text = json.dumps(example(), ensure_ascii=False, indent=1)
    from_yaml = scenario.loads(EXAMPLE)
    assert scenario.loads(text) == from_yaml
    (tmp_path / "a.json").write_text(text, encoding="utf-8")
    (tmp_path / "a.yaml").write_text(EXAMPLE, encoding="utf-8")
    (tmp_path / "a.scenario").write_text(text, encoding="utf-8")
    assert scenario.load(tmp_path / "a.json") == from_yaml
    assert scenario.load(str(tmp_path / "a.yaml")) == from_yaml
    assert scenario.load(tmp_path / "a.scenario") == from_yaml
    assert scenario.load(EXAMPLE) == from_yaml
    flow = "{arbitre: 1, table: [10, 10]}"  # YAML flow style, not JSON
    assert scenario.loads(flow) == Table(10, 10)


# -- syntax and file errors ---------------------------------------------------------------


def test_missing_file_is_a_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read") as info:
        scenario.load(tmp_path / "nope.yaml")
    assert info.value.source == str(tmp_path / "nope.yaml")
    with pytest.raises(ScenarioError, match="cannot read"):
        scenario.load(tmp_path)
    (tmp_path / "bin.yaml").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ScenarioError, match="cannot read"):
        scenario.load(tmp_path / "bin.yaml")


def test_syntax_errors_say_the_line(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"line 3, column \d+: invalid YAML"):
        scenario.loads("arbitre: 1\ntable: [1, 2]\nmodels: [x: y: z]\n")
    with pytest.raises(ScenarioError, match=r"line 2, column \d+: invalid JSON"):
        scenario.loads('{"arbitre": 1,\n "table": [1 2]}')
    (tmp_path / "bad.json").write_text("{'arbitre': 1}", encoding="utf-8")
    with pytest.raises(ScenarioError, match="invalid JSON") as info:
        scenario.load(tmp_path / "bad.json")
    assert str(info.value).startswith(str(tmp_path / "bad.json"))


@pytest.mark.parametrize("text", ["", "- 1\n- 2\n", "just a string", "42", "[1, 2]"])
def test_a_document_must_be_a_mapping(text: str) -> None:
    with pytest.raises(ScenarioError, match="must be a mapping") as info:
        scenario.loads(text)
    assert [p.path for p in info.value.problems] == [""]


def test_places_scenarios_are_sent_to_the_places_commands() -> None:
    assert problems({"arbitre": 1, "places": [{"id": "square"}]}) == [
        "places: a map of places (seed 003), not a table: use arbitre move, shot, place or render"
    ]


# -- checks: each rule reports its path ---------------------------------------------------

Mutation = Callable[[dict[str, Any]], object]


def _set(doc: dict[str, Any], path: str, value: object) -> None:
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
    target: Any = doc
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = value


def _del(doc: dict[str, Any], path: str) -> None:
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
    target: Any = doc
    for key in keys[:-1]:
        target = target[key]
    del target[keys[-1]]


CHECKS: list[tuple[str, str, object, str]] = [
    # (what, where (dotted), new value, expected problem)
    ("required version", "arbitre", None, "arbitre: must be 1, got None"),
    ("version", "arbitre", 2, "arbitre: must be 1, got 2"),
    ("version as bool", "arbitre", True, "arbitre: must be 1, got True"),
    ("unit", "unit", "km", "unit: must be 'mm', 'cm', 'in' or 'toise', got 'km'"),
    ("table size", "table", [900], "table: must have at least 2 items, got [900]"),
    ("table width", "table.0", -1, "table[0]: must be > 0, got -1"),
    ("NaN", "models.0.at.0", math.nan, "models[0].at[0]: must be a finite number, got nan"),
    ("infinity", "table.1", math.inf, "table[1]: must be a finite number, got inf"),
    ("huge", "contact_tolerance", 1e300, "contact_tolerance: must be <= 1e+09, got 1e+300"),
    ("bool for number", "beam", True, "beam: must be a number, got True"),
    ("string for number", "terrain.0.height", "80", "terrain[0].height: must be a number"),
    ("negative tolerance", "contact_tolerance", -1, "contact_tolerance: must be >= 0, got -1"),
    ("negative base", "models.0.base", -5, "models[0].base: must be >= 0, got -5"),
    ("radius", "terrain.2.circle.radius", 0, "terrain[2].circle.radius: must be > 0, got 0"),
    ("width", "terrain.1.rect.width", -3, "terrain[1].rect.width: must be > 0, got -3"),
    ("depth", "terrain.1.rect.depth", 0, "terrain[1].rect.depth: must be > 0, got 0"),
    ("thickness", "terrain.3.wall.thickness", 0, "terrain[3].wall.thickness: must be > 0"),
    (
        "misspelled field",
        "terrain.0.hieght",
        3,
        "terrain[0].hieght: unknown field (did you mean 'height'?)",
    ),
    ("model not a mapping", "models.1", "ogre", "models[1]: must be a mapping, got 'ogre'"),
    ("stats value", "models.0.stats.bs", "3", "models[0].stats.bs: must be a number"),
    (
        "polygon points",
        "terrain.0.polygon",
        [[0, 0], [1, 1]],
        "terrain[0].polygon: must have at least 3 items",
    ),
    (
        "polygon distinct points",
        "terrain.0.polygon",
        [[0, 0], [1, 1], [0, 0], [1, 1]],
        "terrain[0].polygon: needs at least 3 distinct points",
    ),
    (
        "polygon not simple",
        "terrain.0.polygon",
        [[0, 0], [10, 10], [10, 0], [0, 10]],
        "terrain[0].polygon: must be a simple polygon",
    ),
    (
        "polygon outside",
        "terrain.0.polygon",
        [[-50, -50], [-10, -50], [-10, -10]],
        "terrain[0].polygon: lies entirely outside the table",
    ),
    (
        "circle outside",
        "terrain.2.circle.at",
        [960, 600],
        "terrain[2].circle: lies entirely outside the table",
    ),
    (
        "window beyond the wall",
        "terrain.3.wall.windows.0.to",
        700,
        "terrain[3].wall.windows[0].to: must be <= the wall's length 600, got 700",
    ),
    (
        "window before the wall",
        "terrain.3.wall.windows.0.from",
        -5,
        "terrain[3].wall.windows[0].from: must be >= 0, got -5",
    ),
    (
        "window from >= to",
        "terrain.3.wall.windows.0.from",
        130,
        "terrain[3].wall.windows[0]: from must be < to, got from 130, to 130",
    ),
    (
        "no footprint",
        "terrain.2.circle",
        None,
        "terrain[2]: needs exactly one of polygon, rect, circle, wall; got none",
    ),
    (
        "two footprints",
        "terrain.2.rect",
        {"at": [1, 1], "width": 1, "depth": 1},
        "terrain[2]: needs exactly one of polygon, rect, circle, wall; got rect, circle",
    ),
    ("duplicate id", "models.1.id", "well", "models[1].id: duplicate id 'well'"),
    ("duplicate model id", "models.1.id", "red-archer", "models[1].id: duplicate id"),
    ("unknown inside", "models.0.inside", "barn", "models[0].inside: unknown terrain id"),
    ("inside a model", "models.0.inside", "blue-ogre", "models[0].inside: unknown terrain id"),
    (
        "unknown engaged",
        "models.0.engaged",
        ["blue-ogre", "ghost"],
        "models[0].engaged[1]: unknown model id 'ghost'",
    ),
    (
        "engaged with terrain",
        "models.0.engaged",
        ["well"],
        "models[0].engaged[0]: unknown model id 'well'",
    ),
    (
        "engaged with itself",
        "models.0.engaged",
        ["red-archer"],
        "models[0].engaged[0]: a model cannot be engaged with itself",
    ),
    ("model size", "models.1.size", "gigantic", "models[1].size: unknown size class 'gigantic'"),
    ("terrain size", "terrain.0.size", "tiny", "terrain[0].size: unknown size class 'tiny'"),
    (
        "default size missing",
        "size_classes",
        ["small", "medium", "large"],
        "terrain[0].size: unknown size class 'huge'",
    ),
    (
        "duplicate size class",
        "size_classes",
        ["small", "medium", "small", "large", "huge"],
        "size_classes[2]: duplicate size class 'small'",
    ),
    (
        "unknown status",
        "models.0.status",
        ["moved", "flying"],
        "models[0].status[1]: unknown status 'flying'",
    ),
    (
        "centre off the table",
        "models.1.at",
        [140, 901],
        "models[1].at: centre [140, 901] is off the table [900, 900]",
    ),
    ("centre off the table, negative", "models.1.at", [-1, 80], "models[1].at: centre"),
    (
        "weapon unit",
        "models.0.weapons.0.unit",
        "league",
        "models[0].weapons[0].unit: must be 'mm', 'cm', 'in' or 'toise', got 'league'",
    ),
]


@pytest.mark.parametrize(("what", "where", "value", "expected"), CHECKS, ids=[c[0] for c in CHECKS])
def test_each_check_reports_its_path(what: str, where: str, value: object, expected: str) -> None:
    doc = example()
    _set(doc, where, value)
    found = problems(doc)
    assert any(p.startswith(expected) for p in found), found


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("arbitre", "arbitre: required"),
        ("table", "table: required"),
        ("models.0.side", "models[0].side: required"),
        ("models.0.at", "models[0].at: required"),
        ("terrain.0.id", "terrain[0].id: required"),
        ("terrain.3.wall.thickness", "terrain[3].wall.thickness: required"),
    ],
)
def test_required_fields(where: str, expected: str) -> None:
    doc = example()
    _del(doc, where)
    assert expected in problems(doc)


def test_toise_is_required_when_used() -> None:
    doc = example()
    del doc["toise"]
    scenario.from_dict(doc)  # no length uses toise: fine
    doc["unit"] = "toise"
    assert "toise: required (mm per toise) when unit is toise" in problems(doc)
    doc = example()
    del doc["toise"]
    doc["models"][0]["weapons"][0]["unit"] = "toise"
    assert paths(doc) == ["models[0].weapons[0].unit"]


def test_every_problem_is_reported_at_once() -> None:
    doc = example()
    doc["models"][1]["base"] = -5  # a type-level problem (pydantic)
    doc["models"][0]["inside"] = "barn"  # checks beyond types still run
    doc["terrain"][0]["polygon"] = [[0, 0], [10, 10], [10, 0], [0, 10]]
    doc["terrain"][2]["circle"]["radius"] = -1
    doc["size_classes"] = ["small", "medium", "medium", "large", "huge"]
    doc["models"].append({"id": "well", "side": "x", "at": [1, 1]})
    with pytest.raises(ScenarioError) as info:
        scenario.from_dict(doc, source="village.yaml")
    found = [p.path for p in info.value.problems]
    assert set(found) >= {
        "models[1].base",
        "models[0].inside",
        "terrain[0].polygon",
        "terrain[2].circle.radius",
        "size_classes[2]",
        "models[2].id",
    }
    text = str(info.value)
    assert text.startswith(f"village.yaml: {len(found)} problems\n")
    assert "  models[1].base: must be >= 0, got -5" in text.splitlines()


def test_a_broken_terrain_does_not_make_references_to_it_unknown() -> None:
    doc = example()
    doc["terrain"][0]["height"] = -1
    assert paths(doc) == ["terrain[0].height"]


def test_validate_is_empty_when_fine() -> None:
    assert scenario.validate(example()) == []


# -- dump, schema -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "doc",
    [
        yaml.safe_load(EXAMPLE),
        {
            "arbitre": 1,
            "unit": "cm",
            "table": [90, 60],
            "name": "x",
            "options": {"b": [1, 2]},
            "terrain": [
                {
                    "id": "r",
                    "rect": {"at": [10, 10], "width": 2, "depth": 1, "angle": 10},
                    "size": "large",
                    "name": "crate",
                }
            ],
            "models": [
                {
                    "id": "a",
                    "side": "s",
                    "at": [1.1, 2.3],
                    "base": None,
                    "weapons": [{"name": "bow", "range": 3.3, "unit": "in"}],
                }
            ],
        },
        {
            "arbitre": 1,
            "unit": "toise",
            "toise": 27.5,
            "table": [30, 30],
            "size_classes": ["tiny", "small", "medium", "large", "huge"],
            "models": [{"id": "a", "side": "s", "at": [1.7, 2.3], "size": "tiny", "height": 0.3}],
        },
    ],
    ids=["example", "cm", "toise"],
)
def test_dump_round_trips(doc: dict[str, Any]) -> None:
    table = scenario.from_dict(doc)
    dumped = scenario.dump(table)
    assert dumped["unit"] == "mm"
    assert scenario.from_dict(dumped) == table
    assert scenario.loads(json.dumps(dumped)) == table
    assert scenario.loads(yaml.safe_dump(dumped, allow_unicode=True)) == table


def test_json_schema() -> None:
    schema = scenario.json_schema()
    assert isinstance(schema, dict)
    json.dumps(schema)
    assert set(schema["required"]) == {"arbitre", "table"}
    assert set(schema["properties"]) >= {
        "arbitre",
        "name",
        "rules",
        "unit",
        "toise",
        "table",
        "contact_tolerance",
        "beam",
        "options",
        "terrain",
        "models",
        "size_classes",
    }
    assert schema["additionalProperties"] is False


# -- property: any input gives a Table or a ScenarioError ---------------------------------

FIELD_NAMES = sorted(
    {
        "arbitre",
        "name",
        "rules",
        "unit",
        "toise",
        "table",
        "terrain",
        "models",
        "options",
        "size_classes",
        "id",
        "sight",
        "size",
        "height",
        "polygon",
        "rect",
        "circle",
        "wall",
        "at",
        "width",
        "depth",
        "angle",
        "radius",
        "points",
        "thickness",
        "windows",
        "from",
        "to",
        "side",
        "base",
        "inside",
        "engaged",
        "status",
        "stats",
        "weapons",
        "range",
        "breath",
    }
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["mm", "toise", "huge", "house-1", "moved"])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=5), inner, max_size=6)
    ),
    max_leaves=30,
)


def _locations(value: object, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _locations(item, (*here, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _locations(item, (*here, i))
    return found


def _mutate(doc: Any, where: tuple[Any, ...], how: str, new: object) -> Any:
    if not where:
        return new if how == "replace" else doc
    parent = doc
    for key in where[:-1]:
        parent = parent[key]
    key, old = where[-1], parent[where[-1]]
    if how == "delete":
        del parent[key]
    elif how == "negate" and isinstance(old, int | float) and not isinstance(old, bool):
        parent[key] = -old - 1
    elif how == "nan":
        parent[key] = math.nan
    elif how == "wrap":
        parent[key] = [old]
    elif how == "nest":
        parent[key] = {"value": old}
    elif how == "unwrap" and isinstance(old, list | dict) and old:
        parent[key] = next(iter(old.values())) if isinstance(old, dict) else old[0]
    else:
        parent[key] = new
    return doc


def _table_or_scenario_error(doc: object) -> None:
    try:
        result = scenario.from_dict(doc)
    except ScenarioError as exc:
        assert exc.problems
        assert scenario.validate(doc)
        return
    assert isinstance(result, Table)
    assert scenario.validate(doc) == []


#: Hypothesis examples: the everyday run, and the full strength under the ``slow`` marker.
EVERYDAY, FULL = 80, 300


def _random_document(doc: object) -> None:
    _table_or_scenario_error(doc)
    if isinstance(doc, dict):
        _table_or_scenario_error({"arbitre": 1, "table": [900, 900]} | doc)


def _mutated_document(data: st.DataObject) -> None:
    doc = example()
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from(_locations(doc)))
        how = data.draw(
            st.sampled_from(["delete", "replace", "negate", "nan", "wrap", "nest", "unwrap"])
        )
        doc = _mutate(doc, where, how, data.draw(values))
    _table_or_scenario_error(copy.deepcopy(doc))


@settings(max_examples=EVERYDAY, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_random_documents_never_crash(doc: object) -> None:
    _random_document(doc)


@pytest.mark.slow
@settings(max_examples=FULL, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_random_documents_never_crash_full(doc: object) -> None:
    _random_document(doc)


@settings(max_examples=EVERYDAY, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_documents_never_crash(data: st.DataObject) -> None:
    _mutated_document(data)


@pytest.mark.slow
@settings(max_examples=FULL, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_documents_never_crash_full(data: st.DataObject) -> None:
    _mutated_document(data)


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=60)
    | st.sampled_from(
        ["{", "[1,", "a: [", '{"a": NaN}', "&a [*a]", "x: !!binary AA==", "? [a]\n: 1", "1" * 5000]
    )
)
def test_random_text_never_crashes(text: str) -> None:
    with contextlib.suppress(ScenarioError):
        scenario.loads(text)
