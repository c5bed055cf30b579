"""Breath weapons (B1-B10, seed 001): who a template touches and in what order, the exact
odds of what each victim loses, a seeded and logged roll, and the best aim of a cone.

- :func:`rule` places nothing itself: it takes a template (:func:`~arbitre.templates.
  place_cone` for B1-B2, or a B10 :class:`~arbitre.templates.Blast`), finds the victims
  (B3, optionally shielded by large terrain), orders them (B7), reads the weapon's B4
  notation and gives every victim its exact law of HP lost: B5 (5d6 each, no cover), B6
  (the impacting chain, cover per ``cover_effect``), or a state for every victim (B4).
  B8 melee spill is part of the law; B9 refuses the order Vae victis.
- :func:`roll` runs the very same procedure (:func:`resolve`) on seeded, logged dice.
- :func:`best` searches every aim of a cone exactly (:func:`~arbitre.templates.sweep`)
  for the greatest expected HP lost by enemies minus HP lost by friends.

**Decisions** (besides RULES.md's): victims are the bases whose gap to the template is
within the G4 contact tolerance (option ``template_touch: overlap`` asks for an overlap of
positive area); with ``template_blocked`` only large terrain shields a base, never other
bases (B6 sends the missed dice on to the bases behind); B8 opponents are the models
``engaged`` with the victim either way, outside the template, the shooter never; each
engaged victim rolls its own B8 die, and an opponent picked twice is affected once (a
breath affects a model at most once, as B3); in an impacting chain nothing more is rolled
once no dice are left (B6), so the spill die is not rolled either. The B7 order is drawn
for impacting breaths only: nothing else depends on it. A B10 blast is resolved like B5
and excepts nobody.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache, partial
from typing import Any, Literal

import numpy as np

from arbitre import templates
from arbitre.dice import (
    Dice,
    Distribution,
    RollLog,
    breath_enveloping,
    enumerate_procedure,
    hp_lost,
    impacting_hp_lost,
    melee_spill,
    roll_procedure,
)
from arbitre.errors import RulesError
from arbitre.rules.breath.notation import BreathNotation, fold, parse
from arbitre.rules.options import read_options, shared_options
from arbitre.rules.registry import Ruleset
from arbitre.rules.ruling import JSON_VERSION, Reason
from arbitre.rules.small_terrain import CoverBonus, cover_bonuses
from arbitre.table import Model, Table
from arbitre.templates import Blast, Cone, Template

RULES_NAME = "breath"


@dataclass(frozen=True, slots=True)
class BreathOptions:
    """Options of the B rules (RULES.md): B3 ``template_blocked``, B6 ``cover_effect``; the
    B3 reading of "touched" ``template_touch``; G5 ``grazing_blocks`` for B3 shielding."""

    template_blocked: bool = False
    cover_effect: Literal["protection", "none"] = "protection"
    template_touch: Literal["contact", "overlap"] = "contact"


def options(table: Table, **given: object) -> BreathOptions:
    """The table's breath options, overridden by ``given``; checked."""
    return read_options(BreathOptions, dict(table.options) | given)


# --- weapons, orders, stats --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BreathWeapon:
    """A breath weapon: its name and its B4 notation, read."""

    name: str
    notation: BreathNotation


def breath_weapon(table: Table, shooter: str, weapon: str) -> BreathWeapon:
    """The shooter's breath weapon named ``weapon`` (case and accents ignored), or
    ``weapon`` itself read as a B4 notation."""
    model = table.model(shooter)
    for w in model.weapons:
        if fold(w.name) == fold(weapon):
            if w.breath is None:
                raise RulesError(f"weapon {w.name!r} of {shooter!r} is not a breath weapon "
                                 "(it has no `breath` notation, B4)")
            return BreathWeapon(w.name, parse(w.breath, where=f"weapon {w.name!r} of "
                                                              f"{shooter!r}"))
    if "(" in weapon:
        notation = parse(weapon, where="the weapon given")
        return BreathWeapon(notation.french(), notation)
    known = ", ".join(repr(w.name) for w in model.weapons if w.breath) or "none"
    raise RulesError(f"{shooter!r} has no breath weapon {weapon!r} (its breath weapons: "
                     f"{known}); a B4 notation works too, e.g. "
                     "'Souffle englobant (acide • puissance 5/2)'")


def weapon_problems(table: Table) -> list[str]:
    """Every breath notation of the table's weapons that cannot be read (B4), with where."""
    problems = []
    for i, m in enumerate(table.models):
        for k, w in enumerate(m.weapons):
            if w.breath is not None:
                try:
                    parse(w.breath, where=f"models[{i}].weapons[{k}].breath")
                except RulesError as exc:
                    problems.append(str(exc))
    return problems


def check_order(order: str | None) -> None:
    """B9: the order Vae victis cannot be used with a breath weapon."""
    if order is not None and fold(order).replace("-", " ").split() == ["vae", "victis"]:
        raise RulesError(f"B9: the order {order!r} (Vae victis) cannot be used with a breath "
                         "weapon")


def _stat(model: Model, name: str, default: int | None) -> int | None:
    value = model.stat(name)
    if value is None:
        return default
    if not float(value).is_integer() or value < 0:
        raise RulesError(f"model {model.id!r}: stat {name} must be a whole number >= 0, "
                         f"got {value:g}")
    return int(value)


# --- the procedure, written once ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything the dice procedure needs: the breath, the victims in B7 order (tie
    groups), each model's Protection (cover included when it applies, B6) and each
    victim's B8 candidates."""

    nature: Literal["enveloping", "impacting"]
    difficulty: int | None
    power: int | None
    state: str | None
    dice: int | None
    groups: tuple[tuple[str, ...], ...]
    protection: tuple[tuple[str, int], ...]
    opponents: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def victims(self) -> tuple[str, ...]:
        return tuple(m for g in self.groups for m in g)

    @property
    def chained(self) -> bool:
        """An impacting breath that rolls: the B7 order matters (B6)."""
        return self.nature == "impacting" and self.state is None


@dataclass(frozen=True, slots=True)
class Hit:
    """What one model got: the dice rolled at it (B6; 5 for B5), hits (B6), HP lost, the
    state (B4), and the victim whose melee spill brought it in (B8)."""

    model: str
    dice: int | None
    hits: int | None
    hp_lost: int
    state: str | None = None
    via: str | None = None


def resolve(plan: Plan, dice: Dice) -> tuple[Hit, ...]:
    """B4-B8: resolve the breath on ``dice``; every model affected, in resolution order.

    The exact laws of :func:`rule` are this procedure's, in closed form (tests enumerate
    it); :func:`roll` runs it on a seeded roller.
    """
    order = templates.draw_order(plan.groups, dice) if plan.chained else plan.victims
    prot, opps = dict(plan.protection), dict(plan.opponents)
    affected = set(order)
    left = plan.dice or 0
    out: list[Hit] = []

    def affect(m: str, via: str | None) -> None:
        nonlocal left
        if plan.state is not None:
            out.append(Hit(m, None, None, 0, plan.state, via))
        elif plan.nature == "enveloping":
            assert plan.difficulty is not None and plan.power is not None
            hp = breath_enveloping(dice, difficulty=plan.difficulty, power=plan.power,
                                   protection=prot[m], label=f"B5 {m}")
            out.append(Hit(m, 5, None, hp, None, via))
        else:
            assert plan.difficulty is not None and plan.power is not None
            n = left
            hits = dice.count_at_least(n, 6, plan.difficulty, f"B6 {m}") if n else 0
            left -= hits
            out.append(Hit(m, n, hits, hp_lost(hits, plan.power, prot[m]), None, via))

    for m in order:
        affect(m, None)
        cands = opps.get(m, ())
        if cands and not (plan.chained and left == 0):
            picked = melee_spill(dice, cands, label=f"B8 {m}")
            if picked is not None and picked not in affected:
                affected.add(picked)
                affect(picked, m)
    return tuple(out)


# --- exact laws, in closed form ----------------------------------------------------------


@lru_cache(maxsize=4096)
def _enveloping_law(difficulty: int, power: int, protection: int) -> Distribution[int]:
    return enumerate_procedure(partial(breath_enveloping, difficulty=difficulty, power=power,
                                       protection=protection))


@lru_cache(maxsize=65536)
def _impacting_mean(dice: int, difficulty: int, pos: int, power: int,
                    protection: int) -> Fraction:
    return impacting_hp_lost(dice, difficulty, pos, power=power, protection=protection).mean()


def spill_odds(plan: Plan) -> dict[str, Fraction]:
    """B8: for each opponent, the probability that some victim's spill die picks it (each
    engaged victim rolls: odd, one of its candidates at random)."""
    miss: dict[str, Fraction] = {}
    for _, cands in plan.opponents:
        for o in cands:
            miss[o] = miss.get(o, Fraction(1)) * (1 - Fraction(1, 2 * len(cands)))
    return {o: 1 - q for o, q in miss.items()}


def positions(plan: Plan) -> dict[str, dict[int, Fraction]]:
    """B6-B8: for every model, the law of its place in the impacting chain (0 = first).

    Exact, by dynamic programming over the victims in B7 order: a tie group is taken in a
    uniformly random order (B7), and after each victim its spill die may insert an
    opponent right behind it (B8). Probabilities of a model sum to less than 1 when it
    may not be reached at all (an opponent).
    """
    law: dict[str, dict[int, Fraction]] = defaultdict(lambda: defaultdict(Fraction))
    opps = dict(plan.opponents)
    later: list[set[str]] = []
    acc: set[str] = set()
    for g in reversed(plan.groups):
        acc = acc | {o for m in g for o in opps.get(m, ())}
        later.append(set(acc))
    later.reverse()
    states: dict[tuple[int, frozenset[str]], Fraction] = {(0, frozenset()): Fraction(1)}
    for gi, group in enumerate(plan.groups):
        sub = {(pos, aff, frozenset(group)): p for (pos, aff), p in states.items()}
        done: dict[tuple[int, frozenset[str]], Fraction] = defaultdict(Fraction)
        while sub:
            nxt: dict[tuple[int, frozenset[str], frozenset[str]], Fraction] = defaultdict(
                Fraction)
            for (pos, aff, rem), p in sub.items():
                share = p / len(rem)
                for m in sorted(rem):
                    law[m][pos] += share
                    rest = rem - {m}
                    for (pos2, aff2), q in _spill(m, pos + 1, aff, share, opps, law):
                        if rest:
                            nxt[(pos2, aff2, rest)] += q
                        else:
                            keep = aff2 & frozenset(later[gi + 1]) if gi + 1 < len(later) else \
                                frozenset()
                            done[(pos2, keep)] += q
            sub = nxt
        states = done
    return {m: dict(v) for m, v in law.items()}


def _spill(m: str, pos: int, aff: frozenset[str], p: Fraction, opps: dict[str, tuple[str, ...]],
           law: dict[str, dict[int, Fraction]]) -> Iterable[tuple[tuple[int, frozenset[str]],
                                                                  Fraction]]:
    cands = opps.get(m, ())
    if not cands:
        yield (pos, aff), p
        return
    yield (pos, aff), p / 2
    for o in cands:
        q = p / (2 * len(cands))
        if o in aff:
            yield (pos, aff), q
        else:
            law[o][pos] += q
            yield (pos + 1, aff | {o}), q


def laws(plan: Plan) -> dict[str, Distribution[int]]:
    """The exact law of HP lost by every model the breath may affect (B4-B8)."""
    prot = dict(plan.protection)
    spill = spill_odds(plan)
    everyone = list(plan.victims) + [o for o in spill if o not in plan.victims]
    zero = Distribution.point(0)
    if plan.state is not None:
        return {m: zero for m in everyone}
    assert plan.difficulty is not None and plan.power is not None
    out: dict[str, Distribution[int]] = {}
    if plan.nature == "enveloping":
        for m in everyone:
            law = _enveloping_law(plan.difficulty, plan.power, prot[m])
            p = spill.get(m, Fraction(1)) if m not in plan.victims else Fraction(1)
            out[m] = law if p == 1 else Distribution.mix([(law, p), (zero, 1 - p)])
        return out
    n = plan.dice or 0
    for m, where in positions(plan).items():
        parts = [(impacting_hp_lost(n, plan.difficulty, pos, power=plan.power,
                                    protection=prot[m]), p) for pos, p in where.items()]
        rest = 1 - sum(where.values(), Fraction(0))
        out[m] = Distribution.mix(parts + ([(zero, rest)] if rest else []))
    return {m: out[m] for m in everyone}


def expected_value(plan: Plan, sign: Callable[[str], int]) -> Fraction:
    """The objective of :func:`best`: the sum over affected models of ``sign`` (+1 enemy,
    -1 friend) times its expected HP lost, or, for a state breath, its chance of getting
    the state."""
    spill = spill_odds(plan)
    prot = dict(plan.protection)
    victims = set(plan.victims)

    def p_of(m: str) -> Fraction:
        return Fraction(1) if m in victims else spill.get(m, Fraction(0))

    everyone = list(plan.victims) + [o for o in spill if o not in victims]
    if plan.state is not None:
        return sum((sign(m) * p_of(m) for m in everyone), Fraction(0))
    assert plan.difficulty is not None and plan.power is not None
    if plan.nature == "enveloping":
        return sum((sign(m) * p_of(m) * _enveloping_law(plan.difficulty, plan.power,
                                                        prot[m]).mean()
                    for m in everyone), Fraction(0))
    n = plan.dice or 0
    if not plan.opponents and all(len(g) == 1 for g in plan.groups):
        where = {m: {i: Fraction(1)} for i, m in enumerate(plan.victims)}
    else:
        where = positions(plan)
    return sum((sign(m) * p * _impacting_mean(n, plan.difficulty, pos, plan.power, prot[m])
                for m, w in where.items() for pos, p in w.items()), Fraction(0))


# --- rulings ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Victim:
    """One model the breath may affect: in the template (``rank`` in B7 order, 1 = nearest;
    ``tied_with`` the others at its distance) or reached by a melee spill (B8, ``via``)."""

    id: str
    side: str
    in_area: bool
    rank: int | None
    tied_with: tuple[str, ...]
    distance: float | None
    cover: int
    cover_pieces: tuple[str, ...]
    protection: int
    p_affected: Fraction
    hp_lost: Distribution[int]
    hp: int | None
    via: tuple[str, ...] = ()
    spill_to: tuple[str, ...] = ()

    @property
    def mean(self) -> Fraction:
        return self.hp_lost.mean()

    @property
    def p_wounded(self) -> Fraction:
        """P(at least 1 HP lost)."""
        return self.hp_lost.at_least(1)

    @property
    def p_out(self) -> Fraction | None:
        """P(HP lost >= the model's HP), when its ``hp`` stat is known."""
        return None if self.hp is None else self.hp_lost.at_least(max(self.hp, 1))


@dataclass(frozen=True, slots=True)
class BreathRuling:
    """What a breath does from one template: victims in order with their exact laws of HP
    lost, the models it may spill onto, those shielded, and why (G7)."""

    shooter: str
    weapon: BreathWeapon
    template: Template
    plan: Plan
    victims: tuple[Victim, ...]
    shielded: tuple[str, ...]
    value: Fraction
    reasons: tuple[Reason, ...]
    options: BreathOptions = field(default_factory=BreathOptions)

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.rule for r in self.reasons))

    def victim(self, ident: str) -> Victim:
        for v in self.victims:
            if v.id == ident:
                return v
        raise RulesError(f"{ident!r} is not affected by this breath "
                         f"(affected: {', '.join(v.id for v in self.victims) or 'none'})")


class _Context:
    """What does not change with the aim: the breath, the shooter, each model's side,
    Protection and cover, and its opponents (cached)."""

    def __init__(self, table: Table, shooter: str, weapon: BreathWeapon,
                 opts: BreathOptions, *, blast: bool) -> None:
        self.table, self.shooter, self.weapon, self.opts, self.blast = (
            table, shooter, weapon, opts, blast)
        self.note = weapon.notation
        self.nature: Literal["enveloping", "impacting"] = (
            "enveloping" if blast else self.note.nature)
        self.side = table.model(shooter).side
        self.dice: int | None = None
        if self.nature == "impacting" and self.note.rolls:
            tir = _stat(table.model(shooter), "tir", None)
            if tir is None:
                raise RulesError(f"B6: {shooter!r} has no `tir` stat: an impacting breath "
                                 "rolls Tir + 5 dice (add stats: {tir: N})")
            self.dice = tir + 5
        self.use_cover = (self.nature == "impacting" and self.note.rolls
                          and opts.cover_effect == "protection")
        self.covers: dict[str, CoverBonus] = {}
        self._protection: dict[str, int] = {}
        rev: dict[str, set[str]] = defaultdict(set)
        for m in table.models:
            for o in m.engaged:
                rev[m.id].add(o)
                rev[o].add(m.id)
        self.engaged = {k: tuple(sorted(v - {shooter})) for k, v in rev.items()}

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
            base = _stat(self.table.model(m), "protection", 0) or 0
            self._protection[m] = base + (self.cover(m) if self.use_cover else 0)
        return self._protection[m]

    def sign(self, m: str) -> int:
        return -1 if self.table.model(m).side == self.side else 1

    def plan(self, groups: tuple[tuple[str, ...], ...], area: set[str]) -> Plan:
        victims = [m for g in groups for m in g]
        opps = tuple((m, c) for m in victims
                     if (c := tuple(o for o in self.engaged.get(m, ()) if o not in area)))
        everyone = set(victims) | {o for _, c in opps for o in c}
        self.prepare_cover(everyone)
        return Plan(self.nature, self.note.difficulty, self.note.power, self.note.state,
                    self.dice, groups, tuple((m, self.protection(m)) for m in sorted(everyone)),
                    opps)


def _template_area(table: Table, template: Template, shooter: str,
                   opts: BreathOptions) -> tuple[tuple[templates.Touch, ...], set[str]]:
    """B3: the touched bases not shielded (B3 option), and every touched base."""
    exclude = (shooter,) if isinstance(template, Cone) else ()
    touches = templates.touched(table, template, strict=opts.template_touch == "overlap",
                                exclude=exclude)
    area = {t.model for t in touches}
    if opts.template_blocked and touches:
        flags = templates.shielded_from(table, template.origin,
                                        [table.model_index(t.model) for t in touches],
                                        grazing=shared_options(table).grazing_blocks)
        touches = tuple(t for t, f in zip(touches, flags, strict=True) if not f)
    return touches, area


def rule(table: Table, shooter: str, weapon: str | BreathWeapon, template: Template, *,
         order: str | None = None) -> BreathRuling:
    """B1-B10: the breath of ``shooter``'s ``weapon`` from ``template``, with its reasons.

    ``order`` is the order the shooter's player gives with the shot, if any (B9).
    """
    check_order(order)
    if isinstance(template, Blast):
        templates.check_blast(template)
    bw = weapon if isinstance(weapon, BreathWeapon) else breath_weapon(table, shooter, weapon)
    ctx = _Context(table, shooter, bw, options(table), blast=isinstance(template, Blast))
    return _rule(ctx, template, order)


def _rule(ctx: _Context, template: Template, order: str | None) -> BreathRuling:
    table, shooter, opts = ctx.table, ctx.shooter, ctx.opts
    touches, area = _template_area(table, template, shooter, opts)
    groups = templates.tie_groups(touches, table.contact_tolerance)
    plan = ctx.plan(groups, area)
    got = laws(plan)
    spill = spill_odds(plan)
    dist = {t.model: t.distance for t in touches}
    victims: list[Victim] = []
    rank = 1
    opps = dict(plan.opponents)
    prot = dict(plan.protection)
    for g in groups:
        for m in g:
            victims.append(_victim(table, ctx, m, True, rank, tuple(x for x in g if x != m),
                                   dist[m], prot[m], Fraction(1), got[m], (), opps.get(m, ())))
        rank += len(g)
    for o, p in spill.items():
        if o in dist:
            continue
        via = tuple(m for m, c in plan.opponents if o in c)
        victims.append(_victim(table, ctx, o, False, None, (), None, prot[o], p, got[o], via,
                               ()))
    shielded = tuple(sorted(area - set(dist)))
    return BreathRuling(shooter, ctx.weapon, template, plan, tuple(victims), shielded,
                        expected_value(plan, ctx.sign),
                        tuple(_reasons(table, ctx, template, plan, victims, shielded, order)),
                        opts)


def _victim(table: Table, ctx: _Context, m: str, in_area: bool, rank: int | None,
            tied: tuple[str, ...], distance: float | None, protection: int, p: Fraction,
            law: Distribution[int], via: tuple[str, ...], spill_to: tuple[str, ...]) -> Victim:
    model = table.model(m)
    c = ctx.covers.get(m)
    return Victim(m, model.side, in_area, rank, tied, distance,
                  ctx.cover(m), c.pieces if c else (), protection, p, law,
                  _stat(model, "hp", None), via, spill_to)


def _reasons(table: Table, ctx: _Context, template: Template, plan: Plan,
             victims: Sequence[Victim], shielded: Sequence[str],
             order: str | None) -> list[Reason]:
    s, u = ctx.shooter, table.unit
    out: list[Reason] = []
    if isinstance(template, Cone):
        baseless = table.model(s).base.radius <= 0
        where = "at its centre" if baseless else "on its base, in the aim direction"
        out.append(Reason("B1", (s,), f"cone {_len(u, template.length)} long, far side "
                                      f"{_len(u, template.width)} (6 x 2 toises)"))
        out.append(Reason("B2", (s,), f"aimed at {template.angle:.4g} degrees, apex {where}"))
        if baseless:
            out.append(Reason("F8", (s,), f"{s} has no base: its centre is used"))
    else:
        out.append(Reason("B10", (s,), f"blast of radius {_len(u, template.radius)}, "
                                       "resolved like B5; nobody is excepted"))
    names = ", ".join(v.id for v in victims if v.in_area) or "nobody"
    touch = ("overlaps it (positive area)" if ctx.opts.template_touch == "overlap"
             else f"is within {table.contact_tolerance:g} mm of it (G4)")
    out.append(Reason("B3", tuple(v.id for v in victims if v.in_area),
                      f"touched: {names} (a base counts when it {touch}); friend or foe, "
                      "no attack roll, the number of hits cannot be reduced"))
    if shielded:
        out.append(Reason("B3", tuple(shielded), f"{', '.join(shielded)}: in the template but "
                          "shielded from the apex by large terrain (template_blocked)"))
    note = ctx.note
    out.append(Reason("B4", (s,), f"{ctx.weapon.name}: {note.describe()}"))
    if note.state is None and plan.nature == "enveloping":
        out.append(Reason("B5", (), f"each victim: 5d6, each die {note.difficulty}+ hits for "
                                    f"{note.power}; HP lost = damage - Protection; no cover"))
    elif note.state is None:
        out.append(Reason("B6", (s,), f"{plan.dice} dice (Tir + 5) at the nearest; each next "
                                      "victim gets the dice missed on the one before"))
        for v in victims:
            c = ctx.covers.get(v.id)
            if c and c.bonus:
                how = "added to Protection" if ctx.use_cover else "ignored (cover_effect: none)"
                out.append(Reason("B6", (v.id, *c.pieces),
                                  f"{v.id}: cover +{c.bonus} from {s}'s centre line ({how})"))
                out.extend(c.reasons)
    for g in plan.groups:
        if len(g) > 1:
            how = "drawn at random (logged dice)" if plan.chained else "irrelevant here"
            out.append(Reason("B7", g, f"{', '.join(g)} are at the same distance: their "
                                       f"order is {how}"))
    for m, cands in plan.opponents:
        out.append(Reason("B8", (m, *cands), f"{m} is engaged with {', '.join(cands)} outside "
                          "the template: 1d6, odd = one of them at random is affected too"))
    if order is not None:
        out.append(Reason("B9", (s,), f"order {order!r} allowed (only Vae victis is barred)"))
    return out


def _len(unit: Any, mm: float) -> str:
    return f"{unit.from_mm(mm):.4g} {unit.name}"


# --- rolling ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BreathRoll:
    """A seeded roll of a breath: what each model got, in resolution order, and the dice."""

    hits: tuple[Hit, ...]
    log: RollLog

    def hp_lost(self, model: str) -> int:
        return sum(h.hp_lost for h in self.hits if h.model == model)


def roll(ruling: BreathRuling, seed: int) -> BreathRoll:
    """Resolve the breath once on dice seeded with ``seed``, every die logged (B4-B8)."""
    hits, log = roll_procedure(partial(resolve, ruling.plan), seed)
    return BreathRoll(hits, log)


# --- the best aim -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Aim:
    """An arc of aims (degrees) with the same victims, and its expected value."""

    angle: float
    start: float
    end: float
    value: Fraction
    victims: tuple[str, ...]
    ties: tuple[tuple[str, ...], ...]
    shielded: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BestAim:
    """The best aim of a cone, the best one hitting other victims, and the search's size."""

    best: Aim
    runner_up: Aim | None
    arcs: int
    critical: int
    ruling: BreathRuling


def best(table: Table, shooter: str, weapon: str | BreathWeapon, *,
         order: str | None = None) -> BestAim:
    """The aim of ``shooter``'s cone with the greatest expected HP lost by enemies minus HP
    lost by friends (a state breath: enemies minus friends affected), searched exactly.

    The value only changes at the critical aims of :func:`~arbitre.templates.sweep`; one
    aim inside each arc between them is evaluated, exactly (Fractions). Among equal values
    the widest arc wins (the easiest to place by hand), its middle is the aim given. The
    runner-up is the best arc whose victims differ.
    """
    check_order(order)
    opts = options(table)
    bw = weapon if isinstance(weapon, BreathWeapon) else breath_weapon(table, shooter, weapon)
    ctx = _Context(table, shooter, bw, opts, blast=False)
    sw = templates.sweep(table, shooter, strict=opts.template_touch == "overlap",
                         ordered=ctx.nature == "impacting" and bw.notation.rolls,
                         shield=opts.template_blocked, grazing=shared_options(table).grazing_blocks)
    ctx.prepare_cover(set(sw.candidates) | {o for m in sw.candidates
                                              for o in ctx.engaged.get(m, ())})
    cache: dict[tuple[object, ...], Fraction] = {}
    aims = []
    for arc in sw.arcs:
        area = set(arc.victims) | set(arc.shielded)
        key = (arc.ties, frozenset(area))
        if key not in cache:
            cache[key] = expected_value(ctx.plan(arc.ties, area), ctx.sign)
        aims.append(Aim(arc.middle, arc.start, arc.end, cache[key], arc.victims, arc.ties,
                        arc.shielded))

    def rank(a: Aim) -> tuple[Fraction, float, float]:
        return (a.value, a.end - a.start, -(a.start % 360.0))

    top = max(aims, key=rank)
    others = [a for a in aims if set(a.victims) != set(top.victims)]
    runner = max(others, key=rank) if others else None
    ruling = _rule(ctx, templates.place_cone(table, shooter, top.angle), order)
    return BestAim(top, runner, len(sw.arcs), len(sw.critical), ruling)


def best_by_sampling(table: Table, shooter: str, weapon: str | BreathWeapon,
                     samples: int) -> tuple[float, Fraction]:
    """The brute-force baseline of :func:`best`: ``samples`` evenly spaced aims, each
    ruled in full. Returns the best aim found and its value."""
    top: tuple[float, Fraction] | None = None
    bw = weapon if isinstance(weapon, BreathWeapon) else breath_weapon(table, shooter, weapon)
    for angle in np.linspace(0.0, 360.0, samples, endpoint=False):
        r = rule(table, shooter, bw, templates.place_cone(table, shooter, float(angle)))
        if top is None or r.value > top[1]:
            top = (float(angle), r.value)
    assert top is not None
    return top


# --- JSON ---------------------------------------------------------------------------------


def _frac(p: Fraction) -> dict[str, Any]:
    return {"p": str(p), "float": float(p)}


def template_json(table: Table, template: Template) -> dict[str, Any]:
    u = table.unit

    def pt(p: Any) -> list[float]:
        return [round(u.from_mm(p.x), 6), round(u.from_mm(p.y), 6)]

    if isinstance(template, Cone):
        return {"kind": "cone", "apex": pt(template.apex), "angle": round(template.angle, 9),
                "length": round(u.from_mm(template.length), 6),
                "width": round(u.from_mm(template.width), 6),
                "vertices": [pt(p) for p in template.vertices]}
    return {"kind": "blast", "centre": pt(template.centre),
            "radius": round(u.from_mm(template.radius), 6)}


def ruling_json(table: Table, r: BreathRuling) -> dict[str, Any]:
    """The JSON form of a breath ruling (exact fractions as strings, floats beside)."""
    u, n = table.unit, r.weapon.notation
    return {
        "shooter": r.shooter,
        "weapon": {"name": r.weapon.name, "notation": n.text or n.french(),
                   "french": n.french(), "english": n.english(), "nature": n.nature,
                   "damage_type": n.damage_type, "difficulty": n.difficulty,
                   "power": n.power, "state": n.state},
        "template": template_json(table, r.template),
        "dice": r.plan.dice,
        "victims": [{
            "id": v.id, "side": v.side, "in_area": v.in_area, "rank": v.rank,
            "tied_with": list(v.tied_with),
            "distance": None if v.distance is None else round(u.from_mm(v.distance), 6),
            "cover": v.cover, "cover_pieces": list(v.cover_pieces),
            "protection": v.protection, "p_affected": _frac(v.p_affected),
            "hp_lost": v.hp_lost.to_json(), "p_wounded": _frac(v.p_wounded),
            "p_out": None if v.p_out is None else _frac(v.p_out),
            "via": list(v.via), "spill_to": list(v.spill_to),
        } for v in r.victims],
        "shielded": list(r.shielded),
        "value": _frac(r.value),
        "reasons": [x.to_json() for x in r.reasons],
    }


def roll_json(result: BreathRoll) -> dict[str, Any]:
    return {"hits": [{"id": h.model, "dice": h.dice, "hits": h.hits, "hp_lost": h.hp_lost,
                      "state": h.state, "via": h.via} for h in result.hits],
            "log": result.log.to_json()}


def aim_json(a: Aim) -> dict[str, Any]:
    return {"angle": round(a.angle, 9), "from": round(a.start % 360.0, 9),
            "to": round(a.end % 360.0, 9), "width": round(a.end - a.start, 9),
            "value": _frac(a.value), "victims": list(a.victims),
            "ties": [list(g) for g in a.ties if len(g) > 1], "shielded": list(a.shielded)}


def document(table: Table, rulings: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{"arbitre": 1, "rules": "breath", "unit": ..., "rulings": [...]}`` (DESIGN.md)."""
    return {"arbitre": JSON_VERSION, "rules": RULES_NAME, "unit": table.unit.name,
            "rulings": list(rulings)}


__all__ = [
    "Aim",
    "BestAim",
    "BreathOptions",
    "BreathRoll",
    "BreathRuling",
    "BreathWeapon",
    "Hit",
    "Plan",
    "Victim",
    "best",
    "breath_weapon",
    "check_order",
    "expected_value",
    "laws",
    "options",
    "positions",
    "resolve",
    "roll",
    "rule",
    "spill_odds",
    "weapon_problems",
]


RULESET = Ruleset(
    name="breath",
    title="Breath weapons and cone templates (B1-B10)",
    aliases=("souffle", "breath-weapons"),
    options=BreathOptions,
    questions={},
)
