"""Snap a dropped model to exact contact (G4), so that a hand on a touch screen never
leaves a base 0.05 inch short of the hedge it was meant to touch.

A base dropped within :data:`SNAP_MM` of a piece, a window or another base is moved along
the shortest way to it until the gap is zero: it then touches (G4, gap 0 within the
contact tolerance), and the rulings say so. This is geometry only (shapely nearest
points); whether the snapped base touches is checked with the one G4 contact test,
:func:`arbitre.sight.in_contact`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import shapely
import shapely.ops
from shapely.geometry.base import BaseGeometry

from arbitre import sight
from arbitre.geometry import CircleFootprint, Point, WallFootprint
from arbitre.table import Model, Table

#: A base dropped this close (mm, gap between its rim and the thing) snaps to contact.
SNAP_MM = 4.0


@dataclass(frozen=True, slots=True)
class Snap:
    """Where a dropped base ends: ``at`` (mm), and what it was snapped against (``to``: a
    piece or model id; ``window``: the window's index on a wall, else ``None``); ``gap``
    is the gap (mm) it had when dropped."""

    at: Point
    to: str
    window: int | None
    gap: float

    def to_json(self) -> dict[str, object]:
        return {
            "at": [self.at.x, self.at.y],
            "to": self.to,
            "window": self.window,
            "gap_mm": round(self.gap, 6),
        }


#: What a base can be snapped against: an id, a window index, and either a shapely shape
#: or an exact disc ``(centre, radius)`` (bases and round pieces are measured exactly).
Target = tuple[str, int | None, BaseGeometry | tuple[Point, float]]


def _targets(table: Table, mover: Model) -> list[Target]:
    """Everything a base can be snapped against: windows first (a window beats its
    wall when both are as near), then pieces, then other bases."""
    found: list[Target] = []
    for t in table.terrain:
        fp = t.footprint
        if isinstance(fp, WallFootprint):
            for k, window in enumerate(fp.windows):
                found.append((t.id, k, fp.window_slice(window)))
    for t in table.terrain:
        fp = t.footprint
        found.append(
            (t.id, None, (fp.centre, fp.radius) if isinstance(fp, CircleFootprint) else fp.shape())
        )
    found += [(m.id, None, (m.at, m.base.radius)) for m in table.models if m.id != mover.id]
    return found


def _distance(shape: BaseGeometry | tuple[Point, float], at: Point) -> float:
    if isinstance(shape, tuple):
        centre, radius = shape
        return float(max(at.distance(centre) - radius, 0.0))
    return float(shape.distance(shapely.Point(at.x, at.y)))


def _pushed(at: Point, r: float, shape: BaseGeometry | tuple[Point, float]) -> Point | None:
    """``at`` moved along the shortest way to ``shape`` until a base of radius ``r``
    touches it (gap 0), or ``None`` when the centre is inside the shape."""
    if isinstance(shape, tuple):
        centre, radius = shape
        d = at.distance(centre)
        if d <= radius:
            return None
        reach = radius + r
        return Point(
            centre.x + (at.x - centre.x) / d * reach, centre.y + (at.y - centre.y) / d * reach
        )
    point = shapely.Point(at.x, at.y)
    if shape.covers(point):
        return None
    near = shapely.ops.nearest_points(shape, point)[0]
    dx, dy = at.x - near.x, at.y - near.y
    d = math.hypot(dx, dy)
    if d <= 0:
        return None
    return Point(near.x + dx / d * r, near.y + dy / d * r)


def snap(table: Table, ident: str, at: Point, *, within: float = SNAP_MM) -> Snap | None:
    """G4: where model ``ident`` dropped at ``at`` (mm) ends when something lies within
    ``within`` mm of its rim: in exact contact with the nearest (a window before its
    wall); ``None`` when nothing is that near, or when no contact point is free (the
    snapped base would then overlap something else by more than the tolerance)."""
    mover = table.model(ident)
    r = mover.base.radius
    tol = table.contact_tolerance
    best: tuple[tuple[float, int, int], Snap] | None = None
    for order, (to, window, shape) in enumerate(_targets(table, mover)):
        gap = _distance(shape, at) - r
        if gap > within or gap < -r:
            continue
        pushed = _pushed(at, r, shape)
        if pushed is None:
            continue
        moved = table.moved(ident, pushed)
        if not _free(moved, mover.id, to, tol):
            continue
        # the nearest to a micrometre, a window before the wall it is in
        rank = (round(abs(gap), 3), 0 if window is not None else 1, order)
        if best is None or rank < best[0]:
            best = (rank, Snap(pushed, to, window, gap))
    return None if best is None else best[1]


def _free(table: Table, ident: str, against: str, tol: float) -> bool:
    """Whether model ``ident`` overlaps nothing but ``against`` by more than ``tol``
    (mm): blocking pieces and other bases. Cover pieces (hedges, woods) may be entered."""
    m = table.model(ident)
    centre = shapely.Point(m.at.x, m.at.y)
    for t in table.terrain:
        gap = float(t.footprint.shape().distance(centre)) - m.base.radius
        if t.id != against and t.blocks and gap < -tol:
            return False
    for other in table.models:
        if other.id in (ident, against):
            continue
        gap = m.at.distance(other.at) - m.base.radius - other.base.radius
        if gap < -tol:
            return False
    return True


def gap_to(table: Table, ident: str, to: str, window: int | None = None) -> float:
    """The gap (mm) between model ``ident``'s base and ``to`` (a piece, one of its
    windows, or a model): what G4 compares with the contact tolerance."""
    m = table.model(ident)
    centre = shapely.Point(m.at.x, m.at.y)
    if to in {o.id for o in table.models}:
        other = table.model(to)
        return m.at.distance(other.at) - m.base.radius - other.base.radius
    fp = table.piece(to).footprint
    if isinstance(fp, CircleFootprint):
        return m.at.distance(fp.centre) - fp.radius - m.base.radius
    shape = (
        fp.window_slice(fp.windows[window])
        if window is not None and isinstance(fp, WallFootprint)
        else fp.shape()
    )
    return float(shape.distance(centre)) - m.base.radius


def touches(table: Table, ident: str, to: str, window: int | None = None) -> bool:
    """G4 through the one contact test: the base of ``ident`` touches ``to``."""
    return bool(sight.in_contact(gap_to(table, ident, to, window), table.contact_tolerance))
