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
each arc between them. This is the one-dimensional family of placements with the apex
in the aim direction (the outward radius); the best placement of a breath searches both
degrees of freedom (:mod:`arbitre.cone_space`), which takes the apex-only events from
here (:func:`_order_angles`, :func:`_blocking_angles`).

**Bounded work.** A base can only be touched by aims within its *window*: the cone seen
from the shooter's centre spans ``atan(half width / (radius + length))`` either side of
the aim, and a base of reach rho at distance d widens that by ``asin(rho / d)``. Only
pairs of bases whose windows overlap can swap places in the B7 order, and only if their
distances from the shooter's centre differ by at most the apex's travel (twice the
shooter's base radius) plus the shift sought, so only their order angles are solved, in
batches of :data:`ROOT_ROWS`; and when the order counts, an angle of a base (or of a
pair) outside its window is dropped (it cannot change the victims). The victims are
evaluated in chunks of at most :data:`CELLS` (aim, base) cells, each chunk over the bases
whose windows meet its aims: no per-pair or per-aim matrix beyond that bound is built.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from arbitre.cone_roots import (
    TWO_PI,
    circle_line,
    linear,
    trig_roots,
    trig_roots_rows,
    trig_square,
    wrap,
)
from arbitre.geometry import EPS
from arbitre.table import Table
from arbitre.templates import (
    centres,
    cone_sd,
    cone_size,
    is_touched,
    shielded_at,
    terrain_arrays,
)

#: Two critical angles closer than this (radians; 1.5e-7 mm at 6 toises of 25 mm) are one.
ANGLE_EPS = 1e-9
#: The most (aim, base) cells or (base, base) pair tests built at once.
CELLS = 1 << 18
#: The most rows (pairs of bases, or base and terrain shape) solved for roots at once.
ROOT_ROWS = CELLS // 8
#: Slack added to every base's window (radians): float error in a root costs nothing.
WINDOW_PAD = 1e-5


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


@dataclass(frozen=True, slots=True)
class _Frame:
    """One shooter's sweep: its centre ``s`` and base radius ``r``, the cone's length and
    half width, and the bases within reach: their indices, offsets from ``s`` (distance
    ``d``, direction ``phi``), base radii, reach (radius plus the touching threshold) and
    window (the half width, radians, of the aims around ``phi`` that can touch them)."""

    s: np.ndarray
    r: float
    length: float
    half: float
    cand: np.ndarray
    v: np.ndarray
    d: np.ndarray
    phi: np.ndarray
    radii: np.ndarray
    reach: np.ndarray
    window: np.ndarray

    @property
    def far(self) -> float:
        """The farthest a point of the cone gets from the shooter's centre."""
        return math.hypot(self.r + self.length, self.half)

    def within(self, angles: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Whether each aim of ``angles`` is in the window of the base ``rows``."""
        return np.asarray(np.abs(wrap(angles - self.phi[rows])) <= self.window[rows])


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
    d_all = np.hypot(v_all[:, 0], v_all[:, 1])
    near = d_all <= far + reach + 1e-6
    near[table.model_index(shooter)] = False
    cand = np.flatnonzero(near).astype(np.int64)
    v = v_all[cand]
    d = np.hypot(v[:, 0], v[:, 1])
    rho = np.maximum(reach[cand], 0.0)
    ratio = np.divide(rho, d, out=np.full_like(d, 2.0), where=d > 0)
    spread = math.atan2(half, r + length) + np.arcsin(np.minimum(ratio, 1.0)) + WINDOW_PAD
    window = np.where(ratio < 1.0 - 1e-9, np.minimum(spread, math.pi), math.pi)
    return _Frame(
        s=s,
        r=r,
        length=length,
        half=half,
        cand=cand,
        v=v,
        d=d,
        phi=np.arctan2(v[:, 1], v[:, 0]),
        radii=radii[cand],
        reach=reach[cand],
        window=window,
    )


def _membership_angles(f: _Frame, windowed: bool) -> np.ndarray:
    """Aims where a base centre (v from the shooter's centre) meets the boundary of the cone
    dilated by ``reach``: an offset side, the offset far side, a circle around a corner.

    In the cone's frame (apex at (r, 0), axis +x) the centre is at angle phi - aim on the
    circle |p| = |v|; each boundary piece lies on a line p . n = k (a corner's circle meets
    |p| = |v| on one too), crossed where phi - aim = angle(n) +- acos(k / |v|).
    """
    d, phi, r, length, half, reach = f.d, f.phi, f.r, f.length, f.half, f.reach
    hyp = math.hypot(length, half)
    out = []
    k_side = -half * r / hyp + reach  # the sides' outward normals (-h, +-L) / hyp
    for sgn in (1.0, -1.0):
        out.append(circle_line(d, phi - math.atan2(sgn * length, -half), k_side))
    out.append(circle_line(d, phi, r + length + reach))  # the far side, x = r + L
    for cx, cy in ((r, 0.0), (r + length, half), (r + length, -half)):
        cd = math.hypot(cx, cy)
        if cd > 0.0:  # (a corner on the shooter's centre is always as far: no crossing)
            k = (d * d + cd * cd - reach * reach) / (2 * cd)
            out.append(circle_line(d, phi - math.atan2(cy, cx), k))
    angles = np.concatenate([a for a, _ in out])
    if not windowed:
        return angles
    return np.asarray(angles[f.within(angles, np.concatenate([rows for _, rows in out]))])


def _pairs(f: _Frame, spread: float) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The pairs i < j of bases whose windows overlap (the only ones that can both be
    victims at one aim) and whose distances from the shooter's centre differ by at most
    ``spread``, in batches of at most :data:`ROOT_ROWS`."""
    n = len(f.cand)
    block = max(1, CELLS // max(n, 1))
    cols = np.arange(n)
    for lo in range(0, n - 1, block):
        hi = min(n, lo + block)
        gap = np.abs(wrap(f.phi[lo:hi, None] - f.phi[None, :]))
        ok = (
            (gap <= f.window[lo:hi, None] + f.window[None, :])
            & (np.abs(f.d[lo:hi, None] - f.d[None, :]) <= spread)
            & (cols[None, :] > np.arange(lo, hi)[:, None])
        )
        i, j = np.nonzero(ok)
        for k in range(0, len(i), ROOT_ROWS):
            yield i[k : k + ROOT_ROWS] + lo, j[k : k + ROOT_ROWS]


def _order_angles(f: _Frame, tie: float) -> list[np.ndarray]:
    """Aims where two bases' B7 distances from the apex (on the circle of radius r) are
    equal or differ by the tie threshold, or one of them reaches 0 (the apex on its base),
    while both can be touched.

    With P the distance from the apex to a centre, P^2 = alpha + beta cos t + gamma sin t;
    P_i - P_j = delta squares twice into a trigonometric quartic (:func:`trig_roots`).
    As P_i is within r of d_i (the apex is r from the centre), P_i - P_j = delta has a
    root only if |d_i - d_j - delta| <= 2 r: the other pairs are not solved.
    """
    if f.r <= 0 or len(f.v) == 0:
        return []
    v, d, phi, r, radii = f.v, f.d, f.phi, f.r, f.radii
    shifts = sorted({0.0, tie + EPS, -(tie + EPS)})
    out = []
    for sh in shifts:  # |v - r u| = rho + sh: u . v^ = (d^2 + r^2 - (rho + sh)^2) / (2 d r)
        rho = radii + sh
        ok = (rho >= 0) & (d > 0)
        k = (d[ok] ** 2 + r * r - rho[ok] ** 2) / (2 * d[ok])
        angles, sub = circle_line(np.full(int(ok.sum()), r), phi[ok], k)
        out.append(angles[f.within(angles, np.flatnonzero(ok)[sub])])
    alpha = d * d + r * r
    beta, gamma = -2 * r * v[:, 0], -2 * r * v[:, 1]
    reach = 2 * r + 1e-6 * (1.0 + float(d.max(initial=0.0)))  # the slack of the test
    spread = reach + float(np.ptp(radii)) + tie + EPS if len(radii) else reach
    for i, j in _pairs(f, spread):
        lin = np.stack([alpha[i] - alpha[j], beta[i] - beta[j], gamma[i] - gamma[j]], axis=1)
        pj = np.stack([alpha[j], beta[j], gamma[j]], axis=1)
        equal = np.abs(d[i] - d[j]) <= reach
        found = [_rows_of(trig_roots_rows(linear(lin[equal])), equal)]  # P_i = P_j
        for sh in shifts:
            delta = radii[i] - radii[j] + sh
            near = np.abs(d[i] - d[j] - delta) <= reach
            dl, ln = delta[near][:, None], lin[near]
            # P_i = P_j + delta  =>  (D - delta^2)^2 = 4 delta^2 P_j^2, D = P_i^2 - P_j^2
            e = ln - np.hstack([dl * dl, np.zeros((len(ln), 2))])
            quartic = trig_square(e) - linear(4 * dl * dl * pj[near])
            found.append(_rows_of(trig_roots_rows(quartic), near))
        angles = np.concatenate([a for a, _ in found])
        rows = np.concatenate([p for _, p in found])
        out.append(angles[f.within(angles, i[rows]) & f.within(angles, j[rows])])
    return out


def _rows_of(
    roots: tuple[np.ndarray, np.ndarray], kept: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Roots found for the rows ``kept`` (a mask) of a batch, with their rows in it."""
    return roots[0], np.flatnonzero(kept)[roots[1]]


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
    table: Table, f: _Frame, windowed: bool, reach: float | None = None
) -> list[np.ndarray]:
    """Aims where the segment from the apex (on the circle of radius r around s) to a base
    centre (s + v) starts or stops crossing a large piece under the beam rule (G5): the
    line through the apex tangent to a corner's circle (or a round piece's) inflated by
    half the beam, or the apex itself crossing an inflated side or circle. Only pieces
    within reach of the cone matter (:func:`_blocking_shapes`); the tangents are found
    for a batch of bases at a time. With ``reach`` (mm) a tangent is kept only where it
    touches the circle between the apex and the base's centre, and the base is within
    ``reach`` plus its own reach of the apex (any axis: :mod:`arbitre.cone_space`)."""
    s, r, v = f.s, f.r, f.v
    if r <= 0 or len(v) == 0:
        return []
    circles, lines = _blocking_shapes(table, s, f.far + float(f.reach.max(initial=0.0)))
    if not circles:
        return []
    out = []
    rel = np.asarray(circles, dtype=np.float64).reshape(-1, 3)
    q = rel[:, :2] - s
    qd = np.hypot(q[:, 0], q[:, 1])
    # the apex s + r u on a circle (q, rho): u . q^ = (r^2 + |q|^2 - rho^2) / (2 r |q|)
    kq = (r * r + qd * qd - rel[:, 2] ** 2) / (2 * np.maximum(qd, 1e-300))
    out.append(circle_line(np.full(len(q), r), np.arctan2(q[:, 1], q[:, 0]), kq)[0])
    if lines:
        ln_arr = np.asarray(lines, dtype=np.float64).reshape(-1, 3)
        kl = ln_arr[:, 2] - ln_arr[:, 0] * s[0] - ln_arr[:, 1] * s[1]
        out.append(circle_line(np.full(len(kl), r), np.arctan2(ln_arr[:, 1], ln_arr[:, 0]), kl)[0])
    # the line through the apex and c tangent to circle (q, rho), for every base c:
    # cross(g - r u, w)^2 = rho^2 |g - r u|^2 with g = c - s, w = q - c
    nq = len(q)
    step = max(1, ROOT_ROWS // nq)
    for lo in range(0, len(v), step):
        gi = np.repeat(v[lo : lo + step], nq, axis=0)
        w = np.tile(q, (len(gi) // nq, 1)) - gi
        rho = np.tile(rel[:, 2], len(gi) // nq)
        ce = np.stack([gi[:, 0] * w[:, 1] - gi[:, 1] * w[:, 0], -r * w[:, 1], r * w[:, 0]], axis=1)
        g2 = np.stack([(gi * gi).sum(axis=1) + r * r, -2 * r * gi[:, 0], -2 * r * gi[:, 1]], axis=1)
        for angles, rows in (
            trig_roots_rows(trig_square(ce) - linear(rho[:, None] ** 2 * g2)),
            trig_roots_rows(linear(ce)),
        ):
            if reach is not None:
                angles = angles[_tangent_kept(f, q, angles, lo + rows // nq, rows % nq, reach)]
            out.append(angles[f.within(angles, lo + rows // nq)] if windowed else angles)
    return out


def _tangent_kept(
    f: _Frame, q: np.ndarray, angles: np.ndarray, base: np.ndarray, shape: np.ndarray, reach: float
) -> np.ndarray:
    """Which tangent aims matter for any axis: the nearest point of the line to the
    circle's centre lies on the segment from the apex to the base (within 1e-3 of its
    length past either end), and the base is within ``reach`` of the apex."""
    ax, ay = f.r * np.cos(angles), f.r * np.sin(angles)
    gx, gy = f.v[base, 0] - ax, f.v[base, 1] - ay
    qx, qy = q[shape, 0] - ax, q[shape, 1] - ay
    g2 = gx * gx + gy * gy
    t = (qx * gx + qy * gy) / np.maximum(g2, 1e-300)
    near = np.sqrt(g2) <= reach + f.reach[base] + 1e-6
    return np.asarray((t >= -1e-3) & (t <= 1 + 1e-3) & near)


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
    """The critical aims (radians in [0, 2 pi), sorted, near ones merged). When the order
    counts, the angles of a base outside its window are left out: the arcs they would
    split have the same victims in the same order on both sides, and merge."""
    if not len(f.cand):
        return np.zeros(0)
    crit = [_membership_angles(f, ordered)]
    if ordered:
        crit.extend(_order_angles(f, tie))
    if shield:
        crit.extend(_blocking_angles(table, f, ordered))
    return circle_angles(crit, ANGLE_EPS)


def circle_angles(parts: Sequence[np.ndarray], eps: float) -> np.ndarray:
    """The angles of ``parts`` on the circle: in [0, 2 pi), finite, sorted, those within
    ``eps`` of the one before merged (across 2 pi too)."""
    angles = np.sort(np.mod(np.concatenate([np.ravel(a) for a in parts]), TWO_PI))
    angles = angles[np.isfinite(angles)]
    if len(angles):
        keep = np.concatenate([[True], np.diff(angles) > eps])
        angles = angles[keep]
        if len(angles) > 1 and angles[-1] - angles[0] > TWO_PI - eps:
            angles = angles[:-1]
    return np.asarray(angles, dtype=np.float64)


def _columns(f: _Frame, first: float, last: float) -> np.ndarray:
    """The bases whose windows meet the aims ``first`` to ``last`` (radians, ascending)."""
    centre, half = (first + last) / 2.0, (last - first) / 2.0
    return np.flatnonzero(np.abs(wrap(f.phi - centre)) <= f.window + half)


def _chunks(f: _Frame, mids: np.ndarray) -> Iterator[tuple[int, int, np.ndarray]]:
    """Consecutive runs ``lo:hi`` of the (ascending) aims ``mids`` with the bases that can
    be touched in them, each run at most :data:`CELLS` cells (aims x bases)."""
    lo, rows = 0, 1024
    while lo < len(mids):
        hi = min(len(mids), lo + rows)
        cols = _columns(f, float(mids[lo]), float(mids[hi - 1]))
        if (hi - lo) * len(cols) > CELLS and hi - lo > 1:
            rows = max(1, CELLS // len(cols))
            continue
        yield lo, hi, cols
        lo = hi
        rows = min(2 * rows, CELLS)


def _rows(
    table: Table,
    f: _Frame,
    mids: np.ndarray,
    cols: np.ndarray,
    *,
    strict: bool,
    tol: float,
    shield: bool,
    grazing: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At each aim of ``mids`` (rows) and for each base ``cols`` (columns): its B7
    distance from the apex, and whether the cone touches it and a large piece does not
    shield it (B3): a victim; and whether it is touched but shielded."""
    v, radii = f.v[cols], f.radii[cols]
    cu, su = np.cos(mids)[:, None], np.sin(mids)[:, None]
    x = v[None, :, 0] * cu + v[None, :, 1] * su - f.r
    y = -v[None, :, 0] * su + v[None, :, 1] * cu
    gap = cone_sd(x, y, f.length, f.half) - radii[None, :]
    inside = is_touched(gap, tol, strict)
    dist = np.maximum(0.0, np.hypot(x, y) - radii[None, :])
    blocked = np.zeros_like(inside)
    if shield and inside.any():
        rows, cc = np.nonzero(inside)
        ax = f.s[0] + f.r * np.cos(mids[rows])
        ay = f.s[1] + f.r * np.sin(mids[rows])
        blocked[rows, cc] = shielded_at(table, ax, ay, f.cand[cols][cc], grazing=grazing)
    return dist, inside & ~blocked, blocked


@dataclass(frozen=True, slots=True)
class _Keys:
    """Each row's victims in B7 order (column positions, the first ``live`` of each row),
    whether each is within the tie threshold of the one before, and which row differs
    from the one before (in victims, order, ties or shielded)."""

    order: np.ndarray
    live: np.ndarray
    close: np.ndarray
    fresh: np.ndarray


def _keys(vis: np.ndarray, dist: np.ndarray, blocked: np.ndarray, tie: float) -> _Keys:
    """The B7 order of every row at once, and which rows are fresh: only those need their
    arc built, the others extend it."""
    d = np.where(vis, dist, np.inf)
    order = np.argsort(d, axis=1, kind="stable")
    count = vis.sum(axis=1)
    live = np.arange(vis.shape[1])[None, :] < count[:, None]
    srt = np.take_along_axis(d, order, axis=1)
    close = np.zeros_like(live)
    with np.errstate(invalid="ignore"):  # inf - inf past the victims: masked by live
        close[:, 1:] = live[:, 1:] & (srt[:, 1:] - srt[:, :-1] <= tie + EPS)
    key = np.hstack([np.where(live, order, -1), close, blocked])
    fresh = np.ones(len(vis), dtype=np.bool_)
    fresh[1:] = np.any(key[1:] != key[:-1], axis=1)
    return _Keys(order, count, close, fresh)


def _row_arc(
    ids: list[str], cols: np.ndarray, k: _Keys, blocked: np.ndarray, a: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """Row ``a``'s B7 groups (ids sorted within a group, as
    :func:`~arbitre.templates.tie_groups`) and its shielded bases."""
    n = int(k.live[a])
    names = [ids[c] for c in cols[k.order[a, :n]]]
    cuts = [0, *(np.flatnonzero(~k.close[a, 1:n]) + 1).tolist(), n] if n else [0]
    groups = tuple(tuple(sorted(names[x:y])) for x, y in itertools.pairwise(cuts))
    return groups, tuple(sorted(ids[c] for c in cols[np.flatnonzero(blocked[a])]))


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
    """Evaluate the victims at the middle of each arc, a chunk of arcs at a time (each
    chunk over the bases that can be touched in it); consecutive arcs with the same
    victims, order, ties and shielded are one."""
    ids = [table.models[i].id for i in f.cand]
    mids = (starts + ends) / 2.0
    found: list[tuple[int, tuple[tuple[str, ...], ...], tuple[str, ...]]] = []
    for lo, hi, cols in _chunks(f, mids):
        dist, vis, blocked = _rows(
            table, f, mids[lo:hi], cols, strict=strict, tol=tol, shield=shield, grazing=grazing
        )
        k = _keys(vis, dist, blocked, tie)
        for row in np.flatnonzero(k.fresh).tolist():
            groups, hidden = _row_arc(ids, cols, k, blocked, row)
            if row == 0 and found and found[-1][1:] == (groups, hidden):
                continue  # the chunk goes on with the arc the last one ended with
            found.append((lo + row, groups, hidden))
    arcs = []
    for n, (a, groups, hidden) in enumerate(found):
        last = found[n + 1][0] - 1 if n + 1 < len(found) else len(starts) - 1
        arcs.append(
            Arc(
                start=math.degrees(starts[a]),
                end=math.degrees(ends[last]),
                victims=tuple(m for g in groups for m in g),
                ties=groups,
                shielded=hidden,
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


__all__ = [
    "ANGLE_EPS",
    "CELLS",
    "ROOT_ROWS",
    "TWO_PI",
    "Arc",
    "Sweep",
    "circle_angles",
    "sweep",
    "trig_roots",
]
