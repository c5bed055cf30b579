"""Dark Age's shortcuts against the plain ways they replace, on seeded random tables:
the pieces that close a window alone (:func:`arbitre.rules.darkage_alone.closed_by`),
the closing pieces tried away only where those answers leave it open (``_needed``), and
the G8 margins' closed windows settled by their closing pieces alone (the margins against
the previous search, copies of the table near the windows: tests/test_darkage_levels.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from arbitre import backend, sight
from arbitre.rules import darkage, darkage_margins
from arbitre.rules.darkage_alone import closed_by
from arbitre.rules.ruling import Margin
from arbitre.table import Table
from arbitre.testing import random_table

SEEDS = range(6)


def _table(seed: int) -> Table:
    return random_table(seed, models=16, terrain=10, width=500.0, degenerate=seed % 3 == 0)


def _setup(
    table: Table,
) -> tuple[sight.SightIndex, np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[sight.ClearLine]]:
    ids = [m.id for m in table.models]
    pairs = [(a, b) for a in ids for b in ids if a != b]
    ix = darkage.index_for(table, darkage.DarkAgeOptions())
    ranks = darkage._ranks(table, ix)
    need = np.asarray([table.size_rank(table.model(b).size) for _, b in pairs], np.int64)
    s = np.asarray([table.model_index(a) for a, _ in pairs], np.int64)
    g = np.asarray([table.model_index(b) for _, b in pairs], np.int64)
    lines = sight.clear_lines(table, pairs, piece_rank=ranks, min_rank=need, index=ix)
    return ix, ranks, need, s, g, lines


def _alone_plainly(
    table: Table,
    ix: sight.SightIndex,
    s: np.ndarray,
    g: np.ndarray,
    sets: Sequence[tuple[int, ...]],
) -> np.ndarray:
    """The oracle: the S3 test of the whole table, one pair at a time, with only the
    pieces of the set ranked to block."""
    out = []
    for a, b, key in zip(s.tolist(), g.tolist(), sets, strict=True):
        rank = np.zeros(ix.n_pieces, np.int64)
        rank[list(key)] = 1
        pair = [(table.models[a].id, table.models[b].id)]
        line = sight.clear_lines(
            table, pair, piece_rank=rank, min_rank=np.ones(1, np.int64), index=ix, closers=False
        )[0]
        out.append(bool(key) and not line.clear)
    return np.asarray(out, np.bool_)


def _needed_plainly(
    table: Table,
    ix: sight.SightIndex,
    ranks: np.ndarray,
    need: np.ndarray,
    s: np.ndarray,
    g: np.ndarray,
    lines: Sequence[sight.ClearLine],
) -> list[tuple[str, ...]]:
    """The previous ``_needed``: every blocker of every blocked pair tried away."""
    out = []
    for i, line in enumerate(lines):
        opened = set()
        if not line.clear and len(line.blockers) > 1:
            for name in line.blockers:
                pair = [(line.observer, line.target)]
                test = sight.clear_lines(
                    table,
                    pair,
                    piece_rank=ranks,
                    min_rank=need[i : i + 1],
                    index=ix,
                    without=np.asarray([ix.ids.index(name)], np.int64),
                    closers=False,
                )[0]
                if test.clear:
                    opened.add(name)
        grown = True
        while grown:
            more = {y for x, y in line.joined if x in opened} | {
                x for x, y in line.joined if y in opened
            }
            grown = not more <= opened
            opened |= more
        out.append(tuple(n for n in line.blockers if n in opened) or line.blockers)
    return out


def _margins_plainly(
    table: Table,
    ix: sight.SightIndex,
    ranks: np.ndarray,
    need: np.ndarray,
    s: np.ndarray,
    g: np.ndarray,
    visible: np.ndarray,
) -> list[float]:
    """The previous G8 search, pair by pair: the bisection over the levels (the widest
    first), the exact S3 test on every piece of the grown or shrunk table each time."""
    solid = darkage_margins._solid(ix, table)
    levels = darkage_margins.LEVELS
    out = []
    for i in range(len(s)):
        pair = [(table.models[int(s[i])].id, table.models[int(g[i])].id)]
        lo, hi, first = -1, len(levels), True
        while hi - lo > 1:
            mid = len(levels) - 1 if first else (lo + hi) // 2
            first = False
            erode = -levels[mid] if visible[i] else levels[mid]
            eroded = sight.sight_index(table, solid, erode=erode)
            line = sight.clear_lines(
                table, pair, piece_rank=ranks, min_rank=need[i : i + 1], index=eroded, closers=False
            )[0]
            if line.clear is bool(visible[i]):
                lo = mid
            else:
                hi = mid
        out.append(0.0 if lo < 0 else levels[lo])
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_closed_by_matches_the_whole_table_test(seed: int) -> None:
    table = _table(seed)
    ix, _, _, s, g, lines = _setup(table)
    rng = np.random.default_rng(seed)
    rows, sets = [], []
    for i in range(len(lines)):
        reach = sight.window_reach(table, s[i : i + 1], g[i : i + 1], index=ix)[0].tolist()
        if reach:
            take = rng.integers(0, len(reach) + 1)
            rows.append(i)
            sets.append(tuple(sorted(rng.choice(reach, size=take, replace=False).tolist())))
    r = np.asarray(rows, np.int64)
    got = closed_by(table, ix, s[r], g[r], sets)
    want = _alone_plainly(table, ix, s[r], g[r], sets)
    assert got.tolist() == want.tolist()
    assert got.any() and not got.all()  # both answers occur: the test could fail


@pytest.mark.parametrize("seed", SEEDS)
def test_closed_by_interpreted_and_compiled_agree(seed: int) -> None:
    table = _table(seed)
    ix, _, _, s, g, lines = _setup(table)
    sets = [tuple(ix.ids.index(n) for n in line.blockers) for line in lines]
    results = []
    for build in ("never", "always"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("ARBITRE_JIT", build)
            results.append(closed_by(table, ix, s, g, sets).tolist())
    assert results[0] == results[1]
    assert backend.interpreted("arbitre.kernels_darkage").clear_among is not None


@pytest.mark.parametrize("seed", SEEDS)
def test_needed_matches_every_blocker_tried_away(seed: int) -> None:
    table = _table(seed)
    ix, ranks, need, s, g, lines = _setup(table)
    got = darkage._needed(table, ix, ranks, need, s, g, lines)
    want = _needed_plainly(table, ix, ranks, need, s, g, lines)
    assert got == want
    assert any(len(w) < len(line.blockers) for w, line in zip(want, lines, strict=True))


@pytest.mark.parametrize("seed", SEEDS)
def test_margins_match_the_plain_bisection(seed: int) -> None:
    table = _table(seed)
    ix, ranks, need, s, g, lines = _setup(table)
    visible = np.asarray([line.clear for line in lines], np.bool_)
    closers = darkage._needed(table, ix, ranks, need, s, g, lines)
    got: list[Margin] = darkage_margins.los_margins(table, ix, ranks, need, s, g, visible, closers)
    want = _margins_plainly(table, ix, ranks, need, s, g, visible)
    assert [m.mm for m in got] == want
    assert len(set(want)) > 2
