"""The values of the Mordheim shooting phase (M1-M11): options, requests, rulings, JSON.

:class:`MordheimOptions` holds the RULES.md options with their defaults;
:class:`TargetsRequest` and :class:`ShootRequest` are what the ``targets`` and ``shoot``
questions take. :class:`TargetsRuling` (a shooter and every enemy as its target, each a
:class:`TargetRuling`) and :class:`ShootRuling` (a shot rolled) are what they answer,
with their reasons and their JSON 2 form (exact chances as :func:`~arbitre.rules.ruling.chance`
objects, lengths in the report unit); :data:`TARGETS_SCHEMA` and :data:`SHOOT_SCHEMA`
are the JSON Schemas of those forms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from arbitre.dice import RollLog, ToHit
from arbitre.errors import RulesError
from arbitre.i18n import N_, T_, Length, Text, join
from arbitre.rules.declared import MordheimOptions as MordheimOptions  # the registry reads it light
from arbitre.rules.ruling import NO_MARGIN, Margin, Reason, reasons_json
from arbitre.rules.ruling import length as json_length
from arbitre.rules.schema import (
    BOOL,
    CHANCE,
    IDS,
    INT,
    LENGTH,
    MARGIN,
    NUMBER,
    REASONS,
    STR,
    array,
    nullable,
    obj,
)
from arbitre.table import Table, Unit, Weapon

if TYPE_CHECKING:
    from arbitre.rules.mordheim.shot import Odds, Shot

#: M5, M10: two inches, in mm.
TWO_INCHES = 50.8
#: M3, M6: lengths equal within this many mm count as equal.
DIST_EPS = 1e-6
#: M3: a closer enemy with one of these may be passed over (the words for it).
DISTRACTED = {
    "stunned": N_("stunned"),
    "knocked_down": N_("knocked down"),
    "fleeing": N_("fleeing"),
}
#: M1: statuses that forbid shooting this turn, and the refusal each gives (``{id}``: the
#: shooter).
BARRED = {
    "ran": N_("{id} ran: it cannot shoot this turn"),
    "failed_charge": N_("{id} failed a charge: it cannot shoot this turn"),
    "rallied": N_("{id} rallied this turn: it cannot shoot this turn"),
}


@dataclass(frozen=True, slots=True)
class TargetsRequest:
    """``targets``: the shooting phase of ``shooter`` with ``weapon`` (a missile weapon by
    name, case ignored; default its first)."""

    shooter: str
    weapon: str | None = None


@dataclass(frozen=True, slots=True)
class ShootRequest:
    """``shoot``: ``shooter`` shoots ``target`` with ``weapon`` (default its first missile
    weapon); the dice come from ``seed`` (``None``: a fresh seed, reported in the ruling)."""

    shooter: str
    target: str
    weapon: str | None = None
    seed: int | None = None


def length(table: Table, mm: float) -> Length:
    """A length in the scenario's unit, for reasons (G1), worded per language."""
    return table.unit.measure(mm)


def _len(unit: Unit | None, mm: float | None) -> float | None:
    """A length for JSON, in the report unit, rounded to 6 decimals."""
    value = json_length(unit, mm)
    return None if value is None else round(value, 6)


@dataclass(frozen=True, slots=True)
class TargetRuling:
    """One enemy as a target of the shooter: facts, score, odds, legality, reasons.

    ``distance`` is in mm (M6, by ``range_from``). ``in_range``/``long_range`` are None
    without a missile weapon; ``score`` (the M7 score with its ``modifiers``: what each
    does to the roll, cover -1, long range -1, moved and shot -1, large target +1) and ``odds`` are
    None without BS or weapon, or for a target not seen; ``need`` is the score when a hit
    is possible (in range, a score the dice can reach), else None; ``need_text`` is the
    score in words (``5+``, ``out of range``, ``impossible (7+)``) and ``need_short`` the
    mark a picture writes beside the target (``5+``, ``1+``, ``no hit``).
    ``closest``: the shooter must take it unless an exception allows another (M3, M5).
    ``deciding``: the reasons that decided ``legal`` (M1, M3-M5, and the shooter's own
    refusals when it may not shoot), as a short form of ``reasons``.
    """

    kind: ClassVar[str] = "target"

    shooter: str
    target: str
    side: str
    visible: bool
    visible_fraction: float
    exposed_fraction: float
    distance: float
    in_range: bool | None
    long_range: bool | None
    in_cover: bool
    large: bool
    score: int | None
    need: int | None
    need_text: Text | None
    need_short: str | None
    odds: Odds | None
    legal: bool
    closest: bool
    fight: tuple[str, ...]
    blockers: tuple[str, ...]
    cover_pieces: tuple[str, ...]
    reasons: tuple[Reason, ...]
    refusals: tuple[Reason, ...] = ()
    margin: Margin = NO_MARGIN
    deciding: tuple[Reason, ...] = ()
    shot: Shot | None = None
    modifiers: tuple[tuple[str, int], ...] = ()

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.rule for r in self.reasons))

    def to_json(self, unit: Unit | None = None) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "shooter": self.shooter,
            "target": self.target,
            "side": self.side,
            "visible": self.visible,
            "visible_fraction": self.visible_fraction,
            "exposed_fraction": self.exposed_fraction,
            "distance": _len(unit, self.distance),
            "in_range": self.in_range,
            "long_range": self.long_range,
            "in_cover": self.in_cover,
            "large": self.large,
            "score": self.score,
            "need": self.need,
            "need_text": None if self.need_text is None else str(self.need_text),
            "need_short": self.need_short,
            "modifiers": [{"name": name, "roll": change} for name, change in self.modifiers],
            "odds": None if self.odds is None else self.odds.to_json(),
            "legal": self.legal,
            "closest": self.closest,
            "fight": list(self.fight),
            "blockers": list(self.blockers),
            "cover_pieces": list(self.cover_pieces),
            "deciding": reasons_json(self.deciding),
            "reasons": reasons_json(self.reasons),
            "refusals": reasons_json(self.refusals),
            **self.margin.to_json(unit),
        }


@dataclass(frozen=True, slots=True)
class TargetsRuling:
    """Whether ``shooter`` may shoot (M1) and every enemy as its target, nearest first.

    ``weapon`` is the missile weapon it shoots with (None without one). ``range_ring`` and
    ``half_range_ring`` are the radii around the shooter's centre within which a target is
    in range and not at long range (M6: the weapon's range and half of it, plus the
    shooter's base radius when ranges run between base edges), None without a weapon.
    ``fights`` are the groups of models in close combat together on the table (M4).
    """

    kind: ClassVar[str] = "targets"

    shooter: str
    side: str
    weapon: Weapon | None
    bs: int | None
    may_shoot: bool
    elevated: bool
    multiplayer: bool
    range_ring: float | None
    half_range_ring: float | None
    fights: tuple[tuple[str, ...], ...]
    targets: tuple[TargetRuling, ...]
    reasons: tuple[Reason, ...]
    refusals: tuple[Reason, ...] = ()
    margin: Margin = NO_MARGIN

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule ID cited, by the shooter's reasons and its targets', in order."""
        found = [r.rule for r in self.reasons]
        found += [r.rule for t in self.targets for r in t.reasons]
        return tuple(dict.fromkeys(found))

    @property
    def range(self) -> float | None:
        """The weapon's range in mm (M6), None without a weapon."""
        return None if self.weapon is None else self.weapon.range

    @property
    def half_range(self) -> float | None:
        """Half the weapon's range in mm: beyond it is long range (M6, M7)."""
        return None if self.range is None else self.range / 2

    @property
    def legal(self) -> tuple[str, ...]:
        """The legal targets (M3-M5)."""
        return tuple(t.target for t in self.targets if t.legal)

    @property
    def closest(self) -> tuple[str, ...]:
        """The target(s) the shooter must take unless an exception applies (M3, M5)."""
        return tuple(t.target for t in self.targets if t.closest)

    def target(self, ident: str) -> TargetRuling:
        for t in self.targets:
            if t.target == ident:
                return t
        enemies = join((t.target for t in self.targets), empty=N_("none"))
        raise RulesError(
            T_(
                "{ident} is not an enemy of {shooter} (enemies: {enemies})",
                ident=repr(ident),
                shooter=repr(self.shooter),
                enemies=enemies,
            )
        )

    def to_json(self, unit: Unit | None = None) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "shooter": self.shooter,
            "side": self.side,
            "weapon": None if self.weapon is None else self.weapon.name,
            "range": _len(unit, self.range),
            "half_range": _len(unit, self.half_range),
            "range_ring": _len(unit, self.range_ring),
            "half_range_ring": _len(unit, self.half_range_ring),
            "bs": self.bs,
            "may_shoot": self.may_shoot,
            "elevated": self.elevated,
            "multiplayer": self.multiplayer,
            "legal": list(self.legal),
            "closest": list(self.closest),
            "fights": [list(f) for f in self.fights],
            "targets": [t.to_json(unit) for t in self.targets],
            "reasons": reasons_json(self.reasons),
            "refusals": reasons_json(self.refusals),
            **self.margin.to_json(unit),
        }


@dataclass(frozen=True, slots=True)
class ShootRuling:
    """A shot rolled (M6, M7, M9, M4 allocation, M11): the outcome, its dice, its odds.

    ``shot`` is the dice procedure that was rolled (``replay_procedure(shot, log)`` gives
    the outcome again); ``log`` every die and the seed; ``hit`` the model hit (None on a
    miss or a hit on the cover); ``automatic`` a miss without dice (out of range, M6).
    """

    kind: ClassVar[str] = "shoot"

    shooter: str
    target: str
    weapon: str
    shot: Shot
    need_text: Text
    outcome: ToHit
    hit: str | None
    automatic: bool
    log: RollLog
    odds: Odds
    reasons: tuple[Reason, ...]
    refusals: tuple[Reason, ...] = ()
    margin: Margin = NO_MARGIN

    @property
    def seed(self) -> int | None:
        """The seed the dice came from."""
        return self.log.seed

    def to_json(self, unit: Unit | None = None) -> dict[str, Any]:
        """The JSON form; ``seed`` and ``dice`` are the roll log
        (:meth:`arbitre.dice.RollLog.from_json` reads them back from this object)."""
        log = self.log.to_json()
        return {
            "kind": self.kind,
            "shooter": self.shooter,
            "target": self.target,
            "weapon": self.weapon,
            "score": self.shot.need,
            "need_text": str(self.need_text),
            "in_range": self.shot.in_range,
            "in_cover": self.shot.in_cover,
            "fight": list(self.shot.fight),
            "outcome": self.outcome,
            "hit": self.hit,
            "automatic": self.automatic,
            "seed": log["seed"],
            "dice": log["dice"],
            "odds": self.odds.to_json(),
            "reasons": reasons_json(self.reasons),
            "refusals": reasons_json(self.refusals),
            **self.margin.to_json(unit),
        }


# -- JSON Schemas of the rulings -------------------------------------------------------------

#: The exact odds of a shot: hit, hit on the cover (M9), miss; and how a hit is shared
#: among the models of the fight (M4; the target alone outside a melee).
ODDS_SCHEMA: dict[str, Any] = obj(
    {
        "hit": CHANCE,
        "hit_cover": CHANCE,
        "miss": CHANCE,
        "allocation": array(obj({"model": STR, "chance": CHANCE})),
    }
)

#: One target row of a ``targets`` ruling (kind ``target``).
TARGET_SCHEMA: dict[str, Any] = obj(
    {
        "kind": {"const": "target"},
        "shooter": STR,
        "target": STR,
        "side": STR,
        "visible": BOOL,
        "visible_fraction": NUMBER,
        "exposed_fraction": NUMBER,
        "distance": LENGTH,
        "in_range": nullable(BOOL),
        "long_range": nullable(BOOL),
        "in_cover": BOOL,
        "large": BOOL,
        "score": nullable(INT),
        "need": nullable(INT),
        "need_text": nullable(STR),
        "need_short": nullable(STR),
        "modifiers": array(obj({"name": STR, "roll": INT})),
        "odds": nullable(ODDS_SCHEMA),
        "legal": BOOL,
        "closest": BOOL,
        "fight": IDS,
        "blockers": IDS,
        "cover_pieces": IDS,
        "deciding": REASONS,
        "reasons": REASONS,
        "refusals": REASONS,
        **MARGIN,
    }
)


def _fields(props: dict[str, Any]) -> dict[str, Any]:
    """A question's schema fragment: these properties, all required."""
    return {"properties": props, "required": list(props)}


#: The ``targets`` ruling beyond ``kind``, ``reasons``, ``refusals``.
TARGETS_SCHEMA: dict[str, Any] = _fields(
    {
        "shooter": STR,
        "side": STR,
        "weapon": nullable(STR),
        "range": nullable(LENGTH),
        "half_range": nullable(LENGTH),
        "range_ring": nullable(LENGTH),
        "half_range_ring": nullable(LENGTH),
        "bs": nullable(INT),
        "may_shoot": BOOL,
        "elevated": BOOL,
        "multiplayer": BOOL,
        "legal": IDS,
        "closest": IDS,
        "fights": array(IDS),
        "targets": array(TARGET_SCHEMA),
    }
)

#: The ``shoot`` ruling beyond ``kind``, ``reasons``, ``refusals``.
SHOOT_SCHEMA: dict[str, Any] = _fields(
    {
        "shooter": STR,
        "target": STR,
        "weapon": STR,
        "score": INT,
        "need_text": STR,
        "in_range": BOOL,
        "in_cover": BOOL,
        "fight": IDS,
        "outcome": {"enum": ["hit", "hit_cover", "miss"]},
        "hit": nullable(STR),
        "automatic": BOOL,
        "seed": nullable(INT),
        "dice": array(obj({"label": STR, "sides": INT, "value": INT})),
        "odds": ODDS_SCHEMA,
    }
)
