"""The places commands of ``arbitre`` (P1-P6): ``move``, ``shot``, ``place``, and the SVG of
a places scenario for ``render``. They parse, call the library, print; no rule lives here.

:func:`register` adds the commands to a typer app; user mistakes are raised as
:class:`~arbitre.errors.ArbitreError` for the app's ``main`` to print.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table as RichTable

from arbitre.errors import ArbitreError
from arbitre.faces.cli.common import option_pairs, print_json
from arbitre.places import PlaceMap, load_places
from arbitre.rules import placemap as rules
from arbitre.rules.ruling import Reason

out = Console(highlight=False, soft_wrap=True)

FileArg = Annotated[Path, typer.Argument(help="Places scenario file (YAML or JSON).",
                                         show_default=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
OptionOpt = Annotated[list[str] | None, typer.Option(
    "--option", "-O", help="Ruleset option NAME=VALUE, over the file's (repeatable).")]


def read_cli_options(placemap: PlaceMap, given: list[str] | None) -> rules.PlacesOptions:
    """The map's options overridden by ``NAME=VALUE`` strings (values read as YAML)."""
    return rules.options(placemap, **option_pairs(given))


_print_json = print_json


def _reasons(reasons: tuple[Reason, ...]) -> None:
    for r in reasons:
        out.print(f"  [dim]{r.rule}[/] {r.text}")


def _way_text(placemap: PlaceMap, path: tuple[str, ...]) -> str:
    text = path[0]
    for a, b in itertools.pairwise(path):
        js = placemap.junctions_between(a, b)
        mid = "".join(f"[{j.kind}]" for j in js)
        text += f" -{mid}-> {b}" if mid else f" -> {b}"
    return text


def print_move(placemap: PlaceMap, ruling: rules.MoveRuling) -> None:
    """The places reachable, one row per best way (P3-P4)."""
    out.print(f"[bold]{ruling.unit}[/] on [bold]{ruling.start}[/]: {ruling.points} movement "
              "points (P3-P4)")
    bleeding = any(w.bleeding for w in ruling.ways)
    grid = RichTable()
    cols = ("place", "points left", "exhaustion", *(("bleeding",) if bleeding else ()), "way",
            "gains on arrival")
    for col in cols:
        grid.add_column(col, overflow="fold")
    for w in ruling.ways:
        row = [w.place, str(w.left), str(w.exhaustion), *((str(w.bleeding),) if bleeding else ()),
               _way_text(placemap, w.path), "; ".join(e.describe() for e in w.effects)]
        grid.add_row(*row)
    out.print(grid if ruling.ways else "  no place within reach")
    traded = [p for p in ruling.places if len(ruling.ways_to(p)) > 1]
    if traded:
        out.print(f"  more than one way to {', '.join(traded)}: less exhaustion costs more "
                  "points")
    _reasons(ruling.reasons)


def print_shot(placemap: PlaceMap, ruling: rules.ShotRuling) -> None:
    """The places crossed, their covers, the reduction or the refusals (P5)."""
    verdict = "[green]can shoot[/]" if ruling.allowed else "[red]cannot shoot[/]"
    out.print(f"[bold]{ruling.shooter}[/] -> [bold]{ruling.target}[/]: {verdict}")
    if ruling.crossed:
        grid = RichTable()
        for col in ("place", "cover", "counts"):
            grid.add_column(col)
        for k, (p, c) in enumerate(zip(ruling.crossed, ruling.covers, strict=True)):
            role = " (shooter)" if k == 0 else " (target)" if k == len(ruling.crossed) - 1 else ""
            grid.add_row(p + role, str(c), "yes" if p in ruling.counted and k else "")
        out.print(grid)
    if ruling.allowed:
        extra = f", range {ruling.range_bonus:+d}" if ruling.range_bonus else ""
        out.print(f"  attack score -{ruling.reduction}{extra}")
    for text in ruling.refusals:
        out.print(f"  [red]refused:[/] {text}")
    _reasons(ruling.reasons)


def print_place(placemap: PlaceMap, ruling: rules.PlaceRuling) -> None:
    """A place's characteristics, effects, units, and what arriving now gives (P2, P6)."""
    kind = f" ({ruling.type})" if ruling.type and ruling.type != ruling.name else ""
    out.print(f"[bold]{ruling.place}[/]: {ruling.name}{kind}")
    src = dict(ruling.sources)
    out.print(f"  encumbrance {ruling.encumbrance} ({rules.source_text(src['encumbrance'])}),"
              f" cover {ruling.cover} ({rules.source_text(src['cover'])})"
              + (f", parent element {ruling.parent}" if ruling.parent else ""))
    for e in ruling.effects:
        out.print(f"  effect: {e.describe()} [dim]({e.source})[/]")
    for n, js in ruling.neighbours:
        across = ", ".join(f"{placemap.junction(j).kind} ({j})" for j in js)
        out.print(f"  next to {n}" + (f" across {across}" if js else ""))
    if ruling.occupants:
        grid = RichTable(title="units here, first arrived first")
        for col in ("unit", "side", "arrived", "obstruction", "holds"):
            grid.add_column(col, overflow="fold")
        for o in ruling.occupants:
            grid.add_row(o.unit, o.side, str(o.arrived), str(o.obstruction),
                         "; ".join(e.describe() for e in o.effects))
        out.print(grid)
    gets = "; ".join(e.describe() for e in ruling.arriving) or "nothing"
    out.print(f"  a unit arriving now gets: {gets}")
    _reasons(ruling.reasons)


def register(app: typer.Typer) -> None:
    """Add the places commands ``move``, ``shot`` and ``place`` to ``app``."""

    @app.command()
    def move(
        file: FileArg,
        unit: Annotated[str, typer.Argument(help="The unit that moves.", show_default=False)],
        points: Annotated[int | None, typer.Option(
            "--points", help="Movement points (default: the unit's movement).")] = None,
        option: OptionOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Every place a unit can end its move on: points left, exhaustion, the way (P3-P4)."""
        placemap = load_places(file)
        opts = read_cli_options(placemap, option)
        ruling = rules.move(placemap, unit, points=points, opts=opts)
        if as_json:
            _print_json(rules.document([ruling], opts))
        else:
            print_move(placemap, ruling)

    @app.command()
    def shot(
        file: FileArg,
        shooter: Annotated[str, typer.Argument(help="The unit that shoots.", show_default=False)],
        target: Annotated[str, typer.Argument(help="The unit shot at.", show_default=False)],
        option: OptionOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """The places a shot crosses, their cover, the attack score reduction (P5)."""
        placemap = load_places(file)
        opts = read_cli_options(placemap, option)
        ruling = rules.shot(placemap, shooter, target, opts=opts)
        if as_json:
            _print_json(rules.document([ruling], opts))
        else:
            print_shot(placemap, ruling)

    @app.command()
    def place(
        file: FileArg,
        place: Annotated[str, typer.Argument(help="The place's id.", show_default=False)],
        option: OptionOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """A place's effective characteristics and what a unit arriving now gets (P2, P6)."""
        placemap = load_places(file)
        opts = read_cli_options(placemap, option)
        ruling = rules.place_info(placemap, place, opts=opts)
        if as_json:
            _print_json(rules.document([ruling], opts))
        else:
            print_place(placemap, ruling)

    _ = (move, shot, place)


def render_places_file(path: Path | str, output: Path | str, **kwargs: Any) -> None:
    """Draw the places scenario at ``path`` as SVG into ``output`` (for ``render``)."""
    from arbitre.faces.svg.places import render_places

    svg = render_places(load_places(path), **kwargs)
    try:
        Path(output).write_text(svg, encoding="utf-8")
    except OSError as exc:
        raise ArbitreError(f"cannot write {output}: {exc.strerror or exc}") from None
