"""M7 and M9: the score to hit, its words, the exact odds of a shot and the roll of it.

A :class:`Shot` is a frozen value and a dice procedure: called on a
:class:`~arbitre.dice.Dice` source it rolls the M7 to-hit die (through
:func:`arbitre.dice.mordheim_to_hit`, the one M7/M9 procedure) and, for a hit into a
multiplayer melee, the M4 die that says who is hit. :meth:`Shot.odds` enumerates it
exactly; :func:`roll` rolls it on a seeded :class:`~arbitre.dice.Roller`. Both call the
same ``__call__``, so the odds of ``targets`` and the roll of ``shoot`` cannot disagree.

:func:`to_hit` works out a target's M7 score (BS, cover, long range, moving, large) with
its reasons; :func:`rolled` rolls a legal shot into a :class:`ShootRuling`.

Decision: a shooter without BS, or with BS 0, has no score (a reason not to shoot, not
an error); a BS that is not a whole number from 0 to 10 is an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
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
from arbitre.errors import RulesError
from arbitre.i18n import N_, T_, Text, Word, semicolons
from arbitre.rules.mordheim.values import MordheimOptions, ShootRuling, TargetRuling
from arbitre.rules.ruling import Reason, chance
from arbitre.table import Model

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
        """Exact chances (DESIGN.md "Outputs"); ``allocation`` one ``{"model", "chance"}``
        a model of the fight, in the fight's order."""
        return {
            "hit": chance(self.hit),
            "hit_cover": chance(self.hit_cover),
            "miss": chance(self.miss),
            "allocation": [{"model": m, "chance": chance(p)} for m, p in self.allocation],
        }


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
        """The exact odds, by enumerating every die this shot can roll (once per shot:
        an equal shot has the same odds, and a drag asks the same shots again)."""
        return _odds(self)


@lru_cache(maxsize=4096)
def _odds(shot: Shot) -> Odds:
    """:meth:`Shot.odds`: the law of the shot's procedure, enumerated."""
    law = enumerate_procedure(shot).probabilities()
    hits = {m: p for (kind, m), p in law.items() if kind == "hit" and m is not None}
    order = shot.fight or (shot.target,)
    return Odds(
        hit=sum(hits.values(), Fraction(0)),
        hit_cover=law.get(("hit_cover", None), Fraction(0)),
        miss=law.get(("miss", None), Fraction(0)),
        allocation=tuple((m, hits.get(m, Fraction(0))) for m in order),
    )


def roll(shot: Shot, seed: int | Roller) -> tuple[Outcome, RollLog]:
    """Roll ``shot`` once on a seeded, logged roller: its outcome and every die."""
    return roll_procedure(shot, seed)


# -- the M7 score and its words ---------------------------------------------------------------


def ballistic_skill(model: Model) -> int | None:
    """The model's BS (``stats.bs``), a whole number from 0 to 10 (M7), or None."""
    value = model.stat("bs")
    if value is None:
        return None
    if isinstance(value, bool) or not float(value).is_integer() or not 0 <= value <= 10:
        raise RulesError(
            T_(
                "model {id} stats.bs: must be a whole number from 0 to 10 (the M7 table), "
                "got {value}",
                id=repr(model.id),
                value=repr(value),
            )
        )
    return int(value)


def reachable(score: int, opts: MordheimOptions) -> bool:
    """Whether the dice can reach an M7 score under the ``need_over_six`` option."""
    return score <= (6 if opts.need_over_six == "impossible" else 9)


def need_text(score: int, opts: MordheimOptions, in_range: bool | None = True) -> Text:
    """The M7 score in words: ``4+``, ``6 then 4+``, ``impossible (7+)``."""
    if in_range is False:
        return T_("out of range")
    if score <= 1:
        return T_("2+ (a natural 1 misses)") if opts.natural_one_misses else T_("any roll")
    if score <= 6:
        return Text("{score}+", (("score", score),))
    if opts.need_over_six == "6-then-4+" and score <= 9:
        return T_("6 then {score}+", score=score - 3)
    return T_("impossible ({score}+)", score=score)


def need_short(score: int, opts: MordheimOptions, in_range: bool | None = True) -> str:
    """The M7 score as a picture marks it beside a target: ``4+``, ``1+``, ``6 then 4+``,
    ``out of range``, ``no hit``."""
    if in_range is False:
        return "out of range"
    if not reachable(score, opts):
        return "no hit"
    if score <= 1:
        return "2+" if opts.natural_one_misses else "1+"
    return need_text(score, opts).render("en")


def modifiers(r: TargetRuling) -> int:
    """The M7 modifiers that differ from target to target (moving counts for all alike),
    as points added to the score needed."""
    return int(r.in_cover) + int(bool(r.long_range and r.in_range)) - int(r.large)


@dataclass(frozen=True, slots=True)
class ToHitFacts:
    """What M7 needs of a target: seen, in range (None without weapon), at long range, in
    cover (and by what), large, and the fight a hit may go to (M4)."""

    visible: bool
    in_range: bool | None
    long_range: bool | None
    in_cover: bool
    cover_pieces: tuple[str, ...]
    large: bool
    fight: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Score:
    """A target's M7 score, the score when it can hit, the shot to roll and its odds."""

    score: int
    need: int | None
    shot: Shot
    odds: Odds
    modifiers: tuple[tuple[str, int], ...] = ()


def to_hit(
    s: Model, target: str, bs: int | None, armed: bool, f: ToHitFacts, opts: MordheimOptions
) -> tuple[Score | None, list[Reason]]:
    """M7 (and M9): the score ``s`` needs to hit ``target``, with its modifiers, and the
    exact odds; None when it has no BS or no weapon or does not see the target."""
    if not (bs and armed and f.visible):
        return None, []
    mods = [
        (int(f.in_cover), "cover"),
        (int(bool(f.long_range and f.in_range)), "long range"),
        (int("moved" in s.status), "moved and shot"),
        (-int(f.large), "large target"),
    ]
    score = 7 - bs + sum(m for m, _ in mods)
    shot = Shot(
        shooter=s.id,
        target=target,
        need=score,
        in_range=bool(f.in_range),
        in_cover=f.in_cover,
        fight=f.fight,
        natural_one_misses=opts.natural_one_misses,
        need_over_six=opts.need_over_six,
    )
    odds = shot.odds()
    reasons = [Reason("M7", (s.id, target), _score_words(bs, mods, score, opts, f, odds))]
    if f.in_cover and f.in_range and odds.hit_cover:
        reasons.append(
            Reason(
                "M9",
                (target, *f.cover_pieces),
                T_("a miss by exactly 1 hits the cover instead: p {p}", p=odds.hit_cover),
            )
        )
    need = score if f.in_range and reachable(score, opts) else None
    changes = tuple((name, -m) for m, name in mods if m)  # to the roll: cover -1 ...
    return Score(score=score, need=need, shot=shot, odds=odds, modifiers=changes), reasons


#: M7: the modifiers' names, for people (the ruling's ``modifiers`` keep the English names).
MODIFIER_WORDS = {
    "cover": N_("cover"),
    "long range": N_("long range"),
    "moved and shot": N_("moved and shot"),
    "large target": N_("large target"),
}


def _score_words(
    bs: int,
    mods: list[tuple[int, str]],
    score: int,
    opts: MordheimOptions,
    f: ToHitFacts,
    odds: Odds,
) -> Text:
    """M7 in words: ``BS 3: 4+, cover -1 = 5+; p(hit) 1/3``."""
    words: Text = T_("BS {bs}: {need}+", bs=bs, need=7 - bs)
    for m, name in mods:
        if m:
            words = words + ", " + Word(MODIFIER_WORDS[name]) + f" {-m:+d}"
    if any(m for m, _ in mods):
        words = words + " = " + need_text(score, opts)
    if not f.in_range:
        words = semicolons((words, T_("out of range")))
    return semicolons((words, T_("p(hit) {p}", p=odds.hit)))


# -- a shot rolled ---------------------------------------------------------------------------


def rolled(tr: TargetRuling, weapon: str, opts: MordheimOptions, seed: int) -> ShootRuling:
    """Roll the legal shot ``tr`` (M6, M7, M9, M4, M11) from ``seed``, every die logged."""
    if tr.shot is None or tr.odds is None:
        raise RulesError(
            T_("{shooter} has no score to hit {target} (M7)", shooter=tr.shooter, target=tr.target)
        )
    shot, shooter, target = tr.shot, tr.shooter, tr.target
    (kind, hit), log = roll(shot, seed)
    reasons = list(tr.reasons)
    if not shot.in_range:
        reasons.append(
            Reason(
                "M6",
                (shooter, target),
                T_("out of range: the shot misses automatically, no dice rolled"),
            )
        )
    else:
        reasons.append(
            Reason(
                "M9" if kind == "hit_cover" else "M7",
                (shooter, target),
                _roll_words(shot, log, kind, opts),
            )
        )
    if kind == "hit" and len(shot.fight) > 1:
        reasons.append(
            Reason(
                "M4",
                shot.fight,
                T_(
                    "rolled {die} on a d{sides}: the hit goes to {hit}",
                    die=log.dice[-1].value,
                    sides=len(shot.fight),
                    hit=hit,
                ),
            )
        )
    if kind == "hit" and hit is not None:
        reasons.append(
            Reason("M11", (str(hit),), T_("{hit} is hit: go on to the wound step", hit=hit))
        )
    return ShootRuling(
        shooter=shooter,
        target=target,
        weapon=weapon,
        shot=shot,
        need_text=need_text(shot.need, opts, shot.in_range),
        outcome=kind,
        hit=hit,
        automatic=not shot.in_range,
        log=log,
        odds=tr.odds,
        reasons=tuple(reasons),
        margin=tr.margin,
    )


def _roll_words(shot: Shot, log: RollLog, kind: ToHit, opts: MordheimOptions) -> Text:
    """M7, M9: the roll in words: ``rolled 3 needing 5+: misses``."""
    die: int | Text = log.dice[0].value
    if len(log.dice) > 1 and shot.need > 6:
        die = T_("{die} then {then}", die=die, then=log.dice[1].value)
    need = need_text(shot.need, opts)
    if kind == "hit":
        return T_("rolled {die} needing {need}: hits", die=die, need=need)
    if kind == "miss":
        return T_("rolled {die} needing {need}: misses", die=die, need=need)
    return T_(
        "rolled {die} needing {need}: misses by exactly 1: the shot hits the cover",
        die=die,
        need=need,
    )
