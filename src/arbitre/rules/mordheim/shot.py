"""The dice of one Mordheim shot (M4, M6, M7, M9), written once as a procedure.

A :class:`Shot` is a frozen value and a dice procedure: called on a
:class:`~arbitre.dice.Dice` source it rolls the M7 to-hit die (through
:func:`arbitre.dice.mordheim_to_hit`) and, for a hit into a multiplayer melee, the M4 die
that says who is hit. :meth:`Shot.odds` enumerates it exactly; :func:`roll` rolls it on a
seeded :class:`~arbitre.dice.Roller`. Both call the same ``__call__``, so the odds printed
by ``arbitre targets`` and the roll of ``arbitre shoot`` cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from arbitre.dice import (
    Dice,
    NeedOverSix,
    Roller,
    RollLog,
    ToHit,
    enumerate_procedure,
    mordheim_to_hit,
    roll_procedure,
)

#: What a shot gives: ``("hit", model hit)``, ``("hit_cover", None)`` or ``("miss", None)``.
Outcome = tuple[ToHit, str | None]


@dataclass(frozen=True, slots=True)
class Odds:
    """The exact odds of a shot: hit, hit on the cover (M9), miss; and, for a hit, the
    chance each model of the fight takes it (M4; the target alone outside a melee)."""

    hit: Fraction
    hit_cover: Fraction
    miss: Fraction
    allocation: tuple[tuple[str, Fraction], ...]

    def to_json(self) -> dict[str, Any]:
        """Exact fraction strings with floats beside (DESIGN.md "Outputs")."""
        doc: dict[str, Any] = {}
        for name, p in (("p_hit", self.hit), ("p_hit_cover", self.hit_cover),
                        ("p_miss", self.miss)):
            doc[name], doc[f"{name}_float"] = str(p), float(p)
        doc["p_hit_model"] = {m: str(p) for m, p in self.allocation}
        doc["p_hit_model_float"] = {m: float(p) for m, p in self.allocation}
        return doc


@dataclass(frozen=True, slots=True)
class Shot:
    """One shot of ``shooter`` at ``target`` needing ``need`` (M7, modifiers applied).

    Out of range (M6) it misses without a die. Otherwise 1D6 to hit (M7; M9 in cover).
    ``fight`` is the target then the models engaged with it when the shot goes into a
    multiplayer melee (M4): a hit then goes to one of them by a d``len(fight)``.
    """

    shooter: str
    target: str
    need: int
    in_range: bool = True
    in_cover: bool = False
    fight: tuple[str, ...] = ()
    natural_one_misses: bool = False
    need_over_six: NeedOverSix = "impossible"

    @property
    def label(self) -> str:
        """The label of the to-hit die in roll logs."""
        return f"M7 to-hit {self.shooter}->{self.target}"

    @property
    def allocation_label(self) -> str:
        """The label of the M4 die: which face gives which model."""
        faces = ", ".join(f"{k} {m}" for k, m in enumerate(self.fight, 1))
        return f"M4 hit goes to ({faces})"

    def __call__(self, dice: Dice) -> Outcome:
        if not self.in_range:  # M6: the shot misses automatically
            return ("miss", None)
        result = mordheim_to_hit(
            dice,
            self.need,
            in_cover=self.in_cover,
            natural_one_misses=self.natural_one_misses,
            need_over_six=self.need_over_six,
            label=self.label,
        )
        if result != "hit":
            return (result, None)
        if len(self.fight) < 2:
            return ("hit", self.target)
        return ("hit", self.fight[dice.d(len(self.fight), self.allocation_label) - 1])

    def odds(self) -> Odds:
        """The exact odds, by enumerating every die this shot can roll."""
        law = enumerate_procedure(self).probabilities()
        hits = {m: p for (kind, m), p in law.items() if kind == "hit" and m is not None}
        order = self.fight or (self.target,)
        return Odds(
            hit=sum(hits.values(), Fraction(0)),
            hit_cover=law.get(("hit_cover", None), Fraction(0)),
            miss=law.get(("miss", None), Fraction(0)),
            allocation=tuple((m, hits.get(m, Fraction(0))) for m in order),
        )


def roll(shot: Shot, seed: int | Roller) -> tuple[Outcome, RollLog]:
    """Roll ``shot`` once on a seeded, logged roller: its outcome and every die."""
    return roll_procedure(shot, seed)
