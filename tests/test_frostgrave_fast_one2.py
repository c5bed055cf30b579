"""Frostgrave ``los`` for one shooter made faster again (issue 16 item 1): each faster
form against the form it replaced, on seeded random tables (models pressed against
windows, degenerate lines, no beam):

- the G4 gaps measured by kernel index (``gaps_by_index``) against the gaps measured by
  name (``_measure_gaps``), float for float;
- the pairs grouped by their openings at once (``opening_groups``) against the pairs
  grouped one by one;
- the centre lines of one group kept as the kernel gave them against the same lines
  scattered back from several groups;
- the window contacts sought only near the windows' boxes against every base measured,
  through a move onto a window and off it;
- the F1, F2 and F8 reasons kept by their ids against the words the general way makes;
- a target at a window whose centre line misses the window's side of the wall ruled in
  one pass (``plain_rows``) against the general way, one shooter at a time.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace

import numpy as np
import pytest
from test_frostgrave import at_windows

from arbitre import sight
from arbitre.geometry import Point
from arbitre.i18n import T_, join
from arbitre.rules import frostgrave, frostgrave_plain, frostgrave_windows
from arbitre.rules.frostgrave_margins import _measure_gaps, gaps_by_index, opening_groups
from arbitre.rules.frostgrave_pair import _line_batch, measure_pairs, model_rows
from arbitre.rules.ruling import Reason
from arbitre.table import Table
from arbitre.testing import random_table


def _table(seed: int) -> Table:
    rng = np.random.default_rng(700 + seed)
    t = random_table(
        seed, models=30, terrain=14, width=500.0, degenerate=seed % 3 == 1,
        beam=0.0 if seed % 4 == 3 else 1.0,
    )  # fmt: skip
    return at_windows(t, rng) if seed % 3 != 2 else t


def _same(x: float, y: float) -> bool:
    return x == y or (math.isnan(x) and math.isnan(y))


@pytest.mark.parametrize("seed", range(6))
def test_gaps_by_index_are_the_gaps_measured_by_name(seed: int) -> None:
    table = _table(seed)
    ids = sight.sight_index(table).ids
    rng = np.random.default_rng(seed)
    left = rng.integers(0, len(ids), 400)
    right = rng.integers(0, len(ids), 400)
    keep = left != right
    left, right = left[keep], right[keep]
    named = [(ids[p], ids[q]) for p, q in zip(left.tolist(), right.tolist(), strict=True)]
    want = _measure_gaps(table, named)
    got = gaps_by_index(table, left, right).tolist()
    for pq, gap in zip(named, got, strict=True):
        assert _same(gap, want[pq]), pq
    nt = len(table.terrain)
    kinds = {(p >= nt) + (q >= nt) for p, q in zip(left.tolist(), right.tolist(), strict=True)}
    assert kinds == {0, 1, 2}  # terrain-terrain, base-terrain and base-base met


def test_pairs_grouped_at_once_are_the_pairs_grouped_one_by_one() -> None:
    rng = np.random.default_rng(3)
    keys = [frozenset(), frozenset({("w1", 0)}), frozenset({("w1", 1), ("w2", 0)})]
    for _ in range(200):
        n = int(rng.integers(0, 12))
        choices = rng.integers(0, 1 + int(rng.integers(0, 3)), n).tolist()
        openings = [frozenset(set(keys[c])) for c in choices]  # equal sets, not one object
        want: dict[frozenset[tuple[str, int]], list[int]] = {}
        for i, o in enumerate(openings):
            want.setdefault(o, []).append(i)
        got = opening_groups(openings)
        assert [k for k, _ in got] == sorted(want, key=sorted)
        for key, rows in got:
            assert rows.dtype == np.int64 and rows.tolist() == want[key]


@pytest.mark.parametrize("seed", range(4))
def test_lines_of_one_group_are_the_lines_scattered_back(seed: int) -> None:
    table = _table(seed)
    pairs = [(a.id, b.id) for a, b in itertools.permutations(table.models[:12], 2)]
    s, g = model_rows(table, pairs)
    none: frozenset[tuple[str, int]] = frozenset()
    openings = [none] * len(pairs)
    whole = _line_batch(table, pairs, s, g, openings)
    rows = np.arange(len(pairs))
    split = [(none, rows[rows % 3 == k]) for k in range(3)]
    scattered = _line_batch(table, pairs, s, g, openings, groups=split)
    for field in ("ids", "n_terrain", "offsets", "piece", "t", "via"):
        assert getattr(whole, field) == getattr(scattered, field), field
    assert np.array_equal(whole.offsets_array, scattered.offsets_array)
    assert np.array_equal(whole.piece_array, scattered.piece_array)
    assert whole.piece  # not vacuous: the lines cross something


def _every_base_measured(table: Table) -> dict[str, tuple[frostgrave.WindowContact, ...]]:
    """The window contacts with every base measured (no box test first, nothing kept)."""
    xy, radii = sight.positions(table)
    rows = np.arange(len(xy), dtype=np.int64)
    found = frostgrave_windows._measure_contacts(table, xy, radii, rows, table.contact_tolerance)
    ids = [m.id for m in table.models]
    return {
        ids[i]: tuple(frostgrave.WindowContact(ids[i], *c) for c in cs)
        for i, cs in sorted(found.items())
    }


@pytest.mark.parametrize("seed", [0, 1, 3, 4])
def test_window_contacts_near_the_boxes_are_every_base_measured(seed: int) -> None:
    table = _table(seed)
    at = frostgrave.window_contacts(table)
    assert at  # at_windows pressed some models against a window
    holder = next(iter(at))
    other = next(m for m in table.models if m.id not in at)
    onto = table.moved(other.id, table.model(holder).at)
    steps = [table, onto, onto.moved(holder, Point(-300.0, -300.0)), table]
    for step in steps:
        for fresh in (False, True):  # found among those kept, then measured afresh
            if fresh:
                frostgrave_windows._CONTACTS.clear()
            assert frostgrave.window_contacts(step) == _every_base_measured(step)
    assert other.id in frostgrave.window_contacts(onto)


def test_the_reasons_kept_by_ids_are_the_general_words() -> None:
    crossings: list[tuple[str, ...]] = [(), ("t1",), ("m2", "t1", "m9")]
    for a, b in (("m0", "m1"), ("m1", "m0"), ("captain", "imp")):
        for crossed in crossings:
            got = frostgrave_plain._through_reason(a, b, crossed)
            if crossed:
                words = T_(
                    "centre line {shooter} -> {target} passes through {crossed}",
                    shooter=a,
                    target=b,
                    crossed=join(crossed),
                )
            else:
                words = T_(
                    "centre line {shooter} -> {target} passes through nothing",
                    shooter=a,
                    target=b,
                )
            assert got == Reason("F1", (a, b), words)
            blockers = crossed or ("t4",)
            text = T_("{target} is not visible to {shooter}", target=b, shooter=a)
            assert frostgrave_plain._unseen_reason(a, b, blockers) == Reason("F2", blockers, text)
        clear = T_("the centre line is clear: visible, no cover")
        assert frostgrave_plain._clear_reason(a, b) == Reason("F1", (a, b), clear)
        f8 = T_("{model} has no base: its centre stands for it", model=a)
        assert frostgrave_plain._f8_reason(a) == Reason("F8", (a,), f8)
        through = frostgrave_plain._through_reason(a, b, ("t1",))
        assert through.render("fr") != through.render("en")  # worded per language


@pytest.mark.parametrize("seed", [0, 1, 3, 4])
def test_targets_at_windows_missed_are_ruled_in_one_pass_as_the_general_way(seed: int) -> None:
    table = _table(seed)
    opts = frostgrave.FrostgraveOptions(visible_fraction=seed % 2 == 0)
    met = 0
    for shooter in table.models:
        pairs = [(shooter.id, b.id) for b in table.models if b.side != shooter.side]
        m = measure_pairs(table, pairs, margins=True)
        plains = set(frostgrave_plain.plain_rows(m))
        for i, (a, b) in enumerate(pairs):
            if a not in m.contacts and b in m.contacts:
                assert (i in plains) == (not any(t.crossed for t in m.in_through[i]))
                met += i in plains
        fast = frostgrave._rulings(table, pairs, opts, fractions=True, margins=True)
        slow = frostgrave._rulings(
            replace(table, name="slow"), pairs, opts, fractions=True, margins=True, plain=False
        )
        for x, y in zip(fast, slow, strict=True):
            assert x.reasons == y.reasons, (x.shooter, x.target)
            assert x == y, (x.shooter, x.target)
            for lang in ("en", "fr"):
                assert [r.render(lang) for r in x.reasons] == [r.render(lang) for r in y.reasons]
            assert json.dumps(x.to_json(table.unit)) == json.dumps(y.to_json(table.unit))
    assert met  # not vacuous: such pairs were ruled in one pass
