"""``arbitre map``: where can a model stand (a face: it parses, asks :mod:`arbitre.maps`,
prints or draws; no rule lives here)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated

import typer

from arbitre.errors import RulesError
from arbitre.faces.cli.common import (
    MAX_BYTES,
    FileArg,
    JsonOpt,
    MaxBytesOpt,
    OptionOpt,
    RulesOpt,
    check_picture,
    command,
    esc,
    load_table,
    option_pairs,
    out,
    print_json,
    print_reasons,
    write_picture,
)
from arbitre.i18n import N_, T_, TN_, Num, Text, join

if TYPE_CHECKING:  # the engine is imported when a command runs, not for --help
    from arbitre.maps import Raster, SightMap
    from arbitre.table import Table

PANEL = N_("Every table")

_LENGTH = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-z\"]*)\s*$")


def parse_length(text: str, table: Table, what: str) -> float:
    """A length given on the command line, in mm: ``150mm``, ``6in``, ``6"``, ``15cm``,
    ``2toise``, or a bare number in the scenario's unit."""
    from arbitre.table import UNIT_MM

    found = _LENGTH.match(text)
    if not found:
        raise RulesError(
            T_(
                "{what} {text}: expected a length such as 6in, 150mm or 6",
                what=what,
                text=repr(text),
            )
        )
    value, unit = float(found.group(1)), found.group(2)
    if unit in ("", table.unit.name):
        return table.unit.to_mm(value)
    if unit == '"':
        unit = "in"
    if unit == "toise" and table.toise:
        return value * table.toise
    if unit not in UNIT_MM:
        known = join([*UNIT_MM, *(["toise"] if table.toise else [])])
        raise RulesError(
            T_(
                "{what} {text}: unknown unit {unit} (units: {known})",
                what=what,
                text=repr(text),
                unit=repr(unit),
                known=known,
            )
        )
    return value * UNIT_MM[unit]


def map_command(
    file: FileArg,
    model: Annotated[
        str | None,
        typer.Option("--model", metavar="ID", help=N_("The model to place."), show_default=False),
    ] = None,
    side: Annotated[
        str | None,
        typer.Option(
            "--side", metavar="SIDE", help=N_("Place a model of this side."), show_default=False
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(
            "--base",
            metavar="D",
            help=N_("Base diameter (25mm, 1in; a bare number is in the file's unit)."),
            show_default=False,
        ),
    ] = None,
    reach: Annotated[
        str | None,
        typer.Option(
            "--reach",
            metavar="LENGTH",
            help=N_("Only where the model can go with this move; the best spot there."),
            show_default=False,
        ),
    ] = None,
    grid: Annotated[
        str | None,
        typer.Option(
            "--grid",
            metavar="LENGTH",
            help=N_("Also a raster of this cell size: enemies seeing each centre, best cover."),
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option("-o", "--output", metavar="FILE", help=N_("Draw the map (.svg or .png).")),
    ] = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
    as_json: JsonOpt = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
) -> None:
    """Where can a model stand: every region of the table where a model centred there is
    seen by the same enemies, with the cover each gives (exact shapes; GeoJSON with
    --json)."""
    from pathlib import Path

    from arbitre import maps
    from arbitre.faces.svg.maps import render_map
    from arbitre.maps import geojson

    if output is not None:
        check_picture(Path(output))
    table = load_table(file, "map", max_bytes)
    m = maps.sight_map(
        table,
        model=model,
        side=side,
        rules=rules,
        base=None if base is None else parse_length(base, table, "--base"),
        options=option_pairs(option),
        reach=None if reach is None else parse_length(reach, table, "--reach"),
    )
    raster = None if grid is None else maps.raster(m, parse_length(grid, table, "--grid"))
    if output is not None:
        write_picture(Path(output), render_map(m))
    if as_json:
        doc = geojson.document(m)
        if raster is not None:
            doc["raster"] = geojson.raster_json(raster, m.table.unit)
        print_json(doc)
        return
    _print(m, raster)
    if output is not None:
        out.print(esc(str(T_("wrote {file}", file=output))))


def _print(m: SightMap, raster: Raster | None) -> None:
    """The map for people: how much of the table each number of enemies sees, the best
    spot, the method."""
    unit = m.table.unit
    who: Text | str = m.model
    if m.model == "(here)":
        who = T_("a {base} base of {side}", base=unit.measure(2 * m.radius), side=m.side)
    bold = f"[bold]{esc(str(who))}[/]"
    head = TN_(
        "{who} against {n} enemies ({rules})",
        "{who} against {n} enemies ({rules})",
        "n",
        who=bold,
        n=len(m.shooters),
        rules=esc(m.rules),
    )
    out.print(str(head))
    print_reasons(m.reasons)
    total = m.table.width * m.table.depth
    by: dict[int, float] = {}
    for face in (*m.faces, *m.cells):  # the cells ruled one by one count too
        by[len(face.seen_by)] = by.get(len(face.seen_by), 0.0) + face.shape.area
    for seen, area in sorted(by.items()):
        _line(
            TN_(
                "seen by {seen}: {share}% of the table",
                "seen by {seen}: {share}% of the table",
                "seen",
                seen=seen,
                share=_percent(area / total),
            )
        )
    if m.reach is not None:
        r = m.reach
        share = _percent(r.region.area / total)
        _line(T_("reach {reach}: {share}% of the table", reach=unit.measure(r.length), share=share))
        if r.best is not None and r.face is not None:
            face = m.faces[r.face]
            names = join((f"{a} +{c}" for a, c in face.seen_by), empty=N_("no enemy"))
            spot = T_(
                "best spot {at}, {distance} away: seen by {names}",
                at=unit.at(r.best.x, r.best.y),
                distance=unit.measure(r.distance or 0),
                names=names,
            )
            _line(spot)
    if raster is not None:
        cells = raster.seen.size
        free = int((raster.seen == 0).sum())
        grid = TN_(
            "grid {pitch}: {cells} cells, {free} seen by no enemy (each centre ruled exactly)",
            "grid {pitch}: {cells} cells, {free} seen by no enemy (each centre ruled exactly)",
            "cells",
            pitch=unit.measure(raster.pitch),
            cells=cells,
            free=free,
        )
        _line(grid)


def _line(text: Text) -> None:
    """One indented line of the map's summary, in the language spoken."""
    out.print(f"  {esc(str(text))}")


def _percent(share: float) -> Num:
    """A share as a percentage with one decimal ("6.8"; the sign is the message's)."""
    return Num(100 * share, ".1f")


def register(app: typer.Typer) -> None:
    """Add ``arbitre map`` to ``app``."""
    command(
        app,
        map_command,
        PANEL,
        N_(
            "Where can a model stand: every region of the table where a model centred there is\n"
            "seen by the same enemies, with the cover each gives (exact shapes; GeoJSON with\n"
            "--json)."
        ),
        name="map",
    )
