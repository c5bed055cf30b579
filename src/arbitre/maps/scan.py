"""Which centres of a grid a shape holds: a scanline count of its edges, all at once.

:func:`inside_grid` answers ``shapely.contains_xy`` for every centre of a regular grid
without asking point by point: each edge of the shape's rings that crosses the horizontal
line of a row toggles every centre of that row to the right of the crossing (the
even-odd rule, exact for valid polygons with holes and for multipolygons). The work is
the number of (edge, row) crossings plus the cells, in numpy; a centre on an edge, or
within rounding of one (1e-9 mm), may fall either side. :func:`label_grid` does the
same for disjoint classes at once, by winding numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry


def edges(shape: BaseGeometry) -> np.ndarray:
    """Every edge of the rings of a shape's polygons, as rows ``x0, y0, x1, y1``."""
    return _edges(shape)[0]


def _edges(shape: BaseGeometry) -> tuple[np.ndarray, np.ndarray]:
    """The edges of a shape's rings and, for each, +1 or -1: whether its ring turns the
    way of a shell (counter-clockwise) when a shell, of a hole (clockwise) when a hole.
    Read as flat arrays (``to_ragged_array``), not one object a ring."""
    if shape.geom_type not in ("Polygon", "MultiPolygon"):
        parts = shapely.get_parts(shape)
        while len(parts) and (shapely.get_type_id(parts) >= 4).any():  # nested collections
            parts = shapely.get_parts(parts)
        polys = [p for p in parts if p.geom_type == "Polygon" and not p.is_empty]
        shape = shapely.MultiPolygon(polys)
    if shape.is_empty:
        return np.zeros((0, 4)), np.zeros(0)
    _, xy, offsets = shapely.to_ragged_array(np.array([shape], dtype=object))
    rings, starts = np.asarray(offsets[0]), np.asarray(offsets[1])
    n = len(rings) - 1
    ring = np.repeat(np.arange(n), np.diff(rings))
    same = ring[1:] == ring[:-1]
    e = np.column_stack([xy[:-1][same], xy[1:][same]])
    owner = ring[:-1][same]
    cross = e[:, 0] * e[:, 3] - e[:, 2] * e[:, 1]
    ccw = np.bincount(owner, weights=cross, minlength=n) > 0
    shell = np.zeros(n, dtype=bool)
    shell[starts[:-1]] = True
    return e, np.where(ccw == shell, 1.0, -1.0)[owner]


def inside_grid(shape: BaseGeometry, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Whether ``shape`` holds each centre ``(xs[i], ys[j])`` (sorted ascending): a
    boolean array of ``len(ys)`` rows and ``len(xs)`` columns."""
    rows, cols = len(ys), len(xs)
    found = _crossings(edges(shape), xs, ys)
    if found is None:
        return np.zeros((rows, cols), dtype=bool)
    at, _ = found
    flips = np.bincount(at, minlength=rows * (cols + 1)).reshape(rows, cols + 1)[:, :cols]
    return (np.cumsum(flips, axis=1) & 1).astype(bool)


def label_grid(
    classes: Sequence[tuple[int, BaseGeometry]], xs: np.ndarray, ys: np.ndarray
) -> np.ndarray:
    """The value of the class holding each centre, -1 where none does: the classes are
    disjoint shapes, each ``(value >= 0, shape)``. One pass for them all: the rings
    oriented (shells counter-clockwise, holes clockwise), each crossing adds ``value +
    1`` times its edge's direction (down +1, up -1) to the centres on its right, so that
    the running sum along a row is the winding number times the value plus one (rings
    turning the other way count with the opposite sign, as if oriented)."""
    rows, cols = len(ys), len(xs)
    at_all, w_all = [], []
    for value, shape in classes:
        e, turn = _edges(shape)
        found = _crossings(e, xs, ys, turn)
        if found is not None:
            at, down = found
            at_all.append(at)
            w_all.append(down * (value + 1.0))
    if not at_all:
        return np.full((rows, cols), -1, dtype=np.int64)
    weights = np.bincount(
        np.concatenate(at_all), weights=np.concatenate(w_all), minlength=rows * (cols + 1)
    )
    flips = np.rint(weights).astype(np.int64).reshape(rows, cols + 1)[:, :cols]
    return np.cumsum(flips, axis=1) - 1


def _crossings(
    e: np.ndarray, xs: np.ndarray, ys: np.ndarray, turn: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """Where edges ``e`` cross the rows of the grid: for each crossing, the flat index
    (row times ``len(xs) + 1`` plus the first column strictly right of it) and its
    direction, +1 down and -1 up, times the edge's ``turn`` (see :func:`_edges`)."""
    rows, cols = len(ys), len(xs)
    if not len(e) or not rows or not cols:
        return None
    x0, y0, x1, y1 = e[:, 0], e[:, 1], e[:, 2], e[:, 3]
    lo, hi = np.minimum(y0, y1), np.maximum(y0, y1)
    # the rows an edge crosses: lo <= y < hi (half-open, so a vertex counts once)
    j0 = np.searchsorted(ys, lo, side="left")
    j1 = np.searchsorted(ys, hi, side="left")
    n = j1 - j0
    keep = n > 0
    if not keep.any():
        return None
    sign = np.ones(len(e)) if turn is None else turn
    x0, y0, x1, y1, j0, n = x0[keep], y0[keep], x1[keep], y1[keep], j0[keep], n[keep]
    sign = sign[keep]
    k = np.repeat(np.arange(len(n)), n)
    start = np.repeat(np.cumsum(n) - n, n)
    j = j0[k] + (np.arange(int(n.sum())) - start)
    t = (ys[j] - y0[k]) / (y1[k] - y0[k])
    xi = x0[k] + t * (x1[k] - x0[k])
    # a crossing counts for the centres strictly to its right
    c = np.searchsorted(xs, xi, side="right")
    return j * (cols + 1) + c, np.where(y1[k] < y0[k], 1.0, -1.0) * sign[k]
