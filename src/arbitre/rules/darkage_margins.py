"""G8 margins of Dark Age lines of sight (D3-D4): how far one model may move, at least,
without changing whether the target is in sight.

The bound comes from the exact S3 test run on grown or shrunk copies of the table
(:func:`arbitre.sight.sight_index` with ``erode``), never from the one witness found
(that witness is pinned against the pieces it skirts: its own clearance is often 0).

- In sight: if a clear line still joins the bases when every other piece and base is
  grown by ``m`` (and pieces whose gap is within ``tolerance + m`` touch, G4), moving
  one model by less than ``m`` leaves a clear line: the line from the moved end (or
  past the moved piece) stays within ``m`` of one that cleared the grown pieces.
- Not in sight: if no clear line joins the bases when every piece is shrunk by ``m``
  (and only pieces whose gap is within ``tolerance - m`` still touch), moving one model
  by less than ``m`` opens no line: any clear line after the move lies within ``m`` of
  a line that would clear the shrunk pieces.

``m`` is searched among :data:`LEVELS` (a bisection over them): the margin is the
largest level the test passes, 0 when even the smallest fails, and at most the largest
(a margin of :data:`LEVELS[-1]` means at least that much). ``margin_test`` names the
pieces that decide: those reaching into the window once grown by the first level
failed (in sight), or those that close it (not in sight).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from arbitre import sight
from arbitre.rules.options import shared_options
from arbitre.rules.ruling import Margin
from arbitre.table import Table

#: The margins tried, in mm, smallest first.
LEVELS = (0.02, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0)


def _solid(ix: sight.SightIndex, table: Table) -> frozenset[str]:
    """The walls whose every window ``ix`` opened (M12), so the grown copies match."""
    walls = sight.walls_with_windows(table)
    return walls if walls and ix is sight.sight_index(table, walls) else frozenset()


def _passes(
    table: Table,
    solid: frozenset[str],
    level: float,
    visible: bool,
    ranks: np.ndarray,
    need: np.ndarray,
    pairs: list[tuple[str, str]],
    closers: bool = False,
) -> list[sight.ClearLine]:
    ix = sight.sight_index(table, solid, erode=-level if visible else level)
    return sight.clear_lines(
        table, pairs, piece_rank=ranks, min_rank=need, index=ix, closers=closers
    )


def los_margins(
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
    solid = _solid(ix, table)
    ids = [(table.models[int(a)].id, table.models[int(b)].id) for a, b in zip(s, g, strict=True)]
    n = len(ids)
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
                rows = [int(i) for i in todo if mid[i] == level and bool(visible[i]) is vis]
                if not rows:
                    continue
                r = np.asarray(rows, np.int64)
                tests = _passes(
                    table, solid, LEVELS[level], vis, ranks, need[r], [ids[i] for i in rows]
                )
                for i, t in zip(rows, tests, strict=True):
                    if t.clear is vis:
                        lo[i] = level
                    else:
                        hi[i] = level
    close_call = shared_options(table).close_call
    names = _deciding(table, solid, ranks, need, s, g, visible, hi, closers)
    out = []
    for i in range(n):
        mm = 0.0 if lo[i] < 0 else LEVELS[int(lo[i])]
        test = ("clear line past " if visible[i] else "closed window ") + " ".join(names[i])
        out.append(Margin(mm, test.strip(), mm < close_call))
    return out


def _deciding(
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
        ix = sight.sight_index(table, solid, erode=-LEVELS[level])
        reach = sight.window_reach(table, s[rows], g[rows], index=ix)
        for i, near in zip(rows.tolist(), reach, strict=True):
            out[i] = tuple(ix.ids[k] for k in near if ranks[k] >= need[i])
    for i in np.flatnonzero(visible & (hi >= len(LEVELS))).tolist():
        out[i] = ()
    return out
