"""The caches and fast paths of the Frostgrave one-shooter ask: each keyed by the content
its answer depends on, each answer equal to a fresh build's after that content changes."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import numpy as np
import pytest

import arbitre
from arbitre import backend, sight, sight_twins
from arbitre.geometry import Disc, Point
from arbitre.rules import frostgrave_margins, frostgrave_pair, frostgrave_windows
from arbitre.table import Table
from arbitre.testing import random_table


def _same_index(a: sight.SightIndex, b: sight.SightIndex) -> None:
    assert a.ids == b.ids and a.n_terrain == b.n_terrain and a.half == b.half
    assert np.array_equal(a.bridge_ends, b.bridge_ends)
    assert np.array_equal(a.blocks, b.blocks)
    for x, y in zip(a.packed, b.packed, strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)


def _fresh(table: Table, **kw: object) -> sight.SightIndex:
    saved = dict(sight._BASE_BRIDGES)
    sight._BASE_BRIDGES.clear()
    try:
        return sight.build_index(table, **kw)  # type: ignore[arg-type]
    finally:
        sight._BASE_BRIDGES.update(saved)


def _changes(table: Table) -> list[Table]:
    """Tables that differ from ``table`` in one thing an index depends on."""
    m = table.models[1]
    piece = table.terrain[0]
    return [
        table.moved(m.id, Point(m.at.x + 0.25, m.at.y)),
        dataclasses.replace(
            table,
            models=tuple(
                dataclasses.replace(x, base=Disc(x.base.diameter + 2.0)) if x.id == m.id else x
                for x in table.models
            ),
        ),
        dataclasses.replace(
            table,
            models=tuple(dataclasses.replace(x, id=x.id + "b") for x in table.models),
        ),
        dataclasses.replace(table, contact_tolerance=table.contact_tolerance + 0.7),
        dataclasses.replace(table, beam=table.beam + 1.0),
        dataclasses.replace(table, terrain=table.terrain[1:]),
        dataclasses.replace(table, terrain=(*table.terrain[1:], piece)),
    ]


@pytest.mark.parametrize("seed", range(4))
def test_the_sight_index_is_found_by_content_and_a_change_builds_afresh(seed: int) -> None:
    table = random_table(seed, models=14, terrain=9)
    first = sight.sight_index(table)
    renamed = dataclasses.replace(table, name="another name", options=(("x", 1),))
    assert sight.sight_index(renamed) is first  # the same content: the same index
    _same_index(first, _fresh(table))
    for changed in _changes(table):
        got = sight.sight_index(changed)
        assert got is not first
        _same_index(got, _fresh(changed))
        assert sight.sight_index(dataclasses.replace(changed, name="again")) is got
    walls = sight.walls_with_windows(table)
    if walls:
        opened = sight.sight_index(table, solid=walls)
        _same_index(opened, _fresh(table, solid=walls))
        assert sight.sight_index(renamed, solid=walls) is opened


def test_the_sight_index_cache_is_bounded() -> None:
    table = random_table(1, models=6, terrain=4)
    m = table.models[0]
    for k in range(sight._INDEX_KEEP + 10):
        sight.sight_index(table.moved(m.id, Point(m.at.x + 0.01 * k, m.at.y)))
    assert len(sight.sight_index._kept) <= sight._INDEX_KEEP


def _forget() -> None:
    """Every cache of the sight index, the gaps and the window contacts emptied: what a
    fresh process starts from."""
    sight.sight_index.cache_clear()
    frostgrave_margins._GAPS.clear()
    frostgrave_windows._CONTACTS.clear()
    frostgrave_pair._TOUCH.clear()


def _json(table: Table, pairs: list[tuple[str, str]]) -> object:
    out = arbitre.ask(table, "los", rules="frostgrave", pairs=pairs).to_json()
    out = json.loads(json.dumps(out, sort_keys=True, default=str))
    out.pop("table", None)
    return out


@pytest.mark.parametrize("seed", [2, 3, 14])
def test_a_dragged_model_is_ruled_as_a_fresh_process_rules_it(seed: int) -> None:
    """One model dragged step by step, every ask after the first finding the terrain's
    caches warm: each answer equals the one with every cache emptied first."""
    table = random_table(seed, models=24, terrain=14, width=600, depth=600)
    a = table.models[0]
    pairs = [(a.id, b.id) for b in table.models if b.side != a.side]
    mover = table.models[3]
    if seed == 2:  # a model at a window (m19 at t13's), dragged off it step by step
        mover = table.model("m19")
        pairs += [(b.id, mover.id) for b in table.models if b.side != mover.side]
    for step in range(4):
        table = table.moved(mover.id, Point(mover.at.x + 7.0 * step, mover.at.y - 3.0 * step))
        warm = _json(dataclasses.replace(table, name=f"drag {step}"), pairs)
        _forget()
        cold = _json(dataclasses.replace(table, name=f"cold {step}"), pairs)
        assert warm == cold


def _share_cases(seed: int) -> list[tuple[Any, ...]]:
    """Seeded arguments of ``kernels.visible_share`` for segment targets: origins at
    models' centres, on pieces and anywhere; segments across the table, window openings,
    short ones and ones in line with the origin; every candidate or those in the wedge;
    beams of none, thin and wide, grazing or not."""
    rng = np.random.default_rng(seed)
    table = random_table(seed, models=12, terrain=10, degenerate=seed % 3 == 0)
    ix = sight.sight_index(table)
    kind, disc, eoff, edges, _ = ix.packed
    cases: list[tuple[object, ...]] = []
    for _ in range(14):
        if rng.random() < 0.5:
            o = table.models[int(rng.integers(len(table.models)))].at
        else:
            o = Point(*(float(v) for v in rng.uniform(0.0, table.width, 2)))
        p = Point(*(float(v) for v in rng.uniform(0.0, table.width, 2)))
        roll = rng.random()
        if roll < 0.2:  # in line with the origin
            q = Point(o.x + 2.0 * (p.x - o.x), o.y + 2.0 * (p.y - o.y))
        elif roll < 0.5:
            q = Point(p.x + float(rng.normal(0, 8)), p.y + float(rng.normal(0, 8)))
        else:
            q = Point(*(float(v) for v in rng.uniform(0.0, table.width, 2)))
        t = np.array([p.x, p.y, q.x, q.y])
        cand = sight._candidates(ix, (), None)
        if rng.random() < 0.5 and len(cand):
            cand = cand[sight._in_wedge(ix, cand, o, (p, q))]
        half = float(rng.choice([0.0, 1e-9, 0.25, ix.half, 3.0]))
        grazing = bool(rng.random() < 0.5)
        cases.append((o.x, o.y, 1, t, cand, len(cand), kind, disc, eoff, edges, half, grazing))
        # a disc target: a base (or none, F8), or a disc about the origin
        r = float(rng.choice([0.0, 1e-12, 12.5, 40.0]))
        c = np.array([p.x, p.y, r]) if rng.random() < 0.9 else np.array([o.x, o.y, 5.0])
        cases.append((o.x, o.y, 0, c, cand, len(cand), kind, disc, eoff, edges, half, grazing))
    return cases


def _same_floats(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return all(
        (x == y and math.copysign(1, x) == math.copysign(1, y)) or (x != x and y != y)
        for x, y in zip(a, b, strict=True)
    )


@pytest.mark.parametrize("seed", range(12))
def test_the_numpy_twin_of_visible_share_gives_the_interpreted_kernels_floats(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sight_twins, "SHARE_NUMPY_FROM", 0)  # the twin's own way for every case
    k = backend.interpreted()
    for args in _share_cases(seed):
        want = tuple(float(v) for v in k.visible_share(*args))
        got = tuple(float(v) for v in sight_twins.visible_share_numpy(*args))
        assert _same_floats(got, want), (args[:4], args[10:], got, want)


def test_the_share_cases_hide_targets_in_part_under_every_beam() -> None:
    """Not vacuous: some cases' targets are partly hidden (their gaps were tested one by
    one), with no beam and with one."""
    k = backend.interpreted()
    partial = set()
    for seed in range(12):
        for args in _share_cases(seed):
            if 0.0 < float(k.visible_share(*args)[0]) < 1.0:
                partial.add(float(args[10]) > 0.0)
    assert partial == {False, True}


@pytest.mark.parametrize("seed", [2, 3, 9, 14])
def test_window_contacts_follow_a_model_onto_and_off_a_window(seed: int) -> None:
    """The contacts found by base after a model moves (onto another's window, then off
    it) equal those measured afresh, and a renamed table finds them all."""
    table = random_table(seed, models=24, terrain=14, width=600, depth=600)
    at = frostgrave_windows.window_contacts(table)
    (holder, contacts), *_ = at.items()
    other = next(m for m in table.models if m.id not in at)
    moved = table.moved(other.id, table.model(holder).at)
    steps = [moved, moved.moved(holder, Point(-500.0, -500.0)), table]
    for step in [*steps, dataclasses.replace(table, name="renamed")]:
        got = frostgrave_windows.window_contacts(step)
        frostgrave_windows._CONTACTS.clear()
        assert got == frostgrave_windows.window_contacts(step)
    assert other.id in frostgrave_windows.window_contacts(moved)
    assert holder not in frostgrave_windows.window_contacts(steps[1])
    assert frostgrave_windows.window_contacts(table)[holder] == contacts


def test_gaps_follow_a_moved_base() -> None:
    table = random_table(5, models=16, terrain=10)
    ids = [m.id for m in table.models] + [t.id for t in table.terrain]
    pairs = [(p, q) for i, p in enumerate(ids) for q in ids[i + 1 :]]
    first = frostgrave_margins.gaps_between(table, pairs)
    m = table.models[2]
    moved = table.moved(m.id, Point(m.at.x + 3.0, m.at.y + 1.0))
    got = frostgrave_margins.gaps_between(moved, pairs)
    frostgrave_margins._GAPS.clear()
    assert got == frostgrave_margins.gaps_between(moved, pairs)
    assert got != first  # the moved base's gaps changed (not vacuous)
    assert all(got[pq] == first[pq] for pq in pairs if m.id not in pq)
    frostgrave_margins._GAPS.clear()
    assert frostgrave_margins.gaps_between(table, pairs) == first


def test_f4_contacts_follow_a_moved_target() -> None:
    """A target moved against a small piece touches it, moved off it does not: the
    contacts found by base equal those measured afresh at every step."""
    table = random_table(4, models=10, terrain=12)
    small = next(t for t in table.terrain if not t.blocks)
    m = table.models[1]
    shape = small.footprint.shape()
    edge = shape.exterior.coords[0] if hasattr(shape, "exterior") else shape.coords[0]
    against = table.moved(m.id, Point(float(edge[0]), float(edge[1])))
    away = table.moved(m.id, Point(-400.0, -400.0))
    seen = []
    for step in (table, against, away, against):
        got = frostgrave_pair._contacts_of(step, [(m.id, small.id)])
        frostgrave_pair._TOUCH.clear()
        assert got == frostgrave_pair._contacts_of(step, [(m.id, small.id)])
        seen.append(got[0][(m.id, small.id)])
    assert seen[1:] == [True, False, True]


def _nearby_cases(seed: int) -> list[tuple[Any, ...]]:
    """Seeded arguments of ``kernels.line_nearby`` as the Frostgrave margins give them:
    the centre lines of models' pairs (their own bases left out), and segments from
    anywhere to anywhere; beams of none, thin and wide; a cap that some lines exceed."""
    rng = np.random.default_rng(seed)
    table = random_table(seed, models=14, terrain=10, degenerate=seed % 3 == 0)
    ix = sight.sight_index(table)
    kind, disc, eoff, edges, bbox = ix.packed
    xy, _ = sight.positions(table)
    n = len(table.models)
    s = rng.integers(0, n, 12)
    g = (s + rng.integers(1, n, 12)) % n
    segs = np.hstack([xy[s], xy[g]])
    free = rng.uniform(0.0, table.width, (4, 4))
    small = np.zeros(ix.n_pieces, np.bool_)
    small[: ix.n_terrain] = ~ix.blocks[: ix.n_terrain]
    cases: list[tuple[object, ...]] = []
    for half in (0.0, ix.half, 2.5):
        for cap in (32, 2):
            cases.append(
                (
                    np.ascontiguousarray(np.vstack([segs, free])),
                    np.concatenate([ix.n_terrain + s, [-1] * 4]).astype(np.int64),
                    np.concatenate([ix.n_terrain + g, [-1] * 4]).astype(np.int64),
                    kind,
                    disc,
                    eoff,
                    edges,
                    bbox,
                    ix.n_pieces,
                    small,
                    half,
                    half + 51.0,
                    3.0 + 2 * half,
                    33,
                    cap,
                )
            )
    return cases


@pytest.mark.parametrize("seed", range(8))
def test_the_numpy_twin_of_line_nearby_gives_the_interpreted_kernels_arrays(seed: int) -> None:
    k = backend.interpreted()
    deep = 0
    for args in _nearby_cases(seed):
        want = k.line_nearby(*args)
        got = sight_twins.line_nearby_numpy(*args)
        for x, y in zip(got, want, strict=True):
            assert x.dtype == y.dtype and x.shape == y.shape
            assert np.array_equal(x, y, equal_nan=True)
            assert np.array_equal(np.signbit(x), np.signbit(y))
        deep += int((want[7] > float(args[10])).sum())  # slacks past half: depths measured
    assert deep


def _all_pairs_bridges(table: Table, erode: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The oracle: every bridge with a base, measured by the general search over every
    pair of pieces (terrain and bases alike), none remembered."""
    tol = table.contact_tolerance + erode
    tp = sight._terrain_packing(table.terrain, frozenset(), frozenset(), erode, tol)
    xyr = sight._xyr(table)
    bases = np.column_stack([xyr[:, :2], np.maximum(xyr[:, 2] - erode, 0.0)])
    disc = np.vstack([tp.disc, bases])
    shapes = [*tp.shapes, *([None] * len(bases))]
    found, lines = sight._new_bridges(disc, shapes, tol, None)
    keep = found[:, 1] >= len(tp.ids)
    return found[keep], lines[keep]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("erode", [0.0, 0.3])
def test_bases_bridges_found_by_base_equal_the_search_over_every_pair(
    seed: int, erode: float
) -> None:
    """Models dragged one after another onto pieces and other bases: the bridges of the
    bases with the terrain found by base, and those between bases, equal the general
    search's at every step, in the same order."""
    table = random_table(seed, models=16, terrain=10, degenerate=seed % 2 == 1)
    rng = np.random.default_rng(seed)
    sight._TERRAIN_CONTACTS.clear()
    touching = 0
    for step in range(6):
        tol = table.contact_tolerance + erode
        tp = sight._terrain_packing(table.terrain, frozenset(), frozenset(), erode, tol)
        xyr = sight._xyr(table)
        bases = np.column_stack([xyr[:, :2], np.maximum(xyr[:, 2] - erode, 0.0)])
        disc = np.vstack([tp.disc, bases])
        shapes = [*tp.shapes, *([None] * len(bases))]
        got = sight._bridges_of_bases(disc, shapes, tol, tp)
        want = _all_pairs_bridges(table, erode)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        touching += len(want[0])
        # the next step: a model pressed against a piece's corner or another base
        m = table.models[int(rng.integers(len(table.models)))]
        if step % 2 and table.terrain:
            shape = table.terrain[int(rng.integers(len(table.terrain)))].footprint.shape()
            x, y = shape.exterior.coords[0] if hasattr(shape, "exterior") else (0.0, 0.0)
            to = Point(float(x) + m.base.radius, float(y))
        else:
            other = table.models[int(rng.integers(len(table.models)))]
            to = Point(other.at.x + other.base.radius + m.base.radius + 0.2, other.at.y)
        table = table.moved(m.id, to)
    assert touching


@pytest.mark.slow
def test_the_numpy_twins_give_the_interpreted_kernels_floats_on_many_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The full-strength oracle of the two twins: ~2,600 share cases, ~430 near ones."""
    monkeypatch.setattr(sight_twins, "SHARE_NUMPY_FROM", 0)
    k = backend.interpreted()
    for seed in range(12, 200):
        for args in _share_cases(seed):
            want = tuple(float(v) for v in k.visible_share(*args))
            got = tuple(float(v) for v in sight_twins.visible_share_numpy(*args))
            assert _same_floats(got, want), (seed, args[:4], args[10:])
    for seed in range(8, 80):
        for near in _nearby_cases(seed):
            for x, y in zip(
                sight_twins.line_nearby_numpy(*near), k.line_nearby(*near), strict=True
            ):
                assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True), seed
