"""Warnings for plausible mistakes (issue 11): tables that load but are likely not the
table their author meant. Each warning names the model (and piece) involved."""

from __future__ import annotations

from pathlib import Path

import pytest

import arbitre
from arbitre import sanity, scenario

ROOT = Path(__file__).resolve().parents[1]

TABLE = """arbitre: 1
unit: in
table: [36, 36]
terrain:
  - {{id: ruin, polygon: [[10, 10], [14, 10], [14, 14], [10, 14]]}}
  - {{id: hedge, sight: cover, rect: {{at: [20, 20], width: 6, depth: 0.5}}}}
  - id: house
    wall: {{points: [[2, 30], [8, 30]], thickness: 0.3, windows: [{{from: 2, to: 3}}]}}
{extra}
models:
{models}
"""


def warned(models: str, extra: str = "") -> list[str]:
    text = TABLE.format(models=models, extra=extra)
    return [str(w) for w in sanity.warnings(scenario.loads(text))]


def test_the_examples_raise_no_warning() -> None:
    for path in sorted(ROOT.glob("examples/*.yaml")):
        subject = arbitre.load(path)
        if isinstance(subject, arbitre.Table):
            assert sanity.warnings(subject) == [], path.name


def test_a_base_in_mm_in_an_inches_file() -> None:
    found = warned("  - {id: a, side: r, at: [30, 30], base: 25}")
    assert found == [
        "models[0]: base 25 in (635 mm) is over the plausible 10-200 mm "
        "(a base in mm in an in file?)"
    ]
    assert warned("  - {id: a, side: r, at: [30, 30], base: 1}") == []
    assert warned("  - {id: a, side: r, at: [30, 30], base: 0}") == []  # F8: no base
    assert "under the plausible" in warned("  - {id: a, side: r, at: [30, 30], base: 0.1}")[0]


def test_overlapping_bases_but_not_touching_ones() -> None:
    found = warned(
        "  - {id: a, side: r, at: [30, 30], base: 1}\n  - {id: b, side: r, at: [30.5, 30], base: 1}"
    )
    assert found == ["models[0]: the bases of a and b overlap by 0.5 in"]
    apart = (
        "  - {id: a, side: r, at: [30, 30], base: 1}\n  - {id: b, side: r, at: [31, 30], base: 1}"
    )
    assert warned(apart) == []


def test_inside_blocking_terrain_unless_said_so() -> None:
    assert warned("  - {id: a, side: r, at: [12, 12], base: 1}") == [
        "models[0]: a stands inside blocking terrain ruin (in that building? say "
        "`inside: ruin`, and `building: true` on it)"
    ]
    inside = "  - {id: a, side: r, at: [12, 12], base: 1, inside: ruin}"
    assert warned(inside) == []


@pytest.mark.parametrize(("y", "warns"), [(20.8, True), (20.75, False), (20.9, False)])
def test_a_near_miss_of_a_piece(y: float, warns: bool) -> None:
    """0.05 in (1.27 mm) short of the hedge: likely meant to touch (G4: it does not)."""
    found = warned(f"  - {{id: a, side: r, at: [20, {y}], base: 1}}")
    assert bool(found) is warns, found
    if warns:
        assert "a is 0.05 in from hedge: not touching it" in found[0]


def test_a_near_miss_of_a_window_names_the_window() -> None:
    found = warned("  - {id: a, side: r, at: [4.5, 29.3], base: 1}")
    assert any("from window 0 of house" in w for w in found), found


def test_a_window_inside_another_piece_cannot_be_touched() -> None:
    tower = "  - {id: tower, circle: {at: [4.5, 30], radius: 0.6}}"
    found = warned("  - {id: a, side: r, at: [30, 30], base: 1}", tower)
    assert found == [
        "terrain[2].wall.windows[0]: window 0 of house lies inside tower: no base can touch it "
        "(F5, F6)"
    ]
