"""Reading a Foundry VTT scene (its exported JSON) into a
:class:`~arbitre.imports.scene.Scene`.

Grid layouts: v9 states ``grid`` (pixels a cell), ``gridType``, ``gridDistance`` and
``gridUnits`` at the top level; v10-v13 a mapping ``grid: {type, size, distance,
units}``; v14 adds ``levels`` (one is imported: ``level``, else the scene's
``initialLevel``, else the lowest). Canvas pixels are offset by the scene's padding:
``ceil(padding * width / size) * size`` on x (height on y), y down.

Walls ``c = [x0, y0, x1, y1]`` by their ``sight`` (v9: ``sense``): 0 none (left out),
10 limited (small cover, F3), 20 normal (blocks, F2), 30 proximity and 40 distance
(windows, F5-F7: wall pieces whose whole length is a window). Doors (``door`` 1 or 2)
closed or locked (``ds`` 0 or 2) are walls of their sight; open (``ds`` 1) they are gaps.
One-way walls (``dir`` 1 or 2) are left out: arbitre's walls block both ways. Tokens (top
left ``x``, ``y``; ``width``, ``height`` in cells) become models with round bases as wide
as the token, on the side of their ``disposition``.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import Field

from arbitre.errors import Problem, ScenarioError
from arbitre.i18n import N_, T_, Num, Text
from arbitre.imports.checks import Doc, NonNegative, Number, Positive, checked
from arbitre.imports.scene import Dropped, Kind, Scene, Segment, Token
from arbitre.problems import got

#: Token dispositions (CONST.TOKEN_DISPOSITIONS) and the sides they become.
SIDES = {-2: "secret", -1: "hostile", 0: "neutral", 1: "friendly"}
#: Wall sight types (CONST.WALL_SENSE_TYPES) and what they become.
SIGHT: dict[int, Kind | None] = {0: None, 10: "cover", 20: "wall", 30: "window", 40: "window"}
GRID_TYPES = {
    0: N_("gridless"),
    1: N_("square"),
    2: N_("hexagonal rows (odd)"),
    3: N_("hexagonal rows (even)"),
    4: N_("hexagonal columns (odd)"),
    5: N_("hexagonal columns (even)"),
}
#: Collections of a scene no rule uses, and why they are left out.
UNUSED = {
    "tiles": N_("tiles (pictures on the map)"),
    "lights": N_("light sources: no rule uses them"),
    "sounds": N_("ambient sounds"),
    "drawings": N_("drawings"),
    "notes": N_("journal notes"),
    "templates": N_("measured templates"),
    "regions": N_("regions (scene behaviours)"),
}


class GridDoc(Doc):
    type: int = 1
    size: Positive = 100.0
    distance: NonNegative | None = None
    units: str | None = None


class WallDoc(Doc):
    c: Annotated[list[Number], Field(min_length=4, max_length=4)]
    sight: int | None = None
    sense: int | None = None
    door: int = 0
    ds: int = 0
    dir: int = 0
    levels: list[str] | None = None
    level: str | None = None

    def on(self, level: str | None) -> bool:
        """Whether the wall stands on ``level`` (no level stated: on every level)."""
        if level is None or (self.levels is None and self.level is None):
            return True
        return level in (self.levels or []) or level == self.level


class TokenDoc(Doc):
    name: str = ""
    x: Number = 0.0
    y: Number = 0.0
    width: Positive = 1.0
    height: Positive = 1.0
    disposition: int = -1
    elevation: Number = 0.0
    level: str | None = None


class LevelDoc(Doc):
    id: str = Field("", alias="_id")
    name: str = ""
    sort: Number = 0.0


class FoundryDoc(Doc):
    name: str = ""
    width: Positive = 4000.0
    height: Positive = 3000.0
    padding: Annotated[float, Field(strict=True, ge=0, le=0.5)] = 0.25
    grid: GridDoc | Positive = 100.0
    gridType: int = 1
    gridDistance: NonNegative | None = None
    gridUnits: str | None = None
    walls: list[WallDoc] = Field(default_factory=list)
    tokens: list[TokenDoc] = Field(default_factory=list)
    levels: list[LevelDoc] | None = None
    initialLevel: str | None = None


def version(doc: FoundryDoc) -> str:
    """Which grid layout the scene is written in."""
    if doc.levels is not None:
        return "Foundry VTT v14"
    return "Foundry VTT v10-v13" if isinstance(doc.grid, GridDoc) else "Foundry VTT v9"


def scene(doc: object, *, source: str | None = None, level: str | None = None) -> Scene:
    """The scene of a parsed Foundry VTT document; a ScenarioError naming every bad field
    (``walls[3].c``) otherwise. ``level`` picks a v14 level by id or name."""
    d = checked(FoundryDoc, doc, source)
    raw: dict[str, Any] = doc if isinstance(doc, dict) else {}
    if isinstance(d.grid, GridDoc):
        size, gtype, distance, units = d.grid.size, d.grid.type, d.grid.distance, d.grid.units
    else:
        size, gtype, distance, units = d.grid, d.gridType, d.gridDistance, d.gridUnits
    off_x = math.ceil(d.padding * d.width / size) * size
    off_y = math.ceil(d.padding * d.height / size) * size
    width, depth = d.width / size, d.height / size

    def xy(px: float, py: float) -> tuple[float, float]:
        return ((px - off_x) / size, depth - (py - off_y) / size)

    dropped: list[Dropped] = []
    chosen, others = _level(d, level, source)
    counts: dict[tuple[str, Text], int] = {}

    def drop(what: str, reason: Text) -> None:
        counts[what, reason] = counts.get((what, reason), 0) + 1

    segments: list[Segment] = []
    closed = opened = 0
    for i, w in enumerate(d.walls):
        where = f"walls[{i}]"
        if not w.on(chosen):
            drop("walls", T_("on another level than {level}", level=repr(chosen)))
            continue
        sight = w.sight if w.sight is not None else (w.sense if w.sense is not None else 20)
        if sight not in SIGHT:
            raise ScenarioError(
                [Problem(f"{where}.sight", got(T_("must be 0, 10, 20, 30 or 40"), sight))],
                source=source,
            )
        if w.dir in (1, 2):
            drop("walls", T_("one-way walls (dir 1 or 2): arbitre's walls block both ways"))
            continue
        if w.door in (1, 2):
            if w.ds == 1:
                opened += 1
                continue
            closed += 1
        kind = SIGHT[sight]
        if kind is None:
            drop("walls", T_("sight 0 (none): they do not stop sight"))
            continue
        a, b = xy(w.c[0], w.c[1]), xy(w.c[2], w.c[3])
        segments.append(Segment(kind, a, b, where))
    tokens: list[Token] = []
    for i, t in enumerate(d.tokens):
        if chosen is not None and t.level is not None and t.level != chosen:
            drop("tokens", T_("on another level than {level}", level=repr(chosen)))
            continue
        x, y = xy(t.x + t.width * size / 2, t.y + t.height * size / 2)
        if not (0 <= x <= width and 0 <= y <= depth):
            drop("tokens", T_("outside the scene (in its padding)"))
            continue
        climb = t.elevation / distance if distance else 0.0
        side = SIDES.get(t.disposition, "neutral")
        tokens.append(Token(t.name, side, (x, y), t.width, climb, f"tokens[{i}]"))
    for key, reason in UNUSED.items():
        found = raw.get(key)
        if isinstance(found, list) and found:
            dropped.append(Dropped(key, len(found), T_(reason)))
    if gtype != 1:
        known = GRID_TYPES.get(gtype)
        kind_name = T_(known) if known else T_("type {n}", n=gtype)
        dropped.append(
            Dropped(
                "grid",
                1,
                T_(
                    "{kind} grid: arbitre has no such grid; a cell is its size, {size} px",
                    kind=kind_name,
                    size=Num(size, "g"),
                ),
            )
        )
    if others:
        dropped.append(
            Dropped("levels", len(others), T_("other levels: {names}", names=", ".join(others)))
        )
    for (what, why), n in counts.items():
        dropped.append(Dropped(what, n, why))
    grid = (distance, units) if distance and units else None
    return Scene(
        format=version(d),
        name=d.name,
        width=width,
        depth=depth,
        segments=tuple(segments),
        tokens=tuple(tokens),
        grid=grid,
        doors_closed=closed,
        doors_open=opened,
        dropped=tuple(dropped),
    )


def _level(d: FoundryDoc, wanted: str | None, source: str | None) -> tuple[str | None, list[str]]:
    """The id of the v14 level imported, and the names of the others (G6: one level)."""
    if not d.levels:
        if wanted is not None:
            raise ScenarioError(
                [
                    Problem(
                        "levels",
                        T_(
                            "the scene has no levels, cannot import level {level}",
                            level=repr(wanted),
                        ),
                    )
                ],
                source=source,
            )
        return None, []
    levels = sorted(d.levels, key=lambda lv: lv.sort)
    if wanted is not None:
        found = [lv for lv in levels if wanted in (lv.id, lv.name)]
        if not found:
            known = ", ".join(f"{lv.id} ({lv.name})" for lv in levels)
            raise ScenarioError(
                [
                    Problem(
                        "levels",
                        T_("no level {level} (levels: {known})", level=repr(wanted), known=known),
                    )
                ],
                source=source,
            )
        pick = found[0]
    else:
        first = [lv for lv in levels if lv.id == d.initialLevel]
        pick = first[0] if first else levels[0]
    return pick.id, [f"{lv.name or lv.id}" for lv in levels if lv is not pick]
