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
from arbitre.rules.mordheim import deciding, kept, margins
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
    rounds = 2 if build == "interpreted" else 8
    deep = _as_view_by_view(_kernels(build), table, p, random.Random(seed), rounds, 12)
    assert deep  # some lines run deep into pieces


def _as_view_by_view(
    kern: Any, table: Table, p: margins.Pieces, rng: random.Random, rounds: int, n: int
) -> int:
    """``rounds`` times ``n`` unseen views of one shooter: :func:`margins.hidden_slacks`
    of them all equals :func:`margins.hidden_slack` of each; how many run deep."""
    half = table.beam / 2
    deep = 0
    for _ in range(rounds):
        views, masks = _unseen_views(table, p, rng, n)
        got = margins.hidden_slacks(kern, table, p, views, masks, half)
        want = [
            margins.hidden_slack(kern, table, p, v, m, half)
            for v, m in zip(views, masks, strict=True)
        ]
        assert got == want
        deep += sum(s.mm > half for s in got)
    return deep


@pytest.mark.parametrize("seed", [4, 6, 9])
def test_hidden_slacks_on_crowded_degenerate_tables(seed: int) -> None:
    """The pieces left out of a segment below its deepest (``_apart_near``, nearest
    first) change no margin: crowded bases overlapping the lines, and a polygon GEOS
    finds invalid (whose meetings are measured row by row, never left out while it
    may meet), against the one-view form measuring every piece."""
    table = random_table(seed, models=120, terrain=30, width=400, depth=400, degenerate=True)
    p = margins.index_pieces(table, "open")
    assert not p.valid.all()  # an invalid polygon on the table
    assert _as_view_by_view(_kernels("compiled"), table, p, random.Random(seed), 10, 20)


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
    kept.clear()
    with monkeypatch.context() as m:
        m.setattr(margins, "hidden_slacks", counting)
        new = dict(_every_targets(table, every))
    mordheim.rule_targets.cache_clear()
    kept.clear()  # the pairs measured again by the old path
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


def _contacts_everywhere(table: Table) -> dict[str, frozenset[tuple[str, int]]]:
    """M12 window contacts measured for every base against every window (GEOS): the
    oracle of the box-pruned :func:`msight.window_contacts`."""
    import shapely

    from arbitre import sight
    from arbitre.geometry import WallFootprint
    from arbitre.rules.mordheim import margins as mmargins

    found: dict[str, set[tuple[str, int]]] = {}
    for piece in table.terrain:
        fp = piece.footprint
        if not isinstance(fp, WallFootprint):
            continue
        for k, window in enumerate(fp.windows):
            part = mmargins.window_part(fp, window)
            for m in table.models:
                gap = float(shapely.distance(shapely.Point(m.at.x, m.at.y), part)) - m.base.radius
                if sight.in_contact(gap, table.contact_tolerance):
                    found.setdefault(m.id, set()).add((piece.id, k))
    return {k: frozenset(v) for k, v in found.items()}


@pytest.mark.parametrize("seed", range(12))
def test_window_contacts_equal_every_base_measured(seed: int) -> None:
    """M12, G4: bases pressed at windows, some just within the contact tolerance and some
    just beyond it (1e-4 mm either side), and the rest of the table: the pruned contacts
    are the measured ones, in the same order."""
    from test_frostgrave import at_windows

    from arbitre.geometry import Point, WallFootprint
    from arbitre.rules.mordheim import sight as msight

    rng = np.random.default_rng(seed)
    table = at_windows(random_table(seed, models=24, terrain=12, width=500.0), rng)
    walls = [p for p in table.terrain if isinstance(p.footprint, WallFootprint)]
    spare = [m.id for m in table.models][-8:]
    for ident, piece in zip(spare, walls * 8, strict=False):
        fp = piece.footprint
        assert isinstance(fp, WallFootprint)
        if not fp.windows:
            continue
        w = fp.windows[-1]
        line = fp.line()
        mid = line.interpolate((w.start + w.end) / 2)
        ahead = line.interpolate((w.start + w.end) / 2 + 0.01)
        dx, dy = ahead.x - mid.x, ahead.y - mid.y
        norm = math.hypot(dx, dy)
        r = table.model(ident).base.radius
        off = fp.thickness / 2 + r + table.contact_tolerance + float(rng.choice([-1e-4, 1e-4]))
        table = table.moved(ident, Point(mid.x - dy / norm * off, mid.y + dx / norm * off))
    msight.window_contacts.cache_clear()
    got = msight.window_contacts(table)
    want = _contacts_everywhere(table)
    assert got == want
    assert list(got) == list(want)
    if any(isinstance(p.footprint, WallFootprint) and p.footprint.windows for p in walls):
        assert got  # not vacuous: at_windows pressed bases at them


def test_window_contacts_at_the_tolerance_of_an_axis_aligned_wall() -> None:
    """M12, G4: bases square in front of a window of a wall along x (its box as tight as
    it gets) and at its ends, 1e-4 mm inside and outside the contact tolerance: exactly
    those within touch it."""
    from arbitre.geometry import Disc, Point, WallFootprint, Window
    from arbitre.rules.mordheim import sight as msight
    from arbitre.table import Model, Terrain

    wall = WallFootprint((Point(100.0, 200.0), Point(400.0, 200.0)), 10.0, (Window(100.0, 160.0),))
    tol, r = 0.5, 12.5
    models, touching = [], set()
    for i, (x, side, d) in enumerate(
        [(230.0, 1, -1e-4), (230.0, -1, 1e-4), (250.0, 1, 1e-4), (250.0, -1, -1e-4)]
    ):
        y = 200.0 + side * (5.0 + r + tol + d)
        models.append(Model(f"m{i}", "red" if i % 2 else "blue", Point(x, y), Disc(2 * r)))
        if d < 0:
            touching.add(f"m{i}")
    # past the window's end along the wall (x = 260 + the gap), and well away
    models.append(Model("end", "red", Point(260.0 + r + tol - 1e-4, 200.0), Disc(2 * r)))
    models.append(Model("far", "blue", Point(30.0, 30.0), Disc(2 * r)))
    touching.add("end")
    table = Table(
        width=500,
        depth=500,
        terrain=(Terrain("w", wall),),
        models=tuple(models),
    )
    msight.window_contacts.cache_clear()
    got = msight.window_contacts(table)
    assert got == _contacts_everywhere(table)
    assert set(got) == touching


def _same_slack(a: Any, b: Any) -> bool:
    """Slacks equal, NaN equal to NaN (the loop and the arrays meet the same NaN)."""
    same_mm = a.mm == b.mm or (math.isnan(a.mm) and math.isnan(b.mm))
    return bool(same_mm and a.test == b.test)


@pytest.mark.parametrize("seed", range(40))
def test_legal_slacks_are_legal_slack_enemy_by_enemy(seed: int) -> None:
    """G8 through M3/M5: the arrays' slacks are the loop's for every enemy, the very
    Slack objects where the loop returns one, on random enemies with tied distances,
    tied and infinite and NaN slacks, barred, large, legal and unseen ones, under every
    shooter state (static refusal, sees none, from a height)."""
    rng = random.Random(seed)
    n = rng.choice([0, 1, 2, 5, 30, 100])
    pool = [0.5, 1.0, 2.0, 5.0, 10.0, math.inf, math.nan]  # 5, 10: half the gaps below

    def slack(name: str) -> margins.Slack:
        mm = rng.choice(pool) if rng.random() < 0.3 else rng.uniform(0, 40)
        return margins.Slack(mm, name)

    dists = [10.0, 20.0, 30.0, 35.5]  # tied distances, gaps whose half ties a slack
    enemies = [
        deciding.Enemy(
            f"e{i}",
            rng.choice(dists) if rng.random() < 0.4 else rng.uniform(0, 900),
            rng.random() < 0.6,
            rng.random() < 0.1,
            rng.random() < 0.2,
            slack(f"seen e{i}"),
            slack(f"own e{i}"),
            large=rng.random() < 0.1,
            legal=rng.random() < 0.5,
        )
        for i in range(n)
    ]
    for static, none, up in [(False, False, False)] * 3 + [
        (True, False, False),
        (False, True, False),
        (False, False, True),
    ]:
        got = deciding.legal_slacks(enemies, static_refusal=static, sees_none=none, up=up)
        want = [
            deciding.legal_slack(e, enemies, static_refusal=static, sees_none=none, up=up)
            for e in enemies
        ]
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert _same_slack(g, w), (g, w)
            if not w.test.startswith("closest"):
                assert g is w


def test_legal_slacks_ties_of_an_order_and_a_slack_name_the_slack() -> None:
    """M3: a closer seen enemy whose own slack equals half the gap names its own test
    (the loop keeps the fact when the order is not smaller); an unseen farther enemy
    whose seen slack equals half the gap names that slack (both must change)."""
    e0 = deciding.Enemy(
        "e0", 10.0, True, False, False, margins.Slack(3, "s0"), margins.Slack(5.0, "own e0")
    )
    e1 = deciding.Enemy(
        "e1",
        20.0,
        True,
        False,
        False,
        margins.Slack(3, "s1"),
        margins.Slack(40.0, "own e1"),
        legal=True,
    )
    e2 = deciding.Enemy(
        "e2",
        40.0,
        False,
        False,
        False,
        margins.Slack(10.0, "seen e2"),
        margins.Slack(60.0, "own e2"),
    )
    enemies = [e0, e1, e2]
    got = deciding.legal_slacks(enemies, static_refusal=False, sees_none=False, up=False)
    want = [
        deciding.legal_slack(e, enemies, static_refusal=False, sees_none=False, up=False)
        for e in enemies
    ]
    assert got == want
    assert got[1] is e0.own  # not "closest e1-e0": the order (5.0) is not below it
    e3 = deciding.Enemy(
        "e3",
        20.0,
        True,
        False,
        False,
        margins.Slack(30, "s3"),
        margins.Slack(30.0, "own e3"),
        legal=True,
    )
    enemies = [e3, e2]  # e2 unseen, 20 farther: order 10.0 = its seen slack
    got = deciding.legal_slacks(enemies, static_refusal=False, sees_none=False, up=False)
    assert got[0] is e2.seen
    assert got == [
        deciding.legal_slack(e, enemies, static_refusal=False, sees_none=False, up=False)
        for e in enemies
    ]
