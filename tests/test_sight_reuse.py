"""The sight indexes built from shared work against fresh builds (issue 16).

A variant of a table's plain index (F5: a window opened, F6: walls made solid) keeps the
plain index's bridges (G4) for every piece it does not change and measures again only
the changed walls' contacts with the bases; the terrain packing is looked up by the
terrain tuple's identity before its value. On seeded random tables with models pressed
against the windows, each variant built after the plain one must pack exactly what a
fresh build packs (the same bridges, in the same order, and the same arrays), and the
rulings asked with the shared work must be those asked without it.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import shapely
from test_frostgrave import at_windows

import arbitre
from arbitre import sight
from arbitre.geometry import WallFootprint
from arbitre.table import Table
from arbitre.testing import random_table


class _Forgetful(dict[tuple[Table, float], object]):
    """A store of plain bridges that never finds one: every build is fresh."""

    def get(self, key: object, default: object = None) -> object:
        return default


def _table(seed: int) -> Table:
    rng = np.random.default_rng(900 + seed)
    t = random_table(seed, models=18, terrain=12, width=400.0, degenerate=seed % 3 == 2)
    return at_windows(t, rng)


def _variants(table: Table) -> list[tuple[frozenset[str], frozenset[tuple[str, int]]]]:
    walls = [
        (p.id, fp)
        for p in table.terrain
        if isinstance(fp := p.footprint, WallFootprint) and fp.windows
    ]
    out: list[tuple[frozenset[str], frozenset[tuple[str, int]]]] = [
        (frozenset(), frozenset({(w, k)})) for w, fp in walls for k in range(len(fp.windows))
    ]
    if walls:
        out.append((frozenset(w for w, _ in walls), frozenset()))
        out.append((frozenset({walls[0][0]}), frozenset({(walls[-1][0], 0)})))
    out.append((frozenset({table.terrain[0].id}), frozenset()))  # maybe not a wall
    return out


def _same_index(a: sight.SightIndex, b: sight.SightIndex) -> None:
    assert a.ids == b.ids
    assert a.bridge_pairs() == b.bridge_pairs()
    assert np.array_equal(a.bridge_ends, b.bridge_ends)
    for x, y in zip(a.packed, b.packed, strict=True):
        assert x.dtype == y.dtype
        assert np.array_equal(x, y)
    assert np.array_equal(a.blocks, b.blocks)
    assert a.half == b.half


@pytest.mark.parametrize("seed", range(24))
@pytest.mark.parametrize("erode", [0.0, 0.3, -0.4])
def test_variants_reusing_the_plain_bridges_equal_fresh_builds(seed: int, erode: float) -> None:
    table = _table(seed)
    variants = _variants(table)
    sight.sight_index.cache_clear()
    fresh = []
    for s, o in variants:
        sight._BASE_BRIDGES.clear()
        fresh.append(sight.build_index(table, solid=s, openings=o, erode=erode))
    sight._BASE_BRIDGES.clear()
    sight.build_index(table, erode=erode)  # the plain index: its bridges are kept
    assert (table, erode) in sight._BASE_BRIDGES
    opened = 0
    for (s, o), want in zip(variants, fresh, strict=True):
        got = sight.build_index(table, solid=s, openings=o, erode=erode)
        _same_index(got, want)
        plain = sight.build_index(table, erode=erode)
        opened += got.bridge_pairs() != plain.bridge_pairs()
    if seed < 8 and erode == 0.0 and len(variants) > 1:
        assert opened  # some window opened at a model changes its bridges (not vacuous)


def test_a_model_pressed_at_a_window_loses_its_bridge_when_it_opens() -> None:
    """The reuse is not vacuous: opening the window a model touches drops that bridge."""
    for seed in range(40):
        table = _table(seed)
        plain = sight.build_index(table)
        for s, o in _variants(table)[:-1]:
            got = sight.build_index(table, solid=s, openings=o)
            if set(got.bridge_pairs()) < set(plain.bridge_pairs()):
                return
    raise AssertionError("no window opened at a model on 40 tables")


def test_the_terrain_packing_is_found_by_the_same_tuple_and_by_an_equal_one() -> None:
    table = _table(3)
    copy = replace(table, terrain=tuple(replace(p) for p in table.terrain), name="copy")
    assert copy.terrain is not table.terrain and copy.terrain == table.terrain
    a = sight._terrain_packing(table.terrain, frozenset(), frozenset(), 0.0, 0.5)
    assert sight._terrain_packing(table.terrain, frozenset(), frozenset(), 0.0, 0.5) is a
    assert sight._terrain_packing(copy.terrain, frozenset(), frozenset(), 0.0, 0.5) is a
    other = sight._terrain_packing(table.terrain, frozenset(), frozenset(), 0.2, 0.7)
    assert other is not a


def _answers(table: Table, rules: str) -> list[object]:
    pairs = [(a.id, b.id) for a in table.models for b in table.models if a.side != b.side]
    out = arbitre.ask(table, "los", rules=rules, pairs=pairs)
    return json.loads(json.dumps(out.to_json(), sort_keys=True, default=str))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rules", ["frostgrave", "darkage"])
def test_rulings_with_shared_builds_equal_rulings_with_fresh_builds(
    seed: int, rules: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = replace(_table(seed), name=f"shared {seed}")
    sight.sight_index.cache_clear()
    shared = _answers(table, rules)
    monkeypatch.setattr(sight, "_BASE_BRIDGES", _Forgetful())
    sight.sight_index.cache_clear()
    fresh = _answers(replace(table, name=f"fresh {seed}"), rules)
    assert _without_names(shared) == _without_names(fresh)


def _without_names(answer: object) -> object:
    """The answer with the table's name left out (the two runs use two names, so that no
    cache keyed by the table carries over)."""
    if isinstance(answer, dict):
        return {k: _without_names(v) for k, v in answer.items() if k != "table"}
    if isinstance(answer, list):
        return [_without_names(v) for v in answer]
    return answer


def _every_near_pair(disc: np.ndarray, geoms: list[object], within: float) -> set[tuple[int, int]]:
    """Brute force of the bases' broad phase: every pair with a disc measured exactly."""
    out = set()
    for k in range(len(geoms)):
        for j in range(k + 1, len(geoms)):
            a, b = geoms[k], geoms[j]
            if a is not None and b is not None:
                continue  # two polygons: not asked here (among=False)
            if a is None and b is None:
                gap = float(np.hypot(*(disc[k, :2] - disc[j, :2])) - disc[k, 2] - disc[j, 2])
            else:
                c, poly = (k, b) if a is None else (j, a)
                gap = float(shapely.distance(shapely.points(disc[c, :2]), poly)) - disc[c, 2]
            if gap <= within:
                out.add((k, j))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_the_broad_phase_finds_every_near_pair(seed: int) -> None:
    """The sweep and box broad phases of G4 against every pair measured."""
    table = _table(seed)
    erode = (0.0, 0.5, -1.0)[seed % 3]
    tp = sight._terrain_packing(
        table.terrain, frozenset(), frozenset(), erode, table.contact_tolerance + erode
    )
    rng = np.random.default_rng(seed)
    xyr = sight._xyr(table)
    models = np.column_stack([xyr[:, :2], np.maximum(xyr[:, 2] - erode, 0.0)])
    if seed % 4 == 0:  # bases in a row touching, some of no size, some coincident
        models[:, 1] = 100.0
        models[:, 0] = 50.0 + np.cumsum(2 * models[:, 2] + rng.choice([0.0, 0.3, 0.6]))
        models[::5, 2] = 0.0
        models[1] = models[0]
    disc = np.vstack([tp.disc, models])
    geoms = [*tp.valid, *([None] * len(models))]
    within = table.contact_tolerance + erode + 1e-3 + float(rng.uniform(0, 3))
    left, right = sight._near_pairs(disc, geoms, within, among=False)
    got = list(zip(left.tolist(), right.tolist(), strict=True))
    assert got == sorted(set(got))
    assert set(got) == _every_near_pair(disc, geoms, within)
