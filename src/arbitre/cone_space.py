"""The whole placement space of a breath cone (B2): where its apex sits on the shooter's
rim (``apex``, theta) and where its axis points (``angle``, psi), searched exactly.

**Domain.** With ``cone_over_base: false`` (B2's decision) the axis stays within
:func:`~arbitre.templates.over_base_limit` of the outward radius at the apex:
``|psi - theta| <= 90 - atan(1/6)`` degrees; otherwise every (theta, psi) is allowed. A
shooter without a base (F8) has one apex, its centre.

**Exact search.** The slices theta = constant meet the same cells of the arrangement of
the curves where a base starts or stops touching the cone between two *critical apexes*
(:mod:`arbitre.cone_events`). One slice is taken between each two consecutive critical
apexes, and on it the closed-form axes where a piece of a base's boundary passes it
(:func:`_slice_axes`, kept where the base is truly on the boundary) split the axis range
into intervals of constant victims; one placement inside each is evaluated, all at once
(numpy, in chunks of :data:`CELLS`). So every cell of the arrangement is visited, and no
sampling is involved. Each distinct outcome keeps the evaluated placement farthest from
every B3 threshold.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from arbitre.cone_events import EVENT_TOL, Frame, critical_apexes, frame, gap
from arbitre.cone_roots import TWO_PI, wrap
from arbitre.errors import RulesError
from arbitre.geometry import EPS
from arbitre.i18n import T_, Num
from arbitre.table import Table
from arbitre.templates import OrderFrom, cone_sd, is_touched, shielded_at

CELLS = 1 << 19
#: The most bases within reach of the cone the exact search takes (its pair events grow
#: with their square: 150 bases solve at most about 280,000 pairs of pieces).
MAX_REACH = 150


@dataclass(frozen=True, slots=True)
class Placement:
    """One cell of constant victims, at its placement farthest from every B3 threshold
    among those evaluated: ``apex`` and ``angle`` (axis) in degrees, the axis range
    ``start`` to ``end`` (degrees, ``end`` > ``start``) around it with the same victims
    at that apex, the victims in B7 order and their ``ties``, those shielded (B3 option),
    and ``slack``: the smallest gap (mm) between a base's distance to the cone and its
    threshold there (G8)."""

    apex: float
    angle: float
    start: float
    end: float
    victims: tuple[str, ...]
    ties: tuple[tuple[str, ...], ...]
    shielded: tuple[str, ...]
    slack: float


@dataclass(frozen=True, slots=True)
class Space:
    """The exact search of one shooter's cone placements: the critical apexes found, the
    slices and cells evaluated, the bases within reach, and one placement per distinct
    outcome (victims, order and ties, shielded)."""

    shooter: str
    critical: int
    slices: int
    cells: int
    candidates: tuple[str, ...]
    placements: tuple[Placement, ...]


# --- the slices ---------------------------------------------------------------------------


def _slice_axes(f: Frame, theta: np.ndarray) -> np.ndarray:
    """For each apex (rows), the axes (as psi - theta, radians in the domain, sorted, NaN
    past the last) where a piece passes a base: psi = beta - nu -+ acos(k / D), with D,
    beta the distance and direction from the apex to the base, and the domain's ends."""
    ax, ay = f.r * np.cos(theta), f.r * np.sin(theta)
    wx, wy = f.v[None, :, 0] - ax[:, None], f.v[None, :, 1] - ay[:, None]
    dd = np.hypot(wx, wy)
    beta = np.arctan2(wy, wx)
    rho, hyp = f.reach[None, :], f.hyp
    pieces = [
        (math.atan2(f.length, -f.half), rho + 0 * dd),
        (math.atan2(-f.length, -f.half), rho + 0 * dd),
        (0.0, f.length + rho + 0 * dd),
        (f.alpha, (dd * dd + hyp * hyp - rho * rho) / (2 * hyp)),
        (-f.alpha, (dd * dd + hyp * hyp - rho * rho) / (2 * hyp)),
    ]
    cols = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for nu, k in pieces:
            c = np.arccos(k / dd)  # NaN where the line misses the circle
            for sg in (1.0, -1.0):
                cols.append(wrap(beta - nu + sg * c - theta[:, None]))
    phi = np.concatenate(cols, axis=1)
    lim = f.limit
    # keep the axes where the base is on the true boundary (a line's extension past its
    # piece changes nothing)
    base = np.tile(np.arange(len(f.cand)), len(cols))
    with np.errstate(invalid="ignore"):
        on = np.abs(gap(f, theta[:, None], theta[:, None] + phi, base[None, :])) <= EVENT_TOL
    phi = np.where(on & (np.abs(phi) < lim), phi, np.nan)
    ends = np.full((len(theta), 1), lim)
    phi = np.concatenate([-ends, phi, ends], axis=1)
    return np.sort(phi, axis=1)


@dataclass(frozen=True, slots=True)
class _Cells:
    """Evaluated cells: their slice, apex and axis (radians), axis interval, victims and
    shielded masks over the candidates, and slack (mm)."""

    slice: np.ndarray
    theta: np.ndarray
    psi: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    vis: np.ndarray
    blocked: np.ndarray
    slack: np.ndarray


def _evaluate(
    table: Table,
    f: Frame,
    theta: np.ndarray,
    *,
    tol: float,
    strict: bool,
    shield: bool,
    grazing: bool,
) -> Iterator[_Cells]:
    """The cells of the slices ``theta``, a chunk of slices at a time."""
    n = max(1, len(f.cand))
    per = max(1, CELLS // (n * (10 * n + 2)))
    thr = 0.0 if strict else tol
    for lo in range(0, len(theta), per):
        th = theta[lo : lo + per]
        phi = _slice_axes(f, th)
        good = np.isfinite(phi[:, 1:]) & (phi[:, 1:] - phi[:, :-1] > 1e-12)
        srow, scol = np.nonzero(good)
        a, b = phi[srow, scol], phi[srow, scol + 1]
        t = th[srow]
        psi = t + (a + b) / 2.0
        ax, ay = f.r * np.cos(t), f.r * np.sin(t)
        wx, wy = f.v[None, :, 0] - ax[:, None], f.v[None, :, 1] - ay[:, None]
        cu, su = np.cos(psi)[:, None], np.sin(psi)[:, None]
        x, y = wx * cu + wy * su, -wx * su + wy * cu
        gap = cone_sd(x, y, f.length, f.half) - f.radii[None, :]
        touched = is_touched(gap, tol, strict)
        slack = np.min(np.abs(gap - thr), axis=1, initial=np.inf)
        blocked = np.zeros_like(touched)
        if shield and touched.any():
            # shielding depends on the apex only: once per slice and base
            sl = np.unique(srow)
            sx = f.s[0] + f.r * np.cos(th[sl])
            sy = f.s[1] + f.r * np.sin(th[sl])
            m = len(f.cand)
            flags = shielded_at(
                table, np.repeat(sx, m), np.repeat(sy, m), np.tile(f.cand, len(sl)), grazing=grazing
            ).reshape(len(sl), m)
            where = np.searchsorted(sl, srow)
            blocked = touched & flags[where]
        yield _Cells(
            slice=srow + lo,
            theta=t,
            psi=psi,
            lo=t + a,
            hi=t + b,
            vis=touched & ~blocked,
            blocked=blocked,
            slack=slack,
        )


def _order_keys(
    f: Frame, theta: np.ndarray, order_from: OrderFrom, tie: float
) -> tuple[np.ndarray, np.ndarray]:
    """B7 distances of every candidate for each slice (rows), and an order signature per
    slice: the candidates' order and which are within the tie threshold of the one
    before (from the shooter's base or centre it is the same for every slice)."""
    if order_from == "apex":
        ax, ay = f.r * np.cos(theta), f.r * np.sin(theta)
        dist = np.maximum(
            0.0,
            np.hypot(f.v[None, :, 0] - ax[:, None], f.v[None, :, 1] - ay[:, None])
            - f.radii[None, :],
        )
    else:
        d = np.hypot(f.v[:, 0], f.v[:, 1])
        one = d if order_from == "centre" else np.maximum(0.0, d - f.radii - f.r)
        dist = np.broadcast_to(one, (len(theta), len(f.cand)))
    return dist, np.zeros(len(theta), dtype=np.int64) if order_from != "apex" else _signature(
        dist, tie
    )


def _signature(dist: np.ndarray, tie: float) -> np.ndarray:
    """An id per row of the order (and tie links) of its distances."""
    order = np.argsort(dist, axis=1, kind="stable")
    srt = np.take_along_axis(dist, order, axis=1)
    close = srt[:, 1:] - srt[:, :-1] <= tie + EPS
    key = np.hstack([order, close.astype(np.int64)])
    _, ids = np.unique(key, axis=0, return_inverse=True)
    return np.asarray(ids, dtype=np.int64).ravel()


def _groups(
    names: list[str], dist: np.ndarray, members: np.ndarray, tie: float
) -> tuple[tuple[str, ...], ...]:
    """B7 groups of the victims ``members`` (candidate rows) by ``dist``: a chain of
    distances each within ``tie`` of the next is one group (ids sorted within)."""
    ordered = sorted(members.tolist(), key=lambda k: (dist[k], names[k]))
    groups: list[list[int]] = []
    for k in ordered:
        if groups and dist[k] - dist[groups[-1][-1]] <= tie + EPS:
            groups[-1].append(k)
        else:
            groups.append([k])
    return tuple(tuple(sorted(names[k] for k in g)) for g in groups)


def search(
    table: Table,
    shooter: str,
    *,
    tolerance: float | None = None,
    strict: bool = False,
    over_base: bool = False,
    order_from: OrderFrom = "base",
    ordered: bool = False,
    tie_tolerance: float | None = None,
    shield: bool = False,
    grazing: bool = False,
) -> Space:
    """Every placement (apex, axis) of ``shooter``'s cone, exactly (B1-B3, B7): one
    :class:`Placement` per distinct outcome, at the evaluated placement of its cells
    farthest from every threshold. With ``ordered`` the B7 order and ties count (an
    impacting breath); with ``shield`` large pieces shield bases from the apex."""
    tol = table.contact_tolerance if tolerance is None else tolerance
    tie = table.contact_tolerance if tie_tolerance is None else tie_tolerance
    f = frame(table, shooter, tol, strict, over_base)
    if len(f.cand) > MAX_REACH:
        raise RulesError(
            T_(
                "B2: {n} bases are within reach of {shooter}'s cone; the exact search over "
                "apex and axis takes at most {most} (its work grows with their square): place "
                "the cone with --angle (and --apex) instead",
                n=Num(len(f.cand), ","),
                shooter=repr(shooter),
                most=MAX_REACH,
            )
        )
    by_apex = ordered and order_from == "apex"
    crit = critical_apexes(table, f, tie=tie, by_apex=by_apex, shield=shield)
    if len(crit) == 0:
        theta = np.array([0.0])
    else:
        theta = (crit + np.append(crit[1:], crit[0] + TWO_PI)) / 2.0
    dist, sig = _order_keys(f, theta, order_from, tie)
    names = [table.models[i].id for i in f.cand]
    best: dict[bytes, tuple[float, _Cells]] = {}
    total = 0
    for cells in _evaluate(table, f, theta, tol=tol, strict=strict, shield=shield, grazing=grazing):
        total += len(cells.theta)
        keys = np.hstack(
            [
                np.packbits(cells.vis, axis=1),
                np.packbits(cells.blocked, axis=1),
                (sig[cells.slice] if ordered else np.zeros(len(cells.theta), np.int64))
                .astype(">i8")
                .view(np.uint8)
                .reshape(-1, 8),
            ]
        )
        rows = np.ascontiguousarray(keys).view(np.dtype((np.void, keys.shape[1])))[:, 0]
        uniq, inverse = np.unique(rows, return_inverse=True)
        inverse = inverse.ravel()
        order = np.lexsort((-cells.slack, inverse))  # by outcome, the most slack first
        top = order[np.searchsorted(inverse[order], np.arange(len(uniq)))]
        for u, k in enumerate(top.tolist()):
            key = bytes(uniq[u])
            if key not in best or cells.slack[k] > best[key][0]:
                best[key] = (float(cells.slack[k]), _take(cells, k))
    placements = []
    for _, c in best.values():
        members = np.flatnonzero(c.vis[0])
        groups = _groups(names, dist[int(c.slice[0])], members, tie)
        placements.append(
            Placement(
                apex=math.degrees(float(c.theta[0])) % 360.0,
                angle=math.degrees(float(c.psi[0])) % 360.0,
                start=math.degrees(float(c.lo[0])),
                end=math.degrees(float(c.hi[0])),
                victims=tuple(m for g in groups for m in g),
                ties=groups,
                shielded=tuple(sorted(names[k] for k in np.flatnonzero(c.blocked[0]))),
                slack=float(c.slack[0]),
            )
        )
    placements = _merged(placements, ordered)
    return Space(
        shooter=shooter,
        critical=len(crit),
        slices=len(theta),
        cells=total,
        candidates=tuple(names),
        placements=tuple(placements),
    )


def _take(cells: _Cells, k: int) -> _Cells:
    """Cell ``k`` alone."""
    return _Cells(*(getattr(cells, name)[k : k + 1] for name in _Cells.__slots__))


def _merged(placements: list[Placement], ordered: bool) -> list[Placement]:
    """One placement per outcome (victims in order and ties when ``ordered``, else the
    set; shielded): the one with the most slack."""
    out: dict[tuple[object, ...], Placement] = {}
    for p in placements:
        key = (p.ties if ordered else frozenset(p.victims), p.shielded)
        if key not in out or p.slack > out[key].slack:
            out[key] = p
    return list(out.values())


__all__ = ["CELLS", "MAX_REACH", "Placement", "Space", "search"]
