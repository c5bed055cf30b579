"""The picture of a breath (a face: no rules here): the template over the table, its
victims ringed and numbered in B7 order, the models a melee spill may reach, those
shielded, and with a roll the HP each lost.

:func:`breath_overlay` reads the fields of a breath or blast ruling (its ``roll`` too, when
rolled) and returns an :class:`~arbitre.faces.svg.table.Overlay` for
:func:`~arbitre.faces.svg.table.render_table`.
"""

from __future__ import annotations

import math
from typing import Any, TypeAlias

from arbitre.faces.svg.draw import ring as circle_points
from arbitre.faces.svg.table import SCREEN_PX, SHOOTER, Drawing, Overlay
from arbitre.geometry import Point
from arbitre.i18n import Num, _, current, number
from arbitre.table import Table
from arbitre.templates import Cone, Degrees

#: The breath ruleset's values, read by field (a face imports no ruleset).
BreathRuling: TypeAlias = Any
BreathRoll: TypeAlias = Any
Victim: TypeAlias = Any

TEMPLATE_STROKE, TEMPLATE_FILL = "#b83a00", "#ff8c1a"
VICTIM, SPILL, SHIELDED = "#c0001a", "#7a1fa2", "#6b6b6b"


def _mark(
    table: Table,
    ident: str,
    u: float,
    colour: str,
    *,
    width: float,
    title: str,
    cls: str,
    dashed: bool = False,
    label: str | None = None,
) -> Drawing:
    """A ring around a model's base, maybe labelled beside it (never over a base)."""
    m = table.model(ident)
    ring = circle_points(m.at, max(m.base.radius, 6 * u) + 3 * u)
    return Drawing(
        ring,
        closed=True,
        stroke=colour,
        width_px=width,
        dashed=dashed,
        label=label,
        label_owner=ident if label else None,
        label_colour=colour,
        title=title,
        cls=cls,
    )


def breath_overlay(table: Table, ruling: BreathRuling) -> Overlay:
    """The template, the shooter, and every victim numbered in order (B1-B8); with the
    ruling's roll, each affected model's place in the resolution and its HP lost."""
    u = max(table.width, table.depth) / SCREEN_PX  # mm per screen pixel, as the table
    drawings = _template(table, ruling, u)
    rolled = _rolled(ruling.roll)
    for v in ruling.victims:
        drawings.extend(_victim(table, v, u, rolled, rolled_at_all=ruling.roll is not None))
    for ident in ruling.shielded:
        drawings.append(
            _mark(
                table,
                ident,
                u,
                SHIELDED,
                width=3.0,
                dashed=True,
                title=_("{model}: shielded by large terrain (B3)").format(model=ident),
                cls="breath-shielded",
            )
        )
    title = _("Breath: {weapon}").format(weapon=ruling.weapon.name)
    return Overlay(tuple(drawings), _legend(ruling), title if len(title) <= 28 else _("Breath"))


def _template(table: Table, ruling: BreathRuling, u: float) -> list[Drawing]:
    """The template (and a cone's axis) and the shooter's ring."""
    shooter = table.model(ruling.shooter)
    t = ruling.template
    if isinstance(t, Cone):
        outline: tuple[Point, ...] = t.vertices
        if t.rim is None:
            name = _("breath cone, aimed at {angle} (B1-B2)").format(angle=Degrees(t.angle))
        else:
            name = _("breath cone, aimed at {angle}, apex at {rim} on the rim (B1-B2)").format(
                angle=Degrees(t.angle), rim=Degrees(t.rim)
            )
    else:
        outline = circle_points(t.centre, t.radius, 96)
        name = _("blast (B10)")
    drawings = [
        Drawing(
            outline,
            closed=True,
            stroke=TEMPLATE_STROKE,
            fill=TEMPLATE_FILL,
            fill_opacity=0.3,
            width_px=2.5,
            title=name,
            cls="breath-template",
        )
    ]
    if isinstance(t, Cone):
        a = math.radians(t.angle)
        far = Point(t.apex.x + t.length * math.cos(a), t.apex.y + t.length * math.sin(a))
        drawings.append(
            Drawing(
                (shooter.at, far),
                stroke=TEMPLATE_STROKE,
                width_px=1.2,
                dashed=True,
                title=_("aim"),
                cls="breath-axis",
            )
        )
    caught = any(v.id == shooter.id for v in ruling.victims)  # a thrower in its own blast
    ring = circle_points(shooter.at, max(shooter.base.radius, 6 * u) + (8 if caught else 4) * u)
    drawings.append(
        Drawing(
            ring,
            closed=True,
            stroke=SHOOTER,
            width_px=4.5,
            cls="breath-shooter",
            title=_("{shooter} breathes {weapon}").format(
                shooter=shooter.id, weapon=ruling.weapon.name
            ),
        )
    )
    return drawings


def _victim(
    table: Table, v: Victim, u: float, rolled: dict[str, str], *, rolled_at_all: bool
) -> list[Drawing]:
    """A victim's ring and number (B7), or a spill's dashed ring and link (B8)."""
    if v.in_area:
        rank = v.rank or 0
        label = str(rank) if not v.tied_with else f"{rank}-{rank + len(v.tied_with)}"
        label = rolled.get(v.id, label)
        tip = _("{model}: victim {label}, mean HP lost {mean}").format(
            model=v.id, label=label, mean=Num(float(v.mean), ".2f").render()
        )
        return [
            _mark(table, v.id, u, VICTIM, width=3.5, label=label, title=tip, cls="breath-victim")
        ]
    spared = _("B8: spared") if rolled_at_all else f"B8 {_percent(float(v.p_affected))}"
    at = table.model(v.id).at
    links = [
        Drawing(
            (table.model(src).at, at),
            stroke=SPILL,
            width_px=2.0,
            dashed=True,
            cls="breath-spill-link",
        )
        for src in v.via
    ]
    tip = _("{model}: melee spill from {via} (B8)").format(model=v.id, via=", ".join(v.via))
    return [
        *links,
        _mark(
            table,
            v.id,
            u,
            SPILL,
            width=3.0,
            dashed=True,
            label=rolled.get(v.id, spared),
            title=tip,
            cls="breath-spill",
        ),
    ]


def _legend(ruling: BreathRuling) -> tuple[tuple[str, str, str], ...]:
    t, roll = ruling.template, ruling.roll
    if isinstance(t, Cone):
        what = _("cone, aim {angle} deg (B1-B2)").format(angle=number(t.angle))
    else:
        what = _("blast (B10)")
    legend = [("swatch", TEMPLATE_FILL, what), ("ring", SHOOTER, _("shooter"))]
    victim = _("victim: order (B7), -HP lost") if roll else _("victim, nearest first (B7)")
    legend.append(("ring", VICTIM, victim))
    if any(v.tied_with for v in ruling.victims) and roll is None:
        legend.append(("ring", VICTIM, _("2-3: tied, order drawn")))
    if any(not v.in_area for v in ruling.victims):
        legend.append(("dash", SPILL, _("melee spill, chance (B8)")))
    if ruling.shielded:
        legend.append(("dash", SHIELDED, _("shielded by terrain (B3)")))
    return tuple(legend)


def _percent(p: float) -> str:
    """A whole percentage, in French with a space before %."""
    text = f"{p:.0%}"
    return text.replace("%", " %") if current() == "fr" else text


def _rolled(roll: BreathRoll | None) -> dict[str, str]:
    """With a roll: each affected model's place in the resolution and its HP lost."""
    if roll is None:
        return {}
    out = {}
    for k, h in enumerate(roll.hits, start=1):
        lost = h.state if h.state else (f"-{h.hp_lost}" if h.hp_lost else "0")
        out[h.model] = f"{k}: {lost}"
    return out


__all__ = ["breath_overlay"]
