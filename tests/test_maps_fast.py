"""The faster exact regions (issue 14, item 4) against the ways they replace, on seeded
random tables (walls with windows, small pieces, degenerate placements among them):

- Frostgrave's classes found at once (one polygonized linework, each face labelled:
  :func:`regions.frostgrave`) against the region seen split shade by shade
  (:func:`regions.frostgrave_split`): the same covers, each class the same shape (a
  symmetric difference under 1e-9 mm²), the same label at many points;
- the shadows of several sets of parts found in one pass
  (:func:`shadows.shadows_of_sets`) against a call a set, and a call against the old
  code (kept here): bit for bit, in both builds of the hulls' kernel;
- the small pieces' shadows cut to the table all at once, and F6's test of a window's
  opening without joining the shadows, against the old forms: the same bits, the same
  answers;
- Mordheim's ``near`` (the terrain's union kept once a table, merged only with the
  discs that meet it) against the union of everything: the same shape.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from maps_oracle import oracle_table
from shapely.geometry.base import BaseGeometry

from arbitre.geometry import WallFootprint
from arbitre.maps import pieces, regions, shadows
from arbitre.maps.pieces import Subject
from arbitre.table import Table
from arbitre.testing import random_table

#: Points this near (mm) a class's boundary may fall either side (rounding).
EDGE = 1e-6
#: The largest symmetric difference (mm²) between a class found both ways.
AREA = 1e-9
#: Seeded tables (as the oracle draws them) where a shooter sees out through a window
#: (F5): found by a scan of the first 400.
F5_SEEDS = (32, 165, 181, 261, 332, 348)


def _subject(seed: int) -> Subject:
    table = oracle_table(seed)
    if seed % 10 == 9:
        return pieces.subject(table, side="blue", base=40.0)
    return pieces.subject(table, model="m0")


def _by_cover(reg: regions.ShooterRegions) -> dict[int, BaseGeometry]:
    """A shooter's classes by cover (those of some area)."""
    by: dict[int, list[BaseGeometry]] = {}
    for value, shape in reg.classes:
        by.setdefault(value, []).append(shape)
    merged = {v: shapely.union_all(g) for v, g in by.items()}
    return {v: g for v, g in merged.items() if g.area > AREA}


def _labels(classes: dict[int, BaseGeometry], xy: np.ndarray) -> np.ndarray:
    out = np.full(len(xy), -1)
    for value, shape in classes.items():
        out[shapely.contains_xy(shape, xy[:, 0], xy[:, 1])] = value
    return out


@pytest.mark.parametrize("seeds", [range(0, 12), range(12, 24), F5_SEEDS])
def test_frostgrave_at_once_is_the_shade_by_shade_split(seeds: range | tuple[int, ...]) -> None:
    """F1-F6: the classes found at once are those split shade by shade (same covers,
    same shapes, same region seen), and every one of 300 random points a shooter (off
    the boundaries) gets the same label both ways."""
    shooters = labelled = 0
    for seed in seeds:
        s = _subject(seed)
        rng = np.random.default_rng(seed)
        xy = rng.uniform(0.0, 1.0, (300, 2)) * [s.table.width, s.table.depth]
        for a in s.shooters:
            new, old = regions.frostgrave(s, a), regions.frostgrave_split(s, a)
            fast, slow = _by_cover(new), _by_cover(old)
            assert set(fast) == set(slow), (seed, a)
            for value, shape in slow.items():
                assert shapely.symmetric_difference(shape, fast[value]).area < AREA, (seed, a)
            assert shapely.symmetric_difference(new.seen, old.seen).area < AREA, (seed, a)
            lines = [shapely.boundary(g) for g in (*slow.values(), *fast.values())]
            far = shapely.distance(shapely.union_all(lines), shapely.points(xy)) >= EDGE
            assert np.array_equal(_labels(fast, xy)[far], _labels(slow, xy)[far]), (seed, a)
            shooters += 1
            labelled += int((_labels(slow, xy)[far] > 0).sum())
    assert shooters >= 15 and labelled > 100


def test_frostgrave_at_once_on_the_bench_table() -> None:
    """The benchmark's table (45 pieces, 10 shooters, small pieces and windows): the
    same classes both ways."""
    table = random_table(1, models=20, terrain=45, width=1200.0, depth=1200.0)
    s = pieces.subject(table, model="m0")
    covers = 0
    for a in s.shooters[:4]:
        fast, slow = _by_cover(regions.frostgrave(s, a)), _by_cover(regions.frostgrave_split(s, a))
        assert set(fast) == set(slow), a
        for value, shape in slow.items():
            assert shapely.symmetric_difference(shape, fast[value]).area < AREA, a
        covers += len(slow)
    assert covers >= 12


def _every_set(table: Table, radius: float) -> list[shadows.Parts]:
    """The sets of parts the maps shadow: every piece, the blocking ones, the windows'
    sides and the walls opened at one window, every wall opened at every window."""
    pc = pieces.pieces(table, table.beam / 2.0)
    walls = frozenset(t.id for t in table.terrain if isinstance(t.footprint, WallFootprint))
    return [
        pc.parts,
        pc.parts.select(pc.blocks),
        regions._every_side(table, radius),
        regions._every_opening(table),
        regions._opened_pieces(table, walls).parts,
    ]


@pytest.mark.parametrize("build", ["always", "never"])
def test_shadows_of_sets_are_those_of_each_set(build: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Several sets at once (empty ones among them) give each set's shadows, inside
    flags, cones and near arcs exactly as a call a set, in either build of the hulls'
    kernel (``ARBITRE_JIT``)."""
    monkeypatch.setenv("ARBITRE_JIT", build)
    compared = 0
    for seed in (0, 4, 9, 32, 165):
        s = _subject(seed)
        table = s.table
        sets = [p for p in _every_set(table, s.radius) if p.count]
        sets.insert(1, shadows.join([]))
        where = (0.0, 0.0, table.width, table.depth)
        boxes = [where, where, (-50.0, -20.0, table.width + 9.0, table.depth + 1.0)] * 3
        for m in table.models:
            origin = (m.at.x, m.at.y)
            pairs = list(zip(sets, boxes, strict=False))
            together = shadows.shadows_of_sets(origin, pairs)
            for (parts, where_), (polys, inside, cones, (arc, of)) in zip(
                pairs, together, strict=True
            ):
                if parts.count == 0:
                    assert len(polys) == len(inside) == len(arc) == 0
                    continue
                arcs: list[tuple[np.ndarray, np.ndarray]] = []
                p1, i1, c1 = shadows.shadows_and_cones(origin, parts, where_, arcs=arcs)
                assert shapely.equals_exact(polys, p1, 0.0).all()
                assert np.array_equal(inside, i1)
                for a, b in ((cones.start, c1.start), (cones.span, c1.span)):
                    assert np.array_equal(a, b)
                assert np.array_equal(cones.reach, c1.reach)
                assert np.array_equal(arc, arcs[0][0]) and np.array_equal(of, arcs[0][1])
                compared += len(polys)
    assert compared > 500


def _shadows_as_before(
    origin: tuple[float, float],
    parts: shadows.Parts,
    box: tuple[float, float, float, float],
    *,
    tol: float = shadows.ARC_TOLERANCE,
    arcs: list[tuple[np.ndarray, np.ndarray]] | None = None,
) -> tuple[np.ndarray, np.ndarray, shadows.Cones]:
    """The old :func:`shadows.shadows_and_cones` (a set at a time, ``ufunc.at`` by part,
    the points sorted by part), as it was."""
    n = parts.count
    if n == 0:
        return np.empty(0, dtype=object), np.zeros(0, dtype=np.bool_), shadows.NO_CONES
    cx, cy = origin
    g = parts.gens
    dx, dy, r = g[:, 0] - cx, g[:, 1] - cy, g[:, 2]
    d = np.hypot(dx, dy)
    phi = np.arctan2(dy, dx)
    in_disc = d <= r + 1e-12
    ratio = np.clip(r / np.maximum(d, 1e-300), 0.0, 1.0)
    alpha = np.where(in_disc, 0.0, np.arcsin(ratio))
    beta = np.where(in_disc, 0.0, np.arccos(ratio))
    # the reference direction of each part: towards the mean of its generators
    cnt = np.bincount(parts.part, minlength=n).astype(np.float64)
    mx = np.bincount(parts.part, weights=g[:, 0], minlength=n) / cnt
    my = np.bincount(parts.part, weights=g[:, 1], minlength=n) / cnt
    psi = np.arctan2(my - cy, mx - cx)
    rel = np.angle(np.exp(1j * (phi - psi[parts.part])))
    lo = np.full(n, np.inf)
    hi = np.full(n, -np.inf)
    np.minimum.at(lo, parts.part, rel - alpha)
    np.maximum.at(hi, parts.part, rel + alpha)
    inside = np.zeros(n, dtype=np.bool_)
    np.logical_or.at(inside, parts.part, in_disc)
    inside |= (hi - lo) >= math.pi - 1e-12
    for o, solid in parts.solids:
        if shapely.intersects_xy(solid, cx, cy):
            inside |= parts.owner == o
    # near arcs: m points from +beta to -beta around the direction back to the origin
    m = shadows._arc_points(r, beta, tol)
    gi = np.repeat(np.arange(len(g)), m)
    start = np.concatenate([[0], np.cumsum(m)[:-1]])
    k = np.arange(int(m.sum())) - np.repeat(start, m)
    frac = np.where(m[gi] > 1, k / np.maximum(m[gi] - 1, 1), 0.5)
    ang = phi[gi] + math.pi + beta[gi] * (1.0 - 2.0 * frac)
    arc = np.column_stack([g[gi, 0] + r[gi] * np.cos(ang), g[gi, 1] + r[gi] * np.sin(ang)])
    if arcs is not None:  # the near arcs alone, by part (the generators are sorted by part)
        arcs.append((arc, parts.part[gi]))
    # far points: five rays across each part's cone, beyond every point of the box
    x0, y0, x1, y1 = box
    reach = max(math.hypot(x - cx, y - cy) for x in (x0, x1) for y in (y0, y1))
    # beyond the parts too: a far point nearer than its part would pull the hull in front
    far_r = 1.1 * max(reach, float(np.max(d + r))) + 1.0
    j = np.linspace(0.0, 1.0, 5)
    span = np.where(inside, 0.0, hi - lo)
    fa = psi[:, None] + lo[:, None] + span[:, None] * j[None, :]
    far = np.column_stack([(cx + far_r * np.cos(fa)).ravel(), (cy + far_r * np.sin(fa)).ravel()])
    coords = np.vstack([arc, far])
    owner = np.concatenate([parts.part[gi], np.repeat(np.arange(n), 5)])
    order = np.argsort(owner, kind="stable")
    far_reach = np.full(n, -np.inf)
    np.maximum.at(far_reach, parts.part, d + r)
    cones = shadows.Cones(psi + lo, span, far_reach)
    return shadows.convex_hulls(coords[order], owner[order], n), inside, cones


@pytest.mark.parametrize("build", ["always", "never"])
def test_shadows_are_those_found_as_before(build: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`shadows.shadows_and_cones` (now one set of :func:`shadows.shadows_of_sets`:
    reductions by part, the points put in order without a sort) gives the old shadows,
    inside flags, cones and near arcs bit for bit, in either build of the hulls' kernel."""
    monkeypatch.setenv("ARBITRE_JIT", build)
    compared = 0
    for seed in (0, 4, 9, 32, 165, 2):
        s = _subject(seed)
        table = s.table
        where = (0.0, 0.0, table.width, table.depth)
        for parts in _every_set(table, s.radius):
            if parts.count == 0:
                continue
            for m in table.models:
                origin = (m.at.x, m.at.y)
                new_arcs: list[tuple[np.ndarray, np.ndarray]] = []
                old_arcs: list[tuple[np.ndarray, np.ndarray]] = []
                p1, i1, c1 = shadows.shadows_and_cones(origin, parts, where, arcs=new_arcs)
                p0, i0, c0 = _shadows_as_before(origin, parts, where, arcs=old_arcs)
                assert shapely.equals_exact(p1, p0, 0.0).all() and np.array_equal(i1, i0)
                for a, b in ((c1.start, c0.start), (c1.span, c0.span), (c1.reach, c0.reach)):
                    assert np.array_equal(a, b)
                assert np.array_equal(new_arcs[0][0], old_arcs[0][0])
                assert np.array_equal(new_arcs[0][1], old_arcs[0][1])
                compared += len(p1)
    assert compared > 500


def _small_shades_one_by_one(s: Subject, view: regions._Shades) -> list[tuple[int, BaseGeometry]]:
    """The old :func:`regions._small_shades`: each small piece's shadow on its own."""
    table = s.table
    out = []
    for k, t in enumerate(table.terrain):
        if t.blocks:
            continue
        mine = np.zeros(len(table.terrain) + len(table.models), dtype=bool)
        mine[k] = True
        shade = view.select(mine).shadow((0.0, 0.0, table.width, table.depth))
        if not shade.is_empty:
            out.append((k, shade))
    return out


def _sees_opening_joined(
    s: Subject, shades: regions._Shades, wall: regions._Shades, k: int, w: int
) -> bool:
    """The old :func:`regions._sees_opening`: the shadows joined, then asked."""
    table = s.table
    keep = np.ones(len(table.terrain) + len(table.models), dtype=bool)
    keep[k] = False
    these = shades.select(keep).plus(wall)
    if these.inside.any():
        return False
    opening = regions._opening(table, k, w)
    near = these.polys[shapely.intersects(these.polys, opening)] if len(these.polys) else []
    if not len(near):
        return bool(opening.length > 1e-9)
    for f in (0.5, 0.25, 0.75):
        q = opening.interpolate(f, normalized=True)
        if not shapely.intersects_xy(near, q.x, q.y).any():
            return True
    if shapely.covers(near, opening).any():
        return False
    return bool(shapely.difference(opening, shapely.union_all(near)).length > 1e-9)


def test_small_shades_and_openings_are_the_old_ones() -> None:
    """The small pieces' shadows cut all at once are those found one by one (the same
    bits); the opening of every window is seen or not as when the shadows were joined."""
    shades = openings = 0
    for seed in (*range(0, 16), *F5_SEEDS):
        s = _subject(seed)
        table = s.table
        pc = pieces.pieces(table, table.beam / 2.0)
        for a in s.shooters:
            at = table.model(a).at
            view = regions._Shades.of((at.x, at.y), pc.parts, pieces.box(table))
            new, old = regions._small_shades(s, view), _small_shades_one_by_one(s, view)
            assert [k for k, _ in new] == [k for k, _ in old]
            for (_, g), (_, h) in zip(new, old, strict=True):
                assert shapely.equals_exact(g, h, 0.0)
            shades += len(new)
            blockers = view.select(regions._mask(pc, s, table.model_index(a), pc.blocks))
            for k, w, _ in pieces.window_slices(table):
                wall = regions._Shades.of(
                    (at.x, at.y), regions._opened_parts(table, k, (w,)), pieces.box(table)
                )
                got = regions._sees_opening(s, blockers, wall, k, w)
                assert got == _sees_opening_joined(s, blockers, wall, k, w), (seed, a, k, w)
                openings += 1
    assert shades > 40 and openings > 40


@pytest.mark.parametrize("seed", [204, 40, 7, 1])
def test_near_is_the_union_of_everything(seed: int) -> None:
    """Mordheim's ``near`` for a set of bases left out is the old union: every terrain
    piece grown by ``beam/2``, their union grown by the base (and the margin
    :data:`regions.NEAR_MARGIN`), and every other base's disc, as one union (the same
    shape)."""
    if seed == 1:
        table = random_table(1, models=20, terrain=45, width=1200.0, depth=1200.0)
    else:
        table = random_table(seed, models=8, terrain=9, width=400.0, depth=400.0)
    s = pieces.subject(table, model="m0")
    r = s.radius
    walls = frozenset[str]()
    terrain = tuple(range(len(table.terrain)))
    for but in [(0,), (0, 1), (0, 3), (0, *range(2, len(table.models)))]:
        got = regions._near_all(table, r, walls, terrain, but)
        half = table.beam / 2.0
        solids = shapely.union_all([regions.touch_like(table, k, half, None) for k in terrain])
        g = r + regions.NEAR_MARGIN
        grown = solids.buffer(g, quad_segs=pieces.quad_segs(g))
        discs = [regions._near_disc(table, k, r) for k in range(len(table.models)) if k not in but]
        want = shapely.union_all([grown, *discs])
        assert got.is_valid
        assert shapely.symmetric_difference(got, want).area < AREA, but


@pytest.mark.slow
def test_frostgrave_at_once_on_many_tables() -> None:
    """The classes found at once are those split shade by shade on 400 seeded tables
    (about a thousand shooters; faces with a thin middle among them, labelled by their
    widest inscribed circle)."""
    shooters = 0
    for seed in range(400):
        s = _subject(seed)
        for a in s.shooters:
            fast = _by_cover(regions.frostgrave(s, a))
            slow = _by_cover(regions.frostgrave_split(s, a))
            assert set(fast) == set(slow), (seed, a)
            for value, shape in slow.items():
                assert shapely.symmetric_difference(shape, fast[value]).area < AREA, (seed, a)
            shooters += 1
    assert shooters > 900
