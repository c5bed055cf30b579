"""What the places questions share (P2, P4, P6): the ruleset's options, the effects a place
grants under them and their wording, who holds an effect kept for the first or the last
arrived, the junctions a step crosses, and the check that a question is asked of a map of
places."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from arbitre.errors import RulesError
from arbitre.places import Effect, Junction, Place, PlaceMap, Unit, stat_label
from arbitre.rules.schema import INT, STR, obj


@dataclass(frozen=True, slots=True)
class PlacesOptions:
    """Options of the P rules; the defaults are the readings listed in RULES.md.

    - ``tower_counts``: what of the final place a Tour abandonnée shot counts (P6): the
      seed says its ``encumbrance``; ``cover`` is the reading that matches P5.
    - ``tower_over_doors``: whether such a shot also ignores doors on the way.
    - ``parent_effects``: ``missing``, a place inherits its parent's effects only when it
      states none (P2); ``merge``, it gets its own and every ancestor's.
    - ``effects_on_passing``: whether the arrival effects of places crossed during a move
      (not only the final one) are gained.
    - ``bleeding_stacks``: whether bleeding from several sources adds up (else the
      highest counts).
    """

    tower_counts: Literal["encumbrance", "cover"] = "encumbrance"
    tower_over_doors: bool = False
    parent_effects: Literal["missing", "merge"] = "missing"
    effects_on_passing: bool = False
    bleeding_stacks: bool = True


#: Ids the words of a reason name before the rest are only counted (its ids hold them all).
MAX_WORDED = 12


def worded(ids: Iterable[str], sep: str = ", ", most: int = MAX_WORDED) -> str:
    """Ids as a reason words them: all of them, or past ``most`` the first ones, the last
    and the count (a chain of 5,000 places is not written out in a sentence)."""
    names = list(ids)
    if len(names) <= most:
        return sep.join(names)
    return sep.join([*names[: most - 2], "...", names[-1]]) + f" ({len(names)} in all)"


def placemap_of(subject: object, question: str) -> PlaceMap:
    """The map a places question is asked of; a RulesError if it is not a map of places."""
    if not isinstance(subject, PlaceMap):
        raise RulesError(f"{question} rules a map of places; this file is not one")
    return subject


def describe(e: Effect) -> str:
    """A P6 effect in words (English), as every ruling and face shows it."""
    head = {"always": "", "first": "if first arrived: ", "last": "if last arrived: "}[e.when]
    if e.kind in ("stat", "resource"):
        gain = f"{stat_label(e.name)} {e.amount:+d}"
        return head + (f"resource {gain}" if e.kind == "resource" else gain)
    if e.kind == "bleeding":
        tail = " on each missed melee attack" if e.per == "missed_melee_attack" else ""
        return f"{head}bleeding {e.amount}{tail}"
    if e.kind == "untargetable":
        return f"{head}cannot be targeted by ranged weapons"
    if e.kind == "obstruction":
        return f"{head}obstruction of every unit present {e.amount:+d}"
    return f"{head}ranged attacks: only the final place counts, range {e.amount:+d}"


@dataclass(frozen=True, slots=True)
class Granted:
    """A P6 effect as a ruling gives it: the effect stated in the data, and its words."""

    effect: Effect
    text: str

    def to_json(self) -> dict[str, Any]:
        e = self.effect
        return {
            "kind": e.kind,
            "name": e.name,
            "amount": e.amount,
            "when": e.when,
            "per": e.per,
            "source": e.source,
            "text": self.text,
        }


def granted(effects: Iterable[Effect]) -> tuple[Granted, ...]:
    """Effects with their words."""
    return tuple(Granted(effect=e, text=describe(e)) for e in effects)


def effects_of(place: Place, options: PlacesOptions) -> tuple[Effect, ...]:
    """The effects a place grants (P2 inheritance, P6), under the ``parent_effects`` option."""
    return place.lineage_effects if options.parent_effects == "merge" else place.effects


def holds(placemap: PlaceMap, unit: Unit, e: Effect) -> bool:
    """Whether ``unit`` holds a place effect now: first/last arrived among those there."""
    there = placemap.units_on(unit.place)
    if e.when == "first":
        return there[0].id == unit.id
    if e.when == "last":
        return there[-1].id == unit.id
    return True


def obstruction_bonus(place: Place, options: PlacesOptions) -> int:
    """What a place adds to the obstruction of every unit on it (Rue, P6)."""
    return sum(e.amount for e in effects_of(place, options) if e.kind == "obstruction")


def bleeding(amounts: Sequence[int], options: PlacesOptions) -> int:
    """Bleeding from several sources: their sum, or the highest (``bleeding_stacks``)."""
    return sum(amounts) if options.bleeding_stacks else max(amounts, default=0)


@dataclass(frozen=True, slots=True)
class JunctionRef:
    """A junction on a way, by id and kind (P4)."""

    id: str
    kind: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind}


def refs(junctions: Iterable[Junction]) -> tuple[JunctionRef, ...]:
    return tuple(JunctionRef(id=j.id, kind=j.kind) for j in junctions)


#: JSON Schema of a granted effect and of a junction reference.
EFFECT: dict[str, Any] = obj(
    {
        "kind": STR,
        "name": STR,
        "amount": INT,
        "when": {"enum": ["always", "first", "last"]},
        "per": {"enum": ["arrival", "missed_melee_attack"]},
        "source": STR,
        "text": STR,
    }
)
JUNCTION: dict[str, Any] = obj({"id": STR, "kind": STR})
