"""The picture of a sight map (a face: no rule here): its faces under the table.

:func:`render_map` draws the table through :func:`arbitre.faces.svg.table.render_table`
with an overlay for the legend, the reach and the best spot, and slips the map's faces
in under the terrain: each face filled by how many enemies would see a model standing
there (green: none), hatched where every enemy that sees it gives cover, outlined dashed
where it was ruled cell by cell.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from arbitre import collector
from arbitre.faces.svg.draw import f as _f
from arbitre.faces.svg.table import SCREEN_PX, Drawing, Overlay, render_table
from arbitre.geometry import Point
from arbitre.i18n import N_, T_, TN_, Num, Text, _, join
from arbitre.maps import SightMap

SVG_NS = "http://www.w3.org/2000/svg"
#: Fill by the number of enemies that see a place: none, one, two, three or more.
SEEN = ("#2ca25f", "#fed976", "#fd8d3c", "#e31a1c")
#: Opacity of the faces' fill.
OPACITY = 0.5
REACH, BEST = "#1f4fd8", "#111111"


def _colour(seen: int) -> str:
    return SEEN[min(seen, len(SEEN) - 1)]


#: Each number as :func:`~arbitre.faces.svg.draw.f` writes it, from its ``%.2f`` form:
#: trailing zeros dropped (and the point with them), ``-0`` written ``0``.
_TRIM = (
    (re.compile(r"\.00(?![0-9])"), ""),
    (re.compile(r"(?<=\.[0-9])0(?![0-9])"), ""),
    (re.compile(r"(?<![0-9.])-0(?![0-9.])"), "0"),
)


def _paths(shapes: Sequence[BaseGeometry]) -> list[str]:
    """An SVG path (y up to y down) of each polygon or multipolygon, holes included (no
    path, "", for other shapes). All written at once: the rings' points read in one
    array, formatted by one ``%`` and trimmed by regular expressions (each number byte
    for byte as :func:`~arbitre.faces.svg.draw.f` writes it)."""
    if not shapes:
        return []
    parts, of_shape = shapely.get_parts(np.asarray(shapes, dtype=object), return_index=True)
    polygon = (shapely.get_type_id(parts) == 3) & ~shapely.is_empty(parts)
    parts, of_shape = parts[polygon], of_shape[polygon]
    if len(parts):
        _, xy, (ring_at, part_at) = shapely.to_ragged_array(parts)
    else:
        xy, ring_at, part_at = np.zeros((0, 2)), np.zeros(1, np.int64), np.zeros(1, np.int64)
    counts = np.diff(ring_at) - 1  # the closing point left out
    of_ring = np.repeat(np.arange(len(counts)), counts + 1)
    keep = np.ones(len(xy), dtype=bool)
    keep[ring_at[1:] - 1] = False
    keep &= (counts >= 3)[of_ring]
    pts = xy[keep]
    pts[:, 1] = -pts[:, 1]
    formats = {n: "M" + "L".join(["%.2f,%.2f"] * n) + "Z" for n in set(counts.tolist())}
    ring_shape = np.repeat(of_shape, np.diff(part_at))
    out: list[list[str]] = [[] for _ in shapes]
    for n, k in zip(counts.tolist(), ring_shape.tolist(), strict=True):
        out[k].append(formats[n] if n >= 3 else "")
    text = "|".join("".join(o) for o in out) % tuple(pts.ravel().tolist())
    for pattern, repl in _TRIM:
        text = pattern.sub(repl, text)
    return text.split("|")


def _legend(m: SightMap) -> tuple[tuple[str, str, str], ...]:
    most = max((len(f.seen_by) for f in m.faces), default=0)
    rows = [("swatch", _colour(0), _("seen by no enemy"))]
    for k in range(1, min(most, len(SEEN) - 1) + 1):
        more = "+" if k == len(SEEN) - 1 else ""
        seen = TN_("seen by {k}{more} enemy", "seen by {k}{more} enemies", "k", k=k, more=more)
        rows.append(("swatch", _colour(k), str(seen)))
    if any(f.least_cover for f in m.faces):
        rows.append(("swatch", "url(#map-cover)", _("cover from all who see it")))
    if any(not f.exact for f in m.faces) or not m.per_point.is_empty:
        rows.append(("dash", "#555555", _("ruled cell by cell")))
    if m.reach is not None:
        reach = T_("reach {reach}", reach=m.table.unit.measure(m.reach.length))
        rows.append(("line", REACH, str(reach)))
        if m.reach.best is not None:
            rows.append(("disc", BEST, _("best spot and its path")))
    return tuple(rows)


def _overlay(m: SightMap) -> Overlay:
    drawings: list[Drawing] = []
    if m.reach is not None:
        for poly in getattr(m.reach.region, "geoms", [m.reach.region]):
            if getattr(poly, "geom_type", "") == "Polygon" and not poly.is_empty:
                ring = tuple(Point(x, y) for x, y in poly.exterior.coords[:-1])
                drawings.append(Drawing(ring, closed=True, stroke=REACH, width_px=2.0))
        if m.reach.best is not None:
            path = m.reach.path
            drawings.append(Drawing(path, stroke=BEST, width_px=1.5, dashed=True))
            best = _("best")
            drawings.append(
                Drawing((m.reach.best,), stroke=BEST, fill=BEST, fill_opacity=1.0, label=best)
            )
    who: Text | str = m.model
    if m.model == "(here)":
        who = T_("a {base} mm base of {side}", base=Num(2 * m.radius, "g"), side=m.side)
    return Overlay(
        drawings=tuple(drawings),
        legend=_legend(m),
        title=str(T_("Where {who} can stand", who=who)),
    )


def render_map(m: SightMap, *, title: str | None = None) -> str:
    """The SVG document of ``m``: the table, the faces under its terrain, the legend."""
    with collector.paused():  # tens of thousands of elements and strings, none in a cycle
        return _render_map(m, title)


def _render_map(m: SightMap, title: str | None) -> str:
    text = render_table(
        m.table, overlays=[_overlay(m)], title=title, centre_lines=False, shooter=None
    )
    ET.register_namespace("", SVG_NS)
    root = ET.fromstring(text)
    defs = root.find(f"{{{SVG_NS}}}defs")
    u = max(m.table.width, m.table.depth) / SCREEN_PX
    _hatch(defs if defs is not None else ET.SubElement(root, "defs"), u)
    layer = ET.Element("g", {"class": "map-faces", "stroke": "none"})
    _faces(layer, m, u)
    children = list(root)
    at = next((i + 1 for i, el in enumerate(children) if el.get("class") == "grid"), len(children))
    root.insert(at, layer)
    return ET.tostring(root, encoding="unicode")


def _hatch(defs: ET.Element, u: float) -> None:
    pattern = ET.SubElement(
        defs,
        "pattern",
        {
            "id": "map-cover",
            "patternUnits": "userSpaceOnUse",
            "width": _f(8 * u),
            "height": _f(8 * u),
            "patternTransform": "rotate(-45)",
        },
    )
    ET.SubElement(
        pattern,
        "line",
        {"x1": "0", "y1": "0", "x2": "0", "y2": _f(8 * u), "stroke": "#333", "stroke-width": _f(u)},
    )


def _faces(layer: ET.Element, m: SightMap, u: float) -> None:
    cells: list[BaseGeometry] = []
    ruled = {id(f) for f in m.cells}  # outlined once, by ``per_point``
    faces = sorted((*m.faces, *m.cells), key=lambda f: len(f.seen_by))
    # the faces opaque within one translucent group: the thin edge of its own colour
    # that hides the seams between faces no longer doubles the colour where it lies on
    # a neighbour (a web of darker lines over a busy map); the cover's hatching on top
    tinted = ET.SubElement(layer, "g", {"opacity": _f(OPACITY)})
    hatched: list[str] = []
    for face, d in zip(faces, _paths([f.shape for f in faces]), strict=True):
        if not d:
            continue
        colour = _colour(len(face.seen_by))
        attrs = {"d": d, "fill": colour, "stroke": colour, "stroke-width": _f(0.6 * u)}
        el = ET.SubElement(tinted, "path", attrs | {"fill-rule": "evenodd"})
        names = join((f"{a} +{c}" if c else a for a, c in face.seen_by), empty=N_("no enemy"))
        ET.SubElement(el, "title").text = str(T_("seen by {names}", names=names))
        if face.least_cover:
            hatched.append(d)
        if not face.exact and id(face) not in ruled:
            cells.append(face.shape)
    for d in hatched:
        ET.SubElement(layer, "path", {"d": d, "fill": "url(#map-cover)", "fill-rule": "evenodd"})
    outlines: Sequence[BaseGeometry] = [*cells, m.per_point] if not m.per_point.is_empty else cells
    for d in _paths(outlines):
        if d:
            ET.SubElement(
                layer,
                "path",
                {
                    "d": d,
                    "fill": "none",
                    "stroke": "#555555",
                    "stroke-width": _f(1.2 * u),
                    "stroke-dasharray": f"{_f(4 * u)} {_f(3 * u)}",
                },
            )
