"""The places commands of ``arbitre`` (P1-P6, a face): ``move``, ``shot``, ``place``. They
parse, ask the registry (:func:`~arbitre.faces.cli.common.ask_file`), print the rulings'
fields; no rule lives here. ``arbitre render MAP -o map.svg`` draws a map of places (in
:mod:`arbitre.faces.cli.table`).

:func:`register` adds the commands to a typer app; user mistakes are raised as
:class:`~arbitre.errors.ArbitreError` for the app's ``main`` to print.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from arbitre.faces.cli.common import (
    MAX_BYTES,
    ExplainOpt,
    FileArg,
    JsonOpt,
    MaxBytesOpt,
    OptionOpt,
    ask_file,
    command,
    esc,
    out,
    print_reasons,
    show,
)
from arbitre.faces.cli.grid import Col, print_grid
from arbitre.i18n import N_, T_, TN_, _

if TYPE_CHECKING:  # the engine is imported when a command runs, not for --help
    from arbitre.places import Named
    from arbitre.rules import Answer

PANEL = N_("Places")


def _cover() -> Named:
    """A place's cover (seed 003: "couverture"; the catalogue's "cover" is the tables')."""
    from arbitre.places import Named

    return Named("cover", "couverture")


def __getattr__(name: str) -> object:
    """``COVER``, :func:`_cover`, made when first asked (it needs :mod:`arbitre.places`)."""
    if name == "COVER":
        return _cover()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _way_text(way: Any) -> str:
    """A way as ``a -> b -[Porte]-> c``, from its steps."""
    text: str = esc(way.path[0])
    for step in way.steps:
        mid = "".join(esc(f"[{j.kind}]") for j in step.junctions)
        text += f" -{mid}-> {esc(step.end)}" if mid else f" -> {esc(step.end)}"
    return text


def _bold(text: str) -> str:
    return f"[bold]{text}[/]"


def _texts(effects: Any) -> str:
    return esc("; ".join(e.text for e in effects))


def _move_cols(bleeding: bool) -> list[Col]:
    """The columns of the move table, in the language spoken."""
    return [
        Col(_("place")),
        Col(_("points left"), _("left")),
        Col(_("exhaustion"), _("exh")),
        *((Col(_("bleeding"), _("bl")),) if bleeding else ()),
        Col(_("way")),
        Col(_("gains on arrival"), _("gains")),
    ]


def print_move(answer: Answer, *, explain: bool = False) -> None:
    """The places reachable, one row per best way (P3-P4); with ``explain``, each way's
    reasons step by step under the table."""
    ruling = answer.ruling
    unit, start = _bold(ruling.unit), _bold(ruling.start)
    head = TN_(
        "{unit} on {place}: {points} movement points (P3-P4)",
        "{unit} on {place}: {points} movement points (P3-P4)",
        "points",
        unit=unit,
        place=start,
        points=ruling.points,
    )
    out.print(str(head))
    bleeding = any(w.bleeding for w in ruling.ways)
    rows = [
        [
            esc(w.place),
            str(w.left),
            str(w.exhaustion),
            *((str(w.bleeding),) if bleeding else ()),
            _way_text(w),
            _texts(w.effects),
        ]
        for w in ruling.ways
    ]
    if rows:
        print_grid(out, _move_cols(bleeding), rows, key=1)
    else:
        out.print("  " + _("no place within reach"))
    traded = [p for p in ruling.places if len(ruling.ways_to(p)) > 1]
    if traded:
        more = T_(
            "more than one way to {places}: less exhaustion costs more points",
            places=", ".join(traded),
        )
        out.print(f"  {more}")
    print_reasons(ruling.reasons)
    if explain:
        for w in ruling.ways:
            out.print(f"  {_way_text(w)}")
            print_reasons(w.reasons, "    ")


def _crossed(c: Any, places: list[Any]) -> str:
    """A row's name in the shot table: a junction (indented), or a place and its role."""
    if c.kind == "junction":
        name = f"  {esc(c.name)} ({esc(c.id)})"
        return name + (_(", no shots across") if c.blocks else "")
    role = _("shooter") if c is places[0] else _("target") if c is places[-1] else ""
    return esc(c.id) + (f" ({role})" if role else "")


def print_shot(answer: Answer) -> None:
    """What the shot crosses, what each adds to the reduction, or the refusals (P5)."""
    ruling = answer.ruling
    verdict = _("can shoot") if ruling.allowed else _("cannot shoot")
    verdict = f"[green]{verdict}[/]" if ruling.allowed else f"[red]{verdict}[/]"
    shooter, target = _bold(ruling.shooter), _bold(ruling.target)
    head = T_("{shooter} -> {target}: {verdict}", shooter=shooter, target=target, verdict=verdict)
    out.print(str(head))
    if ruling.way:
        places = [c for c in ruling.way if c.kind == "place"]
        rows = [
            [_crossed(c, places), str(c.cover), "" if c.adds is None else str(c.adds)]
            for c in ruling.way
        ]
        cols = [Col(_("crossed")), Col(str(_cover())), Col(_("counts"))]
        print_grid(out, cols, rows, key=1)
    if ruling.allowed:
        bonus = f"{ruling.range_bonus:+d}"
        extra = T_(", range {range}", range=bonus) if ruling.range_bonus else ""
        if ruling.counting == "encumbrance":
            total = T_("attack score -{n} (counting encumbrance)", n=ruling.reduction)
        else:
            total = T_("attack score -{n} (counting cover)", n=ruling.reduction)
        out.print(f"  {total}{extra}")
    refused = _("refused")
    for r in ruling.refusals:
        out.print(f"  [red]{refused}[/] [dim]{r.rule}[/] {r.text}")
    print_reasons(ruling.reasons)


def _neighbour(n: Any) -> str:
    """A neighbour of a place, and the junctions on the way there (P1, P4)."""
    across = ", ".join(f"{j.kind} ({j.id})" for j in n.junctions)
    if across:
        return str(T_("next to {place} across {junctions}", place=n.place, junctions=across))
    return str(T_("next to {place}", place=n.place))


def print_place(answer: Answer) -> None:
    """A place's characteristics, effects, units, and what arriving now gives (P2, P6)."""
    ruling = answer.ruling
    kind = f" ({ruling.type})" if ruling.type and ruling.type != ruling.name else ""
    parent = T_(", parent element {parent}", parent=ruling.parent) if ruling.parent else ""
    head = T_(
        "{place}: {name}{kind}: encumbrance {encumbrance}, cover {cover}{parent}",
        place=_bold(ruling.place),
        name=ruling.name,
        kind=kind,
        encumbrance=ruling.encumbrance,
        cover=ruling.cover,
        parent=parent,
    )
    out.print(str(head))
    for e in ruling.effects:
        out.print(
            "  " + str(T_("effect: {effect}", effect=e.text)) + f" [dim]({e.effect.source})[/]"
        )
    for n in ruling.neighbours:
        out.print(f"  {_neighbour(n)}")
    if ruling.occupants:
        rows = [
            [esc(o.unit), esc(o.side), str(o.arrived), str(o.obstruction), _texts(o.effects)]
            for o in ruling.occupants
        ]
        cols = [
            Col(_("unit")),
            Col(_("side")),
            Col(_("arrived"), _("arr")),
            Col(_("obstruction"), _("obs")),
            Col(_("holds")),
        ]
        print_grid(out, cols, rows, title=_("units here, first arrived first"), key=1)
    gets = _texts(ruling.arriving)
    if gets:
        out.print("  " + str(T_("a unit arriving now gets: {effects}", effects=gets)))
    else:
        out.print("  " + _("a unit arriving now gets: nothing"))
    print_reasons(ruling.reasons)


def register(app: typer.Typer) -> None:
    """Add the places commands ``move``, ``shot`` and ``place`` to ``app``."""

    def move(
        file: FileArg,
        unit: Annotated[str, typer.Argument(help=N_("The unit that moves."), show_default=False)],
        points: Annotated[
            int | None,
            typer.Option("--points", help=N_("Movement points (default: the unit's movement).")),
        ] = None,
        option: OptionOpt = None,
        as_json: JsonOpt = False,
        explain: ExplainOpt = False,
        max_bytes: MaxBytesOpt = MAX_BYTES,
    ) -> None:
        """Every place a unit can end its move on: points left, exhaustion, the way (P3-P4)."""
        _table, answer = ask_file(
            file, "move", option=option, max_bytes=max_bytes, unit=unit, points=points
        )
        show(answer, as_json, lambda a: print_move(a, explain=explain))

    def shot(
        file: FileArg,
        shooter: Annotated[
            str, typer.Argument(help=N_("The unit that shoots."), show_default=False)
        ],
        target: Annotated[str, typer.Argument(help=N_("The unit shot at."), show_default=False)],
        option: OptionOpt = None,
        as_json: JsonOpt = False,
        max_bytes: MaxBytesOpt = MAX_BYTES,
    ) -> None:
        """The places a shot crosses, what each counts, the attack score reduction (P5)."""
        _table, answer = ask_file(
            file, "shot", option=option, max_bytes=max_bytes, shooter=shooter, target=target
        )
        show(answer, as_json, print_shot)

    def place(
        file: FileArg,
        place: Annotated[str, typer.Argument(help=N_("The place's id."), show_default=False)],
        option: OptionOpt = None,
        as_json: JsonOpt = False,
        max_bytes: MaxBytesOpt = MAX_BYTES,
    ) -> None:
        """A place's effective characteristics and what a unit arriving now gets (P2, P6)."""
        _table, answer = ask_file(file, "place", option=option, max_bytes=max_bytes, place=place)
        show(answer, as_json, print_place)

    command(
        app,
        move,
        PANEL,
        N_("Every place a unit can end its move on: points left, exhaustion, the way (P3-P4)."),
    )
    command(
        app,
        shot,
        PANEL,
        N_("The places a shot crosses, what each counts, the attack score reduction (P5)."),
    )
    command(
        app,
        place,
        PANEL,
        N_("A place's effective characteristics and what a unit arriving now gets (P2, P6)."),
    )
