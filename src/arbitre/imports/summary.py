"""What an import made of a scene, for people: walls, doors, windows, tokens by side,
segments merged, and everything left out with the reason."""

from __future__ import annotations

from dataclasses import dataclass

from arbitre.imports.scene import Dropped


@dataclass(frozen=True, slots=True)
class Summary:
    """The account of one import (lengths in the scenario's unit, inches)."""

    source: str
    format: str
    cell: str
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
    def merged(self) -> int:
        """Segments that are no longer pieces of their own (merged or duplicates)."""
        return max(0, self.segments - self.pieces)

    def lines(self) -> list[str]:
        """The summary, one fact a line."""
        sides = ", ".join(f"{n} {side}" for side, n in self.tokens) or "none"
        out = [
            f"{self.source}: {self.format}",
            f"scale: a grid cell is {self.cell}; table {self.table[0]:.4g} x "
            f"{self.table[1]:.4g} in",
            f"walls: {self.walls} pieces block (F2), {self.cover} give cover (F3), "
            f"{self.windows} windows (F5-F7)",
            f"doors: {self.doors_closed} closed (block), {self.doors_open} open (gaps)",
            f"tokens: {sum(n for _, n in self.tokens)} ({sides})",
            f"merged: {self.segments} segments into {self.pieces} pieces ({self.merged} merged)",
        ]
        if self.objects:
            out.append(f"objects: {self.objects} ({self.objects_as})")
        for d in self.dropped:
            out.append(f"dropped: {d.count} {d.what}: {d.reason}")
        return out
