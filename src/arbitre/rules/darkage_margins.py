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

Two shortcuts keep the answers and spare work: a level asked of a few pairs runs on a
copy of the table holding only the models near their windows (:func:`near_copy`: the
kernels see there the same pieces in the same order, for less to pack), and a pair not
in sight whose closing pieces still close its shrunk window alone
(:func:`arbitre.rules.darkage_alone.closed_by`) is not tested against every piece.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from arbitre import sight
from arbitre.rules.darkage_alone import closed_by
from arbitre.rules.options import shared_options
from arbitre.rules.ruling import Margin
from arbitre.table import Table

#: The margins tried, in mm, smallest first.
LEVELS = (0.02, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0)


def _solid(ix: sight.SightIndex, table: Table) -> frozenset[str]:
    """The walls whose every window ``ix`` opened (M12), so the grown copies match."""
    walls = sight.walls_with_windows(table)
    return walls if walls and ix is sight.sight_index(table, walls) else frozenset()


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


def _passes(
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
                ok = _passes(
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
    names = _deciding(table, solid, ranks, need, s, g, visible, hi, closers)
    out = []
    for i in range(n):
        mm = 0.0 if lo[i] < 0 else LEVELS[int(lo[i])]
        if visible[i]:
            test = "clear line past " + " ".join(names[i]) if names[i] else "clear line"
        else:
            test = "closed window " + " ".join(names[i])
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
        near = near_copy(table, solid, -LEVELS[level], ranks, s[rows], g[rows])
        reach = sight.window_reach(near.table, near.s, near.g, index=near.ix)
        for i, inside in zip(rows.tolist(), reach, strict=True):
            out[i] = tuple(near.ix.ids[k] for k in inside if near.ranks[k] >= need[i])
    for i in np.flatnonzero(visible & (hi >= len(LEVELS))).tolist():
        out[i] = ()
    return out
