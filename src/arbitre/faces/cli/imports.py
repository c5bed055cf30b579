"""The ``import`` command (a face): a Universal VTT or Foundry VTT scene made a scenario
file. It parses, asks :mod:`arbitre.imports`, writes and prints; no rule lives here."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from arbitre.constants import DEFAULT_THICKNESS
from arbitre.errors import RulesError
from arbitre.faces.cli.common import (
    IO_PANEL,
    MAX_BYTES,
    MaxBytesOpt,
    command,
    esc,
    out,
    print_json,
    write_text,
)
from arbitre.i18n import N_, T_

if TYPE_CHECKING:
    import yaml

PANEL = N_("Import")


@functools.cache
def _dumper() -> type[yaml.SafeDumper]:
    """YAML with points on one line each (``[1.5, 2.0]``); made when first used, so that
    ``arbitre --help`` does not import yaml."""
    import yaml

    class _Dumper(yaml.SafeDumper):
        """YAML with points on one line each (``[1.5, 2.0]``)."""

    _Dumper.add_representer(list, _list)
    return _Dumper


def _list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    flow = all(isinstance(v, int | float) and not isinstance(v, bool) for v in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


def scenario_text(doc: dict[str, Any], path: Path) -> str:
    """The scenario document as the text of ``path``: JSON for ``.json``, else YAML."""
    if path.suffix.lower() == ".json":
        return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    import yaml

    return yaml.dump(doc, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=100)


def import_(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help=N_("Scene file: Universal VTT (.dd2vtt, .uvtt, .df2vtt) or Foundry VTT JSON."),
            show_default=False,
        ),
    ],
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help=N_("Scenario file to write (.yaml, or .json)."),
            show_default=False,
            rich_help_panel=IO_PANEL,
        ),
    ],
    source: Annotated[
        str, typer.Option("--from", metavar="FORMAT", help=N_("uvtt, foundry or auto."))
    ] = "auto",
    cell: Annotated[
        str,
        typer.Option(
            "--cell",
            metavar="LENGTH",
            help=N_("Length of a grid cell (1in, 25mm...), or grid: the scene's grid length."),
        ),
    ] = "1in",
    wall_thickness: Annotated[
        str,
        typer.Option("--wall-thickness", metavar="LENGTH", help=N_("Thickness of the walls.")),
    ] = f"{DEFAULT_THICKNESS:g}in",
    objects: Annotated[
        str,
        typer.Option(
            "--objects",
            metavar="KIND",
            help=N_("Universal VTT objects: cover (small, F3), blocks (large, F2) or skip."),
        ),
    ] = "cover",
    level: Annotated[
        str | None,
        typer.Option(
            "--level",
            metavar="ID",
            help=N_("Foundry v14: the level imported, by id or name (default: the initial one)."),
            show_default=False,
        ),
    ] = None,
    rules: Annotated[
        str,
        typer.Option(
            "--rules", metavar="NAME", help=N_("Ruleset the scenario names (none: none).")
        ),
    ] = "frostgrave",
    as_json: Annotated[
        bool,
        typer.Option("--json", help=N_("Print the summary as JSON."), rich_help_panel=IO_PANEL),
    ] = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
) -> None:
    """Make a scenario of a virtual tabletop scene: walls, doors, windows, tokens."""
    from arbitre.imports import import_scene
    from arbitre.rules import find_ruleset

    if max_bytes < 1:
        raise RulesError(
            T_("--max-bytes {value}: expected a number of bytes, at least 1", value=max_bytes)
        )
    if output.suffix.lower() not in (".yaml", ".yml", ".json"):
        raise RulesError(
            T_("{file}: cannot write a scenario there; name it .yaml or .json", file=output)
        )
    if source not in ("auto", "uvtt", "foundry"):
        raise RulesError(T_("--from {value}: expected uvtt, foundry or auto", value=repr(source)))
    if objects not in ("cover", "blocks", "skip"):
        raise RulesError(
            T_("--objects {value}: expected cover, blocks or skip", value=repr(objects))
        )
    named = None if rules.lower() == "none" else find_ruleset(rules).name
    kind: Literal["auto", "uvtt", "foundry"] = source  # type: ignore[assignment]
    what: Literal["cover", "blocks", "skip"] = objects  # type: ignore[assignment]
    done = import_scene(
        file,
        kind=kind,
        cell=cell,
        wall_thickness=wall_thickness,
        objects=what,
        level=level,
        rules=named,
        max_bytes=max_bytes,
    )
    write_text(output, scenario_text(done.document, output))
    if as_json:
        print_json({"output": str(output), **done.summary.to_json()})
        return
    for line in done.summary.lines():
        out.print(esc(line))
    out.print(esc(str(T_("wrote {file}", file=output))))


def register(app: typer.Typer) -> None:
    """Add the ``import`` command to ``app``."""
    command(
        app,
        import_,
        PANEL,
        N_("Make a scenario of a virtual tabletop scene: walls, doors, windows, tokens."),
        name="import",
    )
