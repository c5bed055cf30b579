"""Benchmark: issue 16's two Frostgrave rows of ``bench_targets.py``, alone (a quicker loop).

The same method as ``bench_targets.py``: on ``arbitre.testing.random_table(7, models=200,
terrain=45, width=1200, depth=1200)``, kernels warm, every ruling with its reasons and G8
margin, each question timed on equal tables of other names (no cache keyed by the table
carries over): the median of ``--repeats`` runs, against the plain shapely loop of
``bench_scaling.shapely_loop`` on the same pairs, in this process.

Usage: ``python bench/bench_frostgrave.py [--models 200] [--repeats 5] [--only one|every]``.
"""

from __future__ import annotations

import argparse

from bench_scaling import enemy_pairs, shapely_loop
from bench_targets import every_pair, median_seconds, one_shooter

from arbitre.testing import random_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=("one", "every"), default=None)
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
    print(f"{args.models} models, 45 pieces; medians of {args.repeats} runs on fresh tables")
    print(f"{'question':44} {'arbitre':>10} {'target':>8} {'baseline':>10} {'ratio':>7}")
    for key, name, target, make, pairs in rows:
        if args.only not in (None, key):
            continue
        seconds = median_seconds(make("frostgrave"), table, args.repeats)
        base = shapely_loop(table, pairs)
        mark = "met" if seconds <= target else "missed"
        print(
            f"{name:44} {seconds * 1000:>8.1f}ms {target * 1000:>6.0f}ms "
            f"{base * 1000:>8.1f}ms {base / seconds:>7.2f}  {mark}",
            flush=True,
        )


if __name__ == "__main__":
    main()
