"""The kernels of the Dark Age rulings (:mod:`arbitre.rules.darkage_alone`): the exact S3
test of many windows, each with only its own few pieces blocking, in one call.

Written once, run compiled by numba or as this same source interpreted
(:func:`arbitre.backend.kernels` ``(work, "arbitre.kernels_darkage")``). The S3 test
itself is :func:`arbitre.kernels.any_clear`, taken from the same build: the compiled one
when numba compiles this module, the interpreted one when this source runs as Python
(then ``numba`` is a stand-in, not a module, and numba is not loaded).
"""

from __future__ import annotations

import types

import numba
import numpy as np
from numba import njit, prange

if isinstance(numba, types.ModuleType):  # compiled: the compiled S3 kernels
    from arbitre.kernels import BRIDGE, any_clear
else:  # interpreted: the same kernels, interpreted too
    from arbitre.backend import interpreted

    BRIDGE = interpreted().BRIDGE
    any_clear = interpreted().any_clear


@njit(cache=True, parallel=True)
def clear_among(
    a: np.ndarray,
    b: np.ndarray,
    set_off: np.ndarray,
    set_piece: np.ndarray,
    n_pieces: int,
    kind: np.ndarray,
    disc: np.ndarray,
    eoff: np.ndarray,
    edges: np.ndarray,
    bbox: np.ndarray,
    half: float,
    grazing: bool,
) -> np.ndarray:
    """S3 for pairs of discs ``a[i]``, ``b[i]`` (x, y, r) with only the real pieces
    ``set_piece[set_off[i]:set_off[i+1]]`` blocking, and the G4 bridges (kernel pieces
    ``n_pieces..``, ``disc`` holding their ends) whose two ends are both among them.
    Pieces whose box is farther from the segment ab than the window reaches are left
    out, as :func:`arbitre.kernels.any_clear_batch` does. Returns the found flags."""
    m = a.shape[0]
    found = np.zeros(m, np.bool_)
    total = kind.shape[0]
    for i in prange(m):
        s0 = set_off[i]
        s1 = set_off[i + 1]
        reach = max(a[i, 2], b[i, 2]) + half + 1e-6
        x0 = min(a[i, 0], b[i, 0]) - reach
        x1 = max(a[i, 0], b[i, 0]) + reach
        y0 = min(a[i, 1], b[i, 1]) - reach
        y1 = max(a[i, 1], b[i, 1]) + reach
        cand = np.empty(max(total, 1), np.int64)
        nc = 0
        for k in range(total):
            if k < n_pieces:
                inside = False
                for j in range(s0, s1):
                    if set_piece[j] == k:
                        inside = True
                if not inside:
                    continue
            else:
                if kind[k] != BRIDGE:
                    continue
                e0 = int(disc[k, 0])
                e1 = int(disc[k, 1])
                n0 = False
                n1 = False
                for j in range(s0, s1):
                    if set_piece[j] == e0:
                        n0 = True
                    if set_piece[j] == e1:
                        n1 = True
                if not (n0 and n1):
                    continue
            if bbox[k, 0] > x1 or bbox[k, 2] < x0 or bbox[k, 1] > y1 or bbox[k, 3] < y0:
                continue
            cand[nc] = k
            nc += 1
        out = np.empty(4)
        found[i] = any_clear(
            a[i, 0],
            a[i, 1],
            a[i, 2],
            b[i, 0],
            b[i, 1],
            b[i, 2],
            cand,
            nc,
            kind,
            disc,
            eoff,
            edges,
            half,
            grazing,
            out,
        )
    return found
