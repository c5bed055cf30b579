"""Benchmark: S3 (any clear line, D3) for every ordered pair of enemies.

The exact pinned-line search against dense sampling (segments between 24 points on each
rim, tested with the same compiled crossing test) run in this process on the same seeded
tables. Compilation is excluded (kernels warmed up first). Usage:
``python bench/bench_s3.py [--sizes 50 200] [--terrain 45]``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from arbitre import backend, sight
from arbitre.table import Table
from arbitre.testing import random_table


def enemy_pairs(table: Table) -> list[tuple[str, str]]:
    return [(a.id, b.id) for a in table.models for b in table.models if a.side != b.side]


def exact(table: Table, pairs: list[tuple[str, str]]) -> tuple[float, np.ndarray]:
    best, found = float("inf"), np.zeros(0, bool)
    ix = sight.build_index(table)
    s = np.array([table.model_index(a) for a, _ in pairs])
    g = np.array([table.model_index(b) for _, b in pairs])
    xyr = np.array([[m.at.x, m.at.y, m.base.radius] for m in table.models])
    k = backend.compiled()
    for _ in range(3):
        t0 = time.perf_counter()
        found, _ = k.any_clear_batch(
            xyr[s],
            xyr[g],
            s + ix.n_terrain,
            g + ix.n_terrain,
            np.zeros(len(s), np.int64),
            np.zeros(len(ix.packed[0]), np.int64),
            *ix.packed,
            ix.half,
            False,
            np.full(len(s), -1, np.int64),
        )
        best = min(best, time.perf_counter() - t0)
    return best, found


def sampled(table: Table, pairs: list[tuple[str, str]], rim: int = 24) -> tuple[float, np.ndarray]:
    """Dense sampling: rim x rim segments a pair, each against every piece (early exit)."""
    ix = sight.build_index(table)
    ang = np.linspace(0, 2 * math.pi, rim, endpoint=False)
    ca, sa = np.cos(ang), np.sin(ang)
    ax, ay, bx, by, sk_a, sk_b = [], [], [], [], [], []
    for a_id, b_id in pairs:
        a, b = table.model(a_id), table.model(b_id)
        pa = np.stack([a.at.x + a.base.radius * ca, a.at.y + a.base.radius * sa], 1)
        pb = np.stack([b.at.x + b.base.radius * ca, b.at.y + b.base.radius * sa], 1)
        ax.append(np.repeat(pa[:, 0], rim))
        ay.append(np.repeat(pa[:, 1], rim))
        bx.append(np.tile(pb[:, 0], rim))
        by.append(np.tile(pb[:, 1], rim))
        sk_a.append(np.full(rim * rim, ix.n_terrain + table.model_index(a_id)))
        sk_b.append(np.full(rim * rim, ix.n_terrain + table.model_index(b_id)))
    arrays = [np.concatenate(v) for v in (ax, ay, bx, by)]
    skips = [np.concatenate(v).astype(np.int64) for v in (sk_a, sk_b)]
    k = backend.compiled()
    t0 = time.perf_counter()
    _, _, _, first = k.centre_lines(
        *arrays,
        *skips,
        *ix.packed,
        ix.mask(ix.blocks | True),
        ix.half,
        False,
        True,
    )
    elapsed = time.perf_counter() - t0
    return elapsed, (first < 0).reshape(len(pairs), rim * rim).any(axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--terrain", type=int, default=45)
    args = parser.parse_args()
    warm = random_table(0, models=8, terrain=4)
    exact(warm, enemy_pairs(warm))
    sampled(warm, enemy_pairs(warm)[:4])
    print(
        f"{'models':>6} {'pairs':>7} {'exact us/pair':>14} {'sampling us/pair':>17} "
        f"{'ratio':>6} {'visible':>8} {'sampling misses':>16}"
    )
    for n in args.sizes:
        table = random_table(2000 + n, models=n, terrain=args.terrain)
        pairs = enemy_pairs(table)
        t_exact, found = exact(table, pairs)
        sub = pairs[: min(len(pairs), 2000)]
        t_samp, samp = sampled(table, sub)
        assert not (samp & ~found[: len(sub)]).any(), "sampling found a line S3 missed"
        per_exact = t_exact / len(pairs) * 1e6
        per_samp = t_samp / len(sub) * 1e6
        misses = int((found[: len(sub)] & ~samp).sum())
        print(
            f"{n:>6} {len(pairs):>7} {per_exact:>14.1f} {per_samp:>17.1f} "
            f"{per_samp / per_exact:>6.1f} {found.mean():>8.1%} {misses:>16}"
        )


if __name__ == "__main__":
    main()
