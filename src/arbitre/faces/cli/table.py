"""The commands every table shares (a face): ``los``, ``render``, ``validate``, ``schema``,
``demo``. They parse, ask the registry, print; no rule lives here."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table as RichTable

from arbitre import scenario
from arbitre.errors import RulesError
from arbitre.faces.cli.common import (
    ExplainOpt,
    FileArg,
    JsonOpt,
    OptionOpt,
    RulesOpt,
    option_pairs,
    out,
    print_json,
    show,
    write_text,
)
from arbitre.files import load
from arbitre.places import PlaceMap
from arbitre.rules import RULESETS, Answer, ask, check_options, find_ruleset
from arbitre.rules.ruling import LosRuling
from arbitre.rules.schema import output_schema
from arbitre.table import Table

PANEL = "Tables"
DEMO = "frostgrave-demo.yaml"


def print_los(answer: Answer, *, explain: bool = False) -> None:
    """A table of rulings: one row a pair, the rules and pieces that decided it."""
    rulings: Sequence[LosRuling] = answer.rulings
    grid = RichTable(title=f"Lines of sight ({answer.rules}, {len(rulings)} pairs)")
    for col in ("shooter", "target", "visible", "cover", "base seen", "because"):
        grid.add_column(col, overflow="fold")
    for r in rulings:
        seen = "" if r.visible_fraction is None else f"{r.visible_fraction:.0%}"
        grid.add_row(
            r.shooter,
            r.target,
            "[green]yes[/]" if r.visible else "[red]no[/]",
            f"+{r.cover}" if r.cover else ("0" if r.visible else "-"),
            seen,
            r.because or "clear",
        )
    out.print(grid)
    if explain:
        for r in rulings:
            out.print(
                f"[bold]{r.shooter} -> {r.target}[/]: {'visible' if r.visible else 'not visible'}"
                + (f", cover +{r.cover}" if r.cover else "")
            )
            for reason in r.reasons:
                out.print(f"  {reason.rule:4} {reason.text}")


def _table(subject: Table | PlaceMap, command: str) -> Table:
    if not isinstance(subject, Table):
        raise RulesError(f"{command} rules a table; this file is a map of places")
    return subject


def los(
    file: FileArg,
    rules: RulesOpt = None,
    shooter: Annotated[
        list[str] | None,
        typer.Option("--shooter", help="Shooter id (repeatable).", show_default=False),
    ] = None,
    target: Annotated[
        list[str] | None,
        typer.Option("--target", help="Target id (repeatable).", show_default=False),
    ] = None,
    all_pairs: Annotated[bool, typer.Option("--all", help="Same-side pairs too.")] = False,
    option: OptionOpt = None,
    explain: ExplainOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Rule every line of sight asked: visible or not, the cover, and why."""
    table = _table(load(file), "los")
    answer = ask(
        table,
        "los",
        rules=rules or table.rules or None,
        options=option_pairs(option),
        shooter=tuple(shooter or ()),
        target=tuple(target or ()),
        same_side=all_pairs,
    )
    show(answer, as_json, lambda a: print_los(a, explain=explain))


def render(
    file: FileArg,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="SVG file to write.", show_default=False)
    ],
    shooter: Annotated[
        str | None,
        typer.Option("--shooter", help="Draw this model's lines.", show_default=False),
    ] = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
) -> None:
    """Draw the table (or the map of places) to scale as SVG, a shooter's lines if asked."""
    from arbitre.faces.svg.overlays import overlays
    from arbitre.faces.svg.places import render_places
    from arbitre.faces.svg.table import render_table

    subject = load(file)
    options = option_pairs(option)
    if isinstance(subject, PlaceMap):
        write_text(output, render_places(subject, options=options))
        out.print(f"wrote {output}")
        return
    svg_rules, answer = None, None
    if shooter is not None:
        answer = ask(
            subject, "los", rules=rules or subject.rules or None, options=options, shooter=shooter
        )
        svg_rules = find_ruleset(answer.rules)
    svg = render_table(
        subject,
        rulings=answer.rulings if answer else (),
        shooter=shooter,
        overlays=overlays(subject, svg_rules.name, shooter, options=options)
        if svg_rules and shooter
        else [],
        centre_lines=svg_rules is None or svg_rules.sight != "S3",
    )
    write_text(output, svg)
    out.print(f"wrote {output}")


def validate(file: FileArg) -> None:
    """Check a scenario file; print every problem with its path (exit 2 if any)."""
    subject = load(file)
    problems: list[str] = []
    rules = getattr(subject, "rules", None)
    try:
        if rules:
            find_ruleset(rules)
        check_options(dict(subject.options))
    except RulesError as exc:
        problems.append(str(exc))
    for ruleset in RULESETS.values():
        if ruleset.check is not None:
            problems.extend(ruleset.check(subject))
    if problems:
        raise RulesError(f"{file}: " + "; ".join(problems))
    if isinstance(subject, PlaceMap):
        out.print(f"{file}: ok (a map of {len(subject.places)} places)")
    else:
        out.print(
            f"{file}: ok ({len(subject.models)} models, {len(subject.terrain)} terrain pieces)"
        )


def schema(
    output: Annotated[
        bool,
        typer.Option("--output", help="The schema of the --json output (JSON 2) instead."),
    ] = False,
) -> None:
    """Print the JSON Schema of scenario files (or, with --output, of JSON output)."""
    print_json(output_schema() if output else scenario.json_schema())


def demo(
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write the SVG.")] = Path(
        "arbitre-demo.svg"
    ),
) -> None:
    """Rule the bundled example table: one side's lines of sight against the other's."""
    from arbitre.faces.svg.table import render_table

    source = resources.files("arbitre") / "data" / DEMO
    table = scenario.loads(source.read_text(encoding="utf-8"), source=f"(bundled) {DEMO}")
    sides = table.sides()
    shooters = [m.id for m in table.models if m.side == sides[0]]
    targets = [m.id for m in table.models if m.side != sides[0]]
    answer = ask(table, "los", shooter=tuple(shooters), target=tuple(targets))
    out.print(
        f"[bold]{table.name}[/] - {len(table.models)} models, {len(table.terrain)} terrain pieces"
    )
    out.print(f"scenario: {source}")
    print_los(answer)
    lead = shooters[0]
    write_text(
        output,
        render_table(
            table,
            rulings=[r for r in answer.rulings if r.shooter == lead],
            shooter=lead,
            title=f"{table.name}: lines of sight of {lead}",
        ),
    )
    out.print(f"drawn: {output.resolve()} (lines of sight of {lead})")


def register(app: typer.Typer) -> None:
    """Add the table commands to ``app``."""
    for command in (los, render, validate, schema, demo):
        app.command(rich_help_panel=PANEL)(command)
