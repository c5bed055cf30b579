"""Drawing primitives shared by the pictures (a face): numbers, text with a halo, circles,
paths from shapely geometries, side colours by side name, well-formed XML whatever the
ids hold, and the label-placement pass (:class:`Labels`).

Coordinates are millimetres with y going up; SVG's y goes down, so points are drawn at
``(x, -y)``.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import shapely

from arbitre.geometry import Point

INK = "#1a1a1a"
#: Leader lines from a label moved away to what it names.
LEADER = "#555555"

Box = tuple[float, float, float, float]

# -- well-formed XML -----------------------------------------------------------------------

#: Characters XML 1.0 does not allow (control characters, surrogates, U+FFFE/U+FFFF).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(text: str) -> str:
    """``text`` with every character XML 1.0 refuses replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def tostring(root: ET.Element) -> str:
    """The SVG document of ``root``, well-formed whatever its texts and attributes hold
    (ids with control characters included)."""
    for el in root.iter():
        if el.text:
            el.text = clean(el.text)
        if el.tail:
            el.tail = clean(el.tail)
        for k, v in el.attrib.items():
            el.attrib[k] = clean(v)
    return ET.tostring(root, encoding="unicode")


# -- primitives ----------------------------------------------------------------------------


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
    note: str = "",
    note_fill: str = INK,
) -> ET.Element:
    """A text element with its baseline at ``(x, y)``; ``note``, when given, follows
    ``text`` after a space, italic, in ``note_fill``."""
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
    el = ET.SubElement(parent, "text", attrs)
    el.text = text
    if note:
        span = {
            "fill": note_fill,
            "font-style": "italic",
            "font-weight": "normal",
            "dx": f(0.35 * size),
        }
        ET.SubElement(el, "tspan", span).text = note
    return el


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
    """A generous estimate of the width of ``text`` set in bold sans-serif (DejaVu Sans
    Bold averages about 0.68 em a lowercase letter)."""
    return 0.7 * size * len(text) + 0.2 * size


def label_box(x: float, y: float, text: str, size: float) -> Box:
    """The box a label takes (SVG coordinates) with its baseline centred on ``(x, y)``:
    the estimate the placement pass uses, and the tests."""
    return box(x, y - 0.3 * size, width(text, size), size)


def box(cx: float, cy: float, w: float, h: float) -> Box:
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def overlap(a: Box, b: Box) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def hits_circle(b: Box, cx: float, cy: float, r: float) -> bool:
    """Whether box ``b`` meets the disc of centre ``(cx, cy)`` and radius ``r``."""
    dx = max(b[0] - cx, 0.0, cx - b[2])
    dy = max(b[1] - cy, 0.0, cy - b[3])
    return dx * dx + dy * dy < r * r


def xywh(box: Box) -> dict[str, str]:
    return dict(zip(("x", "y", "width", "height"), (f(v) for v in box), strict=True))


def f(v: float) -> str:
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def ring(centre: Point, r: float, n: int = 96) -> tuple[Point, ...]:
    """A circle as a closed polygon of ``n`` points (for drawings that take points)."""
    return tuple(
        Point(
            centre.x + r * math.cos(2 * math.pi * k / n),
            centre.y + r * math.sin(2 * math.pi * k / n),
        )
        for k in range(n)
    )


# -- side colours --------------------------------------------------------------------------

#: A side named after a colour (a word of its name, English or French) is drawn in it.
NAMED_COLOURS = {
    "red": "#c62828",
    "rouge": "#c62828",
    "blue": "#2f6fd0",
    "bleu": "#2f6fd0",
    "green": "#2e8b3a",
    "vert": "#2e8b3a",
    "yellow": "#e8c31a",
    "jaune": "#e8c31a",
    "orange": "#e67e22",
    "purple": "#8e44ad",
    "violet": "#8e44ad",
    "black": "#333333",
    "noir": "#333333",
    "white": "#f4f4f4",
    "blanc": "#f4f4f4",
    "grey": "#7f7f7f",
    "gray": "#7f7f7f",
    "gris": "#7f7f7f",
    "pink": "#e377c2",
    "rose": "#e377c2",
    "brown": "#8c564b",
    "brun": "#8c564b",
    "cyan": "#13a3b5",
    "teal": "#13a3b5",
}
#: Other sides: a colour chosen by a hash of the name, kept apart from the ruling colours
#: (green, orange, red, yellow) as far as ten colours allow.
PALETTE = (
    "#2f6fd0",
    "#8e44ad",
    "#17becf",
    "#e377c2",
    "#8c564b",
    "#a6761d",
    "#bcbd22",
    "#393b79",
    "#c49c94",
    "#00695c",
)


def side_colour(side: str) -> str:
    """A side's own colour: the colour its name says, else the palette's by name hash."""
    for word in re.findall(r"[a-z]+", side.casefold()):
        if word in NAMED_COLOURS:
            return NAMED_COLOURS[word]
    return PALETTE[zlib.crc32(side.casefold().encode("utf-8")) % len(PALETTE)]


def side_colours(sides: Sequence[str]) -> dict[str, str]:
    """A colour per side, the same in every picture: :func:`side_colour`, except that a
    hashed colour another side of the same table already has moves to the next free one
    of the palette (sides taken in name order, so the choice does not depend on file
    order)."""
    named = {s: side_colour(s) for s in sides if side_colour(s) not in PALETTE}
    used = set(named.values())
    out = dict(named)
    for s in sorted(set(sides) - set(named)):
        start = PALETTE.index(side_colour(s))
        free = [PALETTE[(start + k) % len(PALETTE)] for k in range(len(PALETTE))]
        colour = next((c for c in free if c not in used), free[0])
        out[s] = colour
        used.add(colour)
    return {s: out[s] for s in sides}


# -- label placement -----------------------------------------------------------------------

#: Directions tried around a thing, as SVG unit vectors, in order of preference: below,
#: above, right, left, the diagonals, then the eight between.
DIRECTIONS = tuple(
    (math.cos(math.radians(a)), math.sin(math.radians(a)))
    for a in (
        90,
        270,
        0,
        180,
        45,
        135,
        315,
        225,
        67.5,
        112.5,
        292.5,
        247.5,
        22.5,
        157.5,
        337.5,
        202.5,
    )
)


#: Rings of spots tried around a thing (fewer on crowded tables: about :data:`BUDGET`
#: spots tried in all).
RINGS, BUDGET = 10, 30_000


@dataclass(frozen=True, slots=True)
class _Label:
    """One label to place: ``text`` (and its ``note``) around the circle ``(cx, cy, r)``
    (a point when ``r`` is 0), kept ``clear`` from that centre; ``order`` decides who is
    placed first."""

    text: str
    size: float
    cx: float
    cy: float
    r: float
    clear: float
    order: tuple[int, int]
    centred: bool
    towards: tuple[float, float] | None
    style: dict[str, Any] = field(default_factory=dict)


class _Grid:
    """Boxes and discs bucketed by cell, to find what a candidate box meets quickly."""

    def __init__(self, cell: float) -> None:
        self.cell = cell
        self.cells: dict[tuple[int, int], list[tuple[str, Box, tuple[float, float, float]]]] = {}

    def _keys(self, b: Box) -> Iterable[tuple[int, int]]:
        c = self.cell
        for i in range(math.floor(b[0] / c), math.floor(b[2] / c) + 1):
            for j in range(math.floor(b[1] / c), math.floor(b[3] / c) + 1):
                yield i, j

    def add_box(self, b: Box) -> None:
        for k in self._keys(b):
            self.cells.setdefault(k, []).append(("box", b, (0.0, 0.0, 0.0)))

    def add_disc(self, cx: float, cy: float, r: float) -> None:
        b = (cx - r, cy - r, cx + r, cy + r)
        for k in self._keys(b):
            self.cells.setdefault(k, []).append(("disc", b, (cx, cy, r)))

    def cost(self, b: Box, limit: float = math.inf) -> float:
        """How much ``b`` covers: overlap with boxes, and with the squares of the discs
        it meets (0 when it meets nothing); counting stops once ``limit`` is reached."""
        seen: set[int] = set()
        total = 0.0
        for k in self._keys(b):
            for item in self.cells.get(k, ()):
                if id(item) in seen:
                    continue
                seen.add(id(item))
                kind, other, (cx, cy, r) = item
                if kind == "box":
                    total += overlap(b, other)
                elif hits_circle(b, cx, cy, r):
                    total += max(overlap(b, other), 1e-6)
                if total >= limit:
                    return total
        return total


class Labels:
    """Labels placed where they cover no base, no window and no other label.

    Things to name are added with :meth:`around` (outside a circle: a model's base) and
    :meth:`near` (at or near a point: a piece's middle); :meth:`place` then places them
    all, in order, each at the first free spot of rings ever farther out, with a leader
    line back to what it names when it had to move away; where no spot is free, the
    least covered one. Boxes are estimated by :func:`label_box`.
    """

    def __init__(self, bounds: Box, u: float) -> None:
        self.g, self.u, self.bounds = ET.Element("g", {"class": "labels"}), u, bounds
        self.grid = _Grid(30 * u)
        self.todo: list[_Label] = []
        self.placed: list[Box] = []
        self.rings, self.dirs = RINGS, DIRECTIONS

    def avoid_disc(self, at: Point, r: float) -> None:
        """Keep labels off the disc ``(at, r)`` (a base and the rings drawn around it)."""
        self.grid.add_disc(at.x, -at.y, r)

    def avoid_box(self, b: Box) -> None:
        """Keep labels off box ``b`` (SVG coordinates; a window)."""
        self.grid.add_box(b)

    def around(
        self,
        at: Point,
        r: float,
        text: str,
        size: float,
        *,
        clear: float | None = None,
        order: int = 1,
        towards: tuple[float, float] | None = None,
        **style: Any,
    ) -> None:
        """``text`` outside the circle ``(at, r)``, at least ``clear`` from its centre,
        on the free side nearest ``towards`` (an SVG direction) when given."""
        self._add(
            at.x,
            -at.y,
            r,
            clear if clear is not None else r,
            text,
            size,
            order,
            False,
            towards,
            style,
        )

    def near(
        self, x: float, y: float, text: str, size: float, *, order: int = 2, **style: Any
    ) -> None:
        """``text`` centred on ``(x, y)`` (SVG coordinates) if free, else nearby."""
        self._add(x, y, 0.0, 0.0, text, size, order, True, None, style)

    def _add(
        self,
        cx: float,
        cy: float,
        r: float,
        clear: float,
        text: str,
        size: float,
        order: int,
        centred: bool,
        towards: tuple[float, float] | None,
        style: dict[str, Any],
    ) -> None:
        self.todo.append(
            _Label(text, size, cx, cy, r, clear, (order, len(self.todo)), centred, towards, style)
        )

    def place(self) -> ET.Element:
        """Place every label added, in order; the ``<g class="labels">`` drawn."""
        leaders = ET.SubElement(
            self.g, "g", {"class": "leaders", "stroke": LEADER, "stroke-width": f(self.u)}
        )
        # work bounded on crowded tables: fewer rings tried when there are many labels
        spots = max(8, min(RINGS * len(DIRECTIONS), BUDGET // max(len(self.todo), 1)))
        self.rings, self.dirs = -(-spots // len(DIRECTIONS)), DIRECTIONS[: min(spots, 16)]
        for label in sorted(self.todo, key=lambda x: x.order):
            self._place(label, leaders)
        self.todo = []
        return self.g

    def _candidates(self, a: _Label, w: float, h: float) -> Iterable[tuple[float, float, int]]:
        """Box centres around ``a``, ring by ring: ``(x, y, ring)``."""
        if a.centred:
            yield a.cx, a.cy - 0.3 * a.size, 0
        dirs = list(self.dirs)
        if a.towards is not None and any(a.towards):
            tx, ty = a.towards
            dirs.sort(key=lambda d: -(d[0] * tx + d[1] * ty) / math.hypot(tx, ty))
        step = max(h, 6 * self.u)
        for k in range(self.rings):
            d = a.clear + 2 * self.u + k * step
            for dx, dy in dirs:
                m = max(abs(dx), abs(dy))
                yield a.cx + dx * d + dx / m * w / 2, a.cy + dy * d + dy / m * h / 2, k + 1

    def _place(self, a: _Label, leaders: ET.Element) -> None:
        full = a.text + (f" {a.style['note']}" if a.style.get("note") else "")
        w, h, pad = width(full, a.size), a.size, self.u
        best: tuple[float, float, float, int] | None = None
        for x, y, k in self._candidates(a, w, h):
            b = box(x, y, w + 2 * pad, h + 2 * pad)
            cost = 4 * (w * h - overlap(box(x, y, w, h), self.bounds))  # off the table
            limit = math.inf if best is None else best[0]
            cost += self.grid.cost(b, limit - cost) if cost < limit else 0.0
            if best is None or cost < best[0] - 1e-9:
                best = (cost, x, y, k)
            if cost <= 0:
                break
        assert best is not None
        _, x, y, k = best
        far = k >= 3 if a.centred else k >= 2
        if far:  # moved away: a leader line back to the thing named
            self._leader(leaders, a, box(x, y, w, h))
        self.grid.add_box(box(x, y, w, h))
        self.placed.append(box(x, y, w, h))
        text(self.g, x, y + 0.3 * a.size, a.text, a.size, **a.style)

    def _leader(self, g: ET.Element, a: _Label, b: Box) -> None:
        px, py = min(max(a.cx, b[0]), b[2]), min(max(a.cy, b[1]), b[3])
        dist = math.hypot(px - a.cx, py - a.cy)
        if dist <= a.r + self.u:
            return
        sx, sy = a.cx + (px - a.cx) * a.r / dist, a.cy + (py - a.cy) * a.r / dist
        ET.SubElement(
            g, "line", {"class": "leader", "x1": f(sx), "y1": f(sy), "x2": f(px), "y2": f(py)}
        )
