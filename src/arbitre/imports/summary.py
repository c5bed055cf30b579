"""What an import made of a scene, for people: walls, doors, windows, tokens by side,
segments merged, and everything left out with the reason."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from arbitre.i18n import N_, T_, Text, join
from arbitre.imports.scene import Dropped


@dataclass(frozen=True, slots=True)
class Summary:
    """The account of one import (lengths in the scenario's unit, inches)."""

    source: str
    format: str
    scale: Text | str  # the length of a cell and where it comes from, worded when printed
    table: tuple[float, float]
    walls: int
    cover: int
    windows: int
    doors_closed: int
    doors_open: int
    tokens: tuple[tuple[str, int], ...]
    objects: int
    objects_as: str
    segments: int
    pieces: int
    dropped: tuple[Dropped, ...]

    @property
    def cell(self) -> str:
        """The length of a grid cell and where it comes from, in English (for code and
        tests; :meth:`lines` and :meth:`to_json` word it in the current language)."""
        return self.scale.render("en") if isinstance(self.scale, Text) else self.scale

    @property
    def merged(self) -> int:
        """Segments that are no longer pieces of their own (merged or duplicates)."""
        return max(0, self.segments - self.pieces)

    def lines(self) -> list[str]:
        """The summary, one fact a line, in the current language."""
        sides = join((join((n, side), sep=" ") for side, n in self.tokens), empty=N_("none"))
        tokens = sum(n for _, n in self.tokens)
        out = [
            T_("{path}: {message}", path=self.source, message=self.format),
            T_(
                "scale: a grid cell is {cell}; table {width} x {depth} in",
                cell=self.scale,
                width=float(self.table[0]),
                depth=float(self.table[1]),
            ),
            T_(
                "walls: {walls} pieces block (F2), {cover} give cover (F3), "
                "{windows} windows (F5-F7)",
                walls=self.walls,
                cover=self.cover,
                windows=self.windows,
            ),
            T_(
                "doors: {closed} closed (block), {open} open (gaps)",
                closed=self.doors_closed,
                open=self.doors_open,
            ),
            T_("tokens: {n} ({sides})", n=tokens, sides=sides),
            T_(
                "merged: {segments} segments into {pieces} pieces ({merged} merged)",
                segments=self.segments,
                pieces=self.pieces,
                merged=self.merged,
            ),
        ]
        if self.objects:
            out.append(T_("objects: {n} ({kind})", n=self.objects, kind=T_(self.objects_as)))
        for d in self.dropped:
            what = T_(WHAT[d.what]) if d.what in WHAT else d.what
            out.append(T_("dropped: {n} {what}: {reason}", n=d.count, what=what, reason=d.words))
        return [str(line) for line in out]

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON: its keys and counts, its words in the current language."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out = {("cell" if k == "scale" else k): v for k, v in out.items()}
        out["cell"] = str(self.scale)
        out["table"] = list(self.table)
        out["tokens"] = [list(t) for t in self.tokens]
        out["objects_as"] = str(T_(self.objects_as)) if self.objects_as else ""
        out["dropped"] = [
            {"what": d.what, "count": d.count, "reason": str(d.words)} for d in self.dropped
        ]
        return out


#: The things a summary says it left out (the keys of :class:`Dropped`), in words.
WHAT = {
    "walls": N_("walls"),
    "tokens": N_("tokens"),
    "objects": N_("objects"),
    "tiles": N_("tiles"),
    "lights": N_("lights"),
    "sounds": N_("sounds"),
    "drawings": N_("drawings"),
    "notes": N_("notes"),
    "templates": N_("templates"),
    "regions": N_("regions"),
    "grid": N_("grid"),
    "levels": N_("levels"),
    "pictures": N_("pictures"),
    "long strings": N_("long strings"),
}
