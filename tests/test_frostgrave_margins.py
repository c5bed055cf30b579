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
import shapely
from test_frostgrave import at_windows

from arbitre.geometry import CircleFootprint, Point
from arbitre.rules import frostgrave
from arbitre.rules.frostgrave_margins import JOIN_REACH, REACH, Near, near_pieces, segment_depths
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


def _near_by_shapely(table: Table, pairs: list[tuple[str, str]]) -> list[dict[str, Near]]:
    """The oracle of ``near_pieces`` (no windows opened): every terrain piece and other
    base within the margin reach of each centre line, measured one by one with shapely (distance,
    depth from 33 points along the line's part inside, sampled the same way)."""
    half = table.beam / 2
    out = []
    for a, b in pairs:
        pa, pb = table.model(a).at, table.model(b).at
        line = shapely.LineString([(pa.x, pa.y), (pb.x, pb.y)])
        found: dict[str, Near] = {}
        for piece in table.terrain:
            fp = piece.footprint
            if isinstance(fp, CircleFootprint):
                d = line.distance(shapely.Point(fp.centre.x, fp.centre.y)) - fp.radius
                slack = abs(d - half)
            else:
                shape = fp.shape()
                if not shape.is_valid:  # a mitred wall may cross itself
                    shape = shapely.make_valid(shape)
                d = line.distance(shape)
                depth = 0.0
                inter = line.intersection(shape)
                if d <= 0 and inter.geom_type in ("LineString", "MultiLineString"):
                    pts = [inter.interpolate(f, normalized=True) for f in np.linspace(0, 1, 33)]
                    depth = max(p.distance(shape.boundary) for p in pts)
                slack = abs(d - half) if d > 0 else half + depth
            if d <= half + REACH + 1.0:
                found[piece.id] = Near(piece.id, d, slack)
        for m in table.models:
            if m.id not in (a, b):
                d = line.distance(shapely.Point(m.at.x, m.at.y)) - m.base.radius
                if d <= half + REACH + 1.0:
                    found[m.id] = Near(m.id, d, abs(d - half))
        out.append(found)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_near_pieces_agree_with_shapely_one_piece_at_a_time(seed: int) -> None:
    """The batched kernel (``kernels.line_nearby``) finds every piece within the G4 join
    reach of a line with its distance, and the least slack among small pieces and among
    the others, as the one-by-one shapely measure does."""
    table = random_table(100 + seed, models=14, terrain=16, width=500, depth=500)
    table = Table(
        table.width, table.depth, table.terrain, table.models, beam=1.0 + 0.5 * (seed % 2)
    )
    pairs = [(a.id, b.id) for a in table.models for b in table.models if a.id != b.id]
    s = np.asarray([table.model_index(a) for a, _ in pairs])
    g = np.asarray([table.model_index(b) for _, b in pairs])
    got = near_pieces(table, s, g, [frozenset()] * len(pairs))
    want = _near_by_shapely(table, pairs)
    small = {t.id for t in table.terrain if not t.blocks}
    close = JOIN_REACH + table.beam
    checked = 0
    for found, oracle in zip(got, want, strict=True):
        near = {n.piece: n.dist for n in found if n.dist < close}
        expect = {p: n.dist for p, n in oracle.items() if n.dist < close}
        assert near.keys() == expect.keys()
        for p, d in near.items():
            assert d == pytest.approx(expect[p], abs=1e-7)
        for group in (True, False):
            mine = [n.slack for n in found if (n.piece in small) == group]
            theirs = [n.slack for n in oracle.values() if (n.piece in small) == group]
            assert min([*mine, REACH]) == pytest.approx(min([*theirs, REACH]), abs=1e-6)
        checked += len(expect)
    assert checked > 20
