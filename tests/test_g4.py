"""G4 touching blockers, G8 margins and the batched window of Dark Age (D3-D4, M12).

- G8: «Si une ligne droite non obstruée peut être tracée entre le socle du spectateur et
  le socle de la cible ... la cible est considérée dans la ligne de vue»: moving any one
  model by less than a ruling's margin never changes whether the target is in sight.
- Speed (issue 16): the pieces reaching into a window come from one kernel call; they
  are exactly those a plain shapely path finds (the hull of the two bases against every
  piece grown by half the beam), and so are the reasons built from them.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely

from arbitre import scenario, sight
from arbitre.errors import ArbitreError
from arbitre.geometry import Point
from arbitre.rules import ask, darkage
from arbitre.table import Table
from arbitre.testing import random_table

ROOT = Path(__file__).parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("darkage-*.yaml")) + sorted(
    (ROOT / "tests" / "golden" / "darkage").glob("*.yaml")
)


def _sized(table: Table, rng: np.random.Generator) -> Table:
    sizes = ("small", "medium", "large", "huge")
    models = tuple(replace(m, size=sizes[int(rng.integers(4))]) for m in table.models)
    return replace(table, models=models)


@pytest.mark.parametrize("beam", [1.0, 0.0])
def test_g8_moving_one_model_by_less_than_the_margin_keeps_the_ruling(beam: float) -> None:
    checked = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        base = random_table(seed, models=9, terrain=5, width=260.0, beam=beam)
        table = _sized(base, rng)
        ids = [m.id for m in table.models]
        pairs = [(a, b) for a in ids[:5] for b in ids if a != b]
        rulings = darkage.rulings(table, pairs)
        margins = np.array([r.margin.mm or 0.0 for r in rulings])
        seen = np.array([r.visible for r in rulings])
        assert np.array_equal(seen, darkage.in_sight(table, pairs))
        for _ in range(8):
            who = ids[int(rng.integers(len(ids)))]
            keep = np.flatnonzero(margins > 0)
            if not len(keep):
                break
            length = float(margins[int(rng.choice(keep))]) * float(rng.uniform(0.3, 0.999))
            turn = float(rng.uniform(0, 2 * math.pi))
            at = table.model(who).at
            moved = table.moved(
                who, Point(at.x + length * math.cos(turn), at.y + length * math.sin(turn))
            )
            asked = np.flatnonzero(margins > length)
            after = darkage.in_sight(moved, [pairs[i] for i in asked])
            bad = [pairs[i] for i, v in zip(asked, after, strict=True) if v != seen[i]]
            assert not bad, (seed, who, length, bad)
            checked += len(asked)
    assert checked > 300


def grown_shapes(table: Table, ix: sight.SightIndex) -> list[Any]:
    """Every piece's shape (terrain, then bases: the index's order) grown by half the beam."""
    shapes = [t.footprint.shape() for t in table.terrain]
    shapes += [sight.base_shape(m) for m in table.models]
    return [shape.buffer(ix.half) for shape in shapes]


def bf_window_pieces(
    table: Table, ix: sight.SightIndex, a: str, b: str, grown: list[Any] | None = None
) -> set[str]:
    """The plain shapely path the kernel replaced: the hull of the two bases (fine
    polygons) against every piece's shape grown by half the beam (``grown``: those grown
    shapes, computed once per table by :func:`grown_shapes`, the same for every pair)."""
    hull = shapely.convex_hull(
        shapely.union(sight.base_shape(table.model(a)), sight.base_shape(table.model(b)))
    )
    grown = grown_shapes(table, ix) if grown is None else grown
    return {
        ix.ids[k]
        for k, shape in enumerate(grown)
        if ix.ids[k] not in (a, b) and hull.intersects(shape)
    }


def _hull_gap(table: Table, ix: sight.SightIndex, a: str, b: str, piece: str) -> float:
    hull = shapely.convex_hull(
        shapely.union(sight.base_shape(table.model(a)), sight.base_shape(table.model(b)))
    )
    k = ix.ids.index(piece)
    shape = (
        table.terrain[k].footprint.shape()
        if k < ix.n_terrain
        else sight.base_shape(table.models[k - ix.n_terrain])
    )
    return float(hull.distance(shape)) - ix.half


def _tables() -> list[Table]:
    tables = [scenario.load(p) for p in EXAMPLES if "windows_closed" not in p.name]
    tables = [t for t in tables if not sight.walls_with_windows(t)]
    for seed in range(5):
        rng = np.random.default_rng(100 + seed)
        tables.append(_sized(random_table(seed, models=24, terrain=8, width=400.0), rng))
    return tables


def test_the_window_kernel_finds_what_shapely_finds_and_the_reasons_follow() -> None:
    compared = 0
    for table in _tables():
        ix = sight.sight_index(table)
        ids = [m.id for m in table.models]
        pairs = [(a, b) for a in ids for b in ids if a != b][:150]
        s = np.asarray([table.model_index(a) for a, _ in pairs])
        g = np.asarray([table.model_index(b) for _, b in pairs])
        got = sight.window_reach(table, s, g, index=ix)
        rulings = darkage.rulings(table, pairs)
        grown = grown_shapes(table, ix)
        for (a, b), found, ruling in zip(pairs, got, rulings, strict=True):
            mine = {ix.ids[k] for k in found}
            want = bf_window_pieces(table, ix, a, b, grown)
            if (a, b) == pairs[0]:  # the shared grown shapes are the per-pair ones
                assert want == bf_window_pieces(table, ix, a, b)
            for piece in mine ^ want:  # only where the fine polygons differ from circles
                assert abs(_hull_gap(table, ix, a, b, piece)) < 1e-3, (a, b, piece)
            if mine != want:
                continue
            compared += 1
            rank = table.size_rank(table.model(b).size)
            sizes = {t.id: t.size for t in table.terrain} | {m.id: m.size for m in table.models}
            smaller = [p for p in ix.ids if p in want and table.size_rank(sizes[p]) < rank]
            text = [r.text for r in ruling.reasons if r.rule == "D4" and "do not" in r.text]
            if smaller:
                assert text == [
                    f"smaller than {b} ({table.model(b).size}), these do not obstruct: "
                    + ", ".join(smaller)
                ]
            else:
                assert not text
            if not ruling.visible:  # what closes it is among the big enough pieces inside
                bigger = {p for p in want if table.size_rank(sizes[p]) >= rank}
                assert set(ruling.blockers) <= bigger and ruling.blockers
    assert compared > 500


def test_a_piece_that_closes_nothing_is_not_named() -> None:
    """D3-D4, item 10: «les figurines et les éléments terrain de la même taille ou de plus
    grande taille que la cible bloquent»: a large hedge reaching into the window beside
    a wall that closes it alone blocks nothing more, and is not listed as blocking."""
    table = scenario.loads(
        """
arbitre: 1
rules: darkage
table: [600, 400]
terrain:
  - {id: wall, sight: blocks, size: large, rect: {at: [300, 200], width: 20, depth: 120}}
  - {id: hedge, sight: cover, size: large, rect: {at: [340, 212], width: 20, depth: 20}}
models:
  - {id: a, side: r, at: [100, 200], base: 30, size: medium}
  - {id: b, side: s, at: [500, 200], base: 30, size: medium}
"""
    )
    (ruling,) = ask(table, "los", shooter="a", target="b").rulings
    assert not ruling.visible and ruling.blockers == ("wall",)
    assert "hedge" not in ruling.because and ruling.because == "D3, D4 wall"
    assert any("hedge" in r.ids and "closing nothing" in r.text for r in ruling.reasons)


def test_windows_option_is_checked() -> None:
    table = scenario.load(ROOT / "tests" / "golden" / "darkage" / "m12_captain_at_a_window.yaml")
    with pytest.raises(ArbitreError, match="windows"):
        ask(replace(table, options=(("windows", "ajar"),)), "los", rules="darkage")
    closed = ask(
        replace(table, options=(("windows", "closed"),)), "los", shooter="captain", target="raider"
    ).rulings[0]
    assert not closed.visible and closed.blockers == ("room",)
