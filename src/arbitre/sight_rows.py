"""S2 with one hiding piece per row: the share each piece hides alone, many at once.

A ruleset that words what each piece hides of a target "alone" (Mordheim M1, M8) asks
:func:`arbitre.sight.visible_fraction_batch` once per piece, with that piece alone in the
mask: one call, one broad phase and one mask per piece. :func:`alone_shares` answers
every ``(shooter, target, piece)`` row in one pass instead: the broad phase of
:mod:`arbitre.kernels` (its angular buckets) is built once per shooter, and each row asks
the same S2 kernel (``visible_share``) with the candidate list the batch would have
built for that one-piece mask: the piece, when the broad phase lets it in, else none
(a shooter's rows in one call, :func:`arbitre.kernels.visible_alone`).
So every share is the one the one-at-a-time call gives, bit for bit, in either build.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arbitre import backend, sight
from arbitre.table import Table

#: Kernel constants (read without loading numba).
_K = backend.interpreted()


def alone_shares(
    table: Table,
    shooters: np.ndarray,
    targets: np.ndarray,
    pieces: np.ndarray,
    *,
    index: sight.SightIndex | None = None,
) -> np.ndarray:
    """For each row ``i``, S2 of model ``targets[i]`` seen from model ``shooters[i]``
    (model indices) with only the real piece ``pieces[i]`` (an index of ``index.ids``)
    hiding: ``visible_fraction_batch(table, [s], [g], hides=<that piece alone>)``.

    A piece that is one of the row's two ends hides nothing (S2 never counts them). A
    bridge (G4) never hides here: it hides only when both its ends are in the mask."""
    ix = index or sight.sight_index(table)
    s = np.asarray(shooters, dtype=np.int64)
    g = np.asarray(targets, dtype=np.int64)
    ks = np.asarray(pieces, dtype=np.int64)
    out = np.empty(len(s))
    if not len(s):
        return out
    k = backend.kernels(ix.work(ks, each=sight.share_work))
    kind, disc, eoff, edges, bbox = ix.packed
    xyr = sight._xyr(table)
    grazing = sight._grazing(table)
    npieces = len(kind)
    count = np.zeros(_K.NBUCKETS, np.int64)
    items = np.empty((_K.NBUCKETS, max(npieces, 1)), np.int64)
    dmin = np.empty(max(npieces, 1))
    for a in sight.distinct(s).tolist():
        ax, ay = float(xyr[a, 0]), float(xyr[a, 1])
        k._fill_buckets(ax, ay, kind, disc, eoff, edges, bbox, ix.half, count, items, dmin)
        rows = np.flatnonzero(s == a)
        t = np.array(xyr[g[rows]])
        p = ks[rows]
        own = (p == a + ix.n_terrain) | (p == g[rows] + ix.n_terrain)
        let = _let_in_all(ax, ay, t, _members(count, items, npieces), dmin, p) & ~own
        out[rows] = 1.0  # no candidate: the whole base seen (the kernel's hi - lo over itself)
        if let.any():
            shares = np.empty(int(let.sum()))
            k.visible_alone(
                ax, ay, np.ascontiguousarray(t[let]), np.ascontiguousarray(p[let]),
                kind, disc, eoff, edges, ix.half, grazing, shares,
            )  # fmt: skip
            out[rows[let]] = shares
    return out


def _members(count: np.ndarray, items: np.ndarray, npieces: int) -> np.ndarray:
    """``[bucket, piece]``: the piece is listed in the bucket (the broad phase filled)."""
    member = np.zeros((len(count), max(npieces, 1)), dtype=np.bool_)
    listed = np.arange(items.shape[1])[None, :] < count[:, None]
    rows, cols = np.nonzero(listed)
    member[rows, items[rows, cols]] = True
    return member


def _let_in_all(
    ax: float, ay: float, t: np.ndarray, member: np.ndarray, dmin: np.ndarray, p: np.ndarray
) -> np.ndarray:
    """:func:`_let_in` for the rows of one shooter (targets ``t``, pieces ``p``), in numpy;
    a row whose arithmetic lies within rounding of a bucket's edge, of the reach or of
    the base's edge (numpy's trigonometry may differ from the C library's by an ulp) is
    decided again by :func:`_let_in` itself."""
    nb = _K.NBUCKETS
    bw = _K.TWO_PI / nb
    vx, vy, r = t[:, 0] - ax, t[:, 1] - ay, t[:, 2]
    d = np.sqrt(vx * vx + vy * vy)
    reach = d + r
    phi = np.arctan2(vy, vx)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(d <= r, math.pi, np.arcsin(np.minimum(r / d, 1.0)) + 1e-9)
    full = w >= math.pi / 2
    lo = (phi - w + math.pi) / bw
    hi = (phi + w + math.pi) / bw
    first = np.where(full, 0, np.floor(lo)).astype(np.int64)
    last = np.where(full, nb - 1, np.floor(hi)).astype(np.int64)
    # pieces listed in buckets first..last (cyclic): counts over the buckets laid out
    # three times, so that -nb <= first and last < 2 nb index it directly (only the
    # columns of the rows' pieces)
    cols = sight.distinct(p)
    at = np.searchsorted(cols, p)
    cs = np.zeros((3 * nb + 1, len(cols)), np.int64)
    np.cumsum(np.tile(member[:, cols], (3, 1)), axis=0, out=cs[1:])
    listed = cs[last + nb + 1, at] - cs[first + nb, at] > 0
    let: np.ndarray = listed & ~(dmin[p] > reach)
    near = 1e-7
    doubt = (
        (np.abs(lo - np.round(lo)) < near)
        | (np.abs(hi - np.round(hi)) < near)
        | (np.abs(w - math.pi / 2) < near)
        | (np.abs(d - r) < near * (1.0 + d))
        | (np.abs(dmin[p] - reach) < near * (1.0 + reach))
    )
    for j in np.flatnonzero(doubt).tolist():
        let[j] = _let_in(ax, ay, t[j], member, dmin, int(p[j]))
    return let


def _let_in(ax: float, ay: float, t: np.ndarray, member: np.ndarray, dmin: Any, k: int) -> bool:
    """Whether the broad phase of ``kernels.visible_fractions`` makes piece ``k`` a
    candidate for the disc ``t`` seen from ``a``: listed in a bucket the target's angles
    reach, and not wholly farther than the target (the kernel's very arithmetic)."""
    tx, ty, tr = float(t[0]), float(t[1]), float(t[2])
    vx = tx - ax
    vy = ty - ay
    d = math.sqrt(vx * vx + vy * vy)
    reach = d + tr
    phi = math.atan2(vy, vx)
    w = math.pi if d <= tr else math.asin(tr / d) + 1e-9
    nb = _K.NBUCKETS
    if w >= math.pi / 2:
        first, last = 0, nb - 1
    else:
        bw = _K.TWO_PI / nb
        first = int(math.floor((phi - w + math.pi) / bw))
        last = int(math.floor((phi + w + math.pi) / bw))
    buckets = np.arange(first, last + 1) % nb
    return bool(member[buckets, k].any()) and not dmin[k] > reach
