"""Where a model can go (``--reach``): shortest paths in the free space, and the best spot.

The model's centre moves in the table less the blocking terrain and every other base,
each grown by the model's base radius (a centre nearer than that would put the base
over it). Shortest paths run on the visibility graph of the grown obstacles' corners
(networkx, Dijkstra): a shortest path bends only there. The reachable region is the
union, over every corner reached with some length left, of the disc of that length
around it seen from it (no obstacle between). Arcs are polylines within
:data:`~arbitre.maps.shadows.ARC_TOLERANCE` mm, drawn inside the true arcs: a path may
cut a rounded corner by at most that much.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import shapely
import shapely.ops
from shapely.geometry.base import BaseGeometry

from arbitre.errors import RulesError
from arbitre.geometry import Point
from arbitre.i18n import T_, Num
from arbitre.maps.pieces import box, box_shape, quad_segs
from arbitre.maps.shadows import polygon_parts, shadows
from arbitre.table import Table

#: How far inside the obstacles (mm) the sight tests of the graph look, so that a line
#: along an obstacle's edge or through its corner is free.
INSET = 1e-6


@dataclass(frozen=True, slots=True)
class Reach:
    """The places ``model`` reaches with ``length`` mm of movement (``region``), and the
    best spot found there: its point, its path from the model (corners in order) and
    length, and the face it lies in (its index in the map's faces)."""

    model: str
    length: float
    region: BaseGeometry
    best: Point | None = None
    path: tuple[Point, ...] = ()
    distance: float | None = None
    face: int | None = None


def obstacles(table: Table, model: str, radius: float) -> BaseGeometry:
    """What the centre of ``model`` (a base of ``radius``) cannot enter: blocking terrain
    and the other bases, grown by ``radius``."""
    shapes = []
    grow = max(radius, 0.0)
    for t in table.terrain:
        if t.blocks:
            shape = t.footprint.shape()
            shapes.append(shape.buffer(grow, quad_segs=quad_segs(grow)) if grow > 0 else shape)
    for m in table.models:
        if m.id != model:
            r = m.base.radius + grow
            if r > 0:
                shapes.append(shapely.Point(m.at.x, m.at.y).buffer(r, quad_segs=quad_segs(r)))
    return shapely.union_all(shapes) if shapes else shapely.Polygon()


def _corners(blocked: BaseGeometry, start: Point, length: float) -> np.ndarray:
    """The convex corners of the obstacles (where a shortest path may bend) within
    ``length`` of the start."""
    polys = [g for g in getattr(blocked, "geoms", [blocked]) if not g.is_empty]
    found = []
    for poly in polys:
        rings = [(poly.exterior, True), *((r, False) for r in poly.interiors)]
        for ring, outer in rings:
            xy = np.asarray(ring.coords)[:-1]
            if len(xy) < 3:
                continue
            prev, nxt = np.roll(xy, 1, axis=0), np.roll(xy, -1, axis=0)
            ax, ay = xy[:, 0] - prev[:, 0], xy[:, 1] - prev[:, 1]
            bx, by = nxt[:, 0] - xy[:, 0], nxt[:, 1] - xy[:, 1]
            cross = ax * by - ay * bx
            # a corner that juts out of the obstacle into the free space: a left turn
            # along a counter-clockwise outer ring, a right turn along a hole's
            turn_left = cross > 0 if ring.is_ccw else cross < 0
            keep = turn_left if outer else ~turn_left
            found.append(xy[keep])
    if not found:
        return np.zeros((0, 2))
    xy = np.vstack(found)
    near = np.hypot(xy[:, 0] - start.x, xy[:, 1] - start.y) <= length
    return xy[near]


@dataclass(frozen=True, slots=True, eq=False)
class _Search:
    """The graph search of one reach: the nodes (the start first), their path lengths
    and paths, and each node's disc of the length left as seen from it."""

    nodes: np.ndarray
    dist: dict[int, float]
    paths: dict[int, list[int]]
    views: list[tuple[int, BaseGeometry]]
    region: BaseGeometry


def _search(table: Table, model: str, radius: float, length: float) -> _Search | None:
    if not (math.isfinite(length) and length >= 0):
        raise RulesError(
            T_("map: reach {length} mm: must be a length of at least 0", length=Num(length, "g"))
        )
    start = table.model(model).at
    blocked = obstacles(table, model, radius)
    domain = box_shape(table)
    here = shapely.Point(start.x, start.y)
    if blocked.contains(here) or not domain.contains(here):
        return None
    inner = blocked.buffer(-INSET) if not blocked.is_empty else blocked
    shapely.prepare(inner)
    corners = _corners(blocked, start, length)
    nodes = np.vstack([[start.x, start.y], corners])
    graph = _graph(nodes, inner, length)
    found = nx.single_source_dijkstra(graph, 0, cutoff=length, weight="weight")
    dist: dict[int, float] = found[0]  # type: ignore[assignment]
    paths: dict[int, list[int]] = found[1]  # type: ignore[assignment]
    views = _views(table, nodes, dist, inner, blocked, length)
    region = shapely.intersection(shapely.union_all([v for _, v in views]), domain)
    return _Search(nodes, dist, paths, views, region)


def reach(table: Table, model: str, radius: float, length: float) -> Reach:
    """The places ``model`` reaches with ``length`` mm of movement going around blocking
    terrain and other bases (shortest paths in the free space)."""
    found = _search(table, model, radius, length)
    return Reach(model, length, shapely.Polygon() if found is None else found.region)


def _graph(nodes: np.ndarray, inner: BaseGeometry, length: float) -> nx.Graph[int]:
    """The visibility graph: nodes joined where the segment between them stays free."""
    n = len(nodes)
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(n))
    if n < 2:
        return graph
    i, j = np.triu_indices(n, 1)
    d = np.hypot(nodes[i, 0] - nodes[j, 0], nodes[i, 1] - nodes[j, 1])
    short = d <= length
    i, j, d = i[short], j[short], d[short]
    segs = shapely.linestrings(np.stack([nodes[i], nodes[j]], axis=1))
    free = ~shapely.intersects(inner, segs) if not inner.is_empty else np.ones(len(i), bool)
    graph.add_weighted_edges_from(
        zip(i[free].tolist(), j[free].tolist(), d[free].tolist(), strict=True)
    )
    return graph


def _views(
    table: Table,
    nodes: np.ndarray,
    dist: dict[int, float],
    inner: BaseGeometry,
    blocked: BaseGeometry,
    length: float,
) -> list[tuple[int, BaseGeometry]]:
    """For each node reached with length left: the disc of that length around it, less
    the obstacles and what they hide from it."""
    parts = polygon_parts(inner, 0.0, 0) if not inner.is_empty else None
    out = []
    for k, dk in dist.items():
        left = length - dk
        if left <= 0:
            continue
        x, y = float(nodes[k, 0]), float(nodes[k, 1])
        disc = shapely.Point(x, y).buffer(left, quad_segs=quad_segs(left))
        if parts is not None and parts.count:
            polys, inside = shadows((x, y), parts, box(table))
            hidden = shapely.union_all(polys[~inside]) if (~inside).any() else shapely.Polygon()
            disc = shapely.difference(disc, shapely.union(hidden, blocked))
        out.append((k, disc))
    return out


def best_spot(
    table: Table,
    model: str,
    radius: float,
    length: float,
    faces: Sequence[tuple[BaseGeometry, tuple[int, int]]],
) -> Reach:
    """The reach of ``model`` and its best spot among ``faces`` (each a shape and its
    key, smaller better: enemies that see it, then less cover): the reachable point of
    the best key nearest by path."""
    found = _search(table, model, radius, length)
    if found is None or found.region.is_empty:
        return Reach(model, length, shapely.Polygon())
    shapes = np.array([f for f, _ in faces], dtype=object)
    hit: list[int] = (
        np.flatnonzero(shapely.intersects(shapes, found.region)).tolist() if len(shapes) else []
    )
    for key in sorted({faces[f][1] for f in hit}):
        best: tuple[float, int, Point, int] | None = None
        for f in (f for f in hit if faces[f][1] == key):
            for k, view in found.views:
                part = shapely.intersection(faces[f][0], view)
                if part.is_empty or part.area <= 0:
                    continue
                here = shapely.Point(found.nodes[k])
                q = here if part.contains(here) else shapely.ops.nearest_points(part, here)[0]
                total = found.dist[k] + here.distance(q)
                if best is None or total < best[0] - 1e-9:
                    best = (total, k, Point(float(q.x), float(q.y)), int(f))
        if best is not None:
            total, k, q, f = best
            path = tuple(Point(float(x), float(y)) for x, y in found.nodes[found.paths[k]])
            return Reach(model, length, found.region, q, (*path, q), total, f)
    return Reach(model, length, found.region)
