"""S3 with only some pieces blocking (D3-D4): whether a few pieces close a window alone.

A window that some pieces close alone stays closed whatever else stands in it: every
segment from base to base clear of all the pieces would be clear of those few. So the
rulings ask this cheap question first (few pieces, few pinned lines) and run the exact
S3 test on every piece only where its answer is still open: which pieces close a window
(:func:`arbitre.rules.darkage._needed`), and whether a window stays closed once every
piece is shrunk (G8, :mod:`arbitre.rules.darkage_margins`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arbitre import backend, sight
from arbitre.table import Table


def xyr(table: Table) -> np.ndarray:
    """Every model's centre and base radius (n x 3, mm), as the S3 kernel takes them."""
    xy, r = sight.positions(table)
    return np.column_stack([xy, r])


def reach_lists(
    table: Table, ix: sight.SightIndex, s: np.ndarray, g: np.ndarray
) -> list[list[int]]:
    """:func:`arbitre.sight.window_reach` of the pairs of model indices ``(s[i], g[i])``
    on ``ix`` (the same kernel call), each pair's pieces as a list of ints."""
    offsets, piece = sight.window_reach_flat(table, s, g, index=ix)
    flat, cut = piece.tolist(), offsets.tolist()
    return [flat[cut[i] : cut[i + 1]] for i in range(len(cut) - 1)]


def closed_by(
    table: Table,
    ix: sight.SightIndex,
    s: np.ndarray,
    g: np.ndarray,
    sets: Sequence[Sequence[int]],
) -> np.ndarray:
    """For each pair of model indices ``(s[i], g[i])``, whether the real pieces
    ``sets[i]`` of ``ix`` close its window alone (the exact S3 test with only them
    blocking, and the G4 bridges among them): one kernel call for every pair."""
    counts = np.fromiter((len(x) for x in sets), np.int64, len(sets))
    off = np.zeros(len(sets) + 1, np.int64)
    np.cumsum(counts, out=off[1:])
    piece = np.fromiter((k for x in sets for k in x), np.int64, int(off[-1]))
    return closed_by_flat(table, ix, s, g, off, piece)


def closed_by_flat(
    table: Table,
    ix: sight.SightIndex,
    s: np.ndarray,
    g: np.ndarray,
    off: np.ndarray | Sequence[int],
    piece: np.ndarray | Sequence[int],
) -> np.ndarray:
    """:func:`closed_by` of the sets ``piece[off[i]:off[i + 1]]`` (each in increasing
    order, as the rulings name pieces, reads fastest)."""
    if not len(s):
        return np.zeros(0, np.bool_)
    found = _run("clear_among", table, ix, s, g, off, piece)
    return ~np.asarray(found, np.bool_) & (np.diff(np.asarray(off, np.int64)) > 0)


def alone_counts(
    table: Table,
    ix: sight.SightIndex,
    s: np.ndarray,
    g: np.ndarray,
    off: np.ndarray | Sequence[int],
    piece: np.ndarray | Sequence[int],
) -> tuple[np.ndarray, np.ndarray]:
    """For each pair of model indices ``(s[i], g[i])``, how many of the real pieces
    ``piece[off[i]:off[i + 1]]`` close its window alone, asked in turn until two do (0,
    1, or 2 for two or more), and the first that does (-1: none): one kernel call
    (:func:`arbitre.kernels_darkage.alone_counts`)."""
    if not len(s):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    count, first = _run("alone_counts", table, ix, s, g, off, piece)
    return np.asarray(count, np.int64), np.asarray(first, np.int64)


def in_every_closing_two(
    table: Table,
    ix: sight.SightIndex,
    s: np.ndarray,
    g: np.ndarray,
    off: np.ndarray | Sequence[int],
    piece: np.ndarray | Sequence[int],
) -> np.ndarray:
    """For each pair of model indices ``(s[i], g[i])`` and each of the real pieces
    ``piece[off[i]:off[i + 1]]`` (in increasing order), whether it is in every two of
    them that close the window alone (all are when no two do): one kernel call
    (:func:`arbitre.kernels_darkage.in_every_closing_two`)."""
    if not len(s):
        return np.zeros(len(piece), np.bool_)
    return np.asarray(_run("in_every_closing_two", table, ix, s, g, off, piece), np.bool_)


def _run(
    kernel: str,
    table: Table,
    ix: sight.SightIndex,
    s: np.ndarray,
    g: np.ndarray,
    off: np.ndarray | Sequence[int],
    piece: np.ndarray | Sequence[int],
) -> Any:
    """Run the kernel of :mod:`arbitre.kernels_darkage` named ``kernel`` on the pairs
    ``(s[i], g[i])`` and their sets of real pieces ``piece[off[i]:off[i + 1]]``."""
    off = np.asarray(off, np.int64)
    piece = np.asarray(piece, np.int64)
    pos = xyr(table)
    packed = ix.packed
    sizes = backend.piece_sizes(packed[0], packed[2])
    # each pair's broad phase looks at every piece, then S3 at its own few
    work = len(s) * len(sizes) + int(sight.window_work(sizes[piece]).sum())
    return getattr(backend.kernels(work, "arbitre.kernels_darkage"), kernel)(
        np.ascontiguousarray(pos[s]),
        np.ascontiguousarray(pos[g]),
        off,
        piece,
        ix.n_pieces,
        *packed,
        max(ix.half, 0.0),
        bool(table.option("grazing_blocks", False)),
    )
