"""The kernels of the Dark Age rulings (:mod:`arbitre.rules.darkage_alone`): the exact S3
test of many windows, each with only its own few pieces blocking, in one call.

Written once, run compiled by numba or as this same source interpreted
(:func:`arbitre.backend.kernels` ``(work, "arbitre.kernels_darkage")``). The S3 test
itself is :func:`arbitre.kernels.any_clear` (of a window: ``kernels.window_clear``),
taken from the same build: the compiled one when numba compiles this module, the
interpreted one when this source runs as Python (then ``numba`` is a stand-in, not a
module, and numba is not loaded).
"""

from __future__ import annotations

import math
import types

import numba
import numpy as np
from numba import njit, prange

if isinstance(numba, types.ModuleType):  # compiled: the compiled S3 kernels
    from arbitre.kernels import BRIDGE, EPS, near_window, window_clear
else:  # interpreted: the same kernels, interpreted too
    from arbitre.backend import interpreted

    BRIDGE = interpreted().BRIDGE
    EPS = interpreted().EPS
    near_window = interpreted().near_window
    window_clear = interpreted().window_clear


@njit(cache=True)
def _closing(
    a: np.ndarray,
    b: np.ndarray,
    p0: int,
    p1: int,
    n_real: int,
    among: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    bbox: np.ndarray,
    half: float,
    cand: np.ndarray,
) -> int:
    """Into ``cand``, the kernel pieces ``p0:p1`` of one index (its ``n_real`` real pieces
    first, numbered from 0, then its bridges) that may block the pair of discs ``a``,
    ``b`` with only the real pieces ``among`` blocking: those pieces, and the G4 bridges
    whose two ends are both among them, less those whose box is farther from the segment
    ab than the window reaches, in index order. Returns how many.

    ``among`` in increasing order (as the rulings give it) is read as it is, the
    bridges alone scanned; in any other order every piece is scanned."""
    reach = max(a[2], b[2]) + half + 1e-6
    x0 = min(a[0], b[0]) - reach
    x1 = max(a[0], b[0]) + reach
    y0 = min(a[1], b[1]) - reach
    y1 = max(a[1], b[1]) + reach
    ordered = True
    for j in range(1, len(among)):
        if among[j] <= among[j - 1]:
            ordered = False
    nc = 0
    first = p0
    if ordered:
        for j in range(len(among)):
            k = p0 + among[j]
            if among[j] < 0 or among[j] >= n_real:
                continue
            if bbox[k, 0] > x1 or bbox[k, 2] < x0 or bbox[k, 1] > y1 or bbox[k, 3] < y0:
                continue
            cand[nc] = k
            nc += 1
        first = p0 + n_real
    for k in range(first, p1):
        loc = k - p0
        if loc < n_real:
            inside = False
            for j in range(len(among)):
                if among[j] == loc:
                    inside = True
            if not inside:
                continue
        else:
            if kind[k] != BRIDGE:
                continue
            e0 = int(disc[k, 0])
            e1 = int(disc[k, 1])
            n0 = False
            n1 = False
            for j in range(len(among)):
                if among[j] == e0:
                    n0 = True
                if among[j] == e1:
                    n1 = True
            if not (n0 and n1):
                continue
        if bbox[k, 0] > x1 or bbox[k, 2] < x0 or bbox[k, 1] > y1 or bbox[k, 3] < y0:
            continue
        cand[nc] = k
        nc += 1
    return nc


@njit(cache=True, parallel=True)
def clear_among(
    a: np.ndarray,
    b: np.ndarray,
    set_off: np.ndarray,
    set_piece: np.ndarray,
    n_pieces: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    half: float,
    grazing: bool,
) -> np.ndarray:
    """S3 for pairs of discs ``a[i]``, ``b[i]`` (x, y, r) with only the real pieces
    ``set_piece[set_off[i]:set_off[i+1]]`` blocking, and the G4 bridges (kernel pieces
    ``n_pieces..``, ``disc`` holding their ends) whose two ends are both among them.
    Pieces whose box is farther from the segment ab than the window reaches are left
    out, as :func:`arbitre.kernels.any_clear_batch` does. Returns the found flags."""
    m = a.shape[0]
    found = np.zeros(m, np.bool_)
    total = kind.shape[0]
    for i in prange(m):
        s0 = set_off[i]
        s1 = set_off[i + 1]
        cand = np.empty(max(total, 1), np.int64)
        nc = _closing(
            a[i], b[i], 0, total, n_pieces, set_piece[s0:s1], kind, disc, bbox, half, cand
        )
        out = np.empty(4)
        found[i] = window_clear(a[i], b[i], cand, nc, kind, disc, eoff, edges, half, grazing, out)
    return found


@njit(cache=True)
def outline_gaps(
    xy: np.ndarray,
    piece: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
) -> np.ndarray:
    """For each point ``xy[i]`` and polygon piece ``piece[i]`` (its edges
    ``edges[eoff[k]:eoff[k + 1]]``, every ring), the distance from the point to the
    outline, negative when the point is inside (even-odd over the rings); infinite for a
    piece without edges."""
    m = xy.shape[0]
    out = np.empty(m)
    for i in range(m):
        px = xy[i, 0]
        py = xy[i, 1]
        k = piece[i]
        best = np.inf
        inside = False
        for e in range(eoff[k], eoff[k + 1]):
            x0 = edges[e, 0]
            y0 = edges[e, 1]
            x1 = edges[e, 2]
            y1 = edges[e, 3]
            dx = x1 - x0
            dy = y1 - y0
            ll = dx * dx + dy * dy
            t = 0.0 if ll == 0.0 else ((px - x0) * dx + (py - y0) * dy) / ll
            t = min(1.0, max(0.0, t))
            d = math.hypot(px - (x0 + t * dx), py - (y0 + t * dy))
            if d < best:
                best = d
            if (y0 > py) != (y1 > py) and px < x0 + (py - y0) * dx / dy:
                inside = not inside
        out[i] = -best if inside else best
    return out


@njit(cache=True)
def _level_test(
    i: int,
    slot: int,
    a: np.ndarray,
    b: np.ndarray,
    sa: np.ndarray,
    sb: np.ndarray,
    need: np.ndarray,
    visible: np.ndarray,
    set_off: np.ndarray,
    set_piece: np.ndarray,
    start: np.ndarray,
    n_real: int,
    rank: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    half: float,
    grazing: bool,
) -> bool:
    """The G8 what-if of pair ``i`` on the offset index ``slot`` of several packed one
    after another (index ``L``: kernel pieces ``start[L]:start[L + 1]``, its real pieces
    first, then its bridges, whose ``disc`` rows hold their ends in the index's own
    numbering): whether the pair (discs ``a[i]``, ``b[i]``, bases ``sa[i]``, ``sb[i]``
    in that numbering) keeps its answer ``visible[i]``, only pieces of ``rank`` at least
    ``need[i]`` blocking.

    A pair not in sight is first tested with only its closing pieces
    ``set_piece[set_off[i]:set_off[i+1]]`` blocking (and the bridges among them), as
    :func:`clear_among` does: closed by them alone, it stays closed. Otherwise the S3
    test runs on every piece, as :func:`arbitre.kernels.any_clear_batch` chooses them."""
    p0 = start[slot]
    p1 = start[slot + 1]
    s0 = set_off[i]
    s1 = set_off[i + 1]
    out = np.empty(4)
    cand = np.empty(max(p1 - p0, 1), np.int64)
    ax = a[i, 0]
    ay = a[i, 1]
    bx = b[i, 0]
    by = b[i, 1]
    if not visible[i] and s1 > s0:
        nc = _closing(a[i], b[i], p0, p1, n_real, set_piece[s0:s1], kind, disc, bbox, half, cand)
        if not window_clear(a[i], b[i], cand, nc, kind, disc, eoff, edges, half, grazing, out):
            return True
    reach = max(a[i, 2], b[i, 2]) + half + 10.0 * EPS
    nc = 0
    for k in range(p0, p1):
        loc = k - p0
        if loc == sa[i] or loc == sb[i]:
            continue
        if kind[k] == BRIDGE:
            e0 = int(disc[k, 0])
            e1 = int(disc[k, 1])
            if e0 == sa[i] or e0 == sb[i] or e1 == sa[i] or e1 == sb[i]:
                continue
        if rank[k] < need[i]:
            continue
        if (
            bbox[k, 0] > max(ax, bx) + reach
            or bbox[k, 2] < min(ax, bx) - reach
            or bbox[k, 1] > max(ay, by) + reach
            or bbox[k, 3] < min(ay, by) - reach
        ):
            continue
        if near_window(k, ax, ay, bx, by, reach, kind, disc, eoff, edges):
            cand[nc] = k
            nc += 1
    found = window_clear(a[i], b[i], cand, nc, kind, disc, eoff, edges, half, grazing, out)
    return bool(found == visible[i])


@njit(cache=True, parallel=True)
def level_search(
    a: np.ndarray,
    b: np.ndarray,
    sa: np.ndarray,
    sb: np.ndarray,
    need: np.ndarray,
    visible: np.ndarray,
    set_off: np.ndarray,
    set_piece: np.ndarray,
    start: np.ndarray,
    levels: int,
    n_real: int,
    rank: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    half: float,
    grazing: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The search of the G8 margins of :mod:`arbitre.rules.darkage_margins` over
    ``levels`` levels, each pair's tests asked by :func:`_level_test`, on every
    offset index packed one after another (slots ``0..levels-1`` grown by each level, for
    a pair in sight, ``levels..`` shrunk, for one not): the widest level first, then the
    next widest where the widest failed, then a bisection over the rest. Returns each
    pair's largest level passed (-1: none) and smallest failed (``levels``: none)."""
    m = a.shape[0]
    lo = np.full(m, -1, np.int64)
    hi = np.full(m, levels, np.int64)
    for i in prange(m):
        low = -1
        high = levels
        mid = levels - 1
        while True:
            slot = mid if visible[i] else levels + mid
            if _level_test(
                i,
                slot,
                a,
                b,
                sa,
                sb,
                need,
                visible,
                set_off,
                set_piece,
                start,
                n_real,
                rank,
                kind,
                disc,
                eoff,
                edges,
                bbox,
                half,
                grazing,
            ):
                low = mid
            else:
                high = mid
            if high - low <= 1:
                break
            mid = (low + high) // 2
            if low < 0 and high == levels - 1:
                mid = levels - 2
        lo[i] = low
        hi[i] = high
    return lo, hi


@njit(cache=True, parallel=True)
def alone_counts(
    a: np.ndarray,
    b: np.ndarray,
    set_off: np.ndarray,
    set_piece: np.ndarray,
    n_pieces: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    half: float,
    grazing: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """For each pair of discs ``a[i]``, ``b[i]``, its real pieces
    ``set_piece[set_off[i]:set_off[i+1]]`` asked one after another whether each closes
    the window alone (S3 with only it blocking, as :func:`clear_among` asks), until two
    do: how many did (0, 1 or 2: two or more) and the first that did (-1: none)."""
    m = a.shape[0]
    count = np.zeros(m, np.int64)
    first = np.full(m, -1, np.int64)
    total = kind.shape[0]
    for i in prange(m):
        cand = np.empty(max(total, 1), np.int64)
        out = np.empty(4)
        for j in range(set_off[i], set_off[i + 1]):
            nc = _closing(
                a[i], b[i], 0, total, n_pieces, set_piece[j : j + 1], kind, disc, bbox, half, cand
            )
            if not window_clear(a[i], b[i], cand, nc, kind, disc, eoff, edges, half, grazing, out):
                count[i] += 1
                if count[i] == 1:
                    first[i] = set_piece[j]
                else:
                    break
    return count, first


@njit(cache=True, parallel=True)
def in_every_closing_two(
    a: np.ndarray,
    b: np.ndarray,
    set_off: np.ndarray,
    set_piece: np.ndarray,
    n_pieces: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    half: float,
    grazing: bool,
) -> np.ndarray:
    """For each pair of discs ``a[i]``, ``b[i]`` and its real pieces
    ``set_piece[set_off[i]:set_off[i+1]]`` (in increasing order), whether each piece is
    in every two of them that close the window (S3 with only those two blocking, as
    :func:`clear_among` asks; every piece is when no two do). The twos are asked in
    order ``(0, 1), (0, 2), ... (1, 2) ...`` until no piece is left in all those that
    closed it."""
    m = a.shape[0]
    keep = np.ones(set_piece.shape[0], np.bool_)
    total = kind.shape[0]
    for i in prange(m):
        cand = np.empty(max(total, 1), np.int64)
        out = np.empty(4)
        among = np.empty(2, np.int64)
        s0 = set_off[i]
        s1 = set_off[i + 1]
        left = s1 - s0
        for x in range(s0, s1):
            if left == 0:
                break
            for y in range(x + 1, s1):
                among[0] = set_piece[x]
                among[1] = set_piece[y]
                nc = _closing(a[i], b[i], 0, total, n_pieces, among, kind, disc, bbox, half, cand)
                if not window_clear(
                    a[i], b[i], cand, nc, kind, disc, eoff, edges, half, grazing, out
                ):
                    left = 0
                    for z in range(s0, s1):
                        if z != x and z != y:
                            keep[z] = False
                        if keep[z]:
                            left += 1
                    if left == 0:
                        break
    return keep
