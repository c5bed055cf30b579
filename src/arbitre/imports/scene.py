"""The neutral form of an imported scene: what both readers (Universal VTT, Foundry VTT)
give and the converter turns into a scenario. Lengths are in grid cells, the origin at
the scene's lower-left corner, y up (SCENARIO.md); the converter scales cells to the
scenario's unit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from arbitre.i18n import Text

XY = tuple[float, float]

#: What a segment becomes (G3, F5-F7): ``wall`` blocks (large terrain, F2); ``cover`` is
#: small terrain (F3); ``window`` a wall piece whose whole length is a window (F5-F7);
#: ``portal`` a closed portal lying on a wall: that wall's window; ``opening`` an open
#: portal lying on a wall: a gap cut out of it.
Kind = Literal["wall", "cover", "window", "portal", "opening"]


@dataclass(frozen=True, slots=True)
class Segment:
    """One straight piece of a wall, door or portal, and where the file states it."""

    kind: Kind
    a: XY
    b: XY
    where: str


@dataclass(frozen=True, slots=True)
class Outline:
    """An object's outline (Universal VTT ``objects_line_of_sight``)."""

    points: tuple[XY, ...]
    where: str


@dataclass(frozen=True, slots=True)
class Token:
    """A token: its centre, its width in cells (a round base that wide), its side."""

    name: str
    side: str
    at: XY
    width: float
    elevation: float
    where: str


@dataclass(frozen=True, slots=True)
class Dropped:
    """Something of the file left out, how many, and why."""

    what: str  # a key of the file ("walls", "tiles"), worded by the summary
    count: int
    words: Text | str  # why, worded when printed (the summary, its JSON)

    @property
    def reason(self) -> str:
        """Why, in English (the words of :attr:`words`, for code and tests)."""
        return self.words.render("en") if isinstance(self.words, Text) else self.words


@dataclass(frozen=True, slots=True)
class Scene:
    """A scene read from a file, before scaling (lengths in grid cells)."""

    format: str
    name: str
    width: float
    depth: float
    segments: tuple[Segment, ...] = ()
    outlines: tuple[Outline, ...] = ()
    tokens: tuple[Token, ...] = ()
    #: The length of a grid cell the scene states (``(5.0, "ft")``), if any.
    grid: tuple[float, str] | None = None
    doors_closed: int = 0
    doors_open: int = 0
    dropped: tuple[Dropped, ...] = ()
