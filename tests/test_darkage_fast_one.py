"""Dark Age ``los`` for one observer made faster (issue 16 item 1) rules as before, each
faster form against the form it replaced, field for field, on seeded random tables:

- every offset index a ruling needs built at once (:meth:`Levels.indexes`: the terrain's
  parts stacked once per terrain, the bases and near pairs of every level measured
  together, walls opened or whole in one batch) against one at a time and against a
  fresh :func:`arbitre.sight.build_index`, array for array, before and after a drag;
- the G8 search of every pair in one kernel call (``level_search``) against the previous
  search kept in ``test_darkage_levels`` (a fresh copy packed for every level);
- the S3 test given model indices (``darkage._clear``) against
  :func:`arbitre.sight.clear_lines`, witness for witness, with and without a piece;
- one observer against every enemy ruled at once against each pair ruled alone on a
  fresh table (nothing of the batch shared), every ruling's JSON in English and French.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from test_darkage_levels import _same, _setup_pairs, old_los_margins

from arbitre import sight
from arbitre.geometry import Point
from arbitre.i18n import speaking
from arbitre.rules import darkage, darkage_alone, darkage_levels, darkage_margins
from arbitre.rules.declared import DarkAgeOptions
from arbitre.table import Table
from arbitre.testing import random_table


def _tables(seed: int) -> list[Table]:
    rng = np.random.default_rng(7000 + seed)
    classes = None
    out = []
    for models, terrain, width in ((40, 14, 500.0), (70, 20, 700.0)):
        table = random_table(seed, models=models, terrain=terrain, width=width,
                             degenerate=seed % 3 == 1)  # fmt: skip
        classes = table.size_classes
        sized = tuple(
            replace(m, size=classes[int(rng.choice(len(classes), p=[0.15, 0.55, 0.2, 0.1]))])
            for m in table.models
        )
        out.append(replace(table, models=sized, name=f"fast one {seed} {models}"))
    return out


def _keys(table: Table) -> list[tuple[frozenset[str], float]]:
    levels = darkage_margins.LEVELS
    erodes = (0.0, *levels, *(-x for x in levels))
    walls = sight.walls_with_windows(table)
    return [(solid, e) for solid in (walls, frozenset()) for e in erodes]


def _dragged(table: Table, seed: int) -> Table:
    """The table with one model moved (the terrain kept): as a drag on the page."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(len(table.models)))
    m = table.models[k]
    at = Point(m.at.x + float(rng.uniform(-30, 30)), m.at.y + float(rng.uniform(-30, 30)))
    models = (*table.models[:k], replace(m, at=at), *table.models[k + 1 :])
    return replace(table, models=models, name=table.name + " dragged")


@pytest.mark.parametrize("seed", range(4))
def test_level_indexes_at_once_are_fresh_builds(seed: int) -> None:
    bridges = 0
    for table in _tables(seed):
        for t in (table, _dragged(table, seed), replace(table, contact_tolerance=3.0)):
            keys = _keys(t)
            many = darkage_levels.levels(replace(t, name=t.name + " many"), 5.0).indexes(keys)
            one = darkage_levels.levels(replace(t, name=t.name + " one"), 5.0)
            for (solid, erode), got in zip(keys, many, strict=True):
                want = sight.build_index(t, solid=solid, erode=erode)
                _same(got, want)
                _same(got, one.index(solid, erode))
                bridges += len(want.bridge_ends)
    assert bridges > 20  # bridges occur: their renumbering is tested


def test_level_indexes_of_a_table_without_models() -> None:
    table = replace(random_table(3, models=4, terrain=8, width=300.0), models=())
    keys = _keys(table)[:4]
    got = darkage_levels.levels(table, 5.0).indexes(keys)
    for (solid, erode), ix in zip(keys, got, strict=True):
        _same(ix, sight.build_index(table, solid=solid, erode=erode))


def _one_observer(table: Table, k: int) -> list[tuple[str, str]]:
    a = table.models[k]
    return [(a.id, b.id) for b in table.models if b.side != a.side]


@pytest.mark.parametrize("seed", range(4))
def test_margins_searched_in_one_call_are_the_previous_search(seed: int) -> None:
    for table in _tables(seed):
        for k in (0, len(table.models) // 2):
            ix, ranks, need, s, g, visible, closers = _setup_pairs(table, _one_observer(table, k))
            got = darkage_margins.los_margins(table, ix, ranks, need, s, g, visible, closers)
            want = old_los_margins(table, ix, ranks, need, s, g, visible, closers)
            assert got == want


@pytest.mark.parametrize("seed", range(4))
def test_s3_by_indices_is_clear_lines(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for table in _tables(seed):
        pairs = _one_observer(table, 0) + _one_observer(table, 1)
        for opts in (DarkAgeOptions(), DarkAgeOptions(windows="closed")):
            ix = darkage.index_for(table, opts)
            ranks = darkage._ranks(table, ix)
            need = np.asarray([table.size_rank(table.model(b).size) for _, b in pairs], np.int64)
            s = np.asarray([table.model_index(a) for a, _ in pairs], np.int64)
            g = np.asarray([table.model_index(b) for _, b in pairs], np.int64)
            without = rng.integers(-1, ix.n_pieces, len(pairs))
            for gone in (None, without):
                want = sight.clear_lines(
                    table, pairs, piece_rank=ranks, min_rank=need, index=ix,
                    without=gone, closers=False,
                )  # fmt: skip
                found, witness = sight.any_clear_indices(table, ix, ranks, need, s, g, gone)
                assert darkage._lines(pairs, found, witness) == want


def _docs(table: Table, rulings: list[darkage.DarkAgeLosRuling]) -> list[str]:
    out = []
    for lang in ("en", "fr"):
        with speaking(lang):
            out += [json.dumps(r.to_json(table.unit), sort_keys=True) for r in rulings]
    return out


@pytest.mark.parametrize("seed", range(3))
def test_one_observer_at_once_is_each_pair_alone(seed: int) -> None:
    for table in _tables(seed)[:1]:
        for opts in (DarkAgeOptions(), DarkAgeOptions(windows="closed")):
            pairs = _one_observer(table, seed)
            together = darkage.rulings(table, pairs, options=opts)
            alone = [
                darkage.rulings(replace(table, name=f"alone {n}"), [p], options=opts)[0]
                for n, p in enumerate(pairs)
            ]
            assert together == alone
            assert _docs(table, together) == _docs(table, alone)


@pytest.mark.parametrize("seed", range(3))
def test_reach_lists_are_window_reach(seed: int) -> None:
    for table in _tables(seed):
        pairs = _one_observer(table, 0) + _one_observer(table, 2)
        s = np.asarray([table.model_index(a) for a, _ in pairs], np.int64)
        g = np.asarray([table.model_index(b) for _, b in pairs], np.int64)
        found = darkage_levels.levels(table, 5.0)
        for ix in (
            darkage.index_for(table, DarkAgeOptions()),
            found.index(frozenset(), -2.0),
            found.terrain(frozenset(), 0.0),
        ):
            want = [x.tolist() for x in sight.window_reach(table, s, g, index=ix)]
            assert darkage_alone.reach_lists(table, ix, s, g) == want
