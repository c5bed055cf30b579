"""The G4 bridges of S1 lists replaced by their ends in bulk (``sight._unbridge``, issue
16) against the line-by-line form it replaced, kept here as the oracle: on seeded random
tables crowded enough for bases and pieces to touch, every line's crossings, places,
``via`` and first stop are the same."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from arbitre import backend, sight
from arbitre.testing import random_table


def _oracle(ix, offsets, piece, tt, first, stop_mask):
    n = ix.n_pieces
    out_off = [0]
    out_k: list[int] = []
    out_t: list[float] = []
    out_v: list[int] = []
    for i in range(len(offsets) - 1):
        ks = piece[offsets[i] : offsets[i + 1]].tolist()
        ts = tt[offsets[i] : offsets[i + 1]].tolist()
        plain = {k for k in ks if k < n}
        listed: set[int] = set()
        for k, t in zip(ks, ts, strict=True):
            if k < n:
                out_k.append(k)
                out_t.append(t)
                out_v.append(-1)
                continue
            if not stop_mask[k]:
                continue
            e0, e1 = ix.ends(k)
            for end, other in ((e0, e1), (e1, e0)):
                if end in plain or end in listed:
                    continue
                listed.add(end)
                out_k.append(end)
                out_t.append(t)
                out_v.append(other)
        out_off.append(len(out_k))
    first = np.asarray([ix.ends(int(f))[0] if f >= n else f for f in first], np.int64)
    return out_off, out_k, out_t, out_v, first.tolist()


@pytest.mark.parametrize("seed", [0, 1, 3, 4, 5, 6, 7])  # seeds whose pieces touch
def test_unbridge_in_bulk_agrees_with_line_by_line(seed: int) -> None:
    table = random_table(seed, models=60, terrain=14, width=300.0, degenerate=seed % 2 == 1)
    ix = sight.sight_index(table)
    assert len(ix.bridge_ends)
    pairs = np.asarray(list(itertools.permutations(range(len(table.models)), 2)))
    s, g = pairs[:, 0], pairs[:, 1]
    xy = sight.positions(table)[0]
    stop_mask = ix.mask(None if seed % 3 else ~ix.blocks)  # some bridges that do not stop
    offsets, piece, tt, first = backend.kernels(len(s) * ix.work()).centre_lines(
        xy[s, 0], xy[s, 1], xy[g, 0], xy[g, 1], s + ix.n_terrain, g + ix.n_terrain,
        *ix.packed, stop_mask, ix.half, False, False,
    )  # fmt: skip
    assert (piece >= ix.n_pieces).any()
    got = sight._unbridge(ix, offsets, piece, tt, first, stop_mask)
    want = _oracle(ix, offsets, piece, tt, first, stop_mask)
    for a, b in zip(got, want, strict=True):
        assert np.asarray(a).tolist() == list(b)
