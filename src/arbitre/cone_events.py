"""The critical apexes of a breath cone's placements (B2): where, as the apex moves on the
shooter's rim, the cells of constant victims over the axis change. Used by
:mod:`arbitre.cone_space`, which takes one slice of apex between each two.

**Boundaries.** A base (centre c, reach rho: its radius plus the B3 threshold) is
touched while c is within rho of the cone, i.e. inside the cone dilated by rho, whose
boundary is made of the two sides and the far side pushed out by rho, and circles of
radius rho around the three corners. With the apex A = s + r e(theta) and the axis
e(psi), each piece is an equation G = g0 + Re(a z) + Re(b w) + Re(c w / z) = 0 in
z = e^(i theta), w = e^(i psi) (:func:`_pieces`); times z w it is a quadratic in w whose
coefficients are quadratics in z. The victims only change across these curves.

**Critical apexes.** Where two curves of two bases cross (the roots on the unit circle of
the resultant in w of two pieces, a polynomial of degree 8 in z), where one curve turns
back in theta or crosses itself (its discriminant in w), where a curve meets the domain's
edge (w = z e(+-limit)), where the apex enters or leaves a base's reach, and, when they
count, where two apex distances tie (B7 ``order_from: apex``) or a large piece starts or
stops shielding a base (B3 ``template_blocked``) (the apex-only events of
:mod:`arbitre.cone_sweep`). Every root is checked against the true distances (within
:data:`EVENT_TOL`) and kept when it is an event; a superset is harmless (an extra slice
costs time, never a cell).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from arbitre import cone_sweep
from arbitre.cone_roots import TWO_PI, circle_line, wrap
from arbitre.geometry import EPS
from arbitre.table import Table
from arbitre.templates import centres, cone_sd, cone_size, half_angle, over_base_limit

APEX_EPS = 1e-10
#: A root is an event when the true distances are within this (mm) of the thresholds.
EVENT_TOL = 1e-3
#: Roots this close to the unit circle are kept (a superset is harmless).
CIRCLE_TOL = 1e-3
#: The most (slice, interval, base) cells evaluated at once.


@dataclass(frozen=True, slots=True)
class Frame:
    """The shooter's centre ``s``, base radius ``r``, the cone's length, half width,
    half-angle, the axis limit (radians from the outward radius; pi: none), and the bases
    within reach: indices, offsets ``v`` from s, radii and reach."""

    s: np.ndarray
    r: float
    length: float
    half: float
    alpha: float
    limit: float
    cand: np.ndarray
    v: np.ndarray
    radii: np.ndarray
    reach: np.ndarray

    @property
    def hyp(self) -> float:
        return math.hypot(self.length, self.half)


def frame(table: Table, shooter: str, tol: float, strict: bool, over_base: bool) -> Frame:
    model = table.model(shooter)
    length, width = cone_size(table)
    s = np.array([model.at.x, model.at.y])
    r = model.base.radius
    xy, radii = centres(table)
    reach = radii + (-EPS if strict else tol + EPS)
    hyp = math.hypot(length, width / 2.0)
    d = np.hypot(xy[:, 0] - s[0], xy[:, 1] - s[1])
    near = d <= r + hyp + np.maximum(reach, 0.0) + 1e-6
    near[table.model_index(shooter)] = False
    cand = np.flatnonzero(near).astype(np.int64)
    limit = math.pi if over_base or r <= 0 else over_base_limit(length, width)
    return Frame(
        s=s,
        r=r,
        length=length,
        half=width / 2.0,
        alpha=half_angle(length, width),
        limit=limit,
        cand=cand,
        v=xy[cand] - s,
        radii=radii[cand],
        reach=reach[cand],
    )


# --- the curves: pieces G = g0 + Re(a z) + Re(b w) + Re(c w / z) ------------------------


@dataclass(frozen=True, slots=True)
class _Pieces:
    """Every boundary piece of every base in reach: its base (row of the frame) and its
    coefficients (g0 real; a, b, c complex)."""

    base: np.ndarray
    g0: np.ndarray
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray

    def quadratic(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(P2, P1, P0): 2 G z w = P2 w^2 + P1 w + P0, each a quadratic in z (ascending)."""
        zero = np.zeros_like(self.b)
        p2 = np.stack([self.c, self.b, zero], axis=1)
        p1 = np.stack([np.conj(self.a), 2 * self.g0 + 0j, self.a], axis=1)
        p0 = np.stack([zero, np.conj(self.b), np.conj(self.c)], axis=1)
        return p2, p1, p0


def _pieces(f: Frame) -> _Pieces:
    """The five pieces of each base's boundary that depend on the axis: the two sides and
    the far side pushed out by its reach, and the circles around the far corners (the
    circle around the apex depends on the apex only: :func:`_apex_circle`)."""
    n = len(f.cand)
    vbar = f.v[:, 0] - 1j * f.v[:, 1]
    rho, r, hyp = f.reach, f.r, f.hyp
    rows, g0s, as_, bs, cs = [], [], [], [], []
    zero = np.zeros(n, dtype=np.complex128)
    for sgn in (1.0, -1.0):  # sides: n = e(psi + nu) . (c - A) = rho
        e = np.exp(1j * math.atan2(sgn * f.length, -f.half))
        rows.append(np.arange(n))
        g0s.append(-rho)
        as_.append(zero)
        bs.append(e * vbar)
        cs.append(np.full(n, -r * e))
    rows.append(np.arange(n))  # far side: e(psi) . (c - A) = L + rho
    g0s.append(-(f.length + rho))
    as_.append(zero)
    bs.append(vbar)
    cs.append(np.full(n, -r + 0j))
    for mu in (f.alpha, -f.alpha):  # far corners: |c - A - hyp e(psi + mu)| = rho
        e = np.exp(1j * mu)
        rows.append(np.arange(n))
        g0s.append((f.v**2).sum(axis=1) + r * r + hyp * hyp - rho * rho)
        as_.append(-2 * r * vbar)
        bs.append(-2 * hyp * e * vbar)
        cs.append(np.full(n, 2 * r * hyp * e))
    return _Pieces(
        base=np.concatenate(rows),
        g0=np.concatenate(g0s).astype(np.float64),
        a=np.concatenate(as_).astype(np.complex128),
        b=np.concatenate(bs).astype(np.complex128),
        c=np.concatenate(cs).astype(np.complex128),
    )


def _pmul(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Row-wise products of polynomials (ascending coefficients)."""
    out = np.zeros((len(p), p.shape[1] + q.shape[1] - 1), dtype=np.complex128)
    for k in range(p.shape[1]):
        out[:, k : k + q.shape[1]] += p[:, k : k + 1] * q
    return out


def unit_roots(coef: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The roots near the unit circle (angles in [0, 2 pi)) of each row's polynomial
    (ascending complex coefficients), with their rows: companion eigenvalues by degree."""
    coef = np.asarray(coef, dtype=np.complex128)
    if not len(coef):
        return np.zeros(0), np.zeros(0, dtype=np.int64)
    scale = np.max(np.abs(coef), axis=1)
    ok = scale > 0
    coef, rows = coef[ok] / scale[ok, None], np.flatnonzero(ok)
    big = np.abs(coef) > 1e-12
    degree = np.where(big.any(axis=1), coef.shape[1] - 1 - np.argmax(big[:, ::-1], axis=1), 0)
    angles, where = [], []
    for deg in np.unique(degree):
        if deg < 1:
            continue
        sel = np.flatnonzero(degree == deg)
        p = coef[sel, : deg + 1]
        comp = np.zeros((len(sel), deg, deg), dtype=np.complex128)
        comp[:, 0, :] = -p[:, deg - 1 :: -1] / p[:, deg : deg + 1]
        if deg > 1:
            idx = np.arange(deg - 1)
            comp[:, idx + 1, idx] = 1.0
        z = np.linalg.eigvals(comp).ravel()
        zr = np.repeat(rows[sel], deg)
        keep = np.isfinite(z) & (np.abs(np.abs(z) - 1.0) < CIRCLE_TOL)
        angles.append(np.mod(np.angle(z[keep]), TWO_PI))
        where.append(zr[keep])
    if not angles:
        return np.zeros(0), np.zeros(0, dtype=np.int64)
    return np.concatenate(angles), np.concatenate(where)


def gap(f: Frame, theta: np.ndarray, psi: np.ndarray, base: np.ndarray) -> np.ndarray:
    """The true distance of base ``base`` to the cone placed at (theta, psi), minus its
    reach: 0 on its boundary."""
    ax, ay = f.r * np.cos(theta), f.r * np.sin(theta)
    wx, wy = f.v[base, 0] - ax, f.v[base, 1] - ay
    cu, su = np.cos(psi), np.sin(psi)
    x, y = wx * cu + wy * su, -wx * su + wy * cu
    return np.asarray(cone_sd(x, y, f.length, f.half) - f.reach[base])


def _inside(f: Frame, theta: np.ndarray, psi: np.ndarray) -> np.ndarray:
    return np.asarray(np.abs(wrap(psi - theta)) <= f.limit + 1e-9)


def _events(f: Frame, theta: np.ndarray, psi: np.ndarray, *bases: np.ndarray) -> np.ndarray:
    """The apexes of candidate events (theta, psi) that are true: in the domain and on
    the boundary of every base given."""
    ok = _inside(f, theta, psi)
    for b in bases:
        ok &= np.abs(gap(f, theta, psi, b)) <= EVENT_TOL
    return np.asarray(theta[ok])


def _quadratic_w(
    p2: np.ndarray, p1: np.ndarray, p0: np.ndarray, z: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The two roots w of P2(z) w^2 + P1(z) w + P0(z) at each z."""
    zz = np.stack([np.ones_like(z), z, z * z], axis=1)
    a2, a1, a0 = (np.sum(p * zz, axis=1) for p in (p2, p1, p0))
    disc = np.sqrt(a1 * a1 - 4 * a2 * a0 + 0j)
    with np.errstate(divide="ignore", invalid="ignore"):
        safe = np.where(np.abs(a2) > 1e-300, a2, 1e-300)
        return (-a1 + disc) / (2 * safe), (-a1 - disc) / (2 * safe)


def _single_events(f: Frame, pc: _Pieces) -> list[np.ndarray]:
    """Apexes where one piece's curve turns back in theta (double root in w), or meets
    the domain's edge psi = theta +- limit."""
    p2, p1, p0 = pc.quadratic()
    out = []
    disc = _pmul(p1, p1) - 4 * _pmul(p2, p0)
    ang, rows = unit_roots(disc)
    z = np.exp(1j * ang)
    zz = np.stack([np.ones_like(z), z, z * z], axis=1)
    a2, a1 = (np.sum(p[rows] * zz, axis=1) for p in (p2, p1))
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -a1 / (2 * np.where(np.abs(a2) > 1e-300, a2, 1e-300))
    out.append(_events(f, ang, np.angle(w), pc.base[rows]))
    ang2, _ = unit_roots(p2)  # the quadratic degenerates: keep the apex (superset)
    out.append(ang2)
    if f.limit < math.pi:
        for sg in (1.0, -1.0):
            e = np.exp(1j * sg * f.limit)
            poly = np.zeros((len(p2), 5), dtype=np.complex128)
            poly[:, 2:5] += p2 * e * e
            poly[:, 1:4] += p1 * e
            poly[:, 0:3] += p0
            ang3, rows3 = unit_roots(poly)
            out.append(_events(f, ang3, ang3 + sg * f.limit, pc.base[rows3]))
    return out


def _live(f: Frame, pc: _Pieces) -> np.ndarray:
    """Which pieces can be on the true boundary of the dilated cone for some apex: the
    far side when the base's centre is between L + rho and the far corners' reach of the
    apex, a far corner's circle within rho of the corner's distance hyp, a side within
    sqrt(hyp^2 + rho^2) (its tangent point on the side); the apex moves by r."""
    d = np.hypot(f.v[pc.base, 0], f.v[pc.base, 1])
    rho = np.maximum(f.reach[pc.base], 0.0)
    kind = np.repeat(np.arange(5), len(f.cand))
    side, far = kind < 2, kind == 2
    lo = np.select([side, far], [0.0 * d, f.length + rho - f.r], f.hyp - rho - f.r)
    hi = np.select(
        [side, far],
        [np.hypot(f.hyp, rho) + f.r, np.hypot(f.length + rho, f.half) + f.r],
        f.hyp + rho + f.r,
    )
    return np.asarray((d >= lo - 1e-6) & (d <= hi + 1e-6))


def _pair_rows(f: Frame, pc: _Pieces) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Pairs of pieces (i < j) of two different bases that can touch the cone together
    (their centres within the cone's diameter plus both reaches), both of which can be
    on the true boundary, in batches. (One base's boundary curve is smooth where it
    passes from a piece to the next; where it crosses itself its axis derivative
    vanishes, a root of the piece's discriminant: :func:`_single_events`.)"""
    m = len(pc.base)
    if m == 0:
        return
    live = _live(f, pc)
    v, reach = f.v[pc.base], np.maximum(f.reach[pc.base], 0.0)
    block = max(1, (1 << 16) // m)
    for lo in range(0, m, block):
        hi = min(m, lo + block)
        dist = np.hypot(v[lo:hi, None, 0] - v[None, :, 0], v[lo:hi, None, 1] - v[None, :, 1])
        ok = (
            (dist <= f.hyp + reach[lo:hi, None] + reach[None, :] + 1e-6)
            & (np.arange(m)[None, :] > np.arange(lo, hi)[:, None])
            & live[lo:hi, None]
            & live[None, :]
            & (pc.base[lo:hi, None] != pc.base[None, :])
        )
        i, j = np.nonzero(ok)
        yield i + lo, j


def _pair_events(f: Frame, pc: _Pieces) -> list[np.ndarray]:
    """Apexes where two pieces' curves cross: the unit-circle roots of their resultant in
    w, R = (P2 Q0 - P0 Q2)^2 - (P2 Q1 - P1 Q2)(P1 Q0 - P0 Q1), checked."""
    p2, p1, p0 = pc.quadratic()
    out = []
    for i, j in _pair_rows(f, pc):
        a = _pmul(p2[i], p0[j]) - _pmul(p0[i], p2[j])
        b = _pmul(p2[i], p1[j]) - _pmul(p1[i], p2[j])
        c = _pmul(p1[i], p0[j]) - _pmul(p0[i], p1[j])
        ang, rows = unit_roots(_pmul(a, a) - _pmul(b, c))
        if not len(ang):
            continue
        ii, jj = i[rows], j[rows]
        z = np.exp(1j * ang)
        for w in _quadratic_w(p2[ii], p1[ii], p0[ii], z):
            good = np.isfinite(w)
            out.append(
                _events(f, ang[good], np.angle(w[good]), pc.base[ii[good]], pc.base[jj[good]])
            )
    return out


def _apex_circle(f: Frame) -> np.ndarray:
    """Apexes where the apex enters or leaves a base's reach (|c - A| = rho)."""
    d = np.hypot(f.v[:, 0], f.v[:, 1])
    rho = f.reach
    ok = (rho >= 0) & (d > 0)
    k = (d[ok] ** 2 + f.r**2 - rho[ok] ** 2) / (2 * d[ok])
    return circle_line(np.full(int(ok.sum()), f.r), np.arctan2(f.v[ok, 1], f.v[ok, 0]), k)[0]


def _apex_only(
    table: Table, f: Frame, *, tie: float, by_apex: bool, shield: bool
) -> list[np.ndarray]:
    """The apex-only events of :mod:`arbitre.cone_sweep`: apex distances tying (B7) and
    shielding changing (B3 option), with every base's window the whole circle."""
    if not (by_apex or shield) or not len(f.cand):
        return []
    d = np.hypot(f.v[:, 0], f.v[:, 1])
    sf = cone_sweep._Frame(
        s=f.s,
        r=f.r,
        length=f.length,
        half=f.half,
        cand=f.cand,
        v=f.v,
        d=d,
        phi=np.arctan2(f.v[:, 1], f.v[:, 0]),
        radii=f.radii,
        reach=f.reach,
        window=np.full(len(f.cand), math.pi),
    )
    out = []
    if by_apex:
        out.extend(cone_sweep._order_angles(sf, tie))
    if shield:
        out.extend(cone_sweep._blocking_angles(table, sf, False, reach=f.hyp))
    return out


def critical_apexes(
    table: Table, f: Frame, *, tie: float, by_apex: bool, shield: bool
) -> np.ndarray:
    """Every critical apex (radians in [0, 2 pi), sorted, near ones merged)."""
    if f.r <= 0 or not len(f.cand):
        return np.zeros(0)
    pc = _pieces(f)
    found = [_apex_circle(f), *_single_events(f, pc), *_pair_events(f, pc)]
    found += _apex_only(table, f, tie=tie, by_apex=by_apex, shield=shield)
    return cone_sweep.circle_angles(found, APEX_EPS)


__all__ = ["APEX_EPS", "EVENT_TOL", "Frame", "critical_apexes", "frame", "gap", "unit_roots"]
