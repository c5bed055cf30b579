"""SVG picture of a map of places (P1-P6): a face, no rules here.

:func:`render_places` is a pure function of a :class:`~arbitre.places.PlaceMap` and the
options in force. Each place is a card showing what the ``place`` question rules of it
(asked through :func:`arbitre.rules.ask`, so the picture shows what ``arbitre place``
says): its id, type, cost to enter (encumbrance, P3) and cover (P5), the effects it
grants under the options, in the ruling's words (P6), and its units, discs of their
side's colour numbered by arrival order, with their obstruction there. A line joins
adjacent places (P1), with a badge for each junction on it (P4), placed where it covers
no card and no other badge (off its way on a dashed leader line when it must). Side
colours are stable by side name (a side named after a colour is drawn in it); the
legend has one entry per meaning drawn: the card colour of each family on the map (the
root of a place's parent chain, P2), the junction colours used, the sides. Texts that
XML cannot carry (control characters in ids made through the API) are drawn as U+FFFD.

Places stating ``at: [x, y]`` are drawn there (y up, any unit: only proportions count);
the others are laid out next to their neighbours on a lattice of cards
(:mod:`~arbitre.faces.svg.places_layout`: deterministic, linear, no scipy), so a map always
draws the same and no card overlaps another.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Mapping
from typing import Any

from arbitre.faces.svg.places_layout import CARD_H, CARD_W, badge_spots, edge_ends, lattice
from arbitre.i18n import N_, T_, TN_, _
from arbitre.places import Junction, Named, PlaceMap
from arbitre.rules import ask

SIDE_COLOURS = (
    "#2f6fd0",
    "#c0392b",
    "#8e44ad",
    "#13a3b5",
    "#e377c2",
    "#8c564b",
    "#e8c31a",
    "#7f7f7f",
)
#: Card fill by the root of a place's lineage (its family in the seed's table), and the
#: family's English name for the English legend (the French one names it by the seed).
FAMILY_FILL = {"Forêt": "#d5ecc2", "Ville": "#f3dcc0", "Ruine": "#dedbd5", "Plaine": "#f4f1b8"}
FAMILY_NAME = {"Forêt": "forest", "Ville": "town", "Ruine": "ruin", "Plaine": "plain"}
DEFAULT_FILL, INK, EDGE = "#f6f1e3", "#1a1a1a", "#6b6257"
JUNCTION_FILL = {
    "move": "#ffd7a8",
    "ranged": "#cfe3ff",
    "blocked": "#ffb3b3",
    "bleeding": "#f2b3d9",
}
#: What each junction colour means, as the legend says it (message ids).
JUNCTION_MEANING = {
    "move": N_("cost +N: to cross when moving"),
    "ranged": N_("shots -N: attack score"),
    "blocked": N_("no shots across it"),
    "bleeding": N_("bleeding N when crossed"),
}
#: A place's cover (seed 003: "couverture"; the catalogue's "cover" is the tables').
COVER = Named("cover", "couverture")
#: Characters XML 1.0 does not allow, drawn as U+FFFD.
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


#: A side named after a colour is drawn in it.
NAMED_COLOURS = {
    "red": "#c0392b",
    "blue": "#2f6fd0",
    "green": "#2e9e44",
    "yellow": "#e8c31a",
    "orange": "#e67e22",
    "purple": "#8e44ad",
    "black": "#333333",
    "white": "#f4f4f4",
    "grey": "#7f7f7f",
    "gray": "#7f7f7f",
    "pink": "#e377c2",
    "brown": "#8c564b",
    "cyan": "#13a3b5",
}


def side_colours(sides: tuple[str, ...]) -> dict[str, str]:
    """A colour per side, stable by side name (not by file order): its own if it is named
    after one, else the palette colour its name hashes to, the next unused one when that
    is taken (sides taken in name order); grey when the palette is used up."""
    out = {s: NAMED_COLOURS[s.lower()] for s in sides if s.lower() in NAMED_COLOURS}
    for s in sorted(set(sides) - set(out)):
        start = zlib.crc32(s.encode("utf-8", "surrogatepass")) % len(SIDE_COLOURS)
        turn = SIDE_COLOURS[start:] + SIDE_COLOURS[:start]
        out[s] = next((c for c in turn if c not in out.values()), "#7f7f7f")
    return {s: out[s] for s in sides}


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def layout(placemap: PlaceMap) -> dict[str, tuple[float, float]]:
    """Card centres in pixels (SVG y down): the lattice layout of
    :mod:`~arbitre.faces.svg.places_layout` (stated ``at`` kept in proportion, the rest
    laid out next to their neighbours, never overlapping), then the map grown, across or
    down, until the junction badges of every way fit between its cards."""
    pts = lattice(placemap)
    rooms = [_room(placemap, pts, a, b) for a, b in placemap.adjacent]
    gx = max([f for f, horizontal in rooms if horizontal], default=1.0)
    gy = max([f for f, horizontal in rooms if not horizontal], default=1.0)
    return {k: (x * gx, y * gy) for k, (x, y) in pts.items()}


def _room(
    placemap: PlaceMap, pts: Mapping[str, tuple[float, float]], a: str, b: str
) -> tuple[float, bool]:
    """How much the map must grow, across or down, for the junction badges of a way to
    fit between its cards; and whether the way runs more across than down."""
    js = placemap.junctions_between(a, b)
    (ax, ay), (bx, by) = pts[a], pts[b]
    length = math.hypot(bx - ax, by - ay)
    horizontal = abs(bx - ax) >= abs(by - ay)
    if not js or length == 0:
        return 1.0, horizontal
    x1, y1, x2, y2 = edge_ends((ax, ay), (bx, by))
    inside = length - math.hypot(x2 - x1, y2 - y1)  # the part of the way under the cards
    w = max(_badge_size(j)[0] for j in js)
    h = 34 * len(js)
    cos, sin = abs(bx - ax) / length, abs(by - ay) / length
    need = cos * w + sin * h + 24
    return max(1.0, (need + inside) / length), horizontal


def junction_badge(j: Junction) -> tuple[str, str, str]:
    """The kind, effect and colour of a junction's badge (P4), in the language spoken."""
    parts, colour = [], JUNCTION_FILL["move"]
    if j.encumbrance:
        parts.append(str(T_("cost +{n}", n=j.encumbrance)))
    if j.ranged_reduction:
        parts.append(str(T_("shots -{n}", n=j.ranged_reduction)))
        colour = JUNCTION_FILL["ranged"]
    if j.blocks_ranged:
        parts.append(_("no shots"))
        colour = JUNCTION_FILL["blocked"]
    if j.bleeding:
        parts.append(str(T_("bleeding {n}", n=j.bleeding)))
        colour = JUNCTION_FILL["bleeding"]
    return j.kind, ", ".join(parts) or _("no effect"), colour


def _family(ruling: Any) -> str:
    """The root of a place's lineage (its family in the seed's table), from its ruling."""
    return (ruling.lineage[-1] if ruling.lineage else ruling.type) or ""


def _fill(ruling: Any) -> str:
    return FAMILY_FILL.get(_family(ruling), DEFAULT_FILL)


def _text(
    parent: ET.Element, x: float, y: float, text: str, size: float, **attrs: str
) -> ET.Element:
    el = ET.SubElement(
        parent, "text", {"x": _f(x), "y": _f(y), "font-size": _f(size), "fill": INK} | attrs
    )
    el.text = text
    return el


def _wrap(text: str, size: float, width: float) -> list[str]:
    per_line = max(8, int(width / (size * 0.56)))
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > per_line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line] if line else lines


def render_places(
    placemap: PlaceMap, *, options: Mapping[str, object] | None = None, title: str | None = None
) -> str:
    """The map as a standalone SVG document (P1-P6 drawn from the ``place`` rulings under
    ``options`` over the map's own; nothing ruled here). ``title`` replaces the map's name
    as the heading (``""``: none)."""
    rulings = {
        p.id: ask(placemap, "place", options=options, place=p.id).ruling for p in placemap.places
    }
    pos = layout(placemap)
    colour = side_colours(placemap.sides())
    xs = [x for x, _ in pos.values()]
    ys = [y for _, y in pos.values()]
    heading = placemap.name if title is None else title
    left, top = min(xs) - CARD_W / 2 - 20, min(ys) - CARD_H / 2 - (56 if heading else 20)
    legend_x = max(xs) + CARD_W / 2 + 40
    legend = ET.Element("g", {"class": "legend"})
    bottom = _legend(legend, placemap, rulings, colour, legend_x, top + (56 if heading else 20))
    width = legend_x + 300 - left
    height = max(max(ys) + CARD_H / 2 + 30, bottom + 20) - top
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "version": "1.1",
            "viewBox": f"{_f(left)} {_f(top)} {_f(width)} {_f(height)}",
            "width": _f(width),
            "height": _f(height),
            "font-family": "DejaVu Sans, Verdana, Arial, sans-serif",
        },
    )
    ET.SubElement(
        svg,
        "rect",
        {"x": _f(left), "y": _f(top), "width": _f(width), "height": _f(height), "fill": "#ffffff"},
    )
    if heading:
        _text(svg, left + 20, top + 32, heading, 20, **{"font-weight": "bold"})
    _ways(svg, placemap, pos)
    cards = ET.SubElement(svg, "g", {"class": "places"})
    for p in placemap.places:
        _card(cards, rulings[p.id], pos[p.id], colour)
    svg.append(legend)
    return ET.tostring(_xml_safe(svg), encoding="unicode")


def _xml_safe(svg: ET.Element) -> ET.Element:
    """Every text and attribute without the characters XML 1.0 forbids (a map built
    through the API may hold them in its ids), so the document is always well-formed."""
    for el in svg.iter():
        if el.text and NOT_XML.search(el.text):
            el.text = NOT_XML.sub("\ufffd", el.text)
        for key, value in el.attrib.items():
            if NOT_XML.search(value):
                el.set(key, NOT_XML.sub("\ufffd", value))
    return svg


def _ways(svg: ET.Element, placemap: PlaceMap, pos: dict[str, tuple[float, float]]) -> None:
    """A line for each way between adjacent places (P1), a badge for each junction (P4)
    where it covers no card and no other badge."""
    edges = ET.SubElement(svg, "g", {"class": "ways"})
    badges = ET.SubElement(svg, "g", {"class": "junctions"})
    spots = badge_spots(placemap, pos, _stack_size)
    for a, b in placemap.adjacent:
        x1, y1, x2, y2 = edge_ends(pos[a], pos[b])
        js = placemap.junctions_between(a, b)
        ET.SubElement(
            edges,
            "line",
            {
                "class": "way",
                "data-between": f"{a} {b}",
                "x1": _f(x1),
                "y1": _f(y1),
                "x2": _f(x2),
                "y2": _f(y2),
                "stroke": EDGE,
                "stroke-width": "5" if js else "4",
                "stroke-linecap": "round",
            },
        )
        if js:
            (mx, my), anchor = spots[a, b]
            if anchor is not None:
                ET.SubElement(
                    edges,
                    "line",
                    {
                        "class": "leader",
                        "x1": _f(anchor[0]),
                        "y1": _f(anchor[1]),
                        "x2": _f(mx),
                        "y2": _f(my),
                        "stroke": EDGE,
                        "stroke-width": "1.5",
                        "stroke-dasharray": "4 3",
                    },
                )
            for k, j in enumerate(js):
                _badge(badges, j, mx, my + (k - (len(js) - 1) / 2) * 34)


def _stack_size(js: tuple[Junction, ...]) -> tuple[float, float]:
    """The width and height of the stack of a way's badges, a margin included."""
    return max(_badge_size(j)[0] for j in js) + 6, 34.0 * len(js)


def _badge_size(j: Junction) -> tuple[float, float]:
    kind, effect, _ = junction_badge(j)
    return max(len(kind), len(effect)) * 6.4 + 16, 30.0


def _badge(g: ET.Element, j: Junction, x: float, y: float) -> None:
    kind, effect, fill = junction_badge(j)
    w, h = _badge_size(j)
    el = ET.SubElement(g, "g", {"class": "junction", "data-id": j.id})
    ET.SubElement(el, "title").text = f"{j.id}: {j.kind} ({j.text})"
    ET.SubElement(
        el,
        "rect",
        {
            "x": _f(x - w / 2),
            "y": _f(y - h / 2),
            "width": _f(w),
            "height": _f(h),
            "rx": "8",
            "fill": fill,
            "stroke": INK,
            "stroke-width": "1.2",
        },
    )
    _text(el, x, y - 2, kind, 11, **{"text-anchor": "middle", "font-weight": "bold"})
    _text(el, x, y + 11, effect, 10.5, **{"text-anchor": "middle"})


#: How the effects of a card are set: (font size, line spacing, most lines), the first
#: that fits all of them, else the last with its last line cut.
EFFECT_FITS = ((9.5, 12.0, 3), (8.0, 10.0, 4))


def _place() -> str:
    return _("place")


def _card(g: ET.Element, ruling: Any, at: tuple[float, float], colour: dict[str, str]) -> None:
    """A place's card, drawn from its ``place`` ruling."""
    x, y = at[0] - CARD_W / 2, at[1] - CARD_H / 2
    text_w = CARD_W - 62
    el = ET.SubElement(g, "g", {"class": "place", "data-id": ruling.place})
    ET.SubElement(el, "title").text = f"{ruling.place}: {ruling.type or _place()}"
    fill = _fill(ruling)
    ET.SubElement(
        el,
        "rect",
        {
            "x": _f(x),
            "y": _f(y),
            "width": _f(CARD_W),
            "height": _f(CARD_H),
            "rx": "8",
            "fill": fill,
            "stroke": INK,
            "stroke-width": "1.5",
        },
    )
    size = min(13.0, text_w / (0.62 * max(1, len(ruling.place))))
    _text(el, x + 8, y + 18, ruling.place, size, **{"font-weight": "bold"})
    names = dict.fromkeys(t for t in (ruling.name, ruling.type) if t and t != ruling.place)
    sub = " / ".join(names)
    if sub:
        _text(
            el,
            x + 8,
            y + 33,
            sub,
            min(10.5, text_w / (0.56 * len(sub))),
            **{"font-style": "italic"},
        )
    _figures(el, ruling, x + CARD_W, y)
    _effects(el, [e.text for e in ruling.effects], x + 8, y + 50, text_w)
    _units(el, ruling.occupants, x, y, colour)


def _figures(el: ET.Element, ruling: Any, right: float, y: float) -> None:
    """Cost (encumbrance, P3) and cover (P5), a column at the right of a card."""
    figures = ((_("cost"), ruling.encumbrance), (str(COVER), ruling.cover))
    for k, (label, value) in enumerate(figures):
        by = y + 6 + k * 34
        ET.SubElement(
            el,
            "rect",
            {
                "x": _f(right - 48),
                "y": _f(by),
                "width": "42",
                "height": "30",
                "rx": "4",
                "fill": "#fff3d6" if k == 0 else "#ffffff",
                "stroke": INK,
                "stroke-width": "0.8",
            },
        )
        size = min(8.5, 40 / (0.56 * len(label)))  # "couverture" fits the box too
        _text(el, right - 27, by + 10, label, size, **{"text-anchor": "middle"})
        _text(
            el,
            right - 27,
            by + 26,
            str(value),
            13,
            **{"text-anchor": "middle", "font-weight": "bold"},
        )


def _effects(el: ET.Element, texts: list[str], x: float, y: float, width: float) -> None:
    """The effects' words, wrapped to fit the card; the whole texts in the group's title,
    one a line."""
    if not texts:
        return
    g = ET.SubElement(el, "g", {"class": "effects"})
    ET.SubElement(g, "title").text = "\n".join(texts)
    fits = [
        (size, step, most, [line for text in texts for line in _wrap(text, size, width)])
        for size, step, most in EFFECT_FITS
    ]
    size, step, most, lines = next((f for f in fits if len(f[3]) <= f[2]), fits[-1])
    if len(lines) > most:
        lines = [*lines[: most - 1], lines[most - 1] + " …"]
    for k, line in enumerate(lines):
        _text(g, x, y + k * step, line, size, fill="#333333")


def _units(el: ET.Element, occupants: Any, x: float, y: float, colour: dict[str, str]) -> None:
    """The units on a card, first arrived first: side colour, arrival rank, obstruction."""
    shown = occupants[:4] if len(occupants) <= 4 else occupants[:3]
    for k, o in enumerate(shown):
        cx = x + 16 + (k % 2) * (CARD_W / 2 - 4)
        cy = y + CARD_H - 32 + (k // 2) * 19
        ug = ET.SubElement(el, "g", {"class": "unit", "data-id": o.unit, "data-side": o.side})
        ET.SubElement(ug, "title").text = str(
            T_(
                "{unit} ({side}), arrived {arrived}, obstruction {obstruction}",
                unit=o.unit,
                side=o.side,
                arrived=o.arrived,
                obstruction=o.obstruction,
            )
        )
        ET.SubElement(
            ug,
            "circle",
            {
                "cx": _f(cx),
                "cy": _f(cy),
                "r": "8.5",
                "fill": colour[o.side],
                "stroke": INK,
                "stroke-width": "1.2",
            },
        )
        _text(
            ug,
            cx,
            cy + 3.5,
            str(o.arrived),
            9.5,
            fill="#ffffff",
            **{"text-anchor": "middle", "font-weight": "bold"},
        )
        label = o.unit if len(o.unit) <= 13 else o.unit[:12] + "."
        _text(ug, cx + 11, cy + 3.5, label, 9.5, **{"font-weight": "bold"})
    if len(occupants) > len(shown):
        _text(
            el,
            x + CARD_W / 2 + 12,
            y + CARD_H - 9,
            str(TN_("+{n} more", "+{n} more", "n", n=len(occupants) - len(shown))),
            9.5,
            **{"font-style": "italic"},
        )


def _legend_rows(
    placemap: PlaceMap, rulings: Mapping[str, Any], colour: Mapping[str, str]
) -> list[tuple[str, Any]]:
    """The legend, one entry per meaning drawn: the card colours of the families on the
    map, the junction colours used, the sides."""
    rows: list[tuple[str, Any]] = [
        ("head", _("Places (P2)")),
        ("note", _("cost: movement points to enter (P3)")),
        ("note", _("cover: attack score -N for shots")),
        ("note", "  " + _("across or into it (P5)")),
    ]
    fills = {_fill(r) for r in rulings.values()}
    families = [(f, c) for f, c in FAMILY_FILL.items() if c in fills]
    if families:
        rows.append(("head", _("Card colour: family (P2)")))
        rows += [("card", (_family_label(f), c)) for f, c in families]
        if DEFAULT_FILL in fills:
            rows.append(("card", (_("other places"), DEFAULT_FILL)))
    used = {junction_badge(j)[2] for j in placemap.junctions}
    kinds = [(_(JUNCTION_MEANING[k]), c) for k, c in JUNCTION_FILL.items() if c in used]
    if kinds:
        rows.append(("head", _("Junctions on a way (P4)")))
        rows += [("junction", kind) for kind in kinds]
    if colour:
        rows.append(("head", _("Units (number: arrival order)")))
        rows += [("side", (s, c)) for s, c in colour.items()]
    return rows


def _family_label(family: str) -> str:
    """A family's legend entry: its seed name, and its English name in English."""
    name = Named(f"{family} ({FAMILY_NAME[family]})", family)
    return str(T_("{family} and its kinds", family=name))


def _legend(
    g: ET.Element,
    placemap: PlaceMap,
    rulings: Mapping[str, Any],
    colour: Mapping[str, str],
    x: float,
    y: float,
) -> float:
    """The legend drawn from (x, y) down; the y it ends at."""
    for kind, value in _legend_rows(placemap, rulings, colour):
        if kind == "head":
            y += 8
            _text(g, x, y + 12, value, 12.5, **{"font-weight": "bold"})
            y += 20
        elif kind == "note":
            _text(g, x, y + 11, value, 10.5)
            y += 16
        elif kind in ("junction", "card"):
            w, h, r = (26, 14, 7) if kind == "junction" else (26, 16, 3)
            swatch = {"x": _f(x), "y": _f(y), "width": str(w), "height": str(h), "rx": str(r)}
            ET.SubElement(g, "rect", swatch | {"fill": value[1], "stroke": INK})
            _text(g, x + 34, y + 11, value[0], 10.5)
            y += 20
        else:
            ET.SubElement(
                g,
                "circle",
                {"cx": _f(x + 9), "cy": _f(y + 7), "r": "8", "fill": value[1], "stroke": INK},
            )
            _text(g, x + 24, y + 11, value[0], 10.5)
            y += 20
    return y
