"""S2 with one hiding piece per row (:mod:`arbitre.sight_rows`) against the one-at-a-time
form it replaces (``sight.visible_fraction_batch`` with that piece alone in the mask),
bit for bit, in both builds, on seeded random tables and rows."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arbitre import sight, sight_rows
from arbitre.rules.mordheim import sight as msight
from arbitre.table import Table
from arbitre.testing import random_table

BUILDS = ("always", "never")


def one_at_a_time(
    table: Table, ix: sight.SightIndex, s: np.ndarray, g: np.ndarray, ks: np.ndarray
) -> np.ndarray:
    out = np.empty(len(s))
    for i in range(len(s)):
        alone = np.zeros(ix.n_pieces, dtype=np.bool_)
        alone[int(ks[i])] = True
        out[i] = sight.visible_fraction_batch(
            table, s[i : i + 1], g[i : i + 1], hides=alone, index=ix
        )[0]
    return out


def _rows(table: Table, ix: sight.SightIndex, seed: int, n: int) -> tuple[np.ndarray, ...]:
    """Random rows: a few shooters, any target, any piece (own ends and far pieces too),
    and the pieces near each line (those that may hide: what Mordheim asks)."""
    rng = random.Random(seed)
    m = len(table.models)
    shooters = rng.sample(range(m), min(4, m))
    s, g, k = [], [], []
    for _ in range(n):
        a = rng.choice(shooters)
        b = rng.choice([i for i in range(m) if i != a])
        s.append(a)
        g.append(b)
        k.append(rng.randrange(ix.n_pieces))
    for a in shooters:  # every piece near every line of this shooter
        for b in range(m):
            if b != a:
                near = msight._near(table, ix, np.array([a]), np.array([b]))[0]
                for p in np.flatnonzero(near).tolist():
                    s.append(a)
                    g.append(b)
                    k.append(p)
        s.append(a)  # the ends themselves
        g.append((a + 1) % m)
        k.append(ix.n_terrain + a)
        s.append(a)
        g.append((a + 1) % m)
        k.append(ix.n_terrain + (a + 1) % m)
    return tuple(np.asarray(x, dtype=np.int64) for x in (s, g, k))


CASES = [
    (3, dict(models=12, terrain=10)),
    (4, dict(models=12, terrain=10, degenerate=True)),
    (5, dict(models=30, terrain=20, beam=0.0)),
    (6, dict(models=40, terrain=25, degenerate=True, beam=3.0)),
    (7, dict(models=60, terrain=30, width=1200, depth=1200)),
]


#: Every case compiled; interpreted the three small ones every day, the two big ones
#: (5-9 s each) under ``-m slow``.
RUNS = [
    *(("always", seed, kw) for seed, kw in CASES),
    *(("never", seed, kw) for seed, kw in CASES[:3]),
    *(pytest.param("never", seed, kw, marks=pytest.mark.slow) for seed, kw in CASES[3:]),
]


@pytest.mark.parametrize(("build", "seed", "kw"), RUNS)
def test_alone_shares_match_one_at_a_time(
    build: str, seed: int, kw: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBITRE_JIT", build)
    table = random_table(seed, **kw)  # type: ignore[arg-type]
    ix = msight.open_index(table, "open")
    s, g, k = _rows(table, ix, seed, 150)
    got = sight_rows.alone_shares(table, s, g, k, index=ix)
    want = one_at_a_time(table, ix, s, g, k)
    np.testing.assert_array_equal(got, want)
    assert (want < 1.0 - 1e-9).any()  # some piece hides part of some target
    assert (want == 1.0).any()


def test_alone_shares_same_in_both_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    table = random_table(6, models=40, terrain=25, degenerate=True, beam=3.0)
    ix = sight.sight_index(table)
    s, g, k = _rows(table, ix, 11, 100)
    found = []
    for build in BUILDS:
        monkeypatch.setenv("ARBITRE_JIT", build)
        found.append(sight_rows.alone_shares(table, s, g, k, index=ix))
    np.testing.assert_array_equal(found[0], found[1])


def test_alone_shares_empty() -> None:
    table = random_table(3)
    none = np.zeros(0, dtype=np.int64)
    assert sight_rows.alone_shares(table, none, none, none).shape == (0,)


@pytest.mark.parametrize(("seed", "kw"), CASES)
def test_broad_phase_in_numpy_matches_the_kernels_arithmetic(
    seed: int, kw: dict[str, object]
) -> None:
    """The numpy filter of a shooter's rows against the scalar one (the kernel's own
    arithmetic) row by row, bucket edges included (rows placed exactly on them)."""
    from arbitre import backend

    table = random_table(seed, **kw)  # type: ignore[arg-type]
    ix = sight.sight_index(table)
    k = backend.interpreted()
    kind, disc, eoff, edges, bbox = ix.packed
    npieces = len(kind)
    count = np.zeros(k.NBUCKETS, np.int64)
    items = np.empty((k.NBUCKETS, max(npieces, 1)), np.int64)
    dmin = np.empty(max(npieces, 1))
    rng = np.random.default_rng(seed)
    xyr = sight._xyr(table)
    for a in range(min(3, len(xyr))):
        ax, ay = float(xyr[a, 0]), float(xyr[a, 1])
        k._fill_buckets(ax, ay, kind, disc, eoff, edges, bbox, ix.half, count, items, dmin)
        member = sight_rows._members(count, items, npieces)
        t = np.array(xyr)
        # and targets whose tangent angles sit on bucket edges, or the origin inside
        bw = k.TWO_PI / k.NBUCKETS
        for j in range(20):
            phi = -np.pi + bw * rng.integers(0, k.NBUCKETS) + np.arcsin(0.05) + 1e-9
            d = 200.0 * (j + 1) / 20
            t = np.vstack([t, [ax + d * np.cos(phi), ay + d * np.sin(phi), 0.05 * d]])
        t = np.vstack([t, [ax, ay, 10.0], [ax + 3.0, ay, 3.0]])
        for p in range(npieces):
            ps = np.full(len(t), p, dtype=np.int64)
            got = sight_rows._let_in_all(ax, ay, t, member, dmin, ps)
            want = [sight_rows._let_in(ax, ay, t[i], member, dmin, p) for i in range(len(t))]
            assert got.tolist() == want
