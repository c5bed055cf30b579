"""The table: terrain pieces and models, frozen values in millimetres (G1-G3).

A :class:`Table` never changes; :meth:`Table.moved` returns a new one. Lengths are in mm
whatever the scenario's unit; :class:`Unit` converts back for reports.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import reprlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from arbitre.errors import RulesError
from arbitre.geometry import Disc, Footprint, Point
from arbitre.i18n import N_, T_, At, Length, Num, join

Sight = Literal["blocks", "cover"]

#: The D4 size classes, smallest first, unless a scenario states its own.
DEFAULT_SIZE_CLASSES: tuple[str, ...] = ("small", "medium", "large", "huge")

#: Millimetres per named unit (G1); ``toise`` comes from the scenario.
UNIT_MM: Mapping[str, float] = {"mm": 1.0, "cm": 10.0, "in": 25.4}

#: A 25 mm round base, the size seed 000 recommends (F8).
DEFAULT_BASE = Disc(25.0)

#: Largest magnitude of a coordinate, in mm: the loader's bound on every length once in mm
#: (``scenario_doc.LIMIT``), far beyond any table; squared distances never overflow.
POSITION_LIMIT = 1e9

STATUSES = frozenset(
    {"moved", "ran", "failed_charge", "rallied", "stunned", "knocked_down", "fleeing"}
)


@dataclass(frozen=True, slots=True)
class Unit:
    """A length unit (G1): its name and its length in mm."""

    name: str
    mm: float

    def to_mm(self, value: float) -> float:
        return value * self.mm

    def from_mm(self, value: float) -> float:
        return value / self.mm

    def length(self, mm: float) -> str:
        """The one wording of a length for people: ``"3.5 in"`` (4 significant digits)."""
        return f"{self.from_mm(mm):.4g} {self.name}"

    def measure(self, mm: float) -> Length:
        """``mm`` as a text parameter worded in this unit per language ("2.5 in", "2,5 po")."""
        return Length(float(mm), self.name, self.mm)

    def at(self, x: float, y: float) -> At:
        """A point as a text parameter in this unit per language ("(2.5, 3)", "(2,5 ; 3)")."""
        return At(float(x), float(y), self.mm)

    def point(self, x: float, y: float) -> str:
        """The one wording of a point for people: ``"(12, 3.5)"`` in this unit."""
        return f"({self.from_mm(x):.4g}, {self.from_mm(y):.4g})"


MM = Unit("mm", 1.0)


@dataclass(frozen=True, slots=True)
class Terrain:
    """A terrain piece (G3): ``blocks`` is a large piece (F2), ``cover`` a small one (F3)."""

    id: str
    footprint: Footprint
    sight: Sight = "blocks"
    size: str = "huge"
    name: str = ""
    height: float | None = None
    building: bool = False
    _hash: int = field(default=0, init=False, compare=False, hash=False, repr=False)

    def __hash__(self) -> int:
        """The fields' hash, computed once (a footprint of many corners hashes them all)."""
        return _cached_hash(self, _TERRAIN_FIELDS)

    @property
    def blocks(self) -> bool:
        return self.sight == "blocks"


def _cached_hash(value: Terrain | Model, names: tuple[str, ...]) -> int:
    """The hash of ``value``'s fields ``names``, kept in its ``_hash`` the first time
    (never 0 once computed)."""
    if not value._hash:
        object.__setattr__(value, "_hash", hash(tuple(getattr(value, n) for n in names)) or 1)
    return value._hash


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon: a missile weapon has a range in mm, a breath weapon its B4 notation."""

    name: str
    range: float | None = None
    breath: str | None = None


@dataclass(frozen=True, slots=True)
class Model:
    """A model on the table (G2)."""

    id: str
    side: str
    at: Point
    base: Disc = DEFAULT_BASE
    size: str = "medium"
    name: str = ""
    height: float | None = None
    elevation: float = 0.0
    inside: str | None = None
    large_target: bool = False
    stats: tuple[tuple[str, float], ...] = ()
    status: frozenset[str] = frozenset()
    engaged: tuple[str, ...] = ()
    weapons: tuple[Weapon, ...] = ()
    _hash: int = field(default=0, init=False, compare=False, hash=False, repr=False)

    def __hash__(self) -> int:
        """The fields' hash, computed once: every table made by moving one model (a drag
        on the page, a margin's copy) hashes all the others again."""
        return _cached_hash(self, _MODEL_FIELDS)

    def stat(self, name: str, default: float | None = None) -> float | None:
        """The named stat (``bs``, ``tir``...), or ``default``."""
        return dict(self.stats).get(name, default)


#: The fields equality compares, which the hashes read.
_TERRAIN_FIELDS = tuple(f.name for f in dataclasses.fields(Terrain) if f.compare)
_MODEL_FIELDS = tuple(f.name for f in dataclasses.fields(Model) if f.compare)


@dataclass(frozen=True, slots=True)
class Table:
    """A whole table: its size, its terrain, its models and its conventions (G1-G5)."""

    width: float
    depth: float
    terrain: tuple[Terrain, ...] = ()
    models: tuple[Model, ...] = ()
    unit: Unit = MM
    name: str = ""
    rules: str | None = None
    contact_tolerance: float = 0.5
    beam: float = 1.0
    options: tuple[tuple[str, object], ...] = ()
    size_classes: tuple[str, ...] = DEFAULT_SIZE_CLASSES
    toise: float | None = None
    lang: str | None = field(default=None, compare=False)
    _index: dict[str, int] = field(default_factory=dict, compare=False, hash=False, repr=False)
    _hash: int = field(default=0, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        ids = {m.id: i for i, m in enumerate(self.models)}
        ids.update({t.id: -1 - i for i, t in enumerate(self.terrain)})
        object.__setattr__(self, "_index", ids)
        object.__setattr__(
            self,
            "_hash",
            hash(
                (
                    self.width,
                    self.depth,
                    self.terrain,
                    self.models,
                    self.unit,
                    self.name,
                    self.rules,
                    self.contact_tolerance,
                    self.beam,
                    repr(self.options),
                    self.size_classes,
                    self.toise,
                )
            ),
        )

    def __hash__(self) -> int:  # computed once: tables key the caches of sight indexes
        return self._hash

    def __contains__(self, ident: object) -> bool:
        return ident in self._index

    def model(self, ident: str) -> Model:
        """The model with this id; a :class:`RulesError` naming the known ids otherwise."""
        i = self._index.get(ident)
        if i is None or i < 0:
            known = join((m.id for m in self.models), empty=N_("none"))
            raise RulesError(
                T_("unknown model id {id} (models: {known})", id=repr(ident), known=known)
            )
        return self.models[i]

    def model_index(self, ident: str) -> int:
        self.model(ident)
        return self._index[ident]

    def piece(self, ident: str) -> Terrain:
        """The terrain piece with this id."""
        i = self._index.get(ident)
        if i is None or i >= 0:
            known = join((t.id for t in self.terrain), empty=N_("none"))
            raise RulesError(
                T_("unknown terrain id {id} (terrain: {known})", id=repr(ident), known=known)
            )
        return self.terrain[-1 - i]

    def sides(self) -> tuple[str, ...]:
        """The sides in order of first appearance."""
        return tuple(dict.fromkeys(m.side for m in self.models))

    def engagements(self) -> dict[str, tuple[str, ...]]:
        """Who is in close combat with whom (G2 ``engaged``), read both ways, every model
        a key, partners in table order; an unknown id is a :class:`RulesError`."""
        found: dict[str, set[str]] = {m.id: set() for m in self.models}
        for m in self.models:
            for other in m.engaged:
                if other not in found:
                    raise RulesError(
                        T_(
                            "model {model} engaged: unknown model id {id}",
                            model=repr(m.id),
                            id=repr(other),
                        )
                    )
                found[m.id].add(other)
                found[other].add(m.id)
        order = {m.id: i for i, m in enumerate(self.models)}
        return {k: tuple(sorted(v, key=order.__getitem__)) for k, v in found.items()}

    def option(self, name: str, default: object = None) -> object:
        return dict(self.options).get(name, default)

    def size_rank(self, size: str) -> int:
        """The D4 rank of a size class (0 = smallest)."""
        return self.size_classes.index(size)

    def moved(self, ident: str, to: Point) -> Table:
        """A new table with model ``ident`` standing at ``to``: finite coordinates of at
        most :data:`POSITION_LIMIT` mm (the loader's bound), else a :class:`RulesError`
        naming the model and the value."""
        i = self.model_index(ident)
        models = list(self.models)
        models[i] = replace(models[i], at=self._position(ident, to))
        return replace(self, models=tuple(models))

    def _position(self, ident: str, to: object) -> Point:
        """``to`` checked as a model's new centre (mm), as floats."""
        who = _short(ident)
        if not isinstance(to, Point):
            raise RulesError(
                T_(
                    "model {model} moved to {to}: expected a Point (x, y in mm)",
                    model=who,
                    to=_short(to),
                )
            )
        xy: list[float] = []
        for name, value in (("x", to.x), ("y", to.y)):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise RulesError(
                    T_(
                        "model {model} moved to {name} = {value}: not a number",
                        model=who,
                        name=name,
                        value=_short(value),
                    )
                )
            if not (math.isfinite(value) and abs(value) <= POSITION_LIMIT):
                raise RulesError(
                    T_(
                        "model {model} moved to {name} = {value} mm: coordinates must be "
                        "finite and within ±{limit} mm",
                        model=who,
                        name=name,
                        value=Num(float(value), "g"),
                        limit=Num(POSITION_LIMIT, "g"),
                    )
                )
            xy.append(float(value))
        return Point(xy[0], xy[1])

    def __iter__(self) -> Iterator[Model]:
        return iter(self.models)


def _short(value: object) -> str:
    """A caller's value in a message: its repr, bounded."""
    text = reprlib.repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
