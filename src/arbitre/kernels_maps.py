"""The kernels of the exact sight maps (:mod:`arbitre.maps`): convex hulls of many small
point sets in one call, the region a point sees among convex obstacles, and M8 at the
Mordheim cells where it is sure without the sight kernel.

Written once, run compiled by numba or as this same source interpreted
(:func:`arbitre.backend.kernels` ``(work, "arbitre.kernels_maps")``), so both builds
give the same bits: only ``+ - *`` and comparisons on the input coordinates, which are
copied, never computed (the hulls), or ``math.atan2`` and those four (the region seen).
M8 (:func:`cover_decided`) uses more of ``math``, each answer with margins far wider
than an ulp: either build's answers are the sight kernel's.
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


# --- M8 decided without the sight kernel where it surely can ------------------------

#: The sight kernel's tolerance (mm) at a beam zone's edge (``arbitre.kernels.EPS``).
KERNEL_EPS = 1e-7
#: How far (mm) beyond that tolerance a point must lie to count, in or out of a zone.
DEEP = 1e-6
#: The least share of a base's angular width a stretch surely hidden must span: far
#: above what the engine's rounding of S2 absorbs (a share from ``1 - 5e-7`` counts 1).
HIDDEN_SHARE = 1e-3
#: The packed kinds of :mod:`arbitre.kernels`: a disc, a polygon, a bridge (G4).
_DISC = 0
_POLYGON = 1
_BRIDGE = 2
#: The rays tried across a base, as shares of its angular half-width off the centre line.
_RAYS = (0.0, -0.5, 0.5, -0.85, 0.85, -0.97, 0.97, -0.995, 0.995)
#: Angular buckets of the pieces seen from the origin.
_NB = 256
#: A cell's answer: unknown (the sight kernel rules it), no cover, cover.
UNKNOWN = -1


@njit(cache=True)
def _near_side(d: float, r: float, psi: float) -> float:
    """How far from the origin the ray ``psi`` radians off the centre line meets the
    near side of a base of radius ``r`` centred ``d`` mm away (``d > r``, ``|psi|`` at
    most the base's half-width). Grows with ``|psi|``."""
    sn = d * math.sin(psi)
    return d * math.cos(psi) - math.sqrt(max(0.0, r * r - sn * sn))


@njit(cache=True)
def _hidden_span(depth: float, t: float, psi: float, w: float, d: float, r: float) -> float:
    """The angular measure (radians) of the base's rays, among ``[-w, w]`` off its centre
    line, that surely pass nearer a piece than the sight kernel's ``half - EPS``: those
    meeting the disc of points :data:`DEEP` deeper than that tolerance in the piece's
    beam zone around the point ``t`` mm along the ray ``psi``, ``depth`` mm deep in it,
    each before the ray reaches the base's near side (0: none, or not sure)."""
    rho = depth - KERNEL_EPS - DEEP
    if rho <= 0.0:
        return 0.0
    if rho >= t:
        return 2.0 * w  # the origin in that disc: every ray
    a = math.asin(rho / t)
    lo = max(psi - a, -w)
    hi = min(psi + a, w)
    if hi <= lo:
        return 0.0
    # a ray meeting the disc meets it at most t mm from the origin: only the rays that
    # reach the base's near side beyond that count, those at least psi_t off the centre
    # line (the near side grows farther with |psi|: s(psi_t) = t, by the law of cosines)
    far = t + 1e-9 * (d + 1.0)
    if far <= d - r:
        return hi - lo
    if far * far >= d * d - r * r:
        return 0.0  # beyond every ray's near side
    c = (far * far + d * d - r * r) / (2.0 * far * d)
    if c <= math.cos(w):
        return 0.0
    least = math.acos(c) if c < 1.0 else 0.0
    return max(0.0, hi - max(lo, least)) + max(0.0, min(hi, -least) - lo)


@njit(cache=True)
def _polygon_depth(edges: np.ndarray, e0: int, e1: int, half: float, x: float, y: float) -> float:
    """How deep (mm) ``(x, y)`` lies in the polygon of edges ``e0:e1`` (even-odd over its
    rings) grown by ``half``: ``half`` plus its distance to the outline inside, ``half``
    less it outside."""
    near = np.inf
    inside = False
    for e in range(e0, e1):
        x0, y0, x1, y1 = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
        dx = x1 - x0
        dy = y1 - y0
        ll = dx * dx + dy * dy
        u = 0.0
        if ll > 0.0:
            u = min(1.0, max(0.0, ((x - x0) * dx + (y - y0) * dy) / ll))
        qx = x0 + u * dx - x
        qy = y0 + u * dy - y
        near = min(near, qx * qx + qy * qy)
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    near = math.sqrt(near)
    return half + near if inside else half - near


@njit(cache=True)
def _inside_polygon(edges: np.ndarray, e0: int, e1: int, x: float, y: float) -> bool:
    """Even-odd: whether ``(x, y)`` is inside the polygon of edges ``e0:e1``."""
    inside = False
    for e in range(e0, e1):
        x0, y0, x1, y1 = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


@njit(cache=True)
def _piece_span(
    k: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
    ray: np.ndarray,
    ts: np.ndarray,
) -> float:
    """The widest :func:`_hidden_span` of piece ``k`` around points of the stretch of a
    ray ``ray`` (origin x, y, direction x, y, from t0, to t1, psi, w, d, r, need): for a
    disc at the point nearest its centre; for a polygon half way between the places the
    ray crosses its edges (stopping once ``need`` is reached)."""
    ox, oy, ux, uy, t0, t1 = ray[0], ray[1], ray[2], ray[3], ray[4], ray[5]
    psi, w, d, r, need = ray[6], ray[7], ray[8], ray[9], ray[10]
    if kind[k] == _DISC:
        cx, cy = disc[k, 0], disc[k, 1]
        t = min(t1, max(t0, (cx - ox) * ux + (cy - oy) * uy))
        gx = ox + t * ux - cx
        gy = oy + t * uy - cy
        return _hidden_span(half + disc[k, 2] - math.sqrt(gx * gx + gy * gy), t, psi, w, d, r)
    e0, e1 = eoff[k], eoff[k + 1]
    n = 0
    ts[n] = t0
    n += 1
    for e in range(e0, e1):
        ax, ay = edges[e, 0], edges[e, 1]
        ex, ey = edges[e, 2] - ax, edges[e, 3] - ay
        den = ux * ey - uy * ex
        if den != 0.0:
            t = ((ax - ox) * ey - (ay - oy) * ex) / den
            if t0 < t < t1:
                j = n  # insertion: the crossings in order
                while j > 0 and ts[j - 1] > t:
                    ts[j] = ts[j - 1]
                    j -= 1
                ts[j] = t
                n += 1
    ts[n] = t1
    n += 1
    best = 0.0
    for j in range(n):
        t = 0.5 * (ts[j] + ts[j + 1]) if j < n - 1 else t1
        depth = _polygon_depth(edges, e0, e1, half, ox + t * ux, oy + t * uy)
        best = max(best, _hidden_span(depth, t, psi, w, d, r))
        if best >= need:
            break
    return best


@njit(cache=True)
def _clip_stretch(
    box: np.ndarray, k: int, ox: float, oy: float, ux: float, uy: float, s: float
) -> tuple[float, float]:
    """The stretch ``(t0, t1)`` of the ray from ``o`` along ``u``, up to ``s``, within
    box ``k`` (empty: ``t0 > t1``)."""
    t0 = 0.0
    t1 = s
    for axis in range(2):
        o = ox if axis == 0 else oy
        u = ux if axis == 0 else uy
        lo = box[k, axis]
        hi = box[k, axis + 2]
        if u == 0.0:
            if o < lo or o > hi:
                return 1.0, 0.0
        else:
            ta = (lo - o) / u
            tb = (hi - o) / u
            t0 = max(t0, min(ta, tb))
            t1 = min(t1, max(ta, tb))
    return t0, t1


@njit(cache=True)
def _segment_clear(
    px: float,
    py: float,
    qx: float,
    qy: float,
    tri: np.ndarray,
    g: float,
    tx: float,
    ty: float,
    inner: float,
) -> bool:
    """Whether segment ``p q`` is surely farther than ``g`` from every point of a base's
    near stretch of sight (the rays from the origin to the base's near side, within the
    triangle ``tri`` of the origin and the two points where lines from it graze the
    base, outside the base): its points within ``g`` of the triangle (those in the
    triangle's sides moved ``g`` out) all nearer than ``inner`` to the base's centre
    ``t`` (``inner`` = the base's radius less ``g``)."""
    lo = 0.0
    hi = 1.0
    for s in range(3):
        ax, ay = tri[s, 0], tri[s, 1]
        bx, by = tri[(s + 1) % 3, 0], tri[(s + 1) % 3, 1]
        ex, ey = bx - ax, by - ay
        el = math.sqrt(ex * ex + ey * ey)
        if el == 0.0:
            return False
        nx, ny = ey / el, -ex / el  # outward: the triangle runs counter-clockwise
        f0 = nx * (px - ax) + ny * (py - ay) - g
        df = nx * (qx - px) + ny * (qy - py)
        if df == 0.0:
            if f0 > 0.0:
                return True  # wholly beyond this side
            continue
        t = -f0 / df
        if df > 0.0:
            hi = min(hi, t)
        else:
            lo = max(lo, t)
        if lo > hi:
            return True
    if not inner > 0.0:
        return False
    for t in (lo, hi):
        zx = px + t * (qx - px) - tx
        zy = py + t * (qy - py) - ty
        if zx * zx + zy * zy >= inner * inner:
            return False
    return True


@njit(cache=True)
def _broad_phase(
    ox: float,
    oy: float,
    skip_a: int,
    skip_b: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    hides: np.ndarray,
    grow: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pieces the sight kernel counts (flagged in ``hides``, neither ``skip_a`` nor
    ``skip_b`` nor a bridge from one, G4) seen from ``o``: each one's box grown by
    ``grow``, its distance from ``o`` (inf: not counted), and the angular buckets of the
    directions the boxes span (``count``, ``items``), nearest first."""
    npieces = kind.shape[0]
    box = np.zeros((npieces, 4))
    near = np.full(npieces, np.inf)
    for k in range(npieces):
        if not hides[k] or k in (skip_a, skip_b):
            continue
        if kind[k] == _BRIDGE:
            ends = (int(disc[k, 0]), int(disc[k, 1]))
            if skip_a in ends or skip_b in ends:
                continue
        if kind[k] == _DISC:
            x0, y0 = disc[k, 0] - disc[k, 2], disc[k, 1] - disc[k, 2]
            x1, y1 = disc[k, 0] + disc[k, 2], disc[k, 1] + disc[k, 2]
        else:
            e0, e1 = eoff[k], eoff[k + 1]
            if e1 <= e0:
                continue
            x0, y0 = np.inf, np.inf
            x1, y1 = -np.inf, -np.inf
            for e in range(e0, e1):
                x0 = min(x0, edges[e, 0], edges[e, 2])
                y0 = min(y0, edges[e, 1], edges[e, 3])
                x1 = max(x1, edges[e, 0], edges[e, 2])
                y1 = max(y1, edges[e, 1], edges[e, 3])
        box[k, 0], box[k, 1], box[k, 2], box[k, 3] = x0 - grow, y0 - grow, x1 + grow, y1 + grow
        gx = max(box[k, 0] - ox, 0.0, ox - box[k, 2])
        gy = max(box[k, 1] - oy, 0.0, oy - box[k, 3])
        near[k] = math.sqrt(gx * gx + gy * gy)
    bw = 2.0 * math.pi / _NB
    count = np.zeros(_NB, np.int64)
    items = np.empty((_NB, max(npieces, 1)), np.int64)
    for k in np.argsort(near):
        if near[k] == np.inf:
            break
        if near[k] == 0.0:
            first, last = 0, _NB - 1
        else:
            cx = 0.5 * (box[k, 0] + box[k, 2])
            cy = 0.5 * (box[k, 1] + box[k, 3])
            ref = math.atan2(cy - oy, cx - ox)
            lo = 0.0
            hi = 0.0
            for c in range(4):
                px = box[k, 0] if c == 0 or c == 3 else box[k, 2]
                py = box[k, 1] if c < 2 else box[k, 3]
                a = math.atan2(py - oy, px - ox) - ref
                a = (a + math.pi) % (2.0 * math.pi) - math.pi
                lo = min(lo, a)
                hi = max(hi, a)
            first = int(math.floor((ref + lo - 1e-9 + math.pi) / bw))
            last = int(math.floor((ref + hi + 1e-9 + math.pi) / bw))
            if last - first >= _NB:
                first, last = 0, _NB - 1
        for b in range(first, last + 1):
            bb = (b % _NB + _NB) % _NB
            items[bb, count[bb]] = k
            count[bb] += 1
    return box, near, count, items


@njit(cache=True, nogil=True)
def cover_decided(
    ox: float,
    oy: float,
    targets: np.ndarray,
    skip_a: int,
    skip_b: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    hides: np.ndarray,
    half: float,
) -> np.ndarray:
    """M8 for each base ``targets[i]`` (cx, cy, r) seen from ``o`` where it is sure
    without the sight kernel: 1 (cover) or 0 (none) as the kernel's S2 share
    (``arbitre.kernels.visible_fractions`` with the same packed pieces, those flagged in
    ``hides`` hiding, ``skip_a`` and ``skip_b`` left out) would rule it, or
    :data:`UNKNOWN` (the kernel rules it). The kernel tests the segment from ``o`` to
    the base's near side at each angle (crossed: nearer a piece than ``half - EPS``; not:
    farther than ``half + EPS``):

    - cover: along one of a few rays (:data:`_RAYS`) some piece's beam zone holds, a
      disc :data:`DEEP` deeper than that tolerance that the rays of at least
      :data:`HIDDEN_SHARE` of the base's width meet before reaching the base (each is
      crossed there; bridges are not looked at);
    - none: every piece the kernel counts is farther than ``half + EPS + DEEP`` from
      every segment (:func:`_segment_clear` for each edge, a disc's circle as a whole,
      no polygon holding the near side's middle).

    A beam of ``half`` within the kernel's tolerance, or a base the origin is on or next
    to, decides nothing."""
    m = targets.shape[0]
    out = np.full(m, UNKNOWN, np.int8)
    if half <= KERNEL_EPS + DEEP:
        return out
    g = half + KERNEL_EPS + DEEP
    box, near, count, items = _broad_phase(
        ox, oy, skip_a, skip_b, kind, disc, eoff, edges, hides, half + 1.0
    )
    most = 2
    for k in range(kind.shape[0]):
        if near[k] < np.inf and kind[k] == _POLYGON:
            most = max(most, eoff[k + 1] - eoff[k] + 2)
    ts = np.zeros(most)
    ray = np.zeros(11)
    tri = np.zeros((3, 2))
    mark = np.full(kind.shape[0], -1, np.int64)
    bw = 2.0 * math.pi / _NB
    for i in range(m):
        tx, ty, r = targets[i, 0], targets[i, 1], targets[i, 2]
        vx = tx - ox
        vy = ty - oy
        d = math.sqrt(vx * vx + vy * vy)
        if not r > 0.0 or d <= 2.0 * r:
            continue  # the origin on or next to the base
        w = math.asin(r / d)
        if w < 1e-6:
            continue  # a base seen as a point (``arbitre.kernels.POINT_WIDTH``) or nearly
        need = 2.0 * w * HIDDEN_SHARE
        phi = math.atan2(vy, vx)
        # cover: a deep blocker on one of the rays
        hidden = False
        for j in range(len(_RAYS)):
            psi = _RAYS[j] * w
            s = _near_side(d, r, psi)
            th = phi + psi
            ux = math.cos(th)
            uy = math.sin(th)
            bb = (int(math.floor((th + math.pi) / bw)) % _NB + _NB) % _NB
            for n in range(count[bb]):
                k = items[bb, n]
                if near[k] > s:
                    break
                if kind[k] == _BRIDGE:
                    continue
                t0, t1 = _clip_stretch(box, k, ox, oy, ux, uy, s)
                if t0 > t1:
                    continue
                ray[0], ray[1], ray[2], ray[3], ray[4], ray[5] = ox, oy, ux, uy, t0, t1
                ray[6], ray[7], ray[8], ray[9], ray[10] = psi, w, d, r, need
                if _piece_span(k, kind, disc, eoff, edges, half, ray, ts) >= need:
                    hidden = True
                    break
            if hidden:
                break
        if hidden:
            out[i] = 1
            continue
        # none: every piece near the base's cone of sight surely clear of it
        reach = math.sqrt(d * d - r * r)
        tri[0, 0], tri[0, 1] = ox, oy
        tri[1, 0], tri[1, 1] = ox + reach * math.cos(phi - w), oy + reach * math.sin(phi - w)
        tri[2, 0], tri[2, 1] = ox + reach * math.cos(phi + w), oy + reach * math.sin(phi + w)
        inner = r - g - DEEP
        mx = ox + (d - r) * vx / d
        my = oy + (d - r) * vy / d
        clear = True
        first = int(math.floor((phi - w - 1e-9 + math.pi) / bw))
        last = int(math.floor((phi + w + 1e-9 + math.pi) / bw))
        for b in range(first, last + 1):
            bb = (b % _NB + _NB) % _NB
            for n in range(count[bb]):
                k = items[bb, n]
                if near[k] > reach + g + 1.0:
                    break
                if mark[k] == i:
                    continue
                mark[k] = i
                if kind[k] == _DISC:
                    cx, cy, ck = disc[k, 0], disc[k, 1], disc[k, 2]
                    if math.sqrt((cx - tx) ** 2 + (cy - ty) ** 2) + ck < inner:
                        continue  # within the base, beyond its near side
                    # its centre beyond some side of the triangle by more than its reach
                    beyond = False
                    for e in range(3):
                        ax, ay = tri[e, 0], tri[e, 1]
                        ex, ey = tri[(e + 1) % 3, 0] - ax, tri[(e + 1) % 3, 1] - ay
                        el = math.sqrt(ex * ex + ey * ey)
                        if el > 0.0 and (ey * (cx - ax) - ex * (cy - ay)) / el > ck + g:
                            beyond = True
                            break
                    if not beyond:
                        clear = False
                else:
                    e0, e1 = eoff[k], eoff[k + 1]
                    for e in range(e0, e1):
                        if not _segment_clear(
                            edges[e, 0],
                            edges[e, 1],
                            edges[e, 2],
                            edges[e, 3],
                            tri,
                            g,
                            tx,
                            ty,
                            inner,
                        ):
                            clear = False
                            break
                    if clear and kind[k] == _POLYGON and _inside_polygon(edges, e0, e1, mx, my):
                        clear = False
                if not clear:
                    break
            if not clear:
                break
        if clear:
            out[i] = 0
    return out
