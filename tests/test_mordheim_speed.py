"""Mordheim ``targets`` fast paths against the forms they replaced (issue 16).

- :func:`margins.hidden_slacks` (every unseen target of a shooter in one kernel call)
  is :func:`margins.hidden_slack` view by view, bit for bit, in both builds;
- with caps, a margin left unmeasured is a lower bound of the measured one, and lies
  above its cap;
- ``targets`` leaving unseen margins unmeasured where they cannot decide
  (:func:`deciding.unseen_caps`) gives the JSON (margins and their tests included) of
  the old path (every margin measured, one view at a time), for every shooter of seeded
  random tables and of the examples.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import arbitre
from arbitre import backend
from arbitre.rules import mordheim
from arbitre.rules.mordheim import deciding, margins
from arbitre.table import Table, Weapon
from arbitre.testing import random_table

KERNELS = "arbitre.kernels_mordheim"
EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("mordheim-*.yaml"))


def _kernels(build: str) -> Any:
    return backend.compiled(KERNELS) if build == "compiled" else backend.interpreted(KERNELS)


def _unseen_views(
    table: Table, p: margins.Pieces, rng: random.Random, n: int
) -> tuple[list[margins.View], list[np.ndarray]]:
    """``n`` views from one shooter to other models, with their M1 masks."""
    a = rng.choice(table.models)
    views, masks = [], []
    for b in rng.sample([m for m in table.models if m is not a], n):
        views.append(margins.view(a.at.x, a.at.y, b.at.x, b.at.y, b.base.radius))
        mask = np.ones(len(p.ids), dtype=np.bool_)
        mask[[p.ids.index(a.id), p.ids.index(b.id)]] = False
        masks.append(mask)
    return views, masks


@pytest.mark.parametrize("build", ["compiled", "interpreted"])
@pytest.mark.parametrize("seed", [2, 7])
def test_hidden_slacks_are_hidden_slack_view_by_view(build: str, seed: int) -> None:
    table = random_table(seed, models=30, terrain=40, width=500, depth=500)
    p = margins.index_pieces(table, "open")
    kern = _kernels(build)
    rng = random.Random(seed)
    half = table.beam / 2
    deep = 0
    for _ in range(2 if build == "interpreted" else 8):
        views, masks = _unseen_views(table, p, rng, 12)
        got = margins.hidden_slacks(kern, table, p, views, masks, half)
        want = [
            margins.hidden_slack(kern, table, p, v, m, half)
            for v, m in zip(views, masks, strict=True)
        ]
        assert got == want
        deep += sum(s.mm > half for s in got)
    assert deep  # some lines run deep into pieces


@pytest.mark.parametrize("seed", [2, 7, 9])
def test_capped_hidden_slacks_are_lower_bounds_above_their_caps(seed: int) -> None:
    table = random_table(seed, models=30, terrain=40, width=500, depth=500)
    p = margins.index_pieces(table, "open")
    kern = _kernels("compiled")
    rng = random.Random(seed)
    half = table.beam / 2
    capped = 0
    for _ in range(8):
        views, masks = _unseen_views(table, p, rng, 12)
        exact = margins.hidden_slacks(kern, table, p, views, masks, half)
        caps = [rng.choice([0.0, 0.5, 2.0, 10.0, math.inf]) for _ in views]
        got = margins.hidden_slacks(kern, table, p, views, masks, half, caps)
        for e, g, cap in zip(exact, got, caps, strict=True):
            if g != e:
                capped += 1
                assert cap < g.mm <= e.mm
            else:
                assert g.mm <= cap or g == e
    assert capped  # some margins were left unmeasured


def _old_hidden_slacks(
    kern: Any,
    table: Table,
    p: margins.Pieces,
    views: Sequence[margins.View],
    masks: Sequence[np.ndarray],
    half: float,
    caps: Sequence[float] | None = None,
) -> list[margins.Slack]:
    """The old path: every unseen margin measured, one view at a time."""
    pairs = zip(views, masks, strict=True)
    return [margins.hidden_slack(kern, table, p, v, m, half) for v, m in pairs]


def _armed(table: Table, seed: int) -> Table:
    """The table with bows (BS 3, ranges of 12" to 36") for every model, and a few large
    targets, moved, stunned or elevated models and fights: legal targets, priorities
    and every cap's case."""
    rng = random.Random(seed)
    ids = [m.id for m in table.models]
    fights: dict[str, set[str]] = {}
    for _ in range(len(ids) // 10):
        a, b = rng.sample(ids, 2)
        fights.setdefault(a, set()).add(b)
        fights.setdefault(b, set()).add(a)
    models = []
    for m in table.models:
        roll = rng.random()
        models.append(
            dataclasses.replace(
                m,
                stats=(("bs", 3),),
                weapons=(Weapon("bow", rng.choice([304.8, 609.6, 914.4])),),
                large_target=roll < 0.1,
                status=frozenset({"moved"} if roll > 0.9 else {"stunned"} if roll > 0.85 else ()),
                elevation=80.0 if 0.8 < roll <= 0.85 else 0.0,
                engaged=tuple(sorted(fights.get(m.id, ()))),
            )
        )
    return dataclasses.replace(table, models=tuple(models), name=f"{table.name}-armed")


def _every_targets(table: Table, every: int = 1) -> Iterator[tuple[str, str]]:
    for m in table.models[::every]:
        for windows in ("open", "closed"):
            try:
                answer = arbitre.ask(
                    table,
                    "targets",
                    rules="mordheim",
                    shooter=m.id,
                    options={"windows": windows},
                )
                text = json.dumps(answer.to_json(), sort_keys=True, default=str)
            except arbitre.ArbitreError as exc:
                text = repr(exc)
            yield f"{m.id}/{windows}", text


def _both(
    table: Table, monkeypatch: pytest.MonkeyPatch, every: int = 1
) -> tuple[dict[str, str], int]:
    """Every shooter's targets JSON, old path and new; and how many unseen margins the
    new path left unmeasured."""
    left = [0]
    real = margins.hidden_slacks

    def counting(*args: Any, **kwargs: Any) -> list[margins.Slack]:
        got = real(*args, **kwargs)
        exact = _old_hidden_slacks(*args[:6])
        left[0] += sum(g != e for g, e in zip(got, exact, strict=True))
        return got

    mordheim.rule_targets.cache_clear()
    with monkeypatch.context() as m:
        m.setattr(margins, "hidden_slacks", counting)
        new = dict(_every_targets(table, every))
    mordheim.rule_targets.cache_clear()
    with monkeypatch.context() as m:
        m.setattr(margins, "hidden_slacks", _old_hidden_slacks)
        m.setattr(mordheim, "unseen_caps", lambda enemies, *a, **k: [math.inf] * len(enemies))
        old = dict(_every_targets(table, every))
    mordheim.rule_targets.cache_clear()
    assert new.keys() == old.keys()
    for key in new:
        assert new[key] == old[key], key
    return new, left[0]


def test_targets_are_the_old_paths_on_random_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shooter in four of an armed table, and of the same table unarmed (every shooter
    refused: no BS, no weapon)."""
    table = random_table(3, models=40, terrain=30)
    rulings, left = _both(_armed(table, 3), monkeypatch, every=4)
    assert any('"legal": true' in r for r in rulings.values())
    assert left  # the caps left some unseen margins unmeasured
    _both(table, monkeypatch, every=8)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3, 4, 5, 6, 7])
def test_targets_are_the_old_paths_on_more_random_tables(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = random_table(seed, models=60, terrain=40, degenerate=seed == 4)
    _both(_armed(table, seed), monkeypatch)
    _both(table, monkeypatch, every=3)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_targets_are_the_old_paths_on_the_examples(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = arbitre.load(path)
    assert isinstance(table, Table)
    _both(table, monkeypatch)


def test_unseen_caps_never_cap_when_every_margin_counts() -> None:
    """A shooter that sees none, or stands high (M5): every unseen margin is measured."""
    e = deciding.Enemy("a", 100.0, False, False, False, margins.NO_SLACK, margins.NO_SLACK)
    height = margins.Slack(50.8, "elevation")
    for flags in ({"sees_none": True, "up": False}, {"sees_none": False, "up": True}):
        caps = deciding.unseen_caps([e], 300.0, height, static_refusal=False, **flags)
        assert caps == [math.inf]
    caps = deciding.unseen_caps([e], 300.0, height, static_refusal=False, sees_none=False, up=False)
    assert caps == [50.0]  # half range: |100 - 150|, below the elevation's 50.8


def _old_legal_slack(
    t: deciding.Enemy,
    enemies: Sequence[deciding.Enemy],
    *,
    static_refusal: bool,
    sees_none: bool,
    up: bool,
) -> margins.Slack:
    """:func:`deciding.legal_slack` as it was: every test a Slack, then the smallest."""
    smallest = deciding.smallest
    if static_refusal:
        return margins.NO_SLACK
    if sees_none:
        return smallest(e.seen for e in enemies)
    if t.barred:
        return margins.NO_SLACK
    tests = [t.own]
    if up:
        tests += [e.seen for e in enemies if e.same_building and e is not t]
        return smallest(tests)
    if t.large:
        return t.own
    for c in enemies:
        if c is t or c.barred:
            continue
        order = margins.Slack(abs(c.distance - t.distance) / 2, f"closest {t.ident}-{c.ident}")
        closer = c.distance < t.distance
        if c.visible:
            tests.append(smallest((c.own, order)) if closer else order)
        elif not t.legal:
            continue
        elif closer:
            tests.append(c.seen)
        else:
            tests.append(max((c.seen, order), key=lambda s: s.mm))
    return smallest(tests)


@pytest.mark.parametrize("seed", range(4))
def test_legal_slack_is_the_smallest_of_every_test(seed: int) -> None:
    """Seeded enemies on a coarse grid of distances and slacks (ties everywhere)."""
    rng = random.Random(seed)

    def slack(name: str) -> margins.Slack:
        return rng.choice([margins.NO_SLACK, margins.Slack(rng.randint(0, 6) / 2, name)])

    for _ in range(200):
        enemies = [
            deciding.Enemy(
                f"e{i}",
                float(rng.randint(0, 8)),
                rng.random() < 0.6,
                rng.random() < 0.15,
                rng.random() < 0.2,
                slack(f"beam e{i}"),
                slack(f"range e{i}"),
                large=rng.random() < 0.1,
                legal=rng.random() < 0.4,
            )
            for i in range(rng.randint(1, 7))
        ]
        flags = {"static_refusal": False, "sees_none": False, "up": rng.random() < 0.1}
        for t in enemies:
            got = deciding.legal_slack(t, enemies, **flags)
            assert got == _old_legal_slack(t, enemies, **flags)


def test_a_shot_s_odds_are_enumerated_once_and_equal_a_fresh_enumeration() -> None:
    """M7, M9, M4: odds kept per shot (frozen, hashed by every field) are those a fresh
    enumeration of the procedure gives, and an equal shot finds them."""
    from arbitre.rules.mordheim import shot as mshot

    mshot._odds.cache_clear()
    shots = [
        mshot.Shot("a", "b", need, in_range=r, in_cover=c, fight=f, natural_one_misses=n)
        for need in (1, 3, 6, 7, 9)
        for r in (True, False)
        for c in (True, False)
        for f in ((), ("b", "c", "d"))
        for n in (False, True)
    ]
    for s in shots:
        assert s.odds() == mshot._odds.__wrapped__(s)
        again = mshot.Shot(**{k: getattr(s, k) for k in s.__slots__})
        assert again.odds() is s.odds()
    assert mshot._odds.cache_info().misses == len(shots)
