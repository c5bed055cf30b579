"""The Mordheim marks over a table picture (M3-M7): a face, no rules here.

:func:`overlays` asks the ``targets`` question of a shooter and draws the fields of its
ruling as an :class:`~arbitre.faces.svg.table.Overlay` for
:func:`~arbitre.faces.svg.table.render_table`: the weapon's range and long-range rings
around the shooter (``range_ring``, ``half_range_ring``, M6), the fights (``fights``,
M4), a ring on each enemy it sees (the closest, that it must take unless an exception
applies, M3/M5; the other legal targets; the seen ones it may not target), and beside
each the score it needs to hit (``need_short``, M7).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import shapely

from arbitre.faces.svg.draw import INK
from arbitre.faces.svg.draw import ring as circle_points
from arbitre.faces.svg.overlays import overlay_for
from arbitre.faces.svg.table import COVERED, SCREEN_PX, Drawing, Overlay
from arbitre.geometry import Point
from arbitre.i18n import N_, T_, Text, _, current, semicolons, tr
from arbitre.rules import ask
from arbitre.table import MM, Table, Unit

#: The ruleset whose ``targets`` rulings this picture draws.
RULES = "mordheim"

CLOSEST, LEGAL, NOT_LEGAL = "#e6007e", "#0f8f3c", "#a0a0a0"
RANGE, HALF_RANGE, REFUSED, FIGHT = "#1f3a93", "#6c8ed4", "#d62020", "#5b2c06"
#: M5: the word written beside an elevated shooter (its own mark, not the M1 dot).
ELEVATED = "#7b2fa8"
#: The cover mark: the colour of lines in cover.
COVER = COVERED


@overlay_for(RULES)
def overlays(
    table: Table, shooter: str, *, options: Mapping[str, Any] | None = None
) -> list[Overlay]:
    """The marks of ``shooter``'s shooting phase, under ``options`` over the table's."""
    answer = ask(table, "targets", rules=RULES, options=dict(options or {}), shooter=shooter)
    return [overlay(table, answer.ruling, answer.unit or MM)]


def _ranges(table: Table, ruling: Any, unit: Unit) -> tuple[list[Drawing], list[Any]]:
    """M6: the range and long-range rings of the ruling, drawn where they are on the table."""
    drawings: list[Drawing] = []
    legend: list[tuple[str, str, str]] = []
    w, at = ruling.weapon, table.model(ruling.shooter).at
    if w is None or ruling.range_ring is None:
        return drawings, legend
    for ring, reach, colour, msgid in (
        (ruling.range_ring, ruling.range, RANGE, N_("range {span} (M6)")),
        (ruling.half_range_ring, ruling.half_range, HALF_RANGE, N_("long beyond {span} (M6)")),
    ):
        text = str(Text(msgid, (("span", unit.measure(reach)),)))
        for arc in _on_table(table, circle_points(at, ring)):
            drawings.append(
                Drawing(
                    arc,
                    stroke=colour,
                    dashed=True,
                    width_px=2.0,
                    title=f"{w.name}{_colon()}{text}",
                    cls="mordheim-range",
                )
            )
        legend.append(("dash", colour, text))
    return drawings, legend


def _fights(table: Table, ruling: Any, u: float) -> list[Drawing]:
    """M4: a dashed hull around each group of models in close combat together."""
    drawings = []
    for group in ruling.fights:
        pts = [
            (p.x, p.y)
            for m in group
            for p in circle_points(table.model(m).at, table.model(m).base.radius + 9 * u)
        ]
        hull = shapely.MultiPoint(pts).convex_hull
        drawings.append(
            Drawing(
                tuple(Point(x, y) for x, y in hull.exterior.coords[:-1]),
                closed=True,
                stroke=FIGHT,
                width_px=2.5,
                dashed=True,
                title=str(T_("in close combat: {ids} (M4)", ids=", ".join(group))),
                cls="mordheim-fight",
            )
        )
    return drawings


def _target(table: Table, t: Any, u: float) -> list[Drawing]:
    """M3-M7: the ring of one seen target, its legality by colour, its score above it and,
    in cover (M8), what the cover does to the roll beside it."""
    m = table.model(t.target)
    colour = CLOSEST if t.closest else LEGAL if t.legal else NOT_LEGAL
    kind = "closest" if t.closest else "legal" if t.legal else "not-legal"
    r = max(m.base.radius, 6 * u) + 5 * u
    score = (
        []
        if t.need_text is None
        else [f"M7 {t.need_text}" + ("" if t.odds is None else f", p {t.odds.hit}")]
    )
    why = str(semicolons([*score, *(f"{x.rule} {x.text}" for x in t.deciding)]))
    drawn = [
        Drawing(
            circle_points(m.at, r),
            closed=True,
            stroke=colour,
            width_px=4.5 if t.closest else 3.0,
            dashed=not t.legal,
            label=short_words(t.need_short) if t.need_short else "?",
            label_owner=t.target,
            label_towards=(0.0, -1.0),
            label_colour=colour,
            title=f"{t.target}{_colon()}{why}",
            cls=f"mordheim-target {kind}",
        )
    ]
    if t.in_cover:
        drawn.append(
            Drawing(
                (),
                label=cover_text(t),
                label_owner=t.target,
                label_colour=COVER,
                title=str(T_("{target}: in cover (M8)", target=t.target)),
                cls="mordheim-cover",
            )
        )
    return drawn


def cover_text(t: Any) -> str:
    """What cover does to the roll to hit, as the ruling's M7 ``modifiers`` give it
    (``-1``); the word ``cover`` where the ruling gives no modifiers."""
    mods = dict(getattr(t, "modifiers", ()) or ())
    value = mods.get("cover")
    return _("cover") if not isinstance(value, int) else f"{value:+d}"


#: The ``need_short`` marks that are words.
SHORT_WORDS = {"no hit": N_("no hit"), "out of range": N_("out of range")}


def short_words(mark: str) -> str:
    """A target's ``need_short`` mark (an English label: ``4+``, ``no hit``, ``out of
    range``, ``6 then 4+``) in the current language."""
    if mark in SHORT_WORDS:
        return tr(SHORT_WORDS[mark])
    if mark.startswith("6 then "):
        return str(T_("6 then {score}+", score=mark[len("6 then ") : -1]))
    return mark


def overlay(table: Table, ruling: Any, unit: Unit = MM) -> Overlay:
    """The overlay of one ``targets`` ruling over ``table``, lengths told in ``unit``."""
    u = max(table.width, table.depth) / SCREEN_PX  # mm per screen pixel, as render does
    drawings, legend = _ranges(table, ruling, unit)
    drawings += _fights(table, ruling, u)
    if ruling.fights:
        legend.append(("dash", FIGHT, _("close combat (M4)")))
    seen = [t for t in ruling.targets if t.visible]
    for t in seen:
        drawings += _target(table, t, u)
    legend.insert(
        0,
        (
            "note",
            LEGAL if ruling.may_shoot else REFUSED,
            _("may shoot (M1)") if ruling.may_shoot else _("may NOT shoot (M1)"),
        ),
    )
    if ruling.elevated:
        drawings.append(
            Drawing(
                (),
                label=_("elevated"),
                label_owner=ruling.shooter,
                label_colour=ELEVATED,
                title=str(
                    T_(
                        "{shooter} shoots from a height: free pick of targets (M5)",
                        shooter=ruling.shooter,
                    )
                ),
                cls="mordheim-elevated",
            )
        )
        legend.append(("label", ELEVATED, _("elevated free pick (M5)")))
    kinds = {"closest" if t.closest else "legal" if t.legal else "not" for t in seen}
    legend += [
        row
        for kind, row in (
            ("closest", ("ring", CLOSEST, _("closest: must take (M3)"))),
            ("legal", ("ring", LEGAL, _("legal target (M3-M5)"))),
            ("not", ("ring", NOT_LEGAL, _("seen, not legal"))),
        )
        if kind in kinds
    ]
    if any(t.need_short for t in seen):
        legend.append(("label", INK, _("4+ score to hit (M7)")))
    covered = [cover_text(t) for t in seen if t.in_cover]
    if covered:
        legend.append(("label", COVER, str(T_("{mark} in cover (M8)", mark=covered[0]))))
    for reason in ruling.refusals:
        legend.append(("note", REFUSED, f"{reason.rule}{_colon()}{_short(reason.text, 22)}"))
    title = _short(f"Mordheim{_colon()}{ruling.shooter}", 24)
    return Overlay(tuple(drawings), tuple(legend), title, cover_labels=False)


def _colon() -> str:
    """The colon after a label: French puts a space before it."""
    return " : " if current() == "fr" else ": "


def _short(text: str, n: int) -> str:
    """Legend text cut to about ``n`` characters (the legend column is narrow)."""
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _on_table(table: Table, ring: tuple[Point, ...]) -> list[tuple[Point, ...]]:
    """The arcs of a closed ring that lie on the table (drawn only there)."""
    line = shapely.LineString([(p.x, p.y) for p in (*ring, ring[0])])
    clipped = line.intersection(shapely.box(0.0, 0.0, table.width, table.depth))
    return [
        tuple(Point(x, y) for x, y in part.coords)
        for part in shapely.get_parts(clipped)
        if part.geom_type == "LineString" and len(part.coords) > 1
    ]
