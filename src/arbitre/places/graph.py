"""The map of places as values (P1-P4): places with their effective characteristics,
junctions on the ways between adjacent places, units standing on places, and the
:mod:`networkx` graph joining them."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from arbitre.errors import RulesError
from arbitre.i18n import T_, Text
from arbitre.places.catalogue import DEFAULT_COVER, DEFAULT_ENCUMBRANCE, Effect
from arbitre.problems import show

#: P3: a unit's obstruction when not stated.
DEFAULT_OBSTRUCTION = 1
#: Ids named in an "unknown id" message before the rest are only counted.
MAX_NAMED = 12


def short(name: str) -> str:
    """An id as a message names it: whole, or cut with an ellipsis past 40 characters."""
    return name if len(name) <= 40 else name[:37] + "..."


class Lineage:
    """One element of a parent chain (P2) and the rest of the chain after it.

    Chains are shared: a place's chain is its own statement, then its catalogue type, then
    its parent's chain, the very same object; so a map of n places holds at most n links
    plus the catalogue's, whatever the depth, and each link knows, for each
    characteristic, the first element from it on that states it (found in O(1) when the
    link is made). Immutable; equal when the chains state the same things in the same
    order: each link keeps a 128-bit BLAKE2 digest of its statement and of the rest's
    digest, made once with the link, so comparing two chains is one comparison, never a
    walk (comparing the places of two maps stays linear).
    """

    __slots__ = (
        "cover",
        "digest",
        "effects",
        "encumbrance",
        "firsts",
        "label",
        "length",
        "rest",
    )

    label: str
    encumbrance: int | None
    cover: int | None
    effects: tuple[Effect, ...] | None
    rest: Lineage | None
    length: int
    firsts: tuple[tuple[Any, str] | None, ...]  # encumbrance, cover, effects: (value, label)
    digest: bytes

    def __init__(
        self,
        label: str,
        encumbrance: int | None,
        cover: int | None,
        effects: tuple[Effect, ...] | None,
        rest: Lineage | None = None,
    ) -> None:
        later = rest.firsts if rest is not None else (None, None, None)
        own = (encumbrance, cover, effects)
        firsts = tuple((v, label) if v is not None else f for v, f in zip(own, later, strict=True))
        digest = hashlib.blake2b(
            repr((label, encumbrance, cover, effects)).encode("utf-8", "surrogatepass")
            + (rest.digest if rest is not None else b""),
            digest_size=16,
        ).digest()
        for name, value in (
            ("label", label),
            ("encumbrance", encumbrance),
            ("cover", cover),
            ("effects", effects),
            ("rest", rest),
            ("length", 1 + (rest.length if rest is not None else 0)),
            ("firsts", firsts),
            ("digest", digest),
        ):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Lineage is immutable (cannot set {name!r})")

    def __iter__(self) -> Iterator[Lineage]:
        link: Lineage | None = self
        while link is not None:
            yield link
            link = link.rest

    def __len__(self) -> int:
        return self.length

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Lineage):
            return NotImplemented
        return self.length == other.length and self.digest == other.digest

    def __hash__(self) -> int:
        return hash(self.digest)

    def __repr__(self) -> str:
        labels = [link.label for link, _ in zip(self, range(4), strict=False)]
        more = f" ... ({self.length} elements)" if self.length > len(labels) else ""
        return f"Lineage({' -> '.join(labels)}{more})"

    def first(self, characteristic: str) -> tuple[Any, str] | None:
        """The first stated ``encumbrance``, ``cover`` or ``effects`` from this element
        on, and the label of the element stating it; None when none does."""
        return self.firsts[("encumbrance", "cover", "effects").index(characteristic)]

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(link.label for link in self)

    @property
    def all_effects(self) -> tuple[Effect, ...]:
        """The effects of every element, this one's first."""
        return tuple(e for link in self for e in (link.effects or ()))


@dataclass(frozen=True, slots=True)
class Place:
    """A place on the map with its effective characteristics (P2).

    ``sources`` says where encumbrance, cover and effects came from: ``stated``, a parent
    (catalogue type or place id) or ``default``. ``effects`` are the first stated along
    the parent chain. ``chain`` is the parent chain, the place's own statement first
    (:class:`Lineage`, shared with the places it is the parent of); ``lineage`` are the
    labels of the chain after the place itself and ``lineage_effects`` the effects of
    every element of the chain, the place's own first (for the ``parent_effects: merge``
    option): both are walked from ``chain`` when asked, so they cost the chain's length.
    """

    id: str
    encumbrance: int = DEFAULT_ENCUMBRANCE
    cover: int = DEFAULT_COVER
    effects: tuple[Effect, ...] = ()
    type: str | None = None
    parent: str | None = None
    name: str = ""
    at: tuple[float, float] | None = None
    chain: Lineage | None = None
    sources: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        """The name to show: the stated name, else the type, else the id."""
        return self.name or self.type or self.id

    @property
    def lineage(self) -> tuple[str, ...]:
        """The elements the place inherits from, nearest first (P2)."""
        rest = self.chain.rest if self.chain is not None else None
        return rest.labels if rest is not None else ()

    @property
    def lineage_effects(self) -> tuple[Effect, ...]:
        """The effects of every element of the chain, the place's own first."""
        return self.chain.all_effects if self.chain is not None else self.effects

    @property
    def root(self) -> str | None:
        """The last element of the chain after the place itself (its family), if any."""
        if self.chain is None or self.chain.rest is None:
            return None
        *_, last = self.chain.rest
        return last.label

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
    lang: str | None = field(default=None, compare=False)
    graph: Any = field(init=False, repr=False, compare=False)
    _by_id: dict[str, Place | Junction | Unit] = field(init=False, repr=False, compare=False)
    _order: dict[str, int] = field(init=False, repr=False, compare=False)
    _units_on: dict[str, tuple[Unit, ...]] = field(init=False, repr=False, compare=False)
    _between: dict[tuple[str, str], tuple[Junction, ...]] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        import networkx as nx  # type: ignore[import-untyped, unused-ignore]

        graph: Any = nx.Graph()
        graph.add_nodes_from(p.id for p in self.places)
        for a, b in self.adjacent:
            graph.add_edge(a, b, junctions=())
        for j in self.junctions:
            graph.edges[j.between]["junctions"] += (j.id,)
        items: tuple[Place | Junction | Unit, ...] = (*self.places, *self.junctions, *self.units)
        between: dict[tuple[str, str], tuple[Junction, ...]] = {}
        for a, b in self.adjacent:
            between[a, b] = between[b, a] = ()
        for j in self.junctions:
            a, b = j.between
            between[a, b] = between[b, a] = (*between[a, b], j)
        there: dict[str, list[Unit]] = {}
        for u in self.units:
            there.setdefault(u.place, []).append(u)
        object.__setattr__(self, "graph", graph)
        object.__setattr__(self, "_by_id", {item.id: item for item in items})
        object.__setattr__(self, "_order", {p.id: k for k, p in enumerate(self.places)})
        object.__setattr__(self, "_between", between)
        object.__setattr__(
            self,
            "_units_on",
            {p: tuple(sorted(us, key=lambda u: u.arrived)) for p, us in there.items()},
        )

    def _find(self, ident: str, cls: type[Any], among: Iterable[str]) -> Any:
        found = self._by_id.get(ident)
        if isinstance(found, cls):
            return found
        names = list(itertools.islice(among, MAX_NAMED + 1))
        known: Text | str = ", ".join(short(n) for n in names[:MAX_NAMED])
        if len(names) > MAX_NAMED:
            total = sum(isinstance(v, cls) for v in self._by_id.values())
            known = T_("{names}, ... ({n} in all)", names=known, n=total)
        raise RulesError(_unknown(cls, show(ident), _is_a(show(ident), found), known))

    def place(self, ident: str) -> Place:
        """The place of this id; a RulesError naming the known places otherwise."""
        found = self._by_id.get(ident)
        if type(found) is Place:
            return found
        known: Place = self._find(ident, Place, (p.id for p in self.places))
        return known

    def unit(self, ident: str) -> Unit:
        """The unit of this id; a RulesError naming the known units otherwise."""
        found: Unit = self._find(ident, Unit, (u.id for u in self.units))
        return found

    def junction(self, ident: str) -> Junction:
        """The junction of this id; a RulesError naming the known junctions otherwise."""
        found: Junction = self._find(ident, Junction, (j.id for j in self.junctions))
        return found

    def neighbours(self, place: str) -> tuple[str, ...]:
        """The places side by side with ``place`` (P1), in file order."""
        self.place(place)
        return tuple(sorted(self.graph.neighbors(place), key=self._order.__getitem__))

    def junctions_between(self, a: str, b: str) -> tuple[Junction, ...]:
        """The junctions crossed going from ``a`` to adjacent ``b`` (P4), in file order; a
        RulesError if they are not adjacent."""
        found = self._between.get((a, b))
        if found is None:
            raise RulesError(T_("{a} and {b} are not adjacent", a=show(a), b=show(b)))
        return found

    def units_on(self, place: str) -> tuple[Unit, ...]:
        """The units on ``place``, first arrived first."""
        return self._units_on.get(place, ())

    def sides(self) -> tuple[str, ...]:
        """The sides, in file order."""
        return tuple(dict.fromkeys(u.side for u in self.units))


def _is_a(shown: str, found: object) -> Text | str:
    """What an id names when it is not of the kind asked for (`` ('x' is a unit)``)."""
    if isinstance(found, Place):
        return T_(" ({id} is a place)", id=shown)
    if isinstance(found, Unit):
        return T_(" ({id} is a unit)", id=shown)
    if isinstance(found, Junction):
        return T_(" ({id} is a junction)", id=shown)
    return ""


def _unknown(cls: type[Any], shown: str, other: Text | str, known: Text | str) -> Text:
    """The error for an id of no ``cls`` of the map: what it is, if anything, and the ids
    of that kind (``known``, empty when there are none)."""
    if cls is Unit:
        if not known:
            return T_("unknown unit id {id}{other} (units: none)", id=shown, other=other)
        return T_(
            "unknown unit id {id}{other} (units: {known})", id=shown, other=other, known=known
        )
    if cls is Junction:
        if not known:
            return T_("unknown junction id {id}{other} (junctions: none)", id=shown, other=other)
        return T_(
            "unknown junction id {id}{other} (junctions: {known})",
            id=shown,
            other=other,
            known=known,
        )
    if not known:
        return T_("unknown place id {id}{other} (places: none)", id=shown, other=other)
    return T_("unknown place id {id}{other} (places: {known})", id=shown, other=other, known=known)
