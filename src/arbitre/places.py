"""A map of places instead of a gridded battlemap (P1-P6, seed 003): values and loading.

A :class:`PlaceMap` is a set of places (tiles or cards) joined where they are side by side
(P1), with junctions on some of those ways (P4) and units standing on places. A place has
an encumbrance (default 3, never below 1) and a cover (default 0, never below 0), an
optional parent element it inherits every unstated characteristic from, and effects
granted on arrival (P2, P6). The seed's places and junction kinds are shipped as data
(``data/places.yaml``) and found by French name, accents optional, or English alias.

Places scenarios (SCENARIO.md, "A places scenario") load with :func:`load_places` or
:func:`loads_places`; a bad file raises one :class:`ScenarioError` listing every problem
with its path. Additions to SCENARIO.md: a place may state ``name``, ``parent`` (a place
id of the map or a catalogue type), ``effects`` (the structured form of data/places.yaml)
and ``at: [x, y]`` (its position when drawn); a unit may state ``name``; the third item
of an adjacency may state junction ``id`` and several kinds (``junction: [Porte, Brume]``);
``name``, ``rules: places``, ``options``, and the golden-test keys ``cites`` and
``expect`` (ignored) are accepted at the top.

This is core: it knows the data and the graph, never a ruling (those are in
:mod:`arbitre.rules.placemap`).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Annotated, Any, Literal, NamedTuple

import networkx as nx  # type: ignore[import-untyped, unused-ignore]
import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError
from pydantic_core import ErrorDetails

from arbitre.errors import Problem, RulesError, ScenarioError
from arbitre.scenario import _kind, _parse, _path, _problem, _show, read_document
from arbitre.text import fold

__all__ = [
    "Effect", "Junction", "JunctionKind", "Place", "PlaceMap", "PlaceType", "Unit",
    "catalogue", "find_junction_kind", "find_place_type", "fold", "is_places_document",
    "load_places", "loads_places", "places_from_dict",
]

#: P2 defaults and floors.
DEFAULT_ENCUMBRANCE, MIN_ENCUMBRANCE = 3, 1
DEFAULT_COVER, MIN_COVER = 0, 0
#: P3: a unit's obstruction when not stated.
DEFAULT_OBSTRUCTION = 1

EffectKind = Literal["stat", "resource", "bleeding", "untargetable", "obstruction",
                     "final_place_only"]
When = Literal["always", "first", "last"]
Per = Literal["arrival", "missed_melee_attack"]


# -- the catalogue (P4, P6) ---------------------------------------------------------------


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

    def describe(self) -> str:
        """The effect in English words."""
        cond = {"always": "", "first": "if first arrived: ", "last": "if last arrived: "}
        head = cond[self.when]
        if self.kind in ("stat", "resource"):
            what = stat_label(self.name)
            gain = f"{what} {self.amount:+d}"
            return head + (f"resource {gain}" if self.kind == "resource" else gain)
        if self.kind == "bleeding":
            tail = " on each missed melee attack" if self.per == "missed_melee_attack" else ""
            return f"{head}bleeding {self.amount}{tail}"
        if self.kind == "untargetable":
            return f"{head}cannot be targeted by ranged weapons"
        if self.kind == "obstruction":
            return f"{head}obstruction of every unit present {self.amount:+d}"
        return f"{head}ranged attacks: only the final place counts, range {self.amount:+d}"


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


def _key_map(items: Iterable[PlaceType | JunctionKind]) -> dict[str, Any]:
    return {fold(n): item for item in items for n in (item.name, *item.aliases)}


@cache
def catalogue() -> Catalogue:
    """The shipped catalogue (data/places.yaml), read once."""
    text = (resources.files("arbitre") / "data" / "places.yaml").read_text(encoding="utf-8")
    doc = CatalogueDoc.model_validate(yaml.safe_load(text))
    places = tuple(
        PlaceType(p.name, tuple(p.fr + p.en), p.text, p.encumbrance, p.cover, p.parent,
                  tuple(e.effect(p.name) for e in p.effects) if p.effects is not None else None)
        for p in doc.places)
    junctions = tuple(
        JunctionKind(j.name, tuple(j.fr + j.en), j.text, j.encumbrance, j.ranged_reduction,
                     j.blocks_ranged, j.bleeding) for j in doc.junctions)
    stats = tuple((k, v["fr"], v["en"]) for k, v in doc.stats.items())
    return Catalogue(places, junctions, stats)


@cache
def _places_by_key() -> dict[str, PlaceType]:
    return _key_map(catalogue().places)


@cache
def _junctions_by_key() -> dict[str, JunctionKind]:
    return _key_map(catalogue().junctions)


def stat_label(name: str) -> str:
    """The English name of a stat or resource id (``vivacite`` -> ``quickness``)."""
    for ident, _fr, en in catalogue().stats:
        if ident == name:
            return en
    return name


def _unknown(kind: str, name: str, known: Iterable[str]) -> str:
    names = list(known)
    near = difflib.get_close_matches(fold(name), [fold(n) for n in names], n=3, cutoff=0.6)
    hint = [n for n in names if fold(n) in near]
    tail = f"did you mean {', '.join(hint)}?" if hint else f"known: {', '.join(names)}"
    return f"unknown {kind} {name!r} ({tail})"


def find_place_type(name: str) -> PlaceType:
    """The catalogue place of this French name or English alias (P6), accents optional."""
    found = _places_by_key().get(fold(name))
    if found is None:
        raise RulesError(_unknown("place type", name, (p.name for p in catalogue().places)))
    return found


def find_junction_kind(name: str) -> JunctionKind:
    """The catalogue junction of this French name or English alias (P4), accents optional."""
    found = _junctions_by_key().get(fold(name))
    if found is None:
        names = (j.name for j in catalogue().junctions)
        raise RulesError(_unknown("junction kind", name, names))
    return found


# -- the map (P1-P4) ----------------------------------------------------------------------


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
    ``junctions``, the ids of the junctions crossed on that way, in file order.
    """

    places: tuple[Place, ...]
    adjacent: tuple[tuple[str, str], ...] = ()
    junctions: tuple[Junction, ...] = ()
    units: tuple[Unit, ...] = ()
    name: str = ""
    options: tuple[tuple[str, Any], ...] = ()
    graph: Any = field(init=False, repr=False, compare=False)
    _by_id: dict[str, Place | Junction | Unit] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        graph = nx.Graph()
        graph.add_nodes_from(p.id for p in self.places)
        for a, b in self.adjacent:
            graph.add_edge(a, b, junctions=())
        for j in self.junctions:
            graph.edges[j.between]["junctions"] += (j.id,)
        by_id: dict[str, Place | Junction | Unit] = {}
        items: tuple[Place | Junction | Unit, ...] = (*self.places, *self.junctions, *self.units)
        for item in items:
            by_id[item.id] = item
        object.__setattr__(self, "graph", graph)
        object.__setattr__(self, "_by_id", by_id)

    def _find(self, ident: str, cls: type[Any], what: str, among: Iterable[str]) -> Any:
        found = self._by_id.get(ident)
        if isinstance(found, cls):
            return found
        known = ", ".join(among) or "none"
        other = f" ({ident!r} is a {type(found).__name__.lower()})" if found else ""
        raise RulesError(f"unknown {what} id {ident!r}{other} ({what}s: {known})")

    def place(self, ident: str) -> Place:
        """The place of this id; a RulesError naming the known places otherwise."""
        return self._find(ident, Place, "place", (p.id for p in self.places))  # type: ignore[no-any-return]

    def unit(self, ident: str) -> Unit:
        """The unit of this id; a RulesError naming the known units otherwise."""
        return self._find(ident, Unit, "unit", (u.id for u in self.units))  # type: ignore[no-any-return]

    def junction(self, ident: str) -> Junction:
        """The junction of this id; a RulesError naming the known junctions otherwise."""
        return self._find(ident, Junction, "junction", (j.id for j in self.junctions))  # type: ignore[no-any-return]

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
        return tuple(sorted((u for u in self.units if u.place == place),
                            key=lambda u: u.arrived))

    def sides(self) -> tuple[str, ...]:
        """The sides, in file order."""
        return tuple(dict.fromkeys(u.side for u in self.units))


def is_places_document(doc: object) -> bool:
    """Whether a parsed scenario document is a places scenario (it has ``places``)."""
    return isinstance(doc, dict) and "places" in doc


def load_places(path: str | os.PathLike[str], *, source: str | None = None) -> PlaceMap:
    """The map of a places scenario file (YAML, or JSON by suffix or content)."""
    doc, source = read_document(path, source=source)
    return places_from_dict(doc, source=source)


def loads_places(text: str, *, source: str | None = None) -> PlaceMap:
    """The map of a places scenario given as YAML or JSON text."""
    if not isinstance(text, str):
        raise ScenarioError([Problem("", f"expected text, got {_kind(text)}")], source=source)
    return places_from_dict(_parse(text, None, source), source=source)


def places_from_dict(doc: object, *, source: str | None = None) -> PlaceMap:
    """The map of a parsed places document; ScenarioError listing every problem if bad."""
    placemap, problems = _check(doc)
    if placemap is None:
        raise ScenarioError(problems, source=source)
    return placemap


# -- documents and their checks -----------------------------------------------------------

Ident = Annotated[str, Field(strict=True, min_length=1)]
Text = Annotated[str, Field(strict=True)]
Coord = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-1e9, le=1e9)]
XY = Annotated[list[Coord], Field(min_length=2, max_length=2)]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EffectDoc(_Doc):
    """A P6 effect in its structured form (data/places.yaml describes the kinds)."""

    kind: EffectKind
    name: Ident | None = Field(None, description="the stat or resource (kind stat, resource)")
    amount: StrictInt = 0
    when: When = "always"
    per: Per = "arrival"

    def effect(self, source: str) -> Effect:
        return Effect(self.kind, self.name or "", self.amount, self.when, self.per, source)


class PlaceTypeDoc(_Doc):
    name: Text
    fr: list[Text] = []
    en: list[Text] = []
    text: Text
    encumbrance: Annotated[StrictInt, Field(ge=MIN_ENCUMBRANCE)] | None = None
    cover: Annotated[StrictInt, Field(ge=MIN_COVER)] | None = None
    parent: Text | None = None
    effects: list[EffectDoc] | None = None


class JunctionKindDoc(_Doc):
    name: Text
    fr: list[Text] = []
    en: list[Text] = []
    text: Text
    encumbrance: StrictInt = 0
    ranged_reduction: StrictInt = 0
    blocks_ranged: bool = False
    bleeding: StrictInt = 0


class CatalogueDoc(_Doc):
    stats: dict[str, dict[str, str]]
    places: list[PlaceTypeDoc]
    junctions: list[JunctionKindDoc]


class PlaceDoc(_Doc):
    """A place of a places scenario (P2)."""

    id: Ident
    name: Text | None = None
    type: Text | None = Field(None, description="a catalogue place (P6), French or English")
    parent: Text | None = Field(None, description="a place id of this map or a catalogue type")
    encumbrance: Annotated[StrictInt, Field(ge=MIN_ENCUMBRANCE)] | None = None
    cover: Annotated[StrictInt, Field(ge=MIN_COVER)] | None = None
    effects: list[EffectDoc] | None = None
    at: XY | None = Field(None, description="where to draw it")


class UnitDoc(_Doc):
    """A unit standing on a place (P3)."""

    id: Ident
    name: Text | None = None
    side: Ident
    place: Ident
    movement: Annotated[StrictInt, Field(ge=0)] | None = None
    obstruction: Annotated[StrictInt, Field(ge=0)] = DEFAULT_OBSTRUCTION
    arrived: Annotated[StrictInt, Field(ge=1)] | None = None


class WayDoc(_Doc):
    """The third item of an adjacency: the junction(s) on that way (P4)."""

    junction: Text | list[Text]
    id: Ident | list[Ident] | None = None


class PlacesDoc(_Doc):
    """A places scenario file, format 1 (SCENARIO.md)."""

    arbitre: Literal[1]
    name: Text | None = None
    rules: Text | None = Field(None, description="places, if stated")
    options: dict[str, Any] | None = None
    cites: list[Text] | None = Field(None, description="golden tests: rule IDs; ignored")
    expect: Any = Field(None, description="golden tests: expected rulings; ignored")
    places: Annotated[list[PlaceDoc], Field(min_length=1)]
    adjacent: list[Any] = []
    units: list[UnitDoc] = []


_FIELDS = sorted({n for d in (PlacesDoc, PlaceDoc, UnitDoc, WayDoc, EffectDoc)
                  for n in d.model_fields})


def _to_problem(err: ErrorDetails) -> Problem:
    if err["type"] == "extra_forbidden":
        near = difflib.get_close_matches(str(err["loc"][-1]), _FIELDS, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        return Problem(_path(err["loc"]), f"unknown field{hint}")
    return _problem(err)


def _validate(cls: type[_Doc], value: object, prefix: tuple[int | str, ...],
              problems: list[Problem] | None) -> Any:
    try:
        return cls.model_validate(value)
    except ValidationError as exc:
        if problems is not None:
            for err in exc.errors(include_url=False):
                err["loc"] = prefix + err["loc"]
                problems.append(_to_problem(err))
        return None


class _Way(NamedTuple):
    path: str
    a: str
    b: str
    kinds: tuple[tuple[str, JunctionKind], ...]  # (id, kind)


def _check(doc: object) -> tuple[PlaceMap | None, list[Problem]]:
    """The map (None if any problem) and every problem of a places document."""
    if not isinstance(doc, dict):
        return None, [Problem("", f"a places scenario must be a mapping (arbitre, places, "
                                  f"adjacent, units), got {_kind(doc)}")]
    problems: list[Problem] = []
    if "arbitre" not in doc:
        problems.append(Problem("arbitre", "required"))
    elif type(doc["arbitre"]) is not int or doc["arbitre"] != 1:
        problems.append(Problem("arbitre", f"must be 1, got {_show(doc['arbitre'])}"))
    rest = {k: v for k, v in doc.items() if k not in ("places", "units", "adjacent")}
    rest |= {"arbitre": 1, "places": [{"id": "-"}]}  # checked apart
    header: PlacesDoc | None = _validate(PlacesDoc, rest, (), problems)
    if not isinstance(doc.get("places"), list) or not doc["places"]:
        problems.append(Problem("places", "required: a non-empty list of places"))
    places = _items(doc.get("places"), PlaceDoc, "places", problems)
    units = _items(doc.get("units"), UnitDoc, "units", problems)
    if header is not None and header.rules is not None and fold(header.rules) != "places":
        problems.append(Problem("rules", f"a places scenario uses the rules 'places', "
                                         f"got {header.rules!r}"))
    raw = doc.get("places")
    place_ids = {p["id"] for p in (raw if isinstance(raw, list) else [])
                 if isinstance(p, dict) and isinstance(p.get("id"), str)}
    types = _types(places, place_ids, problems)
    ways = _ways(doc.get("adjacent"), place_ids, problems)
    junction_ids = {j for w in ways for j, _ in w.kinds}
    problems += _duplicate_ids(doc, ways)
    for i, u in units:
        if u.place in junction_ids:
            problems.append(Problem(f"units[{i}].place", f"{u.place!r} is a junction: nobody "
                                    "can stop on a junction, a unit stands on a place (P4)"))
        elif u.place not in place_ids:
            problems.append(Problem(f"units[{i}].place", _unknown_id("place", u.place,
                                                                     place_ids)))
    arrived = _arrivals(units, problems)
    built = [_place(d, places, types, problems, i) for i, d in places]
    if problems or header is None:
        return None, problems
    return PlaceMap(
        places=tuple(p for p in built if p is not None),
        adjacent=tuple((w.a, w.b) for w in ways),
        junctions=tuple(Junction(j, k.name, (w.a, w.b), k.text, k.encumbrance,
                                 k.ranged_reduction, k.blocks_ranged, k.bleeding)
                        for w in ways for j, k in w.kinds),
        units=tuple(Unit(u.id, u.side, u.place, u.movement, u.obstruction, arrived[i],
                         u.name or "") for i, u in units),
        name=header.name or "",
        options=tuple(sorted((header.options or {}).items())),
    ), []


def _items(raw: object, cls: type[_Doc], key: str, problems: list[Problem]) -> list[Any]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append(Problem(key, f"must be a list, got {_show(raw)}"))
        return []
    found = ((i, _validate(cls, item, (key, i), problems)) for i, item in enumerate(raw))
    return [(i, d) for i, d in found if d is not None]


def _unknown_id(what: str, ident: str, known: Iterable[str]) -> str:
    names = sorted(known)
    near = difflib.get_close_matches(ident, names, n=1)
    hint = f"did you mean {near[0]!r}?" if near else f"{what}s: {', '.join(names) or 'none'}"
    return f"unknown {what} id {ident!r} ({hint})"


def _types(places: list[tuple[int, PlaceDoc]], place_ids: set[str],
           problems: list[Problem]) -> dict[str, PlaceType]:
    """Each place's catalogue type; unknown types and parents are problems (P2, P6)."""
    types: dict[str, PlaceType] = {}
    names = [p.name for p in catalogue().places]
    for i, d in places:
        for k, e in enumerate(d.effects or []):
            if e.kind in ("stat", "resource") and e.name is None:
                problems.append(Problem(f"places[{i}].effects[{k}].name",
                                        f"required for an effect of kind {e.kind}"))
        if d.type is not None:
            found = _places_by_key().get(fold(d.type))
            if found is None:
                problems.append(Problem(f"places[{i}].type", _unknown("place type", d.type,
                                                                     names)))
            else:
                types[d.id] = found
        if d.parent is not None and d.parent not in place_ids \
                and fold(d.parent) not in _places_by_key():
            problems.append(Problem(f"places[{i}].parent", f"unknown parent {d.parent!r}: "
                                    "neither a place id of this map nor a catalogue type"))
    return types


def _ways(raw: object, place_ids: set[str], problems: list[Problem]) -> list[_Way]:
    """The adjacencies (P1) and the junctions on them (P4), each checked."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append(Problem("adjacent", f"must be a list, got {_show(raw)}"))
        return []
    ways: list[_Way] = []
    seen: dict[frozenset[str], str] = {}
    for k, item in enumerate(raw):
        path = f"adjacent[{k}]"
        if not isinstance(item, list) or len(item) not in (2, 3):
            problems.append(Problem(path, "must be [place, place] or [place, place, "
                                          f"{{junction: KIND}}], got {_show(item)}"))
            continue
        ok = True
        for n in (0, 1):
            if not isinstance(item[n], str):
                problems.append(Problem(f"{path}[{n}]", f"must be a place id, got "
                                                        f"{_show(item[n])}"))
                ok = False
            elif item[n] not in place_ids:
                problems.append(Problem(f"{path}[{n}]", _unknown_id("place", item[n],
                                                                    place_ids)))
                ok = False
        if ok and item[0] == item[1]:
            problems.append(Problem(path, f"a place cannot be adjacent to itself: {item[0]!r}"))
            ok = False
        pair = frozenset(item[:2]) if ok else frozenset()
        if ok and pair in seen:
            problems.append(Problem(path, f"{item[0]!r} and {item[1]!r} are already adjacent "
                                          f"({seen[pair]}); put every junction of a way in "
                                          "one entry"))
            ok = False
        seen.setdefault(pair, path)
        kinds = _way_junctions(path, item, problems) if len(item) == 3 else ()
        if ok and kinds is not None:
            ids = kinds or ()
            ways.append(_Way(path, item[0], item[1], tuple(
                (j or (f"{item[0]}~{item[1]}" + (f"~{n + 1}" if n else "")), kind)
                for n, (j, kind) in enumerate(ids))))
    return ways


def _way_junctions(path: str, item: list[Any],
                   problems: list[Problem]) -> tuple[tuple[str | None, JunctionKind], ...] | None:
    way: WayDoc | None = _validate(WayDoc, item[2], (path + "[2]",), problems)
    if way is None:
        return None
    names = [way.junction] if isinstance(way.junction, str) else way.junction
    ids: list[str | None] = ([way.id] if isinstance(way.id, str) else list(way.id or [])) or [
        None] * len(names)
    if len(ids) != len(names):
        problems.append(Problem(f"{path}[2].id", f"{len(names)} junctions need {len(names)} "
                                                 f"ids, got {len(ids)}"))
        return None
    out: list[tuple[str | None, JunctionKind]] = []
    known = [j.name for j in catalogue().junctions]
    for n, name in enumerate(names):
        found = _junctions_by_key().get(fold(name))
        if found is None:
            where = f"{path}[2].junction" + (f"[{n}]" if isinstance(way.junction, list) else "")
            problems.append(Problem(where, _unknown("junction kind", name, known)))
        else:
            out.append((ids[n], found))
    return tuple(out) if len(out) == len(names) else None


def _duplicate_ids(doc: dict[Any, Any], ways: list[_Way]) -> list[Problem]:
    """Ids are unique among places, junctions and units."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}

    def see(ident: object, path: str) -> None:
        if not isinstance(ident, str):
            return
        if ident in seen:
            problems.append(Problem(path, f"duplicate id {ident!r} (also {seen[ident]})"))
        seen.setdefault(ident, path)

    for key in ("places", "units"):
        items = doc.get(key)
        for i, item in enumerate(items if isinstance(items, list) else []):
            see(item.get("id") if isinstance(item, dict) else None, f"{key}[{i}].id")
        if key == "places":
            for w in ways:
                for j, _ in w.kinds:
                    see(j, f"{w.path}[2].id")
    return problems


def _arrivals(units: list[tuple[int, UnitDoc]], problems: list[Problem]) -> dict[int, int]:
    """Arrival order on each place (1 = first); default: file order among its units."""
    order: dict[int, int] = {}
    taken: dict[tuple[str, int], str] = {}
    count: dict[str, int] = {}
    for i, u in units:
        count[u.place] = count.get(u.place, 0) + 1
        order[i] = u.arrived if u.arrived is not None else count[u.place]
        key = (u.place, order[i])
        if key in taken:
            problems.append(Problem(f"units[{i}].arrived", f"{taken[key]} also arrived "
                                    f"{order[i]} on {u.place!r}; give each unit there its "
                                    "own arrival order"))
        taken.setdefault(key, u.id)
    return order


class _Entry(NamedTuple):
    label: str
    encumbrance: int | None
    cover: int | None
    effects: tuple[Effect, ...] | None
    parent: str | None


def _place(d: PlaceDoc, places: list[tuple[int, PlaceDoc]], types: dict[str, PlaceType],
           problems: list[Problem], i: int) -> Place | None:
    """A place's effective characteristics along its parent chain (P2)."""
    docs = {p.id: p for _, p in places}
    chain: list[_Entry] = []
    seen: list[str] = []
    current: tuple[str, str] | None = ("place", d.id)
    while current is not None:
        kind, name = current
        if f"{kind}:{name}" in seen:
            loop = " -> ".join([*(s.split(":", 1)[1] for s in seen), name])
            problems.append(Problem(f"places[{i}].parent", f"the parent chain loops: {loop}"))
            return None
        seen.append(f"{kind}:{name}")
        if kind == "place":
            p = docs[name]
            own = tuple(e.effect(p.id) for e in p.effects) if p.effects is not None else None
            t = types.get(p.id)
            chain.append(_Entry(p.id, p.encumbrance, p.cover, own, None))
            if t is not None:
                chain.append(_Entry(t.name, t.encumbrance, t.cover, t.effects, t.parent))
                seen.append(f"type:{t.name}")
            parent = p.parent if p.parent is not None else (t.parent if t else None)
        else:
            t = _places_by_key()[fold(name)]
            chain.append(_Entry(t.name, t.encumbrance, t.cover, t.effects, t.parent))
            parent = t.parent
        if parent is None or (parent not in docs and fold(parent) not in _places_by_key()):
            current = None
        else:
            current = ("place", parent) if parent in docs else (
                "type", _places_by_key()[fold(parent)].name)

    def pick(attr: str, default: Any) -> tuple[Any, str]:
        for n, entry in enumerate(chain):
            value = getattr(entry, attr)
            if value is not None:
                return value, "stated" if n == 0 else entry.label
        return default, "default"

    encumbrance, enc_from = pick("encumbrance", DEFAULT_ENCUMBRANCE)
    cover, cover_from = pick("cover", DEFAULT_COVER)
    effects, eff_from = pick("effects", ())
    t = types.get(d.id)
    parent = d.parent if d.parent is not None else (t.parent if t else None)
    return Place(
        id=d.id, encumbrance=max(MIN_ENCUMBRANCE, encumbrance), cover=max(MIN_COVER, cover),
        effects=effects, type=t.name if t else None, parent=parent, name=d.name or "",
        at=(d.at[0], d.at[1]) if d.at is not None else None,
        lineage=tuple(e.label for e in chain[1:]),
        lineage_effects=tuple(x for e in chain for x in (e.effects or ())),
        sources=(("encumbrance", enc_from), ("cover", cover_from), ("effects", eff_from)),
    )
