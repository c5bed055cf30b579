"""Breath weapons (B1-B10, seed 001): who a template touches and in what order, the exact
odds of what each victim loses, a seeded and logged roll, and the best placement of a cone
(apex on the rim and axis, B2).

The ruleset answers two questions (:data:`RULESET`), through :func:`arbitre.rules.ask`:

- ``breath`` (:class:`BreathRequest`): a cone aimed by an angle or toward a model, its
  apex anywhere on the shooter's rim (``apex``), or at the best placement; a
  :class:`BreathRuling`.
- ``blast`` (:class:`BlastRequest`): a B10 blast centred at a point; a :class:`BlastRuling`.

Both may be rolled (``seed``); ``arbitre validate`` reports the breath notations of a table
that cannot be read (:func:`check`). The package is laid out by rule:

- :mod:`~arbitre.rules.breath.notation`: B4, the notation, and a model's breath weapons;
- :mod:`~arbitre.rules.breath.victims`: B3 victims, B6 cover, B8 opponents, B9, the ruling;
- :mod:`~arbitre.rules.breath.procedure`: B5-B8, the dice procedure and its exact laws;
- :mod:`~arbitre.rules.breath.order`: B6-B8, the law of each model's place in a chain;
- :mod:`~arbitre.rules.breath.aim`: B2 placing, and the best placement (exact, over apex
  and axis: :mod:`arbitre.cone_space`);
- :mod:`~arbitre.rules.breath.values`: options, requests, rulings and their JSON.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from arbitre.errors import RulesError
from arbitre.i18n import N_, T_
from arbitre.rules.breath.aim import best, blast, cone
from arbitre.rules.breath.notation import BreathWeapon, breath_weapon, weapon_problems
from arbitre.rules.breath.order import positions
from arbitre.rules.breath.procedure import (
    expected_value,
    laws,
    resolve,
    roll,
    spill_odds,
)
from arbitre.rules.breath.values import (
    BLAST_SCHEMA,
    BREATH_SCHEMA,
    Aim,
    AimSearch,
    BlastRequest,
    BlastRuling,
    BreathOptions,
    BreathRequest,
    BreathRoll,
    BreathRuling,
    Hit,
    Plan,
    Victim,
)
from arbitre.rules.breath.victims import check_order, rule
from arbitre.rules.registry import Question, Ruleset, questions
from arbitre.table import Table

RULES_NAME = "breath"


def with_roll(ruling: BreathRuling, seed: int | None) -> BreathRuling:
    """``ruling`` with its breath rolled once on dice seeded with ``seed`` (B4-B8), every
    die logged; unchanged when ``seed`` is None."""
    return ruling if seed is None else replace(ruling, roll=roll(ruling.plan, seed))


def _table(subject: Any, question: str) -> Table:
    if not isinstance(subject, Table):
        raise RulesError(
            T_("{question} rules a table; this file is a map of places", question=question)
        )
    return subject


def ask_breath(
    subject: Any, request: BreathRequest, *, options: BreathOptions
) -> list[BreathRuling]:
    """The ``breath`` question: one ruling, the cone aimed as asked (B1-B9)."""
    table = _table(subject, "breath")
    if request.best:
        ruling = best(table, request.shooter, request.weapon, order=request.order, options=options)
    else:
        check_order(request.order)
        template = cone(
            table, request.shooter, angle=request.angle, toward=request.toward, apex=request.apex
        )
        ruling = rule(
            table, request.shooter, request.weapon, template, order=request.order, options=options
        )
    return [with_roll(ruling, request.seed)]


def ask_blast(subject: Any, request: BlastRequest, *, options: BreathOptions) -> list[BreathRuling]:
    """The ``blast`` question: one ruling, the B10 blast centred as asked."""
    table = _table(subject, "blast")
    template = blast(table, request.at, request.radius)
    ruling = rule(
        table, request.shooter, request.weapon, template, order=request.order, options=options
    )
    return [with_roll(ruling, request.seed)]


def check(subject: Any) -> list[str]:
    """The problems ``arbitre validate`` reports: breath notations that cannot be read (B4)."""
    return weapon_problems(subject) if isinstance(subject, Table) else []


RULESET = Ruleset(
    name=RULES_NAME,
    title=N_("Breath weapons and cone templates (B1-B10)"),
    aliases=("souffle", "breath-weapons"),
    options=BreathOptions,
    questions=questions(
        Question(
            name="breath",
            title=N_("A breath cone: victims in order, exact odds, a roll"),
            request=BreathRequest,
            run=ask_breath,
            schema=BREATH_SCHEMA,
        ),
        Question(
            name="blast",
            title=N_("A B10 blast: victims, exact odds, a roll"),
            request=BlastRequest,
            run=ask_blast,
            schema=BLAST_SCHEMA,
        ),
    ),
    check=check,
)

__all__ = [
    "RULESET",
    "Aim",
    "AimSearch",
    "BlastRequest",
    "BlastRuling",
    "BreathOptions",
    "BreathRequest",
    "BreathRoll",
    "BreathRuling",
    "BreathWeapon",
    "Hit",
    "Plan",
    "Victim",
    "ask_blast",
    "ask_breath",
    "best",
    "blast",
    "breath_weapon",
    "check",
    "check_order",
    "cone",
    "expected_value",
    "laws",
    "positions",
    "resolve",
    "roll",
    "rule",
    "spill_odds",
    "weapon_problems",
    "with_roll",
]
