"""The Mordheim margin kernels (:mod:`arbitre.kernels_mordheim`) against the numpy forms
they replaced, bit for bit, in both builds (compiled and interpreted), on seeded random
segments and pieces; and the batched margins against the old per-piece loops."""

from __future__ import annotations

import math
import random

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


def old_hidden_slack(
    table: object, p: margins.Pieces, v: margins.View, mask: np.ndarray, half: float
) -> margins.Slack:
    """M1 not seen, as before the kernels: piece by piece, every depth measured."""
    near, _ = margins._candidates(p, v.region, mask)
    depth = np.full(len(v.segments), -np.inf)
    who = np.full(len(v.segments), "", dtype=object)
    for k in near:
        h = half - old_signed(p, int(k), v.segments)
        better = h > depth
        depth = np.where(better, h, depth)
        who[better] = f"beam {p.ids[int(k)]}"
    tol = table.contact_tolerance  # type: ignore[attr-defined]
    for a, b, gap, through in margins._joints(p, near, v.segments):
        better = through & (tol - gap > depth)
        depth = np.where(better, tol - gap, depth)
        who[better] = f"contact {p.ids[a]}-{p.ids[b]}"
    worst = int(np.argmin(depth))
    value = float(depth[worst]) - float(v.spacing) / 2.0 - p.error
    return margins.Slack(max(0.0, value), str(who[worst]) or "beam")


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
        a, b = rng.sample(table.models, 2)
        v = margins.view(a.at.x, a.at.y, b.at.x, b.at.y, b.base.radius)
        mask = np.ones(len(p.ids), dtype=np.bool_)
        mask[[p.ids.index(a.id), p.ids.index(b.id)]] = False
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
    for a, b, gap, through in margins._joints(p, near, segs):
        open_by = gap - tol
        better = through & (open_by < clear)
        clear = np.where(better, open_by, clear)
        for j in np.flatnonzero(better).tolist():
            who[j] = f"contact {p.ids[a]}-{p.ids[b]}"
    return clear, who


#: Every seed compiled; interpreted (the same source, ~10 s a table) one seed every
#: day, the others under ``-m slow``.
CLEARANCE_RUNS = [
    *((build, seed) for build in BUILDS for seed in (2,)),
    ("compiled", 7),
    ("compiled", 9),
    pytest.param("interpreted", 7, marks=pytest.mark.slow),
    pytest.param("interpreted", 9, marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("build", "seed"), CLEARANCE_RUNS)
def test_clearance_measures_only_the_depths_it_needs(build: str, seed: int) -> None:
    """M1 seen: the clearest segment (index, value, test) of the pruned clearance is the
    one measuring every depth gives, and so is ``seen_slack``; some views had segments
    meeting polygons left unmeasured, some had to measure them."""
    table = random_table(seed, models=30, terrain=40, width=500, depth=500)
    p = margins.index_pieces(table, "open")
    kern = _kernels(build)
    rng = random.Random(seed)
    half = table.beam / 2
    pruned = measured = 0
    for _ in range(40):
        a, b = rng.sample(table.models, 2)
        v = margins.view(a.at.x, a.at.y, b.at.x, b.at.y, b.base.radius)
        mask = np.ones(len(p.ids), dtype=np.bool_)
        mask[[p.ids.index(a.id), p.ids.index(b.id)]] = False
        near, far = margins._candidates(p, v.region, mask)
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


def test_through_is_geos_intersects() -> None:
    """G4 joints: which segments meet a two-point line, by orientations where their
    signs are sure and GEOS elsewhere, equals GEOS's ``intersects`` on random segments,
    on grid points (touching, collinear, shared ends) and on real views and joints."""
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
        got = margins._through(segs, line)
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
                got = margins._through(v.segments, line)
                assert got.tolist() == shapely.intersects(margins._lines(v.segments), line).tolist()
