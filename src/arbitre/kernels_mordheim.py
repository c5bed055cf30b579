"""The kernels of the Mordheim margins (:mod:`arbitre.rules.mordheim.margins`): distances
of near segments to many pieces in one call.

Written once, run compiled by numba or as this same source interpreted
(:func:`arbitre.backend.kernels` ``(work, "arbitre.kernels_mordheim")``), so both builds
give the same bits: only ``+ - * /``, comparisons and ``np.hypot`` (the C library's
``hypot`` in both builds; Python's ``math.hypot`` is another algorithm), each in the order
of the numpy form they replace.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _clip01(t: float) -> float:
    """``np.clip(t, 0, 1)`` for a number that is not NaN."""
    if t < 0.0:
        return 0.0
    if t > 1.0:
        return 1.0
    return t


@njit(cache=True)
def _point_seg(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """The distance of point ``p`` to segment ``a b`` (the numpy ``point_seg``)."""
    vx, vy = bx - ax, by - ay
    wx, wy = px - ax, py - ay
    den = vx * vx + vy * vy
    t = _clip01((wx * vx + wy * vy) / (den if den > 0 else 1.0))
    return float(np.hypot(wx - t * vx, wy - t * vy))


@njit(cache=True)
def _seg_point(ax: float, ay: float, bx: float, by: float, px: float, py: float) -> float:
    """The distance of point ``p`` to segment ``a b`` (the numpy ``_seg_point``: the
    nearest point written ``a + t (b - a)``)."""
    dx, dy = bx - ax, by - ay
    den = dx * dx + dy * dy
    t = _clip01(((px - ax) * dx + (py - ay) * dy) / (den if den > 0 else 1.0))
    return float(np.hypot(ax + t * dx - px, ay + t * dy - py))


@njit(cache=True)
def _cross(ox: float, oy: float, px: float, py: float, qx: float, qy: float) -> float:
    return (px - ox) * (qy - oy) - (py - oy) * (qx - ox)


@njit(cache=True)
def _seg_edges(
    ax: float, ay: float, bx: float, by: float, edges: np.ndarray, lo: int, hi: int
) -> float:
    """The distance of segment ``a b`` to the nearest of ``edges[lo:hi]`` (0 where they
    cross; infinite without edges)."""
    best = np.inf
    for e in range(lo, hi):
        cx, cy, dx, dy = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
        d1 = _cross(cx, cy, dx, dy, ax, ay)
        d2 = _cross(cx, cy, dx, dy, bx, by)
        d3 = _cross(ax, ay, bx, by, cx, cy)
        d4 = _cross(ax, ay, bx, by, dx, dy)
        if d1 * d2 <= 0 and d3 * d4 <= 0 and (d1 != 0 or d2 != 0 or d3 != 0 or d4 != 0):
            dist = 0.0
        else:
            dist = min(
                min(_point_seg(ax, ay, cx, cy, dx, dy), _point_seg(bx, by, cx, cy, dx, dy)),
                min(_point_seg(cx, cy, ax, ay, bx, by), _point_seg(dx, dy, ax, ay, bx, by)),
            )
        if dist < best:
            best = dist
    return best


@njit(cache=True)
def piece_distances(
    segs: np.ndarray,
    ks: np.ndarray,
    discs: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[i, j]``: for piece ``ks[i]``, the distance of segment ``j`` (rows ``x0, y0,
    x1, y1``): to its centre less its radius for a disc (``discs[k, 2] >= 0``), to the
    nearest of its edges ``edges[eoff[k]:eoff[k + 1]]`` (0 where they cross) otherwise."""
    for i in range(len(ks)):
        for j in range(len(segs)):
            out[i, j] = _piece_distance(segs, j, ks[i], discs, eoff, edges)


@njit(cache=True)
def _piece_distance(
    segs: np.ndarray, j: int, k: int, discs: np.ndarray, eoff: np.ndarray, edges: np.ndarray
) -> float:
    """The distance of segment ``segs[j]`` to piece ``k`` (:func:`piece_distances`)."""
    ax, ay, bx, by = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
    r = discs[k, 2]
    if r >= 0.0:
        return float(_seg_point(ax, ay, bx, by, discs[k, 0], discs[k, 1]) - r)
    return float(_seg_edges(ax, ay, bx, by, edges, eoff[k], eoff[k + 1]))


@njit(cache=True)
def hiding_points(
    segs: np.ndarray,
    ks: np.ndarray,
    bbox: np.ndarray,
    pad: float,
    steps: np.ndarray,
    view: np.ndarray,
    discs: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    valid: np.ndarray,
    depth: np.ndarray,
    phi: np.ndarray,
    px: np.ndarray,
    py: np.ndarray,
) -> None:
    """For each piece ``ks[i]`` and segment ``j``: whether the segment crosses the piece's
    box grown by ``pad`` (``valid[i, j]``), and at the points ``t0 + (t1 - t0) * steps``
    of its stretch in it (``px, py[i, j * len(steps) + s]``) how deep they lie in the
    region of ``view`` (``tx, ty, r, ox, oy`` and the inner normals of its two tangents,
    ``depth``) and the piece's distance: signed for a disc, to the nearest edge for a
    polygon (``phi``; the caller signs it inside). The numpy forms of ``_in_box``,
    ``View.depth`` and ``_phi``, operation for operation."""
    tx, ty, r, ox, oy = view[0], view[1], view[2], view[3], view[4]
    n = len(steps)
    for i in range(len(ks)):
        k = ks[i]
        lox, loy = bbox[k, 0] - pad, bbox[k, 1] - pad
        hix, hiy = bbox[k, 2] + pad, bbox[k, 3] + pad
        for j in range(len(segs)):
            ax, ay = segs[j, 0], segs[j, 1]
            dx, dy = segs[j, 2] - ax, segs[j, 3] - ay
            if dx == 0.0:
                inside = ax >= lox and ax <= hix
                nx_, fx_ = (-np.inf, np.inf) if inside else (np.inf, -np.inf)
            else:
                t1, t2 = (lox - ax) / dx, (hix - ax) / dx
                nx_, fx_ = min(t1, t2), max(t1, t2)
            if dy == 0.0:
                inside = ay >= loy and ay <= hiy
                ny_, fy_ = (-np.inf, np.inf) if inside else (np.inf, -np.inf)
            else:
                t1, t2 = (loy - ay) / dy, (hiy - ay) / dy
                ny_, fy_ = min(t1, t2), max(t1, t2)
            t0 = _clip01(max(nx_, ny_))
            t9 = _clip01(min(fx_, fy_))
            valid[i, j] = t9 >= t0
            if not valid[i, j]:
                continue
            for s in range(n):
                t = t0 + (t9 - t0) * steps[s]
                x, y = ax + dx * t, ay + dy * t
                c = j * n + s
                px[i, c], py[i, c] = x, y
                out = float(np.hypot(x - tx, y - ty)) - r
                out = min(out, -((x - ox) * view[5] + (y - oy) * view[6]))
                out = min(out, -((x - ox) * view[7] + (y - oy) * view[8]))
                depth[i, c] = max(out, 0.0)
                cx, cy, cr = discs[k, 0], discs[k, 1], discs[k, 2]
                if cr >= 0.0:
                    phi[i, c] = float(np.hypot(x - cx, y - cy)) - cr
                    continue
                near = np.inf
                for e in range(eoff[k], eoff[k + 1]):
                    ex, ey = edges[e, 0], edges[e, 1]
                    vx, vy = edges[e, 2] - ex, edges[e, 3] - ey
                    den = vx * vx + vy * vy
                    u = _clip01(((x - ex) * vx + (y - ey) * vy) / (den if den > 0 else 1.0))
                    dist = float(np.hypot(ex + u * vx - x, ey + u * vy - y))
                    if dist < near:
                        near = dist
                phi[i, c] = near


#: Below this (relative) a crossing is too close to a corner, an end or a parallel edge
#: for :func:`meet_depths` to vouch for its estimate.
NEAR = 1e-9


@njit(cache=True)
def _inside(px: float, py: float, edges: np.ndarray, lo: int, hi: int) -> bool:
    """Whether the point is inside the rings ``edges[lo:hi]`` (even-odd crossings)."""
    inside = False
    for e in range(lo, hi):
        x1, y1, x2, y2 = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
        if (y1 > py) != (y2 > py) and px < x1 + (py - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


@njit(cache=True)
def _boundary(px: float, py: float, edges: np.ndarray, lo: int, hi: int) -> float:
    best = np.inf
    for e in range(lo, hi):
        d = _point_seg(px, py, edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3])
        if d < best:
            best = d
    return best


@njit(cache=True)
def meet_depths(
    segs: np.ndarray,
    ks: np.ndarray,
    meets: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    approx: np.ndarray,
    sure: np.ndarray,
) -> None:
    """An estimate of how deep each segment ``j`` meeting polygon ``ks[i]``
    (``meets[i, j]``) runs into it, as ``margins._depth`` measures it (the distance to
    the boundary of the middle of each stretch inside, the largest): ``approx[i, j]``,
    within 1e-6 mm of that measure where ``sure[i, j]`` (no crossing near a corner, an
    end or along an edge; the caller bounds the others by the polygon's box)."""
    for i in range(len(ks)):
        k = ks[i]
        lo, hi = eoff[k], eoff[k + 1]
        ts = np.empty(hi - lo + 2)
        for j in range(len(segs)):
            if not meets[i, j]:
                continue
            sure[i, j] = False
            ax, ay = segs[j, 0], segs[j, 1]
            dx, dy = segs[j, 2] - ax, segs[j, 3] - ay
            length = np.sqrt(dx * dx + dy * dy)
            if length == 0.0:
                continue
            n = 0
            ts[n] = 0.0
            n += 1
            odd = False
            for e in range(lo, hi):
                cx, cy = edges[e, 0], edges[e, 1]
                fx, fy = edges[e, 2] - cx, edges[e, 3] - cy
                flen = np.sqrt(fx * fx + fy * fy)
                den = dx * fy - dy * fx
                wx, wy = cx - ax, cy - ay
                if abs(den) <= NEAR * length * flen:
                    # parallel: along the line (within reach) is beyond the estimate
                    if abs(wx * dy - wy * dx) <= NEAR * length * (length + flen + 1.0):
                        odd = True
                    continue
                t = (wx * fy - wy * fx) / den
                u = (wx * dy - wy * dx) / den
                if u < -NEAR or u > 1.0 + NEAR or t < -NEAR or t > 1.0 + NEAR:
                    continue
                if u < NEAR or u > 1.0 - NEAR or t < NEAR or t > 1.0 - NEAR:
                    odd = True  # through a corner, or from or to the boundary
                ts[n] = t
                n += 1
            if odd:
                continue
            ts[n] = 1.0
            n += 1
            order = np.sort(ts[:n])
            deep = 0.0
            was = False
            for s in range(n - 1):
                t0, t1 = order[s], order[s + 1]
                if t1 - t0 <= NEAR:
                    odd = True
                    break
                tm = t0 + (t1 - t0) * 0.5
                mx, my = ax + dx * tm, ay + dy * tm
                now = _inside(mx, my, edges, lo, hi)
                if now and was:
                    odd = True  # two stretches in a row: one for GEOS
                    break
                was = now
                if now:
                    d = _boundary(mx, my, edges, lo, hi)
                    if d > deep:
                        deep = d
            if not odd:
                approx[i, j] = deep
                sure[i, j] = True


@njit(cache=True)
def apart(
    segs: np.ndarray,
    ks: np.ndarray,
    discs: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    inside: np.ndarray,
    dist: np.ndarray,
    meets: np.ndarray,
) -> None:
    """:func:`piece_distances`, then for a polygon ``ks[i]`` whose inside holds the
    segments' common start (``inside[ks[i]]``) every distance 0 (a segment starting inside
    a polygon it does not cross is wholly inside), and ``meets[i, j]`` where a polygon's
    distance is 0 or less (``margins._apart``'s numpy form, operation for operation)."""
    for i in range(len(ks)):
        k = ks[i]
        polygon = discs[k, 2] < 0.0
        for j in range(len(segs)):
            d = _piece_distance(segs, j, k, discs, eoff, edges)
            if polygon and inside[k]:
                d = 0.0
            dist[i, j] = d
            meets[i, j] = polygon and d <= 0.0


@njit(cache=True)
def hidden_bounds(
    dist: np.ndarray,
    meets: np.ndarray,
    approx: np.ndarray,
    sure: np.ndarray,
    most: np.ndarray,
    extra: np.ndarray,
    valid: np.ndarray,
    half: float,
    guess: float,
    wanted: np.ndarray,
    todo: np.ndarray,
) -> float:
    """``margins.hidden_slack``'s bounds on each segment's depth (its deepest piece, a
    meeting's depth within ``guess`` of ``approx`` where ``sure``, else between 0 and
    ``most``; or a joint's ``extra``): the segments that may be the least deep
    (``wanted``), and there the meetings that may be the deepest, with every meeting of
    a piece GEOS finds invalid (``todo``: the depths to measure). Returned: the least
    of the segments' lower bounds (a lower bound on the least depth). The numpy form's
    operations, in its order (every value finite or infinite, never NaN)."""
    n, m = dist.shape
    low = np.empty(m)
    top_min = np.inf
    for j in range(m):
        lo = -np.inf
        hi = -np.inf
        for i in range(n):
            if meets[i, j]:
                below = max(0.0, approx[i, j] - guess) if sure[i, j] else 0.0
                above = approx[i, j] + guess if sure[i, j] else most[i]
                a = half + below
                b = (half + above) * (1.0 + 1e-9) + 1e-9
            else:
                a = half - dist[i, j]
                b = a
            lo = max(lo, a)
            hi = max(hi, b)
        for i in range(extra.shape[0]):
            lo = max(lo, extra[i, j])
            hi = max(hi, extra[i, j])
        low[j] = lo
        top_min = min(top_min, hi)
    for j in range(m):
        wanted[j] = low[j] <= top_min
    for i in range(n):
        for j in range(m):
            todo[i, j] = False
            if not meets[i, j]:
                continue
            if not valid[i]:
                todo[i, j] = True
                continue
            if not wanted[j]:
                continue
            above = approx[i, j] + guess if sure[i, j] else most[i]
            todo[i, j] = (half + above) * (1.0 + 1e-9) + 1e-9 >= low[j]
    least = np.inf
    for j in range(m):
        least = min(least, low[j])
    return least


@njit(cache=True)
def least_deep(
    dist: np.ndarray,
    extra: np.ndarray,
    wanted: np.ndarray,
    half: float,
    depth: np.ndarray,
    row: np.ndarray,
) -> int:
    """Down each segment (column) the deepest of ``half - dist`` then ``extra``
    (``depth``) and its row, the first reaching it (``row``; -1 when none beats minus
    infinity, NaN never better); returned, the first of the least deep among the
    ``wanted`` segments (the first segment when none is): ``margins._first_best`` then
    ``argmin``, in their order."""
    n, m = dist.shape
    for j in range(m):
        best = -np.inf
        at = -1
        for i in range(n):
            v = half - dist[i, j]
            if v > best:
                best, at = v, i
        for i in range(extra.shape[0]):
            v = extra[i, j]
            if v > best:
                best, at = v, n + i
        depth[j] = best
        row[j] = at
    worst = 0
    least = depth[0] if wanted[0] else np.inf
    for j in range(1, m):
        v = depth[j] if wanted[j] else np.inf
        if v < least:
            worst, least = j, v
    return worst


@njit(cache=True)
def _orient(
    ax: float, ay: float, bx: float, by: float, cx: float, cy: float, err: float
) -> tuple[float, bool]:
    """The orientation of ``c`` from ``a b`` (a 2x2 determinant) and whether its sign is
    surely the exact one (beyond ``err`` times the size of its two products)."""
    left = (bx - ax) * (cy - ay)
    right = (by - ay) * (cx - ax)
    o = left - right
    return o, abs(o) > err * (abs(left) + abs(right))


@njit(cache=True)
def through(
    segs: np.ndarray, xy: np.ndarray, err: float, out: np.ndarray, sure: np.ndarray
) -> None:
    """For each two-point line ``xy[i]`` (``px, py, qx, qy``; NaN ends never sure) and
    segment ``j``: whether they cross, by the signs of the four orientations
    (``out[i, j]``), and whether all four signs are sure (``sure[i, j]``; GEOS decides the
    others). ``margins._through``'s numpy form, operation for operation."""
    for i in range(xy.shape[0]):
        px, py, qx, qy = xy[i, 0], xy[i, 1], xy[i, 2], xy[i, 3]
        for j in range(segs.shape[0]):
            ox, oy, ex, ey = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
            o1, s1 = _orient(ox, oy, ex, ey, px, py, err)
            o2, s2 = _orient(ox, oy, ex, ey, qx, qy, err)
            o3, s3 = _orient(px, py, qx, qy, ox, oy, err)
            o4, s4 = _orient(px, py, qx, qy, ex, ey, err)
            ok = s1 and s2 and s3 and s4
            sure[i, j] = ok
            out[i, j] = o1 * o2 < 0.0 and o3 * o4 < 0.0 and ok


@njit(cache=True)
def hidden_many(
    segs: np.ndarray,
    soff: np.ndarray,
    ks: np.ndarray,
    koff: np.ndarray,
    doff: np.ndarray,
    extra: np.ndarray,
    xoff: np.ndarray,
    discs: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    inside: np.ndarray,
    bbox: np.ndarray,
    target: np.ndarray,
    valid: np.ndarray,
    half: float,
    guess: float,
    dist: np.ndarray,
    meets: np.ndarray,
    wanted: np.ndarray,
    todo: np.ndarray,
    low: np.ndarray,
) -> None:
    """``margins.hidden_slack`` up to its GEOS depths, for many views at once.

    View ``t`` has the segments ``segs[soff[t]:soff[t + 1]]`` (starting at the point of
    row ``t`` of ``inside``, ending on the circle ``target[t]``: ``tx, ty, r``), the near
    pieces ``ks[koff[t]:koff[t + 1]]``, its distances, meetings and depths to measure as
    the ``(pieces, segments)`` blocks ``doff[t]:doff[t + 1]`` of the flat ``dist``,
    ``meets`` and ``todo``, its joints' ``extra`` as the ``(joints, segments)`` block
    ``xoff[t]:xoff[t + 1]``, and its ``wanted`` segments beside its segments.
    ``low[t]``: a lower bound on its least depth (minus infinity when no meeting with a
    polygon is left to measure: none, or only some :func:`_apart_near` left out, below a
    deeper base on each segment). :func:`apart` (but for the distances that cannot
    decide, :func:`_apart_near`), :func:`meet_depths` and :func:`hidden_bounds` view by
    view, as the one-view form calls them."""
    for t in range(len(soff) - 1):
        sg = segs[soff[t] : soff[t + 1]]
        kt = ks[koff[t] : koff[t + 1]]
        shape = (len(kt), len(sg))
        dt = dist[doff[t] : doff[t + 1]].reshape(shape)
        mt = meets[doff[t] : doff[t + 1]].reshape(shape)
        tt = todo[doff[t] : doff[t + 1]].reshape(shape)
        wt = wanted[soff[t] : soff[t + 1]]
        xt = extra[xoff[t] : xoff[t + 1]].reshape((-1, len(sg)))
        low[t] = -np.inf
        wt[:] = True
        tt[:] = False
        if len(sg) == 0:
            continue
        _apart_near(sg, kt, discs, eoff, edges, inside[t], bbox, target[t], valid, half, dt, mt)
        if not mt.any():
            continue
        approx = np.zeros(shape)
        sure = np.zeros(shape, dtype=np.bool_)
        meet_depths(sg, kt, mt, eoff, edges, approx, sure)
        most = np.empty(len(kt))
        kv = np.empty(len(kt), dtype=np.bool_)
        for i in range(len(kt)):
            k = kt[i]
            most[i] = 0.5 * min(bbox[k, 2] - bbox[k, 0], bbox[k, 3] - bbox[k, 1])
            kv[i] = valid[k]
        low[t] = hidden_bounds(dt, mt, approx, sure, most, xt, kv, half, guess, wt, tt)


#: How much (mm) :func:`_apart_near` widens its bounds: far beyond the float errors of
#: a distance (below 1e-9 mm), so that a piece left out is surely not the deepest.
SAFE = 1e-6


@njit(cache=True)
def _lower_bounds(
    segs: np.ndarray,
    ks: np.ndarray,
    discs: np.ndarray,
    inside: np.ndarray,
    bbox: np.ndarray,
    target: np.ndarray,
) -> np.ndarray:
    """A lower bound on each piece ``ks[i]``'s distance to every segment from the common
    start ``O`` to a point of the target's circle (``target``: ``tx, ty, r``): its
    distance to the segment ``OT`` less ``r`` and its reach (a disc: its radius; a
    polygon: its box's half diagonal from the box's centre), widened by :data:`SAFE`;
    minus infinity for a polygon holding ``O``."""
    n = len(ks)
    ox, oy = segs[0, 0], segs[0, 1]
    tx, ty, r = target[0], target[1], target[2]
    bound = np.empty(n)
    for i in range(n):
        k = ks[i]
        polygon = discs[k, 2] < 0.0
        if polygon:
            cx, cy = 0.5 * (bbox[k, 0] + bbox[k, 2]), 0.5 * (bbox[k, 1] + bbox[k, 3])
            reach = 0.5 * np.hypot(bbox[k, 2] - bbox[k, 0], bbox[k, 3] - bbox[k, 1])
        else:
            cx, cy, reach = discs[k, 0], discs[k, 1], discs[k, 2]
        b = _seg_point(ox, oy, tx, ty, cx, cy) - r - reach
        bound[i] = b - SAFE * (1.0 + abs(b) + r + reach)
        if polygon and inside[k]:
            bound[i] = -np.inf
    return bound


@njit(cache=True)
def _apart_near(
    segs: np.ndarray,
    ks: np.ndarray,
    discs: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    inside: np.ndarray,
    bbox: np.ndarray,
    target: np.ndarray,
    valid: np.ndarray,
    half: float,
    dist: np.ndarray,
    meets: np.ndarray,
) -> None:
    """:func:`apart`, but for the pieces that surely are not the deepest of a segment:
    those left infinitely far (``dist`` infinite, never met).

    Every segment runs from the common start ``O`` to a point of the target's circle
    (``target``: ``tx, ty, r``), so it lies within ``r`` of the segment from ``O`` to the
    centre ``T``; a piece lies within ``reach`` of a point ``P`` (a disc: its centre and
    radius; a polygon: its box's centre and half diagonal). So its distance to every
    segment is at least ``bound = dist(P, OT) - r - reach``, and its ``half - dist`` (or,
    where it meets the segment, ``half`` plus its depth, which is at most ``-bound``) at
    most ``half - bound``. The pieces whose bound is within ``half`` are measured first,
    the lowest bound first; each piece is left out of a segment where ``half - bound``
    is below the deepest ``half - dist`` measured there already (but a polygon GEOS finds
    invalid, whose meetings are measured row by row: only when it is surely apart, in
    the second round). Every measured distance is :func:`apart`'s; the deepest of each
    segment, and the first piece reaching it, are the same, and so is every bound the
    caller takes from a segment's pieces: a piece left out is below that deepest one."""
    n, m = len(ks), len(segs)
    bound = _lower_bounds(segs, ks, discs, inside, bbox, target)
    order = np.argsort(bound)  # the nearest first: the deepest found early
    best = np.full(m, -np.inf)
    for rounds in range(2):
        for ii in range(n):
            i = order[ii]
            if (rounds == 0) != (bound[i] <= half):
                continue
            k = ks[i]
            polygon = discs[k, 2] < 0.0
            may_skip = rounds == 1 or valid[k]
            for j in range(m):
                if may_skip and half - bound[i] < best[j]:
                    dist[i, j] = np.inf
                    meets[i, j] = False
                    continue
                d = _piece_distance(segs, j, k, discs, eoff, edges)
                if polygon and inside[k]:
                    d = 0.0
                dist[i, j] = d
                meets[i, j] = polygon and d <= 0.0
                best[j] = max(best[j], half - d)


@njit(cache=True)
def least_deep_many(
    dist: np.ndarray,
    doff: np.ndarray,
    extra: np.ndarray,
    xoff: np.ndarray,
    wanted: np.ndarray,
    soff: np.ndarray,
    koff: np.ndarray,
    half: float,
    depth: np.ndarray,
    row: np.ndarray,
    worst: np.ndarray,
) -> None:
    """:func:`least_deep` for each view of :func:`hidden_many` (its blocks), its
    answer in ``worst[t]`` (an index into its segments)."""
    for t in range(len(soff) - 1):
        ns = soff[t + 1] - soff[t]
        if ns == 0:
            worst[t] = 0
            continue
        nk = koff[t + 1] - koff[t]
        dt = dist[doff[t] : doff[t + 1]].reshape((nk, ns))
        xt = extra[xoff[t] : xoff[t + 1]].reshape((-1, ns))
        a, b = soff[t], soff[t + 1]
        worst[t] = least_deep(dt, xt, wanted[a:b], half, depth[a:b], row[a:b])


@njit(cache=True)
def seen_many(
    segs: np.ndarray,
    soff: np.ndarray,
    ks: np.ndarray,
    koff: np.ndarray,
    doff: np.ndarray,
    discs: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    inside: np.ndarray,
    bbox: np.ndarray,
    target: np.ndarray,
    jsel: np.ndarray,
    joff: np.ndarray,
    toff: np.ndarray,
    jxy: np.ndarray,
    jgap: np.ndarray,
    far: np.ndarray,
    half: float,
    err: float,
    tol: float,
    orient_err: float,
    dist: np.ndarray,
    meets: np.ndarray,
    thr: np.ndarray,
    sure: np.ndarray,
    clear: np.ndarray,
    who: np.ndarray,
    meet: np.ndarray,
    best: np.ndarray,
) -> None:
    """``margins._clearance`` up to its GEOS depths, for many views at once
    (``margins.seen_slacks``).

    View ``t`` has the segments ``segs[soff[t]:soff[t + 1]]`` (all starting at one point,
    whose polygons holding it are flagged in row ``t`` of ``inside``, and ending on the
    circle ``target[t]``: ``tx, ty, r``), the near pieces ``ks[koff[t]:koff[t + 1]]``, its
    distances and meetings as the ``(pieces, segments)`` blocks ``doff[t]:doff[t + 1]``
    of the flat ``dist`` and ``meets`` (:func:`apart`, but for the distances that cannot
    decide, :func:`_apart_seen`), its G4 joints ``jsel[joff[t]:joff[t + 1]]`` (rows of
    ``jxy`` and ``jgap``) with the segments passing through them as the ``(joints,
    segments)`` blocks ``toff[t]:toff[t + 1]`` of ``thr`` and ``sure`` (:func:`through`),
    and the box distance ``far[t]`` of the nearest piece left out. Then
    :func:`seen_clear` of each view: its segments' ``clear`` and ``who``, whether its
    GEOS depths are to measure (``meet[t]``) and its clearest segment (``best[t]``)."""
    for t in range(len(soff) - 1):
        sg = segs[soff[t] : soff[t + 1]]
        kt = ks[koff[t] : koff[t + 1]]
        shape = (len(kt), len(sg))
        dt = dist[doff[t] : doff[t + 1]].reshape(shape)
        mt = meets[doff[t] : doff[t + 1]].reshape(shape)
        nj = joff[t + 1] - joff[t]
        jt = (nj, len(sg))
        xy = np.empty((nj, 4))
        for i in range(nj):
            for c in range(4):
                xy[i, c] = jxy[jsel[joff[t] + i], c]
        tt = thr[toff[t] : toff[t + 1]].reshape(jt)
        through(sg, xy, orient_err, tt, sure[toff[t] : toff[t + 1]].reshape(jt))
        if len(sg):
            _apart_seen(sg, kt, discs, eoff, edges, inside[t], bbox, target[t], dt, mt)
    seen_clear(
        soff, koff, doff, dist, meets, jsel, joff, toff, jgap, thr, far, half, err, tol,
        np.ones(len(soff) - 1, dtype=np.bool_), clear, who, meet, best,
    )  # fmt: skip


@njit(cache=True)
def seen_clear(
    soff: np.ndarray,
    koff: np.ndarray,
    doff: np.ndarray,
    dist: np.ndarray,
    meets: np.ndarray,
    jsel: np.ndarray,
    joff: np.ndarray,
    toff: np.ndarray,
    jgap: np.ndarray,
    thr: np.ndarray,
    far: np.ndarray,
    half: float,
    err: float,
    tol: float,
    todo: np.ndarray,
    clear: np.ndarray,
    who: np.ndarray,
    meet: np.ndarray,
    best: np.ndarray,
) -> None:
    """For each view ``t`` of :func:`seen_many` with ``todo[t]``: ``margins._clear_of``
    of its blocks (each segment's ``clear``, and its ``who``: -1 for none, a near
    piece's row, or the number of near pieces plus the row of a joint among the view's),
    whether ``margins._clearance`` would measure its GEOS depths (``meet[t]``), and
    ``np.argmax`` of its clearances (``best[t]``). The numpy forms' operations, in their
    order (``_first_best``: the first strictly better, NaN never better; ``max`` and
    ``argmax``: NaN first)."""
    for t in range(len(soff) - 1):
        if not todo[t]:
            continue
        ns = soff[t + 1] - soff[t]
        if ns == 0:
            meet[t] = False
            best[t] = 0
            continue
        nk = koff[t + 1] - koff[t]
        nj = joff[t + 1] - joff[t]
        dt = dist[doff[t] : doff[t + 1]].reshape((nk, ns))
        mt = meets[doff[t] : doff[t + 1]].reshape((nk, ns))
        tt = thr[toff[t] : toff[t + 1]].reshape((nj, ns))
        ct = clear[soff[t] : soff[t + 1]]
        wt = who[soff[t] : soff[t + 1]]
        start = far[t] - half - err
        for j in range(ns):
            low = start
            at = -1
            if not np.isnan(low):
                for i in range(nk):
                    v = dt[i, j] - half - err
                    if np.isnan(v):
                        continue
                    if v < low:
                        low, at = v, i
            for i in range(nj):
                open_by = jgap[jsel[joff[t] + i]] - tol
                if tt[i, j] and open_by < low:
                    low, at = open_by, nk + i
            ct[j] = low
            wt[j] = at
        # ``met.any() and (met.all() or clear[~met].max() <= clear[met].max())``
        any_met = False
        all_met = True
        top_met, nan_met = -np.inf, False
        top_free, nan_free = -np.inf, False
        for j in range(ns):
            met = False
            for i in range(nk):
                if mt[i, j]:
                    met = True
                    break
            v = ct[j]
            if met:
                any_met = True
                if np.isnan(v):
                    nan_met = True
                elif v > top_met:
                    top_met = v
            else:
                all_met = False
                if np.isnan(v):
                    nan_free = True
                elif v > top_free:
                    top_free = v
        meet[t] = any_met and (all_met or (not nan_met and not nan_free and top_free <= top_met))
        at = 0
        for j in range(ns):
            if np.isnan(ct[j]):
                at = j
                break
            if ct[j] > ct[at]:
                at = j
        best[t] = at


@njit(cache=True)
def _apart_seen(
    segs: np.ndarray,
    ks: np.ndarray,
    discs: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    inside: np.ndarray,
    bbox: np.ndarray,
    target: np.ndarray,
    dist: np.ndarray,
    meets: np.ndarray,
) -> None:
    """:func:`apart`, but for the pieces that surely are neither met nor the nearest of a
    segment: those left infinitely far (``dist`` infinite, never met).

    Each piece's distance to every segment is at least its ``bound``
    (:func:`_apart_near`: the segments end on the target's circle), widened by
    :data:`SAFE`. The pieces are measured in the order of their bounds; a piece whose
    bound is above 0 (never met) and above the least distance already measured of a
    segment is left out of it: its distance is above that one, so it is not the least,
    nor the first reaching it. Every measured distance is :func:`apart`'s; which ones
    are left out depends on the order (the builds may sort equal bounds apart), never
    the least of a segment, its first piece, nor the meetings."""
    m = len(segs)
    bound = _lower_bounds(segs, ks, discs, inside, bbox, target)
    least = np.full(m, np.inf)
    for i in np.argsort(bound):
        k = ks[i]
        polygon = discs[k, 2] < 0.0
        for j in range(m):
            if bound[i] > 0.0 and bound[i] > least[j]:
                dist[i, j] = np.inf
                meets[i, j] = False
                continue
            d = _piece_distance(segs, j, k, discs, eoff, edges)
            if polygon and inside[k]:
                d = 0.0
            dist[i, j] = d
            meets[i, j] = polygon and d <= 0.0
            if d < least[j]:
                least[j] = d
