"""The key of a table picture (a face): one row per meaning, each drawn with the symbol
the picture uses for it, and a scale bar.

A row is ``(kind, colour, text)``. Kinds: ``head`` (a heading), ``disc`` (a side),
``swatch`` (a filled square), ``area`` (a square filled at :data:`AREA_OPACITY` and
outlined in the same colour, as overlays draw areas), ``line``, ``dash``, ``ring``,
``note`` (a statement, with a small dot), ``label`` (the text's first word drawn as the
picture writes it, in the colour, then the rest).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from arbitre.faces.svg.draw import INK, f, text, width, xywh
from arbitre.faces.svg.draw import circle as draw_circle
from arbitre.geometry import Point
from arbitre.i18n import Num, current, unit_name
from arbitre.table import Table

Row = tuple[str, str, str]

#: Opacity of the areas overlays fill (a window of sight...), and of their legend swatch.
AREA_OPACITY = 0.15
#: The shooter's ring colour (its legend ring is drawn with a dark outline).
SHOOTER = "#ffd000"


def height(rows: Sequence[Row], u: float) -> float:
    """The height the rows take, scale bar included."""
    return (sum(24 if r[0] == "head" else 20 for r in rows) + 50) * u


def draw(svg: ET.Element, table: Table, rows: Sequence[Row], x: float, y: float, u: float) -> None:
    """The rows from ``(x, y)`` down, then the scale bar in the table's unit."""
    g = ET.SubElement(svg, "g", {"class": "legend"})
    for kind, colour, label in rows:
        y += (24 if kind == "head" else 20) * u
        if kind == "head":
            text(g, x, y, label, 12 * u, anchor="start", bold=True)
            continue
        row = ET.SubElement(
            g, "g", {"class": "legend-row", "data-kind": kind, "data-colour": colour}
        )
        if kind == "label":
            sample, _, rest = label.partition(" ")
            text(row, x, y, sample, 12 * u, anchor="start", fill=colour, bold=True)
            after = max(x + 24 * u, x + width(sample, 12 * u) + 4 * u)
            text(row, after, y, rest, 11 * u, anchor="start", halo=False)
            continue
        _symbol(row, kind, colour, x, y, u)
        text(row, x + 24 * u, y, label, 11 * u, anchor="start", halo=False)
    _scale_bar(g, table, x, y + 30 * u, u)


def _symbol(g: ET.Element, kind: str, colour: str, x: float, y: float, u: float) -> None:
    at, thin = Point(x + 8 * u, -(y - 4 * u)), {"stroke": INK, "stroke-width": f(u)}
    square = xywh((x, y - 11 * u, 16 * u, 14 * u))
    if kind == "disc":
        draw_circle(g, at, 7 * u, {"fill": colour} | thin)
    elif kind == "swatch":
        ET.SubElement(g, "rect", square | {"fill": colour} | thin)
    elif kind == "area":
        ET.SubElement(
            g,
            "rect",
            square
            | {
                "fill": colour,
                "fill-opacity": f(AREA_OPACITY),
                "stroke": colour,
                "stroke-width": f(1.5 * u),
            },
        )
    elif kind == "ring":
        rings = ((INK, 5.0), (colour, 3.0)) if colour == SHOOTER else ((colour, 3.0),)
        for stroke, w in rings:
            draw_circle(g, at, 6 * u, {"fill": "none", "stroke": stroke, "stroke-width": f(w * u)})
    elif kind == "note":
        draw_circle(g, at, 3 * u, {"fill": colour})
    else:
        attrs = {
            "x1": f(x),
            "y1": f(y - 4 * u),
            "x2": f(x + 18 * u),
            "y2": f(y - 4 * u),
            "stroke": colour,
            "stroke-width": f(3 * u),
        }
        if kind == "dash":
            attrs["stroke-dasharray"] = f"{f(6 * u)} {f(3 * u)}"
        ET.SubElement(g, "line", attrs)


def _scale_bar(g: ET.Element, table: Table, x: float, y: float, u: float) -> None:
    bar = nice_step(table.unit.from_mm(max(table.width, table.depth)))
    while table.unit.to_mm(bar) > 180 * u:  # a scale bar that fits in the legend
        bar /= 2
    end = x + table.unit.to_mm(bar)
    ET.SubElement(
        g,
        "path",
        {
            "d": f"M{f(x)} {f(y - 6 * u)}V{f(y)}H{f(end)}V{f(y - 6 * u)}",
            "fill": "none",
            "stroke": INK,
            "stroke-width": f(2 * u),
        },
    )
    words = f"{Num(bar, 'g')} {unit_name(table.unit.name, current(), bar)}"
    text(g, x, y + 14 * u, words, 11 * u, anchor="start", halo=False)


def nice_step(length: float, lines: int = 10) -> float:
    """A round grid step (1, 2 or 5 times a power of ten) giving about ``lines`` lines."""
    raw = length / lines if length > 0 else 1.0
    mag = 10.0 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1.0, 2.0, 5.0, 10.0) if m * mag >= raw * 0.999)
