"""Benchmark: the exact ``--best`` search of one breath cone over both degrees of freedom
(B2: the apex anywhere on the shooter's rim, the axis anywhere the cone stays off the
base) against dense 2-D sampling of placements, both in this process, on seeded 200-model
tables.

The exact search (:func:`arbitre.rules.breath.best`, the ``breath`` question's
``best=True``, :mod:`arbitre.cone_space`) finds the critical apexes (where two boundary
curves of the cone touching a base cross, turn back, or meet the domain's edge; with
``template_blocked``, where terrain starts or stops shielding a base), takes one slice of
apex between each two, splits its axes at the closed-form critical axes and values one
placement per cell exactly. The baseline (:func:`arbitre.testing.best_by_sampling`)
tries a grid of ``--apexes`` x ``--axes`` placements (numpy, all at once) and rules every
distinct outcome in full; it may miss thin cells, which the last column shows. The
issue-16 input is ``random_table(7, models=200, terrain=45, width=1200, depth=1200)``
with the breath on the model with the most others within reach (target: < 100 ms).
Compilation and caches are warmed first.

Usage: ``python bench/bench_breath.py [--apexes 120] [--axes 60] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
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


def armed(
    seed: int, width: float, blocked: bool, *, models: int = 200, terrain: int = 45
) -> tuple[Table, str]:
    """A seeded table (``models`` models, ``terrain`` pieces, ``width`` square) and its
    breathing model: the one with the most models within 190 mm (its cone's reach). Some
    models are engaged in pairs (B8), Protection 0-2, toise 25 mm (a cone of 150 x 50
    mm)."""
    table = random_table(seed, models=models, terrain=terrain, width=width, depth=width)
    xy = np.array([[m.at.x, m.at.y] for m in table.models])
    near = (np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) < 190).sum(1)
    shooter = int(np.argmax(near))
    models_ = []
    for i, m in enumerate(table.models):
        stats = (("protection", float(i % 3)), ("tir", 2.0), ("hp", 3.0))
        engaged = (table.models[i + 1].id,) if i % 7 == 3 and i + 1 < len(table.models) else ()
        weapons = tuple(Weapon(k, breath=v) for k, v in WEAPONS.items()) if i == shooter else ()
        models_.append(replace(m, stats=stats, engaged=engaged, weapons=weapons))
    return replace(
        table, models=tuple(models_), toise=25.0, options=(("template_blocked", blocked),)
    ), table.models[shooter].id


def timed_cpu(repeats: int, f: Callable[[], T]) -> tuple[float, float, T]:
    """The best wall and CPU (this process) times of ``repeats`` calls of ``f``, and its
    result: on a shared machine the CPU time is what the search itself costs."""
    best, cpu = float("inf"), float("inf")
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        out = f()
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return best, cpu, out


def note(value: Fraction, found: breath.BreathRuling) -> str:
    """Whether sampling found the best value, and by how much it missed."""
    assert found.best is not None
    if value == found.best.value:
        return "yes"
    return f"no: {float(value):.4f} < {float(found.best.value):.4f}"


def row(
    label: str, table: Table, shooter: str, w: str, grid: tuple[int, int], repeats: int
) -> None:
    """Time the exact search (best of ``repeats``) and the baseline, print one row."""
    t_exact, c_exact, found = timed_cpu(repeats, partial(breath.best, table, shooter, w))
    assert found.best is not None and found.search is not None
    t_sample, c_sample, (_, _, value) = timed_cpu(
        1, partial(best_by_sampling, table, shooter, w, *grid)
    )
    assert value <= found.best.value
    blocked = dict(table.options).get("template_blocked", False)
    s = found.search
    print(
        f"{label:>16} {w:>11} {blocked!s:>7} {s.critical:>5} {s.arcs:>6} "
        f"{t_exact * 1e3:>9.1f} {c_exact * 1e3:>7.1f} {t_sample * 1e3:>10.0f} "
        f"{c_sample * 1e3:>7.0f} {t_sample / t_exact:>7.1f}  "
        f"{note(value, found)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--apexes", type=int, default=120, help="apexes the baseline tries")
    parser.add_argument("--axes", type=int, default=60, help="axes per apex it tries")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    grid = (args.apexes, args.axes)
    warm, who = armed(7, 1200.0, True)
    for w in WEAPONS:  # compile the kernels, fill the dice caches
        breath.best(warm, who, w)
    print(
        f"{'table':>16} {'breath':>11} {'blocked':>7} {'crit':>5} {'cells':>6} "
        f"{'exact ms':>9} {'cpu ms':>7} {'sampled ms':>10} {'cpu ms':>7} {'ratio':>7}  "
        "sampling found the best?"
    )
    for label, seed, width in (("issue 16 1.2 m", 7, 1200.0), ("crowded 0.9 m", 2024, 900.0)):
        for blocked in (False, True):
            table, shooter = armed(seed, width, blocked)
            for w in WEAPONS:
                row(label, table, shooter, w, grid, args.repeats)


if __name__ == "__main__":
    main()
