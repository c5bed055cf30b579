"""Loading a places scenario (SCENARIO.md, "A places scenario"): the document's fields,
every check with its path in the file, and the map built from it (P1-P4, P2's parent
chains).

A bad file raises one :class:`~arbitre.errors.ScenarioError` listing every problem.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import Field, StrictInt, ValidationError
from pydantic_core import ErrorDetails

from arbitre.errors import Problem, ScenarioError
from arbitre.places.catalogue import (
    DEFAULT_COVER,
    DEFAULT_ENCUMBRANCE,
    MIN_COVER,
    MIN_ENCUMBRANCE,
    Doc,
    Effect,
    EffectDoc,
    Ident,
    JunctionKind,
    PlaceType,
    Text,
    catalogue,
    junctions_by_key,
    places_by_key,
    unknown_name,
)
from arbitre.places.graph import DEFAULT_OBSTRUCTION, Junction, Place, PlaceMap, Unit
from arbitre.problems import kind as _kind
from arbitre.problems import path as _path
from arbitre.problems import problem as _problem
from arbitre.problems import show as _show
from arbitre.scenario import _parse, read_document
from arbitre.text import fold

Coord = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-1e9, le=1e9)]
XY = Annotated[list[Coord], Field(min_length=2, max_length=2)]


class PlaceDoc(Doc):
    """A place of a places scenario (P2)."""

    id: Ident
    name: Text | None = None
    type: Text | None = Field(None, description="a catalogue place (P6), French or English")
    parent: Text | None = Field(None, description="a place id of this map or a catalogue type")
    encumbrance: Annotated[StrictInt, Field(ge=MIN_ENCUMBRANCE)] | None = None
    cover: Annotated[StrictInt, Field(ge=MIN_COVER)] | None = None
    effects: list[EffectDoc] | None = None
    at: XY | None = Field(None, description="where to draw it")


class UnitDoc(Doc):
    """A unit standing on a place (P3)."""

    id: Ident
    name: Text | None = None
    side: Ident
    place: Ident
    movement: Annotated[StrictInt, Field(ge=0)] | None = None
    obstruction: Annotated[StrictInt, Field(ge=0)] = DEFAULT_OBSTRUCTION
    arrived: Annotated[StrictInt, Field(ge=1)] | None = None


class WayDoc(Doc):
    """The third item of an adjacency: the junction(s) on that way (P4)."""

    junction: Text | list[Text]
    id: Ident | list[Ident] | None = None


class PlacesDoc(Doc):
    """A places scenario file, format 1 (SCENARIO.md)."""

    arbitre: Literal[1]
    name: Text | None = None
    rules: Text | None = Field(None, description="places, if stated")
    options: dict[str, Any] | None = None
    cites: list[Text] | None = Field(None, description="golden tests: rule IDs; ignored")
    expect: Any = Field(None, description="golden tests: expected rulings; ignored")
    places: Annotated[list[PlaceDoc], Field(min_length=1)]
    adjacent: list[Any] = Field(default_factory=list)
    units: list[UnitDoc] = Field(default_factory=list)


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


# -- the checks ---------------------------------------------------------------------------

_FIELDS = sorted(
    {n for d in (PlacesDoc, PlaceDoc, UnitDoc, WayDoc, EffectDoc) for n in d.model_fields}
)


def _to_problem(err: ErrorDetails) -> Problem:
    if err["type"] == "extra_forbidden":
        near = difflib.get_close_matches(str(err["loc"][-1]), _FIELDS, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        return Problem(_path(err["loc"]), f"unknown field{hint}")
    return _problem(err)


def _validate(
    cls: type[Doc], value: object, prefix: tuple[int | str, ...], problems: list[Problem]
) -> Any:
    try:
        return cls.model_validate(value)
    except ValidationError as exc:
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
        got = _kind(doc)
        return None, [
            Problem(
                "",
                f"a places scenario must be a mapping (arbitre, places, adjacent, "
                f"units), got {got}",
            )
        ]
    problems: list[Problem] = []
    header = _header(doc, problems)
    places = _items(doc.get("places"), PlaceDoc, "places", problems)
    units = _items(doc.get("units"), UnitDoc, "units", problems)
    raw = doc.get("places")
    place_ids = {
        p["id"]
        for p in (raw if isinstance(raw, list) else [])
        if isinstance(p, dict) and isinstance(p.get("id"), str)
    }
    types = _types(places, place_ids, problems)
    ways = _ways(doc.get("adjacent"), place_ids, problems)
    problems += _duplicate_ids(doc, ways)
    _unit_places(units, place_ids, {j for w in ways for j, _ in w.kinds}, problems)
    arrived = _arrivals(units, problems)
    built = [_place(d, places, types, problems, i) for i, d in places]
    if problems or header is None:
        return None, problems
    return PlaceMap(
        places=tuple(p for p in built if p is not None),
        adjacent=tuple((w.a, w.b) for w in ways),
        junctions=tuple(_junction(j, k, w) for w in ways for j, k in w.kinds),
        units=tuple(_unit(u, arrived[i]) for i, u in units),
        name=header.name or "",
        options=tuple(sorted((header.options or {}).items())),
    ), []


def _header(doc: dict[Any, Any], problems: list[Problem]) -> PlacesDoc | None:
    """The top-level fields but places, adjacent and units (checked apart)."""
    if "arbitre" not in doc:
        problems.append(Problem("arbitre", "required"))
    elif type(doc["arbitre"]) is not int or doc["arbitre"] != 1:
        problems.append(Problem("arbitre", f"must be 1, got {_show(doc['arbitre'])}"))
    rest = {k: v for k, v in doc.items() if k not in ("places", "units", "adjacent")}
    rest |= {"arbitre": 1, "places": [{"id": "-"}]}
    header: PlacesDoc | None = _validate(PlacesDoc, rest, (), problems)
    if not isinstance(doc.get("places"), list) or not doc["places"]:
        problems.append(Problem("places", "required: a non-empty list of places"))
    if header is not None and header.rules is not None and fold(header.rules) != "places":
        problems.append(
            Problem("rules", f"a places scenario uses the rules 'places', got {header.rules!r}")
        )
    return header


def _junction(ident: str, kind: JunctionKind, way: _Way) -> Junction:
    return Junction(
        id=ident,
        kind=kind.name,
        between=(way.a, way.b),
        text=kind.text,
        encumbrance=kind.encumbrance,
        ranged_reduction=kind.ranged_reduction,
        blocks_ranged=kind.blocks_ranged,
        bleeding=kind.bleeding,
    )


def _unit(u: UnitDoc, arrived: int) -> Unit:
    return Unit(
        id=u.id,
        side=u.side,
        place=u.place,
        movement=u.movement,
        obstruction=u.obstruction,
        arrived=arrived,
        name=u.name or "",
    )


def _items(raw: object, cls: type[Doc], key: str, problems: list[Problem]) -> list[Any]:
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


def _unit_places(
    units: list[tuple[int, UnitDoc]],
    place_ids: set[str],
    junction_ids: set[str],
    problems: list[Problem],
) -> None:
    """A unit stands on a place of the map, never on a junction (P4)."""
    for i, u in units:
        if u.place in junction_ids:
            problems.append(
                Problem(
                    f"units[{i}].place",
                    f"{u.place!r} is a junction: nobody can stop on a junction, a unit "
                    "stands on a place (P4)",
                )
            )
        elif u.place not in place_ids:
            problems.append(Problem(f"units[{i}].place", _unknown_id("place", u.place, place_ids)))


def _types(
    places: list[tuple[int, PlaceDoc]], place_ids: set[str], problems: list[Problem]
) -> dict[str, PlaceType]:
    """Each place's catalogue type; unknown types and parents are problems (P2, P6)."""
    types: dict[str, PlaceType] = {}
    names = [p.name for p in catalogue().places]
    for i, d in places:
        for k, e in enumerate(d.effects or []):
            if e.kind in ("stat", "resource") and e.name is None:
                where = f"places[{i}].effects[{k}].name"
                problems.append(Problem(where, f"required for an effect of kind {e.kind}"))
        if d.type is not None:
            found = places_by_key().get(fold(d.type))
            if found is None:
                problems.append(
                    Problem(f"places[{i}].type", unknown_name("place type", d.type, names))
                )
            else:
                types[d.id] = found
        known = d.parent is None or d.parent in place_ids or fold(d.parent) in places_by_key()
        if not known:
            problems.append(
                Problem(
                    f"places[{i}].parent",
                    f"unknown parent {d.parent!r}: neither a place id of this map nor a "
                    "catalogue type",
                )
            )
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
            problems.append(
                Problem(
                    path,
                    "must be [place, place] or [place, place, {junction: KIND}], "
                    f"got {_show(item)}",
                )
            )
            continue
        ok = _way_ends(path, item, place_ids, seen, problems)
        kinds = _way_junctions(path, item, problems) if len(item) == 3 else ()
        if ok and kinds is not None:
            ids = tuple(
                (j or (f"{item[0]}~{item[1]}" + (f"~{n + 1}" if n else "")), kind)
                for n, (j, kind) in enumerate(kinds)
            )
            ways.append(_Way(path, item[0], item[1], ids))
    return ways


def _way_ends(
    path: str,
    item: list[Any],
    place_ids: set[str],
    seen: dict[frozenset[str], str],
    problems: list[Problem],
) -> bool:
    """Whether the two ends of an adjacency are two places of the map not yet adjacent."""
    ok = True
    for n in (0, 1):
        if not isinstance(item[n], str):
            problems.append(Problem(f"{path}[{n}]", f"must be a place id, got {_show(item[n])}"))
            ok = False
        elif item[n] not in place_ids:
            problems.append(Problem(f"{path}[{n}]", _unknown_id("place", item[n], place_ids)))
            ok = False
    if ok and item[0] == item[1]:
        problems.append(Problem(path, f"a place cannot be adjacent to itself: {item[0]!r}"))
        ok = False
    pair = frozenset(item[:2]) if ok else frozenset()
    if ok and pair in seen:
        problems.append(
            Problem(
                path,
                f"{item[0]!r} and {item[1]!r} are already adjacent ({seen[pair]}); put every "
                "junction of a way in one entry",
            )
        )
        ok = False
    seen.setdefault(pair, path)
    return ok


def _way_junctions(
    path: str, item: list[Any], problems: list[Problem]
) -> tuple[tuple[str | None, JunctionKind], ...] | None:
    way: WayDoc | None = _validate(WayDoc, item[2], (path + "[2]",), problems)
    if way is None:
        return None
    names = [way.junction] if isinstance(way.junction, str) else way.junction
    given = [way.id] if isinstance(way.id, str) else list(way.id or [])
    ids: list[str | None] = [*given] if given else [None] * len(names)
    if len(ids) != len(names):
        problems.append(
            Problem(
                f"{path}[2].id", f"{len(names)} junctions need {len(names)} ids, got {len(ids)}"
            )
        )
        return None
    out: list[tuple[str | None, JunctionKind]] = []
    known = [j.name for j in catalogue().junctions]
    for n, name in enumerate(names):
        found = junctions_by_key().get(fold(name))
        if found is None:
            where = f"{path}[2].junction" + (f"[{n}]" if isinstance(way.junction, list) else "")
            problems.append(Problem(where, unknown_name("junction kind", name, known)))
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
            problems.append(
                Problem(
                    f"units[{i}].arrived",
                    f"{taken[key]} also arrived {order[i]} on {u.place!r}; give each unit "
                    "there its own arrival order",
                )
            )
        taken.setdefault(key, u.id)
    return order


# -- P2: the parent chain -----------------------------------------------------------------


class _Entry(NamedTuple):
    label: str
    encumbrance: int | None
    cover: int | None
    effects: tuple[Effect, ...] | None


def _type_entry(t: PlaceType) -> _Entry:
    return _Entry(t.name, t.encumbrance, t.cover, t.effects)


def _chain(
    d: PlaceDoc, docs: dict[str, PlaceDoc], types: dict[str, PlaceType]
) -> list[_Entry] | str:
    """The elements a place inherits from, itself first (P2): its own statement, its
    catalogue type, its parent (a place of the map, with its own type, or a catalogue
    type) and so on; or the loop, in words, when the chain comes back on itself."""
    chain: list[_Entry] = []
    seen: list[str] = []
    current: tuple[str, str] | None = ("place", d.id)
    while current is not None:
        kind, name = current
        if f"{kind}:{name}" in seen:
            return " -> ".join([*(s.split(":", 1)[1] for s in seen), name])
        seen.append(f"{kind}:{name}")
        if kind == "place":
            p = docs[name]
            own = None if p.effects is None else tuple(e.effect(p.id) for e in p.effects)
            chain.append(_Entry(p.id, p.encumbrance, p.cover, own))
            t = types.get(p.id)
            if t is not None:
                chain.append(_type_entry(t))
                seen.append(f"type:{t.name}")
            parent = p.parent if p.parent is not None else (t.parent if t else None)
        else:
            t = places_by_key()[fold(name)]
            chain.append(_type_entry(t))
            parent = t.parent
        if parent is None or (parent not in docs and fold(parent) not in places_by_key()):
            current = None
        elif parent in docs:
            current = ("place", parent)
        else:
            current = ("type", places_by_key()[fold(parent)].name)
    return chain


def _place(
    d: PlaceDoc,
    places: list[tuple[int, PlaceDoc]],
    types: dict[str, PlaceType],
    problems: list[Problem],
    i: int,
) -> Place | None:
    """A place's effective characteristics along its parent chain (P2)."""
    chain = _chain(d, {p.id: p for _, p in places}, types)
    if isinstance(chain, str):
        problems.append(Problem(f"places[{i}].parent", f"the parent chain loops: {chain}"))
        return None

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
    return Place(
        id=d.id,
        encumbrance=max(MIN_ENCUMBRANCE, encumbrance),
        cover=max(MIN_COVER, cover),
        effects=effects,
        type=t.name if t else None,
        parent=d.parent if d.parent is not None else (t.parent if t else None),
        name=d.name or "",
        at=(d.at[0], d.at[1]) if d.at is not None else None,
        lineage=tuple(e.label for e in chain[1:]),
        lineage_effects=tuple(x for e in chain for x in (e.effects or ())),
        sources=(("encumbrance", enc_from), ("cover", cover_from), ("effects", eff_from)),
    )
