"""Mordheim M1/M8 words kept by content (``sight.seen_reason`` and ``sight.cover``): the
same reasons as wording them afresh (the former code, kept here as the oracle), on
seeded random tables and after a change of what the words are made of."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import pytest

from arbitre.i18n import N_, T_, Text, join, semicolons
from arbitre.rules.mordheim import sight, target
from arbitre.rules.mordheim.sight import PairSight, pct
from arbitre.rules.mordheim.values import DIST_EPS, MordheimOptions, length
from arbitre.rules.ruling import Reason
from arbitre.table import MM, Model, Table, Unit, Weapon
from arbitre.testing import random_table

# --- the oracle: the words as they were drawn before they were kept -----------------


def _old_cover_only(table: Table) -> frozenset[str]:
    return frozenset(t.id for t in table.terrain if not t.blocks)


def _old_shares_text(table: Table, f: PairSight, pieces: Sequence[str], whole: float) -> Text:
    alone = dict(f.hidden)
    small = _old_cover_only(table)
    words = [
        T_(
            "{piece} hides {share} (a cover piece: it hides without blocking)",
            piece=p,
            share=pct(alone.get(p, 0.0)),
        )
        if p in small
        else T_("{piece} hides {share}", piece=p, share=pct(alone.get(p, 0.0)))
        for p in pieces
    ]
    if len(words) == 1:
        return words[0]
    return T_("{share} is hidden: {pieces} (each alone)", share=pct(whole), pieces=join(words))


def _old_seen_reason(table: Table, f: PairSight) -> Reason:
    a, b = f.shooter, f.target
    if f.visible:
        words = T_(
            "{shooter} sees {share} of {target}'s base past blocking terrain and other models",
            shooter=a,
            share=pct(f.seen),
            target=b,
        )
        for w in f.ignored:
            who = a if table.model(a).inside == w else b
            words = semicolons(
                (words, T_("{piece} does not hide: {id} stands in it", piece=w, id=who))
            )
        if f.partial:
            words = semicolons((words, _old_shares_text(table, f, f.partial, 1 - f.seen)))
        return Reason("M1", (a, b, *f.partial), words)
    by = join(f.blockers, empty=N_("blocking terrain and models"))
    return Reason(
        "M1",
        (a, b, *f.blockers),
        T_("{target} is not visible to {shooter}: hidden by {by}", target=b, shooter=a, by=by),
    )


def _old_cover(
    table: Table, s: Model, t: Model, f: PairSight
) -> tuple[bool, tuple[str, ...], Reason]:
    building = t.inside if t.inside is not None and t.inside != s.inside else None
    through = f.windows if f.only_windows else ()
    extra = [p for p in (*((building,) if building else ()), *through) if p not in f.hiders]
    pieces = (*f.hiders, *dict.fromkeys(extra))
    parts = []
    if f.partly_hidden:
        parts.append(
            T_(
                "of {target}'s base seen from {shooter}, {shares}; {plain} in plain view",
                target=t.id,
                shooter=s.id,
                shares=_old_shares_text(table, f, f.hiders, 1 - f.exposed),
                plain=pct(f.exposed),
            )
        )
    if building:
        parts.append(T_("{id} stands inside building {building}", id=t.id, building=building))
    if through:
        parts.append(
            T_("{id} is seen only through a window of {walls} (M12)", id=t.id, walls=join(through))
        )
    if not parts:
        words = T_("nothing hides any part of {id}: no cover", id=t.id)
        return False, (), Reason("M8", (t.id,), words)
    words = T_("in cover: {parts}", parts=semicolons(parts))
    return True, pieces, Reason("M8", (t.id, *pieces), words)


# --- the checks -------------------------------------------------------------------------


def _pairs(table: Table, shooters: int) -> list[tuple[str, str]]:
    ids = [m.id for m in table.models]
    return [(a, b) for a in ids[:shooters] for b in ids if a != b]


def _same(table: Table, sights: Sequence[PairSight]) -> int:
    """Every sight's words, kept and afresh, equal (and rendered alike); how many were
    in cover (so that the seeds are seen to try both)."""
    covered = 0
    for f in sights:
        s, t = table.model(f.shooter), table.model(f.target)
        new_cover, old_cover = sight.cover(table, s, t, f), _old_cover(table, s, t, f)
        assert new_cover == old_cover
        assert new_cover[2].render("en") == old_cover[2].render("en")
        new_seen, old_seen = sight.seen_reason(table, f), _old_seen_reason(table, f)
        assert new_seen == old_seen
        assert new_seen.render("fr") == old_seen.render("fr")
        covered += new_cover[0]
    return covered


@pytest.mark.parametrize("seed", [1, 4, 9])
def test_kept_words_are_the_words_afresh(seed: int) -> None:
    table = random_table(seed, models=16, terrain=12)
    pairs = _pairs(table, 4)
    sights = sight.measure(table, pairs)
    assert _same(table, sights) > 0
    assert _same(table, sights) > 0  # asked again: from what was kept


def test_kept_words_follow_the_buildings_and_cover_pieces() -> None:
    """A change of what the words are made of (where the models stand, which pieces only
    give cover) gives the fresh words, not the kept ones."""
    table = random_table(4, models=16, terrain=12)
    sights = sight.measure(table, _pairs(table, 4))
    _same(table, sights)
    flipped = dataclasses.replace(
        table,
        terrain=tuple(
            dataclasses.replace(p, sight="cover" if p.blocks else "blocks") for p in table.terrain
        ),
    )
    _same(flipped, sights)  # the same sights, the cover pieces the other way
    hidden = [f for f in sights if f.partly_hidden and f.hiders]
    assert hidden
    assert any(
        sight.cover(flipped, flipped.model(f.shooter), flipped.model(f.target), f)
        != sight.cover(table, table.model(f.shooter), table.model(f.target), f)
        for f in hidden
    )
    building = table.terrain[0].id
    moved = dataclasses.replace(
        table,
        models=tuple(
            dataclasses.replace(m, inside=building) if i < 8 else m
            for i, m in enumerate(table.models)
        ),
    )
    ignored = [dataclasses.replace(f, ignored=(building,)) for f in sights]
    _same(table, ignored)
    _same(moved, ignored)  # the shooters now stand in it: other words
    f = next(f for f in ignored if f.visible and moved.model(f.target).inside is None)
    assert sight.seen_reason(moved, f) != sight.seen_reason(table, f)
    assert sight.cover(moved, moved.model(f.target), moved.model(f.shooter), f) != sight.cover(
        table, table.model(f.target), table.model(f.shooter), f
    )


def _old_in_range(
    table: Table, s: Model, e: Model, distance: float, w: Weapon | None, opts: MordheimOptions
) -> tuple[bool | None, bool | None, Reason]:
    away = (
        T_(
            "{target} is {distance} away (closest base edges)",
            target=e.id,
            distance=length(table, distance),
        )
        if opts.range_from == "edge"
        else T_(
            "{target} is {distance} away (centres)", target=e.id, distance=length(table, distance)
        )
    )
    if w is None or w.range is None:
        return None, None, Reason("M6", (s.id, e.id), away)
    within = distance <= w.range + DIST_EPS
    long_range = distance > w.range / 2 + DIST_EPS
    what = (
        T_("out of range: the shot misses automatically")
        if not within
        else T_("long range (beyond {half})", half=length(table, w.range / 2))
        if long_range
        else T_("in range, not long range")
    )
    words = T_(
        "{away}; {weapon} {range}: {what}",
        away=away,
        weapon=w.name,
        range=length(table, w.range),
        what=what,
    )
    return within, long_range, Reason("M6", (s.id, e.id), words)


@pytest.mark.parametrize("unit", [MM, Unit("in", 25.4)])
def test_kept_range_words_are_the_words_afresh(unit: Unit) -> None:
    """M6 words kept by content equal the words afresh, for each weapon, option and unit
    (asked twice: the second from what was kept); another unit gives other words."""
    table = dataclasses.replace(random_table(3, models=12, terrain=4), unit=unit)
    weapons = [None, Weapon("sling"), Weapon("bow", 600.0), Weapon("pistol", 150.0)]
    s = table.models[0]
    seen: set[bool | None] = set()
    for _ in range(2):
        for e in table.models[1:]:
            for w in weapons:
                for opts in (MordheimOptions(range_from="edge"), MordheimOptions()):
                    d = s.at.distance(e.at) - (s.base.radius + e.base.radius) * (
                        opts.range_from == "edge"
                    )
                    new = target.in_range(table, s, e, d, w, opts)
                    assert new == _old_in_range(table, s, e, d, w, opts)
                    assert new[2].render("fr") == _old_in_range(table, s, e, d, w, opts)[2].render(
                        "fr"
                    )
                    seen.add(new[1])
    assert seen == {None, True, False}
    other = dataclasses.replace(table, unit=MM if unit != MM else Unit("in", 25.4))
    e, w = table.models[1], weapons[2]
    assert target.in_range(other, s, e, 100.0, w, MordheimOptions())[2].render(
        "en"
    ) != target.in_range(table, s, e, 100.0, w, MordheimOptions())[2].render("en")


def test_deciding_order_is_the_dict_order() -> None:
    """``Draft.done``'s order and dedup of the deciding reasons, without hashing, are the
    dict forms' (equal copies, repeats and reasons not listed included)."""
    rng = random.Random(5)
    pool = [
        Reason(rule, ids, T_("{id} has no legal target", id=ids[0]))
        for rule in ("M1", "M4")
        for ids in (("a",), ("b",), ("a", "b"))
    ]
    for _ in range(300):
        listed = [rng.choice(pool) for _ in range(rng.randint(0, 7))]
        listed = [dataclasses.replace(r) if rng.random() < 0.3 else r for r in listed]
        asked = [rng.choice(pool) for _ in range(rng.randint(0, 6))]
        asked = [dataclasses.replace(r) if rng.random() < 0.3 else r for r in asked]
        order = {r: i for i, r in enumerate(listed)}
        rank = target._rank(listed)
        assert [rank(r) for r in asked] == [order.get(r, len(order)) for r in asked]
        assert target._distinct(asked) == tuple(dict.fromkeys(asked))
        assert [id(r) for r in target._distinct(asked)] == [id(r) for r in dict.fromkeys(asked)]
