"""Benchmark: one polygon of many corners (issue 17), every line of sight of six models
around it under Frostgrave, Dark Age and Mordheim, and Mordheim's targets of each.

Arbitre's automatic choice of kernels (``ARBITRE_JIT=auto``: the work now counts a
polygon's edges, so this table runs compiled, loading numba included) against the
interpreted kernels, which the old count (pieces, not edges) chose for it; both in this
process, interpreted first so that the automatic run pays numba's loading. Usage:
``python bench/bench_big_polygon.py [--corners 500] [--skip-interpreted]``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

import arbitre
from arbitre.geometry import Point, PolygonFootprint
from arbitre.table import Model, Table, Terrain


def polygon_table(corners: int, seed: int = 0) -> Table:
    """A jagged star of ``corners`` corners (radius 120 to 200 mm) and six models around."""
    rng = np.random.default_rng(seed)
    angles = np.sort(rng.uniform(0, 2 * math.pi, corners))
    radii = rng.uniform(0.6, 1.0, corners) * 200
    ring = tuple(
        Point(500 + r * math.cos(a), 500 + r * math.sin(a))
        for a, r in zip(angles, radii, strict=True)
    )
    models = tuple(
        Model(
            f"m{i}",
            "ab"[i % 2],
            Point(500 + 350 * math.cos(math.pi * i / 3), 500 + 350 * math.sin(math.pi * i / 3)),
        )
        for i in range(6)
    )
    return Table(1000, 1000, terrain=(Terrain("p", PolygonFootprint(ring)),), models=models)


def run(table: Table) -> float:
    t0 = time.perf_counter()
    for rules in ("frostgrave", "darkage", "mordheim"):
        arbitre.ask(table, "los", rules=rules)
    for m in table.models:
        arbitre.ask(table, "targets", shooter=m.id)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corners", type=int, default=500)
    parser.add_argument("--skip-interpreted", action="store_true")
    args = parser.parse_args()
    table = polygon_table(args.corners)
    base = math.nan
    if not args.skip_interpreted:
        os.environ["ARBITRE_JIT"] = "never"
        base = run(table)
    os.environ["ARBITRE_JIT"] = "auto"
    ours = run(table)
    build = "compiled" if "arbitre.kernels" in sys.modules else "interpreted"
    print(f"{args.corners} corners: arbitre (auto, {build}) {ours:.2f} s")
    print(f"{args.corners} corners: interpreted (the old choice) {base:.2f} s")
    print(f"ratio {base / ours:.1f}x")


if __name__ == "__main__":
    main()
