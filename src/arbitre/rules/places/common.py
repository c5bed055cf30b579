"""What the places questions share (P2, P4, P6): the ruleset's options, the effects a place
grants under them and their wording, who holds an effect kept for the first or the last
arrived, the junctions a step crosses, and the check that a question is asked of a map of
places."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arbitre.errors import RulesError
from arbitre.i18n import T_, Text
from arbitre.rules.declared import PlacesOptions as PlacesOptions  # the registry reads it light
from arbitre.rules.schema import INT, STR, obj

if TYPE_CHECKING:  # the places model is imported when a map is ruled, not with the ruleset
    from arbitre.places import Effect, Junction, Place, PlaceMap, Unit


#: Ids the words of a reason name before the rest are only counted (its ids hold them all).
MAX_WORDED = 12


def worded(ids: Iterable[str], sep: str = ", ", most: int = MAX_WORDED) -> Text | str:
    """Ids as a reason words them: all of them, or past ``most`` the first ones, the last
    and the count (a chain of 5,000 places is not written out in a sentence)."""
    names = list(ids)
    if len(names) <= most:
        return sep.join(names)
    shown = sep.join([*names[: most - 2], "...", names[-1]])
    return T_("{names} ({n} in all)", names=shown, n=len(names))


def placemap_of(subject: object, question: str) -> PlaceMap:
    """The map a places question is asked of; a RulesError if it is not a map of places."""
    from arbitre.places import PlaceMap

    if not isinstance(subject, PlaceMap):
        raise RulesError(
            T_("{question} rules a map of places; this file is not one", question=question)
        )
    return subject


def _effect_words(e: Effect) -> Text:
    """What a P6 effect does, whoever holds it."""
    from arbitre.places import stat_name

    amount = f"{e.amount:+d}"
    if e.kind == "stat":
        return Text("{stat} {amount}", (("stat", stat_name(e.name)), ("amount", amount)))
    if e.kind == "resource":
        return T_("resource {name} {amount}", name=stat_name(e.name), amount=amount)
    if e.kind == "bleeding":
        if e.per == "missed_melee_attack":
            return T_("bleeding {n} on each missed melee attack", n=e.amount)
        return T_("bleeding {n}", n=e.amount)
    if e.kind == "untargetable":
        return T_("cannot be targeted by ranged weapons")
    if e.kind == "obstruction":
        return T_("obstruction of every unit present {amount}", amount=amount)
    return T_("ranged attacks: only the final place counts, range {amount}", amount=amount)


def describe(e: Effect) -> str:
    """A P6 effect in words, in the current language (:func:`effect_text` words it when
    read)."""
    return effect_text(e).render()


def effect_text(e: Effect) -> Text:
    """A P6 effect in words, as every ruling and face shows it (worded when read, in the
    language spoken then)."""
    words = _effect_words(e)
    if e.when == "first":
        return T_("if first arrived: {effect}", effect=words)
    if e.when == "last":
        return T_("if last arrived: {effect}", effect=words)
    return words


@dataclass(frozen=True, slots=True)
class Granted:
    """A P6 effect as a ruling gives it: the effect stated in the data, and its ``words``
    (:func:`effect_text`); :attr:`text` words them in the current language."""

    effect: Effect
    words: Text

    @property
    def text(self) -> str:
        """The effect in words, in the current language (:func:`arbitre.i18n.speaking`)."""
        return self.words.render()

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
    return tuple(Granted(effect=e, words=effect_text(e)) for e in effects)


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
