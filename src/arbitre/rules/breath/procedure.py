"""The dice of a breath (B4-B8), written once: :func:`resolve` is the procedure, on any
:class:`~arbitre.dice.Dice`; :func:`laws` gives its exact marginals in closed form (the
tests enumerate :func:`resolve` and compare); :func:`roll` runs it on seeded, logged dice.

Each rule's dice are one function of :mod:`arbitre.dice`, the one the icepool tests check:
B5 :func:`~arbitre.dice.breath_enveloping`, B6 :func:`~arbitre.dice.impacting_victim`
(the chain, as :func:`~arbitre.dice.breath_impacting` runs it), B8
:func:`~arbitre.dice.melee_spill`; B7 ties are :func:`~arbitre.templates.draw_order`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache, partial

from arbitre import templates
from arbitre.dice import (
    Dice,
    Distribution,
    breath_enveloping,
    chain_hit,
    check_chain,
    enumerate_procedure,
    hp_lost,
    impacting_hits,
    impacting_victim,
    melee_spill,
    roll_procedure,
)
from arbitre.errors import RulesError
from arbitre.i18n import N_, T_, Word
from arbitre.rules.breath.order import position_weights, positions
from arbitre.rules.breath.values import BreathRoll, Hit, Plan


def resolve(plan: Plan, dice: Dice) -> tuple[Hit, ...]:
    """B4-B8: resolve the breath on ``dice``; every model affected, in resolution order.

    B7 ties are drawn for an impacting chain only (nothing else depends on the order);
    after each victim engaged with opponents outside the template its B8 die is rolled
    and the opponent picked is resolved right behind it (once at most); in a chain nothing
    more is rolled once no dice are left. A chain longer than
    :data:`~arbitre.dice.MAX_CHAIN_DICE` is refused (:func:`check`).
    """
    check(plan)
    order = templates.draw_order(plan.groups, dice) if plan.chained else plan.victims
    prot, opps = dict(plan.protection), dict(plan.opponents)
    affected = set(order)
    left = plan.dice or 0
    out: list[Hit] = []

    def affect(m: str, via: str | None) -> None:
        nonlocal left
        if plan.state is not None:
            out.append(Hit(m, None, None, 0, plan.state, via))
            return
        assert plan.difficulty is not None and plan.power is not None
        if plan.nature == "enveloping":
            hp = breath_enveloping(
                dice,
                difficulty=plan.difficulty,
                power=plan.power,
                protection=prot[m],
                label=f"B5 {m}",
            )
            out.append(Hit(m, 5, None, hp, None, via))
            return
        n = left
        hits, hp = impacting_victim(
            dice,
            n,
            difficulty=plan.difficulty,
            power=plan.power,
            protection=prot[m],
            label=f"B6 {m}",
        )
        left -= hits
        out.append(Hit(m, n, hits, hp, None, via))

    for m in order:
        affect(m, None)
        cands = opps.get(m, ())
        if cands and not (plan.chained and left == 0):
            picked = melee_spill(dice, cands, label=f"B8 {m}")
            if picked is not None and picked not in affected:
                affected.add(picked)
                affect(picked, m)
    return tuple(out)


def roll(plan: Plan, seed: int) -> BreathRoll:
    """Resolve the breath once on dice seeded with ``seed``, every die logged (B4-B8)."""
    hits, log = roll_procedure(partial(resolve, plan), seed)
    return BreathRoll(hits, log)


# --- exact laws, in closed form ----------------------------------------------------------


def check(plan: Plan) -> None:
    """B6: refuse an impacting chain too long to rule exactly (dice x places, every model
    it may reach a place: :data:`~arbitre.dice.MAX_CHAIN_DICE`)."""
    if plan.chained and plan.dice:
        check_chain(plan.dice, len({*plan.victims, *(o for _, c in plan.opponents for o in c)}))


@lru_cache(maxsize=4096)
def enveloping_law(difficulty: int, power: int, protection: int) -> Distribution[int]:
    """B5: the law of HP lost by one victim, enumerated from the procedure itself."""
    return enumerate_procedure(
        partial(breath_enveloping, difficulty=difficulty, power=power, protection=protection)
    )


@lru_cache(maxsize=16384)
def impacting_mean_scaled(
    dice: int, difficulty: int, index: int, power: int, protection: int
) -> int:
    """B6 closed form: the mean HP lost by the victim at ``index`` of a chain of ``dice``,
    times 6^(dice x (index + 1)): a whole number (:func:`impacting_hp_mean`).

    With H ~ Binomial(n, a/b) (:func:`~arbitre.dice.impacting_hits`), E max(0, P H - c) =
    P n a / b - c + the sum over the few h with P h < c of (c - P h) P(H = h): no law is
    built, whatever n.
    """
    n, c = dice, protection
    q = chain_hit(difficulty, index)
    check_chain(n, index + 1)
    a, b = q.numerator, q.denominator
    if n == 0 or power == 0 or a == 0:
        return 0
    under = range(min(n, -(-c // power) - 1) + 1) if c else range(0)
    short = sum((c - power * h) * math.comb(n, h) * a**h * (b - a) ** (n - h) for h in under)
    mean_b_n = power * n * a * b ** (n - 1) - c * b**n + short  # the mean times b^n
    return int(mean_b_n * (6 ** (n * (index + 1)) // b**n))


def impacting_hp_mean(
    dice: int, difficulty: int, index: int, *, power: int, protection: int
) -> Fraction:
    """B6 closed form: the mean HP lost by the victim at ``index``, exactly, without its
    law (:func:`impacting_mean_scaled`)."""
    for value, what in (
        (dice, N_("dice (Tir + 5)")),
        (power, N_("power")),
        (protection, N_("protection")),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise RulesError(
                T_(
                    "{what} must be a whole number >= 0, got {value}",
                    what=Word(what),
                    value=repr(value),
                )
            )
    scaled = impacting_mean_scaled(dice, difficulty, index, power, protection)
    return Fraction(scaled, 6 ** (dice * (index + 1)))


def spill_odds(plan: Plan) -> dict[str, Fraction]:
    """B8: for each opponent, the probability that some victim's spill die picks it (each
    engaged victim rolls: odd, one of its candidates at random)."""
    miss: dict[str, tuple[int, int]] = {}  # the chance no die picks it, as (num, den)
    for _, cands in plan.opponents:
        for o in cands:
            num, den = miss.get(o, (1, 1))
            miss[o] = (num * (2 * len(cands) - 1), den * 2 * len(cands))
    return {o: Fraction(den - num, den) for o, (num, den) in miss.items()}


def _everyone(plan: Plan, spill: dict[str, Fraction]) -> list[str]:
    victims = plan.victims
    inside = set(victims)
    return list(victims) + [o for o in spill if o not in inside]


def _places(plan: Plan) -> tuple[dict[str, dict[int, int]], int]:
    """The law of each model's place in the chain (:func:`positions`) as whole numbers
    over a denominator, at once when there are no ties and no spills."""
    if not plan.opponents and all(len(g) == 1 for g in plan.groups):
        return {m: {i: 1} for i, m in enumerate(plan.victims)}, 1
    return position_weights(plan)


def _mixed(parts: list[tuple[Distribution[int], Fraction]]) -> Distribution[int]:
    """The mixture of ``parts`` (laws and their chances, summing to 1), in whole numbers:
    each law's weights scaled to one common total (as :meth:`Distribution.mix`, exactly,
    without a Fraction per outcome)."""
    if len(parts) == 1 and parts[0][1] == 1:
        return parts[0][0]
    scale = math.lcm(*(p.denominator * law.total for law, p in parts))
    acc: dict[int, int] = defaultdict(int)
    for law, p in parts:
        f = scale // (p.denominator * law.total) * p.numerator
        for o, w in law.pairs:
            acc[o] += f * w
    return Distribution.from_weights(acc)


def laws(plan: Plan) -> dict[str, Distribution[int]]:
    """The exact law of HP lost by every model the breath may affect (B4-B8): the
    marginals of :func:`resolve`."""
    check(plan)
    prot = dict(plan.protection)
    spill = spill_odds(plan)
    everyone = _everyone(plan, spill)
    zero = Distribution.point(0)
    if plan.state is not None:
        return {m: zero for m in everyone}
    assert plan.difficulty is not None and plan.power is not None
    out: dict[str, Distribution[int]] = {}
    if plan.nature == "enveloping":
        for m in everyone:
            law = enveloping_law(plan.difficulty, plan.power, prot[m])
            p = spill.get(m, Fraction(1)) if m not in plan.victims else Fraction(1)
            out[m] = law if p == 1 else _mixed([(law, p), (zero, 1 - p)])
        return out
    n, power = plan.dice or 0, plan.power
    hits: dict[int, Distribution[int]] = {}
    weights, den = _places(plan)
    for m, where in weights.items():
        parts = []
        for pos, w in where.items():
            if pos not in hits:
                hits[pos] = impacting_hits(n, plan.difficulty, pos)
            law = hits[pos].map(partial(hp_lost, power=power, protection=prot[m]))
            parts.append((law, Fraction(w, den)))
        rest = 1 - Fraction(sum(where.values()), den)
        out[m] = _mixed(parts + ([(zero, rest)] if rest else []))
    return {m: out[m] for m in everyone}


def expected_value(plan: Plan, sign: Callable[[str], int]) -> Fraction:
    """The objective of the best aim: the sum over affected models of ``sign`` (+1 enemy,
    -1 friend) times its expected HP lost, or, for a state breath, its chance of getting
    the state. The means of :func:`laws`, without building the laws."""
    check(plan)
    spill = spill_odds(plan)
    prot = dict(plan.protection)
    victims = plan.victims
    inside = set(victims)
    outside = [o for o in spill if o not in inside]
    if plan.state is not None:
        return sum(map(sign, victims)) + sum((sign(o) * spill[o] for o in outside), Fraction(0))
    assert plan.difficulty is not None and plan.power is not None
    if plan.nature == "enveloping":
        d, power = plan.difficulty, plan.power
        whole = sum(sign(m) * _enveloping_scaled(d, power, prot[m]) for m in victims)
        part = sum(
            (sign(o) * spill[o] * _enveloping_scaled(d, power, prot[o]) for o in outside),
            Fraction(0),
        )
        return (whole + part) / 6**5
    places, den = _places(plan)
    shared: dict[tuple[int, int], tuple[dict[int, int], int]] = {}
    for m, where in places.items():  # models sharing a law are summed once
        key = (id(where), prot[m])
        shared[key] = (where, shared.get(key, (where, 0))[1] + sign(m))
    weights: dict[tuple[int, int], int] = defaultdict(int)
    for (_, c), (where, s) in shared.items():
        if s:
            for pos, w in where.items():
                weights[(pos, c)] += s * w
    return _chain_value(plan.dice or 0, plan.difficulty, plan.power, weights, den)


@lru_cache(maxsize=4096)
def _enveloping_scaled(difficulty: int, power: int, protection: int) -> int:
    """B5: the mean HP lost by one victim times 6^5, a whole number."""
    mean = enveloping_law(difficulty, power, protection).mean() * 6**5
    assert mean.denominator == 1
    return mean.numerator


def _chain_value(
    n: int, difficulty: int, power: int, weights: dict[tuple[int, int], int], den: int
) -> Fraction:
    """The sum of weight / ``den`` x mean HP lost at (place, Protection), in whole numbers:
    the mean at place i is a whole number over 6^(n (i + 1)), so the sum is one over
    6^(n L), built place by place from the last (Horner), L the number of places."""
    if not weights or n == 0:
        return Fraction(0)
    by_place: dict[int, int] = defaultdict(int)
    for (pos, c), w in weights.items():
        if w:
            by_place[pos] += w * impacting_mean_scaled(n, difficulty, pos, power, c)
    places = max(pos for pos, _ in weights) + 1
    step, acc = 6**n, 0
    for pos in range(places):
        acc = acc * step + by_place.get(pos, 0)
    return Fraction(acc, den * 6 ** (n * places))


__all__ = [
    "check",
    "enveloping_law",
    "expected_value",
    "impacting_hp_mean",
    "impacting_mean_scaled",
    "laws",
    "positions",
    "resolve",
    "roll",
    "spill_odds",
]
