"""Benchmark: how each whole-table question grows with the number of models.

Sweeps seeded tables (``arbitre.testing.random_table``, 45 pieces, 1200 x 1200 mm) of
50, 200 and 1000 models and times, with reasons, every enemy pair's line of sight under
Frostgrave, Dark Age and Mordheim, and every Mordheim shooter's ``targets``. For each
size it prints arbitre's time, the time per pair, the growth from the previous size as
an exponent (time ratio as a power of the model ratio: 2 is quadratic, which every
all-pairs question is at least), and a plain baseline in the same process: a shapely
loop (one LineString per pair, ``dwithin`` per piece and base) on a sample of pairs,
scaled to all pairs (said in the output). A size whose predicted time exceeds
``--budget`` seconds is skipped and says so. Kernels are warmed up first.

Usage: ``python bench/bench_scaling.py [--sizes 50 200 1000] [--budget 60]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from collections.abc import Callable

import numpy as np
import shapely

import arbitre
from arbitre.rules.mordheim import kept
from arbitre.table import Table
from arbitre.testing import random_table


def enemy_pairs(table: Table) -> tuple[tuple[str, str], ...]:
    return tuple(
        (a.id, b.id)
        for a in table.models
        for b in table.models
        if a.id != b.id and a.side != b.side
    )


def los(rules: str) -> Callable[[Table], int]:
    def run(table: Table) -> int:
        pairs = enemy_pairs(table)
        answer = arbitre.ask(table, "los", rules=rules, pairs=pairs)
        return len(answer.rulings)

    return run


def targets(table: Table) -> int:
    n = 0
    for m in table.models:
        ruling = arbitre.ask(table, "targets", rules="mordheim", shooter=m.id).ruling
        n += len(ruling.targets)
    return n


def shapely_loop(table: Table, pairs: list[tuple[str, str]]) -> float:
    """Seconds for the obvious loop over ``pairs``: a LineString per pair, ``dwithin``
    per prepared piece and per other base (no reasons built)."""
    t0 = time.perf_counter()
    half = table.beam / 2
    shapes = [t.footprint.shape() for t in table.terrain]
    for s in shapes:
        shapely.prepare(s)
    where = {m.id: m for m in table.models}
    for a, b in pairs:
        p, q = where[a].at, where[b].at
        line = shapely.LineString([(p.x, p.y), (q.x, q.y)])
        for piece, shape in zip(table.terrain, shapes, strict=True):
            if shapely.dwithin(line, shape, half) and piece.blocks:
                break
        else:
            for m in table.models:
                if m.id not in (a, b) and shapely.dwithin(
                    line, shapely.Point(m.at.x, m.at.y), m.base.radius + half
                ):
                    break
    return time.perf_counter() - t0


QUESTIONS: dict[str, Callable[[Table], int]] = {
    "frostgrave los, every enemy pair": los("frostgrave"),
    "darkage los, every enemy pair": los("darkage"),
    "mordheim los, every enemy pair": los("mordheim"),
    "mordheim targets, every shooter": targets,
}


def timed(run: Callable[[Table], int], table: Table, repeats: int) -> tuple[float, int]:
    """Median seconds of ``repeats`` runs, each on an equal table of another name, so no
    cache keyed by the table (indexes, Mordheim's phase) carries over between runs."""
    times = []
    n = 0
    for i in range(repeats):
        fresh = dataclasses.replace(table, name=f"{table.name} run {i}")
        kept.clear()  # Mordheim's pairs kept by content (a drag's) forgotten: all measured
        t0 = time.perf_counter()
        n = run(fresh)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per run at most")
    parser.add_argument("--sample", type=int, default=2000, help="pairs the baseline runs")
    parser.add_argument("--only", default="", help="run the questions whose name has this")
    args = parser.parse_args()
    warm = random_table(0, models=12, terrain=6)
    for run in QUESTIONS.values():
        run(warm)
    tables = {n: random_table(7, models=n, terrain=45, width=1200, depth=1200) for n in args.sizes}
    header = f"{'models':>6} {'pairs':>8} {'arbitre s':>10} {'us/pair':>8} {'growth':>7}"
    for name, run in QUESTIONS.items():
        if args.only not in name:
            continue
        print(f"\n{name}\n{header} {'baseline s':>11} {'ratio':>7}  note", flush=True)
        last: tuple[int, float] | None = None
        exponent = 2.0
        for n in args.sizes:
            table = tables[n]
            pairs = enemy_pairs(table)
            if last is not None:
                predicted = last[1] * (n / last[0]) ** exponent
                if predicted > args.budget:
                    print(f"{n:>6} {len(pairs):>8}  skipped: predicted {predicted:.0f} s")
                    continue
            repeats = 5 if n <= 200 else 1
            seconds, _ = timed(run, table, repeats)
            growth = ""
            if last is not None:
                exponent = math.log(seconds / last[1]) / math.log(n / last[0])
                growth = f"n^{exponent:.2f}"
            rng = np.random.default_rng(n)
            k = min(args.sample, len(pairs))
            sample = [pairs[i] for i in rng.choice(len(pairs), size=k, replace=False)]
            base = shapely_loop(table, sample) * len(pairs) / max(k, 1)
            note = "baseline scaled from a sample" if k < len(pairs) else ""
            per_pair = 1e6 * seconds / max(len(pairs), 1)
            print(
                f"{n:>6} {len(pairs):>8} {seconds:>10.3f} {per_pair:>8.1f} {growth:>7}"
                f" {base:>11.3f} {base / seconds:>7.1f}  {note}"
            )
            last = (n, seconds)


if __name__ == "__main__":
    main()
