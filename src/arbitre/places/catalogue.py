"""The seed's places and junction kinds as data (P2, P4, P6): ``data/places.yaml``, read
once, found by French name (accents optional) or English alias.

This is data, not rules: what an effect does to a move or a shot, and how it is worded
for players, is ruled in :mod:`arbitre.rules.places`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt
from pydantic_core import PydanticCustomError

from arbitre.errors import RulesError
from arbitre.i18n import T_, Lang, Word, current
from arbitre.i18n import Text as Words
from arbitre.problems import show
from arbitre.text import fold

#: P2 defaults and floors.
DEFAULT_ENCUMBRANCE, MIN_ENCUMBRANCE = 3, 1
DEFAULT_COVER, MIN_COVER = 0, 0

EffectKind = Literal[
    "stat", "resource", "bleeding", "untargetable", "obstruction", "final_place_only"
]
When = Literal["always", "first", "last"]
Per = Literal["arrival", "missed_melee_attack"]


@dataclass(frozen=True, slots=True)
class Effect:
    """One P6 effect of a place: see data/places.yaml for the kinds.

    ``when`` says whether it holds for every unit arrived (``always``) or only while the
    unit is the first or the last arrived on the place; ``source`` is where it is stated
    (a catalogue type or a place id).
    """

    kind: EffectKind
    name: str = ""
    amount: int = 0
    when: When = "always"
    per: Per = "arrival"
    source: str = ""


@dataclass(frozen=True, slots=True)
class PlaceType:
    """A place of the seed's table (P6): stated characteristics, parent element, effects."""

    name: str
    aliases: tuple[str, ...]
    text: str
    encumbrance: int | None = None
    cover: int | None = None
    parent: str | None = None
    effects: tuple[Effect, ...] | None = None


@dataclass(frozen=True, slots=True)
class JunctionKind:
    """A junction of the seed's table (P4): what crossing it adds to a move or a shot."""

    name: str
    aliases: tuple[str, ...]
    text: str
    encumbrance: int = 0
    ranged_reduction: int = 0
    blocks_ranged: bool = False
    bleeding: int = 0


@dataclass(frozen=True, slots=True)
class Catalogue:
    """The seed's places and junction kinds, and the display names of stats."""

    places: tuple[PlaceType, ...]
    junctions: tuple[JunctionKind, ...]
    stats: tuple[tuple[str, str, str], ...]  # id, French, English


# -- the documents (data/places.yaml, and the effects a scenario states) -------------------

#: Characters no id or text of a file may hold: control characters (but tab, newline and
#: carriage return in texts) and lone surrogates; XML (the pictures) cannot carry them.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
_CONTROL_ID = re.compile("[\x00-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def _printable(pattern: re.Pattern[str]) -> AfterValidator:
    def check(value: str) -> str:
        if pattern.search(value):
            raise PydanticCustomError("control_characters", "must not hold control characters")
        return value

    return AfterValidator(check)


Ident = Annotated[str, Field(strict=True, min_length=1), _printable(_CONTROL_ID)]
Text = Annotated[str, Field(strict=True), _printable(_CONTROL)]


class Doc(BaseModel):
    """A document checked by pydantic: no field beyond those declared."""

    model_config = ConfigDict(extra="forbid")


class EffectDoc(Doc):
    """A P6 effect in its structured form (data/places.yaml describes the kinds)."""

    kind: EffectKind
    name: Ident | None = Field(None, description="the stat or resource (kind stat, resource)")
    amount: StrictInt = 0
    when: When = "always"
    per: Per = "arrival"

    def effect(self, source: str) -> Effect:
        return Effect(
            kind=self.kind,
            name=self.name or "",
            amount=self.amount,
            when=self.when,
            per=self.per,
            source=source,
        )


class PlaceTypeDoc(Doc):
    name: Text
    fr: list[Text] = []
    en: list[Text] = []
    text: Text
    encumbrance: Annotated[StrictInt, Field(ge=MIN_ENCUMBRANCE)] | None = None
    cover: Annotated[StrictInt, Field(ge=MIN_COVER)] | None = None
    parent: Text | None = None
    effects: list[EffectDoc] | None = None


class JunctionKindDoc(Doc):
    name: Text
    fr: list[Text] = []
    en: list[Text] = []
    text: Text
    encumbrance: StrictInt = 0
    ranged_reduction: StrictInt = 0
    blocks_ranged: bool = False
    bleeding: StrictInt = 0


class CatalogueDoc(Doc):
    stats: dict[str, dict[str, str]]
    places: list[PlaceTypeDoc]
    junctions: list[JunctionKindDoc]


# -- reading and finding ------------------------------------------------------------------


def _place_type(p: PlaceTypeDoc) -> PlaceType:
    return PlaceType(
        name=p.name,
        aliases=tuple(p.fr + p.en),
        text=p.text,
        encumbrance=p.encumbrance,
        cover=p.cover,
        parent=p.parent,
        effects=None if p.effects is None else tuple(e.effect(p.name) for e in p.effects),
    )


def _junction_kind(j: JunctionKindDoc) -> JunctionKind:
    return JunctionKind(
        name=j.name,
        aliases=tuple(j.fr + j.en),
        text=j.text,
        encumbrance=j.encumbrance,
        ranged_reduction=j.ranged_reduction,
        blocks_ranged=j.blocks_ranged,
        bleeding=j.bleeding,
    )


@cache
def catalogue() -> Catalogue:
    """The shipped catalogue (data/places.yaml), read once."""
    text = (resources.files("arbitre") / "data" / "places.yaml").read_text(encoding="utf-8")
    doc = CatalogueDoc.model_validate(yaml.safe_load(text))
    return Catalogue(
        places=tuple(_place_type(p) for p in doc.places),
        junctions=tuple(_junction_kind(j) for j in doc.junctions),
        stats=tuple((k, v["fr"], v["en"]) for k, v in doc.stats.items()),
    )


def _key_map(items: Iterable[PlaceType | JunctionKind]) -> dict[str, Any]:
    return {fold(n): item for item in items for n in (item.name, *item.aliases)}


@cache
def places_by_key() -> dict[str, PlaceType]:
    """The catalogue's places by folded name and alias."""
    return _key_map(catalogue().places)


@cache
def junctions_by_key() -> dict[str, JunctionKind]:
    """The catalogue's junction kinds by folded name and alias."""
    return _key_map(catalogue().junctions)


def stat_label(name: str) -> str:
    """The English name of a stat or resource id (``vivacite`` -> ``quickness``)."""
    for ident, _fr, en in catalogue().stats:
        if ident == name:
            return en
    return name


@dataclass(frozen=True, slots=True)
class Named(Word):
    """A name given in both languages by the data or the code that names it, not looked
    up in the message catalogue: ``msgid`` in English, ``fr`` in French. A stat's name
    (data/places.yaml: ``quickness``, the seed's ``vivacité``); a word the catalogue
    already gives another French for (the places' ``cover`` is the seed's "couverture",
    the table's is "couvert")."""

    fr: str = ""

    def render(self, lang: Lang | None = None) -> str:
        return self.fr if (lang or current()) == "fr" and self.fr else self.msgid


@cache
def stat_name(name: str) -> Named:
    """The name of a stat or resource id, worded per language as in a sentence
    (``vivacite`` -> ``quickness`` / ``vivacité``: the seed's word, its first letter
    lowered); an id the data does not name stays as it is."""
    for ident, fr, en in catalogue().stats:
        if ident == name:
            return Named(en, fr[:1].lower() + fr[1:])
    return Named(name, name)


def unknown_name(
    kind: Literal["place type", "junction kind"], name: str, known: Iterable[str]
) -> Words:
    """The message for an unknown catalogue name: the close ones, else every one."""
    names = list(known)
    near = difflib.get_close_matches(fold(name), [fold(n) for n in names], n=3, cutoff=0.6)
    hint = ", ".join(n for n in names if fold(n) in near)
    every = ", ".join(names)
    if kind == "place type":
        if hint:
            return T_(
                "unknown place type {name} (did you mean {hint}?)", name=show(name), hint=hint
            )
        return T_("unknown place type {name} (known: {names})", name=show(name), names=every)
    if hint:
        return T_("unknown junction kind {name} (did you mean {hint}?)", name=show(name), hint=hint)
    return T_("unknown junction kind {name} (known: {names})", name=show(name), names=every)


def find_place_type(name: str) -> PlaceType:
    """The catalogue place of this French name or English alias (P6), accents optional."""
    found = places_by_key().get(fold(name))
    if found is None:
        names = (p.name for p in catalogue().places)
        raise RulesError(unknown_name("place type", name, names))
    return found


def find_junction_kind(name: str) -> JunctionKind:
    """The catalogue junction of this French name or English alias (P4), accents optional."""
    found = junctions_by_key().get(fold(name))
    if found is None:
        names = (j.name for j in catalogue().junctions)
        raise RulesError(unknown_name("junction kind", name, names))
    return found
