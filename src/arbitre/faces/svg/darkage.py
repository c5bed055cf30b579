"""Dark Age pictures (a face): the D3 window of each line an observer asks, and the
witness segment or the pieces closing the window, as an overlay of
:mod:`arbitre.faces.svg.table`. Everything drawn is a field of the ``los`` rulings
(``window``, ``witness``, ``visible``); nothing is ruled or measured here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arbitre.faces.svg.overlays import overlay_for
from arbitre.faces.svg.table import Drawing, Overlay
from arbitre.geometry import Point
from arbitre.rules import ask
from arbitre.table import Table

WINDOW, WITNESS, CLOSED = "#6a5acd", "#1b9e3e", "#d62020"


@overlay_for("darkage")
def overlays(table: Table, shooter: str, *, options: Mapping[str, Any]) -> list[Overlay]:
    """The windows of ``shooter``'s lines of sight, as the ``los`` question rules them."""
    answer = ask(table, "los", rules="darkage", shooter=shooter, options=options)
    return [overlay(answer.rulings)]


def overlay(rulings: Sequence[Any]) -> Overlay:
    """Windows, witnesses and closed windows of the Dark Age rulings given (D3-D4)."""
    drawings: list[Drawing] = []
    for r in rulings:
        if r.window is None:
            continue
        left, right = ((Point(*p), Point(*q)) for p, q in r.window)
        colour = WITNESS if r.visible else CLOSED
        drawings.append(
            Drawing(
                (left[0], left[1], right[1], right[0]),
                closed=True,
                stroke=WINDOW,
                fill=colour,
                fill_opacity=0.08,
                width_px=1.0,
                cls="window",
                title=f"D3 window {r.shooter} - {r.target}",
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
                    title=f"clear line {r.shooter} -> {r.target}",
                )
            )
    legend = (
        ("dash", WINDOW, "window sides (D3)"),
        ("line", WITNESS, "a clear line"),
        ("swatch", CLOSED, "window closed (D4)"),
    )
    return Overlay(tuple(drawings), legend, "Dark Age")
