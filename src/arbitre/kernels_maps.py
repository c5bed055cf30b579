"""The kernels of the exact sight maps (:mod:`arbitre.maps`): convex hulls of many small
point sets in one call, and the region a point sees among convex obstacles.

Written once, run compiled by numba or as this same source interpreted
(:func:`arbitre.backend.kernels` ``(work, "arbitre.kernels_maps")``), so both builds
give the same bits: only ``+ - *`` and comparisons on the input coordinates, which are
copied, never computed (the hulls), or ``math.atan2`` and those four (the region seen).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def _before(xy: np.ndarray, a: int, b: int) -> bool:
    """Whether point ``a`` comes before ``b`` in the order by x, then y."""
    return bool(xy[a, 0] < xy[b, 0] or (xy[a, 0] == xy[b, 0] and xy[a, 1] < xy[b, 1]))


@njit(cache=True)
def _turn(xy: np.ndarray, o: int, a: int, b: int) -> float:
    """Twice the signed area of the triangle ``o a b`` (> 0: a left turn)."""
    return float(
        (xy[a, 0] - xy[o, 0]) * (xy[b, 1] - xy[o, 1])
        - (xy[a, 1] - xy[o, 1]) * (xy[b, 0] - xy[o, 0])
    )


@njit(cache=True)
def hulls(xy: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The convex hull of each group of points ``xy[start[g]:start[g + 1]]``, as GEOS
    writes it: a closed ring, clockwise, from the lowest point (the leftmost of the
    lowest), collinear points left out. Returns ``(coords, offsets, ok)``: the rings one
    after another (ring ``g`` is ``coords[offsets[g]:offsets[g + 1]]``), and whether
    each hull is a polygon (at least 3 corners; else its ring is empty)."""
    n = start.shape[0] - 1
    out = np.empty((xy.shape[0] + 2 * n, 2))
    offsets = np.zeros(n + 1, np.int64)
    ok = np.zeros(n, np.bool_)
    order = np.empty(xy.shape[0], np.int64)
    chain = np.empty(xy.shape[0] + 1, np.int64)
    at = 0
    for g in range(n):
        lo = start[g]
        hi = start[g + 1]
        h = _hull_ccw(xy, lo, hi, order, chain)
        if h < 3:
            offsets[g + 1] = at
            continue
        ok[g] = True
        # start at the lowest corner (the leftmost of them), then clockwise
        first = 0
        for k in range(1, h):
            a = chain[k]
            b = chain[first]
            if xy[a, 1] < xy[b, 1] or (xy[a, 1] == xy[b, 1] and xy[a, 0] < xy[b, 0]):
                first = k
        for k in range(h + 1):
            c = chain[(first - k) % h]
            out[at, 0] = xy[c, 0]
            out[at, 1] = xy[c, 1]
            at += 1
        offsets[g + 1] = at
    return out[:at], offsets, ok


@njit(cache=True)
def _hull_ccw(xy: np.ndarray, lo: int, hi: int, order: np.ndarray, chain: np.ndarray) -> int:
    """The convex hull of ``xy[lo:hi]`` counter-clockwise into ``chain`` (indices into
    ``xy``, the first not repeated at the end), collinear points left out; returns its
    number of corners (below 3: a point or a segment)."""
    m = hi - lo
    # insertion sort of the group (a few dozen points) by x, then y
    for k in range(m):
        p = lo + k
        j = k - 1
        while j >= 0 and _before(xy, p, order[j]):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = p
    # Andrew's monotone chain: the lower hull left to right, then the upper back,
    # counter-clockwise, dropping collinear and repeated points
    h = 0
    for k in range(m):
        p = order[k]
        while h >= 2 and _turn(xy, chain[h - 2], chain[h - 1], p) <= 0.0:
            h -= 1
        chain[h] = p
        h += 1
    low = h + 1
    for k in range(m - 2, -1, -1):
        p = order[k]
        while h >= low and _turn(xy, chain[h - 2], chain[h - 1], p) <= 0.0:
            h -= 1
        chain[h] = p
        h += 1
    return max(h - 1, 0)  # the last is the first again


@njit(cache=True)
def _add_segment(
    seg: np.ndarray, ns: int, cx: float, cy: float, ax: float, ay: float, bx: float, by: float
) -> int:
    """Add segment ``a b`` to ``seg`` (rows ``ax, ay, bx, by, angle a, angle b``, the
    angles from ``c`` increasing along it, cut in two where it crosses the ray of angle
    ``pi``); returns the new count. A segment on a line through ``c`` hides nothing."""
    ta = math.atan2(ay - cy, ax - cx)
    tb = math.atan2(by - cy, bx - cx)
    cr = (ax - cx) * (by - cy) - (ay - cy) * (bx - cx)
    if cr == 0.0:
        return ns
    if cr < 0.0:  # turn it so that the angle grows from a to b
        ax, ay, bx, by, ta, tb = bx, by, ax, ay, tb, ta
    if tb < ta or (tb == ta and ta == math.pi):
        # across the ray of angle pi: cut where it meets the line y = cy left of c
        if ta == math.pi:
            ta = -math.pi
            return _put(seg, ns, ax, ay, bx, by, ta, tb)
        if tb == -math.pi:
            tb = math.pi
            return _put(seg, ns, ax, ay, bx, by, ta, tb)
        u = (cy - ay) / (by - ay)
        mx = ax + u * (bx - ax)
        ns = _put(seg, ns, ax, ay, mx, cy, ta, math.pi)
        return _put(seg, ns, mx, cy, bx, by, -math.pi, tb)
    if tb == -math.pi:
        tb = math.pi
    return _put(seg, ns, ax, ay, bx, by, ta, tb)


@njit(cache=True)
def _put(
    seg: np.ndarray, ns: int, ax: float, ay: float, bx: float, by: float, ta: float, tb: float
) -> int:
    """Write row ``ns`` of ``seg`` (segment ``a b``, its angles ``ta``, ``tb``); returns
    the new count."""
    seg[ns, 0], seg[ns, 1], seg[ns, 2], seg[ns, 3] = ax, ay, bx, by
    seg[ns, 4], seg[ns, 5] = ta, tb
    return ns + 1


@njit(cache=True)
def _hit(seg: np.ndarray, s: int, cx: float, cy: float, t: float) -> tuple[float, float]:
    """Where the ray from ``c`` of angle ``t`` meets the line of segment ``s`` (its end
    itself at the angle of an end)."""
    if t == seg[s, 4]:
        return seg[s, 0], seg[s, 1]
    if t == seg[s, 5]:
        return seg[s, 2], seg[s, 3]
    dx = math.cos(t)
    dy = math.sin(t)
    ex = seg[s, 2] - seg[s, 0]
    ey = seg[s, 3] - seg[s, 1]
    den = dx * ey - dy * ex
    k = ((seg[s, 0] - cx) * ey - (seg[s, 1] - cy) * ex) / den
    return cx + k * dx, cy + k * dy


@njit(cache=True)
def _dist2(x: float, y: float, cx: float, cy: float) -> float:
    return (x - cx) * (x - cx) + (y - cy) * (y - cy)


@njit(cache=True)
def seen_region(
    cx: float, cy: float, xy: np.ndarray, start: np.ndarray, box: np.ndarray
) -> tuple[np.ndarray, bool]:
    """The points of the rectangle ``box`` (x0, y0, x1, y1, holding ``c`` strictly) that
    the centre ``c`` sees past the convex hulls of the groups of points
    ``xy[start[g]:start[g + 1]]`` (none holding ``c``): the nearest hull along every ray,
    a star-shaped ring counter-clockwise from the ray of angle ``-pi``, closed. Exact up
    to rounding: its corners are corners of the hulls and the box, where a ray through
    one meets the next edge, and where two edges cross. Returns ``(ring, ok)``; not ok
    (a hull holding ``c``, ``c`` not inside the box): ring empty, to be found otherwise."""
    x0, y0, x1, y1 = box[0], box[1], box[2], box[3]
    empty = np.zeros((0, 2))
    if not (x0 < cx < x1 and y0 < cy < y1):
        return empty, False
    n = start.shape[0] - 1
    cap = 2 * xy.shape[0] + 16
    seg = np.empty((cap, 6))
    order = np.empty(xy.shape[0] + 1, np.int64)
    chain = np.empty(xy.shape[0] + 2, np.int64)
    ns = 0
    # the box's edges, seen from inside
    ns = _add_segment(seg, ns, cx, cy, x0, y0, x1, y0)
    ns = _add_segment(seg, ns, cx, cy, x1, y0, x1, y1)
    ns = _add_segment(seg, ns, cx, cy, x1, y1, x0, y1)
    ns = _add_segment(seg, ns, cx, cy, x0, y1, x0, y0)
    for g in range(n):
        h = _hull_ccw(xy, start[g], start[g + 1], order, chain)
        if h == 2:
            a, b = chain[0], chain[1]
            ns = _add_segment(seg, ns, cx, cy, xy[a, 0], xy[a, 1], xy[b, 0], xy[b, 1])
            continue
        if h < 2:
            continue
        faced = 0
        for k in range(h):  # the edges facing c (c strictly right of them)
            a, b = chain[k], chain[(k + 1) % h]
            cr = (xy[b, 0] - xy[a, 0]) * (cy - xy[a, 1]) - (xy[b, 1] - xy[a, 1]) * (cx - xy[a, 0])
            if cr < 0.0:
                ns = _add_segment(seg, ns, cx, cy, xy[a, 0], xy[a, 1], xy[b, 0], xy[b, 1])
                faced += 1
        if faced == 0:
            return empty, False  # c in the hull
    # the angles where the nearest edge may change: every end
    ends = np.empty(2 * ns)
    for s in range(ns):
        ends[2 * s] = seg[s, 4]
        ends[2 * s + 1] = seg[s, 5]
    ends = np.unique(ends)
    by_start = np.argsort(seg[:ns, 4], kind="mergesort")
    active = np.empty(ns, np.int64)
    na = 0
    nxt = 0
    out = np.empty((8 * ns + 8, 2))
    no = 0
    last = -1  # the edge the ring runs along
    for e in range(ends.shape[0] - 1):
        u = ends[e]
        v = ends[e + 1]
        # the edges spanning [u, v]: those started by u, not ended before v
        while nxt < ns and seg[by_start[nxt], 4] <= u:
            active[na] = by_start[nxt]
            na += 1
            nxt += 1
        k = 0
        while k < na:
            if seg[active[k], 5] <= u:
                na -= 1
                active[k] = active[na]
            else:
                k += 1
        if na == 0:
            return empty, False
        # the nearest at u, ties broken half way to v
        mid = 0.5 * (u + v)
        best = -1
        bd = np.inf
        bm = np.inf
        for k in range(na):
            s = active[k]
            hx, hy = _hit(seg, s, cx, cy, u)
            d = _dist2(hx, hy, cx, cy)
            mx, my = _hit(seg, s, cx, cy, mid)
            dm = _dist2(mx, my, cx, cy)
            if d < bd or (d == bd and dm < bm):
                best, bd, bm = s, d, dm
        # the ring: the point at u on the edge left behind, then on the nearest
        if last != best:
            if last >= 0:
                px, py = _hit(seg, last, cx, cy, u)
                if no == 0 or out[no - 1, 0] != px or out[no - 1, 1] != py:
                    out[no, 0], out[no, 1] = px, py
                    no += 1
            hx, hy = _hit(seg, best, cx, cy, u)
            if no == 0 or out[no - 1, 0] != hx or out[no - 1, 1] != hy:
                out[no, 0], out[no, 1] = hx, hy
                no += 1
        cur = u
        while True:  # where another edge comes nearer before v: they cross there
            first = v
            who = -1
            fx, fy = 0.0, 0.0
            ax, ay = seg[best, 0], seg[best, 1]
            ex, ey = seg[best, 2] - ax, seg[best, 3] - ay
            for k in range(na):
                s = active[k]
                if s == best:
                    continue
                bx, by = seg[s, 0], seg[s, 1]
                gx, gy = seg[s, 2] - bx, seg[s, 3] - by
                den = ex * gy - ey * gx
                if den == 0.0:
                    continue
                w = ((bx - ax) * gy - (by - ay) * gx) / den
                qx, qy = ax + w * ex, ay + w * ey
                t = math.atan2(qy - cy, qx - cx)
                if cur < t < first:
                    # nearer after the crossing: compare half way to v
                    tm = 0.5 * (t + v)
                    p1x, p1y = _hit(seg, s, cx, cy, tm)
                    p2x, p2y = _hit(seg, best, cx, cy, tm)
                    if _dist2(p1x, p1y, cx, cy) < _dist2(p2x, p2y, cx, cy):
                        first, who, fx, fy = t, s, qx, qy
            if who < 0:
                break
            out[no, 0], out[no, 1] = fx, fy
            no += 1
            best = who
            cur = first
        last = best
        if seg[best, 5] == v:  # the edge ends at v: its end is a corner
            out[no, 0], out[no, 1] = seg[best, 2], seg[best, 3]
            no += 1
    # close: the ring ends where it started, on the ray of angle pi
    if no == 0:
        return empty, False
    px, py = _hit(seg, last, cx, cy, math.pi)
    if out[no - 1, 0] != px or out[no - 1, 1] != py:
        out[no, 0], out[no, 1] = px, py
        no += 1
    if out[0, 0] != out[no - 1, 0] or out[0, 1] != out[no - 1, 1]:
        out[no, 0], out[no, 1] = out[0, 0], out[0, 1]
        no += 1
    return out[:no].copy(), True
