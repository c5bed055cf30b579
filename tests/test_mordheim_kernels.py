"""The Mordheim margin kernels (:mod:`arbitre.kernels_mordheim`) against the numpy forms
they replaced, bit for bit, in both builds (compiled and interpreted), on seeded random
segments and pieces; and the batched margins against the old per-piece loops."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
import shapely

from arbitre import backend
from arbitre.rules.mordheim import margins
from arbitre.testing import random_table

BUILDS = ("compiled", "interpreted")


def _kernels(build: str) -> object:
    name = margins.KERNELS
    return backend.compiled(name) if build == "compiled" else backend.interpreted(name)


# -- the numpy forms the kernels replaced (the oracle) ---------------------------------------


def old_seg_edges(segs: np.ndarray, edges: np.ndarray) -> np.ndarray:
    if not len(edges):
        return np.full(len(segs), np.inf)
    a, b = segs[:, None, :2], segs[:, None, 2:]
    c, d = edges[None, :, :2], edges[None, :, 2:]

    def cross(o: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        return np.asarray(
            (p[..., 0] - o[..., 0]) * (q[..., 1] - o[..., 1])
            - (p[..., 1] - o[..., 1]) * (q[..., 0] - o[..., 0])
        )

    d1, d2 = cross(c, d, a), cross(c, d, b)
    d3, d4 = cross(a, b, c), cross(a, b, d)
    hit = (d1 * d2 <= 0) & (d3 * d4 <= 0) & ((d1 != 0) | (d2 != 0) | (d3 != 0) | (d4 != 0))

    def point_seg(pt: np.ndarray, s0: np.ndarray, s1: np.ndarray) -> np.ndarray:
        vx, vy = s1[..., 0] - s0[..., 0], s1[..., 1] - s0[..., 1]
        wx, wy = pt[..., 0] - s0[..., 0], pt[..., 1] - s0[..., 1]
        den = vx * vx + vy * vy
        t = np.clip((wx * vx + wy * vy) / np.where(den > 0, den, 1.0), 0.0, 1.0)
        return np.asarray(np.hypot(wx - t * vx, wy - t * vy))

    dist = np.minimum(
        np.minimum(point_seg(a, c, d), point_seg(b, c, d)),
        np.minimum(point_seg(c, a, b), point_seg(d, a, b)),
    )
    return np.asarray(np.where(hit, 0.0, dist).min(axis=1))


def old_seg_point(segs: np.ndarray, px: float, py: float) -> np.ndarray:
    ax, ay, bx, by = segs[:, 0], segs[:, 1], segs[:, 2], segs[:, 3]
    dx, dy = bx - ax, by - ay
    den = dx * dx + dy * dy
    t = np.clip(((px - ax) * dx + (py - ay) * dy) / np.where(den > 0, den, 1.0), 0.0, 1.0)
    return np.asarray(np.hypot(ax + t * dx - px, ay + t * dy - py))


def old_signed(p: margins.Pieces, k: int, segs: np.ndarray) -> np.ndarray:
    """The per-piece ``_signed`` of before the kernels (numpy and shapely)."""
    cx, cy, r = p.discs[k]
    if r >= 0.0:
        return np.asarray(old_seg_point(segs, cx, cy) - r)
    dist = old_seg_edges(segs, p.edges[k])
    dist[shapely.contains_xy(p.shape(k), segs[:, 0], segs[:, 1])] = 0.0
    meet = np.flatnonzero(dist <= 0.0)
    if len(meet):
        lines = margins._lines(segs)
        dist[meet] = -margins._depth(p, k, lines[meet], segs[meet])
    return dist


def _segments(rng: np.random.Generator, n: int) -> np.ndarray:
    segs = rng.uniform(0, 100, (n, 4))
    segs[: n // 8, 2:] = segs[: n // 8, :2]  # some of zero length
    segs[n // 8 : n // 4, 1] = segs[n // 8 : n // 4, 3]  # some level
    return np.round(segs, int(rng.integers(0, 3)))  # ties and touches on a grid


@pytest.mark.parametrize("build", BUILDS)
@pytest.mark.parametrize("seed", range(6))
def test_piece_distances_are_the_numpy_forms_bit_for_bit(build: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    segs = _segments(rng, 40)
    polys = [_edges(rng, int(rng.integers(0, 9))) for _ in range(5)]
    rows = [(0.0, 0.0, -1.0)] * len(polys)
    rows += [(*rng.uniform(0, 100, 2), rng.uniform(0, 20)), (*rng.uniform(0, 100, 2), 0.0)]
    discs = np.asarray(rows, dtype=np.float64)
    edges = (*polys, np.zeros((0, 4)), np.zeros((0, 4)))
    eoff = np.concatenate([[0], np.cumsum([len(e) for e in edges])]).astype(np.int64)
    flat = np.vstack([np.zeros((0, 4)), *edges])
    ks = rng.permutation(len(discs)).astype(np.int64)
    out = np.empty((len(ks), len(segs)))
    _kernels(build).piece_distances(segs, ks, discs, eoff, flat, out)  # type: ignore[attr-defined]
    for i, k in enumerate(ks.tolist()):
        cx, cy, r = discs[k]
        want = old_seg_point(segs, cx, cy) - r if r >= 0.0 else old_seg_edges(segs, edges[k])
        assert out[i].tobytes() == want.tobytes(), (k, out[i], want)
    # the oracle is not vacuous: crossings (0), and distances apart
    assert (out == 0.0).any() and (out > 0.0).any()


def _edges(rng: np.random.Generator, n: int) -> np.ndarray:
    pts = np.round(rng.uniform(0, 100, (n + 1, 2)), 1)
    return np.hstack([pts[:-1], pts[1:]]) if n else np.zeros((0, 4))


def test_first_best_is_the_strict_loop() -> None:
    rnd = random.Random(5)
    for _ in range(300):
        rows, cols = rnd.randint(0, 5), rnd.randint(1, 6)
        pool = [0.0, 1.0, 2.0, -np.inf, np.inf, float("nan")]
        vals = np.asarray([[rnd.choice(pool) for _ in range(cols)] for _ in range(rows)])
        vals = vals.reshape(rows, cols)
        start = np.asarray([rnd.choice(pool[:5]) for _ in range(cols)])
        for larger in (True, False):
            best, row = margins._first_best(vals, start, larger)
            for j in range(cols):
                b, w = start[j], -1
                for i in range(rows):
                    if (vals[i, j] > b) if larger else (vals[i, j] < b):
                        b, w = vals[i, j], i
                assert row[j] == w and (best[j] == b or (np.isnan(best[j]) and np.isnan(b)))


@pytest.mark.parametrize("build", BUILDS)
@pytest.mark.parametrize("seed", [7, 11])
def test_batched_signed_is_the_per_piece_form(build: str, seed: int) -> None:
    """``_signed`` for every near piece of a view in one call equals the old per-piece
    function (kernel distances, shapely inside tests and GEOS depths) on random tables."""
    table = random_table(seed, models=40, terrain=25, width=600, depth=600)
    p = margins.index_pieces(table, "open")
    kern = _kernels(build)
    rng = random.Random(seed)
    met = 0
    for _ in range(12):
        a, b = rng.sample(table.models, 2)
        v = margins.view(a.at.x, a.at.y, b.at.x, b.at.y, b.base.radius)
        near = np.arange(len(p.ids), dtype=np.int64)
        got = margins._signed(kern, p, near, v.segments)
        for i, k in enumerate(near.tolist()):
            want = old_signed(p, k, v.segments)
            assert got[i].tobytes() == want.tobytes(), (k, got[i], want)
        met += int((got < 0.0).sum())
    assert met  # some segments run into pieces (the GEOS depths were exercised)


# -- M8: the hiding points (``_in_box``, ``View.depth``, ``_phi`` before the kernels) -------


def old_in_box(segs: np.ndarray, box: np.ndarray, pad: float, n: int) -> tuple[np.ndarray, ...]:
    a, d = segs[:, :2], segs[:, 2:] - segs[:, :2]
    lo, hi = box[:2] - pad, box[2:] + pad
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (lo - a) / d
        t2 = (hi - a) / d
    near = np.where(d == 0.0, np.where((a >= lo) & (a <= hi), -np.inf, np.inf), np.minimum(t1, t2))
    far = np.where(d == 0.0, np.where((a >= lo) & (a <= hi), np.inf, -np.inf), np.maximum(t1, t2))
    t0 = np.clip(near.max(axis=1), 0.0, 1.0)
    t9 = np.clip(far.min(axis=1), 0.0, 1.0)
    cross = t9 >= t0
    t = t0[cross, None] + (t9 - t0)[cross, None] * np.linspace(0.0, 1.0, n)
    x = segs[cross, 0, None] + d[cross, 0, None] * t
    y = segs[cross, 1, None] + d[cross, 1, None] * t
    return x.ravel(), y.ravel()


def old_depth(v: margins.View, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    d = math.hypot(v.tx - v.ox, v.ty - v.oy)
    w = math.asin(min(1.0, v.r / d))
    phi = math.atan2(v.ty - v.oy, v.tx - v.ox)
    out = np.hypot(x - v.tx, y - v.ty) - v.r
    for side in (-1.0, 1.0):
        a = phi + side * w
        nx, ny = -math.sin(a) * side, math.cos(a) * side
        out = np.minimum(out, -((x - v.ox) * nx + (y - v.oy) * ny))
    return np.maximum(out, 0.0)


def old_phi(p: margins.Pieces, k: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    cx, cy, r = p.discs[k]
    if r >= 0.0:
        return np.asarray(np.hypot(x - cx, y - cy) - r)
    e = p.edges[k]
    if not len(e):
        return np.full(len(x), np.inf)
    ax, ay, dx, dy = e[:, 0], e[:, 1], e[:, 2] - e[:, 0], e[:, 3] - e[:, 1]
    den = np.where(dx * dx + dy * dy > 0, dx * dx + dy * dy, 1.0)
    t = np.clip(((x[:, None] - ax) * dx + (y[:, None] - ay) * dy) / den, 0.0, 1.0)
    near = np.hypot(ax + t * dx - x[:, None], ay + t * dy - y[:, None]).min(axis=1)
    inside = shapely.contains_xy(p.shape(k), x, y)
    return np.asarray(np.where(inside, -near, near))


def old_hiding_slack(p: margins.Pieces, v: margins.View, hiders: list[int], half: float) -> object:
    best = margins.Slack(0.0, "beam")
    if v.point:
        for k in hiders:
            h = half - float(old_signed(p, k, v.segments)[0]) - p.error
            if h > best.mm:
                best = margins.Slack(h, f"beam {p.ids[k]}")
        return best
    for k in hiders:
        if p.shapes[k].is_empty:
            continue
        x, y = old_in_box(v.segments[::3], p.bbox[k], half, margins.ALONG)
        if not len(x):
            continue
        in_r = old_depth(v, x, y)
        keep = in_r > best.mm
        if not keep.any():
            continue
        deep = np.minimum(in_r[keep], half - old_phi(p, k, x[keep], y[keep])) - p.error
        top = float(deep.max())
        if top > best.mm:
            best = margins.Slack(top, f"beam {p.ids[k]}")
    return best


@pytest.mark.parametrize("build", BUILDS)
@pytest.mark.parametrize("seed", [3, 8])
def test_hiding_slack_is_the_numpy_form(build: str, seed: int) -> None:
    """M8's deepest hidden point, every near piece a hider, equals the old numpy loop
    (value and test, bit for bit) on random tables, and some pairs are hidden by it."""
    table = random_table(seed, models=40, terrain=25, width=600, depth=600)
    p = margins.index_pieces(table, "open")
    kern = _kernels(build)
    rng = random.Random(seed)
    hidden = 0
    for _ in range(25):
        a, b = rng.sample(table.models, 2)
        v = margins.view(a.at.x, a.at.y, b.at.x, b.at.y, b.base.radius)
        hiders = [k for k in range(len(p.ids)) if p.ids[k] not in (a.id, b.id)]
        half = table.beam / 2
        got = margins.hiding_slack(kern, p, v, hiders, half)
        want = old_hiding_slack(p, v, hiders, half)
        assert got == want
        hidden += got.mm > 0.0
    assert hidden


def old_through(segs: np.ndarray, line: object) -> np.ndarray:
    """``margins._through`` as before the joints were packed: one joint at a time."""
    xy = np.asarray(line.coords, dtype=np.float64)  # type: ignore[attr-defined]
    if xy.shape != (2, 2):
        return np.asarray(shapely.intersects(margins._lines(segs), line))
    (px, py), (qx, qy) = xy
    ox, oy, ex, ey = segs[:, 0], segs[:, 1], segs[:, 2], segs[:, 3]

    def orient(ax: Any, ay: Any, bx: Any, by: Any, cx: Any, cy: Any) -> tuple[Any, Any]:
        left, right = (bx - ax) * (cy - ay), (by - ay) * (cx - ax)
        return left - right, np.abs(left) + np.abs(right)

    o1, m1 = orient(ox, oy, ex, ey, px, py)
    o2, m2 = orient(ox, oy, ex, ey, qx, qy)
    o3, m3 = orient(px, py, qx, qy, ox, oy)
    o4, m4 = orient(px, py, qx, qy, ex, ey)
    sure = np.ones(len(segs), dtype=np.bool_)
    for o, m in ((o1, m1), (o2, m2), (o3, m3), (o4, m4)):
        sure &= np.abs(o) > margins.ORIENT_ERR * m
    out = np.asarray((o1 * o2 < 0.0) & (o3 * o4 < 0.0) & sure)
    doubt = np.flatnonzero(~sure)
    if len(doubt):
        out[doubt] = shapely.intersects(margins._lines(segs[doubt]), line)
    return out


def old_joints(
    p: margins.Pieces, near: np.ndarray, segs: np.ndarray
) -> list[tuple[int, int, float, np.ndarray]]:
    """``margins._joints`` as before the joints were packed: a list, one joint a row."""
    keep = set(near.tolist())
    found = [(a, b, gap, line) for a, b, gap, line in p.bridges if a in keep and b in keep]
    return [(a, b, gap, old_through(segs, line)) for a, b, gap, line in found]


@pytest.mark.parametrize("seed", [2, 7, 9, 11])
def test_packed_joints_are_the_joints_one_by_one(seed: int) -> None:
    """G4: the joints of a view, all at once, are the old list joint by joint: the same
    joints in the same order, the same gaps and the same segments through each."""
    table = random_table(seed, models=40, terrain=30, width=500, depth=500, degenerate=True)
    p = margins.index_pieces(table, "open")
    rng = random.Random(seed)
    seen = 0
    for _ in range(40):
        a, b = rng.sample(table.models, 2)
        v = margins.view(a.at.x, a.at.y, b.at.x, b.at.y, b.base.radius)
        mask = np.ones(len(p.ids), dtype=np.bool_)
        near, _ = margins._candidates(p, v, mask)
        got = margins._joints(p, near, v.segments)
        want = old_joints(p, near, v.segments)
        assert [tuple(r) for r in got.ab.tolist()] == [(a, b) for a, b, _, _ in want]
        assert got.gap.tolist() == [gap for _, _, gap, _ in want]
        assert got.through.shape == (len(want), len(v.segments))
        for row, (_, _, _, through) in zip(got.through, want, strict=True):
            assert row.tolist() == through.tolist()
            seen += int(through.any())
    assert seen  # some segments pass through joints


def test_a_view_region_is_its_old_shape() -> None:
    """The region of a view, drawn only when asked, is the shape it always was, and its
    box is GEOS's."""
    table = random_table(3, models=30, terrain=10)
    for a, b in zip(table.models, table.models[1:], strict=False):
        for r in (b.base.radius, 0.0):
            v = margins.view(a.at.x, a.at.y, b.at.x, b.at.y, r)
            if v.point:
                old = shapely.LineString([(a.at.x, a.at.y), (b.at.x, b.at.y)])
            else:
                ring = np.vstack([[a.at.x, a.at.y], v.segments[:, 2:]])
                old = shapely.polygons(ring)
            assert shapely.equals_exact(v.region, old, tolerance=0.0)
            assert v.bounds == old.bounds


def old_hidden_slack(
    table: object, p: margins.Pieces, v: margins.View, mask: np.ndarray, half: float
) -> margins.Slack:
    """M1 not seen, as before the kernels: piece by piece, every depth measured."""
    near, _ = margins._candidates(p, v, mask)
    depth = np.full(len(v.segments), -np.inf)
    who = np.full(len(v.segments), "", dtype=object)
    for k in near:
        h = half - old_signed(p, int(k), v.segments)
        better = h > depth
        depth = np.where(better, h, depth)
        who[better] = f"beam {p.ids[int(k)]}"
    tol = table.contact_tolerance  # type: ignore[attr-defined]
    for a, b, gap, through in old_joints(p, near, v.segments):
        better = through & (tol - gap > depth)
        depth = np.where(better, tol - gap, depth)
        who[better] = f"contact {p.ids[a]}-{p.ids[b]}"
    worst = int(np.argmin(depth))
    value = float(depth[worst]) - float(v.spacing) / 2.0 - p.error
    return margins.Slack(max(0.0, value), str(who[worst]) or "beam")


def _random_view(
    table: Any, p: margins.Pieces, rng: random.Random
) -> tuple[margins.View, np.ndarray]:
    """The view from one random model to another, and the mask of every piece but theirs."""
    a, b = rng.sample(table.models, 2)
    v = margins.view(a.at.x, a.at.y, b.at.x, b.at.y, b.base.radius)
    mask = np.ones(len(p.ids), dtype=np.bool_)
    mask[[p.ids.index(a.id), p.ids.index(b.id)]] = False
    return v, mask


@pytest.mark.parametrize("build", BUILDS)
@pytest.mark.parametrize("seed", [2, 7, 9])
def test_hidden_slack_measures_only_the_depths_it_needs(build: str, seed: int) -> None:
    """M1 not seen: the margin measuring polygon depths only where they may decide equals
    the old loop measuring every one, bit for bit, walls and buildings in the way."""
    table = random_table(seed, models=30, terrain=40, width=500, depth=500)
    p = margins.index_pieces(table, "open")
    kern = _kernels(build)
    rng = random.Random(seed)
    deep = 0
    for _ in range(30):
        v, mask = _random_view(table, p, rng)
        got = margins.hidden_slack(kern, table, p, v, mask, table.beam / 2)
        assert got == old_hidden_slack(table, p, v, mask, table.beam / 2)
        deep += got.mm > table.beam / 2
    assert deep  # some lines run deep into pieces


def old_clearance(
    kern: object,
    table: object,
    p: margins.Pieces,
    near: np.ndarray,
    far: float,
    half: float,
    segs: np.ndarray,
) -> tuple[np.ndarray, list[str]]:
    """``_clearance`` as before the pruning: every GEOS depth measured."""
    start = np.full(len(segs), far - half - p.error)
    clear, row = margins._first_best(
        margins._signed(kern, p, near, segs) - half - p.error, start, False
    )
    who = [margins._who(p, near, r) for r in row.tolist()]
    tol = table.contact_tolerance  # type: ignore[attr-defined]
    for a, b, gap, through in old_joints(p, near, segs):
        open_by = gap - tol
        better = through & (open_by < clear)
        clear = np.where(better, open_by, clear)
        for j in np.flatnonzero(better).tolist():
            who[j] = f"contact {p.ids[a]}-{p.ids[b]}"
    return clear, who


#: (build, seed, views): every seed compiled over 40 views; interpreted (the same source,
#: ~10 s a table of 40 views) seed 2 every day over its first 12 views (pruned and fully
#: measured segments both occur from the 10th), every seed's 40 under ``-m slow``.
CLEARANCE_RUNS = [
    ("compiled", 2, 40),
    ("interpreted", 2, 12),
    ("compiled", 7, 40),
    ("compiled", 9, 40),
    pytest.param("interpreted", 2, 40, marks=pytest.mark.slow),
    pytest.param("interpreted", 7, 40, marks=pytest.mark.slow),
    pytest.param("interpreted", 9, 40, marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("build", "seed", "views"), CLEARANCE_RUNS)
def test_clearance_measures_only_the_depths_it_needs(build: str, seed: int, views: int) -> None:
    """M1 seen: the clearest segment (index, value, test) of the pruned clearance is the
    one measuring every depth gives, and so is ``seen_slack``; some views had segments
    meeting polygons left unmeasured, some had to measure them."""
    table = random_table(seed, models=30, terrain=40, width=500, depth=500)
    p = margins.index_pieces(table, "open")
    kern = _kernels(build)
    rng = random.Random(seed)
    half = table.beam / 2
    pruned = measured = 0
    for _ in range(views):
        a, b = rng.sample(table.models, 2)
        v = margins.view(a.at.x, a.at.y, b.at.x, b.at.y, b.base.radius)
        mask = np.ones(len(p.ids), dtype=np.bool_)
        mask[[p.ids.index(a.id), p.ids.index(b.id)]] = False
        near, far = margins._candidates(p, v, mask)
        for segs in (v.segments, v.segments[::2]):
            got, got_who = margins._clearance(kern, table, p, near, far, half, segs)
            want, want_who = old_clearance(kern, table, p, near, far, half, segs)
            best = int(np.argmax(want))
            assert int(np.argmax(got)) == best
            assert got[best] == want[best] and got_who[best] == want_who[best]
            assert (got >= want).all()  # the others kept an upper bound
            unmeasured = bool((got != want).any())
            pruned += unmeasured
            measured += not unmeasured and bool((want < -half).any())
        old = margins._clearance
        try:
            margins._clearance = old_clearance
            want_slack = margins.seen_slack(kern, table, p, v, mask, half)
        finally:
            margins._clearance = old
        assert margins.seen_slack(kern, table, p, v, mask, half) == want_slack
    assert pruned and measured


@pytest.mark.parametrize("seed", [4, 7])
def test_pieces_terrain_drawn_once_is_the_same(seed: int) -> None:
    """The terrain's shapes cached across tables whose models moved give the same
    :class:`margins.Pieces` as a table drawn afresh (arrays bit for bit)."""
    import dataclasses

    table = random_table(seed, models=20, terrain=15, degenerate=seed == 4)
    moved = dataclasses.replace(
        table,
        models=tuple(dataclasses.replace(m, at=type(m.at)(m.at.y, m.at.x)) for m in table.models),
    )
    margins.pieces(table)  # the terrain drawn for the first table
    got = margins.pieces(moved)
    margins._ground.cache_clear()
    want = margins.pieces.__wrapped__(moved)
    assert got.ids == want.ids and got.bridges.__len__() == want.bridges.__len__()
    for name in ("bbox", "discs", "eoff", "eflat", "valid"):
        assert getattr(got, name).tobytes() == getattr(want, name).tobytes(), name
    assert all(a.equals_exact(b, 0.0) for a, b in zip(got.shapes, want.shapes, strict=True))
    assert all(a.equals_exact(b, 0.0) for a, b in zip(got.boundaries, want.boundaries, strict=True))
    for x, y in zip(got.bridges, want.bridges, strict=True):
        assert x[:3] == y[:3] and x[3].equals_exact(y[3], 0.0)


def through_one(segs: np.ndarray, line: shapely.LineString, kern: object = None) -> np.ndarray:
    """``margins._through`` for one line (by the kernels ``kern`` when given)."""
    xy = np.asarray(line.coords, dtype=np.float64).reshape(1, 4)
    out: np.ndarray = margins._through(segs, xy, [line], kern)[0]
    return out


@pytest.mark.parametrize("build", [None, *BUILDS])
def test_through_is_geos_intersects(build: str | None) -> None:
    """G4 joints: which segments meet a two-point line, by orientations where their
    signs are sure and GEOS elsewhere, equals GEOS's ``intersects`` on random segments,
    on grid points (touching, collinear, shared ends) and on real views and joints: in
    numpy, and by either build of the kernels."""
    kern = None if build is None else _kernels(build)
    rng = np.random.default_rng(5)
    crossed = doubted = 0
    for trial in range(300):
        grid = trial % 2 == 0  # small integers: many touching and collinear cases
        pts = rng.integers(0, 5, (41, 2)).astype(float) if grid else rng.uniform(-50, 50, (41, 2))
        segs = (
            np.hstack([np.repeat(pts[:1], 40, axis=0), pts[1:]])
            if trial % 3
            else (np.hstack([pts[1:21], pts[21:41]]))
        )
        p, q = rng.integers(0, 5, (2, 2)).astype(float) if grid else rng.uniform(-50, 50, (2, 2))
        if (p == q).all():
            continue
        line = shapely.LineString([p, q])
        got = through_one(segs, line, kern)
        want = np.asarray(shapely.intersects(margins._lines(segs), line))
        assert got.tolist() == want.tolist()
        crossed += int(want.sum())
        doubted += grid
    assert crossed and doubted
    for seed in (2, 7):
        table = random_table(seed, models=30, terrain=40, width=500, depth=500)
        p = margins.index_pieces(table, "open")
        r = random.Random(seed)
        for _ in range(30):
            a, b = r.sample(table.models, 2)
            v = margins.view(a.at.x, a.at.y, b.at.x, b.at.y, b.base.radius)
            for *_, line in p.bridges:
                got = through_one(v.segments, line, kern)
                assert got.tolist() == shapely.intersects(margins._lines(v.segments), line).tolist()


def old_bridges(
    shapes: list[Any], discs: np.ndarray, tolerance: float
) -> tuple[tuple[int, int, float, Any], ...]:
    """``margins._bridges`` as before: a ``dwithin`` query of every piece."""
    reach = tolerance + max(margins.JOINT, 2.0 * tolerance)
    live = [k for k, g in enumerate(shapes) if not g.is_empty]
    if len(live) < 2:
        return ()
    tree = shapely.STRtree([shapes[k] for k in live])
    left, right = tree.query([shapes[k] for k in live], predicate="dwithin", distance=reach)
    out = []
    for i, j in zip(left.tolist(), right.tolist(), strict=True):
        a, b = live[i], live[j]
        if a >= b:
            continue
        (ax, ay, ar), (bx, by, br) = discs[a], discs[b]
        if ar >= 0.0 and br >= 0.0:
            d = math.hypot(bx - ax, by - ay)
            gap = d - ar - br
            if d == 0.0 or not 0.0 < gap <= reach:
                continue
            ux, uy = (bx - ax) / d, (by - ay) / d
            line = shapely.LineString([(ax + ar * ux, ay + ar * uy), (bx - br * ux, by - br * uy)])
        else:
            gap = float(shapely.distance(shapes[a], shapes[b]))
            if not 0.0 < gap <= reach:
                continue
            line = shapely.shortest_line(shapes[a], shapes[b])
        out.append((a, b, gap, line))
    return tuple(out)


@pytest.mark.parametrize("seed", range(6))
def test_bridges_are_the_dwithin_query_ones(seed: int) -> None:
    """G4: the bridges found from the grown boxes, discs measured exactly, are the ones
    the ``dwithin`` query of every piece found: the same pairs, in the same order, the
    same gaps and segments; on crowded tables (bases nearly touching, degenerate)."""
    table = random_table(
        seed, models=60, terrain=25, width=400, depth=400, degenerate=seed % 2 == 1
    )
    for tol in (table.contact_tolerance, 0.0, 3.0):
        p = margins.index_pieces(table, "open")
        margins._PAIRS.clear()
        want = old_bridges(list(p.shapes), p.discs, tol)
        for _ in range(2):  # measured, then found again in the store of pairs
            got = margins._bridges(list(p.shapes), p.discs, tol)
            assert [x[:3] for x in got] == [y[:3] for y in want]
            assert all(x[3].equals_exact(y[3], 0.0) for x, y in zip(got, want, strict=True))
        assert len(want) > 3


def test_bases_drawn_once_are_the_bases_drawn_again() -> None:
    """A base drawn from the store of drawn bases is the polygon drawn afresh."""
    table = random_table(4, models=40, terrain=5)
    xyr = np.asarray([(m.at.x, m.at.y, m.base.radius) for m in table.models])
    margins._DRAWN.clear()
    first, _, _ = margins._drawn(xyr[:10])
    again, lines, valid = margins._drawn(xyr)
    fresh = shapely.buffer(shapely.points(xyr[:, :2]), np.maximum(xyr[:, 2], 1e-9), quad_segs=32)
    assert all(a.equals_exact(b, 0.0) for a, b in zip(again, fresh, strict=True))
    assert all(a is b for a, b in zip(first, again[:10], strict=True))
    assert all(a.equals_exact(b, 0.0) for a, b in zip(lines, shapely.boundary(fresh), strict=True))
    assert valid.tolist() == shapely.is_valid(fresh).tolist()


def old_meet(
    p: margins.Pieces, ks: np.ndarray, segs: np.ndarray, dist: np.ndarray, meets: np.ndarray
) -> None:
    """``margins._meet`` as before: one GEOS batch per piece."""
    lines = margins._lines(segs)
    for i in np.flatnonzero(meets.any(axis=1)).tolist():
        meet = np.flatnonzero(meets[i])
        dist[i, meet] = -margins._depth(p, int(ks[i]), lines[meet], segs[meet])


@pytest.mark.parametrize("seed", [2, 7, 9, 12])
def test_depths_measured_together_are_the_depths_piece_by_piece(seed: int) -> None:
    """The depths of every meeting measured in one GEOS call of each kind are the ones
    measured piece by piece, bit for bit (walls, buildings, degenerate tables)."""
    table = random_table(
        seed, models=30, terrain=40, width=500, depth=500, degenerate=seed % 2 == 0
    )
    p = margins.index_pieces(table, "open")
    kern = _kernels("compiled")
    rng = random.Random(seed)
    met = 0
    for _ in range(40):
        a, b = rng.sample(table.models, 2)
        v = margins.view(a.at.x, a.at.y, b.at.x, b.at.y, b.base.radius)
        mask = np.ones(len(p.ids), dtype=np.bool_)
        near, _ = margins._candidates(p, v, mask)
        segs = np.ascontiguousarray(v.segments)
        dist, meets = margins._apart(kern, p, near, segs)
        got, want = dist.copy(), dist.copy()
        margins._meet(p, near, segs, got, meets)
        old_meet(p, near, segs, want, meets)
        assert got.tobytes() == want.tobytes()
        met += int(meets.sum())
    assert met


def test_spread_is_linspace() -> None:
    """The near arc's angles are ``np.linspace``'s, bit for bit."""
    rng = np.random.default_rng(3)
    for _ in range(3000):
        hi = float(rng.choice([rng.uniform(0, math.pi / 2), rng.uniform(0, 1e-6), 1.0]))
        n = int(rng.choice([margins.DIRECTIONS, 2, 3, 17]))
        got = margins._spread(-hi, hi, n)
        assert got.tobytes() == np.linspace(-hi, hi, n).tobytes()


def test_an_unseen_target_has_no_cover_slack() -> None:
    """G8: the cover of a target not seen is not measured (``cover_margin`` no slack),
    as no ruling reads it: a target's own slack and a line of sight's margin rest on
    M1 alone when it is not seen, whatever its cover slack would be."""
    from dataclasses import replace as copy

    from arbitre.rules.mordheim import deciding
    from arbitre.rules.mordheim import sight as msight

    table = random_table(5, models=30, terrain=15)
    pairs = [(a.id, b.id) for a in table.models[:4] for b in table.models if a.side != b.side]
    facts = msight.measure(table, pairs)
    unseen = [f for f in facts if not f.visible]
    assert unseen and any(f.visible for f in facts)
    for f in unseen:
        assert f.cover_margin == margins.NO_SLACK
        tiny = copy(f, cover_margin=margins.Slack(0.0, "beam t0"))
        assert deciding.own_slacks(tiny, 100.0, None) == deciding.own_slacks(f, 100.0, None)
    for r in msight.los_rulings(table, pairs):
        f = next(x for x in facts if (x.shooter, x.target) == (r.shooter, r.target))
        if not r.visible:
            assert r.margin.test == f.seen_margin.test


@pytest.mark.parametrize("seed", [3, 4, 6])
def test_pieces_left_out_of_a_segment_are_below_its_deepest(seed: int) -> None:
    """``_apart_near`` (nearest bound first, a piece left out of a segment below the
    deepest measured there) against ``apart`` measuring every piece, on crowded tables
    with an invalid polygon: every distance it measures is ``apart``'s, and each
    segment's deepest ``half - dist`` and the first piece reaching it are the same."""
    table = random_table(seed, models=120, terrain=30, width=400, depth=400, degenerate=True)
    p = margins.index_pieces(table, "open")
    kern: Any = _kernels("compiled")
    rng = random.Random(seed)
    half = table.beam / 2
    left_out = 0
    for _ in range(60):
        v, mask = _random_view(table, p, rng)
        ks = np.asarray(margins._candidates(p, v, mask)[0], dtype=np.int64)
        segs = np.ascontiguousarray(v.segments)
        inside = margins._starts_inside(p, float(segs[0, 0]), float(segs[0, 1]))
        full = np.empty((len(ks), len(segs)))
        full_meets = np.zeros(full.shape, dtype=np.bool_)
        kern.apart(segs, ks, p.discs, p.eoff, p.eflat, inside, full, full_meets)
        near = np.empty(full.shape)
        near_meets = np.zeros(full.shape, dtype=np.bool_)
        target = np.asarray([v.tx, v.ty, v.r])
        kern._apart_near(
            segs, ks, p.discs, p.eoff, p.eflat, inside, p.bbox, target, p.valid, half, near,
            near_meets,
        )  # fmt: skip
        measured = np.isfinite(near)
        assert (near[measured] == full[measured]).all()
        assert (near_meets == (full_meets & measured)).all()
        left_out += int((~measured).sum())
        if len(ks):
            assert ((half - near).max(axis=0) == (half - full).max(axis=0)).all()
            assert ((half - near).argmax(axis=0) == (half - full).argmax(axis=0)).all()
        # an invalid polygon's meetings are never left out (measured row by row)
        bad = ~p.valid[ks]
        assert (near_meets[bad] == full_meets[bad]).all()
    assert left_out  # some pieces were left out of some segments


def test_pieces_are_kept_by_what_they_rest_on() -> None:
    """An equal table under another name finds the pieces, the bases and the window
    contacts already made; a moved model does not (and gets its own)."""
    from dataclasses import replace

    from arbitre.geometry import Point
    from arbitre.rules.mordheim import sight as msight

    table = random_table(12, models=20, terrain=15, width=400, depth=400)
    renamed = replace(table, name="another", options=(("close_call", 0.5),))
    assert margins.pieces(renamed) is margins.pieces(table)
    assert margins._bases(renamed) is margins._bases(table)
    assert msight.window_contacts(renamed) is msight.window_contacts(table)
    first = table.models[0]
    moved = replace(table, models=(replace(first, at=Point(first.at.x + 1, first.at.y)),
                                   *table.models[1:]))  # fmt: skip
    assert margins.pieces(moved) is not margins.pieces(table)
    assert margins.pieces(moved).discs[len(table.terrain), 0] == first.at.x + 1
