"""Benchmark: the all-pairs Frostgrave matrix (F1-F7) against a plain shapely loop.

Both run in this process on the same seeded tables (about 45 terrain pieces). The
shapely loop makes one LineString per ordered pair and asks ``dwithin`` of every piece
(prepared) and every other base; on large tables it runs on a random sample of pairs and
its time is scaled to all pairs (said in the output). Compilation is excluded: the
kernels are warmed up first. Usage: ``python bench/bench_los.py [--sizes 50 200 1000]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import shapely

from arbitre import sight
from arbitre.rules import frostgrave
from arbitre.table import Table
from arbitre.testing import random_table


def ours(table: Table, repeats: int) -> tuple[float, frostgrave.FrostgraveMatrix]:
    best = float("inf")
    grid = None
    for _ in range(repeats):
        sight.sight_index.cache_clear()  # the packing is part of the work
        t0 = time.perf_counter()
        grid = frostgrave.matrix(table)
        best = min(best, time.perf_counter() - t0)
    assert grid is not None
    return best, grid


def shapely_loop(
    table: Table, pairs: list[tuple[int, int]]
) -> tuple[float, list[tuple[bool, int]]]:
    """The obvious way: a LineString per pair, dwithin per piece."""
    t0 = time.perf_counter()
    half = table.beam / 2
    terrain = [t.footprint.shape() for t in table.terrain]
    for shape in terrain:
        shapely.prepare(shape)
    bases = [(shapely.Point(m.at.x, m.at.y), m.base.radius + half) for m in table.models]
    touch = sight.touching(table)
    results = []
    for s, g in pairs:
        a, b = table.models[s].at, table.models[g].at
        line = shapely.LineString([(a.x, a.y), (b.x, b.y)])
        blocked = False
        cover = 0
        for k, (piece, shape) in enumerate(zip(table.terrain, terrain, strict=True)):
            if shapely.dwithin(line, shape, half):
                if piece.blocks:
                    blocked = True
                    break
                cover += 3 if touch[g, k] else 1
        if not blocked:
            for j, (centre, reach) in enumerate(bases):
                if j not in (s, g) and shapely.dwithin(line, centre, reach):
                    blocked = True
                    break
        results.append((not blocked, 0 if blocked else cover))
    return time.perf_counter() - t0, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--terrain", type=int, default=45)
    parser.add_argument("--sample", type=int, default=3000, help="pairs the shapely loop runs")
    args = parser.parse_args()
    frostgrave.matrix(random_table(0, models=8, terrain=4))  # compile / load the kernels
    print(f"{'models':>6} {'pairs':>8} {'arbitre ms':>11} {'shapely s':>10} {'ratio':>8}  note")
    for n in args.sizes:
        table = random_table(1000 + n, models=n, terrain=args.terrain, degenerate=False)
        t_ours, grid = ours(table, repeats=7 if n <= 200 else 3)
        everything = [(s, g) for s in range(n) for g in range(n) if s != g]
        rng = np.random.default_rng(n)
        if len(everything) > args.sample:
            picked = [
                everything[i] for i in rng.choice(len(everything), args.sample, replace=False)
            ]
        else:
            picked = everything
        t_loop, results = shapely_loop(table, picked)
        scaled = t_loop * len(everything) / len(picked)
        for (s, g), (vis, _cover) in zip(picked, results, strict=True):
            assert bool(grid.visible[s, g]) == vis or _near_window(table, s, g), (s, g)
        note = (
            "" if len(picked) == len(everything) else f"loop timed on {len(picked)} pairs, scaled"
        )
        print(
            f"{n:>6} {len(everything):>8} {t_ours * 1e3:>11.2f} {scaled:>10.2f} "
            f"{scaled / t_ours:>8.0f}  {note}"
        )


def _near_window(table: Table, s: int, g: int) -> bool:
    contacts = frostgrave.window_contacts(table)
    return table.models[s].id in contacts or table.models[g].id in contacts


if __name__ == "__main__":
    main()
