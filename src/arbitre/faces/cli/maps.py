"""``arbitre map``: where can a model stand (a face: it parses, asks :mod:`arbitre.maps`,
prints or draws; no rule lives here)."""

from __future__ import annotations

import re
from typing import Annotated

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
from arbitre.maps import Raster, SightMap
from arbitre.table import UNIT_MM, Table

PANEL = "Every table"

_LENGTH = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-z\"]*)\s*$")


def parse_length(text: str, table: Table, what: str) -> float:
    """A length given on the command line, in mm: ``150mm``, ``6in``, ``6"``, ``15cm``,
    ``2toise``, or a bare number in the scenario's unit."""
    found = _LENGTH.match(text)
    if not found:
        raise RulesError(f"{what} {text!r}: expected a length such as 6in, 150mm or 6")
    value, unit = float(found.group(1)), found.group(2)
    if unit in ("", table.unit.name):
        return table.unit.to_mm(value)
    if unit == '"':
        unit = "in"
    if unit == "toise" and table.toise:
        return value * table.toise
    if unit not in UNIT_MM:
        known = ", ".join([*UNIT_MM, *(["toise"] if table.toise else [])])
        raise RulesError(f"{what} {text!r}: unknown unit {unit!r} (units: {known})")
    return value * UNIT_MM[unit]


def map_command(
    file: FileArg,
    model: Annotated[
        str | None,
        typer.Option("--model", metavar="ID", help="The model to place.", show_default=False),
    ] = None,
    side: Annotated[
        str | None,
        typer.Option(
            "--side", metavar="SIDE", help="Place a model of this side.", show_default=False
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(
            "--base",
            metavar="D",
            help="Base diameter (25mm, 1in; a bare number is in the file's unit).",
            show_default=False,
        ),
    ] = None,
    reach: Annotated[
        str | None,
        typer.Option(
            "--reach",
            metavar="LENGTH",
            help="Only where the model can go with this move; the best spot there.",
            show_default=False,
        ),
    ] = None,
    grid: Annotated[
        str | None,
        typer.Option(
            "--grid",
            metavar="LENGTH",
            help="Also a raster of this cell size: enemies seeing each centre, best cover.",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        str | None,
        typer.Option("-o", "--output", metavar="FILE", help="Draw the map (.svg or .png)."),
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
        out.print(f"wrote {esc(output)}")


def _print(m: SightMap, raster: Raster | None) -> None:
    """The map for people: how much of the table each number of enemies sees, the best
    spot, the method."""
    unit = m.table.unit
    who = m.model if m.model != "(here)" else f"a {unit.length(2 * m.radius)} base of {m.side}"
    out.print(f"[bold]{esc(who)}[/] against {len(m.shooters)} enemies ({esc(m.rules)})")
    print_reasons(m.reasons)
    total = m.table.width * m.table.depth
    by: dict[int, float] = {}
    for face in m.faces:
        by[len(face.seen_by)] = by.get(len(face.seen_by), 0.0) + face.shape.area
    for seen, area in sorted(by.items()):
        out.print(f"  seen by {seen}: {area / total:.1%} of the table")
    if m.reach is not None:
        r = m.reach
        share = r.region.area / total
        out.print(f"  reach {unit.length(r.length)}: {share:.1%} of the table")
        if r.best is not None and r.face is not None:
            face = m.faces[r.face]
            names = ", ".join(f"{a} +{c}" for a, c in face.seen_by) or "no enemy"
            out.print(
                f"  best spot {unit.point(r.best.x, r.best.y)}, {unit.length(r.distance or 0)} "
                f"away: seen by {esc(names)}"
            )
    if raster is not None:
        cells = raster.seen.size
        free = int((raster.seen == 0).sum())
        out.print(
            f"  grid {unit.length(raster.pitch)}: {cells} cells, {free} seen by no enemy "
            "(each centre ruled exactly)"
        )


def register(app: typer.Typer) -> None:
    """Add ``arbitre map`` to ``app``."""
    command(app, map_command, PANEL, name="map")
