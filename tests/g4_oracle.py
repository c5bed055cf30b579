"""G4 for the sight oracles: the bridges between touching blockers, computed by plain
shapely on the table's own shapes (independently of :mod:`arbitre.sight`), and the
brute-force test of a line passing between two of them.

RULES.md G4: blockers whose gap is at most the contact tolerance form one obstacle: no
sight line passes between them, whatever the beam. Two convex blockers are joined by the
segment between their nearest points; a non-convex one by one such segment per place
where it comes within the tolerance of the other.
"""

from __future__ import annotations

import math
from functools import lru_cache

import shapely
import shapely.ops
from shapely.geometry.base import BaseGeometry

from arbitre.geometry import CircleFootprint
from arbitre.table import Table

BAND = 1e-6


def _pieces(table: Table) -> list[tuple[str, BaseGeometry, tuple[float, float, float] | None]]:
    out: list[tuple[str, BaseGeometry, tuple[float, float, float] | None]] = []
    for t in table.terrain:
        fp = t.footprint
        circle = (fp.centre.x, fp.centre.y, fp.radius) if isinstance(fp, CircleFootprint) else None
        shape = fp.shape()
        out.append((t.id, shape if shape.is_valid else shapely.make_valid(shape), circle))
    for m in table.models:
        disc = shapely.Point(m.at.x, m.at.y).buffer(max(m.base.radius, 1e-9), 256)
        out.append((m.id, disc, (m.at.x, m.at.y, m.base.radius)))
    return out


def _disc_to(shape: BaseGeometry, c: tuple[float, float, float], tol: float) -> list[BaseGeometry]:
    cx, cy, r = c
    centre = shapely.Point(cx, cy)
    if shape.distance(centre) < r - BAND or shape.covers(centre):
        return []
    near = shape.boundary.intersection(centre.buffer(r + tol + 1e-9, 256))
    out = []
    for part in getattr(near, "geoms", [near]):
        if part.is_empty:
            continue
        p = shapely.ops.nearest_points(part, centre)[0]
        d = p.distance(centre)
        if d == 0.0 or d - r > tol + 1e-9:
            continue
        q = (cx + (p.x - cx) * r / d, cy + (p.y - cy) * r / d)
        out.append(shapely.LineString([(p.x, p.y), q]) if d > r else shapely.Point(p.x, p.y))
    return out


def bf_bridges(
    table: Table, *, every: bool = False, skip: frozenset[str] = frozenset()
) -> list[tuple[str, str, BaseGeometry]]:
    """Every bridge between two blockers, neither in ``skip``. Blockers: the models' bases
    and the terrain that blocks (F2), or with ``every`` every piece (S3 without ranks)."""
    return [b for b in _all_bridges(table, every) if b[0] not in skip and b[1] not in skip]


@lru_cache(maxsize=64)
def _all_bridges(table: Table, every: bool) -> tuple[tuple[str, str, BaseGeometry], ...]:
    tol = table.contact_tolerance
    models = {m.id for m in table.models}
    pieces = [p for p in _pieces(table) if every or p[0] in models or table.piece(p[0]).blocks]
    tree = shapely.STRtree([p[1] for p in pieces])
    out = []
    near = tree.query([p[1] for p in pieces], predicate="dwithin", distance=tol + 1e-3)
    for i, j in zip(*near.tolist(), strict=True):
        if i >= j:
            continue
        (ia, a, ca), (ib, b, cb) = pieces[i], pieces[j]
        if ca is not None and cb is not None:
            d = math.hypot(cb[0] - ca[0], cb[1] - ca[1])
            gap = d - ca[2] - cb[2]
            if gap > tol + 1e-9 or gap < -BAND or d == 0:
                continue
            ux, uy = (cb[0] - ca[0]) / d, (cb[1] - ca[1]) / d
            p = (ca[0] + ca[2] * ux, ca[1] + ca[2] * uy)
            q = (cb[0] - cb[2] * ux, cb[1] - cb[2] * uy)
            geom = shapely.LineString([p, q]) if gap > 0 else shapely.Point(*p)
            out.append((ia, ib, geom))
        elif cb is not None:
            out.extend((ia, ib, g) for g in _disc_to(a, cb, tol))
        elif ca is not None:
            out.extend((ia, ib, g) for g in _disc_to(b, ca, tol))
        else:
            if a.intersection(b).area > 0:
                continue
            inside = a.boundary.intersection(b.buffer(tol + 1e-9, 64))
            for part in getattr(inside, "geoms", [inside]):
                if part.is_empty:
                    continue
                pp, qq = shapely.ops.nearest_points(part, b)
                if pp.distance(qq) <= tol + 1e-9:
                    out.append((ia, ib, shapely.LineString([pp, qq]) if pp != qq else pp))
    return tuple(out)


def bf_between(line: BaseGeometry, bridge: BaseGeometry, half: float) -> bool | None:
    """Whether ``line`` passes between the two ends of ``bridge`` (G4): True, False, or
    None inside the ambiguous band."""
    d = line.distance(bridge)
    if d < half - BAND or d <= 1e-9:
        return True
    if d > half + BAND and d > BAND:
        return False
    return None
