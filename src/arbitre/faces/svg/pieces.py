"""How the things of a table are drawn (a face): the table and its grid, a terrain piece
with its windows, a model's base (or its cross when it has none), the shooter's ring,
and the outlines marking blockers and cover. Coordinates as in
:mod:`arbitre.faces.svg.table`: mm, y drawn at ``-y``."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from arbitre.faces.svg.draw import INK
from arbitre.faces.svg.draw import circle as _circle
from arbitre.faces.svg.draw import f as _f
from arbitre.faces.svg.draw import path as _path
from arbitre.faces.svg.draw import text as _text
from arbitre.faces.svg.draw import xywh as _xywh
from arbitre.faces.svg.legend import SHOOTER, nice_step
from arbitre.geometry import CircleFootprint, WallFootprint
from arbitre.i18n import Num
from arbitre.table import Model, Table, Terrain

TABLE_FILL, GRID = "#f6f1e3", "#d9cfb4"
BLOCKS_FILL, COVER_FILL, COVER_HATCH, WINDOW_FILL = "#555555", "#c9e6b0", "#4f8f32", "#7fd0ff"
#: Width in screen pixels of the outline marking a blocker or a cover piece.
MARK_PX = 3.5


def shooter_ring(svg: ET.Element, ring: Model, u: float) -> None:
    g = ET.SubElement(svg, "g", {"class": "shooter", "data-id": ring.id, "fill": "none"})
    for colour, w in ((INK, 7.0), (SHOOTER, 4.5)):
        _circle(
            g,
            ring.at,
            max(ring.base.radius, 6 * u) + 4 * u,
            {"stroke": colour, "stroke-width": _f(w * u)},
        )


def grid(svg: ET.Element, table: Table, u: float) -> None:
    """The table's border, a light grid at a round step of its unit, and edge labels."""
    g = ET.SubElement(svg, "g", {"class": "grid"})
    edges = _xywh((0, -table.depth, table.width, table.depth))
    ET.SubElement(g, "rect", edges | {"fill": TABLE_FILL})
    longest = table.unit.from_mm(max(table.width, table.depth))
    step, lines = nice_step(longest), []
    for k in range(int(longest / step + 1e-6) + 1):
        mm, label = table.unit.to_mm(k * step), Num(k * step, "g").render()
        if mm <= table.width + 1e-6:
            _text(g, mm, 14 * u, label, 9 * u, fill="#777", halo=False)
            lines.append(f"M{_f(mm)} 0V{_f(-table.depth)}")
        if mm <= table.depth + 1e-6:
            _text(g, -5 * u, -mm + 3 * u, label, 9 * u, anchor="end", fill="#777", halo=False)
            lines.append(f"M0 {_f(-mm)}H{_f(table.width)}")
    ET.SubElement(g, "path", {"d": "".join(lines), "stroke": GRID, "stroke-width": _f(u)})
    ET.SubElement(g, "rect", edges | {"fill": "none", "stroke": INK, "stroke-width": _f(2.5 * u)})


def terrain(svg: ET.Element, piece: Terrain, u: float) -> None:
    g = ET.SubElement(
        svg,
        "g",
        {
            "class": f"terrain {piece.sight}",
            "data-id": piece.id,
            "fill": BLOCKS_FILL if piece.blocks else "url(#cover-hatch)",
            "stroke": "#222222" if piece.blocks else COVER_HATCH,
            "stroke-width": _f(1.2 * u),
        },
    )
    ET.SubElement(g, "title").text = piece.name or piece.id
    shape(g, piece, {})
    fp = piece.footprint
    if isinstance(fp, WallFootprint):
        for w in fp.windows:
            ET.SubElement(
                g,
                "path",
                {
                    "class": "window",
                    "d": _path(fp.window_slice(w)),
                    "fill": WINDOW_FILL,
                    "stroke": "#0a5a8a",
                },
            )


def shape(parent: ET.Element, piece: Terrain, attrs: dict[str, str]) -> None:
    fp = piece.footprint
    if isinstance(fp, CircleFootprint):
        _circle(parent, fp.centre, fp.radius, attrs)
    else:
        ET.SubElement(parent, "path", {"d": _path(fp.shape()), "fill-rule": "evenodd"} | attrs)


def model(svg: ET.Element, model: Model, colour: str, u: float) -> None:
    g = ET.SubElement(svg, "g", {"class": "model", "data-id": model.id, "data-side": model.side})
    ET.SubElement(g, "title").text = f"{model.name or model.id} ({model.side})"
    if model.base.radius > 0:
        _circle(
            g,
            model.at,
            model.base.radius,
            {"fill": colour, "stroke": INK, "stroke-width": _f(1.2 * u)},
        )
        return
    x, y, d = model.at.x, -model.at.y, 6 * u  # no base: the model is its centre (F8)
    cross = (
        f"M{_f(x - d)} {_f(y - d)}L{_f(x + d)} {_f(y + d)}"
        f"M{_f(x - d)} {_f(y + d)}L{_f(x + d)} {_f(y - d)}"
    )
    for stroke, w in ((INK, 5.5), (colour, 3.0)):
        ET.SubElement(
            g,
            "path",
            {
                "class": "point",
                "d": cross,
                "stroke": stroke,
                "stroke-width": _f(w * u),
                "stroke-linecap": "round",
            },
        )


def marks(svg: ET.Element, things: Sequence[Terrain | Model], colour: str, width: float) -> None:
    """Outline the pieces and models the rulings name as blockers or as cover."""
    if not things:
        return
    g = ET.SubElement(
        svg,
        "g",
        {
            "class": "mark",
            "fill": "none",
            "stroke": colour,
            "stroke-width": _f(width),
            "stroke-linejoin": "round",
        },
    )
    for t in things:
        if isinstance(t, Terrain):
            shape(g, t, {"data-id": t.id})
        else:
            r = max(t.base.radius, 6 * width / MARK_PX) + width / 2
            _circle(g, t.at, r, {"data-id": t.id})


def label_point(piece: Terrain, u: float) -> tuple[float, float]:
    """Where a piece's id goes (SVG coordinates, baseline): its middle, or beside a wall."""
    fp = piece.footprint
    if isinstance(fp, WallFootprint):
        line = fp.line()
        a, b = line.interpolate(0.45, normalized=True), line.interpolate(0.55, normalized=True)
        mid, n = line.interpolate(0.5, normalized=True), math.hypot(b.x - a.x, b.y - a.y) or 1
        off = (fp.thickness / 2 + 9 * u) / n
        return float(mid.x - (b.y - a.y) * off), float(-mid.y - (b.x - a.x) * off) + 4 * u
    if isinstance(fp, CircleFootprint):
        return fp.centre.x, -fp.centre.y + 4 * u
    shape = fp.shape()
    p = shape.centroid if shape.centroid.within(shape) else shape.representative_point()
    return float(p.x), float(-p.y) + 4 * u
