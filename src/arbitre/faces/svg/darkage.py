"""Dark Age pictures (a face): the D3 window of each line an observer asks, and the
witness segment or the pieces closing the window, as an overlay of
:mod:`arbitre.faces.svg.table`; and the size class of every model and piece (D4 decides
by them), written after its id. Everything drawn is a field of the ``los`` rulings
(``window``, ``witness``, ``visible``) or of the table (``size``); nothing is ruled or
measured here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arbitre.faces.svg.legend import AREA_OPACITY
from arbitre.faces.svg.overlays import overlay_for
from arbitre.faces.svg.table import Drawing, Overlay
from arbitre.geometry import Point
from arbitre.i18n import T_, _, current
from arbitre.rules import ask
from arbitre.table import Table
from arbitre.vocabulary import SIZES

WINDOW, WITNESS, CLOSED, SIZE = "#6a5acd", "#1b9e3e", "#d62020", "#4b3f8f"


@overlay_for("darkage")
def overlays(table: Table, shooter: str, *, options: Mapping[str, Any]) -> list[Overlay]:
    """The windows of ``shooter``'s lines of sight, as the ``los`` question rules them."""
    answer = ask(table, "los", rules="darkage", shooter=shooter, options=options)
    return [overlay(answer.rulings, table=table)]


def overlay(rulings: Sequence[Any], *, table: Table | None = None) -> Overlay:
    """Windows, witnesses and closed windows of the Dark Age rulings given (D3-D4); with
    ``table``, the size class of each model and piece."""
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
                stroke=colour,
                fill=colour,
                fill_opacity=AREA_OPACITY,
                width_px=1.0,
                cls="window",
                title=_window_title(r.shooter, r.target, r.visible),
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
                    title=str(T_("clear line {a} -> {b}", a=r.shooter, b=r.target)),
                )
            )
    drawn = [r for r in rulings if r.window is not None]
    legend = [("dash", WINDOW, _("window sides (D3)"))] if drawn else []
    if any(r.visible for r in drawn):
        legend += [("area", WITNESS, _("window open (D3)"))]
    if any(r.witness is not None for r in drawn):
        legend += [("line", WITNESS, _("a clear line (D3)"))]
    if any(not r.visible for r in drawn):
        legend += [("area", CLOSED, _("window closed (D4)"))]
    notes: tuple[tuple[str, str, str], ...] = ()
    if table is not None:
        things = [(m.id, m.size) for m in table.models] + [(t.id, t.size) for t in table.terrain]
        notes = tuple((ident, _size(size), SIZE) for ident, size in things)
        if things:
            size = _size(things[0][1])
            legend += [("label", SIZE, str(T_("{size} size class (D4)", size=size)))]
    return Overlay(tuple(drawings), tuple(legend), "Dark Age", notes=notes)


def _size(size: str) -> str:
    """A size class as the rulings word it: its id in English ("medium"), the seed's word
    in French ("Moyen"); a size class of the table's own as it is named."""
    return size if current() == "en" or size not in SIZES else _(SIZES[size])


def _window_title(observer: str, target: str, visible: bool) -> str:
    """The tooltip of a D3 window, in the language spoken."""
    if visible:
        return str(T_("D3 window {a} - {b}", a=observer, b=target))
    return str(T_("D3 window {a} - {b} (closed, D4)", a=observer, b=target))
