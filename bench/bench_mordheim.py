"""Benchmark: Mordheim ``targets`` (M1-M12, G8 margins, with reasons) against a shapely loop.

On seeded ``random_table(7, models=N, terrain=45, width=1200, depth=1200)`` tables,
kernels warm, it times ``targets`` for one shooter and for a sample of shooters (scaled
to every shooter, said in the output), the sight facts alone (:func:`measure` without
the margins is not separable: its share is printed from a profile-free split), and a
plain baseline in the same process: for every enemy pair a cone polygon (shooter's
centre, target's base) and ``intersects`` of every piece grown by the beam (prepared),
the pieces that may hide the target. ``--fresh`` rules each call on a fresh table of
another name, as the page does (every drag makes a new table: the caches kept per table
miss, the ones kept per terrain and per base do not), and prints the median of the
calls, CPU time as well. Usage: ``python bench/bench_mordheim.py [--sizes 50 200]
[--shooters 10] [--fresh]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import replace

import shapely

from arbitre import sight
from arbitre.rules import ask
from arbitre.rules.mordheim import kept, margins, rule_targets
from arbitre.table import Table
from arbitre.testing import random_table


def armed(table: Table) -> Table:
    """Every model a shooter: BS 4, a 24 in bow (M6, M7)."""
    from dataclasses import replace

    from arbitre.table import Weapon

    bow = (Weapon("Bow", 24 * 25.4),)
    models = tuple(replace(m, stats=(("bs", 4),), weapons=bow) for m in table.models)
    return replace(table, models=models)


def ours(table: Table, shooters: list[str]) -> float:
    """Seconds for ``targets`` of each shooter, caches of the table kept (warm)."""
    rule_targets.cache_clear()  # rulings are cached per table: time the work
    t0 = time.perf_counter()
    for s in shooters:
        ask(table, "targets", rules="mordheim", shooter=s)
    return time.perf_counter() - t0


def fresh(table: Table, shooters: list[str], runs: int = 3) -> tuple[float, float]:
    """Median seconds (wall, CPU) of ``targets`` of each shooter, each on a fresh table
    of another name (the page: a new table every drag)."""
    walls, cpus = [], []
    for i in range(runs):
        for s in shooters:
            new = replace(table, name=f"{table.name}~{i}~{s}")
            kept.clear()  # the pairs a drag keeps (same content) forgotten: all measured
            t0, c0 = time.perf_counter(), time.process_time()
            ask(new, "targets", rules="mordheim", shooter=s)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def baseline(table: Table, shooters: list[str]) -> float:
    """The plain way: per pair, a cone polygon and ``intersects`` with every piece."""
    t0 = time.perf_counter()
    half = table.beam / 2
    grown = [t.footprint.shape().buffer(half) for t in table.terrain]
    grown += [shapely.Point(m.at.x, m.at.y).buffer(m.base.radius + half, 16) for m in table.models]
    for g in grown:
        shapely.prepare(g)
    for sid in shooters:
        s = table.model(sid)
        for e in table.models:
            if e.side == s.side:
                continue
            v = margins.view(s.at.x, s.at.y, e.at.x, e.at.y, e.base.radius, 16)
            [k for k, g in enumerate(grown) if shapely.intersects(v.region, g)]
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--shooters", type=int, default=10, help="shooters timed per size")
    parser.add_argument(
        "--fresh", action="store_true", help="each call on a fresh table (as the page)"
    )
    args = parser.parse_args()
    warm = armed(random_table(1, models=20, terrain=10, width=600, depth=600))
    ours(warm, [m.id for m in warm.models[:3]])  # compile or load the kernels
    for n in args.sizes:
        table = armed(random_table(7, models=n, terrain=45, width=1200, depth=1200))
        ids = [m.id for m in table.models]
        sample = random.Random(n).sample(ids, min(args.shooters, n))
        sight.sight_index(table)
        ours(table, sample[:1])  # the table's caches (index, prepared shapes)
        if args.fresh:
            wall, cpu = fresh(table, sample)
            base = baseline(table, sample) / len(sample)
            print(
                f"{n} models, 45 pieces, a fresh table each call: one shooter {wall * 1e3:.1f} "
                f"ms (median, CPU {cpu * 1e3:.1f} ms); every shooter {wall * n:.2f} s "
                f"(scaled); shapely loop of the hiding pieces {base * 1e3:.1f} ms a shooter; "
                f"ratio {base / wall:.2f}"
            )
            continue
        one = ours(table, sample[1:2] or sample[:1])
        some = ours(table, sample)
        base = baseline(table, sample)
        scale = n / len(sample)
        print(
            f"{n} models, 45 pieces: one shooter {one * 1e3:.1f} ms; every shooter "
            f"{some * scale:.2f} s (from {len(sample)}, scaled); shapely loop of the "
            f"hiding pieces {base * scale:.2f} s; ratio {base / some:.2f}"
        )


if __name__ == "__main__":
    main()
