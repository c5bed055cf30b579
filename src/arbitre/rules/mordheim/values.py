"""The values of the Mordheim shooting phase (M1-M11): options, rulings, JSON.

:class:`MordheimOptions` holds the RULES.md options with their defaults;
:class:`TargetsRuling` (a shooter and every enemy as its target), :class:`TargetRuling`
and :class:`ShotResult` are what :mod:`arbitre.rules.mordheim` answers, with their
reasons and their versioned JSON form (exact fraction strings, floats beside).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from arbitre.dice import NeedOverSix, RollLog, ToHit
from arbitre.errors import RulesError
from arbitre.rules.mordheim.shot import Odds, Shot
from arbitre.rules.options import read_options
from arbitre.rules.ruling import JSON_VERSION, Reason
from arbitre.table import Table, Unit, Weapon

#: M5, M10: two inches, in mm.
TWO_INCHES = 50.8
#: M3, M6: lengths equal within this many mm count as equal.
DIST_EPS = 1e-6
#: M3: a closer enemy with one of these may be passed over.
DISTRACTED = {"stunned": "stunned", "knocked_down": "knocked down", "fleeing": "fleeing"}
#: M1: statuses that forbid shooting this turn.
BARRED = {"ran": "ran", "failed_charge": "failed a charge", "rallied": "rallied this turn"}


@dataclass(frozen=True, slots=True)
class MordheimOptions:
    """Options of the M rules (RULES.md): M7 natural ones and scores over 6, M6 measuring
    between base edges or centres, and the G5 grazing of sight lines."""

    natural_one_misses: bool = False
    need_over_six: NeedOverSix = "impossible"
    range_from: Literal["edge", "centre"] = "edge"


def options(table: Table, **overrides: object) -> MordheimOptions:
    """The table's Mordheim options, with ``overrides`` on top, checked."""
    return read_options(MordheimOptions, {**dict(table.options), **overrides})


@dataclass(frozen=True, slots=True)
class TargetRuling:
    """One enemy as a target of the shooter: facts, score, odds, legality, reasons.

    ``distance`` is in mm (M6, by ``range_from``). ``in_range``/``long_range`` are None
    without a missile weapon; ``score`` (the M7 score with its modifiers) and ``odds`` are
    None without BS or weapon, or for a target not seen; ``need`` is the score when a hit
    is possible (in range, a score the dice can reach), else None.
    ``closest``: the shooter must take it unless an exception allows another (M3, M5).
    """

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
    odds: Odds | None
    legal: bool
    closest: bool
    fight: tuple[str, ...]
    blockers: tuple[str, ...]
    cover_pieces: tuple[str, ...]
    reasons: tuple[Reason, ...]
    refusals: tuple[Reason, ...] = ()
    shot: Shot | None = None

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.rule for r in self.reasons))

    def to_json(self, unit: Unit, opts: MordheimOptions) -> dict[str, Any]:
        odds = self.odds.to_json() if self.odds else dict.fromkeys(
            ("p_hit", "p_hit_float", "p_hit_cover", "p_hit_cover_float", "p_miss",
             "p_miss_float", "p_hit_model", "p_hit_model_float"))
        return {"target": self.target, "side": self.side, "visible": self.visible,
                "visible_fraction": self.visible_fraction,
                "exposed_fraction": self.exposed_fraction,
                "distance": round(unit.from_mm(self.distance), 6), "in_range": self.in_range,
                "long_range": self.long_range, "in_cover": self.in_cover, "large": self.large,
                "score": self.score, "need": self.need,
                "need_text": None if self.score is None else need_text(self.score, opts,
                                                                       self.in_range),
                **odds, "legal": self.legal, "closest": self.closest, "fight": list(self.fight),
                "blockers": list(self.blockers), "cover_pieces": list(self.cover_pieces),
                "reasons": [r.to_json() for r in self.reasons]}


@dataclass(frozen=True, slots=True)
class TargetsRuling:
    """Whether ``shooter`` may shoot (M1) and every enemy as its target, nearest first."""

    shooter: str
    weapon: Weapon | None
    bs: int | None
    may_shoot: bool
    elevated: bool
    multiplayer: bool
    reasons: tuple[Reason, ...]
    targets: tuple[TargetRuling, ...]
    options: MordheimOptions
    refusals: tuple[Reason, ...] = ()

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule ID cited, by the shooter's reasons and its targets', in order."""
        found = [r.rule for r in self.reasons]
        found += [r.rule for t in self.targets for r in t.reasons]
        return tuple(dict.fromkeys(found))

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
        enemies = ", ".join(t.target for t in self.targets) or "none"
        raise RulesError(f"{ident!r} is not an enemy of {self.shooter!r} (enemies: {enemies})")

    def to_json(self, unit: Unit) -> dict[str, Any]:
        w = self.weapon
        return {"kind": "targets", "shooter": self.shooter,
                "weapon": None if w is None or w.range is None else
                {"name": w.name, "range": round(unit.from_mm(w.range), 6)},
                "bs": self.bs, "may_shoot": self.may_shoot, "elevated": self.elevated,
                "multiplayer": self.multiplayer, "legal": list(self.legal),
                "closest": list(self.closest),
                "reasons": [r.to_json() for r in self.reasons],
                "targets": [t.to_json(unit, self.options) for t in self.targets]}


@dataclass(frozen=True, slots=True)
class ShotResult:
    """A shot rolled (M6, M7, M9, M4 allocation, M11): the outcome, its dice, its odds."""

    shooter: str
    target: str
    weapon: str
    shot: Shot
    outcome: ToHit
    hit: str | None
    automatic: bool
    log: RollLog
    odds: Odds
    reasons: tuple[Reason, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": "shot", "shooter": self.shooter, "target": self.target,
                "weapon": self.weapon, "need": self.shot.need, "in_range": self.shot.in_range,
                "in_cover": self.shot.in_cover, "fight": list(self.shot.fight),
                "outcome": self.outcome, "hit": self.hit, "automatic": self.automatic,
                "roll": self.log.to_json(), **self.odds.to_json(),
                "reasons": [r.to_json() for r in self.reasons]}


def document(table: Table, opts: MordheimOptions,
             rulings: Sequence[TargetsRuling | ShotResult]) -> dict[str, Any]:
    """The versioned JSON document of some rulings (DESIGN.md "Outputs")."""
    return {"arbitre": JSON_VERSION, "rules": "mordheim", "unit": table.unit.name,
            "options": asdict(opts),
            "rulings": [r.to_json(table.unit) if isinstance(r, TargetsRuling) else r.to_json()
                        for r in rulings]}


def length(table: Table, mm: float) -> str:
    """A length in the scenario's unit, for reasons (G1)."""
    return f"{table.unit.from_mm(mm):.4g} {table.unit.name}"


def need_text(score: int, opts: MordheimOptions, in_range: bool | None = True) -> str:
    """The M7 score in words: ``4+``, ``6 then 4+``, ``impossible (7+)``."""
    if in_range is False:
        return "out of range"
    if score <= 1:
        return "2+ (a natural 1 misses)" if opts.natural_one_misses else "any roll"
    if score <= 6:
        return f"{score}+"
    if opts.need_over_six == "6-then-4+" and score <= 9:
        return f"6 then {score - 3}+"
    return f"impossible ({score}+)"


def reachable(score: int, opts: MordheimOptions) -> bool:
    """Whether the dice can reach an M7 score under the ``need_over_six`` option."""
    return score <= (6 if opts.need_over_six == "impossible" else 9)
