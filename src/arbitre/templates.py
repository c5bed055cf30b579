"""Templates: the breath cone (B1-B2) and the circular blast (B10), the bases they touch,
their order by distance (B7), and the directions where what a cone touches changes.

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

**Sweep.** As the aim turns, the apex moves on the shooter's base circle; in the cone's own
frame each base centre moves on a circle around the shooter's centre. What the cone
touches changes only where that circle crosses the boundary of the cone dilated by the
base's reach: an offset side, the offset far side, or an arc around a corner. Those angles
are closed forms; :func:`sweep` lists them, with (optionally) the angles where two
victims' distances come within the tie tolerance (the order changes, B6-B7) and where the
centre line from the apex to a base starts or stops crossing a large piece (B3 option),
and evaluates one direction inside each arc between them.
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
TWO_PI = 2.0 * math.pi
#: Two critical angles closer than this (radians; 1.5e-7 mm at 6 toises of 25 mm) are one.
ANGLE_EPS = 1e-9


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
        return _cone_sd(x, y, self.length, self.width / 2.0)


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


def _cone_sd(x: np.ndarray, y: np.ndarray, length: float, half: float) -> np.ndarray:
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


def _xy_r(table: Table) -> tuple[np.ndarray, np.ndarray]:
    xy = np.array([[m.at.x, m.at.y] for m in table.models], dtype=np.float64).reshape(-1, 2)
    return xy, np.array([m.base.radius for m in table.models], dtype=np.float64)


def _is_touched(gap: np.ndarray, tolerance: float, strict: bool) -> np.ndarray:
    return np.asarray(gap < -EPS if strict else gap <= tolerance + EPS)


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
    xy, radii = _xy_r(table)
    gap = template.signed_distance(xy) - radii
    o = template.origin
    dist = np.maximum(0.0, np.hypot(xy[:, 0] - o.x, xy[:, 1] - o.y) - radii)
    found = [
        Touch(m.id, float(gap[i]), float(dist[i]))
        for i in np.flatnonzero(_is_touched(gap, tol, strict))
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


def draw_order(groups: Sequence[Sequence[str]], dice: Dice, *, label: str = "B7 tie") -> tuple[
        str, ...]:
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


# --- the sweep of directions ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Arc:
    """Directions ``start`` to ``end`` (degrees, counter-clockwise; ``end`` may pass 360)
    in which the cone touches the same bases: ``victims`` in B7 order at ``middle``,
    ``ties`` their groups, ``shielded`` those a large piece hides from the apex (B3)."""

    start: float
    end: float
    victims: tuple[str, ...]
    ties: tuple[tuple[str, ...], ...]
    shielded: tuple[str, ...] = ()

    @property
    def middle(self) -> float:
        return ((self.start + self.end) / 2.0) % 360.0

    @property
    def width(self) -> float:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Sweep:
    """Every direction of one shooter's cone, as arcs of constant victims (and order):
    the critical aims found (degrees), the arcs, and the bases within reach."""

    shooter: str
    critical: tuple[float, ...]
    arcs: tuple[Arc, ...]
    candidates: tuple[str, ...]


def _unit_circle_line(dist: np.ndarray, normal: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Angles of the points of the circles |p| = dist[i] on the lines p . n = k[i], n the
    unit vector at angle normal[i]: normal[i] +- acos(k[i] / dist[i]), where they meet."""
    ok = (np.abs(k) <= dist) & (dist > 0)
    c = np.arccos(np.clip(k[ok] / dist[ok], -1.0, 1.0))
    return np.concatenate([normal[ok] + c, normal[ok] - c])


def trig_roots(coef: np.ndarray) -> np.ndarray:
    """Roots in [0, 2 pi) of a0 + a1 cos t + b1 sin t + a2 cos 2t + b2 sin 2t, for each row
    ``a0, a1, b1, a2, b2`` of ``coef``: the unit-circle roots of a quartic in z = e^{it}.

    Roots found near the circle (within 1e-3) are all kept: a superset is what the sweep
    needs (an extra angle only splits an arc). Rows without dependence on t give none.
    """
    coef = np.asarray(coef, dtype=np.float64).reshape(-1, 5)
    scale = np.max(np.abs(coef), axis=1)
    live = np.max(np.abs(coef[:, 1:]), axis=1) > 1e-12 * np.maximum(scale, 1e-300)
    coef = coef[live] / scale[live, None]
    if not len(coef):
        return np.zeros(0)
    flat = np.max(np.abs(coef[:, 3:]), axis=1) == 0.0
    roots: list[np.ndarray] = []
    if flat.any():  # a0 + a1 cos t + b1 sin t = 0: t = atan2(b1, a1) +- acos(-a0 / R)
        a0, a1, b1 = coef[flat, 0], coef[flat, 1], coef[flat, 2]
        roots.append(np.exp(1j * _unit_circle_line(np.hypot(a1, b1), np.arctan2(b1, a1), -a0)))
        coef = coef[~flat]
    a0, a1, b1, a2, b2 = coef.T
    poly = np.stack([(a2 - 1j * b2) / 2, (a1 - 1j * b1) / 2, a0 + 0j,
                     (a1 + 1j * b1) / 2, (a2 + 1j * b2) / 2], axis=1)
    big = np.abs(poly[:, 0]) > 1e-9
    if big.any():
        p = poly[big] / poly[big, :1]
        comp = np.zeros((len(p), 4, 4), dtype=np.complex128)
        comp[:, 0, :] = -p[:, 1:]
        comp[:, 1, 0] = comp[:, 2, 1] = comp[:, 3, 2] = 1.0
        roots.append(np.linalg.eigvals(comp).ravel())
    for row in poly[~big]:
        roots.append(np.roots(row))
    z = np.concatenate(roots) if roots else np.zeros(0, dtype=np.complex128)
    z = z[np.isfinite(z) & (np.abs(np.abs(z) - 1.0) < 1e-3)]
    return np.asarray(np.mod(np.angle(z), TWO_PI))


def _trig_square(e: np.ndarray) -> np.ndarray:
    """Coefficients (a0, a1, b1, a2, b2) of (e0 + e1 cos t + e2 sin t)^2."""
    e0, e1, e2 = e[:, 0], e[:, 1], e[:, 2]
    return np.stack([e0 * e0 + (e1 * e1 + e2 * e2) / 2, 2 * e0 * e1, 2 * e0 * e2,
                     (e1 * e1 - e2 * e2) / 2, e1 * e2], axis=1)


def _linear(e: np.ndarray) -> np.ndarray:
    """Coefficients of the linear trig form (e0, e1, e2) as (a0, a1, b1, 0, 0)."""
    return np.hstack([e, np.zeros((len(e), 2))])


def _membership_angles(v: np.ndarray, reach: np.ndarray, r: float, length: float,
                       half: float) -> np.ndarray:
    """Aims where a base centre (v from the shooter's centre) meets the boundary of the cone
    dilated by ``reach``: an offset side, the offset far side, a circle around a corner.

    In the cone's frame (apex at (r, 0), axis +x) the centre is at angle phi - aim on the
    circle |p| = |v|; each boundary piece lies on a line p . n = k (a corner's circle meets
    |p| = |v| on one too), crossed where phi - aim = angle(n) +- acos(k / |v|).
    """
    d = np.hypot(v[:, 0], v[:, 1])
    phi = np.arctan2(v[:, 1], v[:, 0])
    hyp = math.hypot(length, half)
    out = []
    k_side = -half * r / hyp + reach  # the sides' outward normals (-h, +-L) / hyp
    for sgn in (1.0, -1.0):
        out.append(_unit_circle_line(d, phi - math.atan2(sgn * length, -half), k_side))
    out.append(_unit_circle_line(d, phi, r + length + reach))  # the far side, x = r + L
    for cx, cy in ((r, 0.0), (r + length, half), (r + length, -half)):
        cd = math.hypot(cx, cy)
        if cd > 0.0:  # (a corner on the shooter's centre is always as far: no crossing)
            k = (d * d + cd * cd - reach * reach) / (2 * cd)
            out.append(_unit_circle_line(d, phi - math.atan2(cy, cx), k))
    return np.concatenate(out)


def _order_angles(v: np.ndarray, radii: np.ndarray, r: float, tie: float) -> np.ndarray:
    """Aims where two bases' B7 distances from the apex (on the circle of radius r) are
    equal or differ by the tie threshold, or one of them reaches 0 (the apex on its base).

    With P the distance from the apex to a centre, P^2 = alpha + beta cos t + gamma sin t;
    P_i - P_j = delta squares twice into a trigonometric quartic (:func:`trig_roots`).
    """
    if r <= 0 or len(v) == 0:
        return np.zeros(0)
    d = np.hypot(v[:, 0], v[:, 1])
    phi = np.arctan2(v[:, 1], v[:, 0])
    shifts = sorted({0.0, tie + EPS, -(tie + EPS)})
    out = []
    for sh in shifts:  # |v - r u| = rho + sh: u . v^ = (d^2 + r^2 - (rho + sh)^2) / (2 d r)
        rho = radii + sh
        ok = (rho >= 0) & (d > 0)
        k = (d[ok] ** 2 + r * r - rho[ok] ** 2) / (2 * d[ok])
        out.append(_unit_circle_line(np.full(int(ok.sum()), r), phi[ok], k))
    alpha = d * d + r * r
    beta, gamma = -2 * r * v[:, 0], -2 * r * v[:, 1]
    i, j = np.triu_indices(len(v), 1)
    if len(i):
        lin = np.stack([alpha[i] - alpha[j], beta[i] - beta[j], gamma[i] - gamma[j]], axis=1)
        pj = np.stack([alpha[j], beta[j], gamma[j]], axis=1)
        out.append(trig_roots(_linear(lin)))  # P_i = P_j
        zeros = np.zeros((len(i), 2))
        for sh in shifts:
            delta = (radii[i] - radii[j] + sh)[:, None]
            # P_i = P_j + delta  =>  (D - delta^2)^2 = 4 delta^2 P_j^2, D = P_i^2 - P_j^2
            e = lin - np.hstack([delta * delta, zeros])
            out.append(trig_roots(_trig_square(e) - _linear(4 * delta * delta * pj)))
    return np.concatenate(out)


def _terrain_arrays(table: Table) -> tuple[Any, ...]:
    """The terrain part of the table's sight index: the pieces a template line can cross."""
    ix = sight.sight_index(table)
    t = ix.n_terrain
    return (ix.kind[:t], ix.disc[:t], ix.eoff[: t + 1], ix.edges, ix.bbox[:t],
            ix.blocks[:t], ix.half)


def _blocking_angles(table: Table, s: np.ndarray, r: float, v: np.ndarray,
                     within: float) -> np.ndarray:
    """Aims where the segment from the apex (on the circle of radius r around s) to a base
    centre (s + v) starts or stops crossing a large piece under the beam rule (G5): the
    line through the apex tangent to a corner's circle (or a round piece's) inflated by
    half the beam, or the apex itself crossing an inflated side or circle. Each threshold
    is taken at half the beam and at +-EPS around it, as the kernels test. Only pieces
    within ``within`` of s matter."""
    if r <= 0 or len(v) == 0:
        return np.zeros(0)
    kind, disc, eoff, edges, bbox, blocks, half = _terrain_arrays(table)
    pads = sorted({0.0, half, half + EPS, max(0.0, half - EPS)})
    circles: list[tuple[float, float, float]] = []
    lines: list[tuple[float, float, float]] = []  # unit normal (nx, ny), offset k: n . p = k
    for k in np.flatnonzero(blocks):
        bx0, by0, bx1, by1 = bbox[k]
        if max(bx0 - s[0], s[0] - bx1, 0.0) ** 2 + max(by0 - s[1], s[1] - by1, 0.0) ** 2 > (
                within + half + 1.0) ** 2:
            continue
        if kind[k] == 0:
            circles += [(disc[k, 0], disc[k, 1], disc[k, 2] + p) for p in pads]
            continue
        for e in range(eoff[k], eoff[k + 1]):
            x0, y0, x1, y1 = edges[e]
            ln = math.hypot(x1 - x0, y1 - y0)
            if ln == 0:
                continue
            nx, ny = -(y1 - y0) / ln, (x1 - x0) / ln
            base = nx * x0 + ny * y0
            lines += [(nx, ny, base + sg * p) for p in pads for sg in (1.0, -1.0)]
            circles += [(x0, y0, p) for p in pads]
    if not circles:
        return np.zeros(0)
    out = []
    rel = np.asarray(circles, dtype=np.float64).reshape(-1, 3)
    q = rel[:, :2] - s
    qd = np.hypot(q[:, 0], q[:, 1])
    # the apex s + r u on a circle (q, rho): u . q^ = (r^2 + |q|^2 - rho^2) / (2 r |q|)
    kq = (r * r + qd * qd - rel[:, 2] ** 2) / (2 * np.maximum(qd, 1e-300))
    out.append(_unit_circle_line(np.full(len(q), r), np.arctan2(q[:, 1], q[:, 0]), kq))
    if lines:
        ln_arr = np.asarray(lines, dtype=np.float64).reshape(-1, 3)
        kl = ln_arr[:, 2] - ln_arr[:, 0] * s[0] - ln_arr[:, 1] * s[1]
        out.append(_unit_circle_line(np.full(len(kl), r),
                                     np.arctan2(ln_arr[:, 1], ln_arr[:, 0]), kl))
    # the line through the apex and c tangent to circle (q, rho), for every base c:
    # cross(g - r u, w)^2 = rho^2 |g - r u|^2 with g = c - s, w = q - c
    gi = np.repeat(v, len(q), axis=0)
    w = np.tile(q, (len(v), 1)) - gi
    rho = np.tile(rel[:, 2], len(v))
    ce = np.stack([gi[:, 0] * w[:, 1] - gi[:, 1] * w[:, 0], -r * w[:, 1], r * w[:, 0]], axis=1)
    g2 = np.stack([(gi * gi).sum(axis=1) + r * r, -2 * r * gi[:, 0], -2 * r * gi[:, 1]],
                  axis=1)
    out.append(trig_roots(_trig_square(ce) - _linear(rho[:, None] ** 2 * g2)))
    out.append(trig_roots(_linear(ce)))
    return np.concatenate(out)


def shielded_from(
    table: Table, origin: Point, models: Sequence[int], *, grazing: bool = False
) -> np.ndarray:
    """B3 option: for each model index, whether the segment from ``origin`` to its centre
    crosses a large terrain piece (G5 beam rule; bases never shield)."""
    return shielded_many(table, [origin] * len(models), models, grazing=grazing)


def shielded_many(
    table: Table, origins: Sequence[Point], models: Sequence[int] | np.ndarray, *,
    grazing: bool = False
) -> np.ndarray:
    """:func:`shielded_from` for pairs (origin i, model i); equal origins kept together."""
    if not len(models) or not table.terrain:
        return np.zeros(len(models), dtype=np.bool_)
    kind, disc, eoff, edges, bbox, blocks, half = _terrain_arrays(table)
    ax = np.array([p.x for p in origins], dtype=np.float64)
    ay = np.array([p.y for p in origins], dtype=np.float64)
    xy, _ = _xy_r(table)
    idx = np.asarray(models, dtype=np.int64)
    none = np.full(len(idx), -1, dtype=np.int64)
    k = backend.kernels(len(idx) * len(kind) * 4)
    _, _, _, first = k.centre_lines(ax, ay, xy[idx, 0], xy[idx, 1], none, none, kind, disc,
                                    eoff, edges, bbox, blocks, half, grazing, True)
    return np.asarray(first >= 0)


def sweep(
    table: Table,
    shooter: str,
    *,
    tolerance: float | None = None,
    strict: bool = False,
    ordered: bool = False,
    tie_tolerance: float | None = None,
    shield: bool = False,
    grazing: bool = False,
) -> Sweep:
    """Every aim of ``shooter``'s cone as arcs where it touches the same bases (B1-B3).

    Exact: the arcs' ends are the closed-form critical aims of each base that can be
    reached (see the module's docstring), merged when closer than ``ANGLE_EPS``. With
    ``ordered`` the aims where the B7 order or its ties change are added; with
    ``shield`` those where a large piece starts or stops hiding a base from the apex.
    Consecutive arcs with the same victims (in the same order when ``ordered``) merge.
    """
    model = table.model(shooter)
    length, width = cone_size(table)
    tol = table.contact_tolerance if tolerance is None else tolerance
    tie = table.contact_tolerance if tie_tolerance is None else tie_tolerance
    s = np.array([model.at.x, model.at.y])
    r, half = model.base.radius, width / 2.0
    xy, radii = _xy_r(table)
    # the predicate's own thresholds (see _is_touched), so that arcs end where it changes
    reach = radii + (-EPS if strict else tol + EPS)
    far = math.hypot(r + length, half)
    v_all = xy - s
    me = table.model_index(shooter)
    cand = np.array([i for i in range(len(xy)) if i != me
                     and math.hypot(*v_all[i]) <= far + reach[i] + 1e-6], dtype=np.int64)
    v, rc = v_all[cand], reach[cand]
    crit = [_membership_angles(v, rc, r, length, half)]
    if ordered:
        crit.append(_order_angles(v, radii[cand], r, tie))
    if shield:
        crit.append(_blocking_angles(table, s, r, v, far + float(rc.max(initial=0.0))))
    angles = np.sort(np.mod(np.concatenate(crit), TWO_PI)) if len(cand) else np.zeros(0)
    angles = angles[np.isfinite(angles)]
    if len(angles):
        keep = np.concatenate([[True], np.diff(angles) > ANGLE_EPS])
        angles = angles[keep]
        if len(angles) > 1 and angles[-1] - angles[0] > TWO_PI - ANGLE_EPS:
            angles = angles[:-1]
    if len(angles) == 0:
        starts, ends = np.array([0.0]), np.array([TWO_PI])
    else:
        starts, ends = angles, np.append(angles[1:], angles[0] + TWO_PI)
    mids = (starts + ends) / 2.0
    arcs = _arcs(table, cand, v, radii[cand], rc, r, length, half, starts, ends, mids,
                 s=s, strict=strict, tol=tol, tie=tie, shield=shield, grazing=grazing)
    ids = tuple(table.models[i].id for i in cand)
    return Sweep(shooter, tuple(float(a) for a in np.degrees(angles)),
                 _merge(arcs, ordered), ids)


def _arcs(table: Table, cand: np.ndarray, v: np.ndarray, radii: np.ndarray,
          reach: np.ndarray, r: float, length: float, half: float, starts: np.ndarray,
          ends: np.ndarray, mids: np.ndarray, *, s: np.ndarray, strict: bool, tol: float,
          tie: float, shield: bool, grazing: bool) -> list[Arc]:
    """Evaluate the victims at the middle of each arc, all arcs at once."""
    cu, su = np.cos(mids)[:, None], np.sin(mids)[:, None]
    x = v[None, :, 0] * cu + v[None, :, 1] * su - r
    y = -v[None, :, 0] * su + v[None, :, 1] * cu
    gap = _cone_sd(x, y, length, half) - radii[None, :]
    inside = _is_touched(gap, tol, strict)
    dist = np.maximum(0.0, np.hypot(x, y) - radii[None, :])
    blocked = np.zeros_like(inside)
    if shield and inside.any():
        rows, cols = np.nonzero(inside)
        apex = [Point(float(s[0] + r * math.cos(mids[a])), float(s[1] + r * math.sin(mids[a])))
                for a in rows]
        blocked[rows, cols] = shielded_many(table, apex, cand[cols], grazing=grazing)
    ids = [table.models[i].id for i in cand]
    # the B7 order of each row at once; only rows that differ from the one before (in
    # victims, order, ties or shielded) need their Arc built, the others extend it
    vis = inside & ~blocked
    d = np.where(vis, dist, np.inf)
    order = np.argsort(d, axis=1, kind="stable")
    live = np.arange(len(cand))[None, :] < vis.sum(axis=1)[:, None]
    srt = np.take_along_axis(d, order, axis=1)
    close = np.zeros_like(live)
    with np.errstate(invalid="ignore"):  # inf - inf past the victims: masked by live
        close[:, 1:] = live[:, 1:] & (srt[:, 1:] - srt[:, :-1] <= tie + EPS)
    key = np.hstack([np.where(live, order, -1), close, blocked])
    fresh = np.ones(len(mids), dtype=np.bool_)
    fresh[1:] = np.any(key[1:] != key[:-1], axis=1)
    arcs: list[Arc] = []
    for a in range(len(mids)):
        if not fresh[a]:
            arcs[-1] = Arc(arcs[-1].start, math.degrees(ends[a]), arcs[-1].victims,
                           arcs[-1].ties, arcs[-1].shielded)
            continue
        touches = [Touch(ids[j], float(gap[a, j]), float(dist[a, j]))
                   for j in np.flatnonzero(vis[a])]
        groups = tie_groups(touches, tie)
        arcs.append(Arc(math.degrees(starts[a]), math.degrees(ends[a]),
                        tuple(i for g in groups for i in g), groups,
                        tuple(sorted(ids[j] for j in np.flatnonzero(blocked[a])))))
    return arcs


def _merge(arcs: list[Arc], ordered: bool) -> tuple[Arc, ...]:
    """Join neighbouring arcs with the same victims (and order, if it counts)."""

    def key(arc: Arc) -> tuple[object, ...]:
        return (arc.ties if ordered else frozenset(arc.victims), arc.shielded)

    out: list[Arc] = []
    for arc in arcs:
        if out and key(out[-1]) == key(arc):
            out[-1] = Arc(out[-1].start, arc.end, out[-1].victims, out[-1].ties,
                          out[-1].shielded)
        else:
            out.append(arc)
    if len(out) > 1 and key(out[0]) == key(out[-1]):
        last = out.pop()
        out[0] = Arc(last.start - 360.0, out[0].end, out[0].victims, out[0].ties,
                     out[0].shielded)
    if len(out) == 1:
        out[0] = Arc(out[0].start, out[0].start + 360.0, out[0].victims, out[0].ties,
                     out[0].shielded)
    return tuple(out)


def check_blast(blast: Blast) -> None:
    """Check a blast (B10) for use: a positive, finite radius."""
    if not (math.isfinite(blast.radius) and blast.radius > 0):
        raise RulesError(f"B10: a blast needs a positive radius, got {blast.radius!r}")
    if not (math.isfinite(blast.centre.x) and math.isfinite(blast.centre.y)):
        raise RulesError(f"B10: the blast's centre must be finite, got {blast.centre}")


__all__ = [
    "Arc",
    "Blast",
    "Cone",
    "Sweep",
    "Template",
    "Touch",
    "aim_at",
    "check_blast",
    "cone_size",
    "draw_order",
    "place_cone",
    "shielded_from",
    "shielded_many",
    "sweep",
    "tie_groups",
    "touched",
    "trig_roots",
]
