"""M8 in the cells of the Mordheim maps decided without the sight kernel where it surely
can (:func:`arbitre.kernels_maps.cover_decided`): every answer it gives is the kernel's
(:func:`regions._engine_cover_each`, the old way: the kernel at every point), and the
maps built with it are the maps built without it, bit for bit."""

from __future__ import annotations

from collections.abc import Iterator

import maps_oracle as mo
import numpy as np
import pytest

from arbitre import backend, sight
from arbitre.maps import pieces, regions
from arbitre.table import Table
from arbitre.testing import random_table

KM = "arbitre.kernels_maps"


def _tables(seeds: range) -> Iterator[tuple[int, Table]]:
    """Seeded tables of every kind: crowded or not, degenerate placements (bases on
    edges, touching: G4 bridges), beams of 0 to 2 mm, bases of 20 to 40 mm."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        yield (
            seed,
            random_table(
                seed,
                models=int(rng.integers(4, 16)),
                terrain=int(rng.integers(5, 40)),
                width=float(rng.uniform(300.0, 1000.0)),
                depth=float(rng.uniform(300.0, 1000.0)),
                degenerate=seed % 2 == 1,
                beam=float(rng.choice([1.0, 1.0, 2.0, 0.1, 0.0])),
                base=float(rng.choice([25.0, 25.0, 40.0, 20.0])),
            ),
        )


def _points(
    reg: regions.ShooterRegions, table: Table, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The centres of a shooter's cells, and seeded points near its cells' region and
    anywhere on the table (some off it)."""
    xs, ys = [np.zeros(0)], [np.zeros(0)]
    if reg.cells is not None:
        p = reg.cells.pitch
        xs.append((reg.cells.i + 0.5) * p)
        ys.append((reg.cells.j + 0.5) * p)
    if not reg.per_point.is_empty:
        x0, y0, x1, y1 = reg.per_point.bounds
        xs.append(rng.uniform(x0 - 5.0, x1 + 5.0, 200))
        ys.append(rng.uniform(y0 - 5.0, y1 + 5.0, 200))
    xs.append(rng.uniform(-20.0, table.width + 20.0, 200))
    ys.append(rng.uniform(-20.0, table.depth + 20.0, 200))
    return np.concatenate(xs), np.concatenate(ys)


def _check(seeds: range) -> tuple[int, int]:
    """Every shooter of every seeded table, windows open and shut: the decided answers
    are the kernel's, and ``_engine_cover`` is ``_engine_cover_each``. Returns the points
    asked and those decided without the kernel."""
    k = backend.compiled(KM)
    asked = decided = 0
    for seed, table in _tables(seeds):
        rng = np.random.default_rng(seed)
        s = pieces.subject(table, model=table.models[0].id)
        terrain = np.ones(len(table.terrain), dtype=bool)
        for windows_open in (True, False):
            walls = sight.walls_with_windows(table) if windows_open else frozenset()
            for a in s.shooters:
                reg = regions.mordheim(s, a, windows_open=windows_open, pitch=5.0)
                i = table.model_index(a)
                me = table.models[i]
                free = terrain.copy()
                if me.inside is not None and me.inside in table:
                    free[[t.id for t in table.terrain].index(me.inside)] = False
                px, py = _points(reg, table, rng)
                want = regions._engine_cover_each(s, i, free, walls, px, py)
                found = regions._S2(s, i, free, walls).decided(k, px, py)
                sure = found >= 0
                assert np.array_equal(found[sure], want[sure]), (seed, windows_open, a)
                got = regions._engine_cover(s, i, free, walls, px, py)
                assert got.dtype == want.dtype and np.array_equal(got, want), (seed, a)
                asked += len(px)
                decided += int(sure.sum())
    return asked, decided


def test_cover_decided_is_the_kernels_answer() -> None:
    asked, decided = _check(range(8))
    assert asked > 20_000 and decided > asked // 2, (asked, decided)


@pytest.mark.slow
def test_cover_decided_is_the_kernels_answer_on_many_tables() -> None:
    asked, decided = _check(range(8, 60))
    assert decided > asked // 2, (asked, decided)


def test_cover_decided_the_same_in_both_builds() -> None:
    """The same source interpreted answers the same (a few hundred points: slow there)."""
    table = random_table(3, models=8, terrain=20, width=600.0, depth=600.0)
    s = pieces.subject(table, model=table.models[0].id)
    walls = sight.walls_with_windows(table)
    a = s.shooters[0]
    reg = regions.mordheim(s, a, windows_open=True, pitch=5.0)
    rng = np.random.default_rng(3)
    px, py = _points(reg, table, rng)
    pick = rng.choice(len(px), min(len(px), 300), replace=False)
    px, py = px[pick], py[pick]
    free = np.ones(len(table.terrain), dtype=bool)
    s2 = regions._S2(s, table.model_index(a), free, walls)
    compiled = s2.decided(backend.compiled(KM), px, py)
    interpreted = s2.decided(backend.interpreted(KM), px, py)
    assert np.array_equal(compiled, interpreted)
    assert (compiled >= 0).sum() > len(px) // 3


def test_mordheim_regions_are_the_old_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """The regions and cells of every shooter of seeded tables, cells decided without
    the kernel or with it everywhere: the same shapes bit for bit, the same cells."""
    cells = 0
    for _, table in _tables(range(60, 66)):
        s = pieces.subject(table, model=table.models[0].id)
        for a in s.shooters:
            new = regions.mordheim(s, a, windows_open=True, pitch=4.0)
            with monkeypatch.context() as mp:
                mp.setattr(regions, "_engine_cover", regions._engine_cover_each)
                old = regions.mordheim(s, a, windows_open=True, pitch=4.0)
            mo.same_regions(new, old)
            if new.cells is not None:
                cells += len(new.cells.value)
    assert cells > 1000
