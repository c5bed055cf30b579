"""``dump`` round-trips: every table that loads, dumped (in mm, its unit kept as
``report_unit``) and loaded again, is the same table, whatever the unit it was written in
(mm, cm, in, toise) — windows ending at their wall's end and ranges near the limits
included."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbitre import scenario
from arbitre.errors import ScenarioError

UNITS = st.sampled_from(["mm", "cm", "in", "toise"])
coord = st.floats(0, 100, allow_nan=False)
size = st.floats(0.01, 50, allow_nan=False)


@st.composite
def wall(draw: st.DrawFn) -> dict[str, Any]:
    points = draw(st.lists(st.tuples(coord, coord), min_size=2, max_size=5, unique=True))
    length = sum(math.dist(a, b) for a, b in itertools.pairwise(points))
    windows = []
    if length > 0.1 and draw(st.booleans()):
        start = draw(st.floats(0, length * 0.9))
        end = draw(st.sampled_from([length, (start + length) / 2]))  # often the very end
        windows.append({"from": start, "to": end})
    return {"points": [list(p) for p in points], "thickness": draw(size), "windows": windows}


@st.composite
def piece(draw: st.DrawFn, i: int) -> dict[str, Any]:
    kind = draw(st.sampled_from(["rect", "circle", "wall"]))
    doc: dict[str, Any] = {"id": f"t{i}", "sight": draw(st.sampled_from(["blocks", "cover"]))}
    if kind == "rect":
        doc["rect"] = {
            "at": [draw(coord), draw(coord)],
            "width": draw(size),
            "depth": draw(size),
            "angle": draw(st.floats(-360, 360)),
        }
    elif kind == "circle":
        doc["circle"] = {"at": [draw(coord), draw(coord)], "radius": draw(size)}
    else:
        doc["wall"] = draw(wall())
    return doc


@st.composite
def model(draw: st.DrawFn, i: int) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": f"m{i}",
        "side": draw(st.sampled_from(["red", "blue"])),
        "at": [draw(coord), draw(coord)],
    }
    if draw(st.booleans()):
        doc["base"] = draw(st.sampled_from([0.0, 1.0, 25.0, draw(size)]))
    if draw(st.booleans()):
        doc["weapons"] = [
            {
                "name": "bow",
                "range": draw(st.sampled_from([1.0, 9e8, 3.9e7, draw(size)])),
                "unit": draw(st.sampled_from([None, "mm", "in", "cm"])),
            }
        ]
        if doc["weapons"][0]["unit"] is None:
            del doc["weapons"][0]["unit"]
    doc["height"] = draw(st.one_of(st.none(), size))
    doc["elevation"] = draw(st.sampled_from([0.0, 1.5]))
    return doc


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    unit = draw(UNITS)
    doc: dict[str, Any] = {"arbitre": 1, "unit": unit, "table": [100.0, 100.0]}
    if unit == "toise" or draw(st.booleans()):
        doc["toise"] = draw(st.sampled_from([25.0, 1.0, 0.3]))
    doc["terrain"] = [draw(piece(i)) for i in range(draw(st.integers(0, 4)))]
    doc["models"] = [draw(model(i)) for i in range(draw(st.integers(0, 4)))]
    return doc


def _round_trips(doc: dict[str, Any]) -> None:
    try:
        table = scenario.from_dict(doc)
    except ScenarioError:
        return  # refused on load: nothing to round-trip (other tests check refusals)
    again = scenario.from_dict(scenario.dump(table))
    assert again == table
    assert scenario.from_dict(scenario.dump(again)) == table


@settings(
    max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(documents())
def test_every_table_that_loads_dumps_and_reloads_as_itself(doc: dict[str, Any]) -> None:
    _round_trips(doc)


@pytest.mark.slow
@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(documents())
def test_every_table_that_loads_dumps_and_reloads_as_itself_full(doc: dict[str, Any]) -> None:
    _round_trips(doc)


def test_a_window_at_the_very_end_of_an_inch_wall_reloads() -> None:
    doc = {
        "arbitre": 1,
        "unit": "in",
        "table": [10, 10],
        "terrain": [
            {
                "id": "w",
                "wall": {
                    "points": [[0, 1], [5, 1]],
                    "thickness": 0.2,
                    "windows": [{"from": 3, "to": 5}],
                },
            }
        ],
    }
    table = scenario.from_dict(doc)
    assert scenario.from_dict(scenario.dump(table)) == table


def test_a_range_beyond_the_limit_in_mm_is_refused_on_load() -> None:
    doc = {
        "arbitre": 1,
        "unit": "in",
        "table": [10, 10],
        "models": [
            {"id": "a", "side": "r", "at": [1, 1], "weapons": [{"name": "bow", "range": 9e8}]}
        ],
    }
    try:
        scenario.from_dict(doc)
    except ScenarioError as exc:
        assert "models[0].weapons[0].range: 9e+08 in is 2.29e+10 mm, more than 1e+09 mm" in str(exc)
    else:
        raise AssertionError("a range of 9e8 in is more than 1e9 mm: refused")
