"""Closed-form angles for the cone sweep (:mod:`arbitre.cone_sweep`): where a circle
|p| = d meets a line, and the roots on the circle of short trigonometric polynomials,
each angle returned with the row (base, pair of bases, base and terrain shape) it came
from, so that the sweep keeps only the angles where that row can matter.
"""

from __future__ import annotations

import math

import numpy as np

TWO_PI = 2.0 * math.pi
_EMPTY_F = np.zeros(0)
_EMPTY_I = np.zeros(0, dtype=np.int64)


def circle_line(
    dist: np.ndarray, normal: np.ndarray, k: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Angles of the points of the circles |p| = dist[i] on the lines p . n = k[i], n the
    unit vector at angle normal[i]: normal[i] +- acos(k[i] / dist[i]), where they meet;
    with the row i of each angle."""
    ok = (np.abs(k) <= dist) & (dist > 0)
    c = np.arccos(np.clip(k[ok] / dist[ok], -1.0, 1.0))
    rows = np.flatnonzero(ok)
    return np.concatenate([normal[ok] + c, normal[ok] - c]), np.concatenate([rows, rows])


def trig_roots_rows(coef: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Roots in [0, 2 pi) of a0 + a1 cos t + b1 sin t + a2 cos 2t + b2 sin 2t, for each row
    ``a0, a1, b1, a2, b2`` of ``coef``, with the row of each root: the unit-circle roots
    of a quartic in z = e^{it}.

    Roots found near the circle (within 1e-3) are all kept: a superset is what the sweep
    needs (an extra angle only splits an arc). Rows without dependence on t give none.
    """
    coef = np.asarray(coef, dtype=np.float64).reshape(-1, 5)
    rows = np.arange(len(coef))
    scale = np.max(np.abs(coef), axis=1)
    live = np.max(np.abs(coef[:, 1:]), axis=1) > 1e-12 * np.maximum(scale, 1e-300)
    coef, rows = coef[live] / scale[live, None], rows[live]
    if not len(coef):
        return _EMPTY_F, _EMPTY_I
    flat = np.max(np.abs(coef[:, 3:]), axis=1) == 0.0
    zs: list[np.ndarray] = []
    rs: list[np.ndarray] = []
    if flat.any():  # a0 + a1 cos t + b1 sin t = 0: t = atan2(b1, a1) +- acos(-a0 / R)
        a0, a1, b1 = coef[flat, 0], coef[flat, 1], coef[flat, 2]
        ang, sub = circle_line(np.hypot(a1, b1), np.arctan2(b1, a1), -a0)
        zs.append(np.exp(1j * ang))
        rs.append(rows[flat][sub])
        coef, rows = coef[~flat], rows[~flat]
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
        zs.append(np.linalg.eigvals(comp).ravel())
        rs.append(np.repeat(rows[big], 4))
    for row, r in zip(poly[~big], rows[~big], strict=True):
        found = np.roots(row)
        zs.append(found)
        rs.append(np.full(len(found), r, dtype=np.int64))
    if not zs:
        return _EMPTY_F, _EMPTY_I
    z, zr = np.concatenate(zs), np.concatenate(rs)
    keep = np.isfinite(z) & (np.abs(np.abs(z) - 1.0) < 1e-3)
    return np.asarray(np.mod(np.angle(z[keep]), TWO_PI)), np.asarray(zr[keep], dtype=np.int64)


def trig_roots(coef: np.ndarray) -> np.ndarray:
    """:func:`trig_roots_rows` without the rows."""
    return trig_roots_rows(coef)[0]


def trig_square(e: np.ndarray) -> np.ndarray:
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


def linear(e: np.ndarray) -> np.ndarray:
    """Coefficients of the linear trig form (e0, e1, e2) as (a0, a1, b1, 0, 0)."""
    return np.hstack([e, np.zeros((len(e), 2))])


def wrap(x: np.ndarray) -> np.ndarray:
    """Angles brought to [-pi, pi)."""
    return np.asarray((x + math.pi) % TWO_PI - math.pi)


__all__ = [
    "TWO_PI",
    "circle_line",
    "linear",
    "trig_roots",
    "trig_roots_rows",
    "trig_square",
    "wrap",
]
