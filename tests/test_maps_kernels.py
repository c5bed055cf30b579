"""The maps' kernels (:mod:`arbitre.kernels_maps`) against the GEOS forms they replace:
convex hulls bit for bit, in both builds, and the shadows and cells built from them."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from arbitre import backend
from arbitre.maps import pieces, regions, shadows
from arbitre.maps.shadows import Parts
from arbitre.testing import random_table


@pytest.mark.parametrize("build", ["compiled", "interpreted"])
def test_hulls_are_geos_hulls_bit_for_bit(build: str) -> None:
    """Seeded point sets (rounded ones among them: ties, repeats, collinear points): each
    ring is the one GEOS writes (same corners, same start, same turn); a set whose hull
    is no polygon is flagged."""
    k = backend.compiled("arbitre.kernels_maps") if build == "compiled" else None
    if k is None:
        k = backend.interpreted("arbitre.kernels_maps")
    rng = np.random.default_rng(14)
    checked = 0
    for trial in range(40):
        sizes = rng.integers(1, 25, 12)
        xy = rng.uniform(0.0, 50.0, (int(sizes.sum()), 2))
        if trial % 2:
            xy = np.round(xy / 10.0)
        start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        coords, offsets, ok = k.hulls(xy, start)
        for g in range(len(sizes)):
            geos = shapely.convex_hull(shapely.multipoints(xy[start[g] : start[g + 1]]))
            assert bool(ok[g]) == (geos.geom_type == "Polygon"), (trial, g)
            if ok[g]:
                ring = coords[offsets[g] : offsets[g + 1]]
                assert np.array_equal(ring, np.asarray(geos.exterior.coords)), (trial, g)
                checked += 1
            else:
                assert offsets[g] == offsets[g + 1]
    assert checked > 200


def test_shadows_are_the_geos_shadows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every shadow of seeded tables (degenerate ones among them) from every base: the
    kernel's polygons equal GEOS's exactly (``equals_exact`` with no tolerance)."""
    compared = 0
    for seed in range(6):
        table = random_table(
            seed, models=5, terrain=8, width=300.0, depth=300.0, degenerate=seed % 3 == 2
        )
        pc = pieces.pieces(table, table.beam / 2.0)
        for m in table.models:
            origin = (m.at.x, m.at.y)
            where = (0.0, 0.0, table.width, table.depth)
            monkeypatch.setenv("ARBITRE_JIT", "always")
            new, inside, _ = shadows.shadows_and_cones(origin, pc.parts, where)
            monkeypatch.setenv("ARBITRE_JIT", "never")
            old, inside_old, _ = shadows.shadows_and_cones(origin, pc.parts, where)
            assert np.array_equal(inside, inside_old)
            assert shapely.equals_exact(new, old, 0.0).all(), (seed, m.id)
            compared += len(new)
    assert compared > 100


def test_cells_are_the_centres_in_doubt() -> None:
    """The cells ruled one by one are the grid centres ``contains_xy`` finds in the
    shooter's ``per_point`` (the scanline finds the same), on seeded Mordheim tables."""
    compared = 0
    for seed in range(200, 204):
        table = random_table(seed, models=5, terrain=7, width=400.0, depth=400.0)
        s = pieces.subject(table, model="m0")
        for a in s.shooters:
            reg = regions.mordheim(s, a, windows_open=True, pitch=4.0)
            if reg.cells is None:
                continue
            x0, y0, x1, y1 = reg.per_point.bounds
            ix = np.arange(np.floor(x0 / 4.0), np.ceil(x1 / 4.0))
            iy = np.arange(np.floor(y0 / 4.0), np.ceil(y1 / 4.0))
            gi, gj = (g.ravel() for g in np.meshgrid(ix, iy))
            keep = shapely.contains_xy(reg.per_point, (gi + 0.5) * 4.0, (gj + 0.5) * 4.0)
            assert np.array_equal(reg.cells.i, gi[keep]) and np.array_equal(reg.cells.j, gj[keep])
            compared += len(reg.cells.i)
    assert compared > 100


Box = tuple[float, float, float, float]


def _seen_cases(count: int) -> list[tuple[tuple[float, float], Parts, Box]]:
    """From every base of seeded tables (degenerate ones among them), the blocking
    pieces' shadows (the base's own left out) none of which holds it."""
    cases: list[tuple[tuple[float, float], Parts, Box]] = []
    for seed in range(count):
        table = random_table(
            seed, models=6, terrain=10, width=400.0, depth=400.0, degenerate=seed % 4 == 3
        )
        pc = pieces.pieces(table, table.beam / 2.0)
        for k, m in enumerate(table.models):
            mask = pc.blocks.copy()
            mask[pc.n_terrain + k] = False
            cases.append(((m.at.x, m.at.y), pc.parts.select(mask), (0.0, 0.0, 400.0, 400.0)))
    return cases


def test_seen_region_is_the_box_less_the_shadows_union(monkeypatch: pytest.MonkeyPatch) -> None:
    """The region a centre sees (the compiled sweep, nearest part along every ray) is the
    rectangle less the union of the parts' shadows (the GEOS form it replaces): the
    same up to rounding (symmetric difference under 1e-6 mm²), on seeded tables; the
    kernel declines only degenerate ones (a ring GEOS would not call valid)."""
    monkeypatch.setenv("ARBITRE_JIT", "always")
    found = declined = 0
    for origin, parts, where in _seen_cases(12):
        arcs: list[tuple[np.ndarray, np.ndarray]] = []
        polys, inside, cones = shadows.shadows_and_cones(origin, parts, where, arcs=arcs)
        if inside.any():
            continue
        union = regions._union_within(origin, polys, inside, cones, where)
        old = shapely.difference(shapely.box(*where), union)
        new = shadows.seen_region(origin, *arcs[0], where)
        if new is None:
            declined += 1
            continue
        assert shapely.symmetric_difference(old, new).area < 1e-6, origin
        assert not new.exterior.is_ccw  # a shell as GEOS writes it
        found += 1
    assert found > 40 and declined < found / 5


def test_seen_region_builds_agree_bit_for_bit() -> None:
    """The sweep interpreted gives the compiled ring exactly (a few seeded cases)."""
    fast = backend.compiled("arbitre.kernels_maps")
    slow = backend.interpreted("arbitre.kernels_maps")
    compared = 0
    for origin, parts, where in _seen_cases(2)[:6]:
        arcs: list[tuple[np.ndarray, np.ndarray]] = []
        shadows.shadows_and_cones(origin, parts, where, arcs=arcs)
        arc, part = arcs[0]
        start = np.searchsorted(part, np.arange(int(part[-1]) + 2)).astype(np.int64)
        args = (origin[0], origin[1], np.ascontiguousarray(arc), start, np.asarray(where))
        ring_a, ok_a = fast.seen_region(*args)
        ring_b, ok_b = slow.seen_region(*args)
        assert ok_a == ok_b and np.array_equal(ring_a, ring_b)
        compared += 1
    assert compared == 6
