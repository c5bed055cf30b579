"""Aiming a breath (B2): the cone placed by an angle or toward a model, a B10 blast placed
in the report unit, and the best aim of a cone, searched exactly.

The geometry (placing the cone on the shooter's base, B1-B2; the bases touched, B3; their
order and ties, B7) is :mod:`arbitre.templates`, the exact search of every placement
(apex and axis) :mod:`arbitre.cone_space`; this module chooses the placement and values
it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING

from arbitre import templates
from arbitre.errors import RulesError
from arbitre.geometry import Point
from arbitre.i18n import T_
from arbitre.rules.breath.notation import BreathWeapon
from arbitre.rules.breath.procedure import expected_value
from arbitre.rules.breath.values import Aim, AimSearch, BreathOptions, BreathRuling
from arbitre.rules.breath.victims import Context, check_order, context, rule_in
from arbitre.rules.options import shared_options
from arbitre.table import Table
from arbitre.templates import Blast, Cone

if TYPE_CHECKING:  # the exact search is imported by best(), not with the ruleset
    from arbitre import cone_space


def cone(
    table: Table,
    shooter: str,
    *,
    angle: float | None = None,
    toward: str | None = None,
    apex: float | None = None,
) -> Cone:
    """B1-B2: the cone with its apex on the shooter's rim at ``apex`` degrees (default:
    the aim direction) and its axis at ``angle`` degrees, or through ``toward``'s centre
    (from the apex; with no ``apex``, the apex on the line from the shooter's centre)."""
    if toward is not None:
        angle = templates.aim_at(table, shooter, toward)
        if apex is not None:
            at = templates.place_cone(table, shooter, angle, apex).apex
            b = table.model(toward).at
            if math.hypot(b.x - at.x, b.y - at.y) <= 1e-9:
                raise RulesError(
                    T_("B2: {model} stands on the apex: no direction to it", model=repr(toward))
                )
            angle = math.degrees(math.atan2(b.y - at.y, b.x - at.x)) % 360.0
    assert angle is not None, "an angle or a model to aim at"
    return templates.place_cone(table, shooter, angle, apex)


def blast(table: Table, at: tuple[float, float], radius: float) -> Blast:
    """B10: the blast centred ``at`` with ``radius``, both in the table's report unit."""
    u = table.unit
    found = Blast(Point(u.to_mm(at[0]), u.to_mm(at[1])), u.to_mm(radius))
    templates.check_blast(found)
    return found


def best(
    table: Table,
    shooter: str,
    weapon: str | BreathWeapon | None,
    *,
    order: str | None = None,
    options: BreathOptions | None = None,
) -> BreathRuling:
    """The placement (apex on the rim, axis) of ``shooter``'s cone with the greatest
    expected HP lost by enemies minus HP lost by friends (a state breath: enemies minus
    friends affected), searched exactly over both degrees of freedom (B2): the ruling at
    that placement, with ``best``, ``runner_up`` and ``search`` set.

    The victims only change across the critical configurations of
    :func:`~arbitre.cone_space.search` (a cone edge, its far side or a corner touching a
    base, the domain's edge where the cone would lie over the base); one placement inside
    each cell between them is evaluated, and each distinct outcome valued exactly
    (Fractions). Among equal values the placement farthest from every B3 threshold wins
    (the easiest to place by hand). The runner-up is the best placement whose victims
    differ.
    """
    check_order(order)
    ctx = context(table, shooter, weapon, options, blast=False)
    from arbitre import cone_space

    space = cone_space.search(
        table,
        shooter,
        strict=ctx.strict,
        over_base=ctx.opts.cone_over_base,
        order_from=ctx.opts.order_from,
        ordered=ctx.nature == "impacting" and ctx.note.rolls,
        shield=ctx.opts.template_blocked,
        grazing=shared_options(table).grazing_blocks,
    )
    aims = _valued(ctx, space)
    top = max(aims, key=_rank)
    others = [a for a in aims if set(a.victims) != set(top.victims)]
    runner = max(others, key=_rank) if others else None
    ruling = rule_in(ctx, templates.place_cone(table, shooter, top.angle, top.apex), order)
    return replace(
        ruling,
        best=top,
        runner_up=runner,
        search=AimSearch(critical=space.critical, arcs=space.cells, slices=space.slices),
    )


def _valued(ctx: Context, space: cone_space.Space) -> list[Aim]:
    """Every outcome of the search as an aim with its exact expected value (outcomes with
    the same victims in the same order are valued once)."""
    ctx.prepare_cover(
        set(space.candidates) | {o for m in space.candidates for o in ctx.engaged.get(m, ())}
    )
    cache: dict[tuple[object, ...], Fraction] = {}
    aims = []
    for p in space.placements:
        area = set(p.victims) | set(p.shielded)
        key = (p.ties, frozenset(area))
        if key not in cache:
            cache[key] = expected_value(ctx.plan(p.ties, area), ctx.sign)
        aims.append(
            Aim(
                angle=p.angle,
                start=p.start,
                end=p.end,
                value=cache[key],
                victims=p.victims,
                ties=p.ties,
                shielded=p.shielded,
                apex=p.apex,
                slack=p.slack,
            )
        )
    return aims


def _rank(a: Aim) -> tuple[Fraction, float, float, float]:
    """The best value first; among equals the placement farthest from every threshold,
    then the first apex and axis counter-clockwise from 0 degrees."""
    return (a.value, a.slack, -(a.apex or 0.0), -(a.angle % 360.0))


__all__ = ["best", "blast", "cone"]
