"""Loading a places scenario (SCENARIO.md, "A places scenario"): the document's fields,
every check with its path in the file, and the map built from it (P1-P4, P2's parent
chains, :mod:`arbitre.places.chains`).

A bad file raises one :class:`~arbitre.errors.ScenarioError` listing every problem. The
counts are bounded (:data:`MAX_PLACES`, :data:`MAX_ADJACENT`, :data:`MAX_UNITS`,
:data:`MAX_ITEMS`): far beyond any real map, small enough that every check and every
question stays prompt; a file over them is refused at once, naming the list and its count.
Every check is linear in the size of the file (ids looked up in sets, parent chains walked
once, "did you mean" hints for the first problems only), and a problem shows user values
cut short, never whole.
"""

from __future__ import annotations

import difflib
import os
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import Field, StrictInt, ValidationError
from pydantic_core import ErrorDetails

from arbitre.errors import Problem, ScenarioError
from arbitre.i18n import T_, TN_
from arbitre.i18n import Text as Words
from arbitre.places.catalogue import (
    DEFAULT_COVER,
    DEFAULT_ENCUMBRANCE,
    MIN_COVER,
    MIN_ENCUMBRANCE,
    Doc,
    EffectDoc,
    Ident,
    JunctionKind,
    Named,
    PlaceType,
    Text,
    catalogue,
    junctions_by_key,
    places_by_key,
    unknown_name,
)
from arbitre.places.chains import chain, parent_order
from arbitre.places.graph import (
    DEFAULT_OBSTRUCTION,
    Junction,
    Lineage,
    Place,
    PlaceMap,
    Unit,
    short,
)
from arbitre.problems import kind as _kind
from arbitre.problems import path as _path
from arbitre.problems import problem as _problem
from arbitre.problems import show as _show
from arbitre.reading import is_places_document as is_places_document
from arbitre.scenario import _parse, read_document
from arbitre.scenario_doc import LangName
from arbitre.text import fold

#: Most places, adjacencies and units a places scenario may hold.
MAX_PLACES = 5_000
MAX_ADJACENT = 50_000
MAX_UNITS = 5_000
#: Most effects of a place, junctions on a way, options and cites.
MAX_ITEMS = 1_000
#: Most movement points of a unit, far beyond any (the seed's move 4 to 8): a move ruling
#: lists every best way step by step, so its size grows with the points.
MAX_MOVEMENT = 100
#: Ids named in full in an "unknown id" problem; "did you mean" hints given.
MAX_NAMED, MAX_HINTS = 12, 50

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
    effects: Annotated[list[EffectDoc], Field(max_length=MAX_ITEMS)] | None = None
    at: XY | None = Field(None, description="where to draw it")


class UnitDoc(Doc):
    """A unit standing on a place (P3)."""

    id: Ident
    name: Text | None = None
    side: Ident
    place: Ident
    movement: Annotated[StrictInt, Field(ge=0, le=MAX_MOVEMENT)] | None = None
    obstruction: Annotated[StrictInt, Field(ge=0)] = DEFAULT_OBSTRUCTION
    arrived: Annotated[StrictInt, Field(ge=1)] | None = None


class WayDoc(Doc):
    """The third item of an adjacency: the junction(s) on that way (P4)."""

    junction: Text | Annotated[list[Text], Field(max_length=MAX_ITEMS)]
    id: Ident | Annotated[list[Ident], Field(max_length=MAX_ITEMS)] | None = None


class PlacesDoc(Doc):
    """A places scenario file, format 1 (SCENARIO.md)."""

    arbitre: Literal[1]
    name: Text | None = None
    rules: Text | None = Field(None, description="places, if stated")
    lang: LangName | None = Field(None, description="language of the rulings (en, fr)")
    options: Annotated[dict[str, Any], Field(max_length=MAX_ITEMS)] | None = None
    cites: Annotated[list[Text], Field(max_length=MAX_ITEMS)] | None = Field(
        None, description="golden tests: rule IDs; ignored"
    )
    expect: Any = Field(None, description="golden tests: expected rulings; ignored")
    places: Annotated[list[PlaceDoc], Field(min_length=1)]
    adjacent: list[Any] = Field(default_factory=list)
    units: list[UnitDoc] = Field(default_factory=list)


def load_places(path: str | os.PathLike[str], *, source: str | None = None) -> PlaceMap:
    """The map of a places scenario file (YAML, or JSON by suffix or content)."""
    doc, source = read_document(path, source=source)
    return places_from_dict(doc, source=source)


def loads_places(text: str, *, source: str | None = None) -> PlaceMap:
    """The map of a places scenario given as YAML or JSON text."""
    if not isinstance(text, str):
        raise ScenarioError(
            [Problem("", T_("expected text, got {kind}", kind=_kind(text)))], source=source
        )
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
        if near:
            return Problem(
                _path(err["loc"]), T_("unknown field (did you mean {name}?)", name=repr(near[0]))
            )
        return Problem(_path(err["loc"]), T_("unknown field"))
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


class _Known:
    """The place ids of a map, for "unknown place id" problems: a close one suggested for
    the first :data:`MAX_HINTS` problems, else the ids named when there are few (bounded
    work and text, whatever the number of ids and of problems)."""

    def __init__(self, ids: set[str]) -> None:
        self.set, self.ids, self.hints = ids, sorted(ids), MAX_HINTS

    def __contains__(self, ident: object) -> bool:
        return ident in self.set

    def unknown(self, ident: str) -> Words:
        near: list[str] = []
        if self.hints > 0 and len(ident) <= 200:
            self.hints -= 1
            near = difflib.get_close_matches(ident, self.ids, n=1)
        shown = _show(ident)
        if near:
            return T_("unknown place id {id} (did you mean {near}?)", id=shown, near=_show(near[0]))
        if not self.ids:
            return T_("unknown place id {id}{other} (places: none)", id=shown, other="")
        if len(self.ids) <= MAX_NAMED:
            known = ", ".join(_show(n) for n in self.ids)
            return T_(
                "unknown place id {id}{other} (places: {known})", id=shown, other="", known=known
            )
        return TN_(
            "unknown place id {id} ({n} places)",
            "unknown place id {id} ({n} places)",
            "n",
            id=shown,
            n=len(self.ids),
        )


def _over_caps(doc: dict[Any, Any]) -> list[Problem]:
    """A list longer than its cap is refused at once, with its count (its items unread)."""
    problems = []
    for key, cap in (("places", MAX_PLACES), ("adjacent", MAX_ADJACENT), ("units", MAX_UNITS)):
        items = doc.get(key)
        if isinstance(items, list) and len(items) > cap:
            problems.append(Problem(key, _too_many(key, _count(cap), _count(len(items)))))
    return problems


def _count(n: int) -> Named:
    """A count with its thousands grouped per language ("5,000"; French "5 000")."""
    return Named(f"{n:,}", f"{n:,}".replace(",", "\u00a0"))


def _too_many(key: str, cap: Named, got: Named) -> Words:
    """The problem of a list longer than its cap."""
    if key == "places":
        return T_("at most {cap} places in a places scenario, got {n}", cap=cap, n=got)
    if key == "units":
        return T_("at most {cap} units in a places scenario, got {n}", cap=cap, n=got)
    return T_("at most {cap} adjacencies in a places scenario, got {n}", cap=cap, n=got)


def _check(doc: object) -> tuple[PlaceMap | None, list[Problem]]:
    """The map (None if any problem) and every problem of a places document."""
    if not isinstance(doc, dict):
        got = _kind(doc)
        return None, [
            Problem(
                "",
                T_(
                    "a places scenario must be a mapping (arbitre, places, adjacent, units), "
                    "got {kind}",
                    kind=got,
                ),
            )
        ]
    problems: list[Problem] = []
    header = _header(doc, problems)
    over = _over_caps(doc)
    if over:
        return None, problems + over
    places = _items(doc.get("places"), PlaceDoc, "places", problems)
    units = _items(doc.get("units"), UnitDoc, "units", problems)
    raw = doc.get("places")
    place_ids = _Known(
        {
            p["id"]
            for p in (raw if isinstance(raw, list) else [])
            if isinstance(p, dict) and isinstance(p.get("id"), str)
        },
    )
    types = _types(places, place_ids, problems)
    ways = _ways(doc.get("adjacent"), place_ids, problems)
    problems += _duplicate_ids(doc, ways)
    _unit_places(units, place_ids, {j for w in ways for j, _ in w.kinds}, problems)
    arrived = _arrivals(units, problems)
    built = _built(places, types, problems)
    if problems or header is None:
        return None, problems
    return PlaceMap(
        places=tuple(built),
        adjacent=tuple((w.a, w.b) for w in ways),
        junctions=tuple(_junction(j, k, w) for w in ways for j, k in w.kinds),
        units=tuple(_unit(u, arrived[i]) for i, u in units),
        name=header.name or "",
        options=tuple(sorted((header.options or {}).items())),
        lang=header.lang,
    ), []


def _header(doc: dict[Any, Any], problems: list[Problem]) -> PlacesDoc | None:
    """The top-level fields but places, adjacent and units (checked apart)."""
    if "arbitre" not in doc:
        problems.append(Problem("arbitre", T_("required")))
    elif type(doc["arbitre"]) is not int or doc["arbitre"] != 1:
        problems.append(
            Problem("arbitre", T_("must be 1, got {value}", value=_show(doc["arbitre"])))
        )
    rest = {k: v for k, v in doc.items() if k not in ("places", "units", "adjacent")}
    rest |= {"arbitre": 1, "places": [{"id": "-"}]}
    header: PlacesDoc | None = _validate(PlacesDoc, rest, (), problems)
    if not isinstance(doc.get("places"), list) or not doc["places"]:
        problems.append(Problem("places", T_("required: a non-empty list of places")))
    if header is not None and header.rules is not None and fold(header.rules) != "places":
        problems.append(
            Problem(
                "rules",
                T_(
                    "a places scenario uses the rules 'places', got {rules}",
                    rules=_show(header.rules),
                ),
            )
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
        problems.append(Problem(key, T_("must be a list, got {value}", value=_show(raw))))
        return []
    found = ((i, _validate(cls, item, (key, i), problems)) for i, item in enumerate(raw))
    return [(i, d) for i, d in found if d is not None]


def _unit_places(
    units: list[tuple[int, UnitDoc]],
    place_ids: _Known,
    junction_ids: set[str],
    problems: list[Problem],
) -> None:
    """A unit stands on a place of the map, never on a junction (P4)."""
    for i, u in units:
        if u.place in junction_ids:
            problems.append(
                Problem(
                    f"units[{i}].place",
                    T_(
                        "{id} is a junction: nobody can stop on a junction, a unit stands on a "
                        "place (P4)",
                        id=_show(u.place),
                    ),
                )
            )
        elif u.place not in place_ids:
            problems.append(Problem(f"units[{i}].place", place_ids.unknown(u.place)))


def _types(
    places: list[tuple[int, PlaceDoc]], place_ids: _Known, problems: list[Problem]
) -> dict[str, PlaceType]:
    """Each place's catalogue type; unknown types and parents are problems (P2, P6)."""
    types: dict[str, PlaceType] = {}
    names = [p.name for p in catalogue().places]
    for i, d in places:
        for k, e in enumerate(d.effects or []):
            if e.kind in ("stat", "resource") and e.name is None:
                where = f"places[{i}].effects[{k}].name"
                text = T_("required for an effect of kind {kind}", kind=e.kind)
                problems.append(Problem(where, text))
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
                    T_(
                        "unknown parent {parent}: neither a place id of this map nor a "
                        "catalogue type",
                        parent=_show(d.parent),
                    ),
                )
            )
    return types


def _ways(raw: object, place_ids: _Known, problems: list[Problem]) -> list[_Way]:
    """The adjacencies (P1) and the junctions on them (P4), each checked."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append(Problem("adjacent", T_("must be a list, got {value}", value=_show(raw))))
        return []
    ways: list[_Way] = []
    seen: dict[frozenset[str], str] = {}
    for k, item in enumerate(raw):
        path = f"adjacent[{k}]"
        if not isinstance(item, list) or len(item) not in (2, 3):
            problems.append(
                Problem(
                    path,
                    T_(
                        "must be [place, place] or [place, place, {{junction: KIND}}], got {value}",
                        value=_show(item),
                    ),
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
    place_ids: _Known,
    seen: dict[frozenset[str], str],
    problems: list[Problem],
) -> bool:
    """Whether the two ends of an adjacency are two places of the map not yet adjacent."""
    ok = True
    for n in (0, 1):
        if not isinstance(item[n], str):
            text = T_("must be a place id, got {value}", value=_show(item[n]))
            problems.append(Problem(f"{path}[{n}]", text))
            ok = False
        elif item[n] not in place_ids:
            problems.append(Problem(f"{path}[{n}]", place_ids.unknown(item[n])))
            ok = False
    if ok and item[0] == item[1]:
        text = T_("a place cannot be adjacent to itself: {id}", id=_show(item[0]))
        problems.append(Problem(path, text))
        ok = False
    pair = frozenset(item[:2]) if ok else frozenset()
    if ok and pair in seen:
        problems.append(
            Problem(
                path,
                T_(
                    "{a} and {b} are already adjacent ({where}); put every junction of a way "
                    "in one entry",
                    a=_show(item[0]),
                    b=_show(item[1]),
                    where=seen[pair],
                ),
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
                f"{path}[2].id",
                TN_(
                    "{n} junctions need {n} ids, got {got}",
                    "{n} junctions need {n} ids, got {got}",
                    "n",
                    n=len(names),
                    got=len(ids),
                ),
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
            text = T_("duplicate id {id} (also {other})", id=_show(ident), other=seen[ident])
            problems.append(Problem(path, text))
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
                    T_(
                        "{unit} also arrived {n} on {place}; give each unit there its own "
                        "arrival order",
                        unit=short(taken[key]),
                        n=order[i],
                        place=_show(u.place),
                    ),
                )
            )
        taken.setdefault(key, u.id)
    return order


# -- P2: the parent chains ----------------------------------------------------------------


def _built(
    places: list[tuple[int, PlaceDoc]], types: dict[str, PlaceType], problems: list[Problem]
) -> list[Place]:
    """Every place with its effective characteristics along its parent chain (P2), in
    file order; a loop of parents is a problem (:mod:`arbitre.places.chains`, linear)."""
    docs: dict[str, tuple[int, PlaceDoc]] = {}
    for i, d in places:
        docs.setdefault(d.id, (i, d))
    index = {ident: i for ident, (i, _) in docs.items()}
    parent = {i: d.parent for i, (_, d) in docs.items() if d.parent in docs and d.parent}
    chains: dict[str, Lineage] = {}
    for ident in parent_order(index, parent, problems):
        d = docs[ident][1]
        own = None if d.effects is None else tuple(e.effect(d.id) for e in d.effects)
        kind = types.get(ident)
        chains[ident] = chain(ident, d.encumbrance, d.cover, own, kind, d.parent, chains)
    return [_place(d, chains[d.id], types) for _, d in docs.values() if d.id in chains]


def _place(d: PlaceDoc, own: Lineage, types: dict[str, PlaceType]) -> Place:
    """A place's effective characteristics (P2): what it states, else the first element of
    its chain stating it, else the default."""

    def pick(attr: str, default: Any) -> tuple[Any, str]:
        found = own.first(attr)
        if found is None:
            return default, "default"
        return found[0], "stated" if getattr(own, attr) is not None else found[1]

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
        chain=own,
        sources=(("encumbrance", enc_from), ("cover", cover_from), ("effects", eff_from)),
    )
