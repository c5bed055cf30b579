"""G8 margins of Dark Age lines of sight (D3-D4): how far one model may move, at least,
without changing whether the target is in sight.

The bound comes from the exact S3 test run on grown or shrunk copies of the table
(:func:`arbitre.sight.build_index` with ``erode``), never from the one witness found
(that witness is pinned against the pieces it skirts: its own clearance is often 0).

- In sight: if a clear line still joins the bases when every other piece and base is
  grown by ``m`` (and pieces whose gap is within ``tolerance + m`` touch, G4), moving
  one model by less than ``m`` leaves a clear line: the line from the moved end (or
  past the moved piece) stays within ``m`` of one that cleared the grown pieces.
- Not in sight: if no clear line joins the bases when every piece is shrunk by ``m``
  (and only pieces whose gap is within ``tolerance - m`` still touch), moving one model
  by less than ``m`` opens no line: any clear line after the move lies within ``m`` of
  a line that would clear the shrunk pieces.

``m`` is searched among :data:`LEVELS` (the widest first, then the next widest, where
most margins of a crowded table lie, then a bisection over the rest; the test holds at
every level below one it holds at, so the order only chooses how many rounds): the
margin is the largest level the test passes, 0 when even the smallest fails, and at most
the largest (a margin of :data:`LEVELS[-1]` means at least that much). ``margin_test``
names the pieces that decide: those reaching into the window once grown by the first
level failed (in sight), or those that close it (not in sight).

The offset indexes come from :mod:`arbitre.rules.darkage_levels` (the same arrays as a
fresh build, for a fraction of its work), every one a pair may need packed once, and the
whole search of every pair is one kernel call (:func:`arbitre.kernels_darkage.level_search`:
each pair's levels asked in the order above, one after another). A pair not
in sight whose closing pieces still close its shrunk window alone is not tested against
every piece (the kernel asks that first, as
:func:`arbitre.rules.darkage_alone.closed_by` does).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from arbitre import backend, sight
from arbitre.rules import darkage_alone
from arbitre.rules.darkage_levels import levels
from arbitre.rules.options import shared_options
from arbitre.rules.ruling import Margin
from arbitre.table import Table

#: The margins tried, in mm, smallest first.
LEVELS = (0.02, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0)


def _solid(ix: sight.SightIndex, table: Table) -> frozenset[str]:
    """The walls whose every window ``ix`` opened (M12), so the grown copies match."""
    walls = sight.walls_with_windows(table)
    return walls if walls and ix is sight.sight_index(table, walls) else frozenset()


def _erode(slot: int) -> float:
    """The offset of index ``slot`` (mm: negative grows)."""
    return -LEVELS[slot] if slot < len(LEVELS) else LEVELS[slot - len(LEVELS)]


#: An offset index packed for :func:`_search` (see :func:`_packed`).
_Pack = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _packed(ix: sight.SightIndex, ranks: np.ndarray) -> _Pack:
    """An index's arrays for :func:`_search`: kind, disc, bbox, eoff, edges (the bridges
    after the real pieces), the D4 rank of every kernel piece (a bridge: the lower of
    its ends': :func:`arbitre.sight.kernel_ranks`)."""
    kind, disc, eoff, edges, bbox = ix.packed
    return kind, disc, bbox, eoff, edges, sight.kernel_ranks(ix, ranks)


def _used(visible: np.ndarray) -> list[int]:
    """The offset indexes the search may ask (by slot, see :func:`_erode`): the grown
    ones where some pair is in sight, the shrunk ones where some is not."""
    nl = len(LEVELS)
    seen = bool(visible.any())
    unseen = not bool(visible.all())
    return [k for k in range(2 * nl) if (seen if k < nl else unseen)]


def margin_indexes(
    table: Table, ix: sight.SightIndex, visible: Sequence[bool] | np.ndarray
) -> list[tuple[frozenset[str], float]]:
    """The offset indexes (as ``(solid, erode)`` keys of
    :meth:`arbitre.rules.darkage_levels.Levels.index`) that :func:`los_margins` may ask
    for pairs whose S3 answer on ``ix`` is ``visible``: a caller needing others too
    builds them all at once (:meth:`~arbitre.rules.darkage_levels.Levels.indexes`)."""
    if not len(visible):
        return []
    solid = _solid(ix, table)
    return [(solid, _erode(k)) for k in _used(np.asarray(visible, np.bool_))]


def _search(
    table: Table,
    solid: frozenset[str],
    ranks: np.ndarray,
    need: np.ndarray,
    s: np.ndarray,
    g: np.ndarray,
    visible: np.ndarray,
    off: np.ndarray,
    piece: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's largest level passed (-1: none) and smallest failed
    (``len(LEVELS)``: none), searched as the module says in one kernel call
    (:func:`arbitre.kernels_darkage.level_search`) on every offset index the pairs may
    need (grown ones where some pair is in sight, shrunk ones where some is not), pair i
    not in sight asked first with only the pieces ``piece[off[i]:off[i + 1]]``."""
    n = len(s)
    nl = len(LEVELS)
    if not n:
        return np.full(0, -1, np.int64), np.full(0, nl, np.int64)
    found = levels(table, LEVELS[-1])
    used = _used(visible)
    indexes = found.indexes([(solid, _erode(k)) for k in used])
    parts = [_packed(ix, ranks) for ix in indexes]
    sizes = np.zeros(2 * nl, np.int64)
    sizes[used] = [len(p[0]) for p in parts]
    start = np.zeros(2 * nl + 1, np.int64)
    np.cumsum(sizes, out=start[1:])
    first_edge = np.cumsum([0] + [len(p[4]) for p in parts[:-1]])
    eoff = np.concatenate(
        [p[3][:-1] + e for p, e in zip(parts, first_edge.tolist(), strict=True)]
        + [np.asarray([sum(len(p[4]) for p in parts)], np.int64)]
    )
    xyr = darkage_alone.xyr(table)
    ix0 = indexes[0]
    nt = ix0.n_terrain
    # one pair's S3 work on the widest levels (the others alike), for the build chosen
    widest = [ix for k, ix in zip(used, indexes, strict=True) if k % nl == nl - 1]
    work = n * max(ix.work(each=sight.window_work) for ix in widest)
    lo, hi = backend.kernels(work, "arbitre.kernels_darkage").level_search(
        np.ascontiguousarray(xyr[s]),
        np.ascontiguousarray(xyr[g]),
        s + nt,
        g + nt,
        np.asarray(need, np.int64),
        np.asarray(visible, np.bool_),
        off,
        piece,
        start,
        nl,
        ix0.n_pieces,
        np.concatenate([p[5] for p in parts]),
        np.concatenate([p[0] for p in parts]),
        np.vstack([p[1] for p in parts]),
        eoff,
        np.ascontiguousarray(np.vstack([p[4] for p in parts])),
        np.vstack([p[2] for p in parts]),
        max(ix0.half, 0.0),
        bool(table.option("grazing_blocks", False)),
    )
    return np.asarray(lo, np.int64), np.asarray(hi, np.int64)


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
    where = {name: k for k, name in enumerate(ix.ids)}  # every offset index numbers alike
    # the closing pieces of each pair not in sight, one after another (CSR)
    known: dict[tuple[str, ...], list[int]] = {}
    flat: list[int] = []
    counts = np.zeros(n, np.int64)
    for i, (seen, c) in enumerate(zip(visible.tolist(), closers, strict=True)):
        if seen or not c:
            continue
        ks = known.get(c)
        if ks is None:
            ks = known[c] = [where[name] for name in c]
        flat.extend(ks)
        counts[i] = len(ks)
    first = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=first[1:])
    every = np.asarray(flat, np.int64)
    lo, hi = _search(table, solid, ranks, need, s, g, visible, first, every)
    close_call = shared_options(table).close_call
    names = _deciding(table, solid, ranks, need, s, g, visible, hi, closers)
    out = []
    made: dict[tuple[int, bool, tuple[str, ...]], Margin] = {}
    for passed, seen, deciding in zip(lo.tolist(), visible.tolist(), names, strict=True):
        key = (passed, seen, deciding)
        margin = made.get(key)
        if margin is None:
            mm = 0.0 if passed < 0 else LEVELS[passed]
            if seen:
                test = "clear line past " + " ".join(deciding) if deciding else "clear line"
            else:
                test = "closed window " + " ".join(deciding)
            margin = made[key] = Margin(mm, test.strip(), mm < close_call)
        out.append(margin)
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
    rank_list, need_list = np.asarray(ranks).tolist(), np.asarray(need).tolist()
    for level in sight.distinct(hi[visible]).tolist():
        if level >= len(LEVELS):
            continue
        rows = np.flatnonzero(visible & (hi == level))
        grown = levels(table, LEVELS[-1]).index(solid, -LEVELS[level])
        reach = darkage_alone.reach_lists(table, grown, s[rows], g[rows])
        for i, inside in zip(rows.tolist(), reach, strict=True):
            least = need_list[i]
            out[i] = tuple(grown.ids[k] for k in inside if rank_list[k] >= least)
    for i in np.flatnonzero(visible & (hi >= len(LEVELS))).tolist():
        out[i] = ()
    return out
