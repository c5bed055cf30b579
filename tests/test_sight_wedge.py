"""S2 on a segment with only the candidates that can matter (``sight._in_wedge``, issue
16) against every candidate, the oracle: on seeded random tables (plain and degenerate,
several beams), from model centres, random points and points in line with the pieces'
edges (where the kernel adds an edge's directions both ways), to window openings and
random segments, the share and the witness are the same, bit for bit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from arbitre import sight
from arbitre.geometry import Point, WallFootprint
from arbitre.rules.frostgrave_windows import opening_segments
from arbitre.table import Table
from arbitre.testing import random_table


def _segments(table: Table, rng: np.random.Generator) -> list[tuple[Point, Point]]:
    out = []
    for piece in table.terrain:
        fp = piece.footprint
        if isinstance(fp, WallFootprint):
            for k in range(len(fp.windows)):
                out.extend(opening_segments(fp, k))
    for _ in range(6):
        x, y = rng.uniform(0, 400, 2)
        dx, dy = rng.uniform(-40, 40, 2)
        out.append((Point(float(x), float(y)), Point(float(x + dx), float(y + dy))))
    return out


def _origins(table: Table, ix: sight.SightIndex, rng: np.random.Generator) -> list[Point]:
    out = [m.at for m in table.models[:6]]
    out += [Point(float(x), float(y)) for x, y in rng.uniform(0, 400, (4, 2))]
    edges = ix.packed[3]
    for e in rng.choice(len(edges), size=min(4, len(edges)), replace=False).tolist():
        x0, y0, x1, y1 = edges[e]
        for t in (-1.5, 2.5):  # on the edge's line, off the edge, and a beam's half aside
            ex, ey = x1 - x0, y1 - y0
            n = float(np.hypot(ex, ey)) or 1.0
            h = ix.half
            out.append(Point(x0 + t * ex - ey / n * h, y0 + t * ey + ex / n * h))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_narrowed_candidates_give_the_same_view(seed: int) -> None:
    rng = np.random.default_rng(900 + seed)
    beam = (0.0, 1.0, 4.0)[seed % 3]
    table = random_table(seed, models=14, terrain=12, width=400.0, degenerate=seed % 2 == 1)
    table = replace(table, beam=beam)
    ix = sight.sight_index(table)
    narrowed = 0
    for origin in _origins(table, ix, rng):
        for seg in _segments(table, rng):
            for half in (ix.half, ix.half + 3.0):
                probe = replace(ix, half=half)
                got = sight.view_of_segment(table, origin, seg, index=probe)
                want = sight.view_of_segment(table, origin, seg, index=probe, narrow=False)
                assert got == want, (origin, seg, half)
                cand = sight._candidates(probe, (), None)
                narrowed += int(sight._in_wedge(probe, cand, origin, seg).sum() < len(cand))
    assert narrowed > 0
