"""G8 for ``targets`` and ``shoot``: the smallest slack among the tests a target's ruling
rests on, its own facts and, through M3 and M5, the facts of the other enemies.

A target's own facts (:func:`own_slacks`): seen or not (M1), in cover or not (M8,
M12), in range and at long range (M6: the distance against the range and half of it;
moving one model by ``δ`` changes the distance by at most ``δ``). Its legality
(:func:`legal_slack`) rests on those and, when the shooter must take the closest enemy
(M3), on each other enemy's: a closer one's facts (which decide which is easier to
hit), whether one that is not seen stays so, and the order of the distances (moving the
shooter changes two distances by ``δ`` each, so two enemies ``Δ`` apart keep their
order for ``δ < Δ/2``). From a height (M5) it rests on what the shooter sees of the
enemies in its building; a shooter that may not shoot for what it did (M1 statuses, no
weapon, M7) has no legal target whatever moves, one that sees no enemy until one comes
into view. Engagements (M4), buildings, sizes (M10) are declared, not measured: no
slack; the shooter's elevation against 2" (M5) is a threshold all the same.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from arbitre.rules.mordheim.margins import NO_SLACK, Slack
from arbitre.rules.mordheim.sight import PairSight
from arbitre.rules.mordheim.values import TWO_INCHES
from arbitre.table import Model, Weapon


def smallest(slacks: Iterable[Slack]) -> Slack:
    """The smallest of some slacks (:data:`NO_SLACK` when none)."""
    return min(slacks, key=lambda t: t.mm, default=NO_SLACK)


def own_slacks(f: PairSight, distance: float, w: Weapon | None) -> Slack:
    """The slack of a target's own facts: M1, M8/M12 (if seen), M6 range and half range.
    M10 (a height or a base against 2") is declared by the scenario: no slack."""
    tests = [f.seen_margin]
    if f.visible:
        tests.append(f.cover_margin)
    if w is not None and w.range is not None:
        tests.append(Slack(abs(distance - w.range), "range"))
        tests.append(Slack(abs(distance - w.range / 2), "half range"))
    return smallest(tests)


def elevation_slack(shooter: Model) -> Slack:
    """M5: the shooter's elevation against 2" (declared, but a threshold all the same)."""
    return Slack(abs(shooter.elevation - TWO_INCHES), "elevation")


class Enemy:
    """What :func:`legal_slack` needs of one enemy: id, distance (mm), seen, barred by
    its fight (M4), in the shooter's building, large (M10), legal, and the slacks of its
    facts."""

    __slots__ = (
        "barred",
        "distance",
        "ident",
        "large",
        "legal",
        "own",
        "same_building",
        "seen",
        "visible",
    )

    def __init__(
        self,
        ident: str,
        distance: float,
        visible: bool,
        barred: bool,
        same_building: bool,
        seen: Slack,
        own: Slack,
        *,
        large: bool = False,
        legal: bool = False,
    ) -> None:
        self.ident, self.distance, self.visible = ident, distance, visible
        self.barred, self.same_building = barred, same_building
        self.seen, self.own = seen, own
        self.large, self.legal = large, legal


def legal_slack(
    t: Enemy, enemies: Sequence[Enemy], *, static_refusal: bool, sees_none: bool, up: bool
) -> Slack:
    """How far the legality of target ``t`` is from changing (M1, M3, M5), and why.

    M3 is monotone: another enemy coming into view (or closer) only adds a closer one to
    pass over, so it matters to a legal target only; one leaving the view, or its facts
    changing (which is easier to hit), matter either way. A large target seen is legal
    whatever the others (M3)."""
    if static_refusal:  # M1, M7: the shooter may not shoot, wherever the models stand
        return NO_SLACK
    if sees_none:  # M1: until some enemy comes into view
        return smallest(e.seen for e in enemies)
    if t.barred:  # M4: declared engagements
        return NO_SLACK
    tests = [t.own]
    if up:  # M5: legal if seen, unless seen enemies in its building come first
        tests += [e.seen for e in enemies if e.same_building and e is not t]
        return smallest(tests)
    if t.large:
        return t.own
    # the smallest of the tests, the first of equals: each enemy's test as a number, its
    # Slack (and the words of an order test) made only when it is the smallest so far
    best, pick = t.own.mm, None
    who: Slack | None = t.own
    for c in enemies:
        if c is t or c.barred:
            continue
        order = abs(c.distance - t.distance) / 2
        closer = c.distance < t.distance
        if c.visible:
            # smallest((c.own, order)) when closer, else the order
            test = c.own if closer and not order < c.own.mm else None
        elif not t.legal:  # one more closer enemy cannot make it legal
            continue
        else:  # closer: c.seen; farther: max((c.seen, order)), both must change
            test = c.seen if closer or not order > c.seen.mm else None
        mm = order if test is None else test.mm
        if mm < best:
            best, who, pick = mm, test, c
    if who is not None:
        return who
    assert pick is not None  # an order test is the smallest
    return Slack(best, f"closest {t.ident}-{pick.ident}")


def legal_slacks(
    enemies: Sequence[Enemy], *, static_refusal: bool, sees_none: bool, up: bool
) -> list[Slack]:
    """:func:`legal_slack` of every enemy, the same slacks: the M3 order tests of every
    pair of enemies as arrays (a pair's test, as the loop there takes it, then the first
    smallest of each row below the target's own)."""
    n = len(enemies)
    rows = [
        t
        for t in range(n)
        if not (static_refusal or sees_none or enemies[t].barred or up or enemies[t].large)
    ]
    out: list[Slack | None] = [None] * n
    if rows:
        dist = np.asarray([e.distance for e in enemies], dtype=np.float64)
        visible = np.asarray([e.visible for e in enemies], dtype=np.bool_)
        barred = np.asarray([e.barred for e in enemies], dtype=np.bool_)
        own = np.asarray([e.own.mm for e in enemies], dtype=np.float64)
        seen = np.asarray([e.seen.mm for e in enemies], dtype=np.float64)
        r = np.asarray(rows, dtype=np.int64)
        legal = np.asarray([enemies[t].legal for t in rows], dtype=np.bool_)
        order = np.abs(dist[None, :] - dist[r, None]) / 2
        closer = dist[None, :] < dist[r, None]
        with np.errstate(invalid="ignore"):
            use_own = visible[None, :] & closer & ~(order < own[None, :])
            use_seen = ~visible[None, :] & (closer | ~(order > seen[None, :]))
        mm = np.where(use_own, own[None, :], np.where(use_seen, seen[None, :], order))
        skip = barred[None, :] | (~visible[None, :] & ~legal[:, None])
        skip[np.arange(len(r)), r] = True  # an enemy is no test of its own legality
        mm[skip | np.isnan(mm)] = np.inf  # never below a best (NaN: never smaller)
        least, first = mm.min(axis=1), np.argmin(mm, axis=1)  # rows: n >= 1 enemies
        for i, t in enumerate(rows):
            e = enemies[t]
            if not least[i] < e.own.mm:
                out[t] = e.own
                continue
            k = int(first[i])
            if use_own[i, k]:
                out[t] = enemies[k].own
            elif use_seen[i, k]:
                out[t] = enemies[k].seen
            else:
                out[t] = Slack(float(least[i]), f"closest {e.ident}-{enemies[k].ident}")
    for t in range(n):
        if out[t] is None:
            out[t] = legal_slack(
                enemies[t], enemies, static_refusal=static_refusal, sees_none=sees_none, up=up
            )
    return [x for x in out if x is not None]


def unseen_caps(
    enemies: Sequence[Enemy],
    reach: float | None,
    height: Slack,
    *,
    static_refusal: bool,
    sees_none: bool,
    up: bool,
) -> list[float]:
    """For each enemy, a slack its M1 margin (``seen``) cannot beat when it is not seen:
    larger than it, that margin changes no target's margin (:func:`legal_slack`, then
    the smallest with ``own`` and ``height``), so it need only be known to be larger
    (``math.inf``: it must be measured). ``reach``: the weapon's range (None without).

    An unseen enemy's ``seen`` is a test of its own margin, beside its range and half
    range, the elevation and (for one that may be legal, neither barred nor large) the
    order of the distances to each seen enemy not barred; and of each legal target's
    (``c.seen``, or ``max(c.seen, order)``), beside the same tests of that target. A
    value above the least of some tests of a margin is never that margin's smallest
    (whichever comes first): so a value above, for every margin it is a test of, the
    least of some of that margin's other tests changes none. Every ``seen`` counts for
    every margin when the shooter sees none or stands high (M5): none is capped."""
    if sees_none or up:
        return [math.inf] * len(enemies)
    seen = [c for c in enemies if c.visible and not c.barred]

    def cap(t: Enemy, loop: bool) -> float:
        tests = [height.mm]
        if reach is not None:
            tests += [abs(t.distance - reach), abs(t.distance - reach / 2)]
        if loop:
            tests += [abs(c.distance - t.distance) / 2 for c in seen if c is not t]
        return min(tests)

    legal = [u for u in enemies if u.legal and not u.barred and not u.large]
    # a legal target: its own tests (static refusals have none)
    beside = max((cap(u, True) for u in legal), default=-math.inf)
    return [
        math.inf
        if t.visible
        else max(cap(t, not static_refusal and not t.barred and not t.large), beside)
        for t in enemies
    ]
