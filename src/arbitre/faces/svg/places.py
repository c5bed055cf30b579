"""SVG picture of a map of places (P1-P6): a face, no rules here.

:func:`render_places` is a pure function of a :class:`~arbitre.places.PlaceMap` and the
options in force. Each place is a card showing what the ``place`` question rules of it
(asked through :func:`arbitre.rules.ask`, so the picture shows what ``arbitre place``
says): its id, type, cost to enter (encumbrance, P3) and cover (P5), the effects it
grants under the options, in the ruling's words (P6), and its units, discs of their
side's colour numbered by arrival order, with their obstruction there. A line joins
adjacent places (P1), with a badge for each junction on it (P4).

Places stating ``at: [x, y]`` are drawn there (y up, any unit: only proportions count);
the others are laid out by a force-directed layout with a fixed seed, so a map always
draws the same. Cards are then pushed apart until none overlaps.
"""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

import networkx as nx  # type: ignore[import-untyped, unused-ignore]

from arbitre.places import Junction, PlaceMap
from arbitre.rules import ask

#: Card size and gaps, in pixels.
CARD_W, CARD_H, GAP = 200.0, 124.0, 70.0
SEED, TRIES = 3, 12
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
#: Card fill by the root of a place's lineage (its family in the seed's table).
FAMILY_FILL = {"Forêt": "#d5ecc2", "Ville": "#f3dcc0", "Ruine": "#dedbd5", "Plaine": "#f4f1b8"}
DEFAULT_FILL, INK, EDGE = "#f6f1e3", "#1a1a1a", "#6b6257"
JUNCTION_FILL = {
    "move": "#ffd7a8",
    "ranged": "#cfe3ff",
    "blocked": "#ffb3b3",
    "bleeding": "#f2b3d9",
}


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
    """A colour per side: its own if it is named after one, else the next unused one."""
    out = {s: NAMED_COLOURS[s.lower()] for s in sides if s.lower() in NAMED_COLOURS}
    free = iter(c for c in SIDE_COLOURS if c not in out.values())
    for s in sides:
        if s not in out:
            out[s] = next(free, "#7f7f7f")
    return {s: out[s] for s in sides}


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def layout(placemap: PlaceMap) -> dict[str, tuple[float, float]]:
    """Card centres in pixels (SVG y down): stated ``at`` kept in proportion, the rest by
    a seeded spring layout, then cards pushed apart until none overlaps."""
    graph = placemap.graph
    given = {p.id: p.at for p in placemap.places if p.at is not None}
    if len(given) == len(placemap.places):
        return _place_cards(
            placemap, {k: (float(x), float(y)) for k, (x, y) in given.items()}, set(given)
        )
    fixed = list(given) or None
    best: tuple[int, int] | None = None
    tries = TRIES if len(graph) <= 25 else 3  # big maps: fewer tries, each is slower
    for seed in range(SEED, SEED + tries):
        pos = nx.spring_layout(
            graph,
            seed=seed,
            pos=given or None,
            fixed=fixed,
            k=None if given else 1.6 / math.sqrt(max(1, len(graph))),
        )
        raw = {k: (float(v[0]), float(v[1])) for k, v in pos.items()}
        cards = _place_cards(placemap, raw, set(given))
        score = (_clutter(placemap, cards), seed)
        if best is None or score < best:
            best, chosen = score, cards
    return chosen


def _clutter(placemap: PlaceMap, pos: dict[str, tuple[float, float]]) -> int:
    """How hard a layout is to read: ways passing under another card count 10, ways
    crossing each other 1."""
    score = 0
    segments = [(a, b, pos[a], pos[b]) for a, b in placemap.adjacent]
    for a, b, p, q in segments:
        for c, (cx, cy) in pos.items():
            if c not in (a, b) and _meets_box(p, q, cx, cy):
                score += 10
    for (a, b, p, q), (c, d, r, t) in itertools.combinations(segments, 2):
        if not {a, b} & {c, d} and _cross(p, q, r, t):
            score += 1
    return score


def _meets_box(p: tuple[float, float], q: tuple[float, float], cx: float, cy: float) -> bool:
    """Whether segment pq enters the card centred at (cx, cy), a margin around it included."""
    lo, hi = 0.0, 1.0
    for a, d, low, high in (
        (p[0], q[0] - p[0], cx - CARD_W / 2 - 8, cx + CARD_W / 2 + 8),
        (p[1], q[1] - p[1], cy - CARD_H / 2 - 8, cy + CARD_H / 2 + 8),
    ):
        if d == 0:
            if not low <= a <= high:
                return False
            continue
        t1, t2 = sorted(((low - a) / d, (high - a) / d))
        lo, hi = max(lo, t1), min(hi, t2)
    return lo < hi


def _cross(
    p: tuple[float, float], q: tuple[float, float], r: tuple[float, float], t: tuple[float, float]
) -> bool:
    def side(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    return side(p, q, r) * side(p, q, t) < 0 and side(r, t, p) * side(r, t, q) < 0


def _place_cards(
    placemap: PlaceMap, raw: dict[str, tuple[float, float]], given: set[str]
) -> dict[str, tuple[float, float]]:
    """Scale layout positions to pixels, push cards apart, make room for junction badges."""
    xs = [x for x, _ in raw.values()]
    ys = [y for _, y in raw.values()]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    # Scale so that the map is about sqrt(n) cards across, then separate the cards.
    side = math.sqrt(len(raw)) * (CARD_W + GAP)
    pts = {
        k: [(x - min(xs)) / span * side, (max(ys) - y) / span * side] for k, (x, y) in raw.items()
    }
    _separate(pts, keep=given if len(given) < len(raw) else set())
    rooms = [_room(placemap, pts, a, b) for a, b in placemap.adjacent]
    gx = max([f for f, horizontal in rooms if horizontal], default=1.0)
    gy = max([f for f, horizontal in rooms if not horizontal], default=1.0)
    return {k: (v[0] * gx, v[1] * gy) for k, v in pts.items()}


def _room(placemap: PlaceMap, pts: dict[str, list[float]], a: str, b: str) -> tuple[float, bool]:
    """How much the map must grow, across or down, for the junction badges of a way to
    fit between its cards; and whether the way runs more across than down."""
    js = placemap.junctions_between(a, b)
    (ax, ay), (bx, by) = pts[a], pts[b]
    length = math.hypot(bx - ax, by - ay)
    horizontal = abs(bx - ax) >= abs(by - ay)
    if not js or length == 0:
        return 1.0, horizontal
    x1, y1, x2, y2 = _edge_ends((ax, ay), (bx, by))
    inside = length - math.hypot(x2 - x1, y2 - y1)  # the part of the way under the cards
    w = max(_badge_size(j)[0] for j in js)
    h = 34 * len(js)
    cos, sin = abs(bx - ax) / length, abs(by - ay) / length
    need = cos * w + sin * h + 24
    return max(1.0, (need + inside) / length), horizontal


def _separate(pts: dict[str, list[float]], keep: set[str] | None = None) -> None:
    """Push overlapping cards apart along the axis of least overlap (deterministic)."""
    ids = sorted(pts)
    need_x, need_y = CARD_W + GAP * 0.6, CARD_H + GAP * 0.6
    for _ in range(400):
        moved = False
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                dx = pts[b][0] - pts[a][0]
                dy = pts[b][1] - pts[a][1]
                ox, oy = need_x - abs(dx), need_y - abs(dy)
                if ox <= 0 or oy <= 0:
                    continue
                moved = True
                share = (0.0 if keep and a in keep else 0.5, 0.0 if keep and b in keep else 0.5)
                if share == (0.0, 0.0):
                    share = (0.5, 0.5)
                if ox / need_x < oy / need_y:
                    sign = 1.0 if dx >= 0 else -1.0
                    pts[a][0] -= sign * ox * share[0] * 1.02
                    pts[b][0] += sign * ox * share[1] * 1.02
                else:
                    sign = 1.0 if dy >= 0 else -1.0
                    pts[a][1] -= sign * oy * share[0] * 1.02
                    pts[b][1] += sign * oy * share[1] * 1.02
        if not moved:
            return


def junction_badge(j: Junction) -> tuple[str, str, str]:
    """The kind, effect and colour of a junction's badge (P4)."""
    parts, colour = [], JUNCTION_FILL["move"]
    if j.encumbrance:
        parts.append(f"cost +{j.encumbrance}")
    if j.ranged_reduction:
        parts.append(f"shots -{j.ranged_reduction}")
        colour = JUNCTION_FILL["ranged"]
    if j.blocks_ranged:
        parts.append("no shots")
        colour = JUNCTION_FILL["blocked"]
    if j.bleeding:
        parts.append(f"bleeding {j.bleeding}")
        colour = JUNCTION_FILL["bleeding"]
    return j.kind, ", ".join(parts) or "no effect", colour


def _family(ruling: Any) -> str:
    """The root of a place's lineage (its family in the seed's table), from its ruling."""
    return (ruling.lineage[-1] if ruling.lineage else ruling.type) or ""


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


def _edge_ends(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float, float, float]:
    """Where the segment between two card centres leaves each card."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = min(CARD_W / 2 / abs(dx) if dx else math.inf, CARD_H / 2 / abs(dy) if dy else math.inf)
    t = min(t, 0.5)
    return a[0] + dx * t, a[1] + dy * t, b[0] - dx * t, b[1] - dy * t


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
    sides = placemap.sides()
    colour = side_colours(sides)
    xs = [x for x, _ in pos.values()]
    ys = [y for _, y in pos.values()]
    heading = placemap.name if title is None else title
    left, top = min(xs) - CARD_W / 2 - 20, min(ys) - CARD_H / 2 - (56 if heading else 20)
    legend_x = max(xs) + CARD_W / 2 + 40
    width = legend_x + 300 - left
    height = max(max(ys) + CARD_H / 2 + 30 - top, 420.0)
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
    _legend(svg, placemap, colour, legend_x, top + (56 if heading else 20))
    return ET.tostring(svg, encoding="unicode")


def _ways(svg: ET.Element, placemap: PlaceMap, pos: dict[str, tuple[float, float]]) -> None:
    """A line for each way between adjacent places (P1), a badge for each junction (P4)."""
    edges = ET.SubElement(svg, "g", {"class": "ways"})
    badges = ET.SubElement(svg, "g", {"class": "junctions"})
    for a, b in placemap.adjacent:
        x1, y1, x2, y2 = _edge_ends(pos[a], pos[b])
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
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        for k, j in enumerate(js):
            _badge(badges, j, mx, my + (k - (len(js) - 1) / 2) * 34)


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


def _card(g: ET.Element, ruling: Any, at: tuple[float, float], colour: dict[str, str]) -> None:
    """A place's card, drawn from its ``place`` ruling."""
    x, y = at[0] - CARD_W / 2, at[1] - CARD_H / 2
    text_w = CARD_W - 62
    el = ET.SubElement(g, "g", {"class": "place", "data-id": ruling.place})
    ET.SubElement(el, "title").text = f"{ruling.place}: {ruling.type or 'place'}"
    fill = FAMILY_FILL.get(_family(ruling), DEFAULT_FILL)
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
    for k, (label, value) in enumerate((("cost", ruling.encumbrance), ("cover", ruling.cover))):
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
        _text(el, right - 27, by + 10, label, 8.5, **{"text-anchor": "middle"})
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
        ET.SubElement(
            ug, "title"
        ).text = f"{o.unit} ({o.side}), arrived {o.arrived}, obstruction {o.obstruction}"
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
            f"+{len(occupants) - len(shown)} more",
            9.5,
            **{"font-style": "italic"},
        )


def _legend(
    svg: ET.Element, placemap: PlaceMap, colour: dict[str, str], x: float, y: float
) -> None:
    g = ET.SubElement(svg, "g", {"class": "legend"})
    rows: list[tuple[str, Any]] = [
        ("head", "Places (P2)"),
        ("note", "cost: movement points to enter (P3)"),
        ("note", "cover: attack score -N for shots"),
        ("note", "  across or into it (P5)"),
        ("head", "Junctions on a way (P4)"),
    ]
    rows += [
        ("junction", (name, fill))
        for name, fill in (
            ("cost +N: to cross when moving", JUNCTION_FILL["move"]),
            ("shots -N: attack score", JUNCTION_FILL["ranged"]),
            ("no shots across it", JUNCTION_FILL["blocked"]),
            ("bleeding N when crossed", JUNCTION_FILL["bleeding"]),
        )
    ]
    if colour:
        rows.append(("head", "Units (number: arrival order)"))
        rows += [("side", (s, c)) for s, c in colour.items()]
    for kind, value in rows:
        if kind == "head":
            y += 8
            _text(g, x, y + 12, value, 12.5, **{"font-weight": "bold"})
            y += 20
        elif kind == "note":
            _text(g, x, y + 11, value, 10.5)
            y += 16
        elif kind == "junction":
            ET.SubElement(
                g,
                "rect",
                {
                    "x": _f(x),
                    "y": _f(y),
                    "width": "26",
                    "height": "14",
                    "rx": "7",
                    "fill": value[1],
                    "stroke": INK,
                },
            )
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
