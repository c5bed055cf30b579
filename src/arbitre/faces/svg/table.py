"""SVG pictures of a table, with line-of-sight rulings drawn on it (a face: no rules here).

:func:`render_table` is a pure function: it reads a :class:`~arbitre.table.Table` and the
:class:`~arbitre.rules.ruling.LosRuling` values it is given, and returns a standalone SVG
document. It computes no rule; it only draws what the rulings say (G7, F1-F4).

Coordinates are the table's millimetres with y going up: a scenario point ``(x, y)`` is
drawn at SVG ``(x, -y)``, so the table spans ``x in [0, width]``, ``y in [-depth, 0]``
and its origin is the lower-left corner. Text and stroke sizes are set in screen pixels
and converted, so the picture reads the same on any table size.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

from arbitre.faces.svg.draw import INK, Labels
from arbitre.faces.svg.draw import circle as _circle
from arbitre.faces.svg.draw import f as _f
from arbitre.faces.svg.draw import path as _path
from arbitre.faces.svg.draw import text as _text
from arbitre.faces.svg.draw import xywh as _xywh
from arbitre.geometry import CircleFootprint, Point, WallFootprint
from arbitre.rules.ruling import LosRuling
from arbitre.table import Model, Table, Terrain

#: On-screen size in pixels of the table's longer side.
SCREEN_PX = 900.0

#: Side colours, in the order of :meth:`Table.sides`; kept apart from the ruling colours.
SIDE_COLOURS = (
    "#2f6fd0",
    "#8e44ad",
    "#13a3b5",
    "#e377c2",
    "#8c564b",
    "#e8c31a",
    "#7f7f7f",
    "#1a1a80",
)

TABLE_FILL, GRID = "#f6f1e3", "#d9cfb4"
BLOCKS_FILL, COVER_FILL, COVER_HATCH, WINDOW_FILL = "#555555", "#c9e6b0", "#4f8f32", "#7fd0ff"
#: Sight lines: clear, in cover, blocked; the shooter's ring.
CLEAR, COVERED, BLOCKED, SHOOTER = "#1b9e3e", "#f28c00", "#d62020", "#ffd000"
#: Width in screen pixels of the outline marking a blocker or a cover piece.
MARK_PX = 3.5


@dataclass(frozen=True, slots=True)
class Drawing:
    """One thing drawn over the table, in mm: a point, a polyline, or a closed polygon.

    Rulesets' pictures (a template, a line-of-sight window, a needed score) are built as
    drawings by the faces that read their rulings; :func:`render_table` only draws them.
    """

    points: tuple[Point, ...]
    closed: bool = False
    stroke: str = INK
    fill: str = "none"
    fill_opacity: float = 0.25
    width_px: float = 2.5
    dashed: bool = False
    label: str | None = None
    label_at: Point | None = None
    label_colour: str = INK
    title: str | None = None
    cls: str = "overlay"


@dataclass(frozen=True, slots=True)
class Overlay:
    """Drawings and their key: ``legend`` rows are ``(kind, colour, text)`` with kind one
    of ``line``, ``dash``, ``swatch``, ``ring``, under the heading ``title``."""

    drawings: tuple[Drawing, ...] = ()
    legend: tuple[tuple[str, str, str], ...] = ()
    title: str = ""


def render_table(
    table: Table,
    *,
    rulings: Sequence[LosRuling] = (),
    shooter: str | None = None,
    title: str | None = None,
    overlays: Sequence[Overlay] = (),
    centre_lines: bool = True,
) -> str:
    """The table as an SVG document, with ``shooter``'s rulings drawn on it.

    Each ruling of ``shooter`` draws its F1 centre line: green when the target is visible
    without cover, orange with a ``+n`` label when it gets cover (F3, F4), red dashed when
    it is not visible (F2); its ``blockers`` are outlined red and its ``cover_pieces``
    orange. Rulings of other shooters are ignored. ``title`` defaults to the table's
    name. ``overlays`` are drawn over the terrain, under the bases, with their legend;
    ``centre_lines=False`` leaves out the F1 lines for rulesets that draw their own.
    A shooter or target that is not a model of the table raises
    :class:`~arbitre.errors.RulesError`.
    """
    u = max(table.width, table.depth) / SCREEN_PX  # mm per screen pixel
    mine = [r for r in rulings if shooter is not None and r.shooter == shooter]
    heading = table.name if title is None else title
    ring = table.model(shooter) if shooter is not None else None
    rows = _legend_rows(table, ring is not None and centre_lines)
    for overlay in overlays:
        rows += [("head", "", overlay.title)] if overlay.title else []
        rows += list(overlay.legend)
    svg, margin = _document(table, heading, rows, u)
    marks = (
        (COVERED, [i for r in mine for i in r.cover_pieces]),
        (BLOCKED, [i for r in mine for i in r.blockers]),
    )
    for colour, ids in marks:  # under the pieces: a halo that leaves windows visible
        _marks(svg, [t for t in table.terrain if t.id in ids], colour, 2 * MARK_PX * u)
    labels = Labels(table, u)
    _terrain_layer(svg, table, labels, u)
    if ring is not None and centre_lines:
        _sight_lines(svg, table, ring, mine, u)
    for overlay in overlays:
        _overlay(svg, overlay, labels, u)
    for i, side in enumerate(table.sides()):
        for model in table.models:
            if model.side == side:
                _model(svg, model, SIDE_COLOURS[i % len(SIDE_COLOURS)], u)
    for colour, ids in marks:
        _marks(svg, [m for m in table.models if m.id in ids], colour, MARK_PX * u)
    if ring is not None:
        _shooter_ring(svg, ring, u)
    _model_labels(table, labels, ring, mine, u)
    svg.append(labels.g)
    _legend(svg, table, rows, table.width + margin * 0.6, -table.depth, u)
    return ET.tostring(svg, encoding="unicode")


def _document(
    table: Table, heading: str, rows: Sequence[tuple[str, str, str]], u: float
) -> tuple[ET.Element, float]:
    """The SVG root sized for the table and its legend, its patterns, background, title
    and grid; and the margin around the table."""
    top, margin, legend_w = (34 if heading else 12) * u, 34 * u, 200 * u
    width = table.width + margin + legend_w
    height = max(table.depth, (sum(24 if r[0] == "head" else 20 for r in rows) + 50) * u)
    box = (-margin * 0.8, -table.depth - top, width, height + top + margin)
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "version": "1.1",
            "viewBox": " ".join(_f(v) for v in box),
            "width": _f(box[2] / u),
            "height": _f(box[3] / u),
            "font-family": "DejaVu Sans, Verdana, Arial, sans-serif",
        },
    )
    hatch = ET.SubElement(
        ET.SubElement(svg, "defs"),
        "pattern",
        {
            "id": "cover-hatch",
            "patternUnits": "userSpaceOnUse",
            "width": _f(7 * u),
            "height": _f(7 * u),
            "patternTransform": "rotate(45)",
        },
    )
    ET.SubElement(hatch, "rect", {"width": _f(7 * u), "height": _f(7 * u), "fill": COVER_FILL})
    stroke = {"stroke": COVER_HATCH, "stroke-width": _f(2 * u)}
    ET.SubElement(hatch, "line", {"x1": "0", "y1": "0", "x2": "0", "y2": _f(7 * u)} | stroke)
    ET.SubElement(svg, "rect", _xywh(box) | {"fill": "#ffffff"})
    if heading:
        _text(svg, 0, -table.depth - top * 0.4, heading, 16 * u, anchor="start", bold=True)
    _grid(svg, table, u)
    return svg, margin


def _terrain_layer(svg: ET.Element, table: Table, labels: Labels, u: float) -> None:
    """Every piece, and its id where it crowds nothing."""
    for piece in table.terrain:
        _terrain(svg, piece, u)
        on_dark = piece.blocks and not isinstance(piece.footprint, WallFootprint)
        labels.put(
            *_label_point(piece, u),
            piece.id,
            11 * u,
            italic=True,
            halo=not on_dark,
            fill="#ffffff" if on_dark else INK,
        )


def _shooter_ring(svg: ET.Element, ring: Model, u: float) -> None:
    g = ET.SubElement(svg, "g", {"class": "shooter", "data-id": ring.id, "fill": "none"})
    for colour, w in ((INK, 7.0), (SHOOTER, 4.5)):
        _circle(
            g,
            ring.at,
            max(ring.base.radius, 6 * u) + 4 * u,
            {"stroke": colour, "stroke-width": _f(w * u)},
        )


def _model_labels(
    table: Table, labels: Labels, ring: Model | None, mine: Sequence[LosRuling], u: float
) -> None:
    """Each model's id beside its base, and the cover bonus of each target in cover."""
    for model in table.models:
        extra = 8 if ring is not None and model.id == ring.id else 1
        labels.around(
            model.id,
            model.at,
            max(model.base.radius, 6 * u) + extra * u,
            model.id,
            11 * u,
            bold=True,
        )
    for ruling in mine:
        if ring is not None and ruling.visible and ruling.cover > 0:  # F3, F4: the bonus
            t = table.model(ruling.target)
            labels.around(
                t.id,
                t.at,
                max(t.base.radius, 6 * u) + u,
                f"+{ruling.cover}",
                15 * u,
                towards=(t.at.x - ring.at.x, ring.at.y - t.at.y),
                fill=COVERED,
                bold=True,
                cls="cover-bonus",
            )


def _grid(svg: ET.Element, table: Table, u: float) -> None:
    """The table's border, a light grid at a round step of its unit, and edge labels."""
    g = ET.SubElement(svg, "g", {"class": "grid"})
    edges = _xywh((0, -table.depth, table.width, table.depth))
    ET.SubElement(g, "rect", edges | {"fill": TABLE_FILL})
    longest = table.unit.from_mm(max(table.width, table.depth))
    step, lines = _nice_step(longest), []
    for k in range(int(longest / step + 1e-6) + 1):
        mm, label = table.unit.to_mm(k * step), f"{k * step:g}"
        if mm <= table.width + 1e-6:
            _text(g, mm, 14 * u, label, 9 * u, fill="#777", halo=False)
            lines.append(f"M{_f(mm)} 0V{_f(-table.depth)}")
        if mm <= table.depth + 1e-6:
            _text(g, -5 * u, -mm + 3 * u, label, 9 * u, anchor="end", fill="#777", halo=False)
            lines.append(f"M0 {_f(-mm)}H{_f(table.width)}")
    ET.SubElement(g, "path", {"d": "".join(lines), "stroke": GRID, "stroke-width": _f(u)})
    ET.SubElement(g, "rect", edges | {"fill": "none", "stroke": INK, "stroke-width": _f(2.5 * u)})


def _terrain(svg: ET.Element, piece: Terrain, u: float) -> None:
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
    _shape(g, piece, {})
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


def _shape(parent: ET.Element, piece: Terrain, attrs: dict[str, str]) -> None:
    fp = piece.footprint
    if isinstance(fp, CircleFootprint):
        _circle(parent, fp.centre, fp.radius, attrs)
    else:
        ET.SubElement(parent, "path", {"d": _path(fp.shape()), "fill-rule": "evenodd"} | attrs)


def _model(svg: ET.Element, model: Model, colour: str, u: float) -> None:
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


def _sight_lines(
    svg: ET.Element, table: Table, shooter: Model, rulings: Sequence[LosRuling], u: float
) -> None:
    """One F1 centre line per ruling, coloured by what the ruling decided."""
    g = ET.SubElement(svg, "g", {"class": "sight", "stroke-linecap": "round"})
    for ruling in rulings:
        target = table.model(ruling.target)
        kind = "blocked" if not ruling.visible else "cover" if ruling.cover > 0 else "clear"
        attrs = {
            "class": f"sight {kind}",
            "data-target": target.id,
            "x1": _f(shooter.at.x),
            "y1": _f(-shooter.at.y),
            "x2": _f(target.at.x),
            "y2": _f(-target.at.y),
            "stroke": {"blocked": BLOCKED, "cover": COVERED, "clear": CLEAR}[kind],
            "stroke-width": _f(3 * u),
        }
        if kind == "blocked":
            attrs["stroke-dasharray"] = f"{_f(9 * u)} {_f(6 * u)}"
        ET.SubElement(g, "line", attrs)


def _overlay(svg: ET.Element, overlay: Overlay, labels: Labels, u: float) -> None:
    g = ET.SubElement(
        svg, "g", {"class": "overlay", "stroke-linecap": "round", "stroke-linejoin": "round"}
    )
    for d in overlay.drawings:
        attrs = {
            "class": d.cls,
            "stroke": d.stroke,
            "stroke-width": _f(d.width_px * u),
            "fill": d.fill,
            "fill-opacity": _f(d.fill_opacity),
        }
        if d.dashed:
            attrs["stroke-dasharray"] = f"{_f(9 * u)} {_f(6 * u)}"
        if len(d.points) == 1:
            el = ET.SubElement(
                g,
                "circle",
                attrs
                | {"cx": _f(d.points[0].x), "cy": _f(-d.points[0].y), "r": _f(3 * d.width_px * u)},
            )
        else:
            pts = " ".join(f"{_f(p.x)},{_f(-p.y)}" for p in d.points)
            el = ET.SubElement(
                g,
                "polygon" if d.closed else "polyline",
                attrs | {"points": pts} | ({} if d.closed else {"fill": "none"}),
            )
        if d.title:
            ET.SubElement(el, "title").text = d.title
        if d.label:
            at = d.label_at or d.points[-1]
            labels.put(at.x, -at.y, d.label, 13 * u, fill=d.label_colour, bold=True)


def _marks(svg: ET.Element, things: Sequence[Terrain | Model], colour: str, width: float) -> None:
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
            _shape(g, t, {"data-id": t.id})
        else:
            r = max(t.base.radius, 6 * width / MARK_PX) + width / 2
            _circle(g, t.at, r, {"data-id": t.id})


def _legend_rows(table: Table, lines: bool) -> list[tuple[str, str, str]]:
    """The key: sides, the terrain kinds present, and the ruling colours if drawn."""
    rows = [("head", "", "Sides")] if table.models else []
    rows += [
        ("disc", SIDE_COLOURS[i % len(SIDE_COLOURS)], side) for i, side in enumerate(table.sides())
    ]
    kinds = {t.sight for t in table.terrain} | {
        "window"
        for t in table.terrain
        if isinstance(t.footprint, WallFootprint) and t.footprint.windows
    }
    rows += [("head", "", "Terrain")] if kinds else []
    rows += [
        row
        for kind, row in (
            ("blocks", ("swatch", BLOCKS_FILL, "blocks sight")),
            ("cover", ("swatch", "url(#cover-hatch)", "cover (small)")),
            ("window", ("swatch", WINDOW_FILL, "window in a wall")),
        )
        if kind in kinds
    ]
    if lines:
        rows += [
            ("head", "", "Line of sight"),
            ("line", CLEAR, "clear"),
            ("line", COVERED, "in cover (+n)"),
            ("dash", BLOCKED, "blocked"),
            ("ring", SHOOTER, "shooter"),
            ("ring", BLOCKED, "blocks the line"),
            ("ring", COVERED, "gives cover"),
        ]
    return rows


def _legend(
    svg: ET.Element,
    table: Table,
    rows: Sequence[tuple[str, str, str]],
    x: float,
    y: float,
    u: float,
) -> None:
    g = ET.SubElement(svg, "g", {"class": "legend"})
    for kind, colour, label in rows:
        y += (24 if kind == "head" else 20) * u
        if kind == "head":
            _text(g, x, y, label, 12 * u, anchor="start", bold=True)
            continue
        at, thin = Point(x + 8 * u, -(y - 4 * u)), {"stroke": INK, "stroke-width": _f(u)}
        if kind == "disc":
            _circle(g, at, 7 * u, {"fill": colour} | thin)
        elif kind == "swatch":
            ET.SubElement(
                g, "rect", _xywh((x, y - 11 * u, 16 * u, 14 * u)) | {"fill": colour} | thin
            )
        elif kind == "ring":
            rings = ((INK, 5.0), (colour, 3.0)) if colour == SHOOTER else ((colour, 3.0),)
            for stroke, w in rings:
                _circle(g, at, 6 * u, {"fill": "none", "stroke": stroke, "stroke-width": _f(w * u)})
        else:
            ET.SubElement(
                g,
                "line",
                {
                    "x1": _f(x),
                    "y1": _f(y - 4 * u),
                    "x2": _f(x + 18 * u),
                    "y2": _f(y - 4 * u),
                    "stroke": colour,
                    "stroke-width": _f(3 * u),
                }
                | ({"stroke-dasharray": f"{_f(6 * u)} {_f(3 * u)}"} if kind == "dash" else {}),
            )
        _text(g, x + 24 * u, y, label, 11 * u, anchor="start", halo=False)
    bar = _nice_step(table.unit.from_mm(max(table.width, table.depth)))
    while table.unit.to_mm(bar) > 180 * u:  # a scale bar that fits in the legend
        bar /= 2
    y, end = y + 30 * u, x + table.unit.to_mm(bar)
    ET.SubElement(
        g,
        "path",
        {
            "d": f"M{_f(x)} {_f(y - 6 * u)}V{_f(y)}H{_f(end)}V{_f(y - 6 * u)}",
            "fill": "none",
            "stroke": INK,
            "stroke-width": _f(2 * u),
        },
    )
    _text(g, x, y + 14 * u, f"{bar:g} {table.unit.name}", 11 * u, anchor="start", halo=False)


def _label_point(piece: Terrain, u: float) -> tuple[float, float]:
    """Where a piece's id goes (SVG coordinates): its middle, or beside a wall."""
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


def _nice_step(length: float, lines: int = 10) -> float:
    """A round grid step (1, 2 or 5 times a power of ten) giving about ``lines`` lines."""
    raw = length / lines if length > 0 else 1.0
    mag = 10.0 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1.0, 2.0, 5.0, 10.0) if m * mag >= raw * 0.999)


__all__ = ["render_table"]
