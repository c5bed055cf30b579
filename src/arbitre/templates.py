"""Templates: the breath cone (B1-B2) and the circular blast (B10), the bases they touch,
their order by distance (B7), and the large terrain that shields a base (B3 option). The
directions where what a cone touches changes are :mod:`arbitre.cone_sweep`.

**Placement (B1, B2).** The cone is an isosceles triangle 6 toises long with a far side 2
toises wide (the scenario's ``toise``, in mm). Its apex touches the shooter's base: it is
put on the base circle in the aim direction, so the axis runs from the shooter's centre
through the apex; a shooter without a base (F8) has the apex at its centre.

**Touching (B3).** *Decision*, with G4 in mind: a base is touched when its gap to the
template is at most the scenario's contact tolerance (G4: a base merely in contact with
the template's edge counts, as a player cannot tell 0.3 mm of overlap from 0.3 mm of
gap). ``strict=True`` asks for an overlap of positive area instead (gap < 0; a model
without a base must then be strictly inside). The shooter is never touched by its own cone.

**Order (B7).** The distance of a base is from the template's origin (the apex, or the
blast's centre) to the nearest point of the base, 0 when the base covers the origin.
Distances that differ by at most ``tie_tolerance`` are equal (G4: a measure on the table is
no finer than the contact tolerance); chains of such distances form one tie group, whose
order :func:`draw_order` draws at random with logged dice.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from arbitre import backend, sight
from arbitre.dice import Dice
from arbitre.errors import RulesError
from arbitre.geometry import EPS, Point
from arbitre.table import Table

#: B1: the cone's length and the width of its far side, in toises.
CONE_LENGTH_TOISES = 6.0
CONE_WIDTH_TOISES = 2.0


@dataclass(frozen=True, slots=True)
class Cone:
    """The B1 cone: apex, aim (degrees counter-clockwise from +x), length and far side (mm)."""

    apex: Point
    angle: float
    length: float
    width: float

    @property
    def origin(self) -> Point:
        """Where B7 distances are measured from: the apex."""
        return self.apex

    @property
    def vertices(self) -> tuple[Point, Point, Point]:
        """Apex, far-left corner, far-right corner (left = counter-clockwise of the aim)."""
        a = math.radians(self.angle)
        ux, uy, h = math.cos(a), math.sin(a), self.width / 2.0
        fx, fy = self.apex.x + self.length * ux, self.apex.y + self.length * uy
        return (self.apex, Point(fx - h * uy, fy + h * ux), Point(fx + h * uy, fy - h * ux))

    def shape(self) -> BaseGeometry:
        return shapely.Polygon([(p.x, p.y) for p in self.vertices])

    def signed_distance(self, xy: np.ndarray) -> np.ndarray:
        """Signed distance of points ``xy`` (n x 2, mm) to the triangle: < 0 inside."""
        a = math.radians(self.angle)
        dx, dy = xy[:, 0] - self.apex.x, xy[:, 1] - self.apex.y
        x = dx * math.cos(a) + dy * math.sin(a)
        y = -dx * math.sin(a) + dy * math.cos(a)
        return cone_sd(x, y, self.length, self.width / 2.0)


@dataclass(frozen=True, slots=True)
class Blast:
    """A circular template (B10): centre and radius in mm."""

    centre: Point
    radius: float

    @property
    def origin(self) -> Point:
        return self.centre

    def shape(self) -> BaseGeometry:
        return shapely.Point(self.centre.x, self.centre.y).buffer(self.radius, quad_segs=64)

    def signed_distance(self, xy: np.ndarray) -> np.ndarray:
        return np.asarray(
            np.hypot(xy[:, 0] - self.centre.x, xy[:, 1] - self.centre.y) - self.radius
        )


Template = Cone | Blast


def cone_sd(x: np.ndarray, y: np.ndarray, length: float, half: float) -> np.ndarray:
    """Signed distance to the triangle (0,0), (L, h), (L, -h), points in its frame.

    By symmetry a point (x, y) is as far as (x, |y|), for which the nearest side is the
    upper one or the far one.
    """
    y = np.abs(y)
    ll = length * length + half * half
    t = np.clip((x * length + y * half) / ll, 0.0, 1.0)
    d1 = np.hypot(x - t * length, y - t * half)
    d2 = np.hypot(x - length, np.maximum(y - half, 0.0))
    d = np.minimum(d1, d2)
    inside = (x <= length) & (y * length <= half * x)
    return np.where(inside, -d, d)


def cone_size(table: Table) -> tuple[float, float]:
    """B1: the cone's length and far side in mm, from the scenario's ``toise``."""
    if table.toise is None:
        raise RulesError(
            "B1: the breath cone is 6 by 2 toises, but the scenario gives no toise: "
            "add `toise: <mm per toise>` (e.g. toise: 25) at its top level"
        )
    return CONE_LENGTH_TOISES * table.toise, CONE_WIDTH_TOISES * table.toise


def place_cone(table: Table, shooter: str, angle: float) -> Cone:
    """B1-B2: the cone aimed at ``angle`` degrees, its apex on the shooter's base circle."""
    if not math.isfinite(angle):
        raise RulesError(f"B2: the aim must be a finite angle in degrees, got {angle!r}")
    model = table.model(shooter)
    length, width = cone_size(table)
    a = math.radians(angle)
    r = model.base.radius
    apex = Point(model.at.x + r * math.cos(a), model.at.y + r * math.sin(a))
    return Cone(apex, angle % 360.0, length, width)


def aim_at(table: Table, shooter: str, target: str) -> float:
    """The aim (degrees) whose axis runs from the shooter's centre through the target's."""
    a, b = table.model(shooter), table.model(target)
    if shooter == target:
        raise RulesError(f"B2: a shooter cannot aim its breath at itself ({shooter!r})")
    if a.at == b.at:
        raise RulesError(f"B2: {target!r} stands on {shooter!r}'s centre: no direction to it")
    return math.degrees(math.atan2(b.at.y - a.at.y, b.at.x - a.at.x)) % 360.0


@dataclass(frozen=True, slots=True)
class Touch:
    """A base a template touches: its gap (mm, < 0 overlapping) and B7 distance (mm)."""

    model: str
    gap: float
    distance: float


def centres(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """Every model's centre (n x 2, mm) and base radius, in table order."""
    return sight.positions(table)


def is_touched(gap: np.ndarray, tolerance: float, strict: bool) -> np.ndarray:
    """B3: a base touches the template when in G4 contact with it (the one contact test,
    :func:`arbitre.sight.in_contact`); ``strict``, when it overlaps it (positive area)."""
    return np.asarray(gap < -EPS) if strict else sight.in_contact(gap, tolerance)


def touched(
    table: Table,
    template: Template,
    *,
    tolerance: float | None = None,
    strict: bool = False,
    exclude: Collection[str] = (),
) -> tuple[Touch, ...]:
    """B3: the bases ``template`` touches (gap <= ``tolerance``, default the table's G4
    contact tolerance; with ``strict`` an overlap of positive area), nearest first (B7,
    ties by id), models in ``exclude`` left out."""
    if not table.models:
        return ()
    tol = table.contact_tolerance if tolerance is None else tolerance
    xy, radii = centres(table)
    gap = template.signed_distance(xy) - radii
    o = template.origin
    dist = np.maximum(0.0, np.hypot(xy[:, 0] - o.x, xy[:, 1] - o.y) - radii)
    found = [
        Touch(m.id, float(gap[i]), float(dist[i]))
        for i in np.flatnonzero(is_touched(gap, tol, strict))
        if (m := table.models[i]).id not in exclude
    ]
    return tuple(sorted(found, key=lambda t: (t.distance, t.model)))


def tie_groups(touches: Sequence[Touch], tolerance: float = 0.0) -> tuple[tuple[str, ...], ...]:
    """B7: the touched models in order of distance, as groups of equal distance (a chain
    of distances each within ``tolerance`` of the next is one group; ids sorted within)."""
    ordered = sorted(touches, key=lambda t: (t.distance, t.model))
    groups: list[list[Touch]] = []
    for t in ordered:
        if groups and t.distance - groups[-1][-1].distance <= tolerance + EPS:
            groups[-1].append(t)
        else:
            groups.append([t])
    return tuple(tuple(sorted(x.model for x in g)) for g in groups)


def draw_order(
    groups: Sequence[Sequence[str]], dice: Dice, *, label: str = "B7 tie"
) -> tuple[str, ...]:
    """B7: the victims in order, each tie group shuffled by logged dice: a d``k`` picks
    which of the ``k`` still tied comes first (a uniform random order, exactly)."""
    order: list[str] = []
    for group in groups:
        left = list(group)
        while len(left) > 1:
            pick = dice.d(len(left), f"{label}: which of {', '.join(left)} first")
            order.append(left.pop(pick - 1))
        order.extend(left)
    return tuple(order)


def terrain_arrays(table: Table) -> tuple[Any, ...]:
    """The terrain part of the table's sight index: the pieces a template line can cross."""
    ix = sight.sight_index(table)
    t = ix.n_terrain
    return (
        ix.kind[:t],
        ix.disc[:t],
        ix.eoff[: t + 1],
        ix.edges,
        ix.bbox[:t],
        ix.blocks[:t],
        ix.half,
    )


def shielded_from(
    table: Table, origin: Point, models: Sequence[int], *, grazing: bool = False
) -> np.ndarray:
    """B3 option: for each model index, whether the segment from ``origin`` to its centre
    crosses a large terrain piece (G5 beam rule; bases never shield)."""
    return shielded_many(table, [origin] * len(models), models, grazing=grazing)


def shielded_many(
    table: Table,
    origins: Sequence[Point],
    models: Sequence[int] | np.ndarray,
    *,
    grazing: bool = False,
) -> np.ndarray:
    """:func:`shielded_from` for pairs (origin i, model i)."""
    ax = np.array([p.x for p in origins], dtype=np.float64)
    ay = np.array([p.y for p in origins], dtype=np.float64)
    return shielded_at(table, ax, ay, models, grazing=grazing)


def shielded_at(
    table: Table,
    ax: np.ndarray,
    ay: np.ndarray,
    models: Sequence[int] | np.ndarray,
    *,
    grazing: bool = False,
) -> np.ndarray:
    """:func:`shielded_many` with the origins as arrays of x and y (mm)."""
    if not len(models) or not table.terrain:
        return np.zeros(len(models), dtype=np.bool_)
    kind, disc, eoff, edges, bbox, blocks, half = terrain_arrays(table)
    xy, _ = centres(table)
    idx = np.asarray(models, dtype=np.int64)
    none = np.full(len(idx), -1, dtype=np.int64)
    k = backend.kernels(4 * len(idx) * backend.piece_work(kind, eoff))
    _, _, _, first = k.centre_lines(
        np.ascontiguousarray(ax, dtype=np.float64),
        np.ascontiguousarray(ay, dtype=np.float64),
        xy[idx, 0],
        xy[idx, 1],
        none,
        none,
        kind,
        disc,
        eoff,
        edges,
        bbox,
        blocks,
        half,
        grazing,
        True,
    )
    return np.asarray(first >= 0)


def check_blast(blast: Blast) -> None:
    """Check a blast (B10) for use: a positive, finite radius."""
    if not (math.isfinite(blast.radius) and blast.radius > 0):
        raise RulesError(f"B10: a blast needs a positive radius, got {blast.radius!r}")
    if not (math.isfinite(blast.centre.x) and math.isfinite(blast.centre.y)):
        raise RulesError(f"B10: the blast's centre must be finite, got {blast.centre}")


__all__ = [
    "Blast",
    "Cone",
    "Template",
    "Touch",
    "aim_at",
    "centres",
    "check_blast",
    "cone_sd",
    "cone_size",
    "draw_order",
    "is_touched",
    "place_cone",
    "shielded_at",
    "shielded_from",
    "shielded_many",
    "terrain_arrays",
    "tie_groups",
    "touched",
]
