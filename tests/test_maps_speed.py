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
from arbitre.maps import pieces, regions, shadows
from arbitre.maps.scan import inside_grid, label_grid
from arbitre.rules.mordheim import sight as mordheim_sight
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


def _merged(reg: regions.ShooterRegions) -> regions.ShooterRegions:
    """The old form of a shooter's regions: the cells' stepped shapes merged into the
    classes of their value (one union a value), no grid kept."""
    by: dict[int, list[shapely.geometry.base.BaseGeometry]] = {}
    for value, shape in reg.labelled:
        by.setdefault(value, []).append(shape)
    classes = tuple((v, shapely.union_all(shapes)) for v, shapes in sorted(by.items()))
    return dataclasses.replace(reg, classes=classes, cells=None)


@pytest.mark.parametrize("seed", [204, 40])
def test_mordheim_cells_kept_apart_give_the_faces_of_the_cells_merged(seed: int) -> None:
    """Mordheim's cells are a grid beside the exact classes (:class:`regions.Cells`): the
    classes stay out of ``per_point``, and the faces and cells found from them are those
    of the old regions, the cells merged into the classes (same labels, same shapes up to
    the overlay's grid); the raster reads the same."""
    table = random_table(seed, models=5, terrain=7, width=400.0, depth=400.0)
    m = maps.sight_map(table, model="m0", rules="mordheim", pitch=5.0)
    assert not m.per_point.is_empty and any(r.cells is not None for r in m.regions)
    for reg in m.regions:
        for _, shape in reg.classes:
            assert shapely.intersection(shape, reg.per_point).area < 1e-6
    old = tuple(_merged(r) for r in m.regions)
    domain = shapely.box(0.0, 0.0, 400.0, 400.0)
    for new, was in (
        (m.faces, maps.arrange(domain, old, m.per_point)),
        (m.cells, maps.arrange(m.per_point, old, regions.EMPTY)),
    ):
        fast = {f.seen_by: f.shape for f in new}
        slow = {f.seen_by: f.shape for f in was}
        assert set(fast) == set(slow) and len(fast) == len(new) > 1
        for label, shape in fast.items():
            assert shapely.symmetric_difference(shape, slow[label]).area < 1e-4, label
    then = dataclasses.replace(m, regions=old)
    for pitch in (5.0, 3.0):
        a, b = maps.raster(m, pitch), maps.raster(then, pitch)
        gx, gy = np.meshgrid(a.xs, a.ys)
        keep = shapely.distance(_boundaries(then), shapely.points(gx, gy)) >= EDGE
        assert np.array_equal(a.seen[keep], b.seen[keep])
        assert np.array_equal(a.least_cover[keep], b.least_cover[keep])


@pytest.mark.parametrize("seed", range(6))
def test_the_shadows_left_out_of_a_union_lie_in_the_others(seed: int) -> None:
    """:func:`shadows.held`: every shadow left out lies in a shadow kept (checked by
    shapely on the shadows cut to the table), and the union of those kept is the union
    of all."""
    table = random_table(seed, models=8, terrain=14, width=400.0, depth=400.0)
    pc = pieces.pieces(table, table.beam / 2.0)
    where = (0.0, 0.0, 400.0, 400.0)
    dropped = 0
    for m in table.models[:4]:
        polys, inside, cones = shadows.shadows_and_cones((m.at.x, m.at.y), pc.parts, where)
        keep = ~inside
        polys = polys[keep]
        held = shadows.held((m.at.x, m.at.y), polys, cones.select(keep))
        cut = shapely.clip_by_rect(polys, *where)
        kept = shapely.union_all(cut[~held])
        for k in np.flatnonzero(held & ~shapely.is_empty(cut)):
            assert shapely.difference(cut[k], kept).area < 1e-6
            assert any(shapely.covers(shapely.buffer(c, 1e-6), cut[k]) for c in cut[~held])
            dropped += 1
        assert shapely.symmetric_difference(kept, shapely.union_all(cut)).area < 1e-6
    assert dropped > 10


def test_the_shares_are_clipped_as_the_ruling_clips_them() -> None:
    """:func:`regions.clip_shares` is ``mordheim.sight._clip`` share by share, on random
    shares, halves of the sixth decimal and their neighbours, and the ends."""
    rng = np.random.default_rng(3)
    base = np.concatenate(
        [
            rng.uniform(0.0, 1.0, 20_000),
            (np.arange(0, 20_001) + 0.5) / 1e6,
            1.0 - (np.arange(0, 2_001) + 0.5) / 1e6,
            [0.0, 1e-9, 2e-9, 1.0 - 1e-9, 1.0 - 2e-9, 1.0, 0.9999995],
        ]
    )
    v = np.concatenate([base, np.nextafter(base, 2.0), np.nextafter(base, -1.0)])
    v = v[(v >= 0.0) & (v <= 1.0)]
    want = np.array([mordheim_sight._clip(float(x)) for x in v])
    assert np.array_equal(regions.clip_shares(v), want)


@pytest.mark.parametrize("seed", [204, 40, 7])
def test_near_is_the_pieces_grown_by_the_base(seed: int) -> None:
    """Mordheim's ``near`` (the union a table found once, :func:`regions._near`) holds
    the old union for each shooter (every hiding piece but the bases of the shooter and
    the subject, grown by ``beam/2``, then by the base) and adds to it only the margin
    :data:`regions.NEAR_MARGIN` around it and the shooter's own disc, both ruled point
    by point (up to the arcs' tolerance)."""
    table = random_table(seed, models=6, terrain=9, width=400.0, depth=400.0)
    s = pieces.subject(table, model="m0")
    pc = regions._mordheim_pieces(s, frozenset())
    half, r = table.beam / 2.0, s.radius
    tol = pieces.ARC_TOLERANCE
    for a in s.shooters:
        i = table.model_index(a)
        mask = regions._mask(pc, s, i, np.ones(len(pc.blocks), dtype=bool))
        shapes = [regions.touch_like(table, k, half, None) for k in range(pc.n_terrain)]
        for k, o in enumerate(table.models):
            g = o.base.radius + half
            if mask[pc.n_terrain + k] and g > 0:
                shapes.append(
                    shapely.Point(o.at.x, o.at.y).buffer(g, quad_segs=pieces.quad_segs(g))
                )
        old = shapely.union_all(shapes).buffer(r, quad_segs=pieces.quad_segs(r))
        new = regions._near(s, pc, mask, frozenset())
        assert shapely.difference(old, new).area < old.boundary.length * tol, a
        me = table.models[i]
        disc = shapely.Point(me.at.x, me.at.y).buffer(me.base.radius + half + r + 1.0)
        band = old.buffer(regions.NEAR_MARGIN + 2 * tol)  # chords of either: within tol
        assert shapely.difference(new, shapely.union(band, disc)).area < 1e-6, a
        assert shapely.difference(new, old).area > 0, a  # the margin is there


@pytest.mark.parametrize("seed", range(4))
def test_a_shadow_is_right_in_the_box_when_its_piece_reaches_far_beyond(seed: int) -> None:
    """A long piece running far out of the box (a wall off the table's edge): its shadow
    within the box is still where a segment from the origin comes within the part's
    radius (its far points lie beyond the part, not only beyond the box)."""
    rng = np.random.default_rng(seed)
    origin = (float(rng.uniform(50, 150)), float(rng.uniform(150, 200)))
    x = float(rng.uniform(80, 120))
    wall = shapely.box(x, -400.0, x + 8.0, 60.0)
    parts = shadows.polygon_parts(wall, 0.5, 0)
    polys, inside = shadows.shadows(origin, parts, (0.0, 0.0, 200.0, 200.0))
    assert not inside.any()
    pts = rng.uniform(0.0, 200.0, (3000, 2))
    segs = shapely.linestrings(np.stack([np.tile(origin, (len(pts), 1)), pts], axis=1))
    truth = shapely.distance(wall, segs) < 0.5
    got = shapely.contains_xy(polys[0], pts[:, 0], pts[:, 1])
    edge = shapely.distance(polys[0].boundary, shapely.points(pts)) < 0.1
    assert truth[~edge].any() and np.array_equal(got[~edge], truth[~edge])
