"""The Frostgrave fast paths against the plain computations they replace (issue 16).

Each shortcut of the batched rulings is checked on seeded random tables (models pressed
against windows too) against a brute-force form of the same measure: window contacts and
gaps found through a box broad phase against every model measured; the margin taken test
by test against :meth:`Margin.smallest` over the whole list; the G4 joins near a line
reduced to the one nearest the tolerance against every join measured; the S2 shares
batched by the windows open against one pair at a time; one index for every probed beam
against the index of a table of that beam; the hiding candidates of a window view against
the piece-by-piece filter; and one cache key however :func:`sight.sight_index` is called.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import shapely
from test_frostgrave import at_windows

from arbitre import sight
from arbitre.rules import frostgrave
from arbitre.rules.frostgrave_margins import gaps_between, near_pieces
from arbitre.rules.frostgrave_pair import _near_joins, _Smallest, measure_pairs
from arbitre.rules.frostgrave_windows import walls_windows, window_gaps, window_slice
from arbitre.rules.ruling import Margin
from arbitre.table import Point, Table
from arbitre.testing import random_table


def _table(seed: int) -> Table:
    rng = np.random.default_rng(300 + seed)
    t = random_table(seed, models=16, terrain=12, width=400.0, degenerate=seed % 2 == 1)
    return at_windows(t, rng)


def _every_gap(table: Table) -> list[tuple[str, str, int, float]]:
    """Every model's gap to every window's part of every wall, one model at a time."""
    out = []
    for wall, k, fp in walls_windows(table):
        for m in table.models:
            gap = shapely.Point(m.at.x, m.at.y).distance(window_slice(fp, k)) - m.base.radius
            out.append((m.id, wall, k, gap))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_window_contacts_and_gaps_agree_with_every_model_measured(seed: int) -> None:
    table = _table(seed)
    every = _every_gap(table)
    tol = table.contact_tolerance
    want: dict[str, list[tuple[str, int, float]]] = {}
    for model, wall, k, gap in every:
        if sight.in_contact(gap, tol):
            want.setdefault(model, []).append((wall, k, gap))
    got = {
        m: [(c.wall, c.index, c.gap) for c in cs]
        for m, cs in frostgrave.window_contacts(table).items()
    }
    assert {m: sorted(v) for m, v in got.items()} == {m: sorted(v) for m, v in want.items()}
    for within in (0.0, 5.0, 60.0, math.inf):
        near = [(w.model, w.wall, w.index, w.gap) for w in window_gaps(table, within=within)]
        assert sorted(near) == sorted(x for x in every if x[3] <= within)
    if walls_windows(table):
        assert got  # at_windows pressed some models against a window


def test_the_smallest_test_by_test_is_margin_smallest() -> None:
    rng = np.random.default_rng(5)
    for _ in range(500):
        n = int(rng.integers(0, 12))
        values = rng.choice([-2.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.5, math.inf, math.nan], size=n)
        values = np.where(rng.random(n) < 0.5, values, rng.normal(0, 3, n))
        names = [(f"p{j}", f"q{j}") for j in range(n)]
        best = _Smallest()
        for v, (p, q) in zip(values.tolist(), names, strict=True):
            best.add(v, "contact {}-{}", (p, q))
        tests = [(v, f"contact {p}-{q}") for v, (p, q) in zip(values.tolist(), names, strict=True)]
        close = float(rng.uniform(0, 3))
        assert best.margin(close) == Margin.smallest(tests, close)


@pytest.mark.parametrize("seed", range(6))
def test_the_join_kept_near_each_line_decides_as_every_join_would(seed: int) -> None:
    table = _table(seed)
    ids = [m.id for m in table.models]
    pairs = [(a, b) for a in ids for b in ids if a != b]
    s = np.asarray([table.model_index(a) for a, _ in pairs])
    g = np.asarray([table.model_index(b) for _, b in pairs])
    near = near_pieces(table, s, g, [frozenset()] * len(pairs))
    small = frozenset(t.id for t in table.terrain if not t.blocks)
    kept = _near_joins(table, near, small)
    tol = table.contact_tolerance
    reach = 3.0 + table.beam
    some = 0
    for found, join in zip(near, kept, strict=True):
        close = [n.piece for n in found if n.dist < reach and n.piece not in small]
        every = [(p, q) for j, p in enumerate(close) for q in close[j + 1 :]]
        gaps = gaps_between(table, every)
        tests = [(gaps[x] - tol, f"contact {x[0]}-{x[1]}") for x in every]
        assert len(join) == (1 if every else 0)
        some += len(every) > 1
        got = [(gap - tol, f"contact {p}-{q}") for (p, q), gap in join]
        assert Margin.smallest(got, 2.0) == Margin.smallest(tests, 2.0)
    assert some  # lines near several blockers were met


@pytest.mark.parametrize("seed", range(6))
def test_shares_batched_by_windows_agree_with_one_pair_at_a_time(seed: int) -> None:
    table = _table(seed)
    ids = [m.id for m in table.models]
    pairs = [(a, b) for a in ids for b in ids if a != b]
    m = measure_pairs(table, pairs, margins=False)
    got = frostgrave._fractions(table, pairs, m)
    opened = 0
    for i, (a, b) in enumerate(pairs):
        keys = m.openings[i] | frozenset(c.key for c in m.contacts.get(b, ()))
        opened += bool(keys)
        ix = sight.build_index(table, openings=keys)
        s = np.asarray([table.model_index(a)])
        t = np.asarray([table.model_index(b)])
        assert got[i] == sight.visible_fraction_batch(table, s, t, index=ix)[0]
    if frostgrave.window_contacts(table):
        assert opened


@pytest.mark.parametrize("seed", range(4))
def test_one_index_serves_every_probed_beam(seed: int) -> None:
    table = _table(seed)
    keys = frozenset((w, k) for w, k, _ in walls_windows(table)[:1])
    ix = sight.sight_index(table, openings=keys)
    for beam in (0.0, table.beam / 3, table.beam * 2 + 7.5):
        probe = replace(ix, half=beam / 2.0)
        fresh = sight.build_index(replace(table, beam=beam), openings=keys)
        assert probe.ids == fresh.ids and probe.half == fresh.half
        for x, y in zip(
            (*probe.packed, probe.blocks, probe.bridge_ends),
            (*fresh.packed, fresh.blocks, fresh.bridge_ends),
            strict=True,
        ):
            assert np.array_equal(x, y)


@pytest.mark.parametrize("seed", range(6))
def test_window_view_candidates_agree_with_the_piece_by_piece_filter(seed: int) -> None:
    table = _table(seed)
    ix = sight.sight_index(table)
    rng = np.random.default_rng(seed)
    for _ in range(10):
        skip = [str(x) for x in rng.choice(ix.ids, size=int(rng.integers(0, 3)), replace=False)]
        hides = rng.random(ix.n_pieces) < 0.7 if rng.random() < 0.5 else None
        skipped = {ix.ids.index(x) for x in skip}
        mask = ix.mask(hides)
        want = [
            k for k in range(len(mask)) if mask[k] and not any(e in skipped for e in ix.ends(k))
        ]
        assert sight._candidates(ix, skip, hides).tolist() == want


def test_sight_index_has_one_key_whatever_the_call() -> None:
    table = _table(0)
    ix = sight.sight_index(table)
    assert sight.sight_index(table, openings=frozenset()) is ix
    assert sight.sight_index(table, frozenset(), frozenset(), erode=0.0) is ix
    assert sight.sight_index(table, solid=frozenset(), erode=0) is ix
    walls = sight.walls_with_windows(table)
    if walls:
        assert sight.sight_index(table, walls) is not ix
        assert sight.sight_index(table, solid=walls) is sight.sight_index(table, walls)


def test_sight_index_is_found_by_content_and_its_key_hashes_as_its_fields() -> None:
    """A renamed table finds the index an equal table built; a model moved, a beam or a
    tolerance changed does not; the key's hash, made once, is the hash of its fields."""
    table = _table(1)
    ix = sight.sight_index(table)
    assert sight.sight_index(replace(table, name="renamed")) is ix
    first = table.models[0]
    moved = replace(first, at=Point(first.at.x + 0.5, first.at.y))
    other = replace(table, models=(moved, *table.models[1:]))
    assert sight.sight_index(other) is not ix
    assert sight.sight_index(replace(table, beam=table.beam + 1.0)) is not ix
    key = sight._index_key(table, frozenset(), frozenset(), 0.0)
    fields = (
        key.terrain, key.ids, key.bases, key.tolerance, key.beam, key.solid, key.openings,
        key.erode,
    )  # fmt: skip
    assert hash(key) == hash(fields)
    assert key == sight._index_key(replace(table, name="x"), frozenset(), frozenset(), 0.0)
    assert hash(key) != hash(sight._index_key(other, frozenset(), frozenset(), 0.0))
