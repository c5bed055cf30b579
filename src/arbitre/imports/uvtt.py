"""Reading a Universal VTT scene (``.dd2vtt``, ``.uvtt``, ``.df2vtt``; formats 0.2 and
0.3) into a :class:`~arbitre.imports.scene.Scene`.

Coordinates are in grid cells from ``resolution.map_origin``, y down; the map is
``resolution.map_size`` cells. ``line_of_sight`` polylines are walls that block (F2);
``objects_line_of_sight`` outlines are objects (the converter makes them cover, blockers
or nothing, ``--objects``). A ``portal`` (``bounds``: its two ends) that is ``closed`` is
a door that blocks: lying on a wall (anchored, ``freestanding: false``) it becomes that
wall's window (F5-F7), freestanding a wall piece of its own; an open one is an opening:
a gap, cut out of the wall it lies on if the wall runs through it. The embedded picture
(``image``) is never decoded (:mod:`arbitre.imports.stream` leaves it out unread).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from arbitre.i18n import T_
from arbitre.imports.checks import Doc, Number, Positive, checked
from arbitre.imports.scene import XY, Dropped, Outline, Scene, Segment


class PointDoc(Doc):
    x: Number
    y: Number


class ResolutionDoc(Doc):
    map_origin: PointDoc = PointDoc(x=0.0, y=0.0)
    map_size: PointDoc
    pixels_per_grid: Positive | None = None


class PortalDoc(Doc):
    bounds: Annotated[list[PointDoc], Field(min_length=2, max_length=2)]
    closed: bool = True
    freestanding: bool = False


class UvttDoc(Doc):
    format: Number | None = None
    resolution: ResolutionDoc
    line_of_sight: list[list[PointDoc]] = Field(default_factory=list)
    objects_line_of_sight: list[list[PointDoc]] = Field(default_factory=list)
    portals: list[PortalDoc] = Field(default_factory=list)
    lights: list[object] = Field(default_factory=list)


def scene(doc: object, *, source: str | None = None) -> Scene:
    """The scene of a parsed Universal VTT document; a ScenarioError naming every bad
    field (``portals[2].bounds``) otherwise."""
    d = checked(UvttDoc, doc, source)
    res = d.resolution
    ox, oy, depth = res.map_origin.x, res.map_origin.y, res.map_size.y

    def xy(p: PointDoc) -> XY:
        return (p.x - ox, depth - (p.y - oy))

    segments: list[Segment] = []
    for i, line in enumerate(d.line_of_sight):
        for k in range(len(line) - 1):
            segments.append(
                Segment("wall", xy(line[k]), xy(line[k + 1]), f"line_of_sight[{i}][{k}]")
            )
    closed = opened = 0
    for i, portal in enumerate(d.portals):
        a, b = (xy(p) for p in portal.bounds)
        where = f"portals[{i}]"
        if portal.closed:
            closed += 1
            segments.append(Segment("wall" if portal.freestanding else "portal", a, b, where))
        else:
            opened += 1
            if not portal.freestanding:
                segments.append(Segment("opening", a, b, where))
    outlines = tuple(
        Outline(tuple(xy(p) for p in line), f"objects_line_of_sight[{i}]")
        for i, line in enumerate(d.objects_line_of_sight)
        if len(line) >= 2
    )
    dropped = []
    if d.lights:
        dropped.append(Dropped("lights", len(d.lights), T_("light sources: no rule uses them")))
    version = "" if d.format is None else f" {d.format:g}"
    return Scene(
        format=f"Universal VTT{version}",
        name="",
        width=res.map_size.x,
        depth=depth,
        segments=tuple(segments),
        outlines=outlines,
        doors_closed=closed,
        doors_open=opened,
        dropped=tuple(dropped),
    )
