"""The shooters' regions traced on several threads (:func:`regions.each_shooter`) are
those traced one after the other, bit for bit, in the shooters' order; an error in any
shooter, on either thread, comes up as it is and leaves the threads usable."""

from __future__ import annotations

import functools

import maps_oracle as mo
import numpy as np
import pytest
import shapely

from arbitre import maps, sight
from arbitre.maps import pieces, regions
from arbitre.testing import random_table


@pytest.mark.parametrize("seed", [3, 8, 21])
@pytest.mark.parametrize("rules", ["mordheim", "frostgrave"])
def test_threads_trace_the_regions_of_one_thread(
    seed: int, rules: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = random_table(seed, models=12, terrain=25, width=700.0, depth=600.0)
    s = pieces.subject(table, model=table.models[0].id)
    assert len(s.shooters) >= 3  # the threads are used
    ahead = None
    if rules == "mordheim":
        opened = seed % 2 == 1
        trace = functools.partial(regions.mordheim, s, windows_open=opened, pitch=5.0)
        ahead = functools.partial(regions.mordheim_ahead, s, windows_open=opened)
    else:
        trace = functools.partial(regions.frostgrave, s)
    monkeypatch.setattr(regions, "WORKERS", 1)
    regions.clear_caches()
    alone = regions.each_shooter(trace, s.shooters)
    monkeypatch.setattr(regions, "WORKERS", 2)
    regions.clear_caches()
    together = regions.each_shooter(trace, s.shooters, ahead)
    assert [r.shooter for r in together] == list(s.shooters)
    for a, b in zip(alone, together, strict=True):
        mo.same_regions(a, b)


def test_the_map_on_threads_is_the_map_on_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole map (faces, raster) the same whichever way its regions were traced."""
    table = random_table(5, models=10, terrain=20, width=600.0, depth=600.0)
    monkeypatch.setattr(regions, "WORKERS", 1)
    regions.clear_caches()
    one = maps.sight_map(table, model="m0", rules="mordheim")
    monkeypatch.setattr(regions, "WORKERS", 2)
    regions.clear_caches()
    two = maps.sight_map(table, model="m0", rules="mordheim")
    assert len(one.faces) == len(two.faces)
    for f, g in zip(one.faces, two.faces, strict=True):
        assert f.seen_by == g.seen_by
        assert shapely.equals_exact(f.shape, g.shape, tolerance=0.0)
    r1, r2 = maps.raster(one, 5.0), maps.raster(two, 5.0)
    assert np.array_equal(r1.seen, r2.seen)
    assert np.array_equal(r1.least_cover, r2.least_cover)
    assert np.array_equal(r1.most_cover, r2.most_cover)


@pytest.mark.parametrize("bad", [0, 1, 2, 5, 9])
def test_an_error_in_any_shooter_comes_up(bad: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first shooter (alone), one the calling thread takes or one the helper takes:
    the error comes up, and the threads serve the next call."""
    monkeypatch.setattr(regions, "WORKERS", 2)
    shooters = [f"s{k}" for k in range(10)]
    empty = shapely.Polygon()

    def trace(a: str) -> regions.ShooterRegions:
        if a == f"s{bad}":
            raise ValueError(a)
        return regions.ShooterRegions(a, (), empty)

    with pytest.raises(ValueError, match=f"^s{bad}$"):
        regions.each_shooter(trace, shooters)
    ok = regions.each_shooter(lambda a: regions.ShooterRegions(a, (), empty), shooters)
    assert [r.shooter for r in ok] == shooters


def test_an_error_in_the_work_found_ahead_comes_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regions, "WORKERS", 2)
    empty = shapely.Polygon()

    def ahead() -> None:
        raise ValueError("ahead")

    with pytest.raises(ValueError, match=r"^ahead$"):
        regions.each_shooter(lambda a: regions.ShooterRegions(a, (), empty), ["a", "b", "c"], ahead)


def test_the_union_found_ahead_is_the_one_a_shooter_finds() -> None:
    """:func:`regions.mordheim_ahead` keeps the union :func:`regions._near` then finds
    for a shooter outside any building (the same object, not traced again)."""
    table = random_table(4, models=8, terrain=15, width=500.0, depth=500.0)
    s = pieces.subject(table, model="m0")
    regions.clear_caches()
    regions.mordheim_ahead(s, windows_open=True)
    pc = regions._mordheim_pieces(s, sight.walls_with_windows(table))
    mask = regions._mask(pc, s, 1, np.ones(len(pc.blocks), dtype=bool))
    kept = regions._near_all.cache_info().currsize
    regions._near(s, pc, mask, sight.walls_with_windows(table))
    assert regions._near_all.cache_info().currsize == kept  # found, not traced


def test_few_shooters_and_none() -> None:
    empty = shapely.Polygon()
    assert regions.each_shooter(lambda a: regions.ShooterRegions(a, (), empty), []) == []
    two = regions.each_shooter(lambda a: regions.ShooterRegions(a, (), empty), ["a", "b"])
    assert [r.shooter for r in two] == ["a", "b"]
