"""Benchmark: the exact 360-degree ``--best`` search of one breath cone (B1-B8) against
dense sampling of aims, both in this process, on seeded 200-model tables.

The exact search (:func:`arbitre.rules.breath.best`, the ``breath`` question's
``best=True``) enumerates the critical aims where a
base enters or leaves the cone (and, for an impacting breath, where the B7 order changes;
with ``template_blocked``, where terrain starts or stops shielding a base) and values one
aim per arc exactly. The baseline (:func:`arbitre.testing.best_by_sampling`) rules
``--samples`` evenly spaced aims in full (as a user would with ``--angle`` in a loop) and
keeps the best; it may miss narrow arcs, which
the last column shows. Compilation and caches are warmed first.
Usage: ``python bench/bench_breath.py [--samples 720] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TypeVar

import numpy as np

from arbitre.rules import breath
from arbitre.table import Table, Weapon
from arbitre.testing import best_by_sampling, random_table

T = TypeVar("T")

WEAPONS = {
    "enveloping": "Souffle englobant (acide • puissance 5/2)",
    "impacting": "Souffle percutant (mitraille • puissance 4/1)",
}


def armed(width: float | None, blocked: bool) -> tuple[Table, str]:
    """A seeded 200-model table (45 terrain pieces) and its breathing model: the one with
    the most models within reach of its cone. Some models are engaged in pairs (B8),
    Protection 0-2, toise 25 mm (a cone of 150 x 50 mm)."""
    table = random_table(2024, models=200, terrain=45, width=width)
    xy = np.array([[m.at.x, m.at.y] for m in table.models])
    near = (np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) < 180).sum(1)
    shooter = int(np.argmax(near))
    models = []
    for i, m in enumerate(table.models):
        stats = (("protection", float(i % 3)), ("tir", 2.0), ("hp", 3.0))
        engaged = (table.models[i + 1].id,) if i % 7 == 3 and i + 1 < len(table.models) else ()
        weapons = tuple(Weapon(k, breath=v) for k, v in WEAPONS.items()) if i == shooter else ()
        models.append(replace(m, stats=stats, engaged=engaged, weapons=weapons))
    return replace(
        table, models=tuple(models), toise=25.0, options=(("template_blocked", blocked),)
    ), table.models[shooter].id


def timed(repeats: int, f: Callable[[], T]) -> tuple[float, T]:
    """The best time of ``repeats`` calls of ``f``, and its result."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=720, help="aims the baseline rules")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    warm, who = armed(900.0, True)
    for w in WEAPONS:  # compile the kernels, fill the dice caches
        breath.best(warm, who, w)
    print(
        f"{'table':>14} {'breath':>11} {'blocked':>7} {'arcs':>5} {'exact ms':>9} "
        f"{'sampled s':>9} {'ratio':>7}  sampling ({args.samples} aims) found the best?"
    )
    for label, width in (("sparse 2.5 m", None), ("crowded 0.9 m", 900.0)):
        for blocked in (False, True):
            table, shooter = armed(width, blocked)
            for w in WEAPONS:
                t_exact, found = timed(args.repeats, partial(breath.best, table, shooter, w))
                assert found.best is not None and found.search is not None
                t_sample, (_, value) = timed(
                    1, partial(best_by_sampling, table, shooter, w, args.samples)
                )
                assert value <= found.best.value
                note = (
                    "yes"
                    if value == found.best.value
                    else (
                        f"no: {float(value):.3f} < {float(found.best.value):.3f} (best arc "
                        f"{found.best.width:.2f} deg wide)"
                    )
                )
                print(
                    f"{label:>14} {w:>11} {blocked!s:>7} {found.search.arcs:>5} "
                    f"{t_exact * 1e3:>9.1f} {t_sample:>9.2f} {t_sample / t_exact:>7.0f}  {note}"
                )


if __name__ == "__main__":
    main()
