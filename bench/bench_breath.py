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

Then the same on 2,000-model tables (issue 17): *packed*, 2,000 overlapping bases on
0.4 m x 0.4 m (about 1,200 within reach of the central model's cone, 150 in it), and
*spread*, on 0.7 m x 0.7 m; the exact search's peak memory (tracemalloc, in a run of its
own) is printed too, and the baseline rules ``--big-samples`` aims.
Usage: ``python bench/bench_breath.py [--samples 720] [--repeats 5] [--big-samples 180]``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
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
    width: float | None, blocked: bool, *, models: int = 200, terrain: int = 45
) -> tuple[Table, str]:
    """A seeded table (``models`` models, ``terrain`` pieces) and its breathing model: the
    one with the most models within reach of its cone (the most central one on a
    2,000-model table). Some models are engaged in pairs (B8), Protection 0-2, toise 25
    mm (a cone of 150 x 50 mm)."""
    table = random_table(2024, models=models, terrain=terrain, width=width)
    xy = np.array([[m.at.x, m.at.y] for m in table.models])
    if models > 500:
        shooter = int(np.argmin(np.hypot(*(xy - xy.mean(axis=0)).T)))
    else:
        near = (np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) < 180).sum(1)
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


def timed(repeats: int, f: Callable[[], T]) -> tuple[float, T]:
    """The best time of ``repeats`` calls of ``f``, and its result."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def peak_mib(f: Callable[[], object]) -> float:
    """The peak memory (MiB) Python and numpy allocate while ``f`` runs."""
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def note(value: Fraction, found: breath.BreathRuling) -> str:
    """Whether sampling found the best value, and by how much it missed."""
    assert found.best is not None
    if value == found.best.value:
        return "yes"
    return (
        f"no: {float(value):.4f} < {float(found.best.value):.4f} (best arc "
        f"{found.best.width:.2f} deg wide)"
    )


def row(
    label: str, table: Table, shooter: str, w: str, samples: int, repeats: int, big: bool
) -> None:
    """Time the exact search (best of ``repeats``) and the baseline, print one row."""
    t_exact, found = timed(repeats, partial(breath.best, table, shooter, w))
    assert found.best is not None and found.search is not None
    peak = f"{peak_mib(partial(breath.best, table, shooter, w)):>7.0f}" if big else " " * 7
    t_sample, (_, value) = timed(1, partial(best_by_sampling, table, shooter, w, samples))
    assert value <= found.best.value
    blocked = dict(table.options).get("template_blocked", False)
    print(
        f"{label:>18} {w:>11} {blocked!s:>7} {found.search.arcs:>5} "
        f"{t_exact * 1e3:>9.1f} {peak} {t_sample:>9.2f} {t_sample / t_exact:>7.1f}  "
        f"{note(value, found)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=720, help="aims the baseline rules")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--big-samples", type=int, default=180, help="aims the baseline rules, 2,000 models"
    )
    args = parser.parse_args()
    warm, who = armed(900.0, True)
    for w in WEAPONS:  # compile the kernels, fill the dice caches
        breath.best(warm, who, w)
    print(
        f"{'table':>18} {'breath':>11} {'blocked':>7} {'arcs':>5} {'exact ms':>9} "
        f"{'peak MiB':>7} {'sampled s':>9} {'ratio':>7}  sampling found the best?"
    )
    for label, width in (("sparse 2.5 m", None), ("crowded 0.9 m", 900.0)):
        for blocked in (False, True):
            table, shooter = armed(width, blocked)
            for w in WEAPONS:
                row(label, table, shooter, w, args.samples, args.repeats, big=False)
    for label, width in (("2,000 packed 0.4 m", 400.0), ("2,000 spread 0.7 m", 700.0)):
        table, shooter = armed(width, False, models=2000, terrain=10)
        for w in WEAPONS:
            row(label, table, shooter, w, args.big_samples, 1, big=True)


if __name__ == "__main__":
    main()
