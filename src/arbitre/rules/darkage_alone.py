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

import numpy as np

from arbitre import backend, sight
from arbitre.table import Table


def xyr(table: Table) -> np.ndarray:
    """Every model's centre and base radius (n x 3, mm), as the S3 kernel takes them."""
    xy, r = sight.positions(table)
    return np.column_stack([xy, r])


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
    if not len(s):
        return np.zeros(0, np.bool_)
    counts = np.fromiter((len(x) for x in sets), np.int64, len(sets))
    off = np.zeros(len(sets) + 1, np.int64)
    np.cumsum(counts, out=off[1:])
    piece = np.fromiter((k for x in sets for k in x), np.int64, int(off[-1]))
    pos = xyr(table)
    packed = ix.packed
    sizes = backend.piece_sizes(packed[0], packed[2])
    # each pair's broad phase looks at every piece, then S3 at its own few
    work = len(s) * len(sizes) + int(sight.window_work(sizes[piece]).sum())
    found = backend.kernels(work, "arbitre.kernels_darkage").clear_among(
        np.ascontiguousarray(pos[s]),
        np.ascontiguousarray(pos[g]),
        off,
        piece,
        ix.n_pieces,
        *packed,
        max(ix.half, 0.0),
        bool(table.option("grazing_blocks", False)),
    )
    return ~np.asarray(found, np.bool_) & (counts > 0)
