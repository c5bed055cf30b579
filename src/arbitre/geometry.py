"""Geometric value types of the table, in millimetres (G1), and their shapely forms.

Bases are discs (G2; a diameter of 0 is a point, F8). Terrain footprints are polygons,
circles or walls: a polyline with a thickness and windows along it (G3, F5-F7).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import shapely
import shapely.ops
from shapely.geometry.base import BaseGeometry

#: Numerical tolerance for floating-point comparisons, in mm. Far below anything a
#: player can place or measure; G4 contact uses the scenario's own tolerance.
EPS = 1e-7
#: The least size, in mm, of a base other than none (0, F8) and of a wall's thickness, a
#: circle's radius or a rectangle's side: the loader refuses smaller ones, which no measure
#: tells from a point or a line (the kernels measure such bases as points).
MIN_SIZE = 0.01
#: Footprints thinner than this (mm) are drawn this thin: shapely draws nothing of a wall
#: or a circle of 1e-20 mm, which would then stand nowhere (a point or a line still
#: blocks, G5).
THINNEST = 1e-9


@dataclass(frozen=True, slots=True)
class Point:
    """A point of the table plane, in mm."""

    x: float
    y: float

    def distance(self, other: Point) -> float:
        return math.hypot(self.x - other.x, self.y - other.y)

    def __iter__(self):  # type: ignore[no-untyped-def]
        yield self.x
        yield self.y


@dataclass(frozen=True, slots=True)
class Disc:
    """A round base of the given diameter in mm; diameter 0 means no base (F8)."""

    diameter: float

    @property
    def radius(self) -> float:
        return self.diameter / 2.0


@dataclass(frozen=True, slots=True)
class PolygonFootprint:
    """A simple polygon, vertices in order (either orientation)."""

    points: tuple[Point, ...]

    def shape(self) -> BaseGeometry:
        return _polygon([(p.x, p.y) for p in self.points])


@dataclass(frozen=True, slots=True)
class CircleFootprint:
    """A round footprint (a well, a tree trunk)."""

    centre: Point
    radius: float

    def shape(self) -> BaseGeometry:
        radius = max(self.radius, THINNEST)
        return shapely.Point(self.centre.x, self.centre.y).buffer(radius, quad_segs=64)


@dataclass(frozen=True, slots=True)
class Window:
    """An opening in a wall, from ``start`` to ``end`` mm along its polyline (F5-F7)."""

    start: float
    end: float


@dataclass(frozen=True, slots=True)
class WallFootprint:
    """A wall: a polyline of the given thickness, with windows along it (F5-F7)."""

    points: tuple[Point, ...]
    thickness: float
    windows: tuple[Window, ...] = ()

    def line(self) -> shapely.LineString:
        return shapely.LineString([(p.x, p.y) for p in self.points])

    def shape(self) -> BaseGeometry:
        return _wall_shape(self.points, self.thickness)

    def window_opening(self, window: Window) -> shapely.LineString:
        """The window's stretch of the wall's centre line."""
        return shapely.ops.substring(self.line(), window.start, window.end)

    def window_slice(self, window: Window) -> BaseGeometry:
        """The part of the wall's footprint that the window opens (F5, F6)."""
        opening = self.window_opening(window)
        return _wall_shape(tuple(Point(x, y) for x, y in opening.coords), self.thickness)

    def solid(self) -> BaseGeometry:
        """The wall's footprint with its windows cut out (the opening ignored, F6)."""
        return self.opened(range(len(self.windows)))

    def opened(self, windows: Iterable[int]) -> BaseGeometry:
        """The wall's footprint with the windows of these indices cut out (F5: the one
        window a shooter stands at; M12: every window)."""
        shape = self.shape()
        for k in windows:
            shape = shape.difference(self.window_slice(self.windows[k]).buffer(EPS))
        return shape

    @property
    def length(self) -> float:
        return float(self.line().length)


Footprint = PolygonFootprint | CircleFootprint | WallFootprint


def rect_points(at: Point, width: float, depth: float, angle: float) -> tuple[Point, ...]:
    """Corners of a rectangle centred on ``at``, rotated ``angle`` degrees counter-clockwise."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    half = (
        (-width / 2, -depth / 2),
        (width / 2, -depth / 2),
        (width / 2, depth / 2),
        (-width / 2, depth / 2),
    )
    return tuple(Point(at.x + c * dx - s * dy, at.y + s * dx + c * dy) for dx, dy in half)


@lru_cache(maxsize=4096)
def _wall_shape(points: tuple[Point, ...], thickness: float) -> BaseGeometry:
    line = shapely.LineString([(p.x, p.y) for p in points])
    half = max(thickness / 2.0, THINNEST)
    return line.buffer(half, cap_style="flat", join_style="mitre", mitre_limit=10.0)


def _polygon(coords: list[tuple[float, float]]) -> BaseGeometry:
    return shapely.Polygon(coords)


def disc_shape(centre: Point, base: Disc) -> BaseGeometry:
    """The shapely form of a base: a fine polygon, or a point for no base."""
    if base.radius <= 0:
        return shapely.Point(centre.x, centre.y)
    return shapely.Point(centre.x, centre.y).buffer(max(base.radius, THINNEST), quad_segs=64)
