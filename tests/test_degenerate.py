"""Degenerate geometry (issue 17): each case is refused on load with its path and value, or
ruled by every question of every ruleset, the same by the compiled and the interpreted
kernels. Decisions: windows covering a whole wall, zero-length wall segments, repeated
and collinear points, bases of 0 are ruled; bases narrower than 0.01 mm (but not 0) are
refused on load, and measured as points when built through the API; a model moved to a
non-finite or out-of-bounds point is a RulesError."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import arbitre
from arbitre import sight
from arbitre.errors import ArbitreError, RulesError, ScenarioError
from arbitre.geometry import MIN_SIZE, Disc, Point, WallFootprint
from arbitre.rules.mordheim import kept
from arbitre.scenario import from_dict
from arbitre.scenario_doc import LIMIT, MAX_MODELS, MAX_VERTICES
from arbitre.table import POSITION_LIMIT, Table

BUILDS = ("always", "never")
GRAPESHOT = "Souffle percutant (mitraille • puissance 4/1)"
STATS = {"tir": 2, "protection": 1, "hp": 4}


@pytest.fixture
def jit(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    def use(mode: str) -> None:
        monkeypatch.setenv("ARBITRE_JIT", mode)

    return use


def _model(ident: str, x: float, y: float, **fields: Any) -> dict[str, Any]:
    return {"id": ident, "side": ident, "at": [x, y], "base": 25, "stats": STATS} | fields


def _doc(terrain: list[dict[str, Any]], models: list[dict[str, Any]]) -> dict[str, Any]:
    return {"arbitre": 1, "table": [600, 600], "toise": 25, "terrain": terrain, "models": models}


def _wall(
    points: list[list[int]] | list[list[float]], *windows: tuple[float, float]
) -> dict[str, Any]:
    spans = [{"from": a, "to": b} for a, b in windows]
    return {"id": "w", "wall": {"points": points, "thickness": 10, "windows": spans}}


#: Below the wall y=300 from x=100 to 500, ``a`` touches it (its base reaches 305.5) with
#: a breath aimed down at ``b``; ``c`` stands aside.
AT_WALL = [
    _model("a", 300, 318, weapons=[{"name": "B", "breath": GRAPESHOT}]),
    _model("b", 300, 200),
    _model("c", 560, 250),
]


def every_answer(table: Table) -> list[dict[str, Any]]:
    """Every question of every ruleset on ``table``: los under the three sight rulesets,
    Mordheim targets of each model, each breath weapon aimed at the first other model."""
    out = [arbitre.ask(table, "los", rules=r).to_json() for r in ("frostgrave", "darkage")]
    out.append(arbitre.ask(table, "los", rules="mordheim").to_json())
    for m in table.models:
        out.append(arbitre.ask(table, "targets", shooter=m.id).to_json())
        if any(w.breath for w in m.weapons):
            other = next(o for o in table.models if o.id != m.id)
            angle = math.degrees(math.atan2(other.at.y - m.at.y, other.at.x - m.at.x))
            breath = arbitre.ask(table, "breath", shooter=m.id, angle=angle, seed=3)
            out.append(breath.to_json())
    return out


def both_builds(table: Table, jit: Callable[[str], None]) -> list[dict[str, Any]]:
    """:func:`every_answer` under each build of the kernels; they must be equal."""
    answers = []
    for mode in BUILDS:
        jit(mode)
        sight.sight_index.cache_clear()
        kept.clear()  # the M rules' pairs measured again under this build
        answers.append(every_answer(table))
    assert answers[0] == answers[1]
    return answers[0]


def los(answers: list[dict[str, Any]], rules: str) -> dict[tuple[str, str], dict[str, Any]]:
    doc = next(a for a in answers if a["kind"] == "los" and a["rules"] == rules)
    return {(r["shooter"], r["target"]): r for r in doc["rulings"]}


def decisions(answers: list[dict[str, Any]]) -> list[Any]:
    """What every los ruling decides, without the lengths that differ by rounding."""
    keys = ("shooter", "target", "visible", "cover", "because", "blockers", "cover_pieces")
    return [
        [{k: r.get(k) for k in keys} for r in a["rulings"]] for a in answers if a["kind"] == "los"
    ]


# --- walls whose windows cover them ----------------------------------------------------


@pytest.mark.parametrize(
    "windows",
    [[(0, 400)], [(0, 250), (200, 400)], [(0, 100), (100, 300), (300, 400)]],
    ids=["one-window", "two-overlapping", "three-abutting"],
)
def test_a_wall_all_windows_is_ruled_by_every_question(windows, jit) -> None:
    table = from_dict(_doc([_wall([[100, 300], [500, 300]], *windows)], AT_WALL))
    answers = both_builds(table, jit)
    frost = los(answers, "frostgrave")
    # F5: a at the window sees as if the wall were not there; F6: b reaches the opening
    assert frost["a", "b"]["visible"] and frost["a", "b"]["because"].startswith("F5 w")
    assert frost["b", "a"]["visible"] and frost["b", "a"]["because"].startswith("F6 w")
    # M12: outside Frostgrave the windows are openings, here the whole wall: a and b see
    # each other; with `windows: closed` the wall stands between them
    assert los(answers, "darkage")["a", "b"]["visible"]
    assert los(answers, "mordheim")["b", "a"]["visible"]
    closed = dataclasses.replace(table, options=(*table.options, ("windows", "closed")))
    shut = every_answer(closed)
    assert not los(shut, "darkage")["a", "b"]["visible"]
    assert not los(shut, "mordheim")["b", "a"]["visible"]


def test_a_wall_all_windows_seen_solid_is_an_empty_piece(jit) -> None:
    """F6 packs the wall without its openings: nothing is left, and no kernel reads it."""
    table = from_dict(_doc([_wall([[100, 300], [500, 300]], (0, 400))], AT_WALL))
    ix = sight.build_index(table, solid=frozenset({"w"}))
    assert ix.eoff[1] == ix.eoff[0] and ix.work([0]) == 1
    s, g = np.array([0, 1, 2]), np.array([1, 0, 0])
    for mode in BUILDS:
        jit(mode)
        lines = sight.centre_line_batch(table, s, g, index=ix)
        assert 0 not in lines.piece.tolist()
        assert sight.visible_fraction_batch(table, s, g, index=ix).tolist() == [1.0, 1.0, 1.0]
        assert not sight.touching(table, index=ix)[:, 0].any()
        stop, _ = sight.all_pairs(table, stops=ix.blocks, weights=np.ones((3, 4)), index=ix)
        assert not (stop == 0).any()
        found = sight.clear_lines(table, [("a", "b"), ("b", "c")], index=ix)
        assert [line.clear for line in found] == [True, True]
        opening = (Point(100, 300), Point(500, 300))
        view = sight.view_of_segment(table, Point(300, 200), opening, skip=("b",), index=ix)
        assert view.share == 1.0 and view.witness is not None


# --- zero-length segments, repeated and collinear points -------------------------------

CLEAN_WALL = [[100, 300], [300, 300], [300, 500]]
CLEAN_POLYGON = [[200, 100], [400, 100], [400, 200], [200, 200]]


@pytest.mark.parametrize(
    "wall",
    [
        [[100, 300], [100, 300], [300, 300], [300, 500]],  # a zero-length segment first
        [[100, 300], [300, 300], [300, 300], [300, 300], [300, 500]],  # at the corner
        [[100, 300], [200, 300], [300, 300], [300, 500]],  # a collinear point
        [[100, 300], [300, 300], [300, 500], [300, 500]],  # a zero-length segment last
    ],
)
def test_zero_length_and_collinear_wall_points_rule_as_the_clean_wall(wall, jit) -> None:
    models = [_model("a", 275, 318), _model("b", 275, 200), _model("c", 450, 450)]
    window = (150.0, 250.0)  # around the corner, the same stretch on every polyline
    clean = both_builds(from_dict(_doc([_wall(CLEAN_WALL, window)], models)), jit)
    odd = both_builds(from_dict(_doc([_wall(wall, window)], models)), jit)
    assert decisions(odd) == decisions(clean)
    assert los(odd, "frostgrave")["a", "b"]["visible"]  # F5 at the window


@pytest.mark.parametrize(
    "polygon",
    [
        [[200, 100], [200, 100], [400, 100], [400, 200], [200, 200]],
        [[200, 100], [300, 100], [400, 100], [400, 150], [400, 200], [200, 200], [200, 100]],
        [[200, 100], [400, 100], [400, 200], [400, 200], [300, 200], [200, 200]],
    ],
    ids=["repeated", "collinear-and-closed", "repeated-and-collinear"],
)
def test_repeated_and_collinear_polygon_points_rule_as_the_clean_polygon(polygon, jit) -> None:
    # lines along the edges, through the vertices, and a model touching the polygon
    models = [
        _model("a", 100, 100, base=0),
        _model("b", 500, 100, base=0),
        _model("c", 300, 50),
        _model("d", 300, 212.5),
        _model("e", 500, 200),
    ]
    piece = {"id": "p", "sight": "cover"}
    clean = both_builds(from_dict(_doc([piece | {"polygon": CLEAN_POLYGON}], models)), jit)
    odd = both_builds(from_dict(_doc([piece | {"polygon": polygon}], models)), jit)
    assert decisions(odd) == decisions(clean)


# --- bases: none, denormal, too small to measure ---------------------------------------


def test_bases_of_zero_are_points_for_every_question(jit) -> None:
    models = [
        _model("a", 100, 150, base=0, weapons=[{"name": "B", "breath": GRAPESHOT}]),
        _model("b", 400, 150, base=0),
        _model("c", 100, 150, base=0),  # on a's very centre
        _model("d", 250, 300),
    ]
    block = {"id": "r", "rect": {"at": [250, 150], "width": 20, "depth": 20}}
    answers = both_builds(from_dict(_doc([block], models)), jit)
    frost = los(answers, "frostgrave")
    # G5: a's lines start within the beam of c's point, which blocks them (F2) like r
    assert not frost["a", "b"]["visible"] and frost["a", "b"]["because"] == "F8, F2 c, F2 r"
    assert frost["d", "b"]["visible"] and frost["d", "b"]["because"] == "F8"
    assert frost["d", "b"]["visible_fraction"] == 1.0  # a point target: all of it
    assert frost["b", "d"]["visible"] and frost["b", "d"]["visible_fraction"] == 1.0


@pytest.mark.parametrize("base", [1.0e-323, 1e-300, 1e-5, MIN_SIZE / 2])
def test_bases_narrower_than_the_least_are_refused_on_load(base: float) -> None:
    doc = _doc([], [_model("a", 100, 150), _model("b", 400, 150, base=base)])
    with pytest.raises(ScenarioError) as caught:
        from_dict(doc)
    assert [p.path for p in caught.value.problems] == ["models[1].base"]
    assert f"got {base:g}" in str(caught.value) and "0.01 mm" in str(caught.value)


def test_the_least_base_loads_in_every_unit() -> None:
    for unit, least in (("mm", 0.01), ("cm", 0.001), ("in", 0.01 / 25.4)):
        doc = _doc([], [_model("a", 1, 1, base=least * 1.0001)]) | {"unit": unit}
        doc["table"] = [10, 10]
        assert from_dict(doc).models[0].base.diameter >= MIN_SIZE


@pytest.mark.parametrize("diameter", [1.0e-323, 1e-300])
def test_bases_too_small_to_measure_are_measured_as_points(diameter: float, jit) -> None:
    """Built through the API (the loader refuses them): visible means base seen 100%."""
    table = from_dict(
        _doc([], [_model("a", 50, 150), _model("b", 400, 150), _model("c", 200, 150)])
    )
    tiny = {m.id: dataclasses.replace(m, base=Disc(diameter)) for m in table.models}
    table = dataclasses.replace(table, models=tuple(tiny.values()))
    answers = both_builds(table, jit)
    frost = los(answers, "frostgrave")
    assert frost["a", "c"]["visible"] and frost["a", "c"]["visible_fraction"] == 1.0
    assert not frost["a", "b"]["visible"] and frost["a", "b"]["blockers"] == ["c"]
    assert los(answers, "darkage")["a", "c"]["visible"]
    assert los(answers, "mordheim")["a", "c"]["visible"]


@pytest.mark.parametrize(
    ("piece", "path"),
    [
        ({"wall": {"points": [[200, 100], [200, 300]], "thickness": 1.0e-323}}, "wall.thickness"),
        ({"circle": {"at": [200, 150], "radius": 1e-300}}, "circle.radius"),
        ({"rect": {"at": [200, 150], "width": 1e-5, "depth": 50}}, "rect.width"),
    ],
)
def test_footprints_thinner_than_the_least_are_refused_on_load(piece, path) -> None:
    doc = _doc([{"id": "t"} | piece], [_model("a", 50, 150)])
    with pytest.raises(ScenarioError) as caught:
        from_dict(doc)
    assert [p.path for p in caught.value.problems] == [f"terrain[0].{path}"]
    assert "must be at least 0.01 mm" in str(caught.value)


@pytest.mark.parametrize("thickness", [1e-300, 0.0])
def test_a_wall_too_thin_to_draw_still_blocks_as_a_line(thickness: float, jit) -> None:
    """Built through the API (the loader refuses it): a line still blocks (G5 beam)."""
    doc = _doc([_wall([[200, 100], [200, 300]])], [_model("a", 50, 150), _model("b", 400, 150)])
    table = from_dict(doc)
    wall = table.terrain[0]
    assert isinstance(wall.footprint, WallFootprint)
    thin = dataclasses.replace(wall.footprint, thickness=thickness)
    table = dataclasses.replace(table, terrain=(dataclasses.replace(wall, footprint=thin),))
    answers = both_builds(table, jit)
    for rules in ("frostgrave", "darkage", "mordheim"):
        assert not los(answers, rules)["a", "b"]["visible"], rules
        assert los(answers, rules)["a", "b"]["blockers"] == ["w"], rules


# --- positions through the API ---------------------------------------------------------


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e300, -2 * POSITION_LIMIT])
@pytest.mark.parametrize("axis", ["x", "y"])
def test_moving_a_model_to_a_point_out_of_bounds_is_a_rules_error(value, axis) -> None:
    table = arbitre.load_table(arbitre.DEMO_SCENARIO)
    to = Point(value, 10.0) if axis == "x" else Point(10.0, value)
    with pytest.raises(
        RulesError, match=re.escape(f"model 'archer' moved to {axis} = {value:g} mm")
    ):
        table.moved("archer", to)


def test_moving_a_model_to_something_else_than_a_point_is_a_rules_error() -> None:
    table = arbitre.load_table(arbitre.DEMO_SCENARIO)
    with pytest.raises(RulesError, match="expected a Point"):
        table.moved("archer", (1.0, 2.0))  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="y = 'north': not a number"):
        table.moved("archer", Point(1.0, "north"))  # type: ignore[arg-type]


def test_a_model_moved_within_bounds_is_ruled(jit) -> None:
    table = arbitre.load_table(arbitre.DEMO_SCENARIO)
    far = table.moved("archer", Point(np.float64(POSITION_LIMIT), -POSITION_LIMIT))
    assert far.model("archer").at == Point(POSITION_LIMIT, -POSITION_LIMIT)
    for mode in BUILDS:
        jit(mode)
        ruling = arbitre.ask(far, "los", shooter="archer", target="hunter").ruling
        assert ruling.visible  # nothing of the table stands on so long a line's way


def test_the_position_limit_is_the_loaders() -> None:
    assert POSITION_LIMIT == LIMIT


# --- the loader's caps -----------------------------------------------------------------


def test_a_hundred_thousand_models_are_refused_on_load() -> None:
    models = [{"id": f"m{i}", "side": "a", "at": [1, 1]} for i in range(100_000)]
    with pytest.raises(ScenarioError) as caught:
        from_dict({"arbitre": 1, "table": [100, 100], "models": models})
    assert str(caught.value) == f"models: must have at most {MAX_MODELS} items, got 100000"


def test_a_million_vertex_polygon_is_refused_on_load() -> None:
    ring = [[i * 1e-3, float(i % 2)] for i in range(1_000_000)]
    doc = {"arbitre": 1, "table": [1000, 10], "terrain": [{"id": "p", "polygon": ring}]}
    with pytest.raises(ArbitreError) as caught:
        from_dict(doc)
    expected = f"terrain[0].polygon: must have at most {MAX_VERTICES} items, got 1000000"
    assert str(caught.value) == expected
