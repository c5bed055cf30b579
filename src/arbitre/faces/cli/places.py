"""The places commands of ``arbitre`` (P1-P6, a face): ``move``, ``shot``, ``place``. They
parse, ask the registry (:func:`~arbitre.faces.cli.common.ask_file`), print the rulings'
fields; no rule lives here. ``arbitre render MAP -o map.svg`` draws a map of places (in
:mod:`arbitre.faces.cli.table`).

:func:`register` adds the commands to a typer app; user mistakes are raised as
:class:`~arbitre.errors.ArbitreError` for the app's ``main`` to print.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from arbitre.faces.cli.common import (
    MAX_BYTES,
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
from arbitre.rules import Answer

PANEL = "Places"


def _way_text(way: Any) -> str:
    """A way as ``a -> b -[Porte]-> c``, from its steps."""
    text: str = esc(way.path[0])
    for step in way.steps:
        mid = "".join(esc(f"[{j.kind}]") for j in step.junctions)
        text += f" -{mid}-> {esc(step.end)}" if mid else f" -> {esc(step.end)}"
    return text


def _texts(effects: Any) -> str:
    return esc("; ".join(e.text for e in effects))


def print_move(answer: Answer) -> None:
    """The places reachable, one row per best way (P3-P4)."""
    ruling = answer.ruling
    out.print(
        f"[bold]{ruling.unit}[/] on [bold]{ruling.start}[/]: {ruling.points} movement points "
        "(P3-P4)"
    )
    bleeding = any(w.bleeding for w in ruling.ways)
    cols = [
        Col("place"),
        Col("points left", "left"),
        Col("exhaustion", "exh"),
        *((Col("bleeding", "bl"),) if bleeding else ()),
        Col("way"),
        Col("gains on arrival", "gains"),
    ]
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
        print_grid(out, cols, rows, key=1)
    else:
        out.print("  no place within reach")
    traded = [p for p in ruling.places if len(ruling.ways_to(p)) > 1]
    if traded:
        out.print(f"  more than one way to {', '.join(traded)}: less exhaustion costs more points")
    print_reasons(ruling.reasons)


def print_shot(answer: Answer) -> None:
    """What the shot crosses, what each adds to the reduction, or the refusals (P5)."""
    ruling = answer.ruling
    verdict = "[green]can shoot[/]" if ruling.allowed else "[red]cannot shoot[/]"
    out.print(f"[bold]{ruling.shooter}[/] -> [bold]{ruling.target}[/]: {verdict}")
    if ruling.way:
        places = [c for c in ruling.way if c.kind == "place"]
        rows = []
        for c in ruling.way:
            if c.kind == "junction":
                name = f"  {esc(c.name)} ({esc(c.id)})" + (", no shots across" if c.blocks else "")
            else:
                role = " (shooter)" if c is places[0] else " (target)" if c is places[-1] else ""
                name = esc(c.id) + role
            rows.append([name, str(c.cover), "" if c.adds is None else str(c.adds)])
        print_grid(out, [Col("crossed"), Col("cover"), Col("counts")], rows, key=1)
    if ruling.allowed:
        extra = f", range {ruling.range_bonus:+d}" if ruling.range_bonus else ""
        out.print(f"  attack score -{ruling.reduction} (counting {ruling.counting}){extra}")
    for r in ruling.refusals:
        out.print(f"  [red]refused[/] [dim]{r.rule}[/] {r.text}")
    print_reasons(ruling.reasons)


def print_place(answer: Answer) -> None:
    """A place's characteristics, effects, units, and what arriving now gives (P2, P6)."""
    ruling = answer.ruling
    kind = f" ({ruling.type})" if ruling.type and ruling.type != ruling.name else ""
    parent = f", parent element {ruling.parent}" if ruling.parent else ""
    out.print(
        f"[bold]{ruling.place}[/]: {ruling.name}{kind}: encumbrance {ruling.encumbrance}, "
        f"cover {ruling.cover}{parent}"
    )
    for e in ruling.effects:
        out.print(f"  effect: {e.text} [dim]({e.effect.source})[/]")
    for n in ruling.neighbours:
        across = ", ".join(f"{j.kind} ({j.id})" for j in n.junctions)
        out.print(f"  next to {n.place}" + (f" across {across}" if across else ""))
    if ruling.occupants:
        rows = [
            [esc(o.unit), esc(o.side), str(o.arrived), str(o.obstruction), _texts(o.effects)]
            for o in ruling.occupants
        ]
        cols = [
            Col("unit"),
            Col("side"),
            Col("arrived", "arr"),
            Col("obstruction", "obs"),
            Col("holds"),
        ]
        print_grid(out, cols, rows, title="units here, first arrived first", key=1)
    out.print(f"  a unit arriving now gets: {_texts(ruling.arriving) or 'nothing'}")
    print_reasons(ruling.reasons)


def register(app: typer.Typer) -> None:
    """Add the places commands ``move``, ``shot`` and ``place`` to ``app``."""

    def move(
        file: FileArg,
        unit: Annotated[str, typer.Argument(help="The unit that moves.", show_default=False)],
        points: Annotated[
            int | None,
            typer.Option("--points", help="Movement points (default: the unit's movement)."),
        ] = None,
        option: OptionOpt = None,
        as_json: JsonOpt = False,
        max_bytes: MaxBytesOpt = MAX_BYTES,
    ) -> None:
        """Every place a unit can end its move on: points left, exhaustion, the way (P3-P4)."""
        _, answer = ask_file(
            file, "move", option=option, max_bytes=max_bytes, unit=unit, points=points
        )
        show(answer, as_json, print_move)

    def shot(
        file: FileArg,
        shooter: Annotated[str, typer.Argument(help="The unit that shoots.", show_default=False)],
        target: Annotated[str, typer.Argument(help="The unit shot at.", show_default=False)],
        option: OptionOpt = None,
        as_json: JsonOpt = False,
        max_bytes: MaxBytesOpt = MAX_BYTES,
    ) -> None:
        """The places a shot crosses, what each counts, the attack score reduction (P5)."""
        _, answer = ask_file(
            file, "shot", option=option, max_bytes=max_bytes, shooter=shooter, target=target
        )
        show(answer, as_json, print_shot)

    def place(
        file: FileArg,
        place: Annotated[str, typer.Argument(help="The place's id.", show_default=False)],
        option: OptionOpt = None,
        as_json: JsonOpt = False,
        max_bytes: MaxBytesOpt = MAX_BYTES,
    ) -> None:
        """A place's effective characteristics and what a unit arriving now gets (P2, P6)."""
        _, answer = ask_file(file, "place", option=option, max_bytes=max_bytes, place=place)
        show(answer, as_json, print_place)

    for fn in (move, shot, place):
        command(app, fn, PANEL)
