"""G8 for Frostgrave ``los`` rulings: the margin's promise, checked by moving models.

RULES.md G8: "Moving one model by less than the margin never changes the ruling." On
seeded random tables (``arbitre.testing.random_table``, degenerate placements too, and
models pressed against windows), each ruling's margin is tested by moving one model (the
shooter, the target, or a model near the line) by a random vector shorter than it, and
ruling the pair again: visible, cover and blockers must stay.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_frostgrave import at_windows

from arbitre.geometry import Point
from arbitre.rules import frostgrave
from arbitre.rules.frostgrave_margins import segment_depths
from arbitre.table import Table
from arbitre.testing import random_table


def _deciding(table: Table, a: str, b: str) -> tuple[bool, int, frozenset[str]]:
    r = frostgrave.rulings(table, [(a, b)])[0]
    return r.visible, r.cover, frozenset(r.blockers)


def _movers(table: Table, a: str, b: str, rng: np.random.Generator) -> list[str]:
    """The shooter, the target, and a model near the centre line, if any."""
    sa, sb = table.model(a).at, table.model(b).at
    others = []
    for m in table.models:
        if m.id in (a, b):
            continue
        p = np.array([m.at.x, m.at.y])
        u, v = np.array([sa.x, sa.y]), np.array([sb.x, sb.y])
        t = np.clip(np.dot(p - u, v - u) / max(np.dot(v - u, v - u), 1e-12), 0, 1)
        if np.hypot(*(u + t * (v - u) - p)) < m.base.radius + 30:
            others.append(m.id)
    picks = [a, b]
    if others:
        picks.append(str(rng.choice(others)))
    return picks


def _tables() -> list[Table]:
    out = []
    for seed in range(5):
        rng = np.random.default_rng(100 + seed)
        t = random_table(seed, models=10, terrain=8, width=350.0, degenerate=seed % 2 == 1)
        out.append(at_windows(t, rng) if seed % 3 != 2 else t)
    return out


@pytest.mark.parametrize("k", range(5))
def test_moving_a_model_by_less_than_the_margin_keeps_the_ruling(k: int) -> None:
    table = _tables()[k]
    rng = np.random.default_rng(k)
    ids = [m.id for m in table.models]
    pairs = [(a, b) for a in ids for b in ids if a != b]
    picked = [pairs[int(j)] for j in rng.choice(len(pairs), size=16, replace=False)]
    checked = 0
    ruled = frostgrave.rulings(table, picked)
    assert any(not r.margin.close for r in ruled)  # not every ruling is a close call
    for ruling in ruled:
        assert ruling.margin.mm is not None and ruling.margin.test
        assert ruling.margin.close is (ruling.margin.mm < 2.0)
        a, b = ruling.shooter, ruling.target
        before = (ruling.visible, ruling.cover, frozenset(ruling.blockers))
        for who in _movers(table, a, b, rng):
            length = ruling.margin.mm * float(rng.uniform(0.05, 0.95))
            angle = float(rng.uniform(0, 2 * math.pi))
            at = table.model(who).at
            moved = table.moved(
                who, Point(at.x + length * math.cos(angle), at.y + length * math.sin(angle))
            )
            assert _deciding(moved, a, b) == before, (ruling, who, length, angle)
            checked += 1
    assert checked >= 32


def test_depth_of_a_segment_inside_a_square_is_the_distance_to_its_edge() -> None:
    # an independent oracle: a segment through the middle of a 20 mm square runs at most
    # 10 mm from its edge; one along y = 4 at most 4 mm (the square spans y 0..20)
    import shapely

    square = shapely.box(0, 0, 20, 20)
    lines = np.array(
        [shapely.LineString([(-5, 10), (25, 10)]), shapely.LineString([(-5, 4), (25, 4)])]
    )
    dist, depth = segment_depths(lines, np.array([square, square]))
    assert list(dist) == [0.0, 0.0]
    assert depth[0] == pytest.approx(10.0, abs=0.7)
    assert depth[0] <= 10.0 + 1e-9
    assert depth[1] == pytest.approx(4.0, abs=1e-9)
