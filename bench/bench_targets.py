"""Benchmark: issue 16's targets for a live table, each against a plain baseline.

On the seeded table ``arbitre.testing.random_table(7, models=200, terrain=45, width=1200,
depth=1200)``, kernels warm, every ruling with its reasons and G8 margin, each question
is timed on equal tables of other names (so no cache keyed by the table carries over,
as on the page where every drag makes a new table), what the M rules keep of each pair
by content forgotten before each run (:mod:`arbitre.rules.mordheim.kept`: a drag's
pairs away from the moved model; ``bench_serve.py`` times those): the median and the
least of ``--repeats`` runs (``--every-repeats`` for the whole-table rows), after one
run untimed on another name, as a live table has built what rests on its terrain (the
sight indexes) when it is first ruled. The rows "a model dragged" move another model
a little before each run instead (what rests on its base is measured again), as the page
re-rules while a model is dragged.
The baseline is the plain shapely loop of ``bench_scaling.shapely_loop`` (a LineString
per pair, ``dwithin`` per piece and base, no reasons) on the same pairs, in this process.
A question whose one run is predicted over ``--budget`` seconds is run once on a sample
of shooters and scaled (said in the output). Breath ``--best`` and places ``move`` have
their own benchmarks (``bench_breath.py``, ``bench_places.py``).

Usage: ``python bench/bench_targets.py [--models 200] [--repeats 11] [--every-repeats 3]
[--budget 30] [--only TEXT]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections.abc import Callable

from bench_scaling import enemy_pairs, shapely_loop

import arbitre
from arbitre.geometry import Point
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


def timed(run: Callable[[Table], None], table: Table, repeats: int) -> tuple[float, float]:
    """The median and least seconds of ``repeats`` runs, each on a renamed table, after
    one run untimed (on another name)."""
    times = []
    for i in range(-1, repeats):
        fresh = dataclasses.replace(table, name=f"bench run {i} {time.perf_counter()}")
        kept.clear()  # Mordheim's pairs kept by content (a drag's) forgotten: all measured
        t0 = time.perf_counter()
        run(fresh)
        if i >= 0:
            times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def once(run: Callable[[Table], None], table: Table) -> float:
    """The seconds of one run on a renamed table, nothing run before."""
    fresh = dataclasses.replace(table, name=f"bench once {time.perf_counter()}")
    kept.clear()
    t0 = time.perf_counter()
    run(fresh)
    return time.perf_counter() - t0


def dragged(run: Callable[[Table], None], table: Table, repeats: int) -> tuple[float, float]:
    """The median and least seconds of ``repeats`` runs, each after another model (not
    the first, the shooter) moved a fraction of a millimetre more: a drag on the page,
    what rests on the moved base measured again (one run untimed first)."""
    mover = table.models[5]
    times = []
    for i in range(-1, repeats):
        moved = table.moved(mover.id, Point(mover.at.x + 0.37 * (i + 2), mover.at.y))
        kept.clear()
        t0 = time.perf_counter()
        run(moved)
        if i >= 0:
            times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--every-repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=30.0)
    parser.add_argument("--only", help="run only the rows whose question holds this text")
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
        ("frostgrave los, one shooter, a model dragged", 0.002, one_shooter("frostgrave"), mine),
        ("darkage los, one observer, a model dragged", 0.010, one_shooter("darkage"), mine),
        ("mordheim targets, one shooter, a model dragged", 0.010, targets(1), mine),
        ("frostgrave los, every enemy pair", 0.030, every_pair("frostgrave"), list(everyone)),
        ("darkage los, every enemy pair", 0.300, every_pair("darkage"), list(everyone)),
        ("mordheim targets, every shooter", 1.0, targets(None), list(everyone)),
    ]
    print(
        f"{args.models} models, 45 pieces; median and least of {args.repeats} runs "
        f"({args.every_repeats} for a whole table) on fresh tables, after one untimed"
    )
    head = (
        f"{'question':48} {'median':>10} {'least':>10} {'target':>8} {'baseline':>10} "
        f"{'ratio':>7}  note"
    )
    print(head)
    for name, target, run, pairs in rows:
        if args.only and args.only not in name:
            continue
        note = ""
        if name == "mordheim targets, every shooter":
            # every shooter is new to the run: no untimed run first (the table's sight
            # indexes are built by the rows above)
            one = once(targets(1), table)
            if one * len(table.models) > args.budget:
                k = max(1, int(args.budget / max(one, 1e-9) / 4))
                seconds = once(targets(k), table) * len(table.models) / k
                note = f"scaled from {k} shooters, one run"
            else:
                seconds = once(run, table)
                note = "one run"
            least = seconds
        elif name.endswith("a model dragged"):
            seconds, least = dragged(run, table, args.repeats)
        else:
            whole = name.endswith("every enemy pair")
            seconds, least = timed(run, table, args.every_repeats if whole else args.repeats)
        base = shapely_loop(table, pairs)
        mark = "met" if seconds <= target else "missed"
        print(
            f"{name:48} {seconds * 1000:>8.1f}ms {least * 1000:>8.1f}ms {target * 1000:>6.0f}ms "
            f"{base * 1000:>8.1f}ms {base / seconds:>7.2f}  {mark} {note}",
            flush=True,
        )


if __name__ == "__main__":
    main()
