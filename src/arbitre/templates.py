"""Templates: the breath cone (B1-B2) and the circular blast (B10), the bases they touch,
their order by distance (B7), and the large terrain that shields a base (B3 option). The
directions where what a cone touches changes are :mod:`arbitre.cone_sweep`.

**Placement (B1, B2).** The cone is an isosceles triangle 6 toises long with a far side 2
toises wide (the scenario's ``toise``, in mm). Its apex touches the shooter's base: two
degrees of freedom, where the apex sits on the base circle (``apex``, degrees seen from
the shooter's centre; by default the aim direction, so that the axis runs from the
shooter's centre through the apex) and where the axis points (``angle``); a shooter
without a base (F8) has the apex at its centre. *Decision* (B2, option
``cone_over_base``, default false): the cone lies beside the base, not over it. Near the
apex the cone is the wedge of half-angle ``atan(1/6)`` around the axis; its interior
misses the disc exactly when both edges leave the apex on the outer side of the rim's
tangent, i.e. when the axis is within ``90 - atan(1/6)`` (about 80.54) degrees of the
outward radius at the apex (:func:`over_base_limit`, :func:`check_cone`).

**Touching (B3).** *Decision*, with G4 in mind: a base is touched when its gap to the
template is at most the scenario's contact tolerance (G4: a base merely in contact with
the template's edge counts, as a player cannot tell 0.3 mm of overlap from 0.3 mm of
gap). ``strict=True`` asks for an overlap of positive area instead (gap < 0; a model
without a base must then be strictly inside). The shooter is never touched by its own cone.

**Order (B7).** *Decision* (seed: «le plus proche du tireur»): a cone's victims are
ordered by their distance from the shooter, between the two bases' nearest points (as
M6), option ``order_from``: ``base`` (default), ``centre`` (centre to centre) or
``apex`` (from the apex to the nearest point of the base); a blast's from its centre to
the nearest point of the base (:func:`order_distances`), 0 when the base covers it.
Distances that differ by at most ``tie_tolerance`` are equal (G4: a measure on the table is
no finer than the contact tolerance); chains of such distances form one tie group, whose
order :func:`draw_order` draws at random with logged dice.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from arbitre import backend, sight
from arbitre.dice import Dice
from arbitre.errors import RulesError
from arbitre.geometry import EPS, Point
from arbitre.i18n import N_, T_, Lang, Num, Word, current, unit_name
from arbitre.table import Table

#: B1: the cone's length and the width of its far side, in toises.
CONE_LENGTH_TOISES = 6.0
CONE_WIDTH_TOISES = 2.0


@dataclass(frozen=True, slots=True)
class Cone:
    """The B1 cone: apex, aim (degrees counter-clockwise from +x), length and far side (mm);
    ``rim``: where the apex sits on the shooter's rim (degrees from its centre, B2) when
    placed by :func:`place_cone`."""

    apex: Point
    angle: float
    length: float
    width: float
    rim: float | None = None

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


@dataclass(frozen=True, slots=True)
class UnitWord:
    """A length unit's name as a text parameter, per language ("in" / "po"): in English
    the unit's own name, as reports have always printed it; in French its plural, after
    a point's two values."""

    name: str

    def render(self, lang: Lang | None = None) -> str:
        lang = lang or current()
        return self.name if lang == "en" else unit_name(self.name, lang, 2.0)

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True, slots=True)
class Degrees:
    """An angle as a text parameter: its value (format ``spec``) and the word, per
    language ("355.2 degrees"; French "355,2 degrés", "0 degré": below 2 is singular)."""

    value: float
    spec: str = ".4g"

    def render(self, lang: Lang | None = None) -> str:
        lang = lang or current()
        text = format(float(self.value), self.spec)
        if lang == "en":
            return f"{text} degrees"
        word = "degré" if abs(float(text)) < 2 else "degrés"
        return f"{text.replace('.', ',')} {word}"

    def __str__(self) -> str:
        return self.render()


def cone_size(table: Table) -> tuple[float, float]:
    """B1: the cone's length and far side in mm, from the scenario's ``toise``."""
    if table.toise is None:
        raise RulesError(
            T_(
                "B1: the breath cone is 6 by 2 toises, but the scenario gives no toise: "
                "add `toise: <mm per toise>` (e.g. toise: 25) at its top level"
            )
        )
    return CONE_LENGTH_TOISES * table.toise, CONE_WIDTH_TOISES * table.toise


def half_angle(length: float, width: float) -> float:
    """B1: the cone's half-angle at its apex (radians): atan(1/6) for 6 by 2 toises."""
    return math.atan2(width / 2.0, length)


def over_base_limit(length: float, width: float) -> float:
    """B2 (``cone_over_base: false``): the largest angle (radians) between the axis and
    the outward radius at the apex for which the cone's interior misses the shooter's
    base: both edges must point outside the rim's tangent, 90 degrees minus the
    half-angle."""
    return math.pi / 2.0 - half_angle(length, width)


def place_cone(table: Table, shooter: str, angle: float, apex: float | None = None) -> Cone:
    """B1-B2: the cone aimed at ``angle`` degrees, its apex on the shooter's base circle at
    ``apex`` degrees from its centre (default: ``angle``, the outward radius)."""
    for what, value in ((N_("aim"), angle), (N_("apex"), apex)):
        if value is not None and not math.isfinite(value):
            raise RulesError(
                T_(
                    "B2: the {what} must be a finite angle in degrees, got {value}",
                    what=Word(what),
                    value=repr(value),
                )
            )
    model = table.model(shooter)
    length, width = cone_size(table)
    a = math.radians(angle if apex is None else apex)
    r = model.base.radius
    at = Point(model.at.x + r * math.cos(a), model.at.y + r * math.sin(a))
    rim = None if r <= 0 else math.degrees(a) % 360.0
    return Cone(at, angle % 360.0, length, width, rim)


#: Slack of the B2 checks of a cone given whole: 1e-7 degrees of aim past the limit.
PLACEMENT_SLACK = math.radians(1e-7)


def apex_angle(table: Table, shooter: str, cone: Cone) -> float:
    """Where the apex of ``cone`` sits seen from the shooter's centre (degrees in [0, 360));
    the aim direction when the apex is on the centre (a model without a base)."""
    s = table.model(shooter).at
    dx, dy = cone.apex.x - s.x, cone.apex.y - s.y
    if math.hypot(dx, dy) <= EPS:
        return cone.angle % 360.0
    return math.degrees(math.atan2(dy, dx)) % 360.0


def check_cone(table: Table, shooter: str, cone: Cone, *, over_base: bool = False) -> None:
    """B2: refuse a cone whose apex does not touch the shooter's base (G4 contact) or,
    unless ``over_base`` (option ``cone_over_base``), whose interior lies over that base."""
    model = table.model(shooter)
    s, r = model.at, model.base.radius
    d = math.hypot(cone.apex.x - s.x, cone.apex.y - s.y)
    if abs(d - r) > table.contact_tolerance + EPS:
        u = table.unit
        where = T_("its centre (it has no base, F8)") if r <= 0 else T_("its base")
        raise RulesError(
            T_(
                "B2: the cone's apex at {at} {unit} is {gap} from {where}: the apex must "
                "touch {shooter}'s base (G4 contact, {tol})",
                at=u.at(cone.apex.x, cone.apex.y),
                unit=UnitWord(u.name),
                gap=u.measure(abs(d - r)),
                where=where,
                shooter=repr(shooter),
                tol=u.measure(table.contact_tolerance),
            )
        )
    if over_base or r <= 0:
        return
    theta = apex_angle(table, shooter, cone)
    off = abs((cone.angle - theta + 180.0) % 360.0 - 180.0)
    limit = math.degrees(over_base_limit(cone.length, cone.width))
    if math.radians(off - limit) > PLACEMENT_SLACK:
        raise RulesError(
            T_(
                "B2: a cone aimed at {angle} degrees with its apex at {theta} degrees on "
                "{shooter}'s rim lies over its base: the axis must be within {limit} degrees "
                "of the outward radius ({theta}), it is {off} away (option cone_over_base: "
                "true allows it)",
                angle=Num(cone.angle, ".6g"),
                theta=Num(theta, ".6g"),
                shooter=repr(shooter),
                limit=float(limit),
                off=Num(off, ".6g"),
            )
        )


def aim_at(table: Table, shooter: str, target: str) -> float:
    """The aim (degrees) whose axis runs from the shooter's centre through the target's."""
    a, b = table.model(shooter), table.model(target)
    if shooter == target:
        raise RulesError(
            T_("B2: a shooter cannot aim its breath at itself ({shooter})", shooter=repr(shooter))
        )
    if a.at == b.at:
        raise RulesError(
            T_(
                "B2: {target} stands on {shooter}'s centre: no direction to it",
                target=repr(target),
                shooter=repr(shooter),
            )
        )
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


OrderFrom = Literal["base", "centre", "apex"]


def order_distances(
    table: Table,
    template: Template,
    *,
    shooter: str | None = None,
    order_from: OrderFrom = "apex",
) -> np.ndarray:
    """B7: every model's distance (mm, table order) for the order of victims: from the
    shooter's base to each base, nearest points (``base``, as M6), centre to centre
    (``centre``), or from the template's origin (the apex, a blast's centre) to the
    nearest point of each base (``apex``, and always for a blast); 0 when they overlap."""
    xy, radii = centres(table)
    if shooter is None or isinstance(template, Blast) or order_from == "apex":
        o = template.origin
        return np.asarray(np.maximum(0.0, np.hypot(xy[:, 0] - o.x, xy[:, 1] - o.y) - radii))
    m = table.model(shooter)
    d = np.hypot(xy[:, 0] - m.at.x, xy[:, 1] - m.at.y)
    if order_from == "centre":
        return np.asarray(d)
    return np.asarray(np.maximum(0.0, d - radii - m.base.radius))


def touched(
    table: Table,
    template: Template,
    *,
    tolerance: float | None = None,
    strict: bool = False,
    exclude: Collection[str] = (),
    shooter: str | None = None,
    order_from: OrderFrom = "apex",
) -> tuple[Touch, ...]:
    """B3: the bases ``template`` touches (gap <= ``tolerance``, default the table's G4
    contact tolerance; with ``strict`` an overlap of positive area), nearest first (B7,
    by :func:`order_distances`; ties by id), models in ``exclude`` left out."""
    if not table.models:
        return ()
    tol = table.contact_tolerance if tolerance is None else tolerance
    xy, radii = centres(table)
    gap = template.signed_distance(xy) - radii
    dist = order_distances(table, template, shooter=shooter, order_from=order_from)
    found = [
        Touch(m.id, float(gap[i]), float(dist[i]))
        for i in np.flatnonzero(is_touched(gap, tol, strict))
        if (m := table.models[i]).id not in exclude
    ]
    return tuple(sorted(found, key=lambda t: (t.distance, t.model)))


def template_slack(
    table: Table,
    template: Template,
    *,
    tolerance: float | None = None,
    strict: bool = False,
    exclude: Collection[str] = (),
) -> tuple[float, str] | None:
    """G8: the smallest slack (mm) of the B3 test over every base but ``exclude``: how far
    its gap to the template is from the threshold (``tolerance``, default the G4 contact
    tolerance; 0 with ``strict``), and whose base; None without models. Moving one base
    by less than that never changes whether the template touches it."""
    tol = table.contact_tolerance if tolerance is None else tolerance
    if not table.models:
        return None
    xy, radii = centres(table)
    slack = np.abs(template.signed_distance(xy) - radii - (0.0 if strict else tol))
    for ident in exclude:
        slack[table.model_index(ident)] = np.inf
    k = int(np.argmin(slack))
    return (float(slack[k]), table.models[k].id) if math.isfinite(slack[k]) else None


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
        raise RulesError(
            T_("B10: a blast needs a positive radius, got {radius}", radius=repr(blast.radius))
        )
    if not (math.isfinite(blast.centre.x) and math.isfinite(blast.centre.y)):
        raise RulesError(
            T_("B10: the blast's centre must be finite, got {at}", at=str(blast.centre))
        )


__all__ = [
    "Blast",
    "Cone",
    "Degrees",
    "OrderFrom",
    "Template",
    "Touch",
    "UnitWord",
    "aim_at",
    "apex_angle",
    "centres",
    "check_blast",
    "check_cone",
    "cone_sd",
    "cone_size",
    "draw_order",
    "half_angle",
    "is_touched",
    "order_distances",
    "over_base_limit",
    "place_cone",
    "shielded_at",
    "shielded_from",
    "shielded_many",
    "template_slack",
    "terrain_arrays",
    "tie_groups",
    "touched",
]
