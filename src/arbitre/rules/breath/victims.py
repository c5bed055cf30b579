"""Who a breath affects from one template, and the ruling that says so (B3, B6, B8, B9).

:func:`rule` places nothing itself: it takes a template (a cone of
:func:`~arbitre.templates.place_cone`, B1-B2, or a B10 :class:`~arbitre.templates.Blast`),
finds the victims (B3, optionally shielded by large terrain), orders them (B7), gives
each its Protection (with the F3-F4 cover of the shooter's centre line for an impacting
breath, B6) and its B8 opponents, and every model its exact law of HP lost
(:func:`~arbitre.rules.breath.procedure.laws`).

**Decisions** (besides RULES.md's): victims are the bases in G4 contact with the template
(option ``template_touch: overlap`` asks for an overlap of positive area); with
``template_blocked`` only large terrain shields a base, never other bases (B6 sends the
missed dice on to the bases behind); B8 opponents are the models engaged with the victim
either way (G2), outside the template, and (option ``spill_to_shooter``, default true)
the shooter when engaged with the victim or, an adversary, in G4 contact with its base;
each engaged victim rolls its own B8 die, and an opponent picked twice is affected once
(a breath affects a model at most once, as B3). A B10 blast is resolved like B5 and
excepts nobody.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction

import numpy as np

from arbitre import sight, templates
from arbitre.dice import MAX_CHAIN_DICE, Distribution
from arbitre.errors import RulesError
from arbitre.i18n import N_, T_, Num, Text, join
from arbitre.rules.breath.notation import BreathWeapon, Nature, breath_weapon
from arbitre.rules.breath.procedure import expected_value, laws, spill_odds
from arbitre.rules.breath.values import (
    BlastRuling,
    BreathOptions,
    BreathRuling,
    Plan,
    Victim,
)
from arbitre.rules.options import read_options, shared_options
from arbitre.rules.ruling import Margin, Reason
from arbitre.rules.small_terrain import CoverBonus, cover_bonuses
from arbitre.table import Model, Table
from arbitre.templates import Blast, Cone, Degrees, Template
from arbitre.text import fold

#: The word of an empty list of victims (B3).
NOBODY = N_("nobody")


def check_order(order: str | None) -> None:
    """B9: the order Vae victis cannot be used with a breath weapon."""
    if order is not None and fold(order) == "vae victis":
        raise RulesError(
            T_(
                "B9: the order {order} (Vae victis) cannot be used with a breath weapon",
                order=repr(order),
            )
        )


def stat(model: Model, name: str, default: int | None) -> int | None:
    """A whole-number stat of a model (Tir, Protection, HP), or ``default``."""
    value = model.stat(name)
    if value is None:
        return default
    if not float(value).is_integer() or value < 0:
        raise RulesError(
            T_(
                "model {model}: stat {name} must be a whole number >= 0, got {value}",
                model=repr(model.id),
                name=name,
                value=Num(value, "g"),
            )
        )
    return int(value)


class Context:
    """What does not change with the aim: the breath, the shooter, each model's side,
    Protection and cover, and its opponents (cached)."""

    def __init__(
        self, table: Table, shooter: str, weapon: BreathWeapon, opts: BreathOptions, *, blast: bool
    ) -> None:
        self.table, self.shooter, self.weapon, self.opts, self.blast = (
            table,
            shooter,
            weapon,
            opts,
            blast,
        )
        self.note = weapon.notation
        self.nature: Nature = "enveloping" if blast else self.note.nature
        self.side = table.model(shooter).side
        self.dice: int | None = None
        if self.nature == "impacting" and self.note.rolls:
            tir = stat(table.model(shooter), "tir", None)
            if tir is None:
                raise RulesError(
                    T_(
                        "B6: {shooter} has no `tir` stat: an impacting breath rolls Tir + 5 "
                        "dice (add stats: {{tir: N}})",
                        shooter=repr(shooter),
                    )
                )
            self.dice = tir + 5
            if self.dice > MAX_CHAIN_DICE:
                raise RulesError(
                    T_(
                        "B6: {shooter} has Tir {tir}: an impacting breath rolls Tir + 5 = "
                        "{dice} dice, and at most {most} (dice x victims) are ruled",
                        shooter=repr(shooter),
                        tir=Num(tir, ","),
                        dice=Num(self.dice, ","),
                        most=Num(MAX_CHAIN_DICE, ","),
                    )
                )
        self.use_cover = (
            self.nature == "impacting" and self.note.rolls and opts.cover_effect == "protection"
        )
        self.covers: dict[str, CoverBonus] = {}
        self._protection: dict[str, int] = {}
        self._sign: dict[str, int] = {}
        self.engaged = _opponents(table, shooter, opts.spill_to_shooter)

    @property
    def strict(self) -> bool:
        """B3 read as an overlap of positive area (``template_touch: overlap``)."""
        return self.opts.template_touch == "overlap"

    def prepare_cover(self, ids: Iterable[str]) -> None:
        """F3-F4 from the shooter's centre line for ``ids`` (B6), in one batch."""
        if self.nature != "impacting" or not self.note.rolls:
            return
        want = sorted({m for m in ids if m not in self.covers and m != self.shooter})
        for c in cover_bonuses(self.table, [(self.shooter, m) for m in want]):
            self.covers[c.target] = c

    def cover(self, m: str) -> int:
        c = self.covers.get(m)
        return c.bonus if c is not None else 0

    def protection(self, m: str) -> int:
        """Protection (B5), plus the cover of the shooter's centre line when it applies (B6)."""
        if m not in self._protection:
            base = stat(self.table.model(m), "protection", 0) or 0
            self._protection[m] = base + (self.cover(m) if self.use_cover else 0)
        return self._protection[m]

    def sign(self, m: str) -> int:
        """+1 for an enemy of the shooter, -1 for a friend (the best aim's objective)."""
        if m not in self._sign:
            self._sign[m] = -1 if self.table.model(m).side == self.side else 1
        return self._sign[m]

    def plan(self, groups: tuple[tuple[str, ...], ...], area: set[str]) -> Plan:
        """The dice procedure's plan for these victims (B7 groups); ``area`` is every base
        the template touches, shielded or not (never a B8 opponent)."""
        victims = [m for g in groups for m in g]
        opps = tuple(
            (m, c)
            for m in victims
            if (c := tuple(o for o in self.engaged.get(m, ()) if o not in area))
        )
        everyone = set(victims) | {o for _, c in opps for o in c}
        self.prepare_cover(everyone)
        n = self.note
        return Plan(
            nature=self.nature,
            difficulty=n.difficulty,
            power=n.power,
            state=n.state,
            dice=self.dice,
            groups=groups,
            protection=tuple((m, self.protection(m)) for m in sorted(everyone)),
            opponents=opps,
        )


def shooter_contacts(table: Table, shooter: str) -> dict[str, float]:
    """B8: the gap (mm) between the shooter's base and every other base within twice the
    contact tolerance of it (the G4 test is gap <= tolerance)."""
    xy, radii = templates.centres(table)
    i = table.model_index(shooter)
    gap = np.hypot(xy[:, 0] - xy[i, 0], xy[:, 1] - xy[i, 1]) - radii - radii[i]
    near = np.flatnonzero(gap <= 2 * table.contact_tolerance + 1.0)
    return {table.models[k].id: float(gap[k]) for k in near if k != i}


def _opponents(table: Table, shooter: str, to_shooter: bool) -> dict[str, tuple[str, ...]]:
    """B8: each model's opponents a spill may reach: the models engaged with it (G2); the
    shooter only with ``spill_to_shooter``, when engaged with it or, an adversary (another
    side), in G4 contact with its base (seed: «entre tous les adversaires au contact de
    la cible initiale»)."""
    out = {m: set(partners) - {shooter} for m, partners in table.engagements().items()}
    if to_shooter:
        side = table.model(shooter).side
        for m in table.engagements().get(shooter, ()):
            out[m].add(shooter)
        for m, gap in shooter_contacts(table, shooter).items():
            if table.model(m).side != side and bool(
                sight.in_contact(np.array([gap]), table.contact_tolerance)[0]
            ):
                out[m].add(shooter)
    order = {m.id: i for i, m in enumerate(table.models)}
    return {m: tuple(sorted(v, key=order.__getitem__)) for m, v in out.items()}


def context(
    table: Table,
    shooter: str,
    weapon: str | BreathWeapon | None,
    opts: BreathOptions | None,
    *,
    blast: bool,
) -> Context:
    """The context of ``shooter``'s breath ``weapon`` (a name, a notation, the weapon, or
    ``None`` for its only one) under ``opts`` (default: the table's)."""
    bw = weapon if isinstance(weapon, BreathWeapon) else breath_weapon(table, shooter, weapon)
    return Context(
        table, shooter, bw, opts or read_options(BreathOptions, table.options), blast=blast
    )


def template_area(ctx: Context, template: Template) -> tuple[tuple[templates.Touch, ...], set[str]]:
    """B3: the touched bases not shielded (B3 option), and every touched base."""
    table = ctx.table
    exclude = (ctx.shooter,) if isinstance(template, Cone) else ()
    touches = templates.touched(
        table,
        template,
        strict=ctx.strict,
        exclude=exclude,
        shooter=ctx.shooter,
        order_from=ctx.opts.order_from,
    )
    area = {t.model for t in touches}
    if ctx.opts.template_blocked and touches:
        flags = templates.shielded_from(
            table,
            template.origin,
            [table.model_index(t.model) for t in touches],
            grazing=shared_options(table).grazing_blocks,
        )
        touches = tuple(t for t, f in zip(touches, flags, strict=True) if not f)
    return touches, area


def rule(
    table: Table,
    shooter: str,
    weapon: str | BreathWeapon | None,
    template: Template,
    *,
    order: str | None = None,
    options: BreathOptions | None = None,
) -> BreathRuling:
    """B1-B10: the breath of ``shooter``'s ``weapon`` from ``template``, with its reasons
    (a :class:`~arbitre.rules.breath.values.BlastRuling` for a blast).

    ``order`` is the order the shooter's player gives with the shot, if any (B9);
    ``options`` default to the table's.
    """
    check_order(order)
    if isinstance(template, Blast):
        templates.check_blast(template)
    ctx = context(table, shooter, weapon, options, blast=isinstance(template, Blast))
    if isinstance(template, Cone):
        templates.check_cone(table, shooter, template, over_base=ctx.opts.cone_over_base)
    return rule_in(ctx, template, order)


def rule_in(ctx: Context, template: Template, order: str | None) -> BreathRuling:
    """:func:`rule` in a prepared context."""
    touches, area = template_area(ctx, template)
    groups = templates.tie_groups(touches, ctx.table.contact_tolerance)
    plan = ctx.plan(groups, area)
    victims = _victims(ctx, plan, {t.model: t.distance for t in touches})
    shielded = tuple(sorted(area - {t.model for t in touches}))
    cls = BlastRuling if isinstance(template, Blast) else BreathRuling
    return cls(
        shooter=ctx.shooter,
        weapon=ctx.weapon,
        template=template,
        plan=plan,
        victims=victims,
        shielded=shielded,
        value=expected_value(plan, ctx.sign),
        reasons=tuple(_reasons(ctx, template, plan, victims, shielded, order)),
        margin=margin(ctx, template, plan, touches),
    )


def margin(
    ctx: Context, template: Template, plan: Plan, touches: Sequence[templates.Touch]
) -> Margin:
    """G8: the smallest slack of the tests this ruling rests on: every base against the
    template's edges (B3, ``template edge <id>``: its gap against the contact tolerance,
    or 0 with ``template_touch: overlap``); for an impacting chain, each pair of
    consecutive victims' B7 distances against the tie tolerance (``order <a>-<b>``, half
    the slack: moving the shooter shifts both distances); with ``spill_to_shooter``, the
    gap between the shooter and each enemy victim against the contact tolerance (B8,
    ``contact <shooter>-<id>``). Not yet counted: the B3 shield test of
    ``template_blocked`` (a centre line from the apex against large terrain) and the B6
    cover of an impacting breath."""
    table, tol = ctx.table, ctx.table.contact_tolerance
    tests: list[tuple[float, str]] = []
    exclude = (ctx.shooter,) if isinstance(template, Cone) else ()
    edge = templates.template_slack(table, template, strict=ctx.strict, exclude=exclude)
    if edge is not None:
        tests.append((edge[0], f"template edge {edge[1]}"))
    if plan.chained:
        ordered = sorted(touches, key=lambda t: (t.distance, t.model))
        for a, b in itertools.pairwise(ordered):
            tests.append((abs(b.distance - a.distance - tol) / 2.0, f"order {a.model}-{b.model}"))
    if ctx.opts.spill_to_shooter and isinstance(template, Cone):
        side = table.model(ctx.shooter).side
        engaged = set(table.engagements().get(ctx.shooter, ()))
        xy, radii = templates.centres(table)
        i = table.model_index(ctx.shooter)
        for t in touches:
            if t.model in engaged or table.model(t.model).side == side:
                continue
            k = table.model_index(t.model)
            gap = math.hypot(*(xy[k] - xy[i])) - radii[k] - radii[i]
            tests.append((abs(gap - tol), f"contact {ctx.shooter}-{t.model}"))
    return Margin.smallest(tests, shared_options(table).close_call)


def _victims(ctx: Context, plan: Plan, dist: dict[str, float]) -> tuple[Victim, ...]:
    """The victims in B7 order (rank, ties), then the models a B8 spill may reach."""
    got, spill = laws(plan), spill_odds(plan)
    opps, prot = dict(plan.opponents), dict(plan.protection)
    out: list[Victim] = []
    rank = 1
    for g in plan.groups:
        for m in g:
            out.append(
                _victim(
                    ctx,
                    m,
                    in_area=True,
                    rank=rank,
                    tied=tuple(x for x in g if x != m),
                    distance=dist[m],
                    protection=prot[m],
                    p=Fraction(1),
                    law=got[m],
                    spill_to=opps.get(m, ()),
                )
            )
        rank += len(g)
    for o, p in spill.items():
        if o not in dist:
            via = tuple(m for m, c in plan.opponents if o in c)
            out.append(
                _victim(
                    ctx,
                    o,
                    in_area=False,
                    rank=None,
                    tied=(),
                    distance=None,
                    protection=prot[o],
                    p=p,
                    law=got[o],
                    via=via,
                )
            )
    return tuple(out)


def _victim(
    ctx: Context,
    m: str,
    *,
    in_area: bool,
    rank: int | None,
    tied: tuple[str, ...],
    distance: float | None,
    protection: int,
    p: Fraction,
    law: Distribution[int],
    via: tuple[str, ...] = (),
    spill_to: tuple[str, ...] = (),
) -> Victim:
    model = ctx.table.model(m)
    c = ctx.covers.get(m)
    return Victim(
        id=m,
        side=model.side,
        in_area=in_area,
        rank=rank,
        tied_with=tied,
        distance=distance,
        cover=ctx.cover(m),
        cover_pieces=c.pieces if c else (),
        protection=protection,
        p_affected=p,
        hp_lost=law,
        hp=stat(model, "hp", None),
        via=via,
        spill_to=spill_to,
    )


def _reasons(
    ctx: Context,
    template: Template,
    plan: Plan,
    victims: Sequence[Victim],
    shielded: Sequence[str],
    order: str | None,
) -> list[Reason]:
    """Why, rule by rule: the template (B1-B2, B10), who it touches (B3), the breath (B4),
    its dice (B5-B6, cover), ties (B7), spills (B8), the order (B9)."""
    table, s = ctx.table, ctx.shooter
    out = _template_reasons(ctx, template)
    touched = tuple(v.id for v in victims if v.in_area)
    touch = (
        T_("overlaps it (positive area)")
        if ctx.strict
        else T_("is within {tol} mm of it (G4)", tol=Num(table.contact_tolerance, "g"))
    )
    out.append(
        Reason(
            "B3",
            touched,
            T_(
                "touched: {touched} (a base counts when it {touch}); friend or foe, no attack "
                "roll, the number of hits cannot be reduced",
                touched=join(touched, empty=NOBODY),
                touch=touch,
            ),
        )
    )
    if shielded:
        out.append(
            Reason(
                "B3",
                tuple(shielded),
                T_(
                    "{shielded}: in the template but shielded from the apex by large "
                    "terrain (template_blocked)",
                    shielded=join(shielded),
                ),
            )
        )
    out.append(
        Reason("B4", (s,), T_("{weapon}: {what}", weapon=ctx.weapon.name, what=ctx.note.describe()))
    )
    out.extend(_dice_reasons(ctx, plan, victims))
    if plan.chained and len(plan.victims) > 1:
        out.append(Reason("B7", plan.victims, _order_text(ctx, template)))
    for g in plan.groups:
        if len(g) > 1:
            out.append(Reason("B7", g, _tie_text(g, plan.chained)))
    for m, cands in plan.opponents:
        out.append(Reason("B8", (m, *cands), _spill_text(s, m, cands)))
    if order is not None:
        out.append(
            Reason(
                "B9",
                (s,),
                T_("order {order} allowed (only Vae victis is barred)", order=repr(order)),
            )
        )
    return out


def _tie_text(group: Sequence[str], chained: bool) -> Text:
    """B7: victims at the same distance, their order drawn or irrelevant."""
    if chained:
        return T_(
            "{group} are at the same distance: their order is drawn at random (logged dice)",
            group=join(group),
        )
    return T_("{group} are at the same distance: their order is irrelevant here", group=join(group))


def _spill_text(s: str, m: str, cands: Sequence[str]) -> Text:
    """B8: the opponents a victim engages outside the template."""
    if s in cands:
        return T_(
            "{model} is engaged with {opponents} outside the template: 1d6, odd = one of them "
            "at random is affected too ({shooter}, the shooter, is in contact with {model}: "
            "spill_to_shooter)",
            model=m,
            opponents=join(cands),
            shooter=s,
        )
    return T_(
        "{model} is engaged with {opponents} outside the template: 1d6, odd = one of them at "
        "random is affected too",
        model=m,
        opponents=join(cands),
    )


def _order_text(ctx: Context, template: Template) -> Text:
    """B7: where the victims' distances are measured from."""
    s, tol = ctx.shooter, Num(ctx.table.contact_tolerance, "g")
    frm = ctx.opts.order_from if isinstance(template, Cone) else "apex"
    if frm == "base":
        how = T_("from {shooter}'s base to each base, nearest points", shooter=s)
    elif frm == "centre":
        how = T_("from {shooter}'s centre to each base's centre", shooter=s)
    elif isinstance(template, Cone):
        how = T_("from the template's apex to the nearest point of each base")
    else:
        how = T_("from the template's centre to the nearest point of each base")
    return T_(
        "victims taken nearest first, distances {how} (order_from: {frm}); within {tol} mm of "
        "each other they are equal (G4)",
        how=how,
        frm=frm,
        tol=tol,
    )


def _template_reasons(ctx: Context, template: Template) -> list[Reason]:
    s, u = ctx.shooter, ctx.table.unit
    if not isinstance(template, Cone):
        return [
            Reason(
                "B10",
                (s,),
                T_(
                    "blast of radius {radius}, resolved like B5; nobody is excepted",
                    radius=u.measure(template.radius),
                ),
            )
        ]
    baseless = ctx.table.model(s).base.radius <= 0
    theta = float(templates.apex_angle(ctx.table, s, template))
    axis = float(template.angle)
    if baseless:
        b2 = T_("axis at {axis}, apex at its centre", axis=Degrees(axis))
    elif abs((theta - template.angle + 180) % 360 - 180) < 1e-9:
        b2 = T_(
            "axis at {axis}, apex on its base at {theta} from its centre (the aim direction)",
            axis=Degrees(axis),
            theta=Degrees(theta),
        )
    else:
        b2 = T_(
            "axis at {axis}, apex on its base at {theta} from its centre",
            axis=Degrees(axis),
            theta=Degrees(theta),
        )
    if not (baseless or ctx.opts.cone_over_base):
        b2 = b2 + T_("; the cone lies beside the base, not over it")
    out = [
        Reason(
            "B1",
            (s,),
            T_(
                "cone {length} long, far side {width} (6 x 2 toises)",
                length=u.measure(template.length),
                width=u.measure(template.width),
            ),
        ),
        Reason("B2", (s,), b2),
    ]
    if baseless:
        out.append(Reason("F8", (s,), T_("{shooter} has no base: its centre is used", shooter=s)))
    return out


def _dice_reasons(ctx: Context, plan: Plan, victims: Sequence[Victim]) -> list[Reason]:
    note, s = ctx.note, ctx.shooter
    if note.state is not None:
        return []
    if plan.nature == "enveloping":
        return [
            Reason(
                "B5",
                (),
                T_(
                    "each victim: 5d6, each die {difficulty}+ hits for {power}; HP lost = "
                    "damage - Protection; no cover",
                    difficulty=note.difficulty,
                    power=note.power,
                ),
            )
        ]
    out = [
        Reason(
            "B6",
            (s,),
            T_(
                "{dice} dice (Tir + 5) at the nearest; each next victim gets the dice missed "
                "on the one before",
                dice=plan.dice,
            ),
        )
    ]
    for v in victims:
        c = ctx.covers.get(v.id)
        if c and c.bonus:
            if ctx.use_cover:
                text = T_(
                    "{model}: cover +{bonus} from {shooter}'s centre line (added to Protection)",
                    model=v.id,
                    bonus=c.bonus,
                    shooter=s,
                )
            else:
                text = T_(
                    "{model}: cover +{bonus} from {shooter}'s centre line (ignored "
                    "(cover_effect: none))",
                    model=v.id,
                    bonus=c.bonus,
                    shooter=s,
                )
            out.append(Reason("B6", (v.id, *c.pieces), text))
            out.extend(c.reasons)
    return out


__all__ = [
    "Context",
    "check_order",
    "context",
    "margin",
    "rule",
    "rule_in",
    "shooter_contacts",
    "stat",
    "template_area",
]
