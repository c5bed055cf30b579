"""Frostgrave ``los`` for one shooter made faster (issue 16 item 1) rules as before, each
faster form against the form it replaced, on seeded random tables:

- the reasons of a base, a large piece and a small piece crossed, kept by their
  arguments from one ask to the next (``frostgrave_plain._base_words``, ...), against
  the makers they call, value for value and word for word;
- the gaps measured by content (``gaps_between``, each piece's content made once)
  against every gap measured afresh;
- one shooter against every enemy, the one-pass rulings against the general way, on
  fresh tables again and again (the kept reasons then found), every field the same.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from test_frostgrave import at_windows

from arbitre.rules import frostgrave, frostgrave_plain
from arbitre.rules.frostgrave_margins import _measure_gaps, gaps_between
from arbitre.rules.frostgrave_pair import _base_reason, _large_reason
from arbitre.rules.small_terrain import piece_bonus
from arbitre.table import Table
from arbitre.testing import random_table


def _table(seed: int) -> Table:
    rng = np.random.default_rng(900 + seed)
    t = random_table(
        seed, models=40, terrain=16, width=600.0, degenerate=seed % 3 == 2,
        beam=0.0 if seed % 5 == 4 else 1.0,
    )  # fmt: skip
    return at_windows(t, rng) if seed % 2 == 0 else t


def test_kept_reasons_are_the_makers_words() -> None:
    table = _table(0)
    for piece in table.terrain:
        reason, words = frostgrave_plain._large_words(piece)
        want = _large_reason(piece)
        assert reason == want and words == f"{want.rule} {piece.id}"
        for target in ("m1", "m2"):
            for touches in (False, True):
                for baseless in (False, True):
                    got = frostgrave_plain._bonus_words(target, piece.id, touches, baseless)
                    gained, r = piece_bonus(target, piece.id, touches=touches, baseless=baseless)
                    assert got == (gained, r, f"{r.rule} {piece.id}")
    for model in ("m1", "m2"):
        for joined in (None, "t3", "m4"):
            for baseless in (False, True):
                reason, words = frostgrave_plain._base_words(model, joined, baseless)
                want = _base_reason(model, joined, baseless=baseless)
                assert reason == want and words == f"F2 {' '.join(want.ids)}"
                assert str(reason.message) == str(want.message)


@pytest.mark.parametrize("seed", range(4))
def test_gaps_by_content_are_gaps_measured(seed: int) -> None:
    table = _table(seed)
    rng = np.random.default_rng(seed)
    names = [m.id for m in table.models] + [t.id for t in table.terrain]
    pairs = sorted(
        {(names[int(x)], names[int(y)]) for x, y in rng.integers(0, len(names), (300, 2)) if x != y}
    )
    want = _measure_gaps(table, pairs)
    for name in ("first", "again"):  # measured, then found among those kept
        got = gaps_between(replace(table, name=name), pairs)
        assert got.keys() == want.keys()
        for pq, v in want.items():
            assert got[pq] == v or (np.isnan(got[pq]) and np.isnan(v)), pq


@pytest.mark.parametrize("seed", range(6))
def test_one_shooter_plain_is_the_general_way(seed: int) -> None:
    table = _table(seed)
    opts = frostgrave.FrostgraveOptions(visible_fraction=seed % 2 == 1)
    for k in (0, 7, 21):
        a = table.models[k]
        pairs = [(a.id, b.id) for b in table.models if b.side != a.side]
        slow = frostgrave._rulings(
            replace(table, name="slow"), pairs, opts, fractions=True, margins=True, plain=False
        )
        for n in range(2):  # the second time, the reasons kept are found
            fast = frostgrave.rulings(replace(table, name=f"fast {n}"), pairs, options=opts)
            for x, y in zip(fast, slow, strict=True):
                assert x.reasons == y.reasons, (x.shooter, x.target)
                assert x == y, (x.shooter, x.target)
                assert json.dumps(x.to_json(table.unit)) == json.dumps(y.to_json(table.unit))
