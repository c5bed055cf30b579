"""SVG pictures of a table, with line-of-sight rulings drawn on it (a face: no rules here).

:func:`render_table` is a pure function: it reads a :class:`~arbitre.table.Table` and the
:class:`~arbitre.rules.ruling.LosRuling` values it is given, and returns a standalone SVG
document. It computes no rule; it only draws what the rulings say (G7, F1-F4).

Coordinates are the table's millimetres with y going up: a scenario point ``(x, y)`` is
drawn at SVG ``(x, -y)``, so the table spans ``x in [0, width]``, ``y in [-depth, 0]``
and its origin is the lower-left corner. Text and stroke sizes are set in screen pixels
and converted, so the picture reads the same on any table size. Sides are coloured by
name (:func:`~arbitre.faces.svg.draw.side_colours`); every label goes through one
placement pass (:class:`~arbitre.faces.svg.draw.Labels`) that keeps it off bases,
windows and other labels.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arbitre.faces.svg import legend, pieces
from arbitre.faces.svg.draw import INK, Labels, side_colours, tostring
from arbitre.faces.svg.draw import f as _f
from arbitre.faces.svg.draw import text as _text
from arbitre.faces.svg.draw import xywh as _xywh
from arbitre.faces.svg.legend import SHOOTER
from arbitre.faces.svg.pieces import BLOCKS_FILL, COVER_FILL, COVER_HATCH, MARK_PX, WINDOW_FILL
from arbitre.geometry import Point, WallFootprint
from arbitre.i18n import N_, T_, _
from arbitre.rules.ruling import LosRuling
from arbitre.table import Model, Table

#: On-screen size in pixels of the table's longer side.
SCREEN_PX = 900.0

#: Sight lines: clear, in cover, blocked. (The shooter's ring: :data:`SHOOTER`.)
CLEAR, COVERED, BLOCKED = "#1b9e3e", "#f28c00", "#d62020"
#: A model's statuses, written after its id.
STATUS = "#9b1c1c"
#: A model's statuses as the picture words them (G2; the words of seed 002).
STATUS_WORDS: dict[str, str] = {
    "moved": N_("moved"),
    "ran": N_("ran"),
    "failed_charge": N_("failed charge"),
    "rallied": N_("rallied"),
    "stunned": N_("stunned"),
    "knocked_down": N_("knocked down"),
    "fleeing": N_("fleeing"),
}
#: Screen pixels kept free around a base for the rings drawn there (labels stay out).
RING_PX = 5.0
#: Sight lines closer than this many screen pixels at the nearer target run together:
#: they are drawn side by side, :data:`FAN_PX` apart.
BUNDLE_PX, FAN_PX = 6.0, 4.5


@dataclass(frozen=True, slots=True)
class Drawing:
    """One thing drawn over the table, in mm: a point, a polyline, or a closed polygon.

    Rulesets' pictures (a template, a line-of-sight window, a needed score) are built as
    drawings by the faces that read their rulings; :func:`render_table` only draws them.
    ``label`` is written beside the model ``label_owner`` when given (on the side nearest
    the SVG direction ``label_towards``), else at or near ``label_at`` (default: the last
    point); either way where it covers no base, window or other label. A drawing without
    points is its label alone.
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
    label_owner: str | None = None
    label_towards: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class Overlay:
    """Drawings and their key: ``legend`` rows are ``(kind, colour, text)`` (kinds in
    :mod:`arbitre.faces.svg.legend`) under the heading ``title``. ``notes`` are
    ``(id, text, colour)``: words written after a model's or a piece's id (a size class).
    ``cover_labels=False`` when the overlay writes the targets' cover itself (the table
    then writes no ``+n``)."""

    drawings: tuple[Drawing, ...] = ()
    legend: tuple[tuple[str, str, str], ...] = ()
    title: str = ""
    notes: tuple[tuple[str, str, str], ...] = ()
    cover_labels: bool = True


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
    orange. Lines that would run on top of each other are drawn side by side. Rulings of
    other shooters are ignored. ``title`` defaults to the table's name. ``overlays`` are
    drawn over the terrain, under the bases, with their legend; ``centre_lines=False``
    leaves out the F1 lines for rulesets that draw their own. A shooter or target that is
    not a model of the table raises :class:`~arbitre.errors.RulesError`.
    """
    u = max(table.width, table.depth) / SCREEN_PX  # mm per screen pixel
    mine = [r for r in rulings if shooter is not None and r.shooter == shooter]
    ring = table.model(shooter) if shooter is not None else None
    colours = side_colours(table.sides())
    cover_labels = all(o.cover_labels for o in overlays)
    rows = _legend_rows(table, colours, ring is not None and centre_lines, cover_labels)
    for overlay in overlays:
        rows += [("head", "", overlay.title)] if overlay.title else []
        rows += list(overlay.legend)
    svg, margin = _document(table, table.name if title is None else title, rows, u)
    marks = (
        (COVERED, [i for r in mine for i in r.cover_pieces]),
        (BLOCKED, [i for r in mine for i in r.blockers]),
    )
    for colour, ids in marks:  # under the pieces: a halo that leaves windows visible
        pieces.marks(svg, [t for t in table.terrain if t.id in ids], colour, 2 * MARK_PX * u)
    clear = {m.id: clearance(m, u, ring) for m in table.models}
    labels = _labels(table, clear, u)
    notes = _notes(table, overlays)
    _terrain_layer(svg, table, labels, notes, u)
    if ring is not None and centre_lines:
        _sight_lines(svg, table, ring, mine, u)
    for overlay in overlays:
        _overlay(svg, table, overlay, labels, clear, u)
    for model in table.models:
        pieces.model(svg, model, colours[model.side], u)
    for colour, ids in marks:
        pieces.marks(svg, [m for m in table.models if m.id in ids], colour, MARK_PX * u)
    if ring is not None:
        pieces.shooter_ring(svg, ring, u)
    _model_labels(table, labels, notes, clear, u)
    if cover_labels:
        _cover_labels(table, labels, ring, mine, clear, u)
    svg.append(labels.place())
    legend.draw(svg, table, rows, table.width + margin * 0.6, -table.depth, u)
    return tostring(svg)


def _document(
    table: Table, heading: str, rows: Sequence[tuple[str, str, str]], u: float
) -> tuple[ET.Element, float]:
    """The SVG root sized for the table and its legend, its patterns, background, title
    and grid; and the margin around the table."""
    top, margin, legend_w = (34 if heading else 12) * u, 34 * u, 200 * u
    width = table.width + margin + legend_w
    height = max(table.depth, legend.height(rows, u))
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
    pieces.grid(svg, table, u)
    return svg, margin


def clearance(model: Model, u: float, shooter: Model | None = None) -> float:
    """How far from a model's centre labels stay: its base (at least 6 px) and its rings."""
    extra = 5 if shooter is not None and model.id == shooter.id else 0
    return max(model.base.radius, 6 * u) + (RING_PX + extra) * u


def _labels(table: Table, clear: Mapping[str, float], u: float) -> Labels:
    """The placement pass, told to keep off every base (and its rings) and window."""
    labels = Labels((0.0, -table.depth, table.width, 0.0), u)
    for m in table.models:
        labels.avoid_disc(m.at, clear[m.id])
    for piece in table.terrain:
        fp = piece.footprint
        if isinstance(fp, WallFootprint):
            for w in fp.windows:
                x0, y0, x1, y1 = fp.window_slice(w).bounds
                labels.avoid_box((x0, -y1, x1, -y0))
    return labels


def _notes(table: Table, overlays: Sequence[Overlay]) -> dict[str, list[tuple[str, str]]]:
    """What is written after each id: a model's statuses, then the overlays' notes."""
    notes: dict[str, list[tuple[str, str]]] = {}
    for m in table.models:
        if m.status:
            words = ", ".join(status_word(s) for s in sorted(m.status))
            notes.setdefault(m.id, []).append((words, STATUS))
    for overlay in overlays:
        for ident, words, colour in overlay.notes:
            notes.setdefault(ident, []).append((words, colour))
    return notes


def status_word(status: str) -> str:
    """A model's status in the current language ("knocked down", "à terre")."""
    known = STATUS_WORDS.get(status)
    return _(known) if known else status.replace("_", " ")


def _note_style(notes: Mapping[str, list[tuple[str, str]]], ident: str) -> dict[str, Any]:
    parts = notes.get(ident, [])
    if not parts:
        return {}
    return {"note": " · ".join(w for w, _ in parts), "note_fill": parts[0][1]}


def _terrain_layer(
    svg: ET.Element,
    table: Table,
    labels: Labels,
    notes: Mapping[str, list[tuple[str, str]]],
    u: float,
) -> None:
    """Every piece, and its id at its middle (or near it, where that is taken)."""
    for piece in table.terrain:
        pieces.terrain(svg, piece, u)
        x, y = pieces.label_point(piece, u)
        labels.near(
            x,
            y,
            piece.id,
            11 * u,
            order=3,
            italic=True,
            cls="terrain-label",
            **_note_style(notes, piece.id),
        )


def _model_labels(
    table: Table,
    labels: Labels,
    notes: Mapping[str, list[tuple[str, str]]],
    clear: Mapping[str, float],
    u: float,
) -> None:
    """Each model's id (and its notes) beside its base."""
    for model in table.models:
        labels.around(
            model.at,
            max(model.base.radius, 6 * u),
            model.id,
            11 * u,
            clear=clear[model.id] + u,
            order=1,
            bold=True,
            cls="model-label",
            **_note_style(notes, model.id),
        )


def _cover_labels(
    table: Table,
    labels: Labels,
    ring: Model | None,
    mine: Sequence[LosRuling],
    clear: Mapping[str, float],
    u: float,
) -> None:
    """The cover bonus of each target in cover (F3, F4), on its side away from the shooter."""
    if ring is None:
        return
    for ruling in mine:
        if ruling.visible and ruling.cover > 0:
            t = table.model(ruling.target)
            labels.around(
                t.at,
                max(t.base.radius, 6 * u),
                f"+{ruling.cover}",
                15 * u,
                clear=clear[t.id] + u,
                order=0,
                towards=(t.at.x - ring.at.x, ring.at.y - t.at.y),
                fill=COVERED,
                bold=True,
                cls="cover-bonus",
            )


def fan(origin: Point, ends: Sequence[Point], u: float) -> list[float]:
    """Sideways offsets (mm, to the left of each line) that draw the lines from ``origin``
    to ``ends`` side by side where they would run together: lines less than
    :data:`BUNDLE_PX` apart at the nearer end form a bundle, spread :data:`FAN_PX` apart
    around its middle."""
    angles = [math.atan2(p.y - origin.y, p.x - origin.x) for p in ends]
    lengths = [math.hypot(p.x - origin.x, p.y - origin.y) for p in ends]
    order = sorted(range(len(ends)), key=lambda i: angles[i])
    offsets = [0.0] * len(ends)
    bundle: list[int] = []
    for i in [*order, None]:
        if bundle and (
            i is None
            or (angles[i] - angles[bundle[-1]]) * min(lengths[i], lengths[bundle[-1]])
            > BUNDLE_PX * u
        ):
            for k, j in enumerate(bundle):
                offsets[j] = (k - (len(bundle) - 1) / 2) * FAN_PX * u
            bundle = []
        if i is not None:
            bundle.append(i)
    return offsets


def _sight_lines(
    svg: ET.Element, table: Table, shooter: Model, rulings: Sequence[LosRuling], u: float
) -> None:
    """One F1 centre line per ruling, coloured by what the ruling decided; lines that
    would lie on top of each other are spread side by side (:func:`fan`)."""
    g = ET.SubElement(svg, "g", {"class": "sight", "stroke-linecap": "round"})
    targets = [table.model(r.target) for r in rulings]
    offsets = fan(shooter.at, [t.at for t in targets], u)
    for ruling, target, off in zip(rulings, targets, offsets, strict=True):
        kind = "blocked" if not ruling.visible else "cover" if ruling.cover > 0 else "clear"
        dx, dy = target.at.x - shooter.at.x, target.at.y - shooter.at.y
        n = math.hypot(dx, dy) or 1.0
        ox, oy = -dy / n * off, dx / n * off
        attrs = {
            "class": f"sight {kind}",
            "data-target": target.id,
            "x1": _f(shooter.at.x + ox),
            "y1": _f(-(shooter.at.y + oy)),
            "x2": _f(target.at.x + ox),
            "y2": _f(-(target.at.y + oy)),
            "stroke": {"blocked": BLOCKED, "cover": COVERED, "clear": CLEAR}[kind],
            "stroke-width": _f(3 * u),
        }
        if kind == "blocked":
            attrs["stroke-dasharray"] = f"{_f(9 * u)} {_f(6 * u)}"
        ET.SubElement(g, "line", attrs)


def _overlay(
    svg: ET.Element,
    table: Table,
    overlay: Overlay,
    labels: Labels,
    clear: Mapping[str, float],
    u: float,
) -> None:
    g = ET.SubElement(
        svg, "g", {"class": "overlay", "stroke-linecap": "round", "stroke-linejoin": "round"}
    )
    for d in overlay.drawings:
        if not d.points:  # a label alone
            if d.label:
                _overlay_label(table, d, d.label, labels, clear, u)
            continue
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
            _overlay_label(table, d, d.label, labels, clear, u)


def _overlay_label(
    table: Table,
    d: Drawing,
    label: str,
    labels: Labels,
    clear: Mapping[str, float],
    u: float,
) -> None:
    style = {"fill": d.label_colour, "bold": True, "cls": f"overlay-label {d.cls}"}
    if d.label_owner is not None:
        m = table.model(d.label_owner)
        labels.around(
            m.at,
            max(m.base.radius, 6 * u),
            label,
            13 * u,
            clear=clear[m.id] + u,
            order=0,
            towards=d.label_towards,
            **style,
        )
        return
    at = d.label_at or d.points[-1]
    labels.near(at.x, -at.y, label, 13 * u, order=2, **style)


def _legend_rows(
    table: Table, colours: Mapping[str, str], lines: bool, cover_labels: bool
) -> list[tuple[str, str, str]]:
    """The key: sides, the terrain kinds present, statuses, and the ruling colours if drawn."""
    rows = [("head", "", _("Sides"))] if table.models else []
    rows += [("disc", colours[side], side) for side in table.sides()]
    statuses = sorted({status_word(s) for m in table.models for s in m.status})
    if statuses:  # the legend draws the first word as the picture writes it: keep it whole
        sample = statuses[0].replace(" ", "\u00a0")
        rows.append(("label", STATUS, str(T_("{status} a model's status", status=sample))))
    kinds = {t.sight for t in table.terrain} | {
        "window"
        for t in table.terrain
        if isinstance(t.footprint, WallFootprint) and t.footprint.windows
    }
    rows += [("head", "", _("Terrain"))] if kinds else []
    rows += [
        row
        for kind, row in (
            ("blocks", ("swatch", BLOCKS_FILL, _("blocks sight"))),
            ("cover", ("swatch", "url(#cover-hatch)", _("cover (small)"))),
            ("window", ("swatch", WINDOW_FILL, _("window in a wall"))),
        )
        if kind in kinds
    ]
    if lines:
        rows += [
            ("head", "", _("Line of sight")),
            ("line", CLEAR, _("clear")),
            ("line", COVERED, _("in cover (+n)") if cover_labels else _("in cover")),
            ("dash", BLOCKED, _("blocked")),
            ("ring", SHOOTER, _("shooter")),
            ("ring", BLOCKED, _("blocks the line")),
            ("ring", COVERED, _("gives cover")),
        ]
    return rows


__all__ = ["SHOOTER", "Drawing", "Overlay", "clearance", "fan", "render_table"]
