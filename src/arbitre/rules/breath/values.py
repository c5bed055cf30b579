"""The values of the breath ruleset (B1-B10): its options, its requests, the plan the dice
procedure runs, and the rulings with their JSON 2 form and schema.

A :class:`BreathRuling` (kind ``breath``, a cone) or :class:`BlastRuling` (kind ``blast``,
B10) carries everything a face shows: the weapon and its notation in both languages, the
template, the victims in B7 order with their exact laws of HP lost, the expected value,
the best aim and its runner-up when searched, and the roll when one was asked for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from arbitre.dice import Distribution, RollLog
from arbitre.errors import RulesError
from arbitre.i18n import N_, T_, join
from arbitre.rules.breath.notation import BreathWeapon, Nature
from arbitre.rules.declared import BreathOptions as BreathOptions  # the registry reads it light
from arbitre.rules.ruling import NO_MARGIN, Margin, Reason, chance, law, length, point, reasons_json
from arbitre.rules.schema import (
    BOOL,
    CHANCE,
    IDS,
    INT,
    LAW,
    LENGTH,
    NUMBER,
    POINT,
    STR,
    array,
    nullable,
    obj,
)
from arbitre.table import Unit
from arbitre.templates import Cone, Template

#: The word of an empty list of models.
NONE = N_("none")

# --- requests ----------------------------------------------------------------------------


def _check_seed(question: str, seed: int | None) -> None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise RulesError(
            T_(
                "{question}: seed must be a whole number >= 0, got {seed}",
                question=question,
                seed=repr(seed),
            )
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class BreathRequest:
    """A cone (B1-B2) of ``shooter``'s breath ``weapon`` (its name, or a B4 notation;
    ``None``: its only breath weapon), aimed by exactly one of ``angle`` (degrees,
    counter-clockwise from +x), ``toward`` (a model id: the axis through its centre) or
    ``best`` (the best placement, searched exactly over apex and axis); ``apex`` is where
    the apex sits on the shooter's rim (degrees counter-clockwise from +x, seen from its
    centre; default: the aim direction, the outward radius); rolled with ``seed`` when
    given; ``order`` is the order given with it (B9)."""

    shooter: str
    weapon: str | None = None
    angle: float | None = None
    apex: float | None = None
    toward: str | None = None
    best: bool = False
    seed: int | None = None
    order: str | None = None

    def __post_init__(self) -> None:
        given = [
            k
            for k, on in (
                ("angle", self.angle is not None),
                ("toward", self.toward is not None),
                ("best", self.best),
            )
            if on
        ]
        if len(given) != 1:
            if given:
                raise RulesError(
                    T_(
                        "breath: give exactly one of angle, toward or best (got {given})",
                        given=join(given),
                    )
                )
            raise RulesError(T_("breath: give exactly one of angle, toward or best"))
        if self.angle is not None:
            if isinstance(self.angle, bool) or not isinstance(self.angle, (int, float)):
                raise RulesError(
                    T_(
                        "breath: angle must be a number of degrees, got {angle}",
                        angle=repr(self.angle),
                    )
                )
            object.__setattr__(self, "angle", float(self.angle))
        if self.apex is not None:
            if isinstance(self.apex, bool) or not isinstance(self.apex, (int, float)):
                raise RulesError(
                    T_("breath: apex must be a number of degrees, got {apex}", apex=repr(self.apex))
                )
            if not math.isfinite(self.apex):
                raise RulesError(
                    T_(
                        "B2: the apex must be a finite angle in degrees, got {apex}",
                        apex=str(self.apex),
                    )
                )
            if self.best:
                raise RulesError(
                    T_("breath: best searches the apex too; give apex with angle or toward")
                )
            object.__setattr__(self, "apex", float(self.apex))
        _check_seed("breath", self.seed)


@dataclass(frozen=True, slots=True, kw_only=True)
class BlastRequest:
    """A B10 blast of ``shooter``'s breath ``weapon`` (as :class:`BreathRequest`), centred
    ``at`` (x, y) with ``radius``, both in the table's report unit."""

    shooter: str
    weapon: str | None = None
    at: tuple[float, float]
    radius: float
    seed: int | None = None
    order: str | None = None

    def __post_init__(self) -> None:
        try:
            x, y = (float(c) for c in self.at)
            radius = float(self.radius)
        except (TypeError, ValueError):
            raise RulesError(
                T_(
                    "blast: at must be (x, y) and radius a number, got at={at}, radius={radius}",
                    at=repr(self.at),
                    radius=repr(self.radius),
                )
            ) from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise RulesError(
                T_("B10: the blast's centre must be finite, got {at}", at=repr(self.at))
            )
        if not (math.isfinite(radius) and radius > 0):
            raise RulesError(
                T_("B10: a blast needs a positive radius, got {radius}", radius=repr(self.radius))
            )
        object.__setattr__(self, "at", (x, y))
        object.__setattr__(self, "radius", radius)
        _check_seed("blast", self.seed)


# --- the plan the dice procedure runs ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything the dice procedure needs: the breath, the victims in B7 order (tie
    groups), each model's Protection (cover included when it applies, B6) and each
    victim's B8 candidates."""

    nature: Nature
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

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.model,
            "dice": self.dice,
            "hits": self.hits,
            "hp_lost": self.hp_lost,
            "state": self.state,
            "via": self.via,
        }


@dataclass(frozen=True, slots=True)
class BreathRoll:
    """A seeded roll of a breath: what each model got, in resolution order, and the dice."""

    hits: tuple[Hit, ...]
    log: RollLog

    def hp_lost(self, model: str) -> int:
        return sum(h.hp_lost for h in self.hits if h.model == model)

    def to_json(self) -> dict[str, Any]:
        lost = {h.model: self.hp_lost(h.model) for h in self.hits}
        return {
            "seed": self.log.seed,
            "hits": [h.to_json() for h in self.hits],
            "hp_lost": lost,
            "log": self.log.to_json(),
        }


# --- rulings -----------------------------------------------------------------------------


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

    def to_json(self, unit: Unit | None) -> dict[str, Any]:
        return {
            "id": self.id,
            "side": self.side,
            "in_area": self.in_area,
            "rank": self.rank,
            "tied_with": list(self.tied_with),
            "distance": length(unit, self.distance),
            "cover": self.cover,
            "cover_pieces": list(self.cover_pieces),
            "protection": self.protection,
            "hp": self.hp,
            "p_affected": chance(self.p_affected),
            "hp_lost": law(self.hp_lost),
            "p_wounded": chance(self.p_wounded),
            "p_out": None if self.p_out is None else chance(self.p_out),
            "via": list(self.via),
            "spill_to": list(self.spill_to),
        }


@dataclass(frozen=True, slots=True)
class Aim:
    """A placement found by the search (B2): the axis ``angle`` and the ``apex`` on the
    rim (degrees), the axis range ``start`` to ``end`` with the same victims at that apex,
    its expected value, victims (B7 order), ties and shielded, and ``slack``: how far
    (mm) every base is from its B3 threshold there."""

    angle: float
    start: float
    end: float
    value: Fraction
    victims: tuple[str, ...]
    ties: tuple[tuple[str, ...], ...]
    shielded: tuple[str, ...]
    apex: float | None = None
    slack: float = math.inf

    @property
    def width(self) -> float:
        return self.end - self.start

    def to_json(self) -> dict[str, Any]:
        return {
            "apex": self.apex,
            "angle": self.angle,
            "from": self.start % 360.0,
            "to": self.end % 360.0,
            "width": self.width,
            "value": chance(self.value),
            "victims": list(self.victims),
            "ties": [list(g) for g in self.ties if len(g) > 1],
            "shielded": list(self.shielded),
        }


@dataclass(frozen=True, slots=True)
class AimSearch:
    """The size of an exact best-placement search: critical apexes found, cells of
    constant victims evaluated (``arcs``), slices of one apex between critical ones."""

    critical: int
    arcs: int
    slices: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"critical": self.critical, "arcs": self.arcs, "slices": self.slices}


def template_json(unit: Unit | None, template: Template) -> dict[str, Any]:
    """A template in the report unit: a cone's apex, aim, size and corners; a blast's
    centre and radius."""
    if isinstance(template, Cone):
        return {
            "kind": "cone",
            "apex": point(unit, template.apex),
            "rim": template.rim,
            "angle": template.angle,
            "length": length(unit, template.length),
            "width": length(unit, template.width),
            "vertices": [point(unit, p) for p in template.vertices],
        }
    return {
        "kind": "blast",
        "centre": point(unit, template.centre),
        "radius": length(unit, template.radius),
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class BreathRuling:
    """What a breath does from one template: victims in order with their exact laws of HP
    lost, the models it may spill onto, those shielded, the expected value (enemies minus
    friends), and why (G7). ``best``, ``runner_up`` and ``search`` are set when the aim
    was searched (B2); ``roll`` when the breath was rolled."""

    kind: ClassVar[str] = "breath"

    shooter: str
    weapon: BreathWeapon
    template: Template
    plan: Plan
    victims: tuple[Victim, ...]
    shielded: tuple[str, ...]
    value: Fraction
    reasons: tuple[Reason, ...]
    refusals: tuple[Reason, ...] = ()
    margin: Margin = NO_MARGIN
    best: Aim | None = None
    runner_up: Aim | None = None
    search: AimSearch | None = None
    roll: BreathRoll | None = None

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.rule for r in self.reasons))

    @property
    def dice(self) -> int | None:
        """The dice starting an impacting chain (Tir + 5, B6), else None."""
        return self.plan.dice

    def victim(self, ident: str) -> Victim:
        for v in self.victims:
            if v.id == ident:
                return v
        raise RulesError(
            T_(
                "{model} is not affected by this breath (affected: {affected})",
                model=repr(ident),
                affected=join((v.id for v in self.victims), empty=NONE),
            )
        )

    def to_json(self, unit: Unit | None = None) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "shooter": self.shooter,
            "weapon": self.weapon.to_json(),
            "template": template_json(unit, self.template),
            "dice": self.plan.dice,
            "victims": [v.to_json(unit) for v in self.victims],
            "shielded": list(self.shielded),
            "value": chance(self.value),
            "best": None if self.best is None else self.best.to_json(),
            "runner_up": None if self.runner_up is None else self.runner_up.to_json(),
            "search": None if self.search is None else self.search.to_json(),
            "roll": None if self.roll is None else self.roll.to_json(),
            "reasons": reasons_json(self.reasons),
            "refusals": reasons_json(self.refusals),
            **self.margin.to_json(unit),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class BlastRuling(BreathRuling):
    """A B10 blast: a :class:`BreathRuling` whose template is a circle."""

    kind: ClassVar[str] = "blast"


# --- schemas -----------------------------------------------------------------------------

_WEAPON = obj(
    {
        "name": STR,
        "notation": STR,
        "french": STR,
        "english": STR,
        "nature": STR,
        "damage_type": STR,
        "difficulty": nullable(INT),
        "power": nullable(INT),
        "state": nullable(STR),
    }
)
_CONE = obj(
    {
        "kind": {"const": "cone"},
        "apex": POINT,
        "rim": nullable(NUMBER),
        "angle": NUMBER,
        "length": LENGTH,
        "width": LENGTH,
        "vertices": array(POINT),
    }
)
_BLAST = obj({"kind": {"const": "blast"}, "centre": POINT, "radius": LENGTH})
_VICTIM = obj(
    {
        "id": STR,
        "side": STR,
        "in_area": BOOL,
        "rank": nullable(INT),
        "tied_with": IDS,
        "distance": nullable(LENGTH),
        "cover": INT,
        "cover_pieces": IDS,
        "protection": INT,
        "hp": nullable(INT),
        "p_affected": CHANCE,
        "hp_lost": LAW,
        "p_wounded": CHANCE,
        "p_out": nullable(CHANCE),
        "via": IDS,
        "spill_to": IDS,
    }
)
_AIM = obj(
    {
        "apex": nullable(NUMBER),
        "angle": NUMBER,
        "from": NUMBER,
        "to": NUMBER,
        "width": NUMBER,
        "value": CHANCE,
        "victims": IDS,
        "ties": array(IDS),
        "shielded": IDS,
    }
)
_HIT = obj(
    {
        "id": STR,
        "dice": nullable(INT),
        "hits": nullable(INT),
        "hp_lost": INT,
        "state": nullable(STR),
        "via": nullable(STR),
    }
)
_LOG = obj({"seed": nullable(INT), "dice": array(obj({"label": STR, "sides": INT, "value": INT}))})
_ROLL = obj(
    {
        "seed": nullable(INT),
        "hits": array(_HIT),
        "hp_lost": {"type": "object", "additionalProperties": INT},
        "log": _LOG,
    }
)


def ruling_schema(template: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema fragment of a breath (or blast) ruling beyond kind and reasons."""
    props = {
        "shooter": STR,
        "weapon": _WEAPON,
        "template": template,
        "dice": nullable(INT),
        "victims": array(_VICTIM),
        "shielded": IDS,
        "value": CHANCE,
        "best": nullable(_AIM),
        "runner_up": nullable(_AIM),
        "search": nullable(obj({"critical": INT, "arcs": INT, "slices": INT})),
        "roll": nullable(_ROLL),
    }
    return {"properties": props, "required": list(props)}


BREATH_SCHEMA = ruling_schema(_CONE)
BLAST_SCHEMA = ruling_schema(_BLAST)
