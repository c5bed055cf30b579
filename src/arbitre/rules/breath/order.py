"""B6-B8: the exact law of every model's place in an impacting chain, when B7 ties are
drawn and B8 spills insert opponents behind the victims they come from.

The victims are taken group by group in B7 order. A tie group is taken in a uniformly
random order (B7); after each victim engaged with models outside the template, its B8 die
may insert one of them right behind it (an opponent is affected once at most). The law is
computed by dynamic programming over the groups, and inside a group over its members in
every order, with exchangeable members counted rather than tracked:

- *quiet* members (no opponent outside the template) only take a place each;
- *private* spillers, whose opponents no other victim can pick, take a place and, with
  chance 1/2, put one of their own opponents right behind them;
- the other (*shared*) spillers are tracked one by one, with the opponents already
  affected that a later victim could pick again.

So a group costs about 2^shared x members, not 2^members; past :data:`MAX_ORDER_STEPS`
steps the law is refused (a limit real tables never reach: it takes a dozen victims tied
at the same distance, engaged with the same models outside the template). The chances
are whole numbers over one common denominator (:func:`_denominator`): every division in
the program is exact.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from fractions import Fraction

from arbitre.errors import RulesError
from arbitre.i18n import T_, Num
from arbitre.rules.breath.values import Plan

#: The most steps (state x choice) of the order law of one chain.
MAX_ORDER_STEPS = 1_000_000

_State = tuple[int, frozenset[str]]
_Law = dict[str, dict[int, int]]
#: Inside a group: position, opponents affected, shared spillers left, private spillers
#: left, quiet members left.
_Inner = tuple[int, frozenset[str], frozenset[str], int, int]


@dataclass(frozen=True, slots=True)
class _Group:
    """A tie group's members by kind (see the module's docstring)."""

    quiet: tuple[str, ...]
    private: tuple[str, ...]
    shared: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.quiet) + len(self.private) + len(self.shared)


def _kinds(plan: Plan) -> list[_Group]:
    opps = dict(plan.opponents)
    picked_by = Counter(o for _, cands in plan.opponents for o in cands)
    out = []
    for g in plan.groups:
        spill = [m for m in g if opps.get(m)]
        private = tuple(sorted(m for m in spill if all(picked_by[o] == 1 for o in opps[m])))
        out.append(
            _Group(
                quiet=tuple(m for m in g if not opps.get(m)),
                private=private,
                shared=tuple(sorted(set(spill) - set(private))),
            )
        )
    return out


class _Budget:
    """Counts the steps of one order law; an error past :data:`MAX_ORDER_STEPS`."""

    def __init__(self, plan: Plan) -> None:
        self.left, self.plan = MAX_ORDER_STEPS, plan

    def spend(self, steps: int) -> None:
        self.left -= steps
        if self.left < 0:
            big = max(self.plan.groups, key=len)
            raise RulesError(
                T_(
                    "B7-B8: the exact order of this chain takes over {steps} steps ({victims} "
                    "victims, the largest tie {tie} at the same distance, {engaged} engaged "
                    "with models outside the template): not ruled",
                    steps=Num(MAX_ORDER_STEPS, ","),
                    victims=len(self.plan.victims),
                    tie=len(big),
                    engaged=len(self.plan.opponents),
                )
            )

    def enter(self, group: _Group, states: int) -> None:
        """Before a group: refuse at once one whose states alone are past the budget."""
        inner = 2 ** len(group.shared) * (len(group.private) + 1) * (len(group.quiet) + 1)
        if inner * states > self.left:
            self.spend(MAX_ORDER_STEPS + 1)


def positions(plan: Plan) -> dict[str, dict[int, Fraction]]:
    """B6-B8: for every model, the law of its place in the impacting chain (0 = first).

    Exact, by dynamic programming over the victims in B7 order (see the module's
    docstring). Probabilities of a model sum to less than 1 when it may not be reached at
    all (an opponent).
    """
    weights, den = position_weights(plan)
    return {m: {pos: Fraction(w, den) for pos, w in v.items()} for m, v in weights.items()}


def position_weights(plan: Plan) -> tuple[dict[str, dict[int, int]], int]:
    """:func:`positions` as whole numbers over one denominator, returned with it. Models
    with the same law may share one dict (exchangeable members of a group): read only."""
    law: _Law = defaultdict(lambda: defaultdict(int))
    opps = dict(plan.opponents)
    later = _later_opponents(plan)
    budget = _Budget(plan)
    kinds = _kinds(plan)
    den = _denominator(kinds, opps)
    states: dict[_State, int] = {(0, frozenset()): den}
    for gi, group in enumerate(kinds):
        keep = frozenset(later[gi + 1]) if gi + 1 < len(later) else frozenset()
        if group.private or group.shared:
            budget.enter(group, len(states))
            states = _through_group(group, states, keep, opps, law, budget)
        else:
            states = _quiet_group(group.quiet, states, keep, law, budget)
    return dict(law), den


def _denominator(kinds: list[_Group], opps: dict[str, tuple[str, ...]]) -> int:
    """A common denominator of every chance of the program: per group of k members, k
    (without spillers) or k! for their order, the number of quiet members and of private
    spillers (the share of one of them), 2 per private spill; per spiller, 2 x its
    opponents (B8)."""
    den = 1
    for g in kinds:
        if not (g.private or g.shared):
            den *= g.size
            continue
        den *= math.factorial(g.size) * max(1, len(g.quiet)) * max(1, len(g.private))
        den *= 2 ** len(g.private)
        for m in (*g.private, *g.shared):
            den *= 2 * len(opps[m])
    return den


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


def _quiet_group(
    quiet: tuple[str, ...],
    states: dict[_State, int],
    keep: frozenset[str],
    law: _Law,
    budget: _Budget,
) -> dict[_State, int]:
    """A group without spillers: each member is equally likely at each of its places."""
    k = len(quiet)
    budget.spend(len(states) * k)
    shared: dict[int, int] = defaultdict(int)
    done: dict[_State, int] = defaultdict(int)
    for (pos, aff), w in states.items():
        for t in range(k):
            shared[pos + t] += w // k
        done[(pos + k, aff & keep)] += w
    for m in quiet:  # a victim without opponents has no other place: share the dict
        law[m] = shared
    return done


def _through_group(
    group: _Group,
    states: dict[_State, int],
    keep: frozenset[str],
    opps: dict[str, tuple[str, ...]],
    law: _Law,
    budget: _Budget,
) -> dict[_State, int]:
    """One tie group: its members in every order (each equally likely), each spiller
    followed by its spill; the states (next position, opponents affected among ``keep``)
    after it. A given quiet member (or private spiller) is among those of its kind left
    with chance left / how many (they are exchangeable)."""
    nq, npr = len(group.quiet), len(group.private)
    widest = max((len(opps[m]) for m in group.shared), default=0)
    quiet: dict[int, int] = defaultdict(int)  # the law of each quiet member
    private: dict[int, int] = defaultdict(int)  # the law of each private spiller
    sub: dict[_Inner, int] = {
        (pos, aff, frozenset(group.shared), npr, nq): w for (pos, aff), w in states.items()
    }
    done: dict[_State, int] = defaultdict(int)
    while sub:
        budget.spend(len(sub) * (3 + len(group.shared) * (1 + widest)))
        moves: list[tuple[_Inner, int]] = []
        for (pos, aff, rem, rp, rq), w in sub.items():
            share = w // (len(rem) + rp + rq)
            if rq:
                quiet[pos] += share * rq // nq
                moves.append(((pos + 1, aff, rem, rp, rq - 1), share * rq))
            if rp:
                private[pos] += share * rp // npr
                half = share * rp // 2  # even: nothing; odd: one of its own opponents
                moves += [((pos + 1, aff, rem, rp - 1, rq), half)]
                moves += [((pos + 2, aff, rem, rp - 1, rq), half)]
            for m in sorted(rem) if rem else ():
                law[m][pos] += share
                for (pos2, aff2), part in _spill(m, pos + 1, aff, share, opps, law):
                    moves.append(((pos2, aff2, rem - {m}, rp, rq), part))
        sub = defaultdict(int)
        for (pos, aff, rem, rp, rq), w in moves:
            if rem or rp or rq:
                sub[(pos, aff, rem, rp, rq)] += w
            else:
                done[(pos, aff & keep)] += w
    _share_out(group, quiet, private, opps, law)
    return done


def _share_out(
    group: _Group,
    quiet: dict[int, int],
    private: dict[int, int],
    opps: dict[str, tuple[str, ...]],
    law: _Law,
) -> None:
    """Give each quiet member and each private spiller the law of its kind, and each
    opponent of a private spiller the place behind it (its chance out of 2 x opponents)."""
    for m in group.quiet:  # victims have no other place: they share one dict
        law[m] = quiet
    for m in group.private:
        law[m] = private
        cands = opps[m]
        behind = {pos + 1: w // (2 * len(cands)) for pos, w in private.items()}
        for o in cands:  # only m can pick o
            law[o] = behind


def _spill(
    m: str,
    pos: int,
    aff: frozenset[str],
    w: int,
    opps: dict[str, tuple[str, ...]],
    law: _Law,
) -> list[tuple[_State, int]]:
    """B8 after ``m`` (at ``pos`` - 1): nothing (even), or one of its opponents at random
    (odd), placed at ``pos`` unless already affected."""
    cands = opps[m]
    out = [((pos, aff), w // 2)]
    part = w // (2 * len(cands))
    for o in cands:
        if o in aff:
            out.append(((pos, aff), part))
        else:
            law[o][pos] += part
            out.append(((pos + 1, aff | {o}), part))
    return out


__all__ = ["MAX_ORDER_STEPS", "position_weights", "positions"]
