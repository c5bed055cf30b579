"""The fast overlay of a map's faces (:func:`maps.arrange`: Mordheim's cells arranged
part by part, the cells of a label merged in one call) against the way it was done
before (:func:`_arrange_whole`, kept here as the oracle), and the faces' SVG paths
written at once against the path written shape by shape (:func:`_path`), on seeded
random tables (issue 14)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
import shapely
from shapely.geometry.base import BaseGeometry

from arbitre import maps
from arbitre.faces.svg.draw import f as _f
from arbitre.faces.svg.maps import _paths
from arbitre.maps import GRID, SLIVER, Face, polygonal, regions
from arbitre.maps.pieces import box_shape
from arbitre.maps.regions import EMPTY, ShooterRegions
from arbitre.testing import random_table


def _arrange_whole(
    domain: BaseGeometry,
    regs: Sequence[ShooterRegions],
    per_point: BaseGeometry,
    *,
    stepped: bool = False,
) -> list[Face]:
    """:func:`maps.arrange` as it was: the whole linework noded and polygonized at once,
    each label's cells merged one label after another."""
    classes = [reg.labelled if stepped else reg.classes for reg in regs]
    lines = [shapely.boundary(domain)]
    lines += [shapely.boundary(polygonal(g)) for these in classes for _, g in these]
    if not per_point.is_empty:
        lines.append(shapely.boundary(polygonal(per_point)))
    noded = shapely.union_all(shapely.get_parts(np.array(lines, dtype=object)), grid_size=GRID)
    cells = shapely.get_parts(shapely.polygonize(shapely.get_parts(noded)))
    cells = cells[shapely.area(cells) > SLIVER]
    rep = shapely.point_on_surface(cells)
    rx, ry = shapely.get_x(rep), shapely.get_y(rep)
    keep = shapely.contains_xy(domain, rx, ry)
    if not per_point.is_empty:
        keep &= ~shapely.contains_xy(per_point, rx, ry)
    cells, rx, ry = cells[keep], rx[keep], ry[keep]
    cover = np.full((len(regs), len(cells)), -1, dtype=np.int64)
    for i, these in enumerate(classes):
        for value, region in these:
            shapely.prepare(region)
            cover[i, shapely.contains_xy(region, rx, ry)] = value
    by: dict[tuple[int, ...], list[int]] = {}
    for k, col in enumerate(map(tuple, cover.T.tolist())):
        by.setdefault(col, []).append(k)
    faces = []
    for col, idx in by.items():
        label = tuple((reg.shooter, v) for reg, v in zip(regs, col, strict=True) if v >= 0)
        shape = shapely.coverage_union_all(cells[idx]) if len(idx) > 1 else cells[idx[0]]
        if shapely.area(shape) > SLIVER:
            faces.append(Face(polygonal(shape), label))
    return faces


def _path(shape: BaseGeometry) -> str:
    """The SVG path of a shape as it was written, point by point with ``draw.f``."""
    out = []
    for poly in getattr(shape, "geoms", [shape]):
        if getattr(poly, "geom_type", "") != "Polygon" or poly.is_empty:
            continue
        for ring in (poly.exterior, *poly.interiors):
            pts = [f"{_f(x)},{_f(-y)}" for x, y in ring.coords[:-1]]
            if len(pts) >= 3:
                out.append("M" + "L".join(pts) + "Z")
    return "".join(out)


def _same_faces(fast: Sequence[Face], slow: Sequence[Face]) -> None:
    """The same labels, one face each, of the same area (1e-6 relative) and shape."""
    a = {f.seen_by: f.shape for f in fast}
    b = {f.seen_by: f.shape for f in slow}
    assert len(a) == len(fast) and len(b) == len(slow)
    assert set(a) == set(b)
    for label, shape in a.items():
        assert shape.area == pytest.approx(b[label].area, rel=1e-6, abs=1e-9), label
        assert shapely.symmetric_difference(shape, b[label]).area < 1e-6, label


@pytest.mark.parametrize(
    ("rules", "seed"),
    [("frostgrave", s) for s in (0, 3, 7)] + [("mordheim", s) for s in (40, 202, 204, 5)],
)
def test_faces_and_cells_are_those_of_the_whole_overlay(rules: str, seed: int) -> None:
    """A map's faces, and Mordheim's cells (arranged part by part), are those the whole
    linework gives at once."""
    table = random_table(seed, models=6, terrain=9, width=400.0, depth=400.0)
    m = maps.sight_map(table, model="m0", rules=rules, faces=True)
    assert len(m.faces) > 3
    assert m.per_point.is_empty or rules == "mordheim"
    if seed in (40, 204):
        assert not m.per_point.is_empty
    _same_faces(m.faces, _arrange_whole(box_shape(m.table), m.regions, m.per_point))
    if not m.per_point.is_empty:
        assert len(shapely.get_parts(m.per_point)) > 1 and m.cells
        old = _arrange_whole(m.per_point, m.regions, EMPTY, stepped=True)
        _same_faces(m.cells, old)
        assert all(not f.exact for f in m.cells)


def test_the_faces_outside_the_cells_keep_their_order() -> None:
    """Over a domain of one part the linework is the same: the faces come in the same
    order, with the very same shapes."""
    table = random_table(40, models=6, terrain=9, width=400.0, depth=400.0)
    m = maps.sight_map(table, model="m0", rules="mordheim", faces=False)
    domain = box_shape(m.table)
    fast = maps.arrange(domain, m.regions, m.per_point)
    slow = _arrange_whole(domain, m.regions, m.per_point)
    assert [f.seen_by for f in fast] == [f.seen_by for f in slow]
    assert all(shapely.equals_exact(a.shape, b.shape, 0.0) for a, b in zip(fast, slow, strict=True))


def test_a_domain_of_parts_is_arranged_part_by_part() -> None:
    """Classes over a domain of several parts, some touching at a corner, one far from
    any line: the same faces as the whole overlay."""
    a = shapely.box(0.0, 0.0, 10.0, 10.0)
    b = shapely.box(0.0, 0.0, 30.0, 30.0).difference(shapely.box(0.5, 0.5, 29.5, 29.5))
    reg = ShooterRegions("x", ((0, a), (1, b)), shapely.union(a, b))
    disc = shapely.Point(5.0, 5.0).buffer(4.0)
    reg2 = ShooterRegions("y", ((2, disc),), disc)
    domain = shapely.MultiPolygon(
        [
            shapely.box(2.0, 2.0, 8.0, 8.0),
            shapely.box(8.0, 8.0, 12.0, 12.0),
            shapely.box(50.0, 50.0, 60.0, 60.0),
            shapely.box(20.0, -5.0, 40.0, 5.0),
        ]
    )
    fast = maps.arrange(domain, [reg, reg2], EMPTY)
    _same_faces(fast, _arrange_whole(domain, [reg, reg2], EMPTY))
    assert {f.seen_by for f in fast} >= {(("x", 0), ("y", 2)), (), (("x", 1),)}
    assert sum(f.shape.area for f in fast) == pytest.approx(domain.area)


def test_no_classes_give_one_unseen_face() -> None:
    domain = shapely.MultiPolygon([shapely.box(0, 0, 1, 1), shapely.box(2, 2, 3, 3)])
    faces = maps.arrange(domain, [], EMPTY)
    assert [f.seen_by for f in faces] == [()] and faces[0].shape.area == pytest.approx(2.0)
    assert maps.arrange(shapely.box(0, 0, 1, 1), [], regions.EMPTY)[0].seen_by == ()


def _odd_shapes(seed: int) -> list[BaseGeometry]:
    """Shapes of every kind a map may draw, with numbers that round every way."""
    rng = np.random.default_rng(seed)
    out: list[BaseGeometry] = []
    for _ in range(60):
        scale = rng.choice([1.0, 0.01, 0.001, 100.0])
        pts = np.round(rng.uniform(-2, 2, (7, 2)), int(rng.integers(0, 4))) * scale
        out.append(shapely.convex_hull(shapely.multipoints(pts)))
    out += [
        shapely.Point(0, 0),
        shapely.LineString([(0, 0), (1, 1)]),
        shapely.Polygon(),
        shapely.MultiPolygon(),
        shapely.GeometryCollection([shapely.box(0, 0, 1, 1), shapely.Point(3, 3)]),
        shapely.box(-0.004, -0.004, 0.004, 0.004),
        shapely.box(-0.005, -0.005, 0.005, 0.005),
        shapely.box(0, 0, 10, 10).difference(shapely.box(2, 2, 3, 3)),
        shapely.MultiPolygon([shapely.box(0, 0, 1, 1), shapely.box(-10.5, -0.25, -9.995, 100)]),
    ]
    return out


@pytest.mark.parametrize("seed", range(3))
def test_paths_written_at_once_are_those_written_point_by_point(seed: int) -> None:
    shapes = _odd_shapes(seed)
    assert _paths(shapes) == [_path(s) for s in shapes]
    assert _paths([]) == []
    assert _paths([shapely.Point(1, 1)]) == [""]


def test_a_maps_paths_are_those_written_point_by_point() -> None:
    table = random_table(204, models=5, terrain=7, width=400.0, depth=400.0)
    m = maps.sight_map(table, model="m0", rules="mordheim", pitch=5.0)
    shapes = [f.shape for f in (*m.faces, *m.cells)] + [m.per_point]
    assert _paths(shapes) == [_path(s) for s in shapes]


def test_the_unions_at_once_are_shapely_s_one_by_one() -> None:
    """``maps._coverage_union`` (shapely's ufunc on every collection at once) merges
    each collection into the shape ``shapely.coverage_union_all`` gives it alone."""
    rng = np.random.default_rng(0)
    xs = np.cumsum(rng.uniform(0.5, 2.0, 13))  # neighbours share whole edges: a coverage
    boxes = shapely.box(xs[:-1], 0.0, xs[1:], 1.0)
    group = np.array([0, 0, 1, 1, 1, 2, 3, 3, 3, 3, 4, 4])
    bags = shapely.geometrycollections(boxes, indices=group)
    found = maps._coverage_union(bags)
    assert len(found) == 5
    for k, got in enumerate(found):
        want = shapely.coverage_union_all(boxes[group == k])
        assert shapely.equals_exact(got, want, tolerance=0.0)
