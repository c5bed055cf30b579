"""The batched G8 margins of the targets seen (:func:`margins.seen_slacks`) are
:func:`margins.seen_slack` view by view, bit for bit (value and named test), in both
builds of the kernels: seeded random tables with walls, windows open and shut, buildings
and degenerate placements; crowded tables whose lines pass between bases nearly in
contact (G4 joints named); every joint decided by GEOS; and the M rules' ``measure``
with every seen margin measured one view at a time."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest

from arbitre import backend
from arbitre.geometry import Disc, Point
from arbitre.rules.mordheim import kept, margins
from arbitre.rules.mordheim import sight as msight
from arbitre.table import Model, Table
from arbitre.testing import random_table


def _kernels(build: str) -> Any:
    name = margins.KERNELS
    return backend.compiled(name) if build == "compiled" else backend.interpreted(name)


def _views(
    table: Table, p: margins.Pieces, rng: random.Random, n: int
) -> tuple[list[margins.View], list[np.ndarray]]:
    """``n`` views from one shooter to other models (some bases of no size: point
    targets), with their M1 masks."""
    a = rng.choice(table.models)
    views, masks = [], []
    for b in rng.sample([m for m in table.models if m is not a], min(n, len(table.models) - 1)):
        views.append(margins.view(a.at.x, a.at.y, b.at.x, b.at.y, b.base.radius))
        mask = np.ones(len(p.ids), dtype=np.bool_)
        mask[[p.ids.index(a.id), p.ids.index(b.id)]] = False
        masks.append(mask)
    return views, masks


def _gapped(seed: int, beam: float = 0.2) -> Table:
    """A shooter's lines to a row of targets, each passing between two bases whose gap is
    about the contact tolerance (some closed, some open, off their middle), with the
    terrain of a random table: the G4 joints limit some clearances."""
    rng = np.random.default_rng(seed)
    terrain = random_table(seed, models=4, terrain=8, width=500, depth=900).terrain
    models = [Model("s", "red", Point(40.0, 450.0), Disc(25.0))]
    for i in range(6):
        ty = 75.0 + 150.0 * i + float(rng.uniform(-10, 10))
        models.append(Model(f"x{i}", "blue", Point(470.0, ty), Disc(0.0 if i == 3 else 25.0)))
        # the line's point at x, and two bases across it with a gap ``g``
        x = 250.0 + float(rng.uniform(-20, 20))
        y = 450.0 + (ty - 450.0) * (x - 40.0) / 430.0
        g = float(rng.uniform(0.05, 1.6))
        off = float(rng.uniform(-0.4, 0.4)) * g  # where the line crosses the gap
        n = math.hypot(ty - 450.0, 430.0)
        ux, uy = (ty - 450.0) / n, -430.0 / n  # across the line
        for side, tag in ((1.0, "a"), (-1.0, "b")):
            d = side * (12.5 + g / 2.0) + off
            models.append(Model(f"g{i}{tag}", "red", Point(x + d * ux, y + d * uy), Disc(25.0)))
    return Table(width=500, depth=900, terrain=terrain, models=tuple(models), beam=beam)


def _compare(kern: Any, table: Table, windows: str, seed: int, rounds: int, n: int) -> list[str]:
    """The tests named, after checking each batch against the views one by one."""
    p = margins.index_pieces(table, windows)
    rng = random.Random(seed)
    half = table.beam / 2
    named = []
    for _ in range(rounds):
        views, masks = _views(table, p, rng, n)
        got = margins.seen_slacks(kern, table, p, views, masks, half)
        want = [
            margins.seen_slack(kern, table, p, v, m, half)
            for v, m in zip(views, masks, strict=True)
        ]
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert g == w
            assert type(g.mm) is float and (g.mm == w.mm or math.isnan(w.mm))
        named += [w.test for w in want]
    return named


@pytest.mark.parametrize("build", ["compiled", "interpreted"])
@pytest.mark.parametrize(("seed", "windows"), [(2, "open"), (5, "closed")])
def test_seen_slacks_are_seen_slack_view_by_view(
    build: str, seed: int, windows: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some views with depths into polygons to measure (GEOS, batched)."""
    table = random_table(seed, models=30, terrain=40, width=500, depth=500)
    rounds, n = (1, 6) if build == "interpreted" else (3, 12)
    jobs = []
    real = margins._meet_many

    def counting(p: margins.Pieces, batch: Any) -> None:
        jobs.append(len(batch))
        real(p, batch)

    monkeypatch.setattr(margins, "_meet_many", counting)
    named = _compare(_kernels(build), table, windows, seed, rounds, n)
    assert any(t.startswith("beam ") for t in named)
    assert sum(jobs)


def _lines_between(kern: Any, seed: int, beam: float = 0.2) -> list[str]:
    """:func:`_gapped`'s shooter to each of its targets, batched and one by one: the
    tests named, after checking them equal."""
    table = _gapped(seed, beam)
    p = margins.index_pieces(table, "open")
    half = table.beam / 2
    s = table.model("s")
    views, masks = [], []
    for b in (m for m in table.models if m.id.startswith("x")):
        views.append(margins.view(s.at.x, s.at.y, b.at.x, b.at.y, b.base.radius))
        mask = np.ones(len(p.ids), dtype=np.bool_)
        mask[[p.ids.index("s"), p.ids.index(b.id)]] = False
        masks.append(mask)
    got = margins.seen_slacks(kern, table, p, views, masks, half)
    want = [
        margins.seen_slack(kern, table, p, v, m, half) for v, m in zip(views, masks, strict=True)
    ]
    assert got == want
    return [w.test for w in want]


@pytest.mark.parametrize("build", ["compiled", "interpreted"])
def test_seen_slacks_name_the_joints_as_seen_slack(build: str) -> None:
    """Lines between bases nearly in contact: some margins are a G4 joint's."""
    named = [t for seed in (1, 2, 3) for t in _lines_between(_kernels(build), seed)]
    assert any(t.startswith("contact ") for t in named)
    assert any(t.startswith("beam g") for t in named)


def test_seen_slacks_with_every_joint_decided_by_geos(monkeypatch: pytest.MonkeyPatch) -> None:
    """No orientation sure (GEOS's ``intersects`` for every joint and segment): the
    batched doubts are the view's."""
    monkeypatch.setattr(margins, "ORIENT_ERR", 10.0)
    named = [t for seed in (1, 2, 3) for t in _lines_between(_kernels("compiled"), seed)]
    assert any(t.startswith("contact ") for t in named)


def test_seen_slacks_of_no_view() -> None:
    table = random_table(1, models=4, terrain=2)
    p = margins.index_pieces(table, "open")
    assert margins.seen_slacks(_kernels("compiled"), table, p, [], [], table.beam / 2) == []


def test_a_view_not_from_its_centre_is_measured_alone() -> None:
    """Segments not all starting at the view's centre (never one of ``margins.view``):
    ``seen_slack`` itself."""
    table = random_table(3, models=20, terrain=20, width=400, depth=400)
    p = margins.index_pieces(table, "open")
    rng = random.Random(3)
    views, masks = _views(table, p, rng, 5)
    segs = views[1].segments.copy()
    segs[::3, :2] += 0.25
    views[1] = margins.View(segs, *(getattr(views[1], f) for f in margins.View.__slots__[1:]))
    kern = _kernels("compiled")
    half = table.beam / 2
    got = margins.seen_slacks(kern, table, p, views, masks, half)
    assert got == [
        margins.seen_slack(kern, table, p, v, m, half) for v, m in zip(views, masks, strict=True)
    ]


def _one_by_one(
    kern: Any,
    table: Table,
    p: margins.Pieces,
    views: list[margins.View],
    masks: list[np.ndarray],
    half: float,
) -> list[margins.Slack]:
    return [
        margins.seen_slack(kern, table, p, v, m, half) for v, m in zip(views, masks, strict=True)
    ]


@pytest.mark.parametrize("seed", [4, 6])
def test_measure_is_the_one_view_path(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The M rules' sights of every pair of a few shooters (margins included), the seen
    margins batched or measured one view at a time, windows open and shut (M12: the
    margins with the windows shut but the shooter's own batched too)."""
    table = random_table(seed, models=30, terrain=30, degenerate=seed == 4)
    ids = [m.id for m in table.models]
    pairs = [(a, b) for a in ids[:4] for b in ids if b != a]
    every: tuple[msight.Windows, ...] = ("open", "closed")
    shut = []
    real = margins.seen_slacks

    def counting(kern: Any, t: Table, p: margins.Pieces, *args: Any) -> list[margins.Slack]:
        shut.append(p is not margins.index_pieces(t, "open") and len(args[0]))
        return real(kern, t, p, *args)

    for windows in every:
        kept.clear()  # measured, not kept from another test
        with monkeypatch.context() as m:
            m.setattr(margins, "seen_slacks", counting)
            new = msight.measure(table, pairs, windows)
        kept.clear()
        with monkeypatch.context() as m:
            m.setattr(margins, "seen_slacks", _one_by_one)
            old = msight.measure(table, pairs, windows)
        assert new == old
        assert any(s.seen_margin.mm > 0 for s in new)
    assert any(shut)  # some pairs seen with the windows shut


@pytest.mark.slow
@pytest.mark.parametrize("build", ["compiled", "interpreted"])
@pytest.mark.parametrize("seed", range(8))
def test_seen_slacks_on_more_tables(build: str, seed: int) -> None:
    kern = _kernels(build)
    odd = seed % 3 == 2
    table = random_table(seed, models=40, terrain=40, width=500, depth=500, degenerate=odd)
    for windows in ("open", "closed"):
        _compare(kern, table, windows, seed, 2 if build == "interpreted" else 6, 15)
    _lines_between(kern, seed, beam=0.1 * seed)


@pytest.mark.parametrize(("seed", "windows"), [(2, "open"), (5, "closed"), (7, "open")])
def test_clear_slacks_are_clear_slack_view_by_view(seed: int, windows: str) -> None:
    """M8, nothing hidden: the batched distances to the nearest piece are each view's own
    (value and named piece), point targets and views with no piece near included."""
    table = random_table(seed, models=30, terrain=40, width=500, depth=500)
    p = margins.index_pieces(table, windows)
    rng = random.Random(seed)
    half = table.beam / 2
    named = []
    for _ in range(4):
        views, masks = _views(table, p, rng, 12)
        if rng.random() < 0.5:  # some views with nothing near at all
            masks[0] = np.zeros(len(p.ids), dtype=np.bool_)
        got = margins.clear_slacks(p, views, masks, half)
        want = [margins.clear_slack(p, v, m, half) for v, m in zip(views, masks, strict=True)]
        assert got == want
        assert all(type(g.mm) is float for g in got)
        named += [w.test for w in want]
    assert any(t.startswith("beam ") and t != "beam" for t in named)
    assert margins.clear_slacks(p, [], [], half) == []


def test_views_are_kept_by_their_numbers_and_equal_fresh_ones() -> None:
    """A view asked again (a drag: every model that did not move) is the very view made
    the first time, equal to one made afresh to the bit; numpy and Python floats of the
    same value find it; -0.0 and 0.0 are kept apart (their arithmetic may differ)."""
    rng = random.Random(4)
    for _ in range(200):
        ox, oy, tx, ty = (rng.uniform(-50, 1250) for _ in range(4))
        r = rng.choice([0.0, 1e-12, 12.5, 20.0, rng.uniform(0, 40)])
        first = margins.view(ox, oy, tx, ty, r)
        again = margins.view(np.float64(ox), np.float64(oy), tx, ty, np.float64(r))
        assert again is first
        fresh = margins._view(ox, oy, tx, ty, r, margins.DIRECTIONS)
        assert np.array_equal(first.segments, fresh.segments)
        assert np.array_equal(first.ring, fresh.ring)
        assert (first.spacing, first.point, first.bounds) == (
            fresh.spacing,
            fresh.point,
            fresh.bounds,
        )
    assert margins.view(-0.0, 5.0, 0.0, 30.0, 12.5) is not margins.view(0.0, 5.0, 0.0, 30.0, 12.5)
