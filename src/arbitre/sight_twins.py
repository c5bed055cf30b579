"""The numpy twins of interpreted kernels of :mod:`arbitre.kernels` (S2, S3).

Interpreted (no numba), a kernel's loops over gaps, segments and pieces are most of a
small job's time. Each twin here gives the kernel's answer bit for bit, with the same
operations in the same order (so the same floats), but measures every gap, segment or
piece at once with numpy, and calls the kernel's own helpers (run as Python) for the
rest: :func:`visible_share_numpy` (``kernels.visible_share``),
:func:`line_nearby_numpy` (``kernels.line_nearby``) and :func:`depth_inside_numpy`
(``kernels._depth_inside``).
"""

from __future__ import annotations

import math

import numpy as np

from arbitre import backend

#: Kind codes, tolerance and helpers of the kernels, interpreted.
_K = backend.interpreted()


def visible_share_numpy(
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
    """``kernels.visible_share`` interpreted, bit for bit, its gaps tested at once: the
    critical angles and the gaps between them found by the kernel's own helpers (run as
    Python), then whether each gap's middle ray is blocked, for every gap at once with
    numpy (:func:`_blocked_rays`: the same operations in the same order, so the same
    floats), then the clear gaps summed in the kernel's order."""
    k = _K
    # nothing may hide it, or little (the kernel's few tests cost less than numpy's
    # calls), or a point target: the kernel's own way
    whole = _share_size(cand[:ncand], kind, eoff) < SHARE_NUMPY_FROM
    if tkind == k.TARGET_DISC:
        vx = t[0] - ox
        vy = t[1] - oy
        d = math.sqrt(vx * vx + vy * vy)
        phi = math.atan2(vy, vx)
        whole = whole or t[2] <= 0.0 or d <= t[2] or math.asin(t[2] / d) < k.POINT_WIDTH
        if not whole:
            lo = -math.asin(t[2] / d)
            hi = -lo
    else:
        mx = 0.5 * (t[0] + t[2])
        my = 0.5 * (t[1] + t[3])
        phi = math.atan2(my - oy, mx - ox)
        a1 = k._rel(ox, oy, t[0], t[1], phi)
        a2 = k._rel(ox, oy, t[2], t[3], phi)
        lo = min(a1, a2)
        hi = max(a1, a2)
        whole = whole or hi - lo < 2.0 * k.POINT_WIDTH
    if whole:
        return k.visible_share(  # type: ignore[no-any-return]
            ox, oy, tkind, t, cand, ncand, kind, disc, eoff, edges, half, grazing
        )
    crit = _critical_angles(
        ox, oy, phi, lo, hi, tkind, t, cand[:ncand], kind, disc, eoff, edges, half
    )
    gaps: list[tuple[float, float, float]] = []  # width, and the middle ray's target point
    prev = lo
    n = len(crit)
    for i in range(n + 1):
        nxt = crit[i] if i < n else hi
        if nxt <= prev:
            continue
        if nxt > hi:
            nxt = hi
        if nxt - prev > 1e-13:
            psi = 0.5 * (prev + nxt)
            px, py = k._target_point(ox, oy, phi, psi, tkind, t)
            gaps.append((nxt - prev, px, py))
        prev = nxt
        if prev >= hi:
            break
    clear = 0.0
    best = -1.0
    wx = wy = math.nan
    if gaps:
        ends = np.asarray([(px, py) for _, px, py in gaps], dtype=np.float64)
        blocked = _blocked_rays(ox, oy, ends, cand[:ncand], kind, disc, eoff, edges, half, grazing)
        for (width, px, py), hidden in zip(gaps, blocked.tolist(), strict=True):
            if not hidden:
                clear += width
                if width > best:
                    best = width
                    wx = px
                    wy = py
    return clear / (hi - lo), hi - lo, wx, wy


#: The size of the candidates (a disc 1, a polygon its edges) from which the numpy
#: twin of the share kernel is quicker than the kernel interpreted.
SHARE_NUMPY_FROM = 8


def _share_size(cand: np.ndarray, kind: np.ndarray, eoff: np.ndarray) -> int:
    edges = eoff[cand + 1] - eoff[cand]
    return int(np.where(kind[cand] == _K.DISC, 1, edges).sum())


def _critical_angles(
    ox: float,
    oy: float,
    phi: float,
    lo: float,
    hi: float,
    tkind: int,
    t: np.ndarray,
    cand: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
) -> np.ndarray:
    """The sorted critical angles of ``kernels.visible_share`` (its first loop, as it
    writes them)."""
    k = _K
    size = 8
    for j in cand.tolist():
        size += 6 if kind[j] == k.DISC else 12 * (int(eoff[j + 1]) - int(eoff[j]))
    buf = np.empty(size)
    buf[0] = lo
    buf[1] = hi
    n = 2
    for j in cand.tolist():
        if kind[j] == k.DISC:
            cx, cy, r = disc[j, 0], disc[j, 1], disc[j, 2]
            rr = r + half
            n = k._tangents(buf, n, ox, oy, cx, cy, rr, phi)
            n = k._circle_meets_target(buf, n, ox, oy, phi, cx, cy, rr, tkind, t)
            continue
        for px, py, qx, qy in edges[eoff[j] : eoff[j + 1]].tolist():
            n = k._tangents(buf, n, ox, oy, px, py, half, phi)
            n = k._circle_meets_target(buf, n, ox, oy, phi, px, py, half, tkind, t)
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
                n = k._segment_meets_target(
                    buf, n, ox, oy, phi, sx, sy, qx + sgn * nx, qy + sgn * ny, tkind, t
                )
                if abs(k._orient(sx, sy, qx + sgn * nx, qy + sgn * ny, ox, oy)) <= k.EPS * el:
                    n = k._push(buf, n, k._wrap(math.atan2(ey, ex) - phi))
                    n = k._push(buf, n, k._wrap(math.atan2(-ey, -ex) - phi))
    return np.sort(buf[:n])


def _blocked_rays(
    ox: float,
    oy: float,
    ends: np.ndarray,
    cand: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
    grazing: bool,
) -> np.ndarray:
    """For each segment from o to ``ends[g]``, whether some candidate crosses it
    (``kernels.crosses``), every segment against every candidate at once: the same
    operations in the same order, so the same floats."""
    k = _K
    eps = k.EPS
    kinds = kind[cand]
    discs = cand[kinds == k.DISC]
    bridges = cand[kinds == k.BRIDGE]
    polys = cand[(kinds != k.DISC) & (kinds != k.BRIDGE)]
    polys = polys[eoff[polys + 1] > eoff[polys]]  # an empty footprint: infinitely far
    counts = eoff[polys + 1] - eoff[polys]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    at = np.repeat(eoff[polys] - starts, counts) + np.arange(int(counts.sum()))
    rows = edges[np.concatenate([eoff[bridges], at]).astype(np.int64)]
    nb = len(bridges)
    with np.errstate(all="ignore"):
        dd, dc = _distances(ox, oy, ends[:, 0], ends[:, 1], rows, disc[discs])
        blocked = np.zeros(len(ends), np.bool_)
        if len(discs):
            d = dc - disc[discs, 2][None, :]
            hit = np.where(d < half - eps, True, np.where(d > half + eps, False, grazing))
            blocked |= hit.any(axis=1)
        if nb:
            d = dd[:, :nb]
            blocked |= ((d < half - eps) | (d <= eps)).any(axis=1)
        if len(polys):
            x0, y0, x1, y1 = rows[nb:, 0], rows[nb:, 1], rows[nb:, 2], rows[nb:, 3]
            # kernels._inside of the origin, each polygon's edges counted (even-odd)
            cuts = (y0 > oy) != (y1 > oy)
            xi = x0 + (oy - y0) * (x1 - x0) / (y1 - y0)
            odd = np.add.reduceat((cuts & (ox < xi)).astype(np.int64), starts) % 2 == 1
            near = np.where(np.isnan(dd[:, nb:]), np.inf, dd[:, nb:])  # a nan never taken
            d = np.where(odd[None, :], 0.0, np.minimum.reduceat(near, starts, axis=1))
            blocked |= _polygons_hit(ox, oy, d, polys, eoff, edges, half, grazing, ends)
    return blocked


def _polygons_hit(
    ox: float,
    oy: float,
    d: np.ndarray,
    polys: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    half: float,
    grazing: bool,
    ends: np.ndarray,
) -> np.ndarray:
    """``kernels._polygon_crossed`` of the segments from o to ``ends`` at distances ``d``
    (segment by polygon): whether each segment crosses some polygon."""
    k = _K
    eps = k.EPS
    far = d > half + eps
    if half > eps:
        hit = np.where(far, False, np.where(d < half - eps, True, grazing))
        return np.asarray(hit.any(axis=1))
    hit = np.zeros(d.shape, np.bool_)
    for g, j in zip(*np.nonzero(~far), strict=True):  # no beam: into the interior
        e0, e1 = int(eoff[polys[j]]), int(eoff[polys[j] + 1])
        sx, sy = float(ends[g, 0]), float(ends[g, 1])
        hit[g, j] = grazing or bool(k._meets_interior(edges, e0, e1, ox, oy, sx, sy))
    return np.asarray(hit.any(axis=1))


def _distances(
    ox: float, oy: float, bx: np.ndarray, by: np.ndarray, rows: np.ndarray, discs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``kernels._seg_seg_dist`` of each segment o -> (bx, by) (a row) and each edge
    ``rows`` (a column), and ``kernels._seg_point_dist`` of each segment and each disc's
    centre: the same operations in order; Python's ``min`` kept as it picks (the first
    of two unless the second is smaller). In two calls of :func:`_seg_point`: the
    segments from o to the edges' ends and the centres, the edges to o and the ends."""
    ne = len(rows)
    b_x, b_y = bx[:, None], by[:, None]
    px, py, qx, qy = rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]
    from_o = _seg_point(
        ox,
        oy,
        b_x,
        b_y,
        np.concatenate([px, qx, discs[:, 0]])[None, :],
        np.concatenate([py, qy, discs[:, 1]])[None, :],
    )
    if not ne:
        return np.zeros((len(bx), 0)), from_o
    to_edge = _seg_point(
        px[None, :],
        py[None, :],
        qx[None, :],
        qy[None, :],
        np.concatenate([bx, [ox]])[:, None],
        np.concatenate([by, [oy]])[:, None],
    )
    s1, s2 = from_o[:, :ne], from_o[:, ne : 2 * ne]
    s3, s4 = to_edge[-1:, :], to_edge[:-1, :]
    pxr, pyr, qxr, qyr = px[None, :], py[None, :], qx[None, :], qy[None, :]
    d1 = (b_x - ox) * (pyr - oy) - (b_y - oy) * (pxr - ox)
    d2 = (b_x - ox) * (qyr - oy) - (b_y - oy) * (qxr - ox)
    d3 = (qxr - pxr) * (oy - pyr) - (qyr - pyr) * (ox - pxr)
    d4 = (qxr - pxr) * (b_y - pyr) - (qyr - pyr) * (b_x - pxr)
    proper = (((d1 > 0.0) & (d2 < 0.0)) | ((d1 < 0.0) & (d2 > 0.0))) & (
        ((d3 > 0.0) & (d4 < 0.0)) | ((d3 < 0.0) & (d4 > 0.0))
    )
    m1 = np.where(s2 < s1, s2, s1)
    m2 = np.where(s4 < s3, s4, s3)
    return np.where(proper, 0.0, np.where(m2 < m1, m2, m1)), from_o[:, 2 * ne :]


def _seg_point(
    ax: np.ndarray | float,
    ay: np.ndarray | float,
    bx: np.ndarray,
    by: np.ndarray,
    px: np.ndarray,
    py: np.ndarray,
) -> np.ndarray:
    """``kernels._seg_point_dist`` for arrays (broadcast), the same operations in order:
    Python's ``min(1.0, max(0.0, t))`` kept as it picks (a nan becomes 0)."""
    dx = bx - ax
    dy = by - ay
    ll = dx * dx + dy * dy
    t = np.where(ll > 0.0, ((px - ax) * dx + (py - ay) * dy) / ll, 0.0)
    t = np.where(t > 0.0, t, 0.0)
    t = np.where(t < 1.0, t, 1.0)
    qx = ax + t * dx - px
    qy = ay + t * dy - py
    return np.asarray(np.sqrt(qx * qx + qy * qy))


def line_nearby_numpy(
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
    """``kernels.line_nearby`` interpreted, bit for bit, every segment against every
    piece at once: the box tests and distances with numpy (the same operations in the
    same order), the depth inside a polygon a segment meets by the kernel's own helper
    (run as Python), then each segment's pieces gathered in the kernel's order."""
    n = len(segs)
    min_small = np.full(n, np.inf)
    arg_small = np.full(n, -1, np.int64)
    min_large = np.full(n, np.inf)
    arg_large = np.full(n, -1, np.int64)
    near_n = np.zeros(n, np.int64)
    near_k = np.full((n, cap), -1, np.int64)
    near_d = np.zeros((n, cap))
    near_s = np.zeros((n, cap))
    if not n or not n_real:
        return min_small, arg_small, min_large, arg_large, near_n, near_k, near_d, near_s
    with np.errstate(all="ignore"):
        rows, ks, d, slack = _nearby_pairs(
            segs, sa, sb, kind, disc, eoff, edges, bbox, n_real, half, reach, samples
        )
    for i, k, dk, sk in zip(rows.tolist(), ks.tolist(), d.tolist(), slack.tolist(), strict=True):
        if small[k]:
            if sk < min_small[i]:
                min_small[i] = sk
                arg_small[i] = k
        elif sk < min_large[i]:
            min_large[i] = sk
            arg_large[i] = k
        if dk < close:
            c = near_n[i]
            if c < cap:
                near_k[i, c] = k
                near_d[i, c] = dk
                near_s[i, c] = sk
            near_n[i] = c + 1
    return min_small, arg_small, min_large, arg_large, near_n, near_k, near_d, near_s


def _nearby_pairs(
    segs: np.ndarray,
    sa: np.ndarray,
    sb: np.ndarray,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    n_real: int,
    half: float,
    reach: float,
    samples: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`line_nearby_numpy`'s measures: each (segment, piece) the kernel keeps, in
    its order (segment, then piece), with the distance and the slack."""
    k = _K
    ax, ay, bx, by = (segs[:, c : c + 1] for c in range(4))
    box = bbox[None, :n_real]
    x0 = np.where(bx < ax, bx, ax) - reach  # Python's min and max, as they pick
    x1 = np.where(bx > ax, bx, ax) + reach
    y0 = np.where(by < ay, by, ay) - reach
    y1 = np.where(by > ay, by, ay) + reach
    piece = np.arange(n_real)[None, :]
    keep = (piece != sa[:, None]) & (piece != sb[:, None])
    keep &= ~((box[..., 0] > x1) | (box[..., 2] < x0) | (box[..., 1] > y1) | (box[..., 3] < y0))
    hx = 0.5 * (box[..., 2] - box[..., 0])
    hy = 0.5 * (box[..., 3] - box[..., 1])
    mid = _seg_point(ax, ay, bx, by, box[..., 0] + hx, box[..., 1] + hy)
    keep &= ~(mid - np.sqrt(hx * hx + hy * hy) > reach)
    rows, ks = np.nonzero(keep)
    d = np.zeros(len(rows))
    slack = np.zeros(len(rows))
    a_x, a_y, b_x, b_y = segs[rows, 0], segs[rows, 1], segs[rows, 2], segs[rows, 3]
    is_disc = kind[ks] == k.DISC
    if is_disc.any():
        j = np.flatnonzero(is_disc)
        c = disc[ks[j]]
        dj = _seg_point(a_x[j], a_y[j], b_x[j], b_y[j], c[:, 0], c[:, 1]) - c[:, 2]
        d[j] = dj
        slack[j] = np.abs(dj - half)
    j = np.flatnonzero(~is_disc)
    if len(j):
        dj = _polygon_dists(a_x[j], a_y[j], b_x[j], b_y[j], ks[j], eoff, edges)
        d[j] = dj
        slack[j] = np.abs(dj - half)
        for m in np.flatnonzero(~(dj > 0.0)).tolist():  # it meets the polygon: how deep
            i, p = int(rows[j[m]]), int(ks[j[m]])
            sx, sy, tx, ty = segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3]
            depth = depth_inside_numpy(
                edges, int(eoff[p]), int(eoff[p + 1]), sx, sy, tx, ty, samples
            )
            slack[j[m]] = half + depth
    out = ~(d > reach)
    return rows[out], ks[out], d[out], slack[out]


def _polygon_dists(
    ax: np.ndarray,
    ay: np.ndarray,
    bx: np.ndarray,
    by: np.ndarray,
    ks: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
) -> np.ndarray:
    """``kernels._polygon_dist`` of each segment a -> b and its polygon ``ks`` (aligned):
    0 when a lies inside (even-odd), else the least distance to an edge (a nan never
    taken; no edge: infinite)."""
    counts = eoff[ks + 1] - eoff[ks]
    out = np.full(len(ks), np.inf)
    some = np.flatnonzero(counts > 0)
    if not len(some):
        return out
    counts = counts[some]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    at = np.repeat(eoff[ks[some]] - starts, counts) + np.arange(int(counts.sum()))
    e = edges[at]
    x0, y0, x1, y1 = e[:, 0], e[:, 1], e[:, 2], e[:, 3]
    sx, sy = np.repeat(ax[some], counts), np.repeat(ay[some], counts)
    tx, ty = np.repeat(bx[some], counts), np.repeat(by[some], counts)
    cuts = (y0 > sy) != (y1 > sy)
    xi = x0 + (sy - y0) * (x1 - x0) / (y1 - y0)
    odd = np.add.reduceat((cuts & (sx < xi)).astype(np.int64), starts) % 2 == 1
    d1 = (tx - sx) * (y0 - sy) - (ty - sy) * (x0 - sx)
    d2 = (tx - sx) * (y1 - sy) - (ty - sy) * (x1 - sx)
    d3 = (x1 - x0) * (sy - y0) - (y1 - y0) * (sx - x0)
    d4 = (x1 - x0) * (ty - y0) - (y1 - y0) * (tx - x0)
    proper = (((d1 > 0.0) & (d2 < 0.0)) | ((d1 < 0.0) & (d2 > 0.0))) & (
        ((d3 > 0.0) & (d4 < 0.0)) | ((d3 < 0.0) & (d4 > 0.0))
    )
    s1 = _seg_point(sx, sy, tx, ty, x0, y0)
    s2 = _seg_point(sx, sy, tx, ty, x1, y1)
    s3 = _seg_point(x0, y0, x1, y1, sx, sy)
    s4 = _seg_point(x0, y0, x1, y1, tx, ty)
    m1 = np.where(s2 < s1, s2, s1)
    m2 = np.where(s4 < s3, s4, s3)
    dd = np.where(proper, 0.0, np.where(m2 < m1, m2, m1))
    least = np.minimum.reduceat(np.where(np.isnan(dd), np.inf, dd), starts)
    out[some] = np.where(odd, 0.0, least)
    return out


def depth_inside_numpy(
    edges: np.ndarray,
    e0: int,
    e1: int,
    ax: float,
    ay: float,
    bx: float,
    by: float,
    samples: int,
) -> float:
    """``kernels._depth_inside`` interpreted, bit for bit: the cuts by the kernel's own
    helper, the parts inside told and the samples measured against every edge at once."""
    k = _K
    dx = bx - ax
    dy = by - ay
    ll = dx * dx + dy * dy
    if ll <= 0.0 or samples < 1:
        return 0.0
    tt = k._cuts(edges, e0, e1, ax, ay, bx, by)
    n = len(tt)
    e = edges[e0:e1]
    x0, y0, x1, y1 = e[None, :, 0], e[None, :, 1], e[None, :, 2], e[None, :, 3]
    with np.errstate(all="ignore"):
        tm = 0.5 * (tt[:-1] + tt[1:])
        mx = (ax + tm * dx)[:, None]
        my = (ay + tm * dy)[:, None]
        cuts = (y0 > my) != (y1 > my)
        xi = x0 + (my - y0) * (x1 - x0) / (y1 - y0)
        inside = ((cuts & (mx < xi)).sum(axis=1) % 2 == 1).tolist()
    lo: list[float] = []
    hi: list[float] = []
    total = 0.0
    for i in range(n - 1):
        if tt[i + 1] - tt[i] <= 1e-12:
            continue
        if inside[i]:
            if lo and abs(hi[-1] - tt[i]) <= 1e-12:
                hi[-1] = tt[i + 1]
            else:
                lo.append(tt[i])
                hi.append(tt[i + 1])
            total += tt[i + 1] - tt[i]
    m = len(lo)
    if m == 0 or total <= 0.0:
        return 0.0
    at = []
    for j in range(samples):
        want = total * (j / (samples - 1) if samples > 1 else 0.5)
        c = 0
        while c < m - 1 and want > hi[c] - lo[c] + 1e-15:
            want -= hi[c] - lo[c]
            c += 1
        at.append(min(hi[c], lo[c] + want))
    t = np.asarray(at)[:, None]
    with np.errstate(all="ignore"):
        d = _seg_point(x0, y0, x1, y1, ax + t * dx, ay + t * dy)
    near = np.where(np.isnan(d), np.inf, d).min(axis=1, initial=np.inf)
    return float(max(0.0, float(near.max())))
