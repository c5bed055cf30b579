"""Dark Age pictures (a face): the D3 window of each line an observer asks, and the
witness segment or the pieces closing the window, as an overlay of
:mod:`arbitre.faces.svg.table`."""

from __future__ import annotations

import math
from collections.abc import Sequence

from arbitre.faces.svg.table import Drawing, Overlay
from arbitre.geometry import Point
from arbitre.rules.ruling import LosRuling
from arbitre.table import Model, Table

WINDOW, WITNESS, CLOSED = "#6a5acd", "#1b9e3e", "#d62020"


def outer_tangents(a: Model, b: Model) -> tuple[tuple[Point, Point], tuple[Point, Point]]:
    """The two sides of the D3 window: the outer common tangents of the two bases, each
    from its point on a's rim to its point on b's rim."""
    dx, dy = b.at.x - a.at.x, b.at.y - a.at.y
    d = math.hypot(dx, dy) or 1.0
    ra, rb = a.base.radius, b.base.radius
    base = math.atan2(dy, dx)
    turn = math.acos(max(-1.0, min(1.0, (ra - rb) / d)))
    sides = []
    for sign in (1.0, -1.0):
        phi = base + sign * turn
        nx, ny = math.cos(phi), math.sin(phi)
        sides.append(
            (Point(a.at.x + ra * nx, a.at.y + ra * ny), Point(b.at.x + rb * nx, b.at.y + rb * ny))
        )
    return sides[0], sides[1]


def overlay(table: Table, rulings: Sequence[LosRuling]) -> Overlay:
    """Windows, witnesses and closed windows of the rulings given (D3-D4)."""
    drawings: list[Drawing] = []
    for r in rulings:
        a, b = table.model(r.shooter), table.model(r.target)
        left, right = outer_tangents(a, b)
        colour = WITNESS if r.visible else CLOSED
        window = (left[0], left[1], right[1], right[0])
        drawings.append(
            Drawing(
                window,
                closed=True,
                stroke=WINDOW,
                fill=colour,
                fill_opacity=0.08,
                width_px=1.0,
                cls="window",
                title=f"D3 window {a.id} - {b.id}",
            )
        )
        for side in (left, right):
            drawings.append(
                Drawing(side, stroke=WINDOW, width_px=1.5, dashed=True, cls="window-side")
            )
        if r.witness is not None:
            p, q = (Point(*r.witness[0]), Point(*r.witness[1]))
            drawings.append(
                Drawing(
                    (p, q),
                    stroke=WITNESS,
                    width_px=3.0,
                    cls="witness",
                    title=f"clear line {a.id} -> {b.id}",
                )
            )
    legend = (
        ("dash", WINDOW, "window sides (D3)"),
        ("line", WITNESS, "a clear line"),
        ("swatch", CLOSED, "window closed (D4)"),
    )
    return Overlay(tuple(drawings), legend, "Dark Age")
