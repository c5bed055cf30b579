"""Benchmark: issue 16's targets for a live table, each against a plain baseline.

On the seeded table ``arbitre.testing.random_table(7, models=200, terrain=45, width=1200,
depth=1200)``, kernels warm, every ruling with its reasons and G8 margin, each question
is timed on equal tables of other names (so no cache keyed by the table carries over,
as on the page where every drag makes a new table), what the M rules keep of each pair
by content forgotten before each run (:mod:`arbitre.rules.mordheim.kept`: a drag's
pairs away from the moved model; ``bench_serve.py`` times those): the median of
``--repeats`` runs.
The baseline is the plain shapely loop of ``bench_scaling.shapely_loop`` (a LineString
per pair, ``dwithin`` per piece and base, no reasons) on the same pairs, in this process.
A question whose one run is predicted over ``--budget`` seconds is run once on a sample
of shooters and scaled (said in the output). Breath ``--best`` and places ``move`` have
their own benchmarks (``bench_breath.py``, ``bench_places.py``).

Usage: ``python bench/bench_targets.py [--models 200] [--repeats 5] [--budget 30]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections.abc import Callable

from bench_scaling import enemy_pairs, shapely_loop

import arbitre
from arbitre.rules.mordheim import kept
from arbitre.table import Table
from arbitre.testing import random_table


def one_shooter(rules: str) -> Callable[[Table], None]:
    def run(table: Table) -> None:
        a = table.models[0]
        pairs = tuple((a.id, b.id) for b in table.models if b.side != a.side)
        arbitre.ask(table, "los", rules=rules, pairs=pairs)

    return run


def every_pair(rules: str) -> Callable[[Table], None]:
    def run(table: Table) -> None:
        arbitre.ask(table, "los", rules=rules, pairs=enemy_pairs(table))

    return run


def targets(shooters: int | None) -> Callable[[Table], None]:
    def run(table: Table) -> None:
        for m in table.models[: shooters or len(table.models)]:
            arbitre.ask(table, "targets", rules="mordheim", shooter=m.id)

    return run


def median_seconds(run: Callable[[Table], None], table: Table, repeats: int) -> float:
    times = []
    for i in range(repeats):
        fresh = dataclasses.replace(table, name=f"bench run {i} {time.perf_counter()}")
        kept.clear()  # Mordheim's pairs kept by content (a drag's) forgotten: all measured
        t0 = time.perf_counter()
        run(fresh)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--budget", type=float, default=30.0)
    args = parser.parse_args()
    warm = random_table(0, models=30, terrain=20)
    for rules in ("frostgrave", "darkage", "mordheim"):
        every_pair(rules)(warm)
    targets(2)(warm)
    table = random_table(7, models=args.models, terrain=45, width=1200, depth=1200)
    everyone = enemy_pairs(table)
    first = table.models[0]
    mine = [(first.id, b.id) for b in table.models if b.side != first.side]
    rows: list[tuple[str, float, Callable[[Table], None], list[tuple[str, str]]]] = [
        ("frostgrave los, one shooter vs every enemy", 0.002, one_shooter("frostgrave"), mine),
        ("darkage los, one observer vs every enemy", 0.010, one_shooter("darkage"), mine),
        ("mordheim targets, one shooter", 0.010, targets(1), mine),
        ("frostgrave los, every enemy pair", 0.030, every_pair("frostgrave"), list(everyone)),
        ("darkage los, every enemy pair", 0.300, every_pair("darkage"), list(everyone)),
        ("mordheim targets, every shooter", 1.0, targets(None), list(everyone)),
    ]
    print(f"{args.models} models, 45 pieces; medians of {args.repeats} runs on fresh tables")
    head = f"{'question':44} {'arbitre':>10} {'target':>8} {'baseline':>10} {'ratio':>7}  note"
    print(head)
    for name, target, run, pairs in rows:
        note = ""
        if name == "mordheim targets, every shooter":
            one = median_seconds(targets(1), table, 1)
            if one * len(table.models) > args.budget:
                k = max(1, int(args.budget / max(one, 1e-9) / 4))
                seconds = median_seconds(targets(k), table, 1) * len(table.models) / k
                note = f"scaled from {k} shooters"
            else:
                seconds = median_seconds(run, table, 1)
        else:
            seconds = median_seconds(run, table, args.repeats)
        base = shapely_loop(table, pairs)
        mark = "met" if seconds <= target else "missed"
        print(
            f"{name:44} {seconds * 1000:>8.1f}ms {target * 1000:>6.0f}ms "
            f"{base * 1000:>8.1f}ms {base / seconds:>7.2f}  {mark} {note}",
            flush=True,
        )


if __name__ == "__main__":
    main()
