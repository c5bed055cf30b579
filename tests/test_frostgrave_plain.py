"""The one-pass rulings of the pairs at no window (:mod:`arbitre.rules.frostgrave_plain`)
against the general way, pair by pair (issue 16): on seeded random tables, plain and
degenerate, with models pressed against windows (so that both ways run side by side),
with and without the F9 words and the G8 margins, every ruling's JSON is the same in
every field, and its reasons the same values."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from test_frostgrave import at_windows

from arbitre.rules import frostgrave
from arbitre.rules.frostgrave_pair import _near_joins, _small_contacts, measure_pairs
from arbitre.rules.frostgrave_plain import plain_rows
from arbitre.table import Table
from arbitre.testing import random_table


def _table(seed: int, *, models: int = 14, terrain: int = 10) -> Table:
    rng = np.random.default_rng(500 + seed)
    t = random_table(
        seed, models=models, terrain=terrain, width=450.0, degenerate=seed % 3 == 2,
        beam=0.0 if seed % 5 == 4 else 1.0,
    )  # fmt: skip
    return at_windows(t, rng) if seed % 4 != 3 else t


def _both(table: Table, *, fraction: bool, margins: bool) -> tuple[list[str], list[str]]:
    pairs = list(itertools.permutations([m.id for m in table.models], 2))
    opts = frostgrave.FrostgraveOptions(visible_fraction=fraction)
    runs = []
    for plain in (True, False):
        got = frostgrave._rulings(table, pairs, opts, fractions=True, margins=margins, plain=plain)
        runs.append(got)
    fast, slow = runs
    for x, y in zip(fast, slow, strict=True):
        assert x.reasons == y.reasons, (x.shooter, x.target)
        assert x == y, (x.shooter, x.target)
    return [json.dumps(r.to_json(table.unit)) for r in fast], [
        json.dumps(r.to_json(table.unit)) for r in slow
    ]


@pytest.mark.parametrize("seed", range(10))
def test_plain_pairs_are_ruled_as_the_general_way_rules_them(seed: int) -> None:
    table = _table(seed)
    pairs = [(a.id, b.id) for a, b in itertools.permutations(table.models, 2)]
    rows = plain_rows(measure_pairs(table, pairs, margins=False))
    assert len(rows) > 0
    if seed in (0, 4, 9):  # models at windows: both ways run side by side
        assert len(rows) < len(pairs)
    for fraction, margins in ((False, True), (True, True), (True, False)):
        fast, slow = _both(table, fraction=fraction, margins=margins)
        assert fast == slow


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10, 40))
def test_plain_pairs_agree_on_many_tables(seed: int) -> None:
    table = _table(seed, models=24, terrain=16)
    fast, slow = _both(table, fraction=seed % 2 == 0, margins=True)
    assert fast == slow


@pytest.mark.parametrize("seed", range(6))
def test_bulk_measures_agree_with_the_measures_of_each_line(seed: int) -> None:
    """The G4 joins near each line and the F4 contacts, read in bulk from the batches,
    against :func:`_near_joins` over the near lists and :func:`_small_contacts` over the
    centre lines (each shooter's windows opened, F5)."""
    table = _table(seed, models=18, terrain=12)
    pairs = [(a.id, b.id) for a, b in itertools.permutations(table.models, 2)]
    m = measure_pairs(table, pairs, margins=True)
    small = m.facts.small
    want = _near_joins(table, [m.near[i] for i in range(len(pairs))], small)
    assert list(m.joins) == want
    assert any(want)
    lines = [m.lines[i] for i in range(len(pairs))]
    assert (m.touch, m.gaps) == _small_contacts(table, lines, small)
