"""Drawing primitives shared by the pictures (a face): numbers, text with a halo, circles,
paths from shapely geometries, and text labels placed where they overlap the least.

Coordinates are millimetres with y going up; SVG's y goes down, so points are drawn at
``(x, -y)``.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Any

import shapely

from arbitre.geometry import Point
from arbitre.table import Table

INK = "#1a1a1a"

Box = tuple[float, float, float, float]


def text(
    parent: ET.Element,
    x: float,
    y: float,
    text: str,
    size: float,
    *,
    anchor: str = "middle",
    fill: str = INK,
    bold: bool = False,
    italic: bool = False,
    halo: bool = True,
    cls: str | None = None,
) -> None:
    attrs = {"x": f(x), "y": f(y), "font-size": f(size), "text-anchor": anchor, "fill": fill}
    attrs |= ({"class": cls} if cls else {}) | ({"font-weight": "bold"} if bold else {})
    attrs |= {"font-style": "italic"} if italic else {}
    if halo:
        attrs |= {
            "stroke": "#ffffff",
            "stroke-width": f(size * 0.3),
            "stroke-linejoin": "round",
            "paint-order": "stroke",
        }
    ET.SubElement(parent, "text", attrs).text = text


def circle(parent: ET.Element, at: Point, r: float, attrs: dict[str, str]) -> None:
    ET.SubElement(parent, "circle", {"cx": f(at.x), "cy": f(-at.y), "r": f(r)} | attrs)


def path(geom: Any) -> str:
    """SVG path data of a polygonal shapely geometry, y flipped."""
    d = []
    for poly in shapely.get_parts(geom):
        if poly.geom_type == "Polygon" and not poly.is_empty:
            for ring in (poly.exterior, *poly.interiors):
                d.append("M" + "L".join(f"{f(x)} {f(-y)}" for x, y in ring.coords[:-1]) + "Z")
    return "".join(d)


def width(text: str, size: float) -> float:
    """A generous estimate of the width of ``text`` set in bold sans-serif."""
    return 0.62 * size * len(text) + 0.3 * size


def box(cx: float, cy: float, w: float, h: float) -> Box:
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def overlap(a: Box, b: Box) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def xywh(box: Box) -> dict[str, str]:
    return dict(zip(("x", "y", "width", "height"), (f(v) for v in box), strict=True))


def f(v: float) -> str:
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


class Labels:
    """Text placed around things where it overlaps the fewest bases and other labels."""

    def __init__(self, table: Table, u: float) -> None:
        self.g, self.u = ET.Element("g", {"class": "labels"}), u
        self.table = (0.0, -table.depth, table.width, 0.0)
        self.boxes = [
            (
                m.id,
                box(m.at.x, -m.at.y, 2 * max(m.base.radius, 6 * u), 2 * max(m.base.radius, 6 * u)),
            )
            for m in table.models
        ]

    def put(self, x: float, y: float, words: str, size: float, **style: Any) -> None:
        """``words`` with their baseline centred on ``(x, y)`` (SVG coordinates)."""
        self.boxes.append(("", box(x, y - 0.3 * size, width(words, size), size)))
        text(self.g, x, y, words, size, **style)

    def around(
        self,
        owner: str,
        at: Point,
        r: float,
        text: str,
        size: float,
        *,
        towards: tuple[float, float] | None = None,
        **style: Any,
    ) -> None:
        """``text`` just outside the circle ``(at, r)``: below it if free, else the free
        side nearest ``towards`` (an SVG direction), else the least crowded side."""
        w, h, pad = width(text, size), size, 2 * self.u
        sides = (
            SIDES
            if towards is None
            else sorted(
                SIDES, key=lambda d: -(d[0] * towards[0] + d[1] * towards[1]) / math.hypot(*d)
            )
        )
        best: tuple[float, float, float] | None = None
        for dx, dy in sides:
            k = 0.75 if dx and dy else 1.0
            cx, cy = at.x + dx * (r * k + pad + w / 2), -at.y + dy * (r * k + pad + h / 2)
            here = box(cx, cy, w, h)
            cost = sum(overlap(here, b) for o, b in self.boxes if o != owner)
            cost += w * h - overlap(here, self.table)  # off the table: over the edge labels
            if best is None or cost < best[0] - 1e-9:
                best = (cost, cx, cy)
            if cost <= 0:
                break
        assert best is not None
        self.put(best[1], best[2] + 0.35 * size, text, size, **style)


#: Label sides as SVG directions, in order of preference: below, above, right, left...
SIDES = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))


def ring(centre: Point, r: float, n: int = 96) -> tuple[Point, ...]:
    """A circle as a closed polygon of ``n`` points (for drawings that take points)."""
    return tuple(
        Point(
            centre.x + r * math.cos(2 * math.pi * k / n),
            centre.y + r * math.sin(2 * math.pi * k / n),
        )
        for k in range(n)
    )
