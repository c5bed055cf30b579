"""Exact dice: distributions, seeded logged rolls, and the dice procedures of the seeds.

A dice procedure is written once, as a function of a :class:`Dice` source (DESIGN.md
"Dice", STYLE.md lesson 6). :func:`enumerate_procedure` runs it over every branch and
gives its exact :class:`Distribution` (integer weights, ``Fraction`` results);
:func:`roll_procedure` runs it on a seeded :class:`Roller` that logs every die, and
:func:`replay_procedure` runs it again from that log. Both ways call the same function,
so the odds and the roll cannot disagree. Pools are single branches with closed forms
(binomial counts, convolved sums), and ``Dice.until`` re-rolls exactly (conditioning).
"""

from __future__ import annotations

import math
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal, TypeVar, cast

import numpy as np

from arbitre.errors import RulesError
from arbitre.i18n import T_, Num

T = TypeVar("T", bound=Hashable)
U = TypeVar("U", bound=Hashable)
R = TypeVar("R")
ToHit = Literal["hit", "miss", "hit_cover"]
NeedOverSix = Literal["impossible", "6-then-4+"]
_REDO = "it was made by another procedure or with other options"


class ReplayError(RulesError):
    """A procedure asked for other dice than the log being replayed holds."""


def _whole(value: object, what: str, low: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(
            T_("{what} must be a whole number, got {value}", what=what, value=repr(value))
        )
    if low is not None and value < low:
        raise RulesError(
            T_("{what} must be >= {low}, got {value}", what=what, low=low, value=repr(value))
        )
    return value


def _sides(sides: object) -> int:
    return _whole(sides, "sides (a d6 has sides=6)", 1)


def _target(target: object, sides: int) -> int:
    if _whole(target, "target") > sides:
        raise RulesError(
            T_(
                "target {target}+ is impossible on a d{sides}: use 1 to {sides}, or rule the "
                "roll a failure without rolling",
                target=target,
                sides=sides,
            )
        )
    return cast(int, target)


def _sorted(outcomes: Iterable[T]) -> list[T]:
    items = list(outcomes)
    try:
        return sorted(items)  # type: ignore[type-var]
    except TypeError:  # mixed kinds (None and str): by type name, then repr
        return sorted(items, key=lambda o: (type(o).__name__, repr(o)))


@dataclass(frozen=True, slots=True)
class Distribution(Mapping[T, int]):
    """An exact law: a mapping outcome -> integer weight, sorted, reduced by gcd.

    Two distributions are equal exactly when their probabilities are.
    """

    pairs: tuple[tuple[T, int], ...]
    _index: dict[T, int] = field(init=False, repr=False, compare=False, hash=False)
    _total: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        merged: dict[T, int] = {}
        for outcome, weight in self.pairs:
            if _whole(weight, f"weight of {outcome!r}", 0):
                merged[outcome] = merged.get(outcome, 0) + weight
        if not merged:
            raise RulesError("a distribution needs at least one outcome of positive weight")
        g = math.gcd(*merged.values())
        index = {o: merged[o] // g for o in _sorted(merged)}
        object.__setattr__(self, "pairs", tuple(index.items()))
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_total", sum(index.values()))

    @classmethod
    def from_weights(cls, weights: Mapping[T, int] | Iterable[tuple[T, int]]) -> Distribution[T]:
        """The law with these integer weights (zero weights dropped)."""
        return cls(tuple(weights.items() if isinstance(weights, Mapping) else weights))

    @classmethod
    def point(cls, outcome: T) -> Distribution[T]:
        """The certain outcome."""
        return cls(((outcome, 1),))

    @classmethod
    def mix(cls, parts: Iterable[tuple[Distribution[T], int | Fraction]]) -> Distribution[T]:
        """The mixture: pick a part with probability proportional to its weight, then roll it."""
        parts = list(parts)
        if any(not isinstance(w, (int, Fraction)) or w < 0 for _, w in parts):
            raise RulesError(f"mix weights must be ints or Fractions >= 0, got {parts!r}")
        total = sum((Fraction(w) for _, w in parts), Fraction(0))
        if not total:
            raise RulesError("mix needs at least one part of positive weight")
        acc: dict[T, Fraction] = {}
        for dist, w in parts:
            for o in dist:
                acc[o] = acc.get(o, Fraction(0)) + Fraction(w) / total * dist.probability(o)
        return _from_fractions(acc)

    def __getitem__(self, outcome: T) -> int:
        return self._index[outcome]

    def __iter__(self) -> Iterator[T]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    @property
    def support(self) -> tuple[T, ...]:
        """The possible outcomes, sorted."""
        return tuple(self._index)

    @property
    def total(self) -> int:
        """The sum of the weights: P(o) = self[o] / total."""
        return self._total

    def probability(self, outcome: T) -> Fraction:
        """P(outcome), exactly; 0 for an outcome that cannot happen."""
        return Fraction(self._index.get(outcome, 0), self._total)

    def probabilities(self) -> dict[T, Fraction]:
        """Every outcome with its exact probability, in support order."""
        return {o: Fraction(w, self._total) for o, w in self.pairs}

    def _numeric(self, what: str) -> None:
        for o in self._index:
            if not isinstance(o, (int, Fraction)):
                raise RulesError(f"{what} needs numeric outcomes, got {o!r}: map() them first")

    def mean(self: Distribution[int]) -> Fraction:
        """The expected outcome, exactly."""
        self._numeric("mean()")
        return Fraction(sum(o * w for o, w in self.pairs), self._total)

    def at_least(self: Distribution[int], k: int) -> Fraction:
        """P(outcome >= k)."""
        self._numeric("at_least()")
        return Fraction(sum(w for o, w in self.pairs if o >= k), self._total)

    def at_most(self: Distribution[int], k: int) -> Fraction:
        """P(outcome <= k)."""
        self._numeric("at_most()")
        return Fraction(sum(w for o, w in self.pairs if o <= k), self._total)

    def map(self, f: Callable[[T], U]) -> Distribution[U]:
        """The law of f(outcome); outcomes with the same image merge."""
        return Distribution(tuple((f(o), w) for o, w in self.pairs))

    def given(self, condition: Callable[[T], bool]) -> Distribution[T]:
        """The law given ``condition``: what re-rolling until it holds gives (exact)."""
        kept = tuple((o, w) for o, w in self.pairs if condition(o))
        if not kept:
            raise RulesError("no outcome meets the condition: re-rolling until it holds never ends")
        return Distribution(kept)

    def __add__(self: Distribution[int], other: Distribution[int] | int) -> Distribution[int]:
        """The sum of two independent outcomes (convolution), or a shift by an int."""
        if isinstance(other, int):
            return self.map(lambda o: o + other)
        self._numeric("+")
        other._numeric("+")
        acc: dict[int, int] = {}
        for a, wa in self.pairs:
            for b, wb in other.pairs:
                acc[a + b] = acc.get(a + b, 0) + wa * wb
        return Distribution(tuple(acc.items()))

    def __radd__(self: Distribution[int], other: int) -> Distribution[int]:
        return self + other

    def repeat_sum(self: Distribution[int], n: int) -> Distribution[int]:
        """The sum of n independent copies (n = 0: the point 0), by repeated squaring."""
        n = _whole(n, "n (copies)", 0)
        result, base = Distribution.point(0), self
        while n:
            if n & 1:
                result = result + base
            n >>= 1
            base = base + base if n else base
        return result

    def to_json(self) -> dict[str, Any]:
        """The one JSON encoding of a law (DESIGN.md): outcomes, their chances as fraction
        strings ("7/36") and as floats, and the mean as an exact chance object (None for
        outcomes that are not numbers)."""
        probs = [Fraction(w, self._total) for _, w in self.pairs]
        numeric = all(isinstance(o, (int, Fraction)) for o in self._index)
        mean = cast(Distribution[int], self).mean() if numeric else None
        return {
            "outcomes": list(self._index),  # tuples become JSON lists
            "p": [str(p) for p in probs],
            "float": [float(p) for p in probs],
            "mean": None if mean is None else chance_json(mean),
        }


def chance_json(p: Fraction | int) -> dict[str, Any]:
    """The one JSON encoding of an exact chance (or any exact number): ``{"p": "7/36",
    "float": 0.1944...}``."""
    q = Fraction(p)
    return {"p": str(q), "float": float(q)}


def _from_fractions(probs: Mapping[T, Fraction]) -> Distribution[T]:
    scale = math.lcm(*(p.denominator for p in probs.values()))
    return Distribution(tuple((o, p.numerator * scale // p.denominator) for o, p in probs.items()))


@lru_cache(maxsize=512, typed=True)
def die(sides: int) -> Distribution[int]:
    """One fair die numbered 1..sides."""
    return Distribution(tuple((v, 1) for v in range(1, _sides(sides) + 1)))


@lru_cache(maxsize=512, typed=True)
def binomial(n: int, p: Fraction | int) -> Distribution[int]:
    """Successes in n independent trials of probability p = a/b: weights C(n,k) a^k (b-a)^(n-k)."""
    n, p = _whole(n, "n (trials)", 0), Fraction(p)
    if not 0 <= p <= 1:
        raise RulesError(f"p must be a probability from 0 to 1, got {p}")
    a, b = p.numerator, p.denominator
    return Distribution(
        tuple((k, math.comb(n, k) * a**k * (b - a) ** (n - k)) for k in range(n + 1))
    )


@lru_cache(maxsize=512, typed=True)
def count_at_least(n: int, sides: int, target: int) -> Distribution[int]:
    """How many of n d``sides`` show ``target`` or more: Binomial(n, faces/sides) (B5, B6).

    A target of 1 or less always succeeds; one above ``sides`` is an error.
    """
    target = _target(target, _sides(sides))
    return binomial(_whole(n, "n (dice)", 0), Fraction(sides - max(target, 1) + 1, sides))


@lru_cache(maxsize=512, typed=True)
def dice_sum(n: int, sides: int) -> Distribution[int]:
    """The sum of n d``sides``, by convolution: exact without sides^n branches."""
    return die(sides).repeat_sum(_whole(n, "n (dice)", 0))


def hp_lost(hits: int, power: int, protection: int) -> int:
    """B5, B6: HP lost = max(0, hits x Power - Protection)."""
    return max(0, hits * _whole(power, "power", 0) - _whole(protection, "protection", 0))


#: B6: the longest impacting chain ruled, in dice (Tir + 5) x places (victims and B8
#: opponents): its exact laws hold numbers of about 0.78 x that many digits (well under
#: Python's 4,300-digit printing limit), its roll at most that many dice.
MAX_CHAIN_DICE = 2_000


def check_chain(dice: int, places: int) -> None:
    """B6: refuse a chain of ``dice`` over ``places`` longer than :data:`MAX_CHAIN_DICE`."""
    if dice * places > MAX_CHAIN_DICE:
        raise RulesError(
            T_(
                "B6: an impacting chain of {dice} dice (Tir + 5) over {places} victims is "
                "{product} dice x victims; at most {most} are ruled (exact odds and logged "
                "rolls beyond that are too large to give)",
                dice=Num(dice, ","),
                places=Num(places, ","),
                product=Num(dice * places, ","),
                most=Num(MAX_CHAIN_DICE, ","),
            )
        )


def chain_hit(difficulty: int, index: int) -> Fraction:
    """q_i = p (1 - p)^i: the chance that one starting die hits the victim at ``index``."""
    p = Fraction(7 - max(_target(difficulty, 6), 1), 6)
    return p * (1 - p) ** _whole(index, "index (victim position)", 0)


def impacting_hits(dice: int, difficulty: int, index: int) -> Distribution[int]:
    """B6 closed form: hits on the victim at ``index`` (0 = nearest) of an impacting chain
    started with ``dice`` d6 (Tir + 5) at Difficulty ``difficulty``.

    Follow each starting die: it hits victim 0 with p, else its miss is one die of victim 1,
    and so on. So each starting die hits victim i with q_i = p(1-p)^i, independently of the
    others: the hits on victim i are Binomial(dice, q_i), however many victims there are
    (jointly multinomial). Not cached: a long chain's laws are large.
    """
    n = _whole(dice, "dice (Tir + 5)", 0)
    q = chain_hit(difficulty, index)
    check_chain(n, index + 1)
    a, b = q.numerator, q.denominator
    weights = ((k, math.comb(n, k) * a**k * (b - a) ** (n - k)) for k in range(n + 1))
    return Distribution(tuple(weights))


def impacting_hp_lost(
    dice: int, difficulty: int, index: int, *, power: int, protection: int
) -> Distribution[int]:
    """B6 closed form: HP lost by the victim at ``index`` (see :func:`impacting_hits`)."""
    return impacting_hits(dice, difficulty, index).map(lambda h: hp_lost(h, power, protection))


class Dice(ABC):
    """Where a procedure gets its dice: a :class:`Roller`, or the exact enumerator."""

    @abstractmethod
    def d(self, sides: int, label: str) -> int:
        """One d``sides``, rolled for ``label`` (what it decides: "to-hit archer->orc")."""

    def roll(self, n: int, sides: int, label: str) -> tuple[int, ...]:
        """n dice one by one (enumerated as sides^n branches: prefer count_at_least, sum)."""
        return tuple(self.d(sides, label) for _ in range(_whole(n, "n (dice)", 0)))

    def count_at_least(self, n: int, sides: int, target: int, label: str) -> int:
        """How many of n dice show ``target`` or more (enumerated as one binomial branch)."""
        _target(target, _sides(sides))
        return sum(v >= target for v in self.roll(n, sides, label))

    def sum(self, n: int, sides: int, label: str) -> int:
        """The total of n dice (enumerated as one convolved branch)."""
        return sum(self.roll(n, sides, label))

    @abstractmethod
    def until(self, attempt: Callable[[Dice], U], accept: Callable[[U], bool]) -> U:
        """Run ``attempt`` again until ``accept`` holds; return the accepted result.

        Exact: re-rolling until accepted gives the law of one attempt given acceptance.
        """


class _Explorer(Dice):
    """The dice source of :func:`enumerate_procedure`: follows one branch per run."""

    def __init__(self, path: list[int], seen: list[Distribution[Any]], max_leaves: int) -> None:
        self.path, self.seen, self.max_leaves = path, seen, max_leaves
        self.depth, self.weight = 0, Fraction(1)

    def _choose(self, make: Callable[[], Distribution[Any]], check: bool = True) -> Any:
        i = self.depth
        if i == len(self.path):
            self.path.append(0)
            self.seen.append(make())
        elif check and make() != self.seen[i]:
            raise RulesError(
                "the procedure asked for other dice on the same branch: it must depend only "
                "on the dice it rolls (no outside randomness or state)"
            )
        outcome, weight = self.seen[i].pairs[self.path[i]]
        self.weight *= Fraction(weight, self.seen[i].total)
        self.depth += 1
        return outcome

    def d(self, sides: int, label: str) -> int:
        return cast(int, self._choose(lambda: die(sides)))

    def count_at_least(self, n: int, sides: int, target: int, label: str) -> int:
        return cast(int, self._choose(lambda: count_at_least(n, sides, target)))

    def sum(self, n: int, sides: int, label: str) -> int:
        return cast(int, self._choose(lambda: dice_sum(n, sides)))

    def until(self, attempt: Callable[[Dice], U], accept: Callable[[U], bool]) -> U:
        def law() -> Distribution[U]:
            return enumerate_procedure(attempt, max_leaves=self.max_leaves).given(accept)

        return cast(U, self._choose(law, check=False))  # computed once per branch prefix


def enumerate_procedure(proc: Callable[[Dice], T], *, max_leaves: int = 200_000) -> Distribution[T]:
    """The exact law of ``proc``'s outcome, over every branch of the dice it asks for.

    Depth first: the procedure runs once per leaf, replaying the choices of its branch, so
    the dice it asks for may depend on earlier dice. Over ``max_leaves`` leaves: an error.
    """
    acc: dict[T, Fraction] = {}
    path: list[int] = []
    seen: list[Distribution[Any]] = []
    leaves = 0
    while True:
        src = _Explorer(path, seen, max_leaves)
        outcome = proc(src)
        if src.depth != len(path):
            raise RulesError("the procedure stopped early on a branch: not a function of its dice")
        acc[outcome] = acc.get(outcome, Fraction(0)) + src.weight
        leaves += 1
        if leaves > max_leaves:
            raise RulesError(
                f"the procedure has over {max_leaves} branches: roll pools with "
                "dice.count_at_least or dice.sum rather than die by die, or raise max_leaves"
            )
        while path and path[-1] + 1 == len(seen[-1]):
            path.pop()
            seen.pop()
        if not path:
            return _from_fractions(acc)
        path[-1] += 1


@dataclass(frozen=True, slots=True)
class DieRoll:
    """One logged die: what it was for, its number of sides, the value rolled."""

    label: str
    sides: int
    value: int

    def __post_init__(self) -> None:
        if _whole(self.value, "value") not in range(1, _sides(self.sides) + 1):
            raise RulesError(f"a d{self.sides} cannot show {self.value} (die {self.label!r})")


@dataclass(frozen=True, slots=True)
class RollLog:
    """The dice of a roll, in order, and the seed of the numpy generator they came from."""

    dice: tuple[DieRoll, ...]
    seed: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "dice": [asdict(d) for d in self.dice]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RollLog:
        """Read :meth:`to_json`'s form back; a malformed entry is an error naming it."""
        entries = data.get("dice") if isinstance(data, Mapping) else None
        if not isinstance(entries, list):
            raise RulesError('a roll log is {"seed": int, "dice": [{"label", "sides", "value"}]}')
        dice = []
        for i, e in enumerate(entries):
            if not (isinstance(e, Mapping) and isinstance(e.get("label"), str)):
                raise RulesError(f"dice[{i}]: expected label, sides and value, got {e!r}")
            sides, value = (_whole(e.get(k), f"dice[{i}].{k}") for k in ("sides", "value"))
            dice.append(DieRoll(e["label"], sides, value))
        seed = data.get("seed")
        return cls(tuple(dice), None if seed is None else _whole(seed, "seed", 0))


class Roller(Dice):
    """Dice from ``numpy.random.default_rng(seed)`` that log every die; or, made by
    :meth:`replay`, the dice of a log again, checked against what the procedure asks."""

    max_attempts = 10_000  #: ``until`` gives up (an error) after this many attempts

    def __init__(self, seed: int | None = None) -> None:
        self.seed: int | None = secrets.randbits(63) if seed is None else _whole(seed, "seed", 0)
        self._rng = np.random.default_rng(self.seed)
        self._entries: list[DieRoll] = []
        self._script: tuple[DieRoll, ...] | None = None

    @classmethod
    def replay(cls, log: RollLog | Mapping[str, Any]) -> Roller:
        """A roller giving back the dice of ``log`` (a :class:`RollLog` or its JSON form)."""
        log = log if isinstance(log, RollLog) else RollLog.from_json(log)
        roller = cls(log.seed or 0)
        roller.seed, roller._script = log.seed, log.dice
        return roller

    @property
    def log(self) -> RollLog:
        """Every die rolled so far."""
        return RollLog(tuple(self._entries), self.seed)

    @property
    def remaining(self) -> int:
        """Dice of the replayed log not asked for yet (0 when not replaying)."""
        return 0 if self._script is None else len(self._script) - len(self._entries)

    def d(self, sides: int, label: str) -> int:
        i, asked = len(self._entries), f"{label!r} d{_sides(sides)}"
        if self._script is None:
            value = int(self._rng.integers(1, sides + 1))
        elif i >= len(self._script):
            raise ReplayError(f"replay: die #{i + 1} ({asked}) is beyond the log's {i}; {_REDO}")
        elif (self._script[i].label, self._script[i].sides) != (label, sides):
            logged = f"{self._script[i].label!r} d{self._script[i].sides}"
            raise ReplayError(f"replay: die #{i + 1} is {logged} in the log, not {asked}; {_REDO}")
        else:
            value = self._script[i].value
        self._entries.append(DieRoll(label, sides, value))
        return value

    def until(self, attempt: Callable[[Dice], U], accept: Callable[[U], bool]) -> U:
        for _ in range(self.max_attempts):
            if accept(result := attempt(self)):
                return result
        raise RulesError(f"until: no attempt accepted in {self.max_attempts}: can it ever be?")


def roll_procedure(proc: Callable[[Dice], R], roller: Roller | int) -> tuple[R, RollLog]:
    """Roll ``proc`` once (an int seeds a fresh :class:`Roller`): its outcome and its dice."""
    roller = roller if isinstance(roller, Roller) else Roller(roller)
    start = len(roller._entries)
    outcome = proc(roller)
    return outcome, RollLog(tuple(roller._entries[start:]), roller.seed)


def replay_procedure(proc: Callable[[Dice], R], log: RollLog | Mapping[str, Any]) -> R:
    """``proc``'s outcome on the dice of ``log``: an error if it asks for other dice or fewer."""
    roller = Roller.replay(log)
    outcome = proc(roller)
    if roller.remaining:
        used = len(roller._entries)
        raise ReplayError(f"replay: {used} dice used, {roller.remaining} left in the log; {_REDO}")
    return outcome


def mordheim_to_hit(
    dice: Dice,
    need: int,
    *,
    in_cover: bool = False,
    natural_one_misses: bool = False,
    need_over_six: NeedOverSix = "impossible",
    label: str = "to-hit",
) -> ToHit:
    """M7: 1D6 against ``need``, the score for the BS with the modifiers applied; M9 cover.

    M9: in cover, a miss by exactly 1 hits the cover ('hit_cover'). M7 options:
    ``natural_one_misses``: a 1 misses even when ``need`` <= 1 (a plain 'miss');
    ``need_over_six``: 'impossible' (default: 7+ never hits; a 6 still misses a 7 by 1), or
    '6-then-4+', the Warhammer/Mordheim 7+ chart: 7 = a 6 then 4+, 8 = 6 then 5+, 9 = 6 then
    6, 10+ impossible. That roll scores 6 + max(0, second die - 3), so "misses by 1" keeps
    its meaning; the second die is rolled only when it can change the outcome.
    """
    need = _whole(need, "need")
    if need_over_six not in ("impossible", "6-then-4+"):
        raise RulesError(
            T_(
                "need_over_six: got {value}, expected 'impossible', '6-then-4+'",
                value=repr(need_over_six),
            )
        )
    score = dice.d(6, label)
    if natural_one_misses and score == 1 and need <= 1:
        return "miss"
    if score == 6 and need_over_six != "impossible" and 7 <= need <= (10 if in_cover else 9):
        score = 6 + max(0, dice.d(6, f"{label} after a 6") - 3)
    if score >= need:
        return "hit"
    return "hit_cover" if in_cover and score == need - 1 else "miss"


def breath_enveloping(
    dice: Dice, *, difficulty: int, power: int, protection: int = 0, label: str = "breath"
) -> int:
    """B5: HP lost by one victim: 5d6, each die >= Difficulty hits for Power; no cover."""
    return hp_lost(dice.count_at_least(5, 6, difficulty, label), power, protection)


def impacting_victim(
    dice: Dice, left: int, *, difficulty: int, power: int, protection: int, label: str
) -> tuple[int, int]:
    """B6, one victim of an impacting chain: the ``left`` dice are rolled at it, each one
    >= Difficulty hits for Power; returns (hits, HP lost). The dice that missed go on to
    the next victim (``left - hits``); with no dice left nothing is rolled.

    :func:`breath_impacting` chains it over victims nearest first; the breath ruleset
    (:func:`arbitre.rules.breath.procedure.resolve`) chains it the same way, with B7 ties
    drawn and B8 spills taking their place in the chain.
    """
    hits = dice.count_at_least(left, 6, difficulty, label) if left else 0
    return hits, hp_lost(hits, power, protection)


def breath_impacting(
    dice: Dice,
    *,
    tir: int,
    difficulty: int,
    power: int,
    protections: Sequence[int],
    label: str = "breath",
) -> tuple[tuple[int, int], ...]:
    """B6: (hits, HP lost) per victim, nearest first (``protections`` in that order, cover
    included). The first gets Tir + 5 dice, each next one as many as missed on the previous
    (:func:`impacting_victim`); victims left when the dice run out get (0, 0). Closed form:
    :func:`impacting_hits`.
    """
    left, results = _whole(tir + 5, "dice (Tir + 5)", 0), []
    check_chain(left, len(protections))
    for i, protection in enumerate(protections):
        hits, hp = impacting_victim(
            dice,
            left,
            difficulty=difficulty,
            power=power,
            protection=protection,
            label=f"{label} victim {i + 1}",
        )
        results.append((hits, hp))
        left -= hits
    return tuple(results)


def melee_spill(dice: Dice, opponents: Sequence[str], *, label: str = "melee spill") -> str | None:
    """B8: the opponent also affected, or None. 1d6: even, only the victim; odd, one of
    ``opponents`` (engaged, outside the area) at random, by a d``len`` if several. With no
    opponent the rule does not apply and nothing is rolled.
    """
    if not opponents or dice.d(6, label) % 2 == 0:
        return None
    if len(opponents) == 1:
        return opponents[0]
    return opponents[dice.d(len(opponents), f"{label}: which opponent") - 1]


def roll_off(dice: Dice, players: tuple[str, str] = ("A", "B"), *, sides: int = 20) -> str:
    """D2: each player rolls a D20, the lower decides the order; ties are rolled again
    (Decision). Returns the player who decides."""
    if _sides(sides) < 2 or players[0] == players[1]:
        raise RulesError(f"a roll-off needs 2 distinct players, sides >= 2: {players!r} d{sides}")

    def attempt(src: Dice) -> tuple[int, int]:
        return src.d(sides, f"roll-off {players[0]}"), src.d(sides, f"roll-off {players[1]}")

    a, b = dice.until(attempt, lambda pair: pair[0] != pair[1])
    return players[0] if a < b else players[1]
