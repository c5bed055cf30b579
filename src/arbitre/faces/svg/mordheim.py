"""The Mordheim marks over a table picture (M3-M7): a face, no rules here.

:func:`overlay` reads a :class:`~arbitre.rules.mordheim.TargetsRuling` and returns an
:class:`~arbitre.faces.svg.table.Overlay` for
:func:`~arbitre.faces.svg.table.render_table`: the weapon's
range and long range around the shooter (M6), a ring on each enemy it sees (the closest,
that it must take unless an exception applies, M3/M5; the other legal targets; the seen
ones it may not target, M3-M5), and beside each the score it needs to hit (M7).
"""

from __future__ import annotations

import math

import shapely

from arbitre.faces.svg.table import SCREEN_PX, Drawing, Overlay
from arbitre.geometry import Point
from arbitre.rules import mordheim
from arbitre.table import Table

CLOSEST, LEGAL, NOT_LEGAL = "#e6007e", "#0f8f3c", "#a0a0a0"
RANGE, HALF_RANGE, REFUSED, FIGHT = "#1f3a93", "#6c8ed4", "#d62020", "#5b2c06"


def _circle(centre: Point, r: float, n: int = 96) -> tuple[Point, ...]:
    return tuple(Point(centre.x + r * math.cos(2 * math.pi * k / n),
                       centre.y + r * math.sin(2 * math.pi * k / n)) for k in range(n))


def _score(t: mordheim.TargetRuling, opts: mordheim.MordheimOptions) -> str:
    if t.score is None:
        return "?"
    if t.in_range is False:
        return "out of range"
    if t.need is None:
        return "no hit"
    return mordheim.need_text(t.score, opts).replace("any roll", "1+").replace(
        " (a natural 1 misses)", "")


def overlay(table: Table, shooter: str, *, weapon: str | None = None,
            ruling: mordheim.TargetsRuling | None = None) -> Overlay:
    """The marks of ``shooter``'s shooting phase (``ruling``, or :func:`mordheim.targets`
    with ``weapon``) to draw over the table."""
    ruling = ruling or mordheim.targets(table, shooter, weapon=weapon)
    s = table.model(ruling.shooter)
    u = max(table.width, table.depth) / SCREEN_PX  # mm per screen pixel, as render does
    drawings: list[Drawing] = []
    legend: list[tuple[str, str, str]] = []
    w = ruling.weapon
    if w is not None and w.range is not None:
        pad = s.base.radius if ruling.options.range_from == "edge" else 0.0
        for reach, colour, text in ((w.range, RANGE, "range"),
                                    (w.range / 2, HALF_RANGE, "long beyond")):
            span = mordheim.length(table, reach)
            for arc in _on_table(table, _circle(s.at, reach + pad)):
                drawings.append(Drawing(arc, stroke=colour, dashed=True, width_px=2.0,
                                        title=f"{w.name}: {text} {span} (M6)",
                                        cls="mordheim-range"))
            legend.append(("dash", colour, f"{text} {span} (M6)"))
    fights = _fights(table)
    for group in fights:
        pts = [(p.x, p.y) for m in group for p in _circle(table.model(m).at,
                                                          table.model(m).base.radius + 9 * u)]
        hull = shapely.MultiPoint(pts).convex_hull
        drawings.append(Drawing(tuple(Point(x, y) for x, y in hull.exterior.coords[:-1]),
                                closed=True, stroke=FIGHT, width_px=2.5, dashed=True,
                                title=f"in close combat: {', '.join(group)} (M4)",
                                cls="mordheim-fight"))
    if fights:
        legend.append(("dash", FIGHT, "close combat (M4)"))
    for t in ruling.targets:
        if not t.visible:
            continue
        m = table.model(t.target)
        colour = CLOSEST if t.closest else LEGAL if t.legal else NOT_LEGAL
        kind = "closest" if t.closest else "legal" if t.legal else "not-legal"
        r = max(m.base.radius, 6 * u) + 5 * u
        why = "; ".join(f"{x.rule} {x.text}" for x in t.reasons
                        if x.rule in ("M3", "M4", "M5", "M7"))
        drawings.append(Drawing(
            _circle(m.at, r), closed=True, stroke=colour, width_px=4.5 if t.closest else 3.0,
            dashed=not t.legal, label=_score(t, ruling.options),
            label_at=Point(m.at.x, m.at.y + r + 6 * u), label_colour=colour,
            title=f"{t.target}: {why}", cls=f"mordheim-target {kind}"))
    legend.insert(0, ("line", LEGAL if ruling.may_shoot else REFUSED,
                      "may shoot (M1)" if ruling.may_shoot else "may NOT shoot (M1)"))
    if ruling.elevated:
        legend.append(("line", LEGAL, "elevated: free pick (M5)"))
    legend += [("ring", CLOSEST, "closest: must take (M3)"),
               ("ring", LEGAL, "legal target (M3-M5)"),
               ("ring", NOT_LEGAL, "seen, not legal"),
               ("line", LEGAL, "4+: score to hit (M7)")]
    for reason in ruling.refusals:
        legend.append(("line", REFUSED, f"{reason.rule}: {_short(reason.text, 22)}"))
    return Overlay(tuple(drawings), tuple(legend), _short(f"Mordheim: {s.id}", 24))


def _fights(table: Table) -> list[tuple[str, ...]]:
    """The groups of models in close combat together (connected by ``engaged``)."""
    links = mordheim.engagements(table)
    seen: set[str] = set()
    groups = []
    for m in table.models:
        if m.id in seen or not links[m.id]:
            continue
        group, todo = [], [m.id]
        while todo:
            k = todo.pop()
            if k not in seen:
                seen.add(k)
                group.append(k)
                todo.extend(links[k])
        groups.append(tuple(group))
    return groups


def _short(text: str, n: int) -> str:
    """Legend text cut to about ``n`` characters (the legend column is narrow)."""
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _on_table(table: Table, ring: tuple[Point, ...]) -> list[tuple[Point, ...]]:
    """The arcs of a closed ring that lie on the table (drawn only there)."""
    line = shapely.LineString([(p.x, p.y) for p in (*ring, ring[0])])
    clipped = line.intersection(shapely.box(0.0, 0.0, table.width, table.depth))
    return [tuple(Point(x, y) for x, y in part.coords)
            for part in shapely.get_parts(clipped) if part.geom_type == "LineString"
            and len(part.coords) > 1]
