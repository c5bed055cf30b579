"""The map of places as values (P1-P4): places with their effective characteristics,
junctions on the ways between adjacent places, units standing on places, and the
:mod:`networkx` graph joining them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx  # type: ignore[import-untyped, unused-ignore]

from arbitre.errors import RulesError
from arbitre.places.catalogue import DEFAULT_COVER, DEFAULT_ENCUMBRANCE, Effect

#: P3: a unit's obstruction when not stated.
DEFAULT_OBSTRUCTION = 1


@dataclass(frozen=True, slots=True)
class Place:
    """A place on the map with its effective characteristics (P2).

    ``sources`` says where encumbrance, cover and effects came from: ``stated``, a parent
    (catalogue type or place id) or ``default``. ``effects`` are the first stated along
    the parent chain; ``lineage_effects`` are those of every element of the chain, the
    place's own first (for the ``parent_effects: merge`` option).
    """

    id: str
    encumbrance: int = DEFAULT_ENCUMBRANCE
    cover: int = DEFAULT_COVER
    effects: tuple[Effect, ...] = ()
    type: str | None = None
    parent: str | None = None
    name: str = ""
    at: tuple[float, float] | None = None
    lineage: tuple[str, ...] = ()
    lineage_effects: tuple[Effect, ...] = ()
    sources: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        """The name to show: the stated name, else the type, else the id."""
        return self.name or self.type or self.id

    def source(self, characteristic: str) -> str:
        return dict(self.sources).get(characteristic, "stated")


@dataclass(frozen=True, slots=True)
class Junction:
    """A junction on the way between two adjacent places (P4): nobody stops on it."""

    id: str
    kind: str
    between: tuple[str, str]
    text: str = ""
    encumbrance: int = 0
    ranged_reduction: int = 0
    blocks_ranged: bool = False
    bleeding: int = 0


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit on a place: its side, movement points, obstruction (P3), arrival order."""

    id: str
    side: str
    place: str
    movement: int | None = None
    obstruction: int = DEFAULT_OBSTRUCTION
    arrived: int = 1
    name: str = ""


@dataclass(frozen=True, slots=True)
class PlaceMap:
    """Places, the ways between adjacent ones with their junctions, and units (P1-P4).

    ``graph`` is an undirected :mod:`networkx` graph on place ids; each edge carries
    ``junctions``, the ids of the junctions crossed on that way, in file order. ``rules``
    is the ruleset a map of places is ruled by (its questions are found through it).
    """

    places: tuple[Place, ...]
    adjacent: tuple[tuple[str, str], ...] = ()
    junctions: tuple[Junction, ...] = ()
    units: tuple[Unit, ...] = ()
    name: str = ""
    options: tuple[tuple[str, Any], ...] = ()
    rules: str = "places"
    graph: Any = field(init=False, repr=False, compare=False)
    _by_id: dict[str, Place | Junction | Unit] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        graph: Any = nx.Graph()
        graph.add_nodes_from(p.id for p in self.places)
        for a, b in self.adjacent:
            graph.add_edge(a, b, junctions=())
        for j in self.junctions:
            graph.edges[j.between]["junctions"] += (j.id,)
        items: tuple[Place | Junction | Unit, ...] = (*self.places, *self.junctions, *self.units)
        object.__setattr__(self, "graph", graph)
        object.__setattr__(self, "_by_id", {item.id: item for item in items})

    def _find(self, ident: str, cls: type[Any], what: str, among: Iterable[str]) -> Any:
        found = self._by_id.get(ident)
        if isinstance(found, cls):
            return found
        known = ", ".join(among) or "none"
        other = f" ({ident!r} is a {type(found).__name__.lower()})" if found else ""
        raise RulesError(f"unknown {what} id {ident!r}{other} ({what}s: {known})")

    def place(self, ident: str) -> Place:
        """The place of this id; a RulesError naming the known places otherwise."""
        found: Place = self._find(ident, Place, "place", (p.id for p in self.places))
        return found

    def unit(self, ident: str) -> Unit:
        """The unit of this id; a RulesError naming the known units otherwise."""
        found: Unit = self._find(ident, Unit, "unit", (u.id for u in self.units))
        return found

    def junction(self, ident: str) -> Junction:
        """The junction of this id; a RulesError naming the known junctions otherwise."""
        found: Junction = self._find(ident, Junction, "junction", (j.id for j in self.junctions))
        return found

    def neighbours(self, place: str) -> tuple[str, ...]:
        """The places side by side with ``place`` (P1), in file order."""
        self.place(place)
        near = set(self.graph.neighbors(place))
        return tuple(p.id for p in self.places if p.id in near)

    def junctions_between(self, a: str, b: str) -> tuple[Junction, ...]:
        """The junctions crossed going from ``a`` to adjacent ``b`` (P4)."""
        return tuple(self.junction(j) for j in self.graph.edges[a, b]["junctions"])

    def units_on(self, place: str) -> tuple[Unit, ...]:
        """The units on ``place``, first arrived first."""
        return tuple(sorted((u for u in self.units if u.place == place), key=lambda u: u.arrived))

    def sides(self) -> tuple[str, ...]:
        """The sides, in file order."""
        return tuple(dict.fromkeys(u.side for u in self.units))
