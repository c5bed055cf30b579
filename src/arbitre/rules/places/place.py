"""P2, P6: what a place is and gives.

:func:`place` rules a place's effective characteristics (P2), its neighbours and the
junctions on the ways there (P1, P4), which unit on it holds which of its effects, and
what a unit arriving now would get (P6), under the ``parent_effects`` option.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from arbitre.i18n import T_, Text
from arbitre.rules.places.common import (
    EFFECT,
    JUNCTION,
    Granted,
    JunctionRef,
    PlacesOptions,
    effect_text,
    effects_of,
    granted,
    holds,
    obstruction_bonus,
    placemap_of,
    refs,
    worded,
)
from arbitre.rules.ruling import NO_MARGIN, Margin, Reason, reasons_json
from arbitre.rules.schema import BOOL, IDS, INT, STR, array, nullable, obj

if TYPE_CHECKING:  # the places model is imported when a map is ruled, not with the ruleset
    from arbitre.places import Effect, Place, PlaceMap, Unit


@dataclass(frozen=True, slots=True)
class PlaceRequest:
    """What the place ``place`` (an id) is and gives."""

    place: str


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A place side by side with the one asked about, and the junctions between (P1, P4)."""

    place: str
    junctions: tuple[JunctionRef, ...]

    def to_json(self) -> dict[str, Any]:
        return {"place": self.place, "junctions": [j.to_json() for j in self.junctions]}


@dataclass(frozen=True, slots=True)
class Occupant:
    """A unit on a place, its arrival rank, its obstruction there (Rue's +1 included) and
    the place's effects it holds now (P3, P6)."""

    unit: str
    side: str
    arrived: int
    first: bool
    last: bool
    obstruction: int
    effects: tuple[Granted, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "side": self.side,
            "arrived": self.arrived,
            "first": self.first,
            "last": self.last,
            "obstruction": self.obstruction,
            "effects": [e.to_json() for e in self.effects],
        }


@dataclass(frozen=True, slots=True)
class PlaceRuling:
    """A place's effective characteristics (P2), its neighbours and junctions (P1, P4),
    who holds which effect, and what a unit arriving now would get (P6).

    ``sources`` says where encumbrance, cover and effects come from (``stated``, a parent
    or ``default``); ``effects`` are those the place grants under ``parent_effects``.
    """

    kind: ClassVar[str] = "place"

    place: str
    name: str
    type: str | None
    parent: str | None
    lineage: tuple[str, ...]
    encumbrance: int
    cover: int
    sources: tuple[tuple[str, str], ...]
    effects: tuple[Granted, ...]
    neighbours: tuple[Neighbour, ...]
    occupants: tuple[Occupant, ...]
    arriving: tuple[Granted, ...]
    reasons: tuple[Reason, ...]
    refusals: tuple[Reason, ...] = ()
    margin: Margin = NO_MARGIN

    def to_json(self, unit: object = None) -> dict[str, Any]:
        """The JSON form (no lengths: ``unit`` is not used)."""
        return {
            "kind": self.kind,
            "place": self.place,
            "name": self.name,
            "type": self.type,
            "parent": self.parent,
            "lineage": list(self.lineage),
            "encumbrance": self.encumbrance,
            "cover": self.cover,
            "sources": dict(self.sources),
            "effects": [e.to_json() for e in self.effects],
            "neighbours": [n.to_json() for n in self.neighbours],
            "units": [o.to_json() for o in self.occupants],
            "arriving": [e.to_json() for e in self.arriving],
            **self.margin.to_json(None),
            "reasons": reasons_json(self.reasons),
            "refusals": reasons_json(self.refusals),
        }


OCCUPANT = obj(
    {
        "unit": STR,
        "side": STR,
        "arrived": INT,
        "first": BOOL,
        "last": BOOL,
        "obstruction": INT,
        "effects": array(EFFECT),
    }
)
NEIGHBOUR = obj({"place": STR, "junctions": array(JUNCTION)})
#: JSON Schema of a place ruling beyond kind, reasons and refusals.
SCHEMA: dict[str, Any] = {
    "properties": {
        "place": STR,
        "name": STR,
        "type": nullable(STR),
        "parent": nullable(STR),
        "lineage": IDS,
        "encumbrance": INT,
        "cover": INT,
        "sources": obj({"encumbrance": STR, "cover": STR, "effects": STR}),
        "effects": array(EFFECT),
        "neighbours": array(NEIGHBOUR),
        "units": array(OCCUPANT),
        "arriving": array(EFFECT),
    },
    "required": [
        "place",
        "name",
        "type",
        "parent",
        "lineage",
        "encumbrance",
        "cover",
        "sources",
        "effects",
        "neighbours",
        "units",
        "arriving",
    ],
}


def source_text(source: str) -> Text:
    """Where a characteristic comes from, in words (P2)."""
    if source == "stated":
        return T_("stated")
    if source == "default":
        return T_("default")
    return T_("from {source}", source=source)


def _occupants(
    placemap: PlaceMap, there: tuple[Unit, ...], effects: tuple[Effect, ...], bonus: int
) -> tuple[Occupant, ...]:
    return tuple(
        Occupant(
            unit=u.id,
            side=u.side,
            arrived=u.arrived,
            first=k == 0,
            last=k == len(there) - 1,
            obstruction=u.obstruction + bonus,
            effects=granted(e for e in effects if e.when == "always" or holds(placemap, u, e)),
        )
        for k, u in enumerate(there)
    )


def _reasons(
    p: Place, effects: tuple[Effect, ...], there: tuple[Unit, ...], near: tuple[str, ...]
) -> tuple[Reason, ...]:
    """P2 characteristics and inheritance, P6 effects and arrival order, P1 neighbours."""
    reasons = [
        Reason(
            "P2",
            (p.id,),
            T_(
                "encumbrance {encumbrance} ({encumbrance_from}), cover {cover} ({cover_from})",
                encumbrance=p.encumbrance,
                encumbrance_from=source_text(p.source("encumbrance")),
                cover=p.cover,
                cover_from=source_text(p.source("cover")),
            ),
        )
    ]
    if p.lineage:
        reasons.append(
            Reason(
                "P2",
                (p.id, *p.lineage),
                T_(
                    "inherits what it does not state from {chain}",
                    chain=worded(p.lineage, " -> "),
                ),
            )
        )
    reasons += [
        Reason(
            "P6",
            (p.id,),
            Text("{effect} ({source})", (("effect", effect_text(e)), ("source", e.source))),
        )
        for e in effects
    ]
    if there:
        reasons.append(Reason("P6", tuple(u.id for u in there), _arrival_order(effects, there)))
    if near:
        text = T_("adjacent places: {places}", places=worded(near))
    else:
        text = T_("adjacent places: none")
    reasons.append(Reason("P1", (p.id, *near), text))
    return tuple(reasons)


def _arrival_order(effects: tuple[Effect, ...], there: tuple[Unit, ...]) -> Text:
    """P6: who arrived when on the place, and what a unit arriving now would be."""
    order = worded(u.id for u in there)
    if any(e.when == "first" for e in effects):
        return T_(
            "arrival order: {units}; a unit arriving now is the last arrived, not the first "
            "({first} is)",
            units=order,
            first=there[0].id,
        )
    return T_("arrival order: {units}; a unit arriving now is the last arrived", units=order)


def place(subject: object, request: PlaceRequest, *, options: PlacesOptions) -> list[PlaceRuling]:
    """What ``request.place`` is and gives (P2, P6); see :class:`PlaceRuling`."""
    placemap = placemap_of(subject, "place")
    p = placemap.place(request.place)
    effects = effects_of(p, options)
    there = placemap.units_on(p.id)
    near = placemap.neighbours(p.id)
    ruling = PlaceRuling(
        place=p.id,
        name=p.label,
        type=p.type,
        parent=p.parent,
        lineage=p.lineage,
        encumbrance=p.encumbrance,
        cover=p.cover,
        sources=tuple((k, p.source(k)) for k in ("encumbrance", "cover", "effects")),
        effects=granted(effects),
        neighbours=tuple(
            Neighbour(place=n, junctions=refs(placemap.junctions_between(p.id, n))) for n in near
        ),
        occupants=_occupants(placemap, there, effects, obstruction_bonus(p, options)),
        arriving=granted(e for e in effects if not (e.when == "first" and there)),
        reasons=_reasons(p, effects, there, near),
    )
    return [ruling]
