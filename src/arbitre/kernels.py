"""Compiled hot loops behind :mod:`arbitre.sight` (numba, cached on disk).

Pieces (terrain footprints and bases) are packed in flat arrays:

- ``kind[k]``: 0 for a disc (``disc[k] = cx, cy, r``), 1 for a polygon whose edges are
  ``edges[eoff[k]:eoff[k + 1]]`` (rows ``x0, y0, x1, y1``; holes are extra rings);
- ``kind[k]`` 2 for a *bridge* (G4): the segment joining the nearest points of two
  touching blockers, packed as a polygon of two edges ``p -> q -> p``, its two pieces'
  indices in ``disc[k, 0:2]``. A segment crosses a bridge when it comes nearer than
  ``half`` to it or meets it, whatever the grazing rule: no line passes between
  blockers that touch. A bridge is skipped with either of its ends;
- ``half``: half the sight beam (G5). A segment *crosses* a piece when it comes nearer
  than ``half`` to it; with ``half == 0`` when it meets the piece's interior. Exactly at
  the beam's edge it *grazes*, and ``grazing`` says whether that counts.

Nothing here knows a rule: the callers choose which pieces block and which to skip.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

EPS = 1e-7
NBUCKETS = 128
TWO_PI = 2.0 * math.pi

DISC = 0
POLYGON = 1
BRIDGE = 2


@njit(cache=True, inline="always")
def _seg_point_dist(ax: float, ay: float, bx: float, by: float, px: float, py: float) -> float:
    dx = bx - ax
    dy = by - ay
    ll = dx * dx + dy * dy
    t = 0.0
    if ll > 0.0:
        t = ((px - ax) * dx + (py - ay) * dy) / ll
        t = min(1.0, max(0.0, t))
    qx = ax + t * dx - px
    qy = ay + t * dy - py
    return math.sqrt(qx * qx + qy * qy)


@njit(cache=True, inline="always")
def _orient(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> float:
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@njit(cache=True)
def _seg_seg_dist(
    ax: float, ay: float, bx: float, by: float, px: float, py: float, qx: float, qy: float
) -> float:
    d1 = _orient(ax, ay, bx, by, px, py)
    d2 = _orient(ax, ay, bx, by, qx, qy)
    d3 = _orient(px, py, qx, qy, ax, ay)
    d4 = _orient(px, py, qx, qy, bx, by)
    if ((d1 > 0.0 and d2 < 0.0) or (d1 < 0.0 and d2 > 0.0)) and (
        (d3 > 0.0 and d4 < 0.0) or (d3 < 0.0 and d4 > 0.0)
    ):
        return 0.0
    return min(
        min(_seg_point_dist(ax, ay, bx, by, px, py), _seg_point_dist(ax, ay, bx, by, qx, qy)),
        min(_seg_point_dist(px, py, qx, qy, ax, ay), _seg_point_dist(px, py, qx, qy, bx, by)),
    )


@njit(cache=True)
def _inside(edges: np.ndarray, e0: int, e1: int, px: float, py: float) -> bool:
    """Even-odd point-in-polygon over every ring of one piece."""
    inside = False
    for e in range(e0, e1):
        x0, y0, x1, y1 = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
        if (y0 > py) != (y1 > py):
            xi = x0 + (py - y0) * (x1 - x0) / (y1 - y0)
            if px < xi:
                inside = not inside
    return inside


@njit(cache=True)
def _polygon_dist(
    edges: np.ndarray, e0: int, e1: int, ax: float, ay: float, bx: float, by: float
) -> float:
    """Distance from segment ab to the closed polygon (0 when they meet)."""
    if _inside(edges, e0, e1, ax, ay):
        return 0.0
    best = np.inf
    for e in range(e0, e1):
        d = _seg_seg_dist(ax, ay, bx, by, edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3])
        if d < best:
            best = d
            if best == 0.0:
                break
    return best


@njit(cache=True)
def _cuts(
    edges: np.ndarray, e0: int, e1: int, ax: float, ay: float, bx: float, by: float
) -> np.ndarray:
    """The parameters (0 at a, 1 at b, sorted, 0 and 1 included) where segment ab may
    cross the boundary of a polygon: where it meets each edge's line within the segment,
    and where it passes a vertex. Between two of them the segment is wholly inside or
    wholly outside, which its midpoint tells."""
    dx = bx - ax
    dy = by - ay
    ll = dx * dx + dy * dy
    ts = np.empty(2 + 3 * (e1 - e0))
    ts[0] = 0.0
    ts[1] = 1.0
    n = 2
    if ll > 0.0:
        for e in range(e0, e1):
            px, py, qx, qy = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
            ex = qx - px
            ey = qy - py
            den = dx * ey - dy * ex
            if abs(den) > 1e-12 * math.sqrt(ll * (ex * ex + ey * ey)):
                t = ((px - ax) * ey - (py - ay) * ex) / den
                if -EPS <= t <= 1.0 + EPS:
                    ts[n] = min(1.0, max(0.0, t))
                    n += 1
            for vx, vy in ((px, py), (qx, qy)):
                if _seg_point_dist(ax, ay, bx, by, vx, vy) <= EPS:
                    t = ((vx - ax) * dx + (vy - ay) * dy) / ll
                    ts[n] = min(1.0, max(0.0, t))
                    n += 1
    return np.sort(ts[:n])


@njit(cache=True)
def _meets_interior(
    edges: np.ndarray, e0: int, e1: int, ax: float, ay: float, bx: float, by: float
) -> bool:
    """Whether segment ab meets the open interior of the polygon (beam 0, G5).

    The boundary cuts the segment at finitely many parameters; the segment meets the
    interior iff the midpoint of some piece between two cuts lies strictly inside.
    """
    dx = bx - ax
    dy = by - ay
    tt = _cuts(edges, e0, e1, ax, ay, bx, by)
    n = len(tt)
    for i in range(n - 1):
        if tt[i + 1] - tt[i] <= 1e-12 and n > 2:
            continue
        tm = 0.5 * (tt[i] + tt[i + 1])
        mx = ax + tm * dx
        my = ay + tm * dy
        if _inside(edges, e0, e1, mx, my):
            near = np.inf
            for e in range(e0, e1):
                near = min(
                    near,
                    _seg_point_dist(edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3], mx, my),
                )
            if near > EPS:
                return True
    return False


@njit(cache=True, inline="always")
def skipped(k: int, sa: int, sb: int, kind: np.ndarray, disc: np.ndarray) -> bool:
    """Whether piece ``k`` is left out of a segment whose ends are pieces ``sa`` and
    ``sb``: one of them, or a bridge from one of them (G4)."""
    if k in (sa, sb):
        return True
    if kind[k] == BRIDGE:
        return int(disc[k, 0]) in (sa, sb) or int(disc[k, 1]) in (sa, sb)
    return False


@njit(cache=True)
def _bridge_crossed(
    edges: np.ndarray, e: int, ax: float, ay: float, bx: float, by: float, half: float
) -> bool:
    """Whether segment ab passes between the two ends of bridge edge ``e`` (G4): nearer
    than ``half`` to it, or meeting it (its ends too: a line tangent to a blocker at the
    bridge's end, the point nearest the other blocker, lies between the two)."""
    d = _seg_seg_dist(ax, ay, bx, by, edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3])
    return d < half - EPS or d <= EPS


@njit(cache=True)
def crosses(
    k: int,
    ax: float,
    ay: float,
    bx: float,
    by: float,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
    grazing: bool,
) -> bool:
    """Whether segment ab crosses piece ``k`` under the beam rule (G5; G4 for a bridge)."""
    if kind[k] == BRIDGE:
        return _bridge_crossed(edges, eoff[k], ax, ay, bx, by, half)
    if kind[k] == DISC:
        d = _seg_point_dist(ax, ay, bx, by, disc[k, 0], disc[k, 1]) - disc[k, 2]
        if d < half - EPS:
            return True
        if d > half + EPS:
            return False
        return grazing
    d = _polygon_dist(edges, eoff[k], eoff[k + 1], ax, ay, bx, by)
    return _polygon_crossed(d, edges, eoff[k], eoff[k + 1], ax, ay, bx, by, half, grazing)


@njit(cache=True)
def _polygon_crossed(
    d: float,
    edges: np.ndarray,
    e0: int,
    e1: int,
    ax: float,
    ay: float,
    bx: float,
    by: float,
    half: float,
    grazing: bool,
) -> bool:
    """:func:`crosses` for a polygon at distance ``d`` (:func:`_polygon_dist`) from ab."""
    if d > half + EPS:
        return False
    if half > EPS and d < half - EPS:
        return True
    if half <= EPS and _meets_interior(edges, e0, e1, ax, ay, bx, by):
        return True
    return grazing


@njit(cache=True)
def _polygon_dist_near(
    edges: np.ndarray, e0: int, e1: int, hint: int, ax: float, ay: float, bx: float, by: float
) -> tuple[float, int]:
    """:func:`_polygon_dist`, the edges scanned outward from edge ``hint`` (one that a
    nearby segment met): the same distance, found at once when ab meets the outline
    there. Returns it and the edge met (``hint`` when none is)."""
    n = e1 - e0
    h = min(max(hint - e0, 0), max(n - 1, 0))
    best = np.inf
    for j in range(n):
        off = (j + 1) // 2
        e = e0 + (h + off if j % 2 == 1 else h - off) % n
        d = _seg_seg_dist(ax, ay, bx, by, edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3])
        if d < best:
            best = d
            if best == 0.0:
                return 0.0, e
    if _inside(edges, e0, e1, ax, ay):
        return 0.0, hint
    return best, hint


@njit(cache=True)
def _circle_entry(
    ax: float, ay: float, dx: float, dy: float, cx: float, cy: float, r: float
) -> float:
    """Smallest t in [0, 1] with |a + t d - c| <= r, or inf."""
    fx = ax - cx
    fy = ay - cy
    c = fx * fx + fy * fy - r * r
    if c <= 0.0:
        return 0.0
    a = dx * dx + dy * dy
    if a == 0.0:
        return np.inf
    b = fx * dx + fy * dy
    disc = b * b - a * c
    if disc < 0.0:
        return np.inf
    t = (-b - math.sqrt(disc)) / a
    if 0.0 <= t <= 1.0:
        return t
    return np.inf


@njit(cache=True)
def entry(
    k: int,
    ax: float,
    ay: float,
    bx: float,
    by: float,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
) -> float:
    """Where segment ab first comes within ``half`` of piece ``k``, as t in [0, 1].

    Used to order the pieces a line crosses (S1); the closest approach is the fallback
    for a piece only grazed.
    """
    dx = bx - ax
    dy = by - ay
    if kind[k] == DISC:
        t = _circle_entry(ax, ay, dx, dy, disc[k, 0], disc[k, 1], disc[k, 2] + half)
    else:
        e0 = eoff[k]
        e1 = eoff[k + 1]
        if _inside(edges, e0, e1, ax, ay):
            return 0.0
        t = np.inf
        for e in range(e0, e1):
            px, py, qx, qy = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
            t = min(t, _circle_entry(ax, ay, dx, dy, px, py, half))
            t = min(t, _circle_entry(ax, ay, dx, dy, qx, qy, half))
            ex = qx - px
            ey = qy - py
            el = math.sqrt(ex * ex + ey * ey)
            if el == 0.0:
                continue
            nx = -ey / el
            ny = ex / el
            # signed distance of a + t d to the edge's line: s0 + t s1
            s0 = (ax - px) * nx + (ay - py) * ny
            s1 = dx * nx + dy * ny
            if s1 != 0.0:
                for target in (half, -half):
                    tt = (target - s0) / s1
                    if 0.0 <= tt <= 1.0 and tt < t:
                        hx = ax + tt * dx - px
                        hy = ay + tt * dy - py
                        along = (hx * ex + hy * ey) / el
                        if 0.0 <= along <= el:
                            t = tt
    if t == np.inf:
        # only grazed: order by the closest approach to the piece's reference point
        if kind[k] == DISC or eoff[k + 1] <= eoff[k]:
            cx, cy = disc[k, 0], disc[k, 1]
        else:
            cx, cy = edges[eoff[k], 0], edges[eoff[k], 1]
        ll = dx * dx + dy * dy
        t = 0.0 if ll == 0.0 else min(1.0, max(0.0, ((cx - ax) * dx + (cy - ay) * dy) / ll))
    return t


@njit(cache=True)
def _wrap(a: float) -> float:
    """An angle brought into [-pi, pi)."""
    return (a + math.pi) % TWO_PI - math.pi


@njit(cache=True)
def _angular_extent(
    k: int,
    ox: float,
    oy: float,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    half: float,
) -> tuple[float, float, float]:
    """Centre angle, half-width and nearest distance of piece ``k`` seen from o.

    A half-width of pi means "all around" (o is inside or next to the piece), a negative
    one "nowhere": a polygon without edges (a wall whose windows cover it, seen solid
    for F6) has no extent and an infinite distance. Conservative: the true extent,
    inflated by the beam, lies inside it.
    """
    if kind[k] == DISC:
        vx = disc[k, 0] - ox
        vy = disc[k, 1] - oy
        d = math.sqrt(vx * vx + vy * vy)
        rr = disc[k, 2] + half + EPS
        if d <= rr:
            return 0.0, math.pi, 0.0
        return math.atan2(vy, vx), math.asin(rr / d), d - rr
    e0 = eoff[k]
    e1 = eoff[k + 1]
    if e1 <= e0:
        return 0.0, -1.0, np.inf
    dist = np.inf
    for e in range(e0, e1):
        dist = min(
            dist, _seg_point_dist(edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3], ox, oy)
        )
    dmin = dist - half - EPS
    if dmin <= 0.0 or _inside(edges, e0, e1, ox, oy):
        return 0.0, math.pi, 0.0
    # The outline is a closed curve not through o: following it, the direction from o
    # turns continuously, so the extremes of the unwrapped direction bound the extent.
    ref = math.atan2(edges[e0, 1] - oy, edges[e0, 0] - ox)
    lo = 0.0
    hi = 0.0
    cum = 0.0
    prev = ref
    for e in range(e0, e1):
        a = math.atan2(edges[e, 3] - oy, edges[e, 2] - ox)
        if e > e0 and (edges[e, 0] != edges[e - 1, 2] or edges[e, 1] != edges[e - 1, 3]):
            # a new ring starts: unwrap its first vertex relative to the reference
            b = math.atan2(edges[e, 1] - oy, edges[e, 0] - ox)
            cum = _wrap(b - ref)
            prev = b
            lo = min(lo, cum)
            hi = max(hi, cum)
        cum += _wrap(a - prev)
        prev = a
        lo = min(lo, cum)
        hi = max(hi, cum)
    if hi - lo >= TWO_PI - 1e-9:
        return 0.0, math.pi, dmin
    pad = math.asin(min(1.0, (half + EPS) / dist)) + 1e-9
    return ref + 0.5 * (lo + hi), 0.5 * (hi - lo) + pad, dmin


@njit(cache=True)
def _fill_buckets(
    ox: float,
    oy: float,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    half: float,
    count: np.ndarray,
    items: np.ndarray,
    dmin: np.ndarray,
) -> None:
    """Angular buckets of the pieces seen from o: the broad phase of one origin.

    Each bucket lists its pieces nearest first, so that a search along a segment can
    stop at the first piece farther than the segment is long.
    """
    count[:] = 0
    bw = TWO_PI / NBUCKETS
    npieces = kind.shape[0]
    mids = np.empty(npieces)
    widths = np.empty(npieces)
    for k in range(npieces):
        mids[k], widths[k], dmin[k] = _angular_extent(
            k, ox, oy, kind, disc, eoff, edges, bbox, half
        )
    for k in np.argsort(dmin[:npieces]):
        mid = mids[k]
        w = widths[k]
        if w < 0.0:
            continue  # seen nowhere
        if w >= math.pi - 1e-12:
            first = 0
            last = NBUCKETS - 1
        else:
            first = int(math.floor((mid - w + math.pi) / bw))
            last = int(math.floor((mid + w + math.pi) / bw))
        for b in range(first, last + 1):
            bb = b % NBUCKETS
            items[bb, count[bb]] = k
            count[bb] += 1


@njit(cache=True)
def centre_lines(
    ax: np.ndarray,
    ay: np.ndarray,
    bx: np.ndarray,
    by: np.ndarray,
    skip_a: np.ndarray,
    skip_b: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    stops: np.ndarray,
    half: float,
    grazing: bool,
    early_exit: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """S1 for a batch of segments a_i b_i: the pieces each crosses, ordered along it.

    Segments sharing an origin should be consecutive: the angular broad phase is built
    once per origin. ``skip_a``/``skip_b`` are pieces never counted (the ends' own bases,
    -1 for none). With ``early_exit``, a segment's search stops at the first piece found
    whose ``stops`` flag is set. Returns CSR arrays ``offsets, piece, t`` and for each
    segment the nearest stopping piece crossed (-1 for none).

    Long on purpose: a compiled kernel keeps its loops in one function (numba inlines
    nothing across calls as cheaply as a loop body), so the hot path stays in registers.
    """
    m = ax.shape[0]
    npieces = kind.shape[0]
    offsets = np.zeros(m + 1, np.int64)
    cap = max(16, 4 * m)
    out_k = np.empty(cap, np.int64)
    out_t = np.empty(cap, np.float64)
    first_stop = np.full(m, -1, np.int64)
    count = np.zeros(NBUCKETS, np.int64)
    items = np.empty((NBUCKETS, max(npieces, 1)), np.int64)
    dmin = np.empty(max(npieces, 1))
    bw = TWO_PI / NBUCKETS
    n = 0
    lox = np.nan
    loy = np.nan
    for i in range(m):
        if ax[i] != lox or ay[i] != loy:
            lox = ax[i]
            loy = ay[i]
            _fill_buckets(lox, loy, kind, disc, eoff, edges, bbox, half, count, items, dmin)
        vx = bx[i] - ax[i]
        vy = by[i] - ay[i]
        length = math.sqrt(vx * vx + vy * vy)
        b = int(math.floor((math.atan2(vy, vx) + math.pi) / bw)) % NBUCKETS
        start = n
        best_t = np.inf
        for j in range(count[b]):
            k = items[b, j]
            if dmin[k] > length:
                break
            if skipped(k, skip_a[i], skip_b[i], kind, disc):
                continue
            if not crosses(k, ax[i], ay[i], bx[i], by[i], kind, disc, eoff, edges, half, grazing):
                continue
            t = entry(k, ax[i], ay[i], bx[i], by[i], kind, disc, eoff, edges, half)
            if n == cap:
                cap *= 2
                nk = np.empty(cap, np.int64)
                nt = np.empty(cap, np.float64)
                nk[:n] = out_k[:n]
                nt[:n] = out_t[:n]
                out_k = nk
                out_t = nt
            # insertion keeps the segment's pieces ordered along it
            p = n
            while p > start and (out_t[p - 1] > t or (out_t[p - 1] == t and out_k[p - 1] > k)):
                out_k[p] = out_k[p - 1]
                out_t[p] = out_t[p - 1]
                p -= 1
            out_k[p] = k
            out_t[p] = t
            n += 1
            if stops[k] and t < best_t:
                best_t = t
                first_stop[i] = k
                if early_exit:
                    break
        offsets[i + 1] = n
    return offsets, out_k[:n], out_t[:n], first_stop


# --- S2: the visible share of a target seen from a point -------------------------------
#
# Seen from o, the target spans an angular interval. For one piece, whether the segment
# from o to the target's first point on a ray is crossed can only change where the ray
# is tangent to the piece's beam-inflated outline, where that outline meets the target's
# outline, or along an edge line through o. Between two such critical angles the answer
# is constant: testing one ray in each gap gives the exact visible measure.

TARGET_DISC = 0
TARGET_SEGMENT = 1
#: A target seen under a half-angle below this (radians) is measured as a point: all or
#: nothing along the centre line. Narrower, the gaps between critical angles drown in
#: rounding (a base of 1e-300 mm would be "seen 0%" on a clear line, 1e-323 divide by 0).
POINT_WIDTH = 1e-10


@njit(cache=True)
def _push(buf: np.ndarray, n: int, value: float) -> int:
    if n < buf.shape[0]:
        buf[n] = value
        return n + 1
    return n


@njit(cache=True)
def _rel(ox: float, oy: float, px: float, py: float, phi: float) -> float:
    return _wrap(math.atan2(py - oy, px - ox) - phi)


@njit(cache=True)
def _tangents(
    buf: np.ndarray, n: int, ox: float, oy: float, cx: float, cy: float, r: float, phi: float
) -> int:
    vx = cx - ox
    vy = cy - oy
    d = math.sqrt(vx * vx + vy * vy)
    if d <= 0.0:
        return n
    a = _wrap(math.atan2(vy, vx) - phi)
    n = _push(buf, n, a)
    if r > 0.0 and d > r:
        w = math.asin(r / d)
        n = _push(buf, n, _wrap(a - w))
        n = _push(buf, n, _wrap(a + w))
    return n


@njit(cache=True)
def _circle_meets_target(
    buf: np.ndarray,
    n: int,
    ox: float,
    oy: float,
    phi: float,
    cx: float,
    cy: float,
    r: float,
    tkind: int,
    t: np.ndarray,
) -> int:
    """Angles of the points where the circle (c, r) meets the target's outline."""
    if r <= 0.0:
        return n
    if tkind == TARGET_DISC:
        tx, ty, tr = t[0], t[1], t[2]
        dx = tx - cx
        dy = ty - cy
        d = math.sqrt(dx * dx + dy * dy)
        if d == 0.0 or d > r + tr or d < abs(r - tr):
            return n
        a = (r * r - tr * tr + d * d) / (2.0 * d)
        h = math.sqrt(max(0.0, r * r - a * a))
        mx = cx + a * dx / d
        my = cy + a * dy / d
        n = _push(buf, n, _rel(ox, oy, mx - h * dy / d, my + h * dx / d, phi))
        return _push(buf, n, _rel(ox, oy, mx + h * dy / d, my - h * dx / d, phi))
    px, py, qx, qy = t[0], t[1], t[2], t[3]
    dx = qx - px
    dy = qy - py
    a = dx * dx + dy * dy
    fx = px - cx
    fy = py - cy
    b = fx * dx + fy * dy
    c = fx * fx + fy * fy - r * r
    disc = b * b - a * c
    if a == 0.0 or disc < 0.0:
        return n
    for sgn in (-1.0, 1.0):
        lam = (-b + sgn * math.sqrt(disc)) / a
        if 0.0 <= lam <= 1.0:
            n = _push(buf, n, _rel(ox, oy, px + lam * dx, py + lam * dy, phi))
    return n


@njit(cache=True)
def _segment_meets_target(
    buf: np.ndarray,
    n: int,
    ox: float,
    oy: float,
    phi: float,
    px: float,
    py: float,
    qx: float,
    qy: float,
    tkind: int,
    t: np.ndarray,
) -> int:
    """Angles of the points where segment pq meets the target's outline."""
    if tkind == TARGET_DISC:
        dx = qx - px
        dy = qy - py
        a = dx * dx + dy * dy
        fx = px - t[0]
        fy = py - t[1]
        b = fx * dx + fy * dy
        c = fx * fx + fy * fy - t[2] * t[2]
        disc = b * b - a * c
        if a == 0.0 or disc < 0.0:
            return n
        for sgn in (-1.0, 1.0):
            lam = (-b + sgn * math.sqrt(disc)) / a
            if 0.0 <= lam <= 1.0:
                n = _push(buf, n, _rel(ox, oy, px + lam * dx, py + lam * dy, phi))
        return n
    ux = qx - px
    uy = qy - py
    vx = t[2] - t[0]
    vy = t[3] - t[1]
    den = ux * vy - uy * vx
    if den == 0.0:
        return n
    wx = t[0] - px
    wy = t[1] - py
    lam = (wx * vy - wy * vx) / den
    mu = (wx * uy - wy * ux) / den
    if 0.0 <= lam <= 1.0 and 0.0 <= mu <= 1.0:
        n = _push(buf, n, _rel(ox, oy, px + lam * ux, py + lam * uy, phi))
    return n


@njit(cache=True)
def _target_point(
    ox: float, oy: float, phi: float, psi: float, tkind: int, t: np.ndarray
) -> tuple[float, float]:
    """The first point of the target on the ray at angle phi + psi from o."""
    ux = math.cos(phi + psi)
    uy = math.sin(phi + psi)
    if tkind == TARGET_DISC:
        vx = t[0] - ox
        vy = t[1] - oy
        d = math.sqrt(vx * vx + vy * vy)
        s = d * math.cos(psi) - math.sqrt(max(0.0, t[2] * t[2] - (d * math.sin(psi)) ** 2))
    else:
        ex = t[2] - t[0]
        ey = t[3] - t[1]
        den = ux * ey - uy * ex
        s = 0.0 if den == 0.0 else ((t[0] - ox) * ey - (t[1] - oy) * ex) / den
    return ox + s * ux, oy + s * uy


@njit(cache=True)
def visible_share(
    ox: float,
    oy: float,
    tkind: int,
    t: np.ndarray,
    cand: np.ndarray,
    ncand: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
    grazing: bool,
) -> tuple[float, float, float, float]:
    """S2 from point o to one target (a disc ``t = cx, cy, r`` or a segment ``t = p, q``).

    ``cand[:ncand]`` are the pieces that may hide it. Returns the visible share of the
    target's angular width (0 to 1), its angular width, and a witness point of the
    target seen clear (the middle of the widest clear gap; nan when none).

    Long on purpose: a compiled kernel keeps its loops in one function (numba inlines
    nothing across calls as cheaply as a loop body), so the hot path stays in registers.
    """
    if tkind == TARGET_DISC:
        vx = t[0] - ox
        vy = t[1] - oy
        d = math.sqrt(vx * vx + vy * vy)
        phi = math.atan2(vy, vx)
        if t[2] <= 0.0 or d <= t[2] or math.asin(t[2] / d) < POINT_WIDTH:
            # a point target (F8), one too small to measure, or o on the target: all or
            # nothing along the centre line
            for j in range(ncand):
                if crosses(cand[j], ox, oy, t[0], t[1], kind, disc, eoff, edges, half, grazing):
                    return 0.0, 0.0, np.nan, np.nan
            return 1.0, 0.0, t[0], t[1]
        lo = -math.asin(t[2] / d)
        hi = -lo
    else:
        mx = 0.5 * (t[0] + t[2])
        my = 0.5 * (t[1] + t[3])
        phi = math.atan2(my - oy, mx - ox)
        a1 = _rel(ox, oy, t[0], t[1], phi)
        a2 = _rel(ox, oy, t[2], t[3], phi)
        lo = min(a1, a2)
        hi = max(a1, a2)
        if hi - lo < 2.0 * POINT_WIDTH:
            # o in line with the segment: only its nearer end can be seen
            d1 = (t[0] - ox) ** 2 + (t[1] - oy) ** 2
            d2 = (t[2] - ox) ** 2 + (t[3] - oy) ** 2
            px, py = (t[0], t[1]) if d1 <= d2 else (t[2], t[3])
            for j in range(ncand):
                if crosses(cand[j], ox, oy, px, py, kind, disc, eoff, edges, half, grazing):
                    return 0.0, 0.0, np.nan, np.nan
            return 1.0, 0.0, px, py
    size = 8
    for j in range(ncand):
        k = cand[j]
        size += 6 if kind[k] == DISC else 12 * (eoff[k + 1] - eoff[k])
    buf = np.empty(size)
    buf[0] = lo
    buf[1] = hi
    n = 2
    for j in range(ncand):
        k = cand[j]
        if kind[k] == DISC:
            rr = disc[k, 2] + half
            n = _tangents(buf, n, ox, oy, disc[k, 0], disc[k, 1], rr, phi)
            n = _circle_meets_target(buf, n, ox, oy, phi, disc[k, 0], disc[k, 1], rr, tkind, t)
            continue
        for e in range(eoff[k], eoff[k + 1]):
            px, py, qx, qy = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
            n = _tangents(buf, n, ox, oy, px, py, half, phi)
            n = _circle_meets_target(buf, n, ox, oy, phi, px, py, half, tkind, t)
            ex = qx - px
            ey = qy - py
            el = math.sqrt(ex * ex + ey * ey)
            if el == 0.0:
                continue
            nx = -ey / el * half
            ny = ex / el * half
            for si in range(2 if half > 0.0 else 1):
                sgn = (2.0 * si - 1.0) if half > 0.0 else 0.0
                sx = px + sgn * nx
                sy = py + sgn * ny
                n = _segment_meets_target(
                    buf, n, ox, oy, phi, sx, sy, qx + sgn * nx, qy + sgn * ny, tkind, t
                )
                if abs(_orient(sx, sy, qx + sgn * nx, qy + sgn * ny, ox, oy)) <= EPS * el:
                    n = _push(buf, n, _wrap(math.atan2(ey, ex) - phi))
                    n = _push(buf, n, _wrap(math.atan2(-ey, -ex) - phi))
    crit = np.sort(buf[:n])
    clear = 0.0
    best = -1.0
    wx = np.nan
    wy = np.nan
    prev = lo
    for i in range(n + 1):
        nxt = crit[i] if i < n else hi
        if nxt <= prev:
            continue
        if nxt > hi:
            nxt = hi
        if nxt - prev > 1e-13:
            psi = 0.5 * (prev + nxt)
            px, py = _target_point(ox, oy, phi, psi, tkind, t)
            blocked = False
            for j in range(ncand):
                if crosses(cand[j], ox, oy, px, py, kind, disc, eoff, edges, half, grazing):
                    blocked = True
                    break
            if not blocked:
                clear += nxt - prev
                if nxt - prev > best:
                    best = nxt - prev
                    wx = px
                    wy = py
        prev = nxt
        if prev >= hi:
            break
    return clear / (hi - lo), hi - lo, wx, wy


@njit(cache=True)
def visible_alone(
    ox: float,
    oy: float,
    t: np.ndarray,
    pieces: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
    grazing: bool,
    out: np.ndarray,
) -> None:
    """For each row ``j``, :func:`visible_share` from ``o`` to the disc ``t[j]`` with the
    piece ``pieces[j]`` its one candidate: the share, into ``out[j]`` (one call for the
    rows one at a time would each make)."""
    cand = np.zeros(1, np.int64)
    for j in range(len(pieces)):
        cand[0] = pieces[j]
        out[j] = visible_share(
            ox, oy, TARGET_DISC, t[j], cand, 1, kind, disc, eoff, edges, half, grazing
        )[0]


@njit(cache=True, nogil=True)
def visible_fractions(
    ax: np.ndarray,
    ay: np.ndarray,
    targets: np.ndarray,
    skip_a: np.ndarray,
    skip_b: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    hides: np.ndarray,
    half: float,
    grazing: bool,
) -> np.ndarray:
    """S2 for a batch: from each a_i, the visible share of disc ``targets[i]`` (cx, cy, r).

    Only pieces with ``hides`` set can hide; ``skip_a``/``skip_b`` are never counted.
    Origins should be consecutive, as in :func:`centre_lines`.

    Long on purpose: a compiled kernel keeps its loops in one function (numba inlines
    nothing across calls as cheaply as a loop body), so the hot path stays in registers.
    """
    m = ax.shape[0]
    npieces = kind.shape[0]
    out = np.empty(m)
    count = np.zeros(NBUCKETS, np.int64)
    items = np.empty((NBUCKETS, max(npieces, 1)), np.int64)
    dmin = np.empty(max(npieces, 1))
    seen = np.full(max(npieces, 1), -1, np.int64)
    cand = np.empty(max(npieces, 1), np.int64)
    bw = TWO_PI / NBUCKETS
    lox = np.nan
    loy = np.nan
    for i in range(m):
        if ax[i] != lox or ay[i] != loy:
            lox = ax[i]
            loy = ay[i]
            _fill_buckets(lox, loy, kind, disc, eoff, edges, bbox, half, count, items, dmin)
        vx = targets[i, 0] - ax[i]
        vy = targets[i, 1] - ay[i]
        d = math.sqrt(vx * vx + vy * vy)
        reach = d + targets[i, 2]
        phi = math.atan2(vy, vx)
        w = math.pi if d <= targets[i, 2] else math.asin(targets[i, 2] / d) + 1e-9
        if w >= math.pi / 2:
            first, last = 0, NBUCKETS - 1
        else:
            first = int(math.floor((phi - w + math.pi) / bw))
            last = int(math.floor((phi + w + math.pi) / bw))
        nc = 0
        for b in range(first, last + 1):
            bb = b % NBUCKETS
            for j in range(count[bb]):
                k = items[bb, j]
                if seen[k] == i or not hides[k] or skipped(k, skip_a[i], skip_b[i], kind, disc):
                    continue
                seen[k] = i
                if dmin[k] > reach:
                    continue
                cand[nc] = k
                nc += 1
        out[i] = visible_share(
            ax[i],
            ay[i],
            TARGET_DISC,
            targets[i],
            cand,
            nc,
            kind,
            disc,
            eoff,
            edges,
            half,
            grazing,
        )[0]
    return out


# --- the all-pairs matrix: a fixed-size answer per pair, shooters in parallel ----------


@njit(cache=True, parallel=True)
def all_pairs(
    xy: np.ndarray,
    first_piece: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    stops: np.ndarray,
    weights: np.ndarray,
    half: float,
    grazing: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """S1 for every ordered pair of the points ``xy`` (model i is piece first_piece + i).

    For pair (s, t): ``stop[s, t]``, some crossed piece whose ``stops`` flag is set (-1
    for none; the search ends there), and ``total[s, t]``, the sum of ``weights[t, k]``
    over the other pieces k crossed (complete only when nothing stops the line).
    """
    n = xy.shape[0]
    npieces = kind.shape[0]
    stop = np.full((n, n), -1, np.int64)
    total = np.zeros((n, n), np.float64)
    bw = TWO_PI / NBUCKETS
    for s in prange(n):
        count = np.zeros(NBUCKETS, np.int64)
        items = np.empty((NBUCKETS, max(npieces, 1)), np.int64)
        dmin = np.empty(max(npieces, 1))
        ox = xy[s, 0]
        oy = xy[s, 1]
        _fill_buckets(ox, oy, kind, disc, eoff, edges, bbox, half, count, items, dmin)
        for t in range(n):
            if t == s:
                continue
            vx = xy[t, 0] - ox
            vy = xy[t, 1] - oy
            length = math.sqrt(vx * vx + vy * vy)
            b = int(math.floor((math.atan2(vy, vx) + math.pi) / bw)) % NBUCKETS
            acc = 0.0
            for j in range(count[b]):
                k = items[b, j]
                if dmin[k] > length:
                    break
                if skipped(k, first_piece + s, first_piece + t, kind, disc):
                    continue
                if crosses(k, ox, oy, xy[t, 0], xy[t, 1], kind, disc, eoff, edges, half, grazing):
                    if stops[k]:
                        stop[s, t] = k
                        break
                    acc += weights[t, k]
            total[s, t] = acc
    return stop, total


@njit(cache=True)
def gaps(
    xy: np.ndarray,
    radius: np.ndarray,
    pieces: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
) -> np.ndarray:
    """G4: the gap between each base (centre, radius) and each piece listed (negative
    when they overlap; a base whose centre is inside a polygon has gap <= -radius)."""
    out = np.empty((xy.shape[0], pieces.shape[0]))
    for i in range(xy.shape[0]):
        px = xy[i, 0]
        py = xy[i, 1]
        for j in range(pieces.shape[0]):
            k = pieces[j]
            if kind[k] == DISC:
                d = math.sqrt((px - disc[k, 0]) ** 2 + (py - disc[k, 1]) ** 2) - disc[k, 2]
            else:
                d = np.inf
                for e in range(eoff[k], eoff[k + 1]):
                    d = min(
                        d,
                        _seg_point_dist(edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3], px, py),
                    )
                if _inside(edges, eoff[k], eoff[k + 1], px, py):
                    d = -d
            out[i, j] = d - radius[i]
    return out


# --- S3: is there any clear segment from one base to another (D3)? ---------------------
#
# The segments joining two discs fill their convex hull, the D3 window. If a clear one
# exists, sliding it until it is pinned gives a clear one on a line pinned by two
# features: tangent to two discs among the bases, the beam-inflated blocker discs and
# polygon corners, or through a point where a base's rim meets a blocker's outline.
# Each such line is tested on its shortest stretch from base to base.


@njit(cache=True)
def _add_feature(fx: np.ndarray, n: int, x: float, y: float, r: float) -> int:
    if n < fx.shape[0]:
        fx[n, 0] = x
        fx[n, 1] = y
        fx[n, 2] = r
        return n + 1
    return n


@njit(cache=True)
def _rim_meets(
    fx: np.ndarray,
    n: int,
    cx: float,
    cy: float,
    cr: float,
    k: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
) -> int:
    """Point features where the rim of base (c, cr) meets piece k's inflated outline."""
    if cr <= 0.0:
        return n
    circles = 1 if kind[k] == DISC else eoff[k + 1] - eoff[k]
    for j in range(circles):
        if kind[k] == DISC:
            ox, oy, rr = disc[k, 0], disc[k, 1], disc[k, 2] + half
        else:
            e = eoff[k] + j
            ox, oy, rr = edges[e, 0], edges[e, 1], half
        dx = ox - cx
        dy = oy - cy
        d = math.sqrt(dx * dx + dy * dy)
        if rr > 0.0 and 0.0 < d <= cr + rr and d >= abs(cr - rr):
            a = (cr * cr - rr * rr + d * d) / (2.0 * d)
            h = math.sqrt(max(0.0, cr * cr - a * a))
            mx = cx + a * dx / d
            my = cy + a * dy / d
            n = _add_feature(fx, n, mx - h * dy / d, my + h * dx / d, 0.0)
            n = _add_feature(fx, n, mx + h * dy / d, my - h * dx / d, 0.0)
    if kind[k] != DISC:
        for e in range(eoff[k], eoff[k + 1]):
            px, py, qx, qy = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
            ex = qx - px
            ey = qy - py
            el = math.sqrt(ex * ex + ey * ey)
            if el == 0.0:
                continue
            nx = -ey / el * half
            ny = ex / el * half
            for si in range(2 if half > 0.0 else 1):
                sgn = (2.0 * si - 1.0) if half > 0.0 else 0.0
                sx = px + sgn * nx - cx
                sy = py + sgn * ny - cy
                a2 = ex * ex + ey * ey
                b2 = sx * ex + sy * ey
                c2 = sx * sx + sy * sy - cr * cr
                dd = b2 * b2 - a2 * c2
                if dd < 0.0:
                    continue
                for s2 in (-1.0, 1.0):
                    lam = (-b2 + s2 * math.sqrt(dd)) / a2
                    if 0.0 <= lam <= 1.0:
                        n = _add_feature(fx, n, cx + sx + lam * ex, cy + sy + lam * ey, 0.0)
    return n


@njit(cache=True)
def _chord(
    p0x: float, p0y: float, ux: float, uy: float, cx: float, cy: float, r: float
) -> tuple[bool, float, float]:
    """Where the line p0 + t u (|u| = 1) runs inside the disc (c, r): t0 <= t1."""
    fx = p0x - cx
    fy = p0y - cy
    b = fx * ux + fy * uy
    c = fx * fx + fy * fy - r * r
    disc = b * b - c
    if disc < -1e-9 * max(1.0, r * r):
        return False, 0.0, 0.0
    root = math.sqrt(max(0.0, disc))
    return True, -b - root, -b + root


@njit(cache=True)
def _clear_stretch(
    nx: float,
    ny: float,
    d: float,
    ax: float,
    ay: float,
    ar: float,
    bx: float,
    by: float,
    br: float,
    cand: np.ndarray,
    nc: int,
    order: np.ndarray,
    hints: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
    grazing: bool,
    out: np.ndarray,
) -> bool:
    """Test the line n.x = d on its shortest stretch from base a to base b.

    ``hints[i]`` is the edge of polygon ``cand[i]`` that the last stretch tested met:
    the next lines, pinned nearby, likely meet the outline there too."""
    ux = -ny
    uy = nx
    p0x = nx * d
    p0y = ny * d
    ok_a, a0, a1 = _chord(p0x, p0y, ux, uy, ax, ay, ar)
    if not ok_a:
        return False
    ok_b, b0, b1 = _chord(p0x, p0y, ux, uy, bx, by, br)
    if not ok_b:
        return False
    if a1 < b0:
        s, t = a1, b0
    elif b1 < a0:
        s, t = a0, b1
    else:  # the chords overlap: the bases share a point on this line
        s = t = 0.5 * (max(a0, b0) + min(a1, b1))
    px = p0x + s * ux
    py = p0y + s * uy
    qx = p0x + t * ux
    qy = p0y + t * uy
    for j in range(nc):
        slot = order[j]
        k = cand[slot]
        if kind[k] != POLYGON:
            hit = crosses(k, px, py, qx, qy, kind, disc, eoff, edges, half, grazing)
        else:
            e0 = eoff[k]
            e1 = eoff[k + 1]
            dk, hk = _polygon_dist_near(edges, e0, e1, hints[slot], px, py, qx, qy)
            hints[slot] = hk
            hit = _polygon_crossed(dk, edges, e0, e1, px, py, qx, qy, half, grazing)
        if hit:
            # move the blocker to the front: the next lines likely meet it too
            first = order[j]
            for i in range(j, 0, -1):
                order[i] = order[i - 1]
            order[0] = first
            return False
    out[0] = px
    out[1] = py
    out[2] = qx
    out[3] = qy
    return True


@njit(cache=True)
def _closed_by_one_disc(
    ax: float,
    ay: float,
    ar: float,
    bx: float,
    by: float,
    br: float,
    cand: np.ndarray,
    nc: int,
    kind: np.ndarray,
    disc: np.ndarray,
    half: float,
) -> bool:
    """A sufficient test that the window is closed: one blocking disc holds a chord from
    one side of the window to the other that keeps clear of both bases. Every segment
    from base to base then crosses that chord, inside the disc."""
    dx = bx - ax
    dy = by - ay
    d = math.sqrt(dx * dx + dy * dy)
    if d <= ar + br:
        return False
    base = math.atan2(dy, dx)
    turn = math.acos(max(-1.0, min(1.0, (ar - br) / d)))
    mids = np.empty(4)
    for j in range(nc):
        k = cand[j]
        if kind[k] != DISC:
            continue
        rr = disc[k, 2] + half - 10.0 * EPS
        if rr <= 0.0:
            continue
        ok = True
        for side in range(2):
            phi = base + turn if side == 0 else base - turn
            nx = math.cos(phi)
            ny = math.sin(phi)
            px = ax + ar * nx
            py = ay + ar * ny
            ux = bx + br * nx - px
            uy = by + br * ny - py
            ul = math.sqrt(ux * ux + uy * uy)
            found, t0, t1 = _chord(px, py, ux / ul, uy / ul, disc[k, 0], disc[k, 1], rr)
            t0 = max(t0, 0.0)
            t1 = min(t1, ul)
            if not found or t1 <= t0:
                ok = False
                break
            tm = 0.5 * (t0 + t1) / ul
            mids[2 * side] = px + tm * ux
            mids[2 * side + 1] = py + tm * uy
        if (
            ok
            and _seg_point_dist(mids[0], mids[1], mids[2], mids[3], ax, ay) > ar + EPS
            and _seg_point_dist(mids[0], mids[1], mids[2], mids[3], bx, by) > br + EPS
        ):
            return True
    return False


@njit(cache=True)
def _inner_points(
    px: float,
    py: float,
    qx: float,
    qy: float,
    edges: np.ndarray,
    e0: int,
    e1: int,
    out: np.ndarray,
) -> int:
    """Points of segment pq well inside the polygon: the middle of each stretch between
    two cuts of its outline whose middle is inside and off the outline. Returns their
    number (at most ``out``'s rows)."""
    dx = qx - px
    dy = qy - py
    ll = dx * dx + dy * dy
    if ll == 0.0:
        return 0
    ts = np.empty(2 + e1 - e0)
    ts[0] = 0.0
    ts[1] = 1.0
    n = 2
    for e in range(e0, e1):
        ux, uy, vx, vy = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
        ex = vx - ux
        ey = vy - uy
        den = dx * ey - dy * ex
        if abs(den) > 1e-12 * math.sqrt(ll * (ex * ex + ey * ey)):
            t = ((ux - px) * ey - (uy - py) * ex) / den
            w = ((ux - px) * dy - (uy - py) * dx) / den
            if 0.0 <= t <= 1.0 and -EPS <= w <= 1.0 + EPS:
                ts[n] = t
                n += 1
    tt = np.sort(ts[:n])
    found = 0
    for i in range(n - 1):
        if tt[i + 1] - tt[i] <= 1e-9 or found >= out.shape[0]:
            continue
        tm = 0.5 * (tt[i] + tt[i + 1])
        mx = px + tm * dx
        my = py + tm * dy
        if _inside(edges, e0, e1, mx, my):
            near = np.inf
            for e in range(e0, e1):
                near = min(
                    near,
                    _seg_point_dist(edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3], mx, my),
                )
            if near > 10.0 * EPS:
                out[found, 0] = mx
                out[found, 1] = my
                found += 1
    return found


@njit(cache=True)
def _closed_by_one_polygon(
    ax: float,
    ay: float,
    ar: float,
    bx: float,
    by: float,
    br: float,
    cand: np.ndarray,
    nc: int,
    kind: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
) -> bool:
    """A sufficient test that the window is closed, as :func:`_closed_by_one_disc` for a
    polygon: a chord from one side of the window to the other runs through its interior
    (off its outline) and keeps clear of both bases. Every segment from base to base
    then crosses that chord, so meets the polygon's interior (blocked for any beam)."""
    dx = bx - ax
    dy = by - ay
    d = math.sqrt(dx * dx + dy * dy)
    if d <= ar + br:
        return False
    base = math.atan2(dy, dx)
    turn = math.acos(max(-1.0, min(1.0, (ar - br) / d)))
    sides = np.empty((2, 4))
    for side in range(2):
        phi = base + turn if side == 0 else base - turn
        nx = math.cos(phi)
        ny = math.sin(phi)
        sides[side, 0] = ax + ar * nx
        sides[side, 1] = ay + ar * ny
        sides[side, 2] = bx + br * nx
        sides[side, 3] = by + br * ny
    u = np.empty((4, 2))
    v = np.empty((4, 2))
    for j in range(nc):
        k = cand[j]
        if kind[k] != POLYGON:
            continue
        e0 = eoff[k]
        e1 = eoff[k + 1]
        nu = _inner_points(sides[0, 0], sides[0, 1], sides[0, 2], sides[0, 3], edges, e0, e1, u)
        if nu == 0:
            continue
        nv = _inner_points(sides[1, 0], sides[1, 1], sides[1, 2], sides[1, 3], edges, e0, e1, v)
        for i in range(nu):
            for m in range(nv):
                px, py, qx, qy = u[i, 0], u[i, 1], v[m, 0], v[m, 1]
                if _seg_point_dist(px, py, qx, qy, ax, ay) <= ar + 10.0 * EPS:
                    continue
                if _seg_point_dist(px, py, qx, qy, bx, by) <= br + 10.0 * EPS:
                    continue
                clear = True  # the chord must not come near the outline
                for e in range(e0, e1):
                    gap = _seg_seg_dist(
                        px, py, qx, qy, edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
                    )
                    if gap <= 10.0 * EPS:
                        clear = False
                        break
                if clear:
                    return True
    return False


@njit(cache=True)
def any_clear(
    ax: float,
    ay: float,
    ar: float,
    bx: float,
    by: float,
    br: float,
    cand: np.ndarray,
    nc: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
    grazing: bool,
    out: np.ndarray,
) -> bool:
    """S3: whether some segment from disc a to disc b crosses none of ``cand[:nc]``.

    On success ``out`` holds a witness segment (x0, y0, x1, y1). With ``grazing``
    (touching the beam's edge counts), features are inflated a hair more so that the
    pinned lines keep clear of them.

    Long on purpose: a compiled kernel keeps its loops in one function (numba inlines
    nothing across calls as cheaply as a loop body), so the hot path stays in registers.
    """
    pad = 4.0 * EPS if grazing else 0.0
    order = np.arange(nc)
    hints = np.empty(max(nc, 1), np.int64)
    for j in range(nc):
        hints[j] = eoff[cand[j]]
    # the centre line first: it settles most pairs at once
    vx = bx - ax
    vy = by - ay
    vl = math.sqrt(vx * vx + vy * vy)
    nx = -vy / vl if vl > 0.0 else 0.0
    ny = vx / vl if vl > 0.0 else 1.0
    if _clear_stretch(
        nx,
        ny,
        nx * ax + ny * ay,
        ax,
        ay,
        ar,
        bx,
        by,
        br,
        cand,
        nc,
        order,
        hints,
        kind,
        disc,
        eoff,
        edges,
        half,
        grazing,
        out,
    ):
        return True
    if _closed_by_one_disc(ax, ay, ar, bx, by, br, cand, nc, kind, disc, half):
        return False
    if _closed_by_one_polygon(ax, ay, ar, bx, by, br, cand, nc, kind, eoff, edges):
        return False
    size = 2
    for j in range(nc):
        k = cand[j]
        size += 1 if kind[k] == DISC else eoff[k + 1] - eoff[k]
        size += 4 if kind[k] == DISC else 4 * (eoff[k + 1] - eoff[k])
    fx = np.empty((2 * size, 3))
    n = _add_feature(fx, 0, ax, ay, ar)
    n = _add_feature(fx, n, bx, by, br)
    # A pinned clear segment touches its two features, and it lies in the window (within
    # max(ar, br) of the segment ab): corners farther than that cannot pin one, and
    # leaving them out keeps a polygon of many corners from squaring the work.
    reach = max(ar, br) + half + pad + 10.0 * EPS
    for j in range(nc):
        k = cand[j]
        if kind[k] == DISC:
            n = _add_feature(fx, n, disc[k, 0], disc[k, 1], disc[k, 2] + half + pad)
        else:
            for e in range(eoff[k], eoff[k + 1]):
                if _seg_point_dist(ax, ay, bx, by, edges[e, 0], edges[e, 1]) <= reach:
                    n = _add_feature(fx, n, edges[e, 0], edges[e, 1], half + pad)
        n = _rim_meets(fx, n, ax, ay, ar, k, kind, disc, eoff, edges, half + pad)
        n = _rim_meets(fx, n, bx, by, br, k, kind, disc, eoff, edges, half + pad)
    for i in range(n):
        for j in range(i + 1, n):
            dx = fx[j, 0] - fx[i, 0]
            dy = fx[j, 1] - fx[i, 1]
            dl = math.sqrt(dx * dx + dy * dy)
            if dl == 0.0:
                continue
            alpha = math.atan2(dy, dx)
            for s2 in (1.0, -1.0):
                kk = (s2 * fx[j, 2] - fx[i, 2]) / dl
                if abs(kk) > 1.0:
                    continue
                w = math.acos(kk)
                for sw in (1.0, -1.0):
                    if w == 0.0 and sw < 0.0:
                        continue
                    phi = alpha + sw * w
                    nx = math.cos(phi)
                    ny = math.sin(phi)
                    dd = nx * fx[i, 0] + ny * fx[i, 1] - fx[i, 2]
                    if _clear_stretch(
                        nx,
                        ny,
                        dd,
                        ax,
                        ay,
                        ar,
                        bx,
                        by,
                        br,
                        cand,
                        nc,
                        order,
                        hints,
                        kind,
                        disc,
                        eoff,
                        edges,
                        half,
                        grazing,
                        out,
                    ):
                        return True
    return False


@njit(cache=True)
def window_clear(
    a: np.ndarray,
    b: np.ndarray,
    cand: np.ndarray,
    nc: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
    grazing: bool,
    out: np.ndarray,
) -> bool:
    """S3 of the window of discs ``a``, ``b`` (x, y, r) among the pieces ``cand[:nc]``:
    :func:`any_clear` of those discs (its witness into ``out``)."""
    return bool(
        any_clear(
            a[0],
            a[1],
            a[2],
            b[0],
            b[1],
            b[2],
            cand,
            nc,
            kind,
            disc,
            eoff,
            edges,
            half,
            grazing,
            out,
        )
    )


@njit(cache=True)
def near_window(
    k: int,
    ax: float,
    ay: float,
    bx: float,
    by: float,
    reach: float,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
) -> bool:
    """Whether piece k comes within ``reach`` of segment ab (broad phase of S3)."""
    if kind[k] == DISC:
        return bool(_seg_point_dist(ax, ay, bx, by, disc[k, 0], disc[k, 1]) <= disc[k, 2] + reach)
    return bool(_polygon_dist(edges, eoff[k], eoff[k + 1], ax, ay, bx, by) <= reach)


@njit(cache=True, parallel=True)
def any_clear_batch(
    a: np.ndarray,
    b: np.ndarray,
    skip_a: np.ndarray,
    skip_b: np.ndarray,
    min_rank: np.ndarray,
    rank: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    half: float,
    grazing: bool,
    skip_c: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """S3 for pairs of discs ``a[i]``, ``b[i]`` (x, y, r): only pieces whose ``rank`` is at
    least ``min_rank[i]`` block (D4); ``skip_c[i]`` is one more piece left out (-1 none:
    what-if tests, the window without that piece). Returns found flags and witnesses."""
    m = a.shape[0]
    found = np.zeros(m, np.bool_)
    witness = np.full((m, 4), np.nan)
    npieces = kind.shape[0]
    for i in prange(m):
        reach = max(a[i, 2], b[i, 2]) + half + 10.0 * EPS
        cand = np.empty(max(npieces, 1), np.int64)
        nc = 0
        for k in range(npieces):
            if skipped(k, skip_a[i], skip_b[i], kind, disc) or rank[k] < min_rank[i]:
                continue
            if skip_c[i] >= 0 and skipped(k, skip_c[i], skip_c[i], kind, disc):
                continue
            if (
                bbox[k, 0] > max(a[i, 0], b[i, 0]) + reach
                or bbox[k, 2] < min(a[i, 0], b[i, 0]) - reach
                or bbox[k, 1] > max(a[i, 1], b[i, 1]) + reach
                or bbox[k, 3] < min(a[i, 1], b[i, 1]) - reach
            ):
                continue
            if near_window(k, a[i, 0], a[i, 1], b[i, 0], b[i, 1], reach, kind, disc, eoff, edges):
                cand[nc] = k
                nc += 1
        out = np.empty(4)
        if window_clear(a[i], b[i], cand, nc, kind, disc, eoff, edges, half, grazing, out):
            found[i] = True
            witness[i, :] = out
    return found, witness


# --- D3: the pieces that reach into the window of two bases ------------------------------


@njit(cache=True)
def _hull_dist(
    x: float, y: float, ax: float, ay: float, ra: float, bx: float, by: float, rb: float
) -> float:
    """Distance from (x, y) to the convex hull of discs (a, ra) and (b, rb), 0 inside.

    The hull is the union of the discs (1 - t) A + t B, centre a + t (b - a) and radius
    ra + t (rb - ra): along the axis, the nearest of them is found in closed form."""
    dx = bx - ax
    dy = by - ay
    el = math.sqrt(dx * dx + dy * dy)
    if el <= abs(rb - ra):  # one disc holds the other: the hull is the larger
        if ra >= rb:
            return max(0.0, math.sqrt((x - ax) ** 2 + (y - ay) ** 2) - ra)
        return max(0.0, math.sqrt((x - bx) ** 2 + (y - by) ** 2) - rb)
    ux = dx / el
    uy = dy / el
    along = (x - ax) * ux + (y - ay) * uy
    perp = abs((x - ax) * uy - (y - ay) * ux)
    k = (rb - ra) / el
    s = min(el, max(0.0, along + k * perp / math.sqrt(1.0 - k * k)))
    return max(0.0, math.sqrt((along - s) ** 2 + perp * perp) - (ra + k * s))


@njit(cache=True)
def _meets_hull(
    k: int,
    ax: float,
    ay: float,
    ra: float,
    bx: float,
    by: float,
    rb: float,
    sides: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
) -> bool:
    """Whether piece k meets the convex hull of discs a and b, whose outer common tangents
    are ``sides`` (two rows x0, y0, x1, y1): a polygon meets it when one of its edges
    comes within a disc, crosses a side or ends inside, or when the hull is inside it."""
    if kind[k] == DISC:
        gap = _hull_dist(disc[k, 0], disc[k, 1], ax, ay, ra, bx, by, rb) - disc[k, 2]
        return bool(gap <= EPS)
    e0 = eoff[k]
    e1 = eoff[k + 1]
    for e in range(e0, e1):
        px, py, qx, qy = edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3]
        if _hull_dist(px, py, ax, ay, ra, bx, by, rb) <= EPS:
            return True
        if _seg_point_dist(px, py, qx, qy, ax, ay) <= ra + EPS:
            return True
        if _seg_point_dist(px, py, qx, qy, bx, by) <= rb + EPS:
            return True
        for j in range(2):
            d = _seg_seg_dist(px, py, qx, qy, sides[j, 0], sides[j, 1], sides[j, 2], sides[j, 3])
            if d <= EPS:
                return True
    return e1 > e0 and _inside(edges, e0, e1, ax, ay)


@njit(cache=True)
def window_pieces(
    a: np.ndarray,
    b: np.ndarray,
    skip_a: np.ndarray,
    skip_b: np.ndarray,
    npieces: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    half: float,
) -> tuple[np.ndarray, np.ndarray]:
    """D3 for pairs of discs ``a[i]``, ``b[i]`` (x, y, r): the pieces ``0..npieces-1``
    (bridges left out) that come within ``half`` of the window, the convex hull of the
    two bases (so the hull of the bases grown by ``half``), ends skipped. CSR arrays
    ``offsets, piece``, each pair's pieces in index order."""
    m = a.shape[0]
    offsets = np.zeros(m + 1, np.int64)
    cap = max(16, 4 * m)
    out = np.empty(cap, np.int64)
    sides = np.empty((2, 4))
    n = 0
    for i in range(m):
        ax, ay, ra = a[i, 0], a[i, 1], a[i, 2] + half
        bx, by, rb = b[i, 0], b[i, 1], b[i, 2] + half
        dx = bx - ax
        dy = by - ay
        el = math.sqrt(dx * dx + dy * dy)
        base = math.atan2(dy, dx) if el > 0.0 else 0.0
        turn = math.acos(max(-1.0, min(1.0, (ra - rb) / el))) if el > 0.0 else 0.0
        for j in range(2):
            phi = base + turn if j == 0 else base - turn
            nx = math.cos(phi)
            ny = math.sin(phi)
            sides[j, 0] = ax + ra * nx
            sides[j, 1] = ay + ra * ny
            sides[j, 2] = bx + rb * nx
            sides[j, 3] = by + rb * ny
        x0 = min(ax - ra, bx - rb) - EPS
        x1 = max(ax + ra, bx + rb) + EPS
        y0 = min(ay - ra, by - rb) - EPS
        y1 = max(ay + ra, by + rb) + EPS
        for k in range(npieces):
            if k == skip_a[i] or k == skip_b[i]:
                continue
            if bbox[k, 0] > x1 or bbox[k, 2] < x0 or bbox[k, 1] > y1 or bbox[k, 3] < y0:
                continue
            if _meets_hull(k, ax, ay, ra, bx, by, rb, sides, kind, disc, eoff, edges):
                if n == cap:
                    cap *= 2
                    grown = np.empty(cap, np.int64)
                    grown[:n] = out[:n]
                    out = grown
                out[n] = k
                n += 1
        offsets[i + 1] = n
    return offsets, out[:n]


@njit(cache=True)
def _depth_inside(
    edges: np.ndarray,
    e0: int,
    e1: int,
    ax: float,
    ay: float,
    bx: float,
    by: float,
    samples: int,
) -> float:
    """How deep segment ab runs inside a polygon: the largest distance to its boundary
    among ``samples`` points spread evenly along the parts of ab inside it (sampled, so
    never more than the true depth; 0 when only a point of ab meets it)."""
    dx = bx - ax
    dy = by - ay
    ll = dx * dx + dy * dy
    if ll <= 0.0 or samples < 1:
        return 0.0
    tt = _cuts(edges, e0, e1, ax, ay, bx, by)
    n = len(tt)
    lo = np.empty(n)
    hi = np.empty(n)
    m = 0
    total = 0.0
    for i in range(n - 1):
        if tt[i + 1] - tt[i] <= 1e-12:
            continue
        tm = 0.5 * (tt[i] + tt[i + 1])
        if _inside(edges, e0, e1, ax + tm * dx, ay + tm * dy):
            if m > 0 and abs(hi[m - 1] - tt[i]) <= 1e-12:
                hi[m - 1] = tt[i + 1]
            else:
                lo[m] = tt[i]
                hi[m] = tt[i + 1]
                m += 1
            total += tt[i + 1] - tt[i]
    if m == 0 or total <= 0.0:
        return 0.0
    best = 0.0
    for j in range(samples):
        want = total * (j / (samples - 1) if samples > 1 else 0.5)
        k = 0
        while k < m - 1 and want > hi[k] - lo[k] + 1e-15:
            want -= hi[k] - lo[k]
            k += 1
        t = min(hi[k], lo[k] + want)
        x = ax + t * dx
        y = ay + t * dy
        near = np.inf
        for e in range(e0, e1):
            d = _seg_point_dist(edges[e, 0], edges[e, 1], edges[e, 2], edges[e, 3], x, y)
            if d < near:
                near = d
        if near > best:
            best = near
    return best


@njit(cache=True, parallel=True)
def line_nearby(
    segs: np.ndarray,
    sa: np.ndarray,
    sb: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    n_real: int,
    small: np.ndarray,
    half: float,
    reach: float,
    close: float,
    samples: int,
    cap: int,
) -> tuple[np.ndarray, ...]:
    """G5/G8 measures of segments among the real pieces ``0..n_real-1`` (``sa[i]`` and
    ``sb[i]``, the segment's own ends, left out), each piece's distance to segment ``i``
    (a disc: centre distance less radius, negative inside; a polygon: 0 when they meet)
    and the slack of its crossing test (``|dist - half|``; a polygon the segment meets:
    ``half`` plus how deep it runs inside, :func:`_depth_inside`). Pieces whose box lies
    beyond ``reach`` are not measured.

    Returns, per segment: the smallest slack among the ``small`` pieces and its piece
    (-1: none), the same among the others, and the pieces nearer than ``close`` with
    their distances (``near_k[i, :near_n[i]]``, ``near_d``; at most ``cap``, more
    counted in ``near_n`` so the caller can ask again with a larger cap) and slacks
    (``near_s``)."""
    n = len(segs)
    min_small = np.full(n, np.inf)
    arg_small = np.full(n, -1, np.int64)
    min_large = np.full(n, np.inf)
    arg_large = np.full(n, -1, np.int64)
    near_n = np.zeros(n, np.int64)
    near_k = np.full((n, cap), -1, np.int64)
    near_d = np.zeros((n, cap))
    near_s = np.zeros((n, cap))
    for i in prange(n):
        ax, ay, bx, by = segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3]
        x0 = min(ax, bx) - reach
        x1 = max(ax, bx) + reach
        y0 = min(ay, by) - reach
        y1 = max(ay, by) + reach
        for k in range(n_real):
            if k == sa[i] or k == sb[i]:
                continue
            if bbox[k, 0] > x1 or bbox[k, 2] < x0 or bbox[k, 1] > y1 or bbox[k, 3] < y0:
                continue
            hx = 0.5 * (bbox[k, 2] - bbox[k, 0])
            hy = 0.5 * (bbox[k, 3] - bbox[k, 1])
            mid = _seg_point_dist(ax, ay, bx, by, bbox[k, 0] + hx, bbox[k, 1] + hy)
            if mid - math.sqrt(hx * hx + hy * hy) > reach:  # the whole box is beyond reach
                continue
            if kind[k] == DISC:
                d = _seg_point_dist(ax, ay, bx, by, disc[k, 0], disc[k, 1]) - disc[k, 2]
                slack = abs(d - half)
            else:
                d = _polygon_dist(edges, eoff[k], eoff[k + 1], ax, ay, bx, by)
                if d > 0.0:
                    slack = abs(d - half)
                else:
                    slack = half + _depth_inside(
                        edges, eoff[k], eoff[k + 1], ax, ay, bx, by, samples
                    )
            if d > reach:
                continue
            if small[k]:
                if slack < min_small[i]:
                    min_small[i] = slack
                    arg_small[i] = k
            elif slack < min_large[i]:
                min_large[i] = slack
                arg_large[i] = k
            if d < close:
                c = near_n[i]
                if c < cap:
                    near_k[i, c] = k
                    near_d[i, c] = d
                    near_s[i, c] = slack
                near_n[i] = c + 1
    return min_small, arg_small, min_large, arg_large, near_n, near_k, near_d, near_s


@njit(cache=True)
def wedge_candidates(
    ox: float,
    oy: float,
    phi: float,
    lo: float,
    hi: float,
    cand: np.ndarray,
    kind: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    reach: float,
) -> np.ndarray:
    """Which pieces ``cand`` can change :func:`visible_share` of a segment seen from o
    within the angles ``lo..hi`` (relative to ``phi``; the caller widens them a little):
    a piece whose box, widened by ``reach``, holds o or is seen within those angles, or
    a polygon with an edge whose line passes within ``reach`` of o (the share kernel
    adds that edge's directions, both ways, to its critical angles)."""
    n = len(cand)
    keep = np.zeros(n, np.bool_)
    for j in range(n):
        k = cand[j]
        x0 = bbox[k, 0] - reach
        y0 = bbox[k, 1] - reach
        x1 = bbox[k, 2] + reach
        y1 = bbox[k, 3] + reach
        if not (x0 <= x1 and y0 <= y1):  # an empty piece: nothing to see
            continue
        if x0 <= ox <= x1 and y0 <= oy <= y1:
            keep[j] = True
            continue
        mid = math.atan2(0.5 * (y0 + y1) - oy, 0.5 * (x0 + x1) - ox)
        r0 = np.inf
        r1 = -np.inf
        for c in range(4):
            cx = x0 if c == 0 or c == 3 else x1
            cy = y0 if c < 2 else y1
            rel = _wrap(math.atan2(cy - oy, cx - ox) - mid)
            r0 = min(r0, rel)
            r1 = max(r1, rel)
        at = _wrap(mid - phi)
        for shift in (-TWO_PI, 0.0, TWO_PI):
            if at + r0 + shift <= hi and at + r1 + shift >= lo:
                keep[j] = True
                break
        if keep[j] or kind[k] == DISC:
            continue
        for e in range(eoff[k], eoff[k + 1]):
            ex = edges[e, 2] - edges[e, 0]
            ey = edges[e, 3] - edges[e, 1]
            el = math.sqrt(ex * ex + ey * ey)
            if el > 0.0 and abs(ex * (oy - edges[e, 1]) - ey * (ox - edges[e, 0])) <= reach * el:
                keep[j] = True
                break
    return keep
