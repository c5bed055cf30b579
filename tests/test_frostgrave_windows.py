"""F5/F6 on rooms drawn two ways: one closed wall, or four walls reaching over the corners.

RULES.md F5 decision: "only the crossing where the line leaves through the wall beside
the shooter, at the window it touches, is ignored; every other crossing of a wall blocks
(F7), that same wall piece included. So a room drawn as one closed wall rules exactly
like the same room drawn as four walls." Seed 000: « peut tracer ses lignes de vue depuis
la fenêtre comme si le mur n'existait pas ». Random rooms (seeded), some sides with
windows, models inside and outside, some pressed against windows (G4 contact, on either
face): every ordered pair must get the same ruling (visible, cover, blockers with the
four walls' ids read as the room's).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from arbitre.geometry import Disc, Point, WallFootprint, Window
from arbitre.rules import frostgrave
from arbitre.rules.ruling import LosRuling
from arbitre.table import Model, Table, Terrain

TH = 6.0  # wall thickness, mm
R = 12.5  # base radius, mm


def _room(
    rng: np.random.Generator,
) -> tuple[float, float, float, float, list[list[tuple[float, float]]]]:
    """A room's corner, width, depth, and windows per side (S, E, N, W) as (from, to)
    along that side, counted from the side's first corner going round anticlockwise."""
    x0, y0 = float(rng.uniform(120, 160)), float(rng.uniform(120, 160))
    w, h = float(rng.uniform(90, 160)), float(rng.uniform(90, 160))
    sides: list[list[tuple[float, float]]] = []
    for length in (w, h, w, h):
        wins: list[tuple[float, float]] = []
        for _ in range(int(rng.integers(0, 3))):
            size = float(rng.uniform(20, 40))
            start = float(rng.uniform(TH + 2, length - TH - 2 - size))
            if all(start > b + 2 or start + size < a - 2 for a, b in wins):
                wins.append((start, start + size))
        sides.append(sorted(wins))
    return x0, y0, w, h, sides


def _walls(
    x0: float, y0: float, w: float, h: float, sides: list[list[tuple[float, float]]]
) -> tuple[list[Terrain], list[Terrain], list[tuple[float, float]]]:
    """The room as one closed wall and as four walls (ids s, e, n, w)."""
    corners = [(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]
    lengths = [w, h, w, h]
    run = 0.0
    closed_windows: list[Window] = []
    for length, wins in zip(lengths, sides, strict=True):
        closed_windows.extend(Window(run + a, run + b) for a, b in wins)
        run += length
    closed = Terrain(
        "room",
        WallFootprint(tuple(Point(*c) for c in [*corners, corners[0]]), TH, tuple(closed_windows)),
    )
    half = TH / 2
    four = []
    for k, name in enumerate("senw"):
        (ax, ay), (bx, by) = corners[k], corners[(k + 1) % 4]
        ux, uy = (bx - ax) / lengths[k], (by - ay) / lengths[k]
        start = Point(ax - ux * half, ay - uy * half)
        end = Point(bx + ux * half, by + uy * half)
        shifted = tuple(Window(a + half, b + half) for a, b in sides[k])
        four.append(Terrain(name, WallFootprint((start, end), TH, shifted)))
    return [closed], four, corners


def _models(
    rng: np.random.Generator,
    corners: list[tuple[float, float]],
    sides: list[list[tuple[float, float]]],
) -> list[Model]:
    """Models inside and outside the room, some pressed against windows (either face)."""
    x0, y0 = corners[0]
    x1, y1 = corners[2]
    spots: list[Point] = []
    for k, wins in enumerate(sides):
        (ax, ay), (bx, by) = corners[k], corners[(k + 1) % 4]
        n = math.hypot(bx - ax, by - ay)
        ux, uy = (bx - ax) / n, (by - ay) / n
        for a, b in wins:
            along = float(rng.uniform(a + 3, b - 3))
            for side in (1.0, -1.0):  # inside (left of the anticlockwise run), outside
                if rng.random() < 0.7:
                    off = TH / 2 + R + float(rng.uniform(0, 0.45))
                    px, py = ax + ux * along, ay + uy * along
                    spots.append(Point(px - side * uy * off, py + side * ux * off))
    while len(spots) < 9:
        if rng.random() < 0.4:  # inside
            p = Point(float(rng.uniform(x0 + 20, x1 - 20)), float(rng.uniform(y0 + 20, y1 - 20)))
        else:
            p = Point(float(rng.uniform(0, x1 + 140)), float(rng.uniform(0, y1 + 140)))
            if x0 - 20 < p.x < x1 + 20 and y0 - 20 < p.y < y1 + 20:
                continue
        spots.append(p)
    placed: list[Model] = []
    for p in spots:
        if all(p.distance(m.at) > 2 * R + 0.6 for m in placed):
            colour = "red" if len(placed) % 2 else "blue"
            placed.append(Model(f"m{len(placed)}", colour, p, Disc(2 * R)))
    return placed[:10]


Ruled = dict[tuple[str, str], LosRuling]
SEEDS = range(6)


@cache
def _both(seed: int) -> tuple[Table, Ruled, Ruled]:
    """Room ``seed`` drawn both ways: the one-wall table, and each drawing's rulings of
    every ordered pair (no G8 margins: the drawings are compared, not moved)."""
    rng = np.random.default_rng(seed)
    x0, y0, w, h, sides = _room(rng)
    closed, four, corners = _walls(x0, y0, w, h, sides)
    models = tuple(_models(rng, corners, sides))
    ids = [m.id for m in models]
    pairs = [(a, b) for a in ids for b in ids if a != b]
    tables = [
        Table(width=600.0, depth=600.0, terrain=tuple(terrain), models=models)
        for terrain in (closed, four)
    ]
    ruled = [
        {(r.shooter, r.target): r for r in frostgrave.rulings(t, pairs, margins=False)}
        for t in tables
    ]
    return tables[0], ruled[0], ruled[1]


def _deciding(r: LosRuling) -> tuple[bool, int, frozenset[str]]:
    return r.visible, r.cover, frozenset("room" if x in "senw" else x for x in r.blockers)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_room_drawn_as_one_wall_rules_as_four_walls(seed: int) -> None:
    _, a, b = _both(seed)
    assert a.keys() == b.keys()
    for pair in a:
        assert _deciding(a[pair]) == _deciding(b[pair]), (seed, pair, a[pair], b[pair])


def test_the_rooms_exercise_the_window_rules() -> None:
    # the random rooms reach F5 and F6 rulings, visible and not, and F7 blocks
    rules: set[str] = set()
    contacts = 0
    for seed in SEEDS:
        one, a, _ = _both(seed)
        contacts += len(frostgrave.window_contacts(one))
        for r in a.values():
            rules |= {f"{x.rule}{'+' if r.visible else '-'}" for x in r.reasons}
    assert contacts >= 6
    assert {"F5+", "F6+", "F6-", "F7-"} <= rules, rules
