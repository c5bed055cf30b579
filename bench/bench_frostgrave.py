"""Benchmark: issue 16's two Frostgrave rows of ``bench_targets.py``, alone (a quicker loop).

The same method as ``bench_targets.py``: on ``arbitre.testing.random_table(7, models=200,
terrain=45, width=1200, depth=1200)``, kernels warm, every ruling with its reasons and G8
margin, each question timed on equal tables of other names (no cache keyed by the table
carries over): the median of ``--repeats`` runs after one untimed, against the plain
shapely loop of ``bench_scaling.shapely_loop`` on the same pairs, in this process.

A third row, ``drag``, times the one-shooter question as the page asks it: each run on
a table where one other model has moved a little (so what depends on that model's base
is measured again, what depends on the terrain and the other bases is found cached).

Usage: ``python bench/bench_frostgrave.py [--models 200] [--repeats 5] [--only one|every|drag]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_scaling import enemy_pairs, shapely_loop
from bench_targets import every_pair, one_shooter, timed

import arbitre
from arbitre.geometry import Point
from arbitre.table import Table
from arbitre.testing import random_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=("one", "every", "drag"), default=None)
    args = parser.parse_args()
    warm = random_table(0, models=30, terrain=20)
    every_pair("frostgrave")(warm)
    table = random_table(7, models=args.models, terrain=45, width=1200, depth=1200)
    everyone = list(enemy_pairs(table))
    first = table.models[0]
    mine = [(first.id, b.id) for b in table.models if b.side != first.side]
    rows = [
        ("one", "frostgrave los, one shooter vs every enemy", 0.002, one_shooter, mine),
        ("every", "frostgrave los, every enemy pair", 0.030, every_pair, everyone),
    ]
    print(
        f"{args.models} models, 45 pieces; medians of {args.repeats} runs on fresh tables "
        "(one untimed first)"
    )
    print(f"{'question':44} {'arbitre':>10} {'target':>8} {'baseline':>10} {'ratio':>7}")
    for key, name, target, make, pairs in rows:
        if args.only not in (None, key):
            continue
        seconds, _ = timed(make("frostgrave"), table, args.repeats)
        base = shapely_loop(table, pairs)
        mark = "met" if seconds <= target else "missed"
        print(
            f"{name:44} {seconds * 1000:>8.1f}ms {target * 1000:>6.0f}ms "
            f"{base * 1000:>8.1f}ms {base / seconds:>7.2f}  {mark}",
            flush=True,
        )
    if args.only in (None, "drag"):
        seconds = dragged(table, args.repeats)
        base = shapely_loop(table, mine)
        name = "frostgrave los, one shooter, one model dragged"
        print(
            f"{name:44} {seconds * 1000:>8.1f}ms {2:>6.0f}ms {base * 1000:>8.1f}ms "
            f"{base / seconds:>7.2f}",
            flush=True,
        )


def dragged(table: Table, repeats: int) -> float:
    """The median of ``repeats`` one-shooter asks, each after another model moved by a
    fraction of a millimetre more (a drag on the page)."""
    first = table.models[0]
    pairs = tuple((first.id, b.id) for b in table.models if b.side != first.side)
    mover = table.models[5]
    times = []
    for i in range(repeats):
        moved = table.moved(mover.id, Point(mover.at.x + 0.37 * (i + 1), mover.at.y))
        t0 = time.perf_counter()
        arbitre.ask(moved, "los", rules="frostgrave", pairs=pairs)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


if __name__ == "__main__":
    main()
