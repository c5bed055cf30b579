"""The dice of a breath (B4-B8), written once: :func:`resolve` is the procedure, on any
:class:`~arbitre.dice.Dice`; :func:`laws` gives its exact marginals in closed form (the
tests enumerate :func:`resolve` and compare); :func:`roll` runs it on seeded, logged dice.

Each rule's dice are one function of :mod:`arbitre.dice`, the one the icepool tests check:
B5 :func:`~arbitre.dice.breath_enveloping`, B6 :func:`~arbitre.dice.impacting_victim`
(the chain, as :func:`~arbitre.dice.breath_impacting` runs it), B8
:func:`~arbitre.dice.melee_spill`; B7 ties are :func:`~arbitre.templates.draw_order`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from fractions import Fraction
from functools import lru_cache, partial

from arbitre import templates
from arbitre.dice import (
    Dice,
    Distribution,
    breath_enveloping,
    enumerate_procedure,
    impacting_hp_lost,
    impacting_victim,
    melee_spill,
    roll_procedure,
)
from arbitre.rules.breath.values import BreathRoll, Hit, Plan


def resolve(plan: Plan, dice: Dice) -> tuple[Hit, ...]:
    """B4-B8: resolve the breath on ``dice``; every model affected, in resolution order.

    B7 ties are drawn for an impacting chain only (nothing else depends on the order);
    after each victim engaged with opponents outside the template its B8 die is rolled
    and the opponent picked is resolved right behind it (once at most); in a chain nothing
    more is rolled once no dice are left.
    """
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


@lru_cache(maxsize=4096)
def enveloping_law(difficulty: int, power: int, protection: int) -> Distribution[int]:
    """B5: the law of HP lost by one victim, enumerated from the procedure itself."""
    return enumerate_procedure(
        partial(breath_enveloping, difficulty=difficulty, power=power, protection=protection)
    )


@lru_cache(maxsize=65536)
def _impacting_mean(dice: int, difficulty: int, pos: int, power: int, protection: int) -> Fraction:
    return impacting_hp_lost(dice, difficulty, pos, power=power, protection=protection).mean()


def spill_odds(plan: Plan) -> dict[str, Fraction]:
    """B8: for each opponent, the probability that some victim's spill die picks it (each
    engaged victim rolls: odd, one of its candidates at random)."""
    miss: dict[str, Fraction] = {}
    for _, cands in plan.opponents:
        for o in cands:
            miss[o] = miss.get(o, Fraction(1)) * (1 - Fraction(1, 2 * len(cands)))
    return {o: 1 - q for o, q in miss.items()}


_State = tuple[int, frozenset[str]]


def positions(plan: Plan) -> dict[str, dict[int, Fraction]]:
    """B6-B8: for every model, the law of its place in the impacting chain (0 = first).

    Exact, by dynamic programming over the victims in B7 order: a tie group is taken in a
    uniformly random order (B7), and after each victim its spill die may insert an
    opponent right behind it (B8). Probabilities of a model sum to less than 1 when it
    may not be reached at all (an opponent).
    """
    law: dict[str, dict[int, Fraction]] = defaultdict(lambda: defaultdict(Fraction))
    opps = dict(plan.opponents)
    later = _later_opponents(plan)
    states: dict[_State, Fraction] = {(0, frozenset()): Fraction(1)}
    for gi, group in enumerate(plan.groups):
        keep = frozenset(later[gi + 1]) if gi + 1 < len(later) else frozenset()
        states = _through_group(group, states, keep, opps, law)
    return {m: dict(v) for m, v in law.items()}


def _later_opponents(plan: Plan) -> list[set[str]]:
    """For each tie group, the opponents of it and the groups after it: the only affected
    models worth remembering (an opponent is affected once at most)."""
    opps = dict(plan.opponents)
    later: list[set[str]] = []
    acc: set[str] = set()
    for g in reversed(plan.groups):
        acc = acc | {o for m in g for o in opps.get(m, ())}
        later.append(set(acc))
    later.reverse()
    return later


def _through_group(
    group: tuple[str, ...],
    states: dict[_State, Fraction],
    keep: frozenset[str],
    opps: dict[str, tuple[str, ...]],
    law: dict[str, dict[int, Fraction]],
) -> dict[_State, Fraction]:
    """One tie group: its members in every order (each equally likely), each followed by
    its spill; the states (next position, opponents affected among ``keep``) after it."""
    sub = {(pos, aff, frozenset(group)): p for (pos, aff), p in states.items()}
    done: dict[_State, Fraction] = defaultdict(Fraction)
    while sub:
        nxt: dict[tuple[int, frozenset[str], frozenset[str]], Fraction] = defaultdict(Fraction)
        for (pos, aff, rem), p in sub.items():
            share = p / len(rem)
            for m in sorted(rem):
                law[m][pos] += share
                rest = rem - {m}
                for (pos2, aff2), q in _spill(m, pos + 1, aff, share, opps, law):
                    if rest:
                        nxt[(pos2, aff2, rest)] += q
                    else:
                        done[(pos2, aff2 & keep)] += q
        sub = nxt
    return done


def _spill(
    m: str,
    pos: int,
    aff: frozenset[str],
    p: Fraction,
    opps: dict[str, tuple[str, ...]],
    law: dict[str, dict[int, Fraction]],
) -> Iterable[tuple[_State, Fraction]]:
    cands = opps.get(m, ())
    if not cands:
        yield (pos, aff), p
        return
    yield (pos, aff), p / 2
    for o in cands:
        q = p / (2 * len(cands))
        if o in aff:
            yield (pos, aff), q
        else:
            law[o][pos] += q
            yield (pos + 1, aff | {o}), q


def _everyone(plan: Plan, spill: dict[str, Fraction]) -> list[str]:
    return list(plan.victims) + [o for o in spill if o not in plan.victims]


def laws(plan: Plan) -> dict[str, Distribution[int]]:
    """The exact law of HP lost by every model the breath may affect (B4-B8): the
    marginals of :func:`resolve`."""
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
            out[m] = law if p == 1 else Distribution.mix([(law, p), (zero, 1 - p)])
        return out
    n = plan.dice or 0
    for m, where in positions(plan).items():
        parts = [
            (impacting_hp_lost(n, plan.difficulty, pos, power=plan.power, protection=prot[m]), p)
            for pos, p in where.items()
        ]
        rest = 1 - sum(where.values(), Fraction(0))
        out[m] = Distribution.mix(parts + ([(zero, rest)] if rest else []))
    return {m: out[m] for m in everyone}


def expected_value(plan: Plan, sign: Callable[[str], int]) -> Fraction:
    """The objective of the best aim: the sum over affected models of ``sign`` (+1 enemy,
    -1 friend) times its expected HP lost, or, for a state breath, its chance of getting
    the state. The means of :func:`laws`, without building the laws."""
    spill = spill_odds(plan)
    prot = dict(plan.protection)
    victims = set(plan.victims)

    def p_of(m: str) -> Fraction:
        return Fraction(1) if m in victims else spill.get(m, Fraction(0))

    everyone = _everyone(plan, spill)
    if plan.state is not None:
        return sum((sign(m) * p_of(m) for m in everyone), Fraction(0))
    assert plan.difficulty is not None and plan.power is not None
    if plan.nature == "enveloping":
        return sum(
            (
                sign(m) * p_of(m) * enveloping_law(plan.difficulty, plan.power, prot[m]).mean()
                for m in everyone
            ),
            Fraction(0),
        )
    n = plan.dice or 0
    if not plan.opponents and all(len(g) == 1 for g in plan.groups):
        where = {m: {i: Fraction(1)} for i, m in enumerate(plan.victims)}
    else:
        where = positions(plan)
    return sum(
        (
            sign(m) * p * _impacting_mean(n, plan.difficulty, pos, plan.power, prot[m])
            for m, w in where.items()
            for pos, p in w.items()
        ),
        Fraction(0),
    )


__all__ = ["enveloping_law", "expected_value", "laws", "positions", "resolve", "roll", "spill_odds"]
