"""The fast paths of the maps (issue 14) against the slow ones they replace: the scanline
raster against ``shapely.contains_xy`` and against the raster read from the faces, on
seeded random tables; Mordheim's cells ruled at the raster's own centres against ``los``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import shapely

import arbitre
from arbitre import maps
from arbitre.geometry import Point
from arbitre.maps.scan import inside_grid, label_grid
from arbitre.testing import random_table

#: Centres this near (mm) a region's boundary may fall either side (rounding).
EDGE = 1e-6


def _blob(rng: np.random.Generator) -> shapely.geometry.base.BaseGeometry:
    """A random multipolygon with holes: discs and boxes less a few discs."""
    parts = [shapely.Point(*rng.uniform(0, 100, 2)).buffer(rng.uniform(1, 15)) for _ in range(20)]
    parts += [shapely.box(*np.sort(rng.uniform(0, 100, (2, 2)), axis=0).ravel()) for _ in range(3)]
    holes = [shapely.Point(*rng.uniform(0, 100, 2)).buffer(rng.uniform(2, 12)) for _ in range(4)]
    return shapely.difference(shapely.union_all(parts), shapely.union_all(holes))


@pytest.mark.parametrize("seed", range(40))
def test_scanline_agrees_with_contains_xy(seed: int) -> None:
    """Every centre of an odd grid (with centres on the shape's vertices' rows) is held
    by the shape exactly when ``contains_xy`` says so."""
    rng = np.random.default_rng(seed)
    shape = _blob(rng)
    xs = np.sort(rng.uniform(-5, 105, 61))
    ys = np.sort(np.concatenate([rng.uniform(-5, 105, 50), shapely.get_coordinates(shape)[:5, 1]]))
    got = inside_grid(shape, xs, ys)
    gx, gy = np.meshgrid(xs, ys)
    want = shapely.contains_xy(shape, gx, gy)
    near = shapely.distance(shape.boundary, shapely.points(gx, gy)) < EDGE
    assert got.shape == (len(ys), len(xs))
    assert np.array_equal(got[~near], want[~near])
    assert want.any() and (~want).any()


@pytest.mark.parametrize("seed", range(20))
def test_winding_labels_agree_with_contains_xy(seed: int) -> None:
    """Disjoint classes (a shape cut by two others, some clockwise, one a collection)
    labelled in one pass: each centre gets the value of the class that holds it."""
    rng = np.random.default_rng(100 + seed)
    a, b, c = _blob(rng), _blob(rng), _blob(rng)
    classes = [
        (0, shapely.difference(a, shapely.union(b, c))),
        (3, shapely.reverse(shapely.intersection(a, b))),
        (1, shapely.GeometryCollection(list(shapely.get_parts(shapely.difference(c, b))))),
    ]
    xs, ys = np.sort(rng.uniform(-5, 105, 47)), np.sort(rng.uniform(-5, 105, 53))
    got = label_grid(classes, xs, ys)
    gx, gy = np.meshgrid(xs, ys)
    want = np.full(gx.shape, -1)
    near = np.zeros(gx.shape, dtype=bool)
    for value, shape in classes:
        want[shapely.contains_xy(shape, gx, gy)] = value
        near |= (
            shapely.distance(shapely.boundary(shapely.union_all(shape)), shapely.points(gx, gy))
            < EDGE
        )
    assert np.array_equal(got[~near], want[~near])
    assert len(set(want[~near].ravel().tolist())) >= 3


def test_scanline_of_nothing_is_empty() -> None:
    xs = ys = np.arange(5.0)
    assert not inside_grid(shapely.Polygon(), xs, ys).any()
    assert not inside_grid(shapely.LineString([(0, 0), (4, 4)]), xs, ys).any()


def _boundaries(m: maps.SightMap) -> shapely.geometry.base.BaseGeometry:
    lines = [shapely.boundary(g) for reg in m.regions for _, g in reg.classes]
    lines += [shapely.boundary(reg.seen) for reg in m.regions if not reg.seen.is_empty]
    return shapely.union_all(lines) if lines else shapely.GeometryCollection()


def _compare(m: maps.SightMap, pitch: float) -> int:
    """The fast raster equals the faces' raster off every boundary and off the cells
    ruled point by point (no face holds those); returns the centres compared."""
    fast, slow = maps.raster(m, pitch), maps.raster_from_faces(m, pitch)
    gx, gy = np.meshgrid(fast.xs, fast.ys)
    pts = shapely.points(gx, gy)
    keep = shapely.distance(_boundaries(m), pts) >= EDGE
    if not m.per_point.is_empty:
        keep &= ~shapely.intersects(m.per_point, pts)
    for a, b in (
        (fast.seen, slow.seen),
        (fast.least_cover, slow.least_cover),
        (fast.most_cover, slow.most_cover),
    ):
        bad = np.flatnonzero((a != b) & keep)
        assert not len(bad), [(gx.flat[k], gy.flat[k], a.flat[k], b.flat[k]) for k in bad[:5]]
    return int(keep.sum())


@pytest.mark.parametrize("seed", range(12))
def test_frostgrave_raster_equals_the_faces_raster(seed: int) -> None:
    """F1-F7: same count and covers at every centre as the faces (walls, windows, small
    pieces among the seeded tables)."""
    table = random_table(seed, models=6, terrain=10, width=400.0, depth=400.0)
    m = maps.sight_map(table, model="m0", rules="frostgrave")
    assert _compare(m, 5.0) > 0.99 * 80 * 80
    r = maps.raster(m, 5.0)
    assert (r.seen > 0).any() and (r.seen < len(m.shooters)).any()


@pytest.mark.parametrize("seed", range(300, 306))
def test_mordheim_raster_equals_the_faces_raster(seed: int) -> None:
    """M1, M8 outside the cells ruled one by one: same as the faces."""
    table = random_table(seed, models=5, terrain=8, width=300.0, depth=300.0)
    m = maps.sight_map(table, model="m0", rules="mordheim")
    assert _compare(m, 5.0) > 0.3 * 60 * 60


def _asked(m: maps.SightMap, x: float, y: float) -> dict[str, int]:
    moved = m.table.moved(m.model, Point(x, y))
    pairs = tuple((a, m.model) for a in m.shooters)
    answer = arbitre.ask(moved, "los", rules=m.rules, pairs=pairs)
    return {r.shooter: int(r.cover) for r in answer.rulings if r.visible}


def test_mordheim_raster_rules_m8_at_its_own_centres() -> None:
    """Where M8 is ruled point by point, the raster rules it at each of its centres (not
    at the map's cells): a raster of another pitch agrees with ``los`` there."""
    checked = 0
    for seed in range(200, 206):
        table = random_table(seed, models=5, terrain=7, width=400.0, depth=400.0)
        m = maps.sight_map(table, model="m0", rules="mordheim", pitch=8.0)
        if m.per_point.is_empty:
            continue
        r = maps.raster(m, 3.0)
        gx, gy = np.meshgrid(r.xs, r.ys)
        pts = shapely.points(gx, gy)
        inside = np.flatnonzero(
            shapely.intersects(m.per_point, pts).ravel()
            & (shapely.distance(_boundaries(m), pts).ravel() >= 0.5)
        )
        rng = np.random.default_rng(seed)
        for k in rng.choice(inside, size=min(4, len(inside)), replace=False):
            x, y = float(gx.flat[k]), float(gy.flat[k])
            if any(
                np.hypot(o.at.x - x, o.at.y - y) < o.base.radius + m.radius
                for o in m.table.models
                if o.id != m.model
            ):
                continue  # a base over another: no table has that
            got = _asked(m, x, y)
            assert r.seen.flat[k] == len(got), (seed, x, y)
            assert r.least_cover.flat[k] == min(got.values(), default=-1), (seed, x, y)
            assert r.most_cover.flat[k] == max(got.values(), default=-1), (seed, x, y)
            checked += 1
    assert checked >= 8


def test_dark_age_raster_is_read_from_its_cells() -> None:
    table = random_table(5, models=4, terrain=6, width=300.0, depth=300.0)
    m = maps.sight_map(table, model="m0", rules="darkage", pitch=50.0)
    fast, slow = maps.raster(m, 25.0), maps.raster_from_faces(m, 25.0)
    assert np.array_equal(fast.seen, slow.seen) and fast.seen.shape == (12, 12)


@pytest.mark.parametrize(
    ("rules", "seed"), [("frostgrave", s) for s in range(8)] + [("mordheim", 40)]
)
def test_faces_at_once_equal_the_faces_cut_one_shooter_after_another(rules: str, seed: int) -> None:
    """:func:`maps.arrange` (one noded linework, polygonized) finds the faces that
    :func:`maps.arrange_overlay` cuts shooter by shooter: same labels, same shapes up to
    its 1e-9 mm grid."""
    table = random_table(seed, models=6, terrain=10, width=400.0, depth=400.0)
    m = maps.sight_map(table, model="m0", rules=rules)
    domain = shapely.box(0.0, 0.0, 400.0, 400.0)
    slow = {f.seen_by: f.shape for f in maps.arrange_overlay(domain, m.regions, m.per_point)}
    fast = {f.seen_by: f.shape for f in m.faces}
    assert set(fast) == set(slow) and len(fast) == len(m.faces) > 3
    for label, shape in fast.items():
        assert shapely.symmetric_difference(shape, slow[label]).area < 1e-4, label
    assert sum(f.shape.area for f in m.faces) == pytest.approx(400.0 * 400.0 - m.per_point.area)


def test_mordheim_raster_at_the_cells_pitch_reads_the_cells() -> None:
    """A raster of the map's own cell size reads the cells (ruled at the same centres):
    the same as ruling M8 again at each centre."""
    table = random_table(202, models=5, terrain=7, width=400.0, depth=400.0)
    m = maps.sight_map(table, model="m0", rules="mordheim", pitch=5.0)
    assert not m.per_point.is_empty
    again = dataclasses.replace(
        m, regions=tuple(dataclasses.replace(r, pitch=None) for r in m.regions)
    )
    fast, slow = maps.raster(m, 5.0), maps.raster(again, 5.0)
    gx, gy = np.meshgrid(fast.xs, fast.ys)
    pts = shapely.points(gx, gy)
    inside = shapely.intersects(m.per_point, pts)
    keep = shapely.distance(_boundaries(m), pts) >= EDGE
    assert (inside & keep).sum() > 50
    for a, b in ((fast.seen, slow.seen), (fast.least_cover, slow.least_cover)):
        assert np.array_equal(a[keep], b[keep])
    assert (fast.least_cover[inside] == 1).any() and (fast.least_cover[inside] == 0).any()


def test_mordheim_cells_have_faces_and_the_map_covers_the_table() -> None:
    """The cells ruled one by one get faces of their own (not exact): with the exact
    faces they cover the table once, and each agrees with the raster at its centres."""
    table = random_table(204, models=5, terrain=7, width=400.0, depth=400.0)
    m = maps.sight_map(table, model="m0", rules="mordheim", pitch=5.0)
    assert m.cells and all(not f.exact for f in m.cells) and all(f.exact for f in m.faces)
    shapes = [f.shape for f in (*m.faces, *m.cells)]
    assert sum(g.area for g in shapes) == pytest.approx(400.0 * 400.0)
    assert shapely.union_all(shapes).area == pytest.approx(400.0 * 400.0)
    r = maps.raster(m, 5.0)
    gx, gy = np.meshgrid(r.xs, r.ys)
    pts = shapely.points(gx, gy)
    far = shapely.distance(_boundaries(m), pts) >= EDGE
    checked = 0
    for face in m.cells:
        hit = shapely.contains(face.shape, pts) & far
        assert (r.seen[hit] == len(face.seen_by)).all()
        checked += int(hit.sum())
    assert checked > 50


@pytest.mark.parametrize("rules", ["frostgrave", "mordheim"])
def test_a_map_without_faces_gives_the_same_raster(rules: str) -> None:
    """``faces=False`` skips the overlay (the page's grid needs only the regions)."""
    table = random_table(9, models=5, terrain=8, width=300.0, depth=300.0)
    full = maps.sight_map(table, model="m0", rules=rules)
    bare = maps.sight_map(table, model="m0", rules=rules, faces=False)
    assert full.faces and not bare.faces and not bare.cells
    a, b = maps.raster(full, 5.0), maps.raster(bare, 5.0)
    assert np.array_equal(a.seen, b.seen) and np.array_equal(a.least_cover, b.least_cover)
    assert (a.seen > 0).any()
