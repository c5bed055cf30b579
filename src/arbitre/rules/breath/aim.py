"""Aiming a breath (B2): the cone placed by an angle or toward a model, a B10 blast placed
in the report unit, and the best aim of a cone, searched exactly.

The geometry (placing the cone on the shooter's base, B1-B2; the bases touched, B3; their
order and ties, B7) is :mod:`arbitre.templates`, the sweep of every aim
:mod:`arbitre.cone_sweep`; this module
chooses the aim and values it.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from arbitre import cone_sweep, templates
from arbitre.geometry import Point
from arbitre.rules.breath.notation import BreathWeapon
from arbitre.rules.breath.procedure import expected_value
from arbitre.rules.breath.values import Aim, AimSearch, BreathOptions, BreathRuling
from arbitre.rules.breath.victims import Context, check_order, context, rule_in
from arbitre.rules.options import shared_options
from arbitre.table import Table
from arbitre.templates import Blast, Cone


def cone(
    table: Table, shooter: str, *, angle: float | None = None, toward: str | None = None
) -> Cone:
    """B1-B2: the cone aimed at ``angle`` degrees, or with its axis through ``toward``'s
    centre."""
    if toward is not None:
        angle = templates.aim_at(table, shooter, toward)
    assert angle is not None, "an angle or a model to aim at"
    return templates.place_cone(table, shooter, angle)


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
    """The aim of ``shooter``'s cone with the greatest expected HP lost by enemies minus HP
    lost by friends (a state breath: enemies minus friends affected), searched exactly:
    the ruling at that aim, with ``best``, ``runner_up`` and ``search`` set.

    The value only changes at the critical aims of :func:`~arbitre.cone_sweep.sweep`; one
    aim inside each arc between them is evaluated, exactly (Fractions). Among equal values
    the widest arc wins (the easiest to place by hand), its middle is the aim given. The
    runner-up is the best arc whose victims differ.
    """
    check_order(order)
    ctx = context(table, shooter, weapon, options, blast=False)
    sw = cone_sweep.sweep(
        table,
        shooter,
        strict=ctx.strict,
        ordered=ctx.nature == "impacting" and ctx.note.rolls,
        shield=ctx.opts.template_blocked,
        grazing=shared_options(table).grazing_blocks,
    )
    aims = _valued(ctx, sw)

    top = max(aims, key=_rank)
    others = [a for a in aims if set(a.victims) != set(top.victims)]
    runner = max(others, key=_rank) if others else None
    ruling = rule_in(ctx, templates.place_cone(table, shooter, top.angle), order)
    return replace(
        ruling,
        best=top,
        runner_up=runner,
        search=AimSearch(critical=len(sw.critical), arcs=len(sw.arcs)),
    )


def _valued(ctx: Context, sw: cone_sweep.Sweep) -> list[Aim]:
    """Every arc of the sweep as an aim with its exact expected value (arcs with the same
    victims in the same order are valued once)."""
    ctx.prepare_cover(
        set(sw.candidates) | {o for m in sw.candidates for o in ctx.engaged.get(m, ())}
    )
    cache: dict[tuple[object, ...], Fraction] = {}
    aims = []
    for arc in sw.arcs:
        area = set(arc.victims) | set(arc.shielded)
        key = (arc.ties, frozenset(area))
        if key not in cache:
            cache[key] = expected_value(ctx.plan(arc.ties, area), ctx.sign)
        aims.append(
            Aim(
                angle=arc.middle,
                start=arc.start,
                end=arc.end,
                value=cache[key],
                victims=arc.victims,
                ties=arc.ties,
                shielded=arc.shielded,
            )
        )
    return aims


def _rank(a: Aim) -> tuple[Fraction, float, float]:
    """The best value first; among equals the widest arc, then the first counter-clockwise
    from 0 degrees."""
    return (a.value, a.end - a.start, -(a.start % 360.0))


__all__ = ["best", "blast", "cone"]
