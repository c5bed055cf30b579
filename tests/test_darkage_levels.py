"""The offset indexes of the G8 margins (:mod:`arbitre.rules.darkage_levels`) against a
fresh :func:`arbitre.sight.build_index`, array for array, and the margins found with
them in one kernel call per round against the previous search (kept here as the
oracle: a copy of the table near the windows packed afresh for every level, the closing
pieces asked first, then every piece), on seeded random tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pytest

from arbitre import sight
from arbitre.geometry import Disc, Point
from arbitre.rules import darkage, darkage_levels, darkage_margins
from arbitre.rules.darkage_alone import closed_by
from arbitre.rules.options import shared_options
from arbitre.rules.ruling import Margin
from arbitre.table import Table
from arbitre.testing import random_table


def _tables(seed: int) -> list[Table]:
    return [
        random_table(seed, models=16, terrain=10, width=500.0, degenerate=seed % 3 == 0),
        random_table(seed, models=60, terrain=12, width=400.0, degenerate=seed % 2 == 0),
    ]


def _same(got: sight.SightIndex, want: sight.SightIndex) -> None:
    assert got.ids == want.ids and got.n_terrain == want.n_terrain and got.half == want.half
    for name in ("kind", "disc", "eoff", "edges", "bbox", "blocks", "bridge_ends"):
        x, y = getattr(got, name), getattr(want, name)
        assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), name
    assert len(got.full) == len(want.full)
    for x, y in zip(got.full, want.full, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)


def _check_levels(seeds: Sequence[int], tolerance: float | None = None) -> int:
    bridges = 0
    levels = darkage_margins.LEVELS
    for seed in seeds:
        for table in _tables(seed):
            if tolerance is not None:  # bridges at more grown levels
                table = replace(table, contact_tolerance=tolerance)
            found = darkage_levels.levels(table, levels[-1])
            for solid in (frozenset(), sight.walls_with_windows(table)):
                for erode in (0.0, *levels, *(-x for x in levels)):
                    want = sight.build_index(table, solid=solid, erode=erode)
                    _same(found.index(solid, erode), want)
                    bridges += len(want.bridge_ends)
    return bridges


def test_level_indexes_are_fresh_builds() -> None:
    assert _check_levels([1]) > 10  # bridges occur: the renumbering is tested


@pytest.mark.slow
def test_level_indexes_are_fresh_builds_many() -> None:
    assert _check_levels([0, *range(2, 16)]) > 300


@pytest.mark.slow
def test_level_indexes_with_a_wide_contact_tolerance() -> None:
    assert _check_levels(range(6), tolerance=3.0) > 300


def test_crowded_bases_touch_at_some_levels() -> None:
    """Bases in a ring, each 0.3 mm from the next: bridges at the plain level and the
    grown ones within the tolerance, none once shrunk by more than 0.1 mm."""
    table = random_table(0, models=24, terrain=6, width=600.0)
    ring = []
    n = len(table.models)
    radius = (25.0 + 0.3) / (2 * np.sin(np.pi / n))  # centres 25.3 mm apart
    for k, m in enumerate(table.models):
        angle = 2 * np.pi * k / n
        at = Point(300 + radius * np.cos(angle), 300 + radius * np.sin(angle))
        ring.append(replace(m, at=at, base=Disc(25.0)))
    table = replace(table, models=tuple(ring), terrain=())
    found = darkage_levels.levels(table, 5.0)
    for erode in (0.0, -0.1, 0.1, 0.25, -0.25, 1.0):
        want = sight.build_index(table, erode=erode)
        _same(found.index(frozenset(), erode), want)
    assert len(sight.build_index(table).bridge_ends) == len(ring)
    assert len(sight.build_index(table, erode=0.25).bridge_ends) == 0


def _setup(table: Table):
    ids = [m.id for m in table.models]
    pairs = [(a, b) for a in ids for b in ids if a != b][:: max(1, len(ids) // 8)]
    return _setup_pairs(table, pairs)


def _setup_pairs(table: Table, pairs: list[tuple[str, str]]):
    """What :func:`darkage_margins.los_margins` takes for ``pairs``, as the rulings make it."""
    ix = darkage.index_for(table, darkage.DarkAgeOptions())
    ranks = darkage._ranks(table, ix)
    need = np.asarray([table.size_rank(table.model(b).size) for _, b in pairs], np.int64)
    s = np.asarray([table.model_index(a) for a, _ in pairs], np.int64)
    g = np.asarray([table.model_index(b) for _, b in pairs], np.int64)
    lines = sight.clear_lines(table, pairs, piece_rank=ranks, min_rank=need, index=ix)
    visible = np.asarray([line.clear for line in lines], np.bool_)
    closers = darkage._needed(table, ix, ranks, need, s, g, lines)
    return ix, ranks, need, s, g, visible, closers


def _check_margins(seeds: Sequence[int]) -> list[Margin]:
    every: list[Margin] = []
    for seed in seeds:
        for table in _tables(seed):
            ix, ranks, need, s, g, visible, closers = _setup(table)
            got = darkage_margins.los_margins(table, ix, ranks, need, s, g, visible, closers)
            want = old_los_margins(table, ix, ranks, need, s, g, visible, closers)
            assert got == want
            every += got
    return every


def test_margins_match_the_previous_search() -> None:
    every = _check_margins(range(2))
    assert len({m.mm for m in every}) > 3  # many levels decide: the bisection is tested
    assert any(m.test.startswith("clear line past ") for m in every)
    assert any(m.test.startswith("closed window ") for m in every)


@pytest.mark.slow
def test_margins_match_the_previous_search_many() -> None:
    assert len(_check_margins(range(2, 14))) > 500


def test_rulings_json_on_many_pairs() -> None:
    """More pairs than the previous search copied tables for (its whole-table path),
    ruled with the windows open and closed: the same JSON as the oracle's margins."""
    table = random_table(5, models=40, terrain=12, width=500.0)
    ids = [m.id for m in table.models]
    pairs = [(a, b) for a in ids for b in ids if a != b][:500]
    for opts in (darkage.DarkAgeOptions(), darkage.DarkAgeOptions(windows="closed")):
        got = darkage.rulings(table, pairs, options=opts)
        ix = darkage.index_for(table, opts)
        m = [r.margin for r in got]
        ranks = darkage._ranks(table, ix)
        need = np.asarray([table.size_rank(table.model(b).size) for _, b in pairs], np.int64)
        s = np.asarray([table.model_index(a) for a, _ in pairs], np.int64)
        g = np.asarray([table.model_index(b) for _, b in pairs], np.int64)
        visible = [r.visible for r in got]
        closers = [r.blockers for r in got]
        assert m == old_los_margins(table, ix, ranks, need, s, g, visible, closers)
        assert json.loads(json.dumps([r.to_json() for r in got]))


def test_margins_interpreted_and_compiled_agree() -> None:
    table = _tables(1)[0]
    results = []
    for build in ("never", "always"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("ARBITRE_JIT", build)
            darkage_levels.levels.cache_clear()
            darkage_levels._terrain_part.cache_clear()
            results.append(_margins_of(table))
    assert results[0] == results[1]
    assert len({m.mm for m in results[0]}) > 2


def _margins_of(table: Table) -> list[Margin]:
    ix, ranks, need, s, g, visible, closers = _setup(table)
    return darkage_margins.los_margins(table, ix, ranks, need, s, g, visible, closers)


# --- the oracle: the previous search, as it was ------------------------------------------

LEVELS = darkage_margins.LEVELS


#: Above this many pairs a level's what-if runs on the whole table: their windows cover
#: most of it anyway.
NEAR_BELOW = 400

#: A copy with more than this share of the models is not worth making: a new table
#: (its hash covers every model) and its packing cost about what the whole table's does.
NEAR_SHARE = 0.5


@dataclass(frozen=True, slots=True, eq=False)
class NearCopy:
    """A grown or shrunk copy of the table for some pairs: their two models and every
    model whose base comes near one of their windows, with all the terrain. The S3 test
    and the window's reach see there the very pieces they see on the whole table, in the
    same order (see :func:`near_copy`), so they answer alike, for less to pack."""

    table: Table
    ix: sight.SightIndex
    s: np.ndarray
    g: np.ndarray
    ranks: np.ndarray


def near_copy(
    table: Table,
    solid: frozenset[str],
    erode: float,
    ranks: np.ndarray,
    s: np.ndarray,
    g: np.ndarray,
) -> NearCopy:
    """The copy of ``table`` shrunk by ``erode`` (grown when negative) for the pairs of
    model indices ``(s[i], g[i])``. A model is kept when its base comes within the window
    reach (the larger base and half the beam), three times the erosion (the pair's base,
    the model's own, a bridge's) and the contact tolerance of the segment joining a
    pair's centres: so every piece the kernels look at near the window and every G4
    bridge near it (none is longer than the tolerance and the erosion) are there. Models
    keep their order, so the pieces and bridges keep theirs."""
    every = len(table.models)
    if len(s) <= NEAR_BELOW and every:
        xy, r = sight.positions(table)
        a, b = xy[s], xy[g]
        room = np.maximum(r[s], r[g]) + table.beam / 2.0 + 3.0 * abs(erode)
        room = room + table.contact_tolerance + 1.0
        d = b - a
        den = np.maximum((d * d).sum(axis=1), 1e-300)
        keep = np.zeros(every, np.bool_)
        keep[s] = keep[g] = True
        step = max(1, 200_000 // every)
        for i in range(0, len(s), step):  # pairs x models at once, in slices
            w = xy[None, :, :] - a[i : i + step, None, :]
            dd = d[i : i + step, None, :]
            t = np.clip((w * dd).sum(axis=2) / den[i : i + step, None], 0.0, 1.0)
            gap = np.hypot(w[..., 0] - t * dd[..., 0], w[..., 1] - t * dd[..., 1]) - r
            keep |= (gap <= room[i : i + step, None]).any(axis=0)
        if keep.sum() <= NEAR_SHARE * every:  # else packing the copy saves too little
            kept = np.flatnonzero(keep)
            sub = replace(table, models=tuple(table.models[k] for k in kept.tolist()))
            new = np.full(every, -1, np.int64)
            new[kept] = np.arange(len(kept))
            nt = len(table.terrain)
            pieces = np.concatenate([np.arange(nt), nt + kept])
            return NearCopy(
                sub,
                sight.build_index(sub, solid=solid, erode=erode),
                new[s],
                new[g],
                np.asarray(ranks)[pieces],
            )
    return NearCopy(table, sight.sight_index(table, solid, erode=erode), s, g, ranks)


def _old_passes(
    table: Table,
    ix: sight.SightIndex,
    visible: bool,
    ranks: np.ndarray,
    need: np.ndarray,
    s: np.ndarray,
    g: np.ndarray,
    closers: Sequence[tuple[int, ...]],
) -> np.ndarray:
    """Whether each pair of model indices ``(s[i], g[i])`` keeps its answer ``visible``
    on the grown or shrunk index ``ix``. A pair not in sight whose closing pieces
    ``closers[i]`` (indices of ``ix``) still close its window alone stays closed
    whatever else stands in it; only the others run the exact test on every piece."""
    out = np.zeros(len(s), np.bool_)
    rest = np.arange(len(s))
    if not visible:
        out = closed_by(table, ix, s, g, closers)
        rest = np.flatnonzero(~out)
    if len(rest):
        models = table.models
        pairs = [(models[int(s[i])].id, models[int(g[i])].id) for i in rest]
        tests = sight.clear_lines(
            table, pairs, piece_rank=ranks, min_rank=need[rest], index=ix, closers=False
        )
        out[rest] = [t.clear is visible for t in tests]
    return out


def old_los_margins(
    table: Table,
    ix: sight.SightIndex,
    ranks: np.ndarray,
    need: np.ndarray,
    s: np.ndarray,
    g: np.ndarray,
    visible: Sequence[bool] | np.ndarray,
    closers: Sequence[tuple[str, ...]],
) -> list[Margin]:
    """The G8 margin of each pair of model indices ``(s[i], g[i])`` whose S3 answer on
    ``ix`` is ``visible[i]`` (``closers[i]``: what closes its window when it is not), D4
    ranks ``ranks`` against ``need[i]`` (see the module)."""
    visible = np.asarray(visible, np.bool_)
    solid = darkage_margins._solid(ix, table)
    n = len(s)
    places: dict[tuple[str, ...], dict[str, int]] = {}  # piece ids -> index, per copy
    lo = np.full(n, -1, np.int64)  # index of the largest level passed (-1: none)
    hi = np.full(n, len(LEVELS), np.int64)  # index of the smallest level failed
    while True:
        todo = np.flatnonzero(hi - lo > 1)
        if not len(todo):
            break
        mid = (lo + hi) // 2
        if (hi == len(LEVELS)).all() and (lo < 0).all():
            mid[:] = len(LEVELS) - 1  # the widest first: most pairs settle there at once
        for level in np.unique(mid[todo]).tolist():
            for vis in (True, False):
                r = todo[(mid[todo] == level) & (visible[todo] == vis)]
                if not len(r):
                    continue
                near = near_copy(
                    table, solid, -LEVELS[level] if vis else LEVELS[level], ranks, s[r], g[r]
                )
                where = places.get(near.ix.ids) or places.setdefault(
                    near.ix.ids, {name: k for k, name in enumerate(near.ix.ids)}
                )
                ok = _old_passes(
                    near.table,
                    near.ix,
                    vis,
                    near.ranks,
                    need[r],
                    near.s,
                    near.g,
                    [tuple(where[n] for n in closers[i]) for i in r],
                )
                lo[r[ok]] = level
                hi[r[~ok]] = level
    close_call = shared_options(table).close_call
    names = _old_deciding(table, solid, ranks, need, s, g, visible, hi, closers)
    out = []
    for i in range(n):
        mm = 0.0 if lo[i] < 0 else LEVELS[int(lo[i])]
        if visible[i]:
            test = "clear line past " + " ".join(names[i]) if names[i] else "clear line"
        else:
            test = "closed window " + " ".join(names[i])
        out.append(Margin(mm, test.strip(), mm < close_call))
    return out


def _old_deciding(
    table: Table,
    solid: frozenset[str],
    ranks: np.ndarray,
    need: np.ndarray,
    s: np.ndarray,
    g: np.ndarray,
    visible: np.ndarray,
    hi: np.ndarray,
    closers: Sequence[tuple[str, ...]],
) -> list[tuple[str, ...]]:
    """The pieces each margin rests on: for a pair not in sight, those closing its
    window; for one in sight, the pieces of the target's size or larger that reach into
    the window once grown by the first level failed (none when every level passed)."""
    out: list[tuple[str, ...]] = [tuple(c) for c in closers]
    for level in np.unique(hi[visible]).tolist():
        if level >= len(LEVELS):
            continue
        rows = np.flatnonzero(visible & (hi == level))
        near = near_copy(table, solid, -LEVELS[level], ranks, s[rows], g[rows])
        reach = sight.window_reach(near.table, near.s, near.g, index=near.ix)
        for i, inside in zip(rows.tolist(), reach, strict=True):
            out[i] = tuple(near.ix.ids[k] for k in inside if near.ranks[k] >= need[i])
    for i in np.flatnonzero(visible & (hi >= len(LEVELS))).tolist():
        out[i] = ()
    return out


def test_levels_are_kept_by_what_they_rest_on() -> None:
    """An equal table under another name, options or sizes finds the same levels (and
    rules the same); a moved model, another tolerance or beam does not; at most
    ``_LEVELS_KEPT`` tables' levels are kept."""
    darkage_levels.levels.cache_clear()
    table = _tables(4)[1]
    largest = darkage_margins.LEVELS[-1]
    found = darkage_levels.levels(table, largest)
    renamed = replace(table, name="another", options=(("close_call", 0.5),))
    assert darkage_levels.levels(renamed, largest) is found
    pairs = [(a.id, b.id) for a in table.models[:4] for b in table.models if a.side != b.side]
    want = [r.to_json() for r in darkage.rulings(table, pairs)]
    assert [r.to_json() for r in darkage.rulings(replace(table, name="x"), pairs)] == want
    first = table.models[0]
    moved = replace(first, at=Point(first.at.x + 1.0, first.at.y))
    others = [
        replace(table, models=(moved, *table.models[1:])),
        replace(table, contact_tolerance=table.contact_tolerance + 0.25),
        replace(table, beam=table.beam + 0.5),
        replace(table, models=table.models[1:]),
    ]
    for other in others:
        assert darkage_levels.levels(other, largest) is not found
    assert darkage_levels.levels(table, largest) is not found  # the oldest dropped
    assert darkage_levels._LEVELS_KEPT == 4
