"""The sweep of a breath cone's aims (B1-B3, B7): every direction of one shooter's cone
as arcs where it touches the same bases, found exactly.

As the aim turns, the apex moves on the shooter's base circle; in the cone's own frame
each base centre moves on a circle around the shooter's centre. What the cone touches
changes only where that circle crosses the boundary of the cone dilated by the base's
reach (:func:`~arbitre.templates.is_touched`'s own threshold): an offset side, the offset
far side, or an arc around a corner. Those angles are closed forms; :func:`sweep` lists
them, with (optionally) the angles where two victims' distances come within the tie
tolerance (the order changes, B6-B7) and where the centre line from the apex to a base
starts or stops crossing a large piece (B3 option), and evaluates one direction inside
each arc between them. The best aim of a breath (:func:`arbitre.rules.breath.best`)
values those arcs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from arbitre.geometry import EPS, Point
from arbitre.table import Table
from arbitre.templates import (
    Touch,
    centres,
    cone_sd,
    cone_size,
    is_touched,
    shielded_many,
    terrain_arrays,
    tie_groups,
)

TWO_PI = 2.0 * math.pi
#: Two critical angles closer than this (radians; 1.5e-7 mm at 6 toises of 25 mm) are one.
ANGLE_EPS = 1e-9


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
    poly = np.stack(
        [(a2 - 1j * b2) / 2, (a1 - 1j * b1) / 2, a0 + 0j, (a1 + 1j * b1) / 2, (a2 + 1j * b2) / 2],
        axis=1,
    )
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
    return np.stack(
        [
            e0 * e0 + (e1 * e1 + e2 * e2) / 2,
            2 * e0 * e1,
            2 * e0 * e2,
            (e1 * e1 - e2 * e2) / 2,
            e1 * e2,
        ],
        axis=1,
    )


def _linear(e: np.ndarray) -> np.ndarray:
    """Coefficients of the linear trig form (e0, e1, e2) as (a0, a1, b1, 0, 0)."""
    return np.hstack([e, np.zeros((len(e), 2))])


def _membership_angles(
    v: np.ndarray, reach: np.ndarray, r: float, length: float, half: float
) -> np.ndarray:
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


def _blocking_shapes(
    table: Table, s: np.ndarray, within: float
) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """The large pieces within ``within`` of s as circles (centre, radius) and lines (unit
    normal, offset: n . p = k), each inflated by half the beam and +-EPS around it, as the
    kernels test (G5): a round piece's circle, a polygon's corners and offset sides."""
    kind, disc, eoff, edges, bbox, blocks, half = terrain_arrays(table)
    pads = sorted({0.0, half, half + EPS, max(0.0, half - EPS)})
    circles: list[tuple[float, float, float]] = []
    lines: list[tuple[float, float, float]] = []  # unit normal (nx, ny), offset k: n . p = k
    for k in np.flatnonzero(blocks):
        bx0, by0, bx1, by1 = bbox[k]
        if (
            max(bx0 - s[0], s[0] - bx1, 0.0) ** 2 + max(by0 - s[1], s[1] - by1, 0.0) ** 2
            > (within + half + 1.0) ** 2
        ):
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
    return circles, lines


def _blocking_angles(
    table: Table, s: np.ndarray, r: float, v: np.ndarray, within: float
) -> np.ndarray:
    """Aims where the segment from the apex (on the circle of radius r around s) to a base
    centre (s + v) starts or stops crossing a large piece under the beam rule (G5): the
    line through the apex tangent to a corner's circle (or a round piece's) inflated by
    half the beam, or the apex itself crossing an inflated side or circle. Only pieces
    within ``within`` of s matter (:func:`_blocking_shapes`)."""
    if r <= 0 or len(v) == 0:
        return np.zeros(0)
    circles, lines = _blocking_shapes(table, s, within)
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
        out.append(
            _unit_circle_line(np.full(len(kl), r), np.arctan2(ln_arr[:, 1], ln_arr[:, 0]), kl)
        )
    # the line through the apex and c tangent to circle (q, rho), for every base c:
    # cross(g - r u, w)^2 = rho^2 |g - r u|^2 with g = c - s, w = q - c
    gi = np.repeat(v, len(q), axis=0)
    w = np.tile(q, (len(v), 1)) - gi
    rho = np.tile(rel[:, 2], len(v))
    ce = np.stack([gi[:, 0] * w[:, 1] - gi[:, 1] * w[:, 0], -r * w[:, 1], r * w[:, 0]], axis=1)
    g2 = np.stack([(gi * gi).sum(axis=1) + r * r, -2 * r * gi[:, 0], -2 * r * gi[:, 1]], axis=1)
    out.append(trig_roots(_trig_square(ce) - _linear(rho[:, None] ** 2 * g2)))
    out.append(trig_roots(_linear(ce)))
    return np.concatenate(out)


@dataclass(frozen=True, slots=True)
class _Frame:
    """One shooter's sweep: its centre ``s`` and base radius ``r``, the cone's length and
    half width, and the bases within reach: their indices, offsets from ``s``, base radii
    and reach (radius plus the touching threshold)."""

    s: np.ndarray
    r: float
    length: float
    half: float
    cand: np.ndarray
    v: np.ndarray
    radii: np.ndarray
    reach: np.ndarray

    @property
    def far(self) -> float:
        """The farthest a point of the cone gets from the shooter's centre."""
        return math.hypot(self.r + self.length, self.half)


def _frame(table: Table, shooter: str, tol: float, strict: bool) -> _Frame:
    model = table.model(shooter)
    length, width = cone_size(table)
    s = np.array([model.at.x, model.at.y])
    r, half = model.base.radius, width / 2.0
    xy, radii = centres(table)
    # the predicate's own thresholds (is_touched: G4 contact is gap <= tol + EPS), so that
    # arcs end where it changes
    reach = radii + (-EPS if strict else tol + EPS)
    far = math.hypot(r + length, half)
    v_all = xy - s
    me = table.model_index(shooter)
    cand = np.array(
        [i for i in range(len(xy)) if i != me and math.hypot(*v_all[i]) <= far + reach[i] + 1e-6],
        dtype=np.int64,
    )
    return _Frame(
        s=s,
        r=r,
        length=length,
        half=half,
        cand=cand,
        v=v_all[cand],
        radii=radii[cand],
        reach=reach[cand],
    )


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
    tol = table.contact_tolerance if tolerance is None else tolerance
    tie = table.contact_tolerance if tie_tolerance is None else tie_tolerance
    f = _frame(table, shooter, tol, strict)
    angles = _critical(table, f, tie, ordered=ordered, shield=shield)
    if len(angles) == 0:
        starts, ends = np.array([0.0]), np.array([TWO_PI])
    else:
        starts, ends = angles, np.append(angles[1:], angles[0] + TWO_PI)
    arcs = _arcs(
        table, f, starts, ends, strict=strict, tol=tol, tie=tie, shield=shield, grazing=grazing
    )
    ids = tuple(table.models[i].id for i in f.cand)
    return Sweep(shooter, tuple(float(a) for a in np.degrees(angles)), _merge(arcs, ordered), ids)


def _critical(table: Table, f: _Frame, tie: float, *, ordered: bool, shield: bool) -> np.ndarray:
    """The critical aims (radians in [0, 2 pi), sorted, near ones merged)."""
    if not len(f.cand):
        return np.zeros(0)
    crit = [_membership_angles(f.v, f.reach, f.r, f.length, f.half)]
    if ordered:
        crit.append(_order_angles(f.v, f.radii, f.r, tie))
    if shield:
        crit.append(_blocking_angles(table, f.s, f.r, f.v, f.far + float(f.reach.max(initial=0.0))))
    angles = np.sort(np.mod(np.concatenate(crit), TWO_PI))
    angles = angles[np.isfinite(angles)]
    if len(angles):
        keep = np.concatenate([[True], np.diff(angles) > ANGLE_EPS])
        angles = angles[keep]
        if len(angles) > 1 and angles[-1] - angles[0] > TWO_PI - ANGLE_EPS:
            angles = angles[:-1]
    return np.asarray(angles, dtype=np.float64)


def _rows(
    table: Table,
    f: _Frame,
    mids: np.ndarray,
    *,
    strict: bool,
    tol: float,
    shield: bool,
    grazing: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """At each aim of ``mids`` (rows) and for each base within reach (columns): its gap to
    the cone, its B7 distance from the apex, and whether the cone touches it and a large
    piece does not shield it (B3): a victim."""
    cu, su = np.cos(mids)[:, None], np.sin(mids)[:, None]
    x = f.v[None, :, 0] * cu + f.v[None, :, 1] * su - f.r
    y = -f.v[None, :, 0] * su + f.v[None, :, 1] * cu
    gap = cone_sd(x, y, f.length, f.half) - f.radii[None, :]
    inside = is_touched(gap, tol, strict)
    dist = np.maximum(0.0, np.hypot(x, y) - f.radii[None, :])
    blocked = np.zeros_like(inside)
    if shield and inside.any():
        rows, cols = np.nonzero(inside)
        apex = [
            Point(float(f.s[0] + f.r * math.cos(mids[a])), float(f.s[1] + f.r * math.sin(mids[a])))
            for a in rows
        ]
        blocked[rows, cols] = shielded_many(table, apex, f.cand[cols], grazing=grazing)
    return gap, dist, inside & ~blocked, blocked


def _fresh(vis: np.ndarray, dist: np.ndarray, blocked: np.ndarray, tie: float) -> np.ndarray:
    """Which rows differ from the one before (in victims, B7 order, ties or shielded): only
    those need their arc built, the others extend it. The B7 order of every row at once."""
    d = np.where(vis, dist, np.inf)
    order = np.argsort(d, axis=1, kind="stable")
    live = np.arange(vis.shape[1])[None, :] < vis.sum(axis=1)[:, None]
    srt = np.take_along_axis(d, order, axis=1)
    close = np.zeros_like(live)
    with np.errstate(invalid="ignore"):  # inf - inf past the victims: masked by live
        close[:, 1:] = live[:, 1:] & (srt[:, 1:] - srt[:, :-1] <= tie + EPS)
    key = np.hstack([np.where(live, order, -1), close, blocked])
    fresh = np.ones(len(vis), dtype=np.bool_)
    fresh[1:] = np.any(key[1:] != key[:-1], axis=1)
    return fresh


def _arcs(
    table: Table,
    f: _Frame,
    starts: np.ndarray,
    ends: np.ndarray,
    *,
    strict: bool,
    tol: float,
    tie: float,
    shield: bool,
    grazing: bool,
) -> list[Arc]:
    """Evaluate the victims at the middle of each arc, all arcs at once."""
    gap, dist, vis, blocked = _rows(
        table, f, (starts + ends) / 2.0, strict=strict, tol=tol, shield=shield, grazing=grazing
    )
    fresh = _fresh(vis, dist, blocked, tie)
    ids = [table.models[i].id for i in f.cand]
    arcs: list[Arc] = []
    for a in range(len(starts)):
        if not fresh[a]:
            arcs[-1] = replace(arcs[-1], end=math.degrees(ends[a]))
            continue
        touches = [
            Touch(ids[j], float(gap[a, j]), float(dist[a, j])) for j in np.flatnonzero(vis[a])
        ]
        groups = tie_groups(touches, tie)
        arcs.append(
            Arc(
                start=math.degrees(starts[a]),
                end=math.degrees(ends[a]),
                victims=tuple(i for g in groups for i in g),
                ties=groups,
                shielded=tuple(sorted(ids[j] for j in np.flatnonzero(blocked[a]))),
            )
        )
    return arcs


def _merge(arcs: list[Arc], ordered: bool) -> tuple[Arc, ...]:
    """Join neighbouring arcs with the same victims (and order, if it counts)."""

    def key(arc: Arc) -> tuple[object, ...]:
        return (arc.ties if ordered else frozenset(arc.victims), arc.shielded)

    out: list[Arc] = []
    for arc in arcs:
        if out and key(out[-1]) == key(arc):
            out[-1] = replace(out[-1], end=arc.end)
        else:
            out.append(arc)
    if len(out) > 1 and key(out[0]) == key(out[-1]):
        last = out.pop()
        out[0] = replace(out[0], start=last.start - 360.0)
    if len(out) == 1:
        out[0] = replace(out[0], end=out[0].start + 360.0)
    return tuple(out)


__all__ = ["ANGLE_EPS", "TWO_PI", "Arc", "Sweep", "sweep", "trig_roots"]
