"""Dark Age ``los`` with its reasons and margins (D3-D4, G4, G8, M12) on a crowded table,
against a plain shapely loop over the same pairs (issue 16: one observer against every
enemy < 10 ms, every enemy pair < 300 ms at 200 models and 45 pieces, kernels warm).

The baseline, per pair: the window (the hull of the two bases), the pieces of the
target's size or larger reaching into it (each grown by half the beam), and the clear
line sought among 12 x 12 segments between the two rims against their union: a plain
geometric loop (the pieces grown once per table), cruder than the exact S3. Medians of
``--runs`` runs on fresh tables (equal tables of other names, so no cache keyed by the
table carries over), and one observer after a drag (one model moved each run, as on
the page: caches kept by content see a new table); the baseline of every pair is timed
on a sample and scaled.
Usage: ``python bench/bench_darkage.py [--models 200] [--runs 5] [--baseline-pairs 400]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np
import shapely

from arbitre import sight
from arbitre.geometry import Point
from arbitre.rules import darkage
from arbitre.table import Table
from arbitre.testing import random_table

#: The median CPU time (this process, every thread) of the last :func:`_median`: on a
#: loaded machine the wall time also counts the waits for a core.
CPU: list[float] = [0.0]


def _median(f: Callable[[Table], object], table: Table, runs: int) -> float:
    """The median time of ``f`` on equal tables of other names: no cache keyed by the
    table carries over (as on the page, where every drag makes a new table)."""
    times, cpu = [], []
    for i in range(runs):
        fresh = dataclasses.replace(table, name=f"bench run {i} {time.perf_counter()}")
        t0, c0 = time.perf_counter(), time.process_time()
        f(fresh)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    CPU[0] = statistics.median(cpu)
    return statistics.median(times)


def _dragged(f: Callable[[Table], object], table: Table, runs: int) -> float:
    """The median time of ``f`` after a drag: each run on a copy with one more model
    moved by 1 mm (a different one each time), as the page re-rules while a model is
    dragged, so caches kept by content see the table the drag made."""
    times = []
    for i in range(runs):
        k = (7 * i + 3) % len(table.models)
        moved = tuple(
            dataclasses.replace(m, at=Point(m.at.x + 1.0 + i, m.at.y)) if j == k else m
            for j, m in enumerate(table.models)
        )
        fresh = dataclasses.replace(table, models=moved, name=f"drag {i} {time.perf_counter()}")
        t0 = time.perf_counter()
        f(fresh)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def baseline(table: Table, pairs: Sequence[tuple[str, str]]) -> list[bool]:
    """The plain shapely loop: for each pair, the window, the pieces in it, and 144
    segments between the rims tested against their union."""
    half = table.beam / 2
    shapes = {t.id: t.footprint.shape() for t in table.terrain}
    shapes |= {m.id: sight.base_shape(m) for m in table.models}
    grown = {k: v.buffer(half) for k, v in shapes.items()}  # once for the table
    sizes = {t.id: table.size_rank(t.size) for t in table.terrain}
    sizes |= {m.id: table.size_rank(m.size) for m in table.models}
    ang = np.linspace(0, 2 * math.pi, 12, endpoint=False)
    out = []
    for a, b in pairs:
        ma, mb = table.model(a), table.model(b)
        hull = shapely.convex_hull(shapely.union(shapes[a], shapes[b]))
        need = table.size_rank(mb.size)
        inside = [
            grown[k]
            for k in shapes
            if k not in (a, b) and sizes[k] >= need and hull.intersects(grown[k])
        ]
        pa = [
            (ma.at.x + ma.base.radius * math.cos(t), ma.at.y + ma.base.radius * math.sin(t))
            for t in ang
        ]
        pb = [
            (mb.at.x + mb.base.radius * math.cos(t), mb.at.y + mb.base.radius * math.sin(t))
            for t in ang
        ]
        segs = shapely.linestrings([[p, q] for p in pa for q in pb])
        wall = shapely.union_all(inside) if inside else None
        out.append(True if wall is None else bool((~shapely.intersects(segs, wall)).any()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=200)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline-pairs", type=int, default=400)
    args = ap.parse_args()
    table = random_table(7, models=args.models, terrain=45, width=1200, depth=1200)
    ids = [m.id for m in table.models]
    sides = {m.id: m.side for m in table.models}
    every = [(a, b) for a in ids for b in ids if sides[a] != sides[b]]
    one = [(a, b) for a, b in every if a == ids[0]]
    darkage.rulings(random_table(1, models=30, terrain=8), [("m0", "m1")])  # warm
    darkage.rulings(table, every[:50])
    t_one = _median(lambda t: darkage.rulings(t, one), table, args.runs)
    c_one = CPU[0]
    t_drag = _dragged(lambda t: darkage.rulings(t, one), table, args.runs)
    t_all = _median(lambda t: darkage.rulings(t, every), table, max(1, args.runs // 2))
    c_all = CPU[0]
    t_sight = _median(lambda t: darkage.in_sight(t, every), table, args.runs)
    some = every[:: max(1, len(every) // args.baseline_pairs)]
    t_base = _median(lambda t: baseline(t, some), table, 1) * len(every) / len(some)
    t_base_one = _median(lambda t: baseline(t, one), table, 1)
    print(f"{args.models} models, 45 pieces, {len(every)} enemy pairs, kernels warm")
    print(
        f"one observer, {len(one)} enemies, with reasons:  {t_one * 1e3:9.1f} ms"
        f"  (CPU {c_one * 1e3:.1f} ms)"
    )
    print(f"  after a drag (one model moved):       {t_drag * 1e3:9.1f} ms")
    print(
        f"  shapely loop:                         {t_base_one * 1e3:9.1f} ms"
        f"  ratio {t_base_one / t_one:6.1f}x"
    )
    print(
        f"every enemy pair, with reasons:         {t_all * 1e3:9.1f} ms  (CPU {c_all * 1e3:.1f} ms)"
    )
    print(f"  visible only (in_sight):              {t_sight * 1e3:9.1f} ms")
    print(
        f"  shapely loop (from {len(some)} pairs):      {t_base * 1e3:9.1f} ms"
        f"  ratio {t_base / t_all:6.1f}x"
    )


if __name__ == "__main__":
    main()
