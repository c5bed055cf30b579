"""The exact dice core (DESIGN.md "Dice"; rules B5, B6, B8, D2, M7, M9).

Four kinds of evidence: values derived by hand (written out in comments), icepool as an
exact oracle, brute-force (``bf_``) enumerations die by die beside every closed form, and
seeded rolls that converge on the exact odds and replay exactly from their logs.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from collections.abc import Callable, Hashable
from fractions import Fraction as F
from functools import partial
from pathlib import Path
from typing import Any

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbitre import dice as dice_module
from arbitre.dice import (
    Dice,
    Distribution,
    ReplayError,
    Roller,
    RollLog,
    binomial,
    breath_enveloping,
    breath_impacting,
    count_at_least,
    dice_sum,
    die,
    enumerate_procedure,
    hp_lost,
    impacting_hits,
    impacting_hp_lost,
    melee_spill,
    mordheim_to_hit,
    replay_procedure,
    roll_off,
    roll_procedure,
)
from arbitre.errors import RulesError

# --------------------------------------------------------------------------- oracles


def ip(d: icepool.Die) -> dict[Any, F]:
    """An icepool die as exact probabilities (zero quantities dropped)."""
    return {o: F(q, d.denominator()) for o, q in d.items() if q}


def bern(difficulty: int) -> icepool.Die:
    """icepool: one d6 hits (1) or misses (0) at ``difficulty``+."""
    return (icepool.d6 >= difficulty).map(lambda hit: int(hit))


class _More(Exception):
    """The brute-force source ran past its branch: these are the next choices."""

    def __init__(self, choices: list[tuple[int, F]]) -> None:
        self.choices = choices


class _Cut(Exception):
    """``until`` went past the depth the brute force explores."""


class BFDice(Dice):
    """Brute-force dice: each die a branch (pools die by die), read from a fixed prefix.

    ``pools='faces'`` branches every pool die over its faces; ``'hitmiss'`` over hit/miss
    with weights p, 1-p (still die by die, so it checks the binomial and chain forms).
    ``until`` re-runs the attempt up to ``until_depth`` times, then the branch is cut.
    """

    def __init__(self, prefix: tuple[tuple[int, F], ...], pools: str, until_depth: int) -> None:
        self.prefix, self.pos, self.pools, self.until_depth = prefix, 0, pools, until_depth

    def _next(self, choices: list[tuple[int, F]]) -> int:
        if self.pos == len(self.prefix):
            raise _More(choices)
        self.pos += 1
        return self.prefix[self.pos - 1][0]

    def d(self, sides: int, label: str) -> int:
        return self._next([(v, F(1, sides)) for v in range(1, sides + 1)])

    def count_at_least(self, n: int, sides: int, target: int, label: str) -> int:
        if self.pools == "faces":
            return sum(self.d(sides, label) >= target for _ in range(n))
        p = F(sides - max(target, 1) + 1, sides)
        return sum(self._next([(1, p), (0, 1 - p)]) for _ in range(n))

    def sum(self, n: int, sides: int, label: str) -> int:
        return sum(self.d(sides, label) for _ in range(n))

    def until(self, attempt: Callable[[Dice], Any], accept: Callable[[Any], bool]) -> Any:
        for _ in range(self.until_depth):
            result = attempt(self)
            if accept(result):
                return result
        raise _Cut


def bf_enumerate(
    proc: Callable[[Dice], Hashable], *, pools: str = "faces", until_depth: int = 1
) -> tuple[dict[Hashable, F], F]:
    """Every branch, expanded by exception: (outcome -> probability, mass of cut branches)."""
    result: dict[Hashable, F] = {}
    cut = F(0)
    stack: list[tuple[tuple[int, F], ...]] = [()]
    while stack:
        prefix = stack.pop()
        weight = math.prod((p for _, p in prefix), start=F(1))
        try:
            outcome = proc(BFDice(prefix, pools, until_depth))
        except _More as more:
            stack.extend((*prefix, c) for c in more.choices if c[1])
            continue
        except _Cut:
            cut += weight
            continue
        result[outcome] = result.get(outcome, F(0)) + weight
    return result, cut


def bf_count_at_least(n: int, sides: int, target: int) -> dict[int, F]:
    faces = itertools.product(range(1, sides + 1), repeat=n)
    counts = Counter(sum(v >= target for v in roll) for roll in faces)
    return {k: F(c, sides**n) for k, c in counts.items()}


def bf_dice_sum(n: int, sides: int) -> dict[int, F]:
    counts = Counter(sum(roll) for roll in itertools.product(range(1, sides + 1), repeat=n))
    return {k: F(c, sides**n) for k, c in counts.items()}


def multinomial_hits(n0: int, difficulty: int, victims: int) -> dict[tuple[int, ...], F]:
    """B6 joint law: each starting die lands as a hit on victim i with q_i, or runs out."""
    p = F(7 - difficulty, 6)
    q = [p * (1 - p) ** i for i in range(victims)]
    rest = (1 - p) ** victims
    law: dict[tuple[int, ...], F] = {}
    for hits in itertools.product(range(n0 + 1), repeat=victims):
        left = n0 - sum(hits)
        if left < 0:
            continue
        ways = math.factorial(n0) // math.prod(math.factorial(h) for h in (*hits, left))
        law[hits] = ways * math.prod((qi**h for qi, h in zip(q, hits, strict=True)), start=F(1))
        law[hits] *= rest**left
    return {k: v for k, v in law.items() if v}


# --------------------------------------------------------------------------- Distribution


def test_d6_by_hand() -> None:
    d6 = die(6)
    assert d6.support == (1, 2, 3, 4, 5, 6) and d6.total == 6
    assert d6.probabilities() == {v: F(1, 6) for v in range(1, 7)}
    assert d6.mean() == F(7, 2)
    assert d6.at_least(5) == F(1, 3) and d6.at_most(2) == F(1, 3)
    assert d6.probability(7) == 0 and d6.at_least(7) == 0 and d6.at_most(6) == 1


def test_weights_are_reduced_by_gcd_and_zeros_dropped() -> None:
    d = Distribution.from_weights({2: 4, 1: 2, 3: 0})
    assert d.pairs == ((1, 1), (2, 2))
    assert d == Distribution.from_weights([(1, 1), (2, 1), (2, 1)])
    assert 3 not in d and d.probability(3) == 0 and d.probability(2) == F(2, 3)


def test_distribution_is_a_frozen_hashable_mapping() -> None:
    d = die(4)
    assert dict(d) == {1: 1, 2: 1, 3: 1, 4: 1} and len(d) == 4 and d[3] == 1
    assert {d: "x"}[die(4)] == "x" and hash(d) == hash(Distribution.from_weights({v: 7 for v in d}))
    with pytest.raises(AttributeError):
        d.pairs = ()  # type: ignore[misc]


def test_two_d6_by_hand() -> None:
    two = die(6) + die(6)
    # 36 pairs: 7 has 6 of them, 2 and 12 one, 10 three (4+6, 5+5, 6+4).
    assert two.probability(7) == F(1, 6)
    assert two.probability(2) == two.probability(12) == F(1, 36)
    assert two.probability(10) == F(1, 12)
    assert two.mean() == 7


def test_five_d6_sum_by_hand() -> None:
    s = dice_sum(5, 6)
    assert s.total == 7776 and s.support == tuple(range(5, 31))
    # 5: all ones; 6: one die shows 2 (5 ways); 7: stars and bars C(6, 4) = 15.
    assert [s[k] for k in (5, 6, 7)] == [1, 5, 15] and s[30] == 1
    # 17 by inclusion-exclusion: C(16,4) - 5 C(10,4) + 10 C(4,4) = 1820 - 1050 + 10 = 780.
    assert s.probability(17) == s.probability(18) == F(780, 7776) == F(65, 648)
    assert s.mean() == F(35, 2)


def test_count_at_least_by_hand() -> None:
    # 5d6 at 4+: P(0) = 1/32, P(1) = 5/32, so P(>= 2) = 26/32 = 13/16.
    assert count_at_least(5, 6, 4).at_least(2) == F(13, 16)
    # 5d6 at 5+: P(no hit) = (2/3)^5 = 32/243.
    assert count_at_least(5, 6, 5).probability(0) == F(32, 243)
    assert count_at_least(5, 6, 5).at_least(1) == F(211, 243)
    assert count_at_least(5, 6, 1) == count_at_least(5, 6, -3) == Distribution.point(5)
    assert count_at_least(0, 6, 4) == Distribution.point(0)
    assert count_at_least(7, 6, 3).mean() == 7 * F(4, 6)


@pytest.mark.parametrize("sides", [2, 4, 6, 8])
@pytest.mark.parametrize("n", range(0, 7))
def test_dice_sum_matches_icepool(n: int, sides: int) -> None:
    assert dice_sum(n, sides).probabilities() == ip(n @ icepool.d(sides))
    assert die(sides).repeat_sum(n) == dice_sum(n, sides)


@pytest.mark.parametrize("target", range(1, 7))
@pytest.mark.parametrize("n", range(0, 8))
def test_count_at_least_matches_icepool(n: int, target: int) -> None:
    assert count_at_least(n, 6, target).probabilities() == ip(n @ bern(target))


@pytest.mark.parametrize("sides", [2, 3, 6])
@pytest.mark.parametrize("n", range(0, 5))
def test_closed_forms_match_bf(n: int, sides: int) -> None:
    assert dice_sum(n, sides).probabilities() == bf_dice_sum(n, sides)
    for target in range(1, sides + 1):
        assert count_at_least(n, sides, target).probabilities() == bf_count_at_least(
            n, sides, target
        )


def test_binomial_matches_bf() -> None:
    for n, p in [(0, F(1, 3)), (4, F(2, 7)), (5, 0), (3, 1)]:
        bf = Counter[int]()
        for trials in itertools.product([0, 1], repeat=n):
            bf[sum(trials)] += math.prod((p if t else 1 - p for t in trials), start=F(1))  # type: ignore[operator, type-var]
        assert binomial(n, p).probabilities() == {k: v for k, v in bf.items() if v}


def test_mix_map_given() -> None:
    half = Distribution.mix([(die(6), 1), (Distribution.point(0), 1)])
    assert half.probability(0) == F(1, 2) and half.probability(3) == F(1, 12)
    # 1/3 of a d4 and 2/3 of a d6: P(1) = 1/12 + 1/9 = 7/36; P(6) = 2/3 * 1/6 = 1/9.
    mixed = Distribution.mix([(die(4), F(1, 3)), (die(6), F(2, 3))])
    assert mixed.probability(1) == F(7, 36) and mixed.probability(6) == F(1, 9)
    assert die(6).map(lambda v: v % 2) == Distribution.from_weights({0: 1, 1: 1})
    assert die(6).given(lambda v: v != 6) == die(5)
    assert ip(icepool.d6.reroll([1], depth="inf")) == die(6).given(lambda v: v > 1).probabilities()
    assert (die(6) + 2).support == tuple(range(3, 9)) and sum([die(2), die(2)]) == dice_sum(2, 2)


def test_to_json_is_exact() -> None:
    assert die(6).to_json() == {
        "outcomes": [1, 2, 3, 4, 5, 6],
        "p": ["1/6"] * 6,
        "float": [1 / 6] * 6,
        "mean": {"p": "7/2", "float": 3.5},
    }
    two = (die(6) + die(6)).to_json()
    assert two["p"][:6] == ["1/36", "1/18", "1/12", "1/9", "5/36", "1/6"]
    assert two["mean"] == {"p": "7", "float": 7.0}
    words = Distribution.from_weights({"hit": 1, "miss": 2}).to_json()
    assert words["p"] == ["1/3", "2/3"] and words["mean"] is None
    assert json.loads(json.dumps(words))["outcomes"] == ["hit", "miss"]


laws = st.dictionaries(st.integers(-5, 12), st.integers(0, 9), min_size=1).filter(
    lambda w: any(w.values())
)


@settings(max_examples=60, deadline=None)
@given(laws, laws)
def test_distribution_laws(wa: dict[int, int], wb: dict[int, int]) -> None:
    a, b = Distribution.from_weights(wa), Distribution.from_weights(wb)
    assert sum(a.probabilities().values()) == 1
    assert a + b == b + a and (a + b).mean() == a.mean() + b.mean()
    assert a.repeat_sum(3) == a + a + a and a.repeat_sum(0) == Distribution.point(0)
    assert Distribution.mix([(a, 2)]) == a == a.map(lambda o: o)
    assert a.at_least(3) + a.at_most(2) == 1


# --------------------------------------------------------------------------- enumeration


def test_pools_enumerate_as_one_branch_and_match_die_by_die() -> None:
    def by_die(dice: Dice) -> int:
        return sum(dice.roll(3, 6, "x"))

    def pooled(dice: Dice) -> int:
        return dice.sum(3, 6, "x")

    assert enumerate_procedure(by_die) == enumerate_procedure(pooled) == dice_sum(3, 6)
    assert enumerate_procedure(lambda d: d.count_at_least(10, 6, 5, "x")) == count_at_least(
        10, 6, 5
    )


def test_dice_depending_on_earlier_dice() -> None:
    def exploding(dice: Dice) -> int:  # a 6 rolls one more d6 and adds it
        first = dice.d(6, "x")
        return first + dice.d(6, "again") if first == 6 else first

    law = enumerate_procedure(exploding)
    assert all(law.probability(k) == F(1, 6) for k in range(1, 6))
    assert all(law.probability(6 + k) == F(1, 36) for k in range(1, 7))
    # Mean: (1+...+5)/6 + 1/6 * (6 + 7/2) = 30/12 + 19/12.
    assert law.probability(6) == 0 and law.mean() == F(49, 12)
    assert law.probabilities() == bf_enumerate(exploding)[0]


def test_until_is_the_conditional_law() -> None:
    def not_one(dice: Dice) -> int:
        return dice.until(lambda d: d.d(6, "x"), lambda v: v != 1)

    assert enumerate_procedure(not_one).probabilities() == ip(icepool.d6.reroll([1], depth="inf"))
    # Geometric closed form: sum_k (1/6)^k * 1/6 = 1/5 for each of 2..6.
    assert enumerate_procedure(not_one) == die(5) + 1


def test_enumeration_guards() -> None:
    with pytest.raises(RulesError, match="count_at_least"):
        enumerate_procedure(lambda d: sum(d.roll(10, 6, "pool")), max_leaves=1000)
    state = iter(range(100))

    def impure(dice: Dice) -> int:
        return dice.d(6 + next(state) % 2, "x")

    with pytest.raises(RulesError, match="outside randomness"):
        enumerate_procedure(impure)
    with pytest.raises(RulesError, match="never ends"):
        enumerate_procedure(lambda d: d.until(lambda s: s.d(6, "x"), lambda v: v > 6))


# --------------------------------------------------------------------------- M7, M9

H, M, C = "hit", "miss", "hit_cover"
SIX = {"need_over_six": "6-then-4+"}  # the 7+ chart
SIXC = {**SIX, "in_cover": True}


@pytest.mark.parametrize(
    ("need", "options", "expected"),
    [
        (4, {}, {H: F(1, 2), M: F(1, 2)}),
        (4, {"in_cover": True}, {H: F(1, 2), C: F(1, 6), M: F(1, 3)}),  # M9: a 3 hits cover
        (2, {"in_cover": True, "natural_one_misses": True}, {H: F(5, 6), C: F(1, 6)}),
        (0, {}, {H: F(1)}),
        (1, {"natural_one_misses": True}, {H: F(5, 6), M: F(1, 6)}),
        (-1, {"natural_one_misses": True, "in_cover": True}, {H: F(5, 6), M: F(1, 6)}),
        (7, {}, {M: F(1)}),
        (7, {"in_cover": True}, {C: F(1, 6), M: F(5, 6)}),  # a 6 misses 7 by exactly 1
        (8, {"in_cover": True}, {M: F(1)}),
        # 6-then-4+: 7 = 6 then 4+ (1/6 * 1/2), in cover 6 then 1-3 hits the cover.
        (7, SIX, {H: F(1, 12), M: F(11, 12)}),
        (7, SIXC, {H: F(1, 12), C: F(1, 12), M: F(5, 6)}),
        # 8 = 6 then 5+ (1/36 * 2); in cover 6 then 4 scores 7, one short: the cover.
        (8, SIXC, {H: F(1, 18), C: F(1, 36), M: F(11, 12)}),
        (9, SIX, {H: F(1, 36), M: F(35, 36)}),
        (10, SIX, {M: F(1)}),
        (10, SIXC, {C: F(1, 36), M: F(35, 36)}),  # 6 then 6 scores 9
        (11, SIXC, {M: F(1)}),
    ],
)  # fmt: skip
def test_mordheim_to_hit_by_hand(
    need: int, options: dict[str, Any], expected: dict[str, F]
) -> None:
    proc = partial(mordheim_to_hit, need=need, **options)
    assert enumerate_procedure(proc).probabilities() == expected
    assert bf_enumerate(proc) == (expected, 0)


def test_mordheim_second_die_only_when_it_matters() -> None:
    six = {"seed": None, "dice": [{"label": "to-hit", "sides": 6, "value": 6}]}
    assert replay_procedure(partial(mordheim_to_hit, need=10, need_over_six="6-then-4+"), six) == M
    two = {"dice": [*six["dice"], {"label": "to-hit after a 6", "sides": 6, "value": 6}]}  # type: ignore[misc]
    cover = partial(mordheim_to_hit, need=10, need_over_six="6-then-4+", in_cover=True)
    assert replay_procedure(cover, two) == C


def test_mordheim_option_errors() -> None:
    with pytest.raises(RulesError, match=r"'sometimes', expected 'impossible', '6-then-4\+'"):
        enumerate_procedure(partial(mordheim_to_hit, need=4, need_over_six="sometimes"))  # type: ignore[arg-type]
    with pytest.raises(RulesError, match=r"need must be a whole number, got 3\.5"):
        enumerate_procedure(partial(mordheim_to_hit, need=3.5))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- B5, B6


@pytest.mark.parametrize("difficulty", range(1, 7))
@pytest.mark.parametrize(("power", "protection"), [(1, 0), (2, 1), (3, 4), (0, 0)])
def test_breath_enveloping_matches_icepool(difficulty: int, power: int, protection: int) -> None:
    proc = partial(breath_enveloping, difficulty=difficulty, power=power, protection=protection)
    oracle = (5 @ bern(difficulty)).map(lambda h: max(0, h * power - protection))
    assert enumerate_procedure(proc).probabilities() == ip(oracle)


def test_breath_enveloping_by_hand() -> None:
    # Acid 5/2 against Protection 1: hits ~ Bin(5, 1/3); 0 hits -> 0 HP (32/243),
    # 1 hit -> 1 HP (5 * 16/243 = 80/243), 2+ hits -> 3+ HP (131/243).
    law = enumerate_procedure(partial(breath_enveloping, difficulty=5, power=2, protection=1))
    assert law.probability(0) == F(32, 243) and law.probability(1) == F(80, 243)
    assert law.at_least(3) == F(131, 243) and law.probability(2) == 0
    assert bf_enumerate(partial(breath_enveloping, difficulty=5, power=2, protection=1))[0] == (
        law.probabilities()
    )


def chain(n0: int, difficulty: int, victims: int, power: int = 1) -> partial[Any]:
    return partial(
        breath_impacting, tir=n0 - 5, difficulty=difficulty, power=power, protections=[0] * victims
    )


def hits_of(outcome: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    return tuple(h for h, _ in outcome)


@pytest.mark.parametrize(
    ("n0", "victims", "pools", "difficulty"),
    [
        *((1, 3, "faces", d) for d in (2, 4, 6)),
        *((2, 2, "faces", d) for d in (2, 4, 6)),
        (2, 3, "faces", 4),
        (3, 2, "faces", 4),
        *((n, 3, "hitmiss", d) for n in (4, 6) for d in (2, 4, 6)),
    ],
)
def test_impacting_chain_closed_form_by_brute_force(
    n0: int, victims: int, pools: str, difficulty: int
) -> None:
    """B6 claim: victim i's hits are Binomial(n0, p(1-p)^i), jointly multinomial."""
    bf, cut = bf_enumerate(chain(n0, difficulty, victims), pools=pools)
    assert cut == 0
    joint: Counter[tuple[int, ...]] = Counter()
    for outcome, p in bf.items():
        joint[hits_of(outcome)] += p  # type: ignore[arg-type, assignment]
    assert dict(joint) == multinomial_hits(n0, difficulty, victims)
    for i in range(victims):
        marginal: Counter[int] = Counter()
        for hits, p in joint.items():  # type: ignore[assignment]
            marginal[hits[i]] += p  # type: ignore[assignment]
        assert dict(marginal) == impacting_hits(n0, difficulty, i).probabilities()


@pytest.mark.parametrize("n0", [0, 1, 5, 8, 11])
@pytest.mark.parametrize("difficulty", [3, 5])
def test_impacting_chain_enumeration_and_icepool(n0: int, difficulty: int) -> None:
    law = enumerate_procedure(
        partial(breath_impacting, tir=n0 - 5, difficulty=difficulty, power=2, protections=[1, 0, 3])
    )
    assert law.map(hits_of).probabilities() == multinomial_hits(n0, difficulty, 3)
    for i, protection in enumerate([1, 0, 3]):
        assert law.map(lambda o, i=i: o[i][0]) == impacting_hits(n0, difficulty, i)  # type: ignore[misc]
        hp = impacting_hp_lost(n0, difficulty, i, power=2, protection=protection)
        assert law.map(lambda o, i=i: o[i][1]) == hp  # type: ignore[misc]
    # icepool: the second victim rolls the first one's misses.
    second = (n0 @ bern(difficulty)).map(lambda h: (n0 - h) @ bern(difficulty))
    assert ip(second) == impacting_hits(n0, difficulty, 1).probabilities()


def test_impacting_chain_without_dice_rolls_nothing() -> None:
    outcome, log = roll_procedure(chain(0, 4, 3), 1)
    assert outcome == ((0, 0),) * 3 and log.dice == ()
    assert impacting_hits(0, 4, 2) == Distribution.point(0)


# --------------------------------------------------------------------------- B8, D2


def test_melee_spill() -> None:
    three = enumerate_procedure(partial(melee_spill, opponents=["x", "y", "z"]))
    assert three.probabilities() == {None: F(1, 2), "x": F(1, 6), "y": F(1, 6), "z": F(1, 6)}
    assert three.support == (None, "x", "y", "z")
    one = enumerate_procedure(partial(melee_spill, opponents=["x"]))
    assert one.probabilities() == {None: F(1, 2), "x": F(1, 2)}
    assert enumerate_procedure(partial(melee_spill, opponents=[])) == Distribution.point(None)
    assert roll_procedure(partial(melee_spill, opponents=[]), 3)[1].dice == ()


def test_roll_off_is_a_real_computation() -> None:
    law = enumerate_procedure(roll_off)
    assert law.probabilities() == {"A": F(1, 2), "B": F(1, 2)}
    # Geometric closed form: P(A) = sum_k t^k P(a < b) = P(a < b) / (1 - t), t = P(tie).
    lower, tie = (icepool.d20 < icepool.d20).probability(True), F(1, 20)
    assert lower == F(19, 40) and law.probability("A") == lower / (1 - tie)
    # Cut-off after k attempts: what is explored plus the exact remainder is the law.
    for k in (1, 2):
        bf, cut = bf_enumerate(roll_off, until_depth=k)
        assert cut == tie**k and bf["A"] == lower * (1 - tie**k) / (1 - tie)
        assert bf["A"] + cut * law.probability("A") == law.probability("A")


def test_until_asymmetric() -> None:
    def d6_against_d4(dice: Dice) -> str:  # lower decides, ties rolled again
        a, b = dice.until(lambda s: (s.d(6, "A"), s.d(4, "B")), lambda ab: ab[0] != ab[1])
        return "A" if a < b else "B"

    # Pairs with a < b: 0 + 1 + 2 + 3 = 6 of 24; ties 4; so P(A) = 6 / 20.
    assert enumerate_procedure(d6_against_d4).probability("A") == F(3, 10)


def test_roll_off_errors() -> None:
    with pytest.raises(RulesError, match="d1"):
        roll_off(Roller(1), sides=1)
    with pytest.raises(RulesError, match="distinct"):
        roll_off(Roller(1), ("A", "A"))


# --------------------------------------------------------------------------- Roller

PROCEDURES: dict[str, Callable[[Dice], Hashable]] = {
    "to-hit": partial(mordheim_to_hit, need=7, in_cover=True, need_over_six="6-then-4+"),
    "enveloping": partial(breath_enveloping, difficulty=4, power=2, protection=1),
    "impacting": partial(breath_impacting, tir=0, difficulty=4, power=2, protections=[1, 0]),
    "spill": partial(melee_spill, opponents=["x", "y", "z"]),
    "roll-off": roll_off,
}


@pytest.mark.parametrize("name", PROCEDURES)
def test_same_seed_same_roll_and_exact_replay(name: str) -> None:
    proc = PROCEDURES[name]
    exact = enumerate_procedure(proc)
    for seed in range(60):
        outcome, log = roll_procedure(proc, seed)
        assert (outcome, log) == roll_procedure(proc, Roller(seed))
        assert outcome in exact
        assert log.seed == seed and all(1 <= d.value <= d.sides for d in log.dice)
        text = json.dumps(log.to_json())
        assert replay_procedure(proc, json.loads(text)) == outcome
        assert replay_procedure(proc, log) == outcome
        assert RollLog.from_json(json.loads(text)) == log


def test_roller_logs_every_die_with_its_label() -> None:
    roller = Roller(2024)
    mordheim_to_hit(roller, 4, label="to-hit archer->orc")
    breath_enveloping(roller, difficulty=4, power=1, label="breath ogre")
    log = roller.log
    assert [d.label for d in log.dice] == ["to-hit archer->orc"] + ["breath ogre"] * 5
    assert {d.sides for d in log.dice} == {6}
    first = log.dice[0]
    assert log.to_json()["dice"][0] == {"label": first.label, "sides": 6, "value": first.value}
    again = Roller.replay(log)
    assert mordheim_to_hit(again, 4, label="to-hit archer->orc") == (
        "hit" if first.value >= 4 else "miss"
    )
    assert again.remaining == 5


def test_unseeded_roller_records_its_seed() -> None:
    outcome, log = roll_procedure(roll_off, Roller())
    assert isinstance(log.seed, int) and roll_procedure(roll_off, log.seed) == (outcome, log)


def test_different_seeds_differ() -> None:
    rolls = {tuple(Roller(seed).roll(20, 6, "x")) for seed in range(10)}
    assert len(rolls) == 10


@pytest.mark.parametrize("name", ["to-hit", "enveloping", "impacting", "roll-off"])
def test_seeded_rolls_converge_on_the_exact_odds(name: str) -> None:
    proc, n = PROCEDURES[name], 20_000
    roller = Roller(12345)
    counts = Counter(proc(roller) for _ in range(n))
    exact = enumerate_procedure(proc)
    assert set(counts) <= set(exact.support)
    for outcome, p in exact.probabilities().items():
        assert abs(F(counts[outcome], n) - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-12


def test_replay_errors_say_what_differs() -> None:
    _, log = roll_procedure(PROCEDURES["enveloping"], 5)
    with pytest.raises(
        ReplayError, match=r"die #1 is 'breath' d6 in the log, not 'roll-off A' d20"
    ):
        replay_procedure(roll_off, log)
    with pytest.raises(ReplayError, match=r"die #6 \('breath' d6\) is beyond the log's 5"):
        replay_procedure(lambda d: d.roll(6, 6, "breath"), log)
    with pytest.raises(ReplayError, match="3 dice used, 2 left in the log"):
        replay_procedure(lambda d: d.roll(3, 6, "breath"), log)
    with pytest.raises(ReplayError, match="'to-hit'"):
        replay_procedure(partial(mordheim_to_hit, need=4), log)
    bad = {"dice": [{"label": "x", "sides": 6, "value": 7}]}
    with pytest.raises(RulesError, match="a d6 cannot show 7"):
        Roller.replay(bad)
    with pytest.raises(RulesError, match=r"dice\[0\]"):
        Roller.replay({"dice": [{"sides": 6, "value": 2}]})
    with pytest.raises(RulesError, match=r"dice\[1\].sides"):
        Roller.replay({"dice": [{"label": "x", "sides": 6, "value": 2}, {"label": "y"}]})
    with pytest.raises(RulesError, match="a roll log is"):
        Roller.replay({"seed": 3})


def test_roller_until_gives_up() -> None:
    roller = Roller(0)
    roller.max_attempts = 5
    with pytest.raises(RulesError, match="no attempt accepted in 5"):
        roller.until(lambda d: d.d(6, "x"), lambda v: v > 6)
    assert len(roller.log.dice) == 5


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: die(0), r"sides \(a d6 has sides=6\) must be >= 1, got 0"),
        (lambda: die(2.5), "sides .* must be a whole number, got 2.5"),
        (lambda: die(True), "got True"),
        (lambda: (dice_sum(2, 6), dice_sum(2, 6.0)), r"got 6\.0"),  # cache: 6.0 is not 6
        (lambda: count_at_least(-1, 6, 4), r"n \(dice\) must be >= 0, got -1"),
        (lambda: count_at_least(5, 6, 7), "target 7\\+ is impossible on a d6: use 1 to 6"),
        (lambda: dice_sum(2, 0), "got 0"),
        (lambda: binomial(3, F(3, 2)), "p must be a probability from 0 to 1, got 3/2"),
        (lambda: Distribution.from_weights({1: -1}), "weight of 1 must be >= 0, got -1"),
        (lambda: Distribution.from_weights({}), "at least one outcome"),
        (lambda: Distribution.mix([]), "at least one part"),
        (lambda: die(6).given(lambda v: v > 6), "never ends"),
        (lambda: Distribution.from_weights({"a": 1}).mean(), "numeric outcomes, got 'a'"),  # type: ignore[misc]
        (lambda: die(6).repeat_sum(-2), "must be >= 0, got -2"),
        (lambda: hp_lost(2, -1, 0), "power must be >= 0, got -1"),
        (lambda: impacting_hits(3, 7, 0), "target 7\\+ is impossible"),
        (lambda: breath_impacting(Roller(1), tir=-6, difficulty=4, power=1, protections=[0]),
         r"dice \(Tir \+ 5\) must be >= 0, got -1"),
        (lambda: Roller(1).d(0, "x"), "got 0"),
        (lambda: Roller(1).count_at_least(3, 6, 9, "x"), "impossible on a d6"),
        (lambda: Roller(-1), "seed must be >= 0, got -1"),
    ],
)  # fmt: skip
def test_errors_name_the_bad_value(call: Callable[[], object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        call()


def test_icepool_is_a_test_oracle_only() -> None:
    assert "icepool" not in Path(dice_module.__file__).read_text(encoding="utf-8")
