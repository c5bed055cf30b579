"""The documents of a table scenario (SCENARIO.md, format 1) as pydantic models: the
fields, their types and bounds, the counts a file may hold. :mod:`arbitre.scenario` reads
files into them, checks what types cannot say, and builds the :class:`~arbitre.table.Table`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, StrictBool, Tag, field_validator
from pydantic_core import PydanticCustomError

from arbitre.table import DEFAULT_SIZE_CLASSES

#: Largest magnitude of any number, in the scenario's unit: far beyond any table, and small
#: enough that converting to mm never overflows.
LIMIT = 1e9
#: Most items of each kind a scenario may hold: far beyond real tables, small enough that
#: every question stays bounded (issue: hostile files).
MAX_MODELS = 5_000
MAX_TERRAIN = 5_000
MAX_VERTICES = 10_000
MAX_ITEMS = 1_000
#: The base of a model that states none: the recommended uniform base (F8), in mm.
DEFAULT_BASE_MM = 25.0
FOOTPRINTS = ("polygon", "rect", "circle", "wall")


def _number(*, ge: float | None = None, gt: float | None = None) -> Any:
    return Field(strict=True, allow_inf_nan=False, ge=ge, gt=gt, le=LIMIT)


Number = Annotated[float, _number(ge=-LIMIT)]
NonNegative = Annotated[float, _number(ge=0)]
Positive = Annotated[float, _number(gt=0)]
Text = Annotated[str, Field(strict=True)]
Ident = Annotated[str, Field(strict=True, min_length=1)]
XY = Annotated[list[Number], Field(min_length=2, max_length=2)]
UnitName = Literal["mm", "cm", "in", "toise"]
LangName = Literal["en", "fr"]


class Doc(BaseModel):
    # defer_build: a model's validator is built when it first validates, not when its
    # class is made (start-up, issue 16). Loading a valid file validates ScenarioDoc
    # alone, whose validator holds the other documents' schemas; their own validators
    # are built only for a file that does not validate (its pieces are then checked one
    # by one). Schemas, values and errors are the same either way (tests/test_startup.py).
    model_config = ConfigDict(extra="forbid", defer_build=True)


class RectDoc(Doc):
    """A rotated rectangle (G3): ``at`` is its centre, ``angle`` in degrees."""

    at: XY
    width: Positive
    depth: Positive
    angle: Number = 0.0


class CircleDoc(Doc):
    """A round footprint (G3)."""

    at: XY
    radius: Positive


class WindowDoc(Doc):
    """An opening in a wall, by distance along its polyline (G3, F5-F7)."""

    start: Number = Field(alias="from")
    to: Number


class WallDoc(Doc):
    """A polyline with a thickness and windows (G3)."""

    points: Annotated[list[XY], Field(min_length=2, max_length=MAX_VERTICES)]
    thickness: Positive
    windows: Annotated[list[WindowDoc], Field(max_length=MAX_ITEMS)] = []


class TerrainDoc(Doc):
    """A terrain piece (G3): exactly one of polygon, rect, circle, wall."""

    id: Ident
    name: Text | None = None
    sight: Literal["blocks", "cover"] = "blocks"
    size: Text | None = Field(None, description="default: huge if sight=blocks, small if cover")
    height: NonNegative | None = None
    building: StrictBool = False
    polygon: Annotated[list[XY], Field(min_length=3, max_length=MAX_VERTICES)] | None = None
    rect: RectDoc | None = None
    circle: CircleDoc | None = None
    wall: WallDoc | None = None


class WeaponDoc(Doc):
    """A missile weapon (range, in ``unit``) or a breath weapon (B4 notation)."""

    name: Text
    range: Positive | None = None
    unit: UnitName | None = Field(None, description="default: the scenario's unit")
    breath: Text | None = None


class TouchingDoc(Doc):
    """``at: {touching: ID, side: south}`` or ``{touching: WALL, window: 0}`` (SCENARIO.md):
    the base against a piece or a model, resolved on load to the exact point of contact."""

    touching: Ident
    side: Literal["north", "south", "east", "west", "left", "right"] | None = None
    window: Annotated[int, Field(strict=True, ge=0)] | None = None


class FromDoc(Doc):
    """``at: {from: ID, distance: 3, angle: 90}``: from another model's centre."""

    origin: Ident = Field(alias="from")
    distance: NonNegative
    angle: Number = 0.0


def _at_kind(value: object) -> str | None:
    """Which form of ``at`` a value is written in: a point, or relative to something."""
    if isinstance(value, list | tuple):
        return "point"
    if isinstance(value, dict):
        return "from" if "from" in value else "touching"
    if isinstance(value, TouchingDoc | FromDoc):
        return "touching" if isinstance(value, TouchingDoc) else "from"
    return None


#: The forms of ``at`` (the union's tags are left out of problem paths).
AT_FORMS = ("point", "touching", "from")

At = Annotated[
    Annotated[XY, Tag("point")]
    | Annotated[TouchingDoc, Tag("touching")]
    | Annotated[FromDoc, Tag("from")],
    Discriminator(
        _at_kind,
        custom_error_type="at_form",
        custom_error_message="must be [x, y], {touching: ID, ...} or {from: ID, ...}",
    ),
]


class ModelDoc(Doc):
    """A model (G2)."""

    id: Ident
    name: Text | None = None
    side: Ident
    at: At
    base: NonNegative | None = Field(None, description="diameter; absent: 25 mm; 0/null: none")
    size: Text = "medium"
    height: NonNegative | None = None
    elevation: NonNegative = 0.0
    inside: Ident | None = None
    large_target: StrictBool = False
    stats: Annotated[dict[str, Number], Field(max_length=MAX_ITEMS)] = {}
    status: Annotated[list[Text], Field(max_length=MAX_ITEMS)] = []
    engaged: Annotated[list[Ident], Field(max_length=MAX_ITEMS)] = []
    weapons: Annotated[list[WeaponDoc], Field(max_length=MAX_ITEMS)] = []


class HeaderDoc(Doc):
    """The top-level fields of a table scenario, terrain and models left aside."""

    arbitre: Literal[1]
    name: Text | None = None
    rules: Text | None = None
    lang: LangName | None = Field(None, description="language of the rulings (en, fr)")
    unit: UnitName = "mm"
    report_unit: UnitName | None = Field(None, description="unit of reports; default: unit")
    toise: Positive | None = Field(None, description="mm per toise")
    table: Annotated[list[Positive], Field(min_length=2, max_length=2)]
    contact_tolerance: NonNegative = 0.5
    beam: NonNegative = 1.0
    options: dict[str, Any] | None = None
    size_classes: Annotated[list[Ident], Field(min_length=1, max_length=MAX_ITEMS)] = list(
        DEFAULT_SIZE_CLASSES
    )
    cites: list[Text] | None = Field(None, description="golden tests: rule IDs; ignored")
    expect: Any = Field(None, description="golden tests: expected rulings; ignored")

    @field_validator("arbitre", mode="before")
    @classmethod
    def _version(cls, value: object) -> object:
        if type(value) is not int:  # Literal[1] would take True and 1.0
            raise PydanticCustomError("literal_error", "Input should be 1", {"expected": "1"})
        return value


class ScenarioDoc(HeaderDoc):
    """A table scenario file, format 1 (SCENARIO.md)."""

    terrain: Annotated[list[TerrainDoc], Field(max_length=MAX_TERRAIN)] | None = None
    models: Annotated[list[ModelDoc], Field(max_length=MAX_MODELS)] | None = None


DOCS: tuple[type[Doc], ...] = (
    TouchingDoc,
    FromDoc,
    ScenarioDoc,
    TerrainDoc,
    ModelDoc,
    WeaponDoc,
    RectDoc,
    CircleDoc,
    WallDoc,
    WindowDoc,
)
FIELDS = sorted({f.alias or n for d in DOCS for n, f in d.model_fields.items()})
