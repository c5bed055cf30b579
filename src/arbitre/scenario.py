"""Scenario files (SCENARIO.md, format 1): read them, check them, turn them into a Table.

A scenario is YAML or JSON with its lengths in its own unit; the :class:`Table` it gives is
in mm (G1). Loading never half-loads: every problem is collected and raised as one
:class:`ScenarioError`, each with its path in the document (``models[2].base: must be >= 0,
got -5``). Only table scenarios are read; places scenarios (seed 003) are refused for now.

Additions to SCENARIO.md: ``report_unit`` (default: ``unit``) names the unit reports use
when it differs from the unit the file is written in, so that :func:`dump` can write any
table in mm and still round-trip; ``cites`` and ``expect``, the annotations of golden test
files (the rule IDs they check, the rulings they expect), are accepted and ignored.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import shapely
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from arbitre import placing, reading
from arbitre.errors import Problem, ScenarioError
from arbitre.geometry import (
    MIN_SIZE,
    CircleFootprint,
    Disc,
    Footprint,
    Point,
    PolygonFootprint,
    WallFootprint,
    Window,
    rect_points,
)
from arbitre.i18n import N_, T_, Num, Text, join
from arbitre.problems import got, problem
from arbitre.problems import kind as _kind
from arbitre.problems import show as _show
from arbitre.scenario_doc import (
    AT_FORMS,
    DEFAULT_BASE_MM,
    FIELDS,
    FOOTPRINTS,
    LIMIT,
    MAX_MODELS,
    MAX_TERRAIN,
    Doc,
    FromDoc,
    HeaderDoc,
    ModelDoc,
    ScenarioDoc,
    TerrainDoc,
)
from arbitre.table import (
    STATUSES,
    UNIT_MM,
    Model,
    Table,
    Terrain,
    Unit,
    Weapon,
)

__all__ = ["dump", "from_dict", "json_schema", "load", "loads", "validate"]

# -- public functions ---------------------------------------------------------------------


def load(path_or_text: str | os.PathLike[str], *, source: str | None = None) -> Table:
    """The table of a scenario file (YAML, or JSON by suffix or content).

    A ``str`` holding a newline or starting with ``{``/``[`` is taken as the text itself.
    """
    doc, source = read_document(path_or_text, source=source)
    return from_dict(doc, source=source)


def read_document(
    path_or_text: str | os.PathLike[str],
    *,
    source: str | None = None,
    max_bytes: int = reading.MAX_BYTES,
) -> tuple[object, str | None]:
    """The parsed document of a file (or of text, as :func:`load` tells them apart), read
    and parsed once within bounds (:mod:`arbitre.reading`), and the name errors give it."""
    if isinstance(path_or_text, str) and (
        "\n" in path_or_text or path_or_text.lstrip().startswith(("{", "["))
    ):
        return _parse(path_or_text, None, source), source
    if not isinstance(path_or_text, str | os.PathLike):
        raise ScenarioError(
            [Problem("", T_("not a file name: {value}", value=_show(path_or_text)))], source=source
        )
    path = Path(path_or_text)
    source = source or str(path)
    try:
        with path.open("rb") as f:  # never more than the bound, whatever the file is
            data = f.read(max_bytes + 1)
        reading.check_size(len(data), source, max_bytes)
        text = data.decode("utf-8")
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        problem = Problem("", T_("cannot read the file: {reason}", reason=reason))
        raise ScenarioError([problem], source=source) from None
    fmt = {".json": "json", ".yaml": "yaml", ".yml": "yaml"}.get(path.suffix.lower())
    return _parse(text, fmt, source), source


def loads(text: str, *, source: str | None = None) -> Table:
    """The table of a scenario given as YAML or JSON text."""
    if not isinstance(text, str):
        raise ScenarioError(
            [Problem("", T_("expected text, got {kind}", kind=_kind(text)))], source=source
        )
    return from_dict(_parse(text, None, source), source=source)


def from_dict(doc: object, *, source: str | None = None) -> Table:
    """The table of a parsed scenario document, in mm (G1-G3); ScenarioError if it is bad."""
    scenario, problems = _check(doc)
    if scenario is None:
        raise ScenarioError(problems, source=source)
    return _build(scenario)


def validate(doc: object) -> list[Problem]:
    """Every problem of a parsed scenario document; empty when it loads."""
    return _check(doc)[1]


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a table scenario document."""
    return ScenarioDoc.model_json_schema(by_alias=True)


def dump(table: Table) -> dict[str, Any]:
    """A scenario document of ``table`` in mm, such that ``from_dict(dump(t)) == t``.

    Rectangles come out as polygons; the table's unit is kept as ``report_unit``.
    """
    return _given(
        arbitre=1,
        name=table.name or None,
        rules=table.rules,
        lang=table.lang,
        unit="mm",
        report_unit=None if table.unit == Unit("mm", 1.0) else _unit_name(table),
        toise=table.toise,
        table=[table.width, table.depth],
        contact_tolerance=table.contact_tolerance,
        beam=table.beam,
        options=dict(table.options),
        size_classes=list(table.size_classes),
        terrain=[_dump_terrain(t) for t in table.terrain],
        models=[_dump_model(m) for m in table.models],
    )


# -- parsing and error messages -----------------------------------------------------------


def _problem(err: ErrorDetails) -> Problem:
    """One pydantic error of a table scenario as a Problem (unknown fields get a hint; the
    form of an ``at`` is not part of its path)."""
    loc = err["loc"]
    for k in range(len(loc) - 1):
        if loc[k] == "at" and loc[k + 1] in AT_FORMS:
            err = {**err, "loc": (*loc[: k + 1], *loc[k + 2 :])}
            break
    return problem(err, FIELDS)


def _parse(text: str, fmt: str | None, source: str | None) -> object:
    """The document in ``text``, parsed within bounds (:func:`arbitre.reading.parse`)."""
    return reading.parse(text, fmt, source)


# -- checks beyond types ------------------------------------------------------------------

_D = TypeVar("_D", bound=Doc)


class _Scope(NamedTuple):
    """What the checks of one piece need to know of the rest of the document."""

    header: HeaderDoc | None
    terrain_ids: set[str]
    model_ids: set[str]


def _check(doc: object) -> tuple[ScenarioDoc | None, list[Problem]]:
    """The valid scenario (None if any problem) and every problem found.

    When pydantic rejects the document, each terrain piece and model that is valid on its
    own is still checked, so that one run reports as much as it can.
    """
    if not isinstance(doc, dict):
        return None, [
            Problem(
                "",
                T_(
                    "a scenario must be a mapping (arbitre, table, ...), got {kind}",
                    kind=_kind(doc),
                ),
            )
        ]
    if "places" in doc:
        return None, [
            Problem(
                "places",
                T_(
                    "a map of places (seed 003), not a table: use arbitre move, shot, place or render"  # noqa: E501
                ),
            )
        ]
    scenario: ScenarioDoc | None = None
    try:
        scenario = ScenarioDoc.model_validate(doc)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        problems = [_problem(e) for e in errors]
        header = _header(doc, {e["loc"][0] for e in errors if e["loc"]})
        terrain = _pieces(doc.get("terrain"), TerrainDoc)
        models = _pieces(doc.get("models"), ModelDoc)
    else:
        problems, header = [], scenario
        terrain = list(enumerate(scenario.terrain or []))
        models = list(enumerate(scenario.models or []))
    found, terrain_ids, model_ids = _ids(doc)
    problems += found
    scope = _Scope(header, terrain_ids, model_ids)
    if header is not None:
        problems += _header_problems(header)
    for i, piece in terrain:
        problems += _terrain_problems(f"terrain[{i}]", piece, scope)
    models, unplaced = _placed(models, terrain, header)
    problems += unplaced
    for i, model in models:
        problems += _model_problems(f"models[{i}]", model, scope)
    if scenario is not None and not problems:
        scenario = scenario.model_copy(update={"models": [m for _, m in models]})
        problems += _mm_limits(scenario)
    return (scenario if not problems else None), problems


def _mm_limits(doc: ScenarioDoc) -> list[Problem]:
    """Every length at most :data:`LIMIT` once in mm too (a file's numbers are bounded in
    its own unit; in mm they must stay so, or the table would not reload once dumped)."""
    mm = _mm(doc.unit, doc.toise)
    found: list[tuple[str, float, float]] = [("table", max(doc.table), mm)]
    units = {mm: doc.unit}
    for i, piece in enumerate(doc.terrain or []):
        coords = [abs(v) for xy in _points_of(piece) for v in xy]
        sizes = [
            getattr(s, k)
            for s in (piece.rect, piece.circle, piece.wall)
            if s is not None
            for k in ("width", "depth", "radius", "thickness")
            if hasattr(s, k)
        ]
        found.append((f"terrain[{i}]", max([*coords, *sizes, piece.height or 0.0]), mm))
    for i, m in enumerate(doc.models or []):
        sizes = [abs(v) for v in _point_of(m)] + [m.base or 0.0, m.height or 0.0, m.elevation]
        found.append((f"models[{i}]", max(sizes), mm))
        for k, w in enumerate(m.weapons):
            scale = _mm(w.unit or doc.unit, doc.toise)
            units.setdefault(scale, w.unit or doc.unit)
            found.append((f"models[{i}].weapons[{k}].range", w.range or 0.0, scale))
    return [
        Problem(
            path,
            T_(
                "{value} {unit} is {mm} mm, more than {limit} mm",
                value=Num(value, "g"),
                unit=units[scale],
                mm=Num(value * scale, ".3g"),
                limit=Num(LIMIT, "g"),
            ),
        )
        for path, value, scale in found
        if value * scale > LIMIT
    ]


def _points_of(piece: TerrainDoc) -> list[list[float]]:
    if piece.polygon is not None:
        return list(piece.polygon)
    if piece.wall is not None:
        return list(piece.wall.points)
    shape = piece.rect or piece.circle
    return [shape.at] if shape is not None else []


def _placed(
    models: list[tuple[int, ModelDoc]],
    terrain: list[tuple[int, TerrainDoc]],
    header: HeaderDoc | None,
) -> tuple[list[tuple[int, ModelDoc]], list[Problem]]:
    """The models with every relative ``at`` resolved to its point (:mod:`arbitre.placing`),
    and the problems of those that cannot be placed. A model that cannot be placed is
    checked further as if it stood at the table's centre (its own problem is reported)."""
    if all(isinstance(m.at, list) for _, m in models):
        return models, []
    mm = (
        1.0
        if header is None or (header.unit == "toise" and header.toise is None)
        else (_mm(header.unit, header.toise))
    )
    pieces = {}
    for _, piece in terrain:
        try:
            pieces[piece.id] = _footprint(piece, 1.0)
        except (ValueError, AssertionError):  # a bad footprint: reported by its own check
            continue
    specs = {m.id: _spec(i, m, mm) for i, m in models}
    placed, problems = placing.resolve(specs, pieces)
    centre = [header.table[0] / 2, header.table[1] / 2] if header is not None else [0.0, 0.0]
    out = [(i, m.model_copy(update={"at": list(placed.get(m.id, centre))})) for i, m in models]
    return out, problems


def _point_of(m: ModelDoc) -> list[float]:
    """A model's ``at`` once resolved (:func:`_placed` turns every ``at`` into a point)."""
    assert isinstance(m.at, list), m.at
    return m.at


def _spec(i: int, m: ModelDoc, mm: float) -> placing.Spec:
    """What ``placing`` needs of one model, in the scenario's unit."""
    given = "base" in m.model_fields_set
    radius = (m.base or 0.0) / 2 if given else DEFAULT_BASE_MM / 2 / mm
    at = m.at
    path = f"models[{i}]"
    if isinstance(at, list):
        return placing.Spec(path=path, radius=radius, point=(at[0], at[1]))
    if isinstance(at, FromDoc):
        return placing.Spec(
            path=path, radius=radius, origin=at.origin, distance=at.distance, angle=at.angle
        )
    return placing.Spec(
        path=path, radius=radius, touching=at.touching, side=at.side, window=at.window
    )


def _header(doc: dict[Any, Any], bad: set[int | str]) -> HeaderDoc | None:
    """The header of a document that did not validate, its bad or unknown top-level fields
    left out, so that the checks needing it (size classes, the table's size) still run."""
    rest = {
        k: v
        for k, v in doc.items()
        if k not in ("terrain", "models") and k not in bad and k in HeaderDoc.model_fields
    }
    return _valid(HeaderDoc, rest)


def _valid(cls: type[_D], value: object) -> _D | None:
    try:
        return cls.model_validate(value)
    except ValidationError:
        return None


def _pieces(raw: object, cls: type[_D]) -> list[tuple[int, _D]]:
    cap = MAX_MODELS if cls is ModelDoc else MAX_TERRAIN
    items = raw[:cap] if isinstance(raw, list | tuple) else []
    valid = ((i, _valid(cls, item)) for i, item in enumerate(items))
    return [(i, doc) for i, doc in valid if doc is not None]


def _ids(doc: dict[Any, Any]) -> tuple[list[Problem], set[str], set[str]]:
    """Duplicate ids across terrain and models (G2, G3), and the ids of each."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    found: dict[str, set[str]] = {"terrain": set(), "models": set()}
    for key, ids in found.items():
        items = doc.get(key)
        for i, item in enumerate(items if isinstance(items, list | tuple) else []):
            ident = item.get("id") if isinstance(item, dict) else None
            if not isinstance(ident, str):
                continue
            if ident in seen:
                problems.append(
                    Problem(
                        f"{key}[{i}].id",
                        T_("duplicate id {id} (also {other})", id=_show(ident), other=seen[ident]),
                    )
                )
            seen.setdefault(ident, f"{key}[{i}].id")
            ids.add(ident)
    return problems, found["terrain"], found["models"]


def _header_problems(header: HeaderDoc) -> list[Problem]:
    problems = []
    for k, size in enumerate(header.size_classes):
        if size in header.size_classes[:k]:
            problems.append(
                Problem(f"size_classes[{k}]", T_("duplicate size class {size}", size=_show(size)))
            )
    for field in ("unit", "report_unit"):
        if getattr(header, field) == "toise" and header.toise is None:
            problems.append(
                Problem("toise", T_("required (mm per toise) when {field} is toise", field=field))
            )
    return problems


def _size_problem(path: str, size: str, header: HeaderDoc | None) -> list[Problem]:
    if header is None or size in header.size_classes:
        return []
    return [
        Problem(
            path,
            T_(
                "unknown size class {size} (size_classes: {known})",
                size=_show(size),
                known=join(header.size_classes),
            ),
        )
    ]


def _terrain_problems(path: str, piece: TerrainDoc, scope: _Scope) -> list[Problem]:
    """G3 footprints: exactly one, simple, on the table, windows within their wall."""
    problems = []
    kinds = [k for k in FOOTPRINTS if getattr(piece, k) is not None]
    if len(kinds) != 1:
        problems.append(
            Problem(
                path,
                T_(
                    "needs exactly one of polygon, rect, circle, wall; got {kinds}",
                    kinds=join(kinds, empty=N_("none")),
                ),
            )
        )
    for kind in kinds:
        shape, reach, found = _shape(f"{path}.{kind}", kind, getattr(piece, kind))
        problems += found + _thin_problems(f"{path}.{kind}", getattr(piece, kind), scope.header)
        if shape is not None and scope.header is not None:
            table = shapely.box(0.0, 0.0, *scope.header.table)
            if table.distance(shape) > reach:
                problems.append(Problem(f"{path}.{kind}", T_("lies entirely outside the table")))
    default = "huge" if piece.sight == "blocks" else "small"
    return problems + _size_problem(f"{path}.size", piece.size or default, scope.header)


def _shape(path: str, kind: str, doc: Any) -> tuple[Any, float, list[Problem]]:
    """A footprint in the scenario's unit as (geometry, reach beyond it, problems)."""
    if kind == "rect":
        corners = rect_points(Point(*doc.at), doc.width, doc.depth, doc.angle)
        return shapely.Polygon([(p.x, p.y) for p in corners]), 0.0, []
    if kind == "circle":
        return shapely.Point(*doc.at), doc.radius, []
    points = [tuple(p) for p in (doc if kind == "polygon" else doc.points)]
    need = 3 if kind == "polygon" else 2
    if len(set(points)) < need:
        return None, 0.0, [Problem(path, T_("needs at least {n} distinct points", n=need))]
    if kind == "polygon":
        polygon = shapely.Polygon(points)
        if not polygon.is_valid:
            reason = shapely.is_valid_reason(polygon)
            text = T_("must be a simple polygon ({reason})", reason=_invalid(reason))
            return None, 0.0, [Problem(path, text)]
        return polygon, 0.0, []
    line = shapely.LineString(points)
    problems = []
    for k, window in enumerate(doc.windows):
        where = f"{path}.windows[{k}]"
        if window.start >= window.to:
            problems.append(
                Problem(
                    where,
                    T_(
                        "from must be < to, got from {start}, to {to}",
                        start=Num(window.start, "g"),
                        to=Num(window.to, "g"),
                    ),
                )
            )
        if window.start < 0:
            problems.append(
                Problem(
                    f"{where}.from", got(T_("must be >= {bound}", bound=0), Num(window.start, "g"))
                )
            )
        if window.to > line.length:
            problems.append(
                Problem(
                    f"{where}.to",
                    T_(
                        "must be <= the wall's length {length}, got {to}",
                        length=Num(line.length, "g"),
                        to=Num(window.to, "g"),
                    ),
                )
            )
    return line, doc.thickness / 2.0, problems


#: shapely's reasons a polygon is not valid, in words (the point that follows is kept).
INVALID = {
    "Self-intersection": N_("Self-intersection"),
    "Ring Self-intersection": N_("Ring Self-intersection"),
    "Too few points": N_("Too few points"),
}


def _invalid(reason: str) -> Text | str:
    """shapely's ``Self-intersection[2 2]`` worded per language (its point kept)."""
    head, bracket, rest = reason.partition("[")
    return T_(INVALID[head]) + f"{bracket}{rest}" if head in INVALID else reason


def _thin_problems(path: str, doc: Any, header: HeaderDoc | None) -> list[Problem]:
    """A wall's thickness, a circle's radius, a rectangle's sides: at least
    :data:`~arbitre.geometry.MIN_SIZE` mm (thinner, shapely draws nothing of a wall)."""
    problems = []
    for field in ("thickness", "radius", "width", "depth"):
        value = getattr(doc, field, None)
        least = None if value is None else _least(value, header)
        if least is not None and value is not None:
            problems.append(
                Problem(
                    f"{path}.{field}",
                    got(T_("must be at least {least}", least=least), Num(value, "g")),
                )
            )
    return problems


def _model_problems(path: str, model: ModelDoc, scope: _Scope) -> list[Problem]:
    """G2: known size, statuses, building and opponents; the centre on the table."""
    problems = _size_problem(f"{path}.size", model.size, scope.header)
    for k, status in enumerate(model.status):
        if status not in STATUSES:
            problems.append(
                Problem(
                    f"{path}.status[{k}]",
                    T_(
                        "unknown status {status} (known: {known})",
                        status=_show(status),
                        known=join(sorted(STATUSES)),
                    ),
                )
            )
    if model.inside is not None and model.inside not in scope.terrain_ids:
        problems.append(
            Problem(f"{path}.inside", T_("unknown terrain id {id}", id=_show(model.inside)))
        )
    for k, other in enumerate(model.engaged):
        if other == model.id:
            problems.append(
                Problem(
                    f"{path}.engaged[{k}]",
                    T_("a model cannot be engaged with itself, got {id}", id=_show(other)),
                )
            )
        elif other not in scope.model_ids:
            problems.append(
                Problem(f"{path}.engaged[{k}]", T_("unknown model id {id}", id=_show(other)))
            )
    header = scope.header
    if header is not None:
        (x, y), (width, depth) = _point_of(model), header.table
        if not (0 <= x <= width and 0 <= y <= depth):
            problems.append(
                Problem(
                    f"{path}.at",
                    T_(
                        "centre [{x}, {y}] is off the table [{width}, {depth}]",
                        x=Num(x, "g"),
                        y=Num(y, "g"),
                        width=Num(width, "g"),
                        depth=Num(depth, "g"),
                    ),
                )
            )
        for k, weapon in enumerate(model.weapons):
            if weapon.unit == "toise" and header.toise is None:
                problems.append(
                    Problem(
                        f"{path}.weapons[{k}].unit",
                        T_("toise needs the scenario's toise (mm per toise)"),
                    )
                )
    return problems + _base_problems(f"{path}.base", model.base, header)


def _base_problems(path: str, base: float | None, header: HeaderDoc | None) -> list[Problem]:
    """A base is none (0, F8) or at least :data:`~arbitre.geometry.MIN_SIZE` mm across:
    a narrower one (1e-300) no measure tells from a point, yet it would be ruled as a base."""
    least = _least(base or 0.0, header)
    if least is None:
        return []
    text = T_("must be 0 (no base, F8) or at least {least}", least=least)
    return [Problem(path, got(text, Num(base or 0.0, "g")))]


def _least(value: float, header: HeaderDoc | None) -> Text | None:
    """The least size worded (``"0.01 mm (0.000394 in)"``) when ``value``, in the
    scenario's unit, is more than 0 but less than :data:`~arbitre.geometry.MIN_SIZE` mm;
    None otherwise, or when the unit is unknown (its own problem)."""
    if value <= 0 or header is None or (header.unit == "toise" and header.toise is None):
        return None
    mm = _mm(header.unit, header.toise)
    if value * mm >= MIN_SIZE:
        return None
    if header.unit == "mm":
        return T_("{least} mm", least=Num(MIN_SIZE, "g"))
    return T_(
        "{least} mm ({also} {unit})",
        least=Num(MIN_SIZE, "g"),
        also=Num(MIN_SIZE / mm, ".3g"),
        unit=header.unit,
    )


# -- conversion to the table (G1: everything in mm) ---------------------------------------


def _mm(unit: str, toise: float | None) -> float:
    """Millimetres per ``unit`` (G1); the checks made sure a toise unit has its toise."""
    if unit == "toise":
        assert toise is not None
        return toise
    return UNIT_MM[unit]


def _build(doc: ScenarioDoc) -> Table:
    """The table of a checked document, every length in mm (G1)."""
    mm = _mm(doc.unit, doc.toise)
    report = doc.report_unit or doc.unit
    return Table(
        width=doc.table[0] * mm,
        depth=doc.table[1] * mm,
        terrain=tuple(_terrain(t, mm) for t in doc.terrain or []),
        models=tuple(_model(m, doc, mm) for m in doc.models or []),
        unit=Unit(report, _mm(report, doc.toise)),
        name=doc.name or "",
        rules=doc.rules,
        contact_tolerance=doc.contact_tolerance,
        beam=doc.beam,
        options=tuple(sorted((doc.options or {}).items())),
        size_classes=tuple(doc.size_classes),
        toise=doc.toise,
        lang=doc.lang,
    )


def _at(xy: list[float], mm: float) -> Point:
    return Point(xy[0] * mm, xy[1] * mm)


def _length(value: float | None, mm: float) -> float | None:
    return None if value is None else value * mm


def _footprint(piece: TerrainDoc, mm: float) -> Footprint:
    if piece.polygon is not None:
        return PolygonFootprint(tuple(_at(p, mm) for p in piece.polygon))
    if piece.rect is not None:
        r = piece.rect
        return PolygonFootprint(rect_points(_at(r.at, mm), r.width * mm, r.depth * mm, r.angle))
    if piece.circle is not None:
        return CircleFootprint(_at(piece.circle.at, mm), piece.circle.radius * mm)
    assert piece.wall is not None
    wall = piece.wall
    points = tuple(_at(p, mm) for p in wall.points)
    # a window ending at the wall's end stays within it once in mm (rounding), so that the
    # table dumps and reloads as itself
    length = float(shapely.LineString([(p.x, p.y) for p in points]).length)
    windows = tuple(Window(max(0.0, w.start * mm), min(w.to * mm, length)) for w in wall.windows)
    return WallFootprint(points, wall.thickness * mm, windows)


def _terrain(t: TerrainDoc, mm: float) -> Terrain:
    return Terrain(
        id=t.id,
        footprint=_footprint(t, mm),
        sight=t.sight,
        size=t.size or ("huge" if t.sight == "blocks" else "small"),
        name=t.name or "",
        height=_length(t.height, mm),
        building=t.building,
    )


def _model(m: ModelDoc, doc: ScenarioDoc, mm: float) -> Model:
    base = Disc((m.base or 0.0) * mm) if "base" in m.model_fields_set else Disc(DEFAULT_BASE_MM)
    weapons = tuple(
        Weapon(
            w.name,
            None if w.range is None else w.range * _mm(w.unit or doc.unit, doc.toise),
            w.breath,
        )
        for w in m.weapons
    )
    return Model(
        id=m.id,
        side=m.side,
        at=_at(_point_of(m), mm),
        base=base,
        size=m.size,
        name=m.name or "",
        height=_length(m.height, mm),
        elevation=m.elevation * mm,
        inside=m.inside,
        large_target=m.large_target,
        stats=tuple(sorted(m.stats.items())),
        status=frozenset(m.status),
        engaged=tuple(m.engaged),
        weapons=weapons,
    )


def _unit_name(table: Table) -> str:
    unit = table.unit
    if UNIT_MM.get(unit.name) == unit.mm or (unit.name == "toise" and table.toise == unit.mm):
        return unit.name
    raise ValueError(f"cannot write unit {unit.name!r} of {unit.mm} mm in a scenario")


def _given(**fields: Any) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not None}


def _xy(p: Point) -> list[float]:
    return [p.x, p.y]


def _dump_terrain(t: Terrain) -> dict[str, Any]:
    f = t.footprint
    if isinstance(f, PolygonFootprint):
        shape: dict[str, Any] = {"polygon": [_xy(p) for p in f.points]}
    elif isinstance(f, CircleFootprint):
        shape = {"circle": {"at": _xy(f.centre), "radius": f.radius}}
    else:
        shape = {
            "wall": {
                "points": [_xy(p) for p in f.points],
                "thickness": f.thickness,
                "windows": [{"from": w.start, "to": w.end} for w in f.windows],
            }
        }
    return (
        _given(
            id=t.id,
            name=t.name or None,
            sight=t.sight,
            size=t.size,
            height=t.height,
            building=t.building,
        )
        | shape
    )


def _dump_model(m: Model) -> dict[str, Any]:
    return _given(
        id=m.id,
        name=m.name or None,
        side=m.side,
        at=_xy(m.at),
        base=m.base.diameter,
        size=m.size,
        height=m.height,
        elevation=m.elevation,
        inside=m.inside,
        large_target=m.large_target,
        stats=dict(m.stats),
        status=sorted(m.status),
        engaged=list(m.engaged),
        weapons=[_given(name=w.name, range=w.range, breath=w.breath) for w in m.weapons],
    )
