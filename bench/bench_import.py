"""Benchmark: importing a generated Foundry VTT scene of 2,000 wall segments and 40 tokens
(issue 15), and the Frostgrave all-pairs matrix (F1-F7) on the table it makes.

The scene is a seeded dungeon of 10 x 10 rooms of 5 x 5 cells, every grid edge of a room
one wall document (as map makers export them), a closed or open door in most rooms, the
tokens on random cells. Baselines, in the same process on the same file: ``json.load``
and a naive conversion (each segment a wall piece of its own, no merging), and the matrix
on that unmerged table. Compilation is excluded (the kernels are warmed up first).
Usage: ``python bench/bench_import.py [--rooms 10] [--tokens 40] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from arbitre import scenario, sight
from arbitre.imports import import_scene
from arbitre.rules import frostgrave
from arbitre.table import Table
from arbitre.testing import random_table

SIZE = 100  # pixels a cell
ROOM = 5  # cells a side


def scene(rooms: int, tokens: int, seed: int = 0) -> dict[str, Any]:
    """A Foundry VTT (v10-v13) scene: ``rooms`` x ``rooms`` rooms, each grid edge a wall."""
    rng = np.random.default_rng(seed)
    step = ROOM + 1
    cells = rooms * step + 1
    pad = 0.25
    off = math.ceil(pad * cells) * SIZE
    walls = []
    for i in range(rooms):
        for j in range(rooms):
            x0, y0 = 1 + i * step, 1 + j * step
            corners = [(x0, y0), (x0 + ROOM, y0), (x0 + ROOM, y0 + ROOM), (x0, y0 + ROOM)]
            door_side, door_at = int(rng.integers(0, 4)), int(rng.integers(1, ROOM - 1))
            state = int(rng.choice([-1, 0, 1]))  # no door, closed, open
            for k in range(4):
                (ax, ay), (bx, by) = corners[k], corners[(k + 1) % 4]
                ux, uy = (bx - ax) // ROOM, (by - ay) // ROOM
                for s in range(ROOM):
                    c = [
                        (ax + ux * s) * SIZE + off,
                        (ay + uy * s) * SIZE + off,
                        (ax + ux * (s + 1)) * SIZE + off,
                        (ay + uy * (s + 1)) * SIZE + off,
                    ]
                    door = state >= 0 and k == door_side and s == door_at
                    walls.append(
                        {"c": c, "sight": 20, "door": 1 if door else 0, "ds": state if door else 0}
                    )
    picks = rng.choice(cells * cells, size=tokens, replace=False)
    docs = [
        {
            "name": f"t{n}",
            "x": int(p % cells) * SIZE + off,
            "y": int(p // cells) * SIZE + off,
            "width": 1,
            "height": 1,
            "disposition": [1, -1][n % 2],
        }
        for n, p in enumerate(picks)
    ]
    side = cells * SIZE
    grid = {"type": 1, "size": SIZE, "distance": 5, "units": "ft"}
    return {"name": "bench", "width": side, "height": side, "padding": pad, "grid": grid,
            "walls": walls, "tokens": docs}  # fmt: skip


def naive(path: Path) -> Table:
    """The baseline import: json.load, every wall segment a piece, tokens as models."""
    doc = json.loads(path.read_text())
    size, pad = doc["grid"]["size"], doc["padding"]
    off_x = math.ceil(pad * doc["width"] / size) * size
    off_y = math.ceil(pad * doc["height"] / size) * size
    depth = doc["height"] / size

    def xy(px: float, py: float) -> list[float]:
        return [(px - off_x) / size, depth - (py - off_y) / size]

    terrain = [
        {"id": f"s{i}", "sight": "blocks",
         "wall": {"points": [xy(*w["c"][:2]), xy(*w["c"][2:])], "thickness": 0.1}}
        for i, w in enumerate(doc["walls"])
        if not (w["door"] and w["ds"] == 1)
    ]  # fmt: skip
    models = [
        {"id": t["name"], "side": str(t["disposition"]), "base": 1.0,
         "at": xy(t["x"] + size / 2, t["y"] + size / 2)}
        for t in doc["tokens"]
    ]  # fmt: skip
    return scenario.from_dict(
        {"arbitre": 1, "unit": "in", "table": [doc["width"] / size, depth],
         "terrain": terrain, "models": models}
    )  # fmt: skip


def best(fn: Any, repeats: int) -> tuple[float, Any]:
    """The least time of ``repeats`` runs of ``fn`` and its last result."""
    least, result = math.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        least = min(least, time.perf_counter() - t0)
    return least, result


def matrix_time(table: Table, repeats: int) -> float:
    def run() -> frostgrave.FrostgraveMatrix:
        sight.sight_index.cache_clear()  # the packing is part of the work
        return frostgrave.matrix(table)

    return best(run, repeats)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rooms", type=int, default=10, help="rooms a side (4 x 5 walls each)")
    parser.add_argument("--tokens", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    frostgrave.matrix(random_table(0, models=8, terrain=4))  # compile / load the kernels
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scene.json"
        path.write_text(json.dumps(scene(args.rooms, args.tokens)))
        t_import, done = best(lambda: import_scene(path), args.repeats)
        t_naive, flat = best(lambda: naive(path), args.repeats)
    s = done.summary
    print(
        f"scene: {len(flat.terrain) + s.doors_open} wall segments ({s.doors_open} open doors), "
        f"{len(done.table.models)} tokens; merged into {s.pieces} pieces"
    )
    m_ours, m_flat = matrix_time(done.table, args.repeats), matrix_time(flat, args.repeats)
    same = (
        frostgrave.matrix(done.table).visible.tolist() == frostgrave.matrix(flat).visible.tolist()
    )
    print(f"{'step':<28} {'arbitre ms':>11} {'baseline ms':>12} {'ratio':>7}")
    print(f"{'import (read, merge, load)':<28} {t_import * 1e3:11.1f} {t_naive * 1e3:12.1f} "
          f"{t_naive / t_import:7.2f}   baseline: json.load, one piece a segment")  # fmt: skip
    print(f"{'Frostgrave matrix':<28} {m_ours * 1e3:11.1f} {m_flat * 1e3:12.1f} "
          f"{m_flat / m_ours:7.2f}   baseline: the matrix on the unmerged table")  # fmt: skip
    print(f"same visibility on both tables: {same}")
    print(f"targets: import < 1000 ms {'ok' if t_import < 1 else 'MISSED'}, "
          f"matrix < 100 ms {'ok' if m_ours < 0.1 else 'MISSED'}")  # fmt: skip


if __name__ == "__main__":
    main()
