"""Merging the segments of a scene into wall pieces (G3): connected segments of the same
kind merge into polylines (shapely's ``line_merge``: through every point where exactly two
meet), collinear vertices are dropped, and portals become windows or gaps of the walls
they lie on (F5-F7).

- ``wall`` and ``portal`` segments merge together into blocking polylines, through
  corners (a blocking piece blocks however it is cut, F2); each ``portal`` stretch is a
  window of its polyline, by distance along it.
- ``opening`` segments lying along a merged wall are cut out of it (a gap).
- ``cover`` and ``window`` segments merge only into straight runs: a small piece counts
  once per crossing (F3), so a corner must not make two crossings one piece.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import shapely
import shapely.ops

from arbitre.imports.scene import XY, Segment

PieceKind = Literal["wall", "cover", "window"]

#: Most vertices of one merged polyline (the scenario format allows 10,000).
MAX_POINTS = 5_000


@dataclass(frozen=True, slots=True)
class Piece:
    """A merged wall piece: its polyline, its windows (from, to along it), its kind."""

    kind: PieceKind
    points: tuple[XY, ...]
    windows: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True, slots=True)
class Merged:
    """The pieces made of the segments, and what was merged or left out on the way."""

    pieces: tuple[Piece, ...]
    segments: int
    duplicates: int
    degenerate: int


def merge(segments: Sequence[Segment], *, tolerance: float) -> Merged:
    """The wall pieces of ``segments``: ends closer than ``tolerance`` are one point."""
    snap: dict[tuple[int, int], XY] = {}

    def snapped(p: XY) -> XY:
        return snap.setdefault((round(p[0] / tolerance), round(p[1] / tolerance)), p)

    seen: set[tuple[str, XY, XY]] = set()
    by_kind: dict[str, list[tuple[XY, XY]]] = {k: [] for k in ("wall", "portal", "opening")}
    by_kind.update(cover=[], window=[])
    duplicates = degenerate = 0
    for s in segments:
        a, b = snapped(s.a), snapped(s.b)
        if a == b:
            degenerate += 1
            continue
        key = (s.kind, min(a, b), max(a, b))
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        by_kind[s.kind].append((a, b))
    pieces = _blocking(by_kind["wall"], by_kind["portal"], by_kind["opening"], tolerance)
    kinds: tuple[PieceKind, ...] = ("cover", "window")
    for kind in kinds:
        for run in _straight_runs(by_kind[kind], tolerance):
            length = _length(run)
            windows = ((0.0, length),) if kind == "window" else ()
            pieces.append(Piece(kind, run, windows))
    return Merged(tuple(pieces), len(segments), duplicates, degenerate)


def _blocking(
    walls: list[tuple[XY, XY]],
    portals: list[tuple[XY, XY]],
    openings: list[tuple[XY, XY]],
    tol: float,
) -> list[Piece]:
    """Blocking polylines with their windows (portals) and gaps (openings) made."""
    along: list[tuple[XY, XY]] = []
    filling: list[tuple[XY, XY]] = []
    if portals:
        wall_lines = list(_lines(walls))
        tree = shapely.STRtree(wall_lines)
        for s in portals:  # a portal along a wall that runs through it, or filling a gap
            (along if _lies_on(s, wall_lines, tree, tol) else filling).append(s)
    lines = [_simplified(c, tol) for c in _chains([*walls, *filling])]
    lines = [part for line in lines for part in _chunks(line)]
    for s in openings:
        lines = _cut(lines, s, tol)
    windows: list[list[tuple[float, float]]] = [[] for _ in lines]
    if lines and portals:
        tree = shapely.STRtree([shapely.LineString(c) for c in lines])
        for s in portals:
            for k in tree.query(shapely.LineString(s), predicate="dwithin", distance=tol):
                found = _interval(lines[int(k)], s, tol)
                if found:
                    windows[int(k)] += found
                    break
    return [
        Piece("wall", line, tuple(_union(w, tol))) for line, w in zip(lines, windows, strict=True)
    ]


def _lines(segments: Sequence[tuple[XY, XY]]) -> np.ndarray:
    """Segments as shapely lines, made at once."""
    lines: np.ndarray = shapely.linestrings(np.array(segments, dtype=float).reshape(-1, 2, 2))
    return lines


def _lies_on(
    s: tuple[XY, XY], lines: list[shapely.LineString], tree: shapely.STRtree, tol: float
) -> bool:
    """Whether segment ``s`` lies along one of ``lines`` (both ends and its middle)."""
    (ax, ay), (bx, by) = s
    probe = shapely.points([(ax, ay), (bx, by), ((ax + bx) / 2, (ay + by) / 2)])
    for k in tree.query(shapely.LineString(s), predicate="dwithin", distance=tol):
        if bool(shapely.dwithin(lines[int(k)], probe, tol).all()):
            return True
    return False


def _chains(segments: Iterable[tuple[XY, XY]]) -> list[tuple[XY, ...]]:
    """Connected segments merged into polylines, through points where exactly two meet."""
    parts = list(segments)
    if not parts:
        return []
    merged = shapely.line_merge(shapely.multilinestrings(_lines(parts)))
    return [tuple((float(x), float(y)) for x, y in g.coords) for g in shapely.get_parts(merged)]


def _turns(p: XY, q: XY, r: XY, tol: float) -> bool:
    """Whether the polyline turns at ``q`` (not straight on within ``tol``)."""
    ux, uy, vx, vy = q[0] - p[0], q[1] - p[1], r[0] - q[0], r[1] - q[1]
    cross, dot = ux * vy - uy * vx, ux * vx + uy * vy
    return dot <= 0 or abs(cross) > tol * max(abs(ux) + abs(uy), abs(vx) + abs(vy))


def _simplified(points: tuple[XY, ...], tol: float) -> tuple[XY, ...]:
    """The polyline without its collinear vertices; a closed one starts at a corner."""
    pts = list(points)
    closed = len(pts) > 3 and pts[0] == pts[-1]
    if closed:
        ring = pts[:-1]
        corners = [
            i
            for i in range(len(ring))
            if _turns(ring[i - 1], ring[i], ring[(i + 1) % len(ring)], tol)
        ]
        if corners:
            ring = ring[corners[0] :] + ring[: corners[0]]
        pts = [*ring, ring[0]]
    out = [pts[0]]
    for i in range(1, len(pts) - 1):
        if _turns(out[-1], pts[i], pts[i + 1], tol):
            out.append(pts[i])
    out.append(pts[-1])
    return tuple(out)


def _chunks(points: tuple[XY, ...]) -> list[tuple[XY, ...]]:
    """A polyline cut into polylines of at most :data:`MAX_POINTS` vertices."""
    if len(points) <= MAX_POINTS:
        return [points]
    step = MAX_POINTS - 1
    return [points[i : i + step + 1] for i in range(0, len(points) - 1, step)]


def _straight_runs(segments: list[tuple[XY, XY]], tol: float) -> list[tuple[XY, ...]]:
    """Connected collinear segments merged into straight runs (two points each)."""
    runs: list[tuple[XY, ...]] = []
    for chain in _chains(segments):
        pts = _simplified(chain, tol)
        runs += [(pts[i], pts[i + 1]) for i in range(len(pts) - 1)]
    return runs


def _length(points: tuple[XY, ...]) -> float:
    return float(shapely.LineString(points).length)


def _interval(line: tuple[XY, ...], s: tuple[XY, XY], tol: float) -> list[tuple[float, float]]:
    """Where segment ``s`` lies along ``line``, as intervals of distance along it (two
    when it runs over the start of a closed line); empty when it does not lie on it."""
    shape = shapely.LineString(line)
    ends = shapely.points(list(s))
    middle = shapely.Point((s[0][0] + s[1][0]) / 2, (s[0][1] + s[1][1]) / 2)
    if not (bool(shapely.dwithin(shape, ends, tol).all()) and shape.dwithin(middle, tol)):
        return []
    lo, hi = sorted(float(d) for d in shapely.line_locate_point(shape, ends))
    width = float(shapely.distance(ends[0], ends[1]))
    total = float(shape.length)
    if abs((hi - lo) - width) <= 10 * tol or line[0] != line[-1]:
        return [(lo, hi)] if hi > lo else []
    return [part for part in ((hi, total), (0.0, lo)) if part[1] > part[0]]


def _union(intervals: list[tuple[float, float]], tol: float) -> list[tuple[float, float]]:
    """Intervals merged where they overlap or touch."""
    out: list[tuple[float, float]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1] + tol:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _cut(lines: list[tuple[XY, ...]], s: tuple[XY, XY], tol: float) -> list[tuple[XY, ...]]:
    """``lines`` with the stretch that segment ``s`` lies along cut out (a gap)."""
    for k, line in enumerate(lines):
        found = _interval(line, s, tol)
        if not found:
            continue
        shape = shapely.LineString(line)
        total = float(shape.length)
        if len(found) == 2:  # over the start of a closed line: one polyline remains
            keep = [(found[1][1], found[0][0])]
        elif line[0] == line[-1]:
            lo, hi = found[0]
            rest = shapely.ops.substring(shape, hi, total)
            head = shapely.ops.substring(shape, 0.0, lo)
            joined = [*_coords(rest), *_coords(head)[1:]]
            return [*lines[:k], tuple(joined), *lines[k + 1 :]]
        else:
            lo, hi = found[0]
            keep = [(0.0, lo), (hi, total)]
        parts = [_coords(shapely.ops.substring(shape, a, b)) for a, b in keep if b - a > tol]
        return [*lines[:k], *parts, *lines[k + 1 :]]
    return lines


def _coords(g: shapely.Geometry) -> tuple[XY, ...]:
    return tuple((float(x), float(y)) for x, y in shapely.get_coordinates(g))
