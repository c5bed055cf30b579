"""The commands every table shares (a face): ``los``, ``render``, ``validate``, ``schema``,
``demo``. They parse, ask the registry, print; no rule lives here."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from arbitre import scenario
from arbitre.errors import RulesError
from arbitre.faces.cli.common import (
    IO_PANEL,
    MAX_BYTES,
    ExplainOpt,
    FileArg,
    JsonOpt,
    MaxBytesOpt,
    OptionOpt,
    QuietOpt,
    RulesOpt,
    check_picture,
    command,
    esc,
    load_file,
    load_table,
    option_pairs,
    out,
    print_json,
    print_reasons,
    show,
    warn,
    write_picture,
)
from arbitre.faces.cli.grid import Col, print_grid
from arbitre.places import PlaceMap
from arbitre.rules import RULESETS, Answer, ask, check_options, find_ruleset
from arbitre.rules.ruling import LosRuling
from arbitre.rules.schema import output_schema
from arbitre.table import MM

PANEL = "Tables"
DEMO = "frostgrave-demo.yaml"


#: The mark of a close call (G8) beside a ruling in the ``los`` table.
CLOSE_MARK = "!"


def print_los(answer: Answer, *, explain: bool = False) -> None:
    """A table of rulings: one row a pair, the rules and pieces that decided it; close
    calls (G8, ``ruling.margin.close``) marked, with a footnote, and with ``explain``
    each ruling's reasons and margin."""
    rulings: Sequence[LosRuling] = answer.rulings
    unit = answer.unit or MM
    cols = (
        Col("shooter"),
        Col("target"),
        Col("visible", "vis"),
        Col("cover", "cov", right=True),
        Col("base seen", "seen", right=True),
        Col("because"),
    )
    rows = [
        [
            esc(r.shooter),
            esc(r.target),
            ("[green]yes[/]" if r.visible else "[red]no[/]") + _close_mark(r),
            f"+{r.cover}" if r.cover else ("0" if r.visible else "-"),
            "" if r.visible_fraction is None else f"{r.visible_fraction:.0%}",
            esc(r.because or "clear"),
        ]
        for r in rulings
    ]
    title = f"Lines of sight ({answer.rules}, {len(rulings)} pairs)"
    print_grid(out, cols, rows, title=title, key=2, joiner=" -> ")
    if any(r.margin.close for r in rulings):
        given = answer.options.get("close_call", 2.0)
        mm = float(given) if isinstance(given, int | float) else 2.0
        threshold = MM.length(mm) + ("" if unit.mm == 1.0 else f" ({unit.length(mm)})")
        out.print(
            f"[yellow]{CLOSE_MARK}[/] close call: margin below {esc(threshold)}, "
            "measure with care (G8)",
            soft_wrap=True,
        )
    if explain:
        for r in rulings:
            out.print(
                f"[bold]{esc(r.shooter)} -> {esc(r.target)}[/]: "
                f"{'visible' if r.visible else 'not visible'}"
                + (f", cover +{r.cover}" if r.cover else "")
            )
            print_reasons(r.reasons)
            if r.margin.mm is not None:
                close = f" [yellow]{CLOSE_MARK} close call[/]" if r.margin.close else ""
                test = f" ({esc(r.margin.test)})" if r.margin.test else ""
                out.print(f"  [dim]G8 [/] margin {esc(unit.length(r.margin.mm))}{test}{close}")


def _close_mark(r: LosRuling) -> str:
    """The close-call mark (G8) for a ruling's visible cell, or nothing."""
    return f" [yellow]{CLOSE_MARK}[/]" if r.margin.close else ""


ShooterOpt = Annotated[
    list[str] | None,
    typer.Option("--shooter", metavar="ID", help="Shooter id (repeatable).", show_default=False),
]
TargetOpt = Annotated[
    list[str] | None,
    typer.Option("--target", metavar="ID", help="Target id (repeatable).", show_default=False),
]
PictureOpt = Annotated[
    Path,
    typer.Option(
        "-o",
        "--output",
        metavar="FILE",
        help="Picture to write: .svg, or .png (through rsvg-convert).",
        show_default=False,
        rich_help_panel=IO_PANEL,
    ),
]


def los(
    file: FileArg,
    rules: RulesOpt = None,
    shooter: ShooterOpt = None,
    target: TargetOpt = None,
    all_pairs: Annotated[bool, typer.Option("--all", help="Same-side pairs too.")] = False,
    option: OptionOpt = None,
    explain: ExplainOpt = False,
    as_json: JsonOpt = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    quiet: QuietOpt = False,
) -> None:
    """Rule every line of sight asked: visible or not, the cover, and why."""
    table = load_table(file, "los", max_bytes)
    warn(table, quiet)
    answer = ask(
        table,
        "los",
        rules=rules,
        options=option_pairs(option),
        shooter=tuple(shooter or ()),
        target=tuple(target or ()),
        same_side=all_pairs,
    )
    show(answer, as_json, lambda a: print_los(a, explain=explain))


def render(
    file: FileArg,
    output: PictureOpt,
    shooter: Annotated[
        str | None,
        typer.Option(
            "--shooter", metavar="ID", help="Draw this model's lines.", show_default=False
        ),
    ] = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
    max_bytes: MaxBytesOpt = MAX_BYTES,
) -> None:
    """Draw the table (or the map of places) to scale, a shooter's lines if asked."""
    from arbitre.faces.svg.overlays import overlays
    from arbitre.faces.svg.places import render_places
    from arbitre.faces.svg.table import render_table

    check_picture(output)
    subject = load_file(file, max_bytes)
    options = option_pairs(option)
    if isinstance(subject, PlaceMap):
        write_picture(output, render_places(subject, options=options))
        out.print(f"wrote {esc(output)}")
        return
    svg_rules, answer = None, None
    if shooter is not None:
        answer = ask(subject, "los", rules=rules, options=options, shooter=shooter)
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
    write_picture(output, svg)
    out.print(f"wrote {esc(output)}")


def validate(file: FileArg, max_bytes: MaxBytesOpt = MAX_BYTES, quiet: QuietOpt = False) -> None:
    """Check a scenario file: every problem any command would refuse, with its path (exit
    2 if any); then the warnings, plausible mistakes that stop nothing."""
    subject = load_file(file, max_bytes)
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
    warn(subject, quiet)
    if isinstance(subject, PlaceMap):
        out.print(f"{esc(file)}: ok (a map of {len(subject.places)} places)")
    else:
        out.print(
            f"{esc(file)}: ok ({len(subject.models)} models, {len(subject.terrain)} terrain pieces)"
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
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help="Where to draw the picture: .svg, or .png (through rsvg-convert).",
            rich_help_panel=IO_PANEL,
        ),
    ] = Path("arbitre-demo.svg"),
    option: OptionOpt = None,
) -> None:
    """Rule the bundled example table: one side's lines of sight against the other's."""
    from arbitre.faces.svg.table import render_table

    check_picture(output)
    source = resources.files("arbitre") / "data" / DEMO
    table = scenario.loads(source.read_text(encoding="utf-8"), source=f"(bundled) {DEMO}")
    sides = table.sides()
    shooters = [m.id for m in table.models if m.side == sides[0]]
    targets = [m.id for m in table.models if m.side != sides[0]]
    answer = ask(
        table, "los", options=option_pairs(option), shooter=tuple(shooters), target=tuple(targets)
    )
    out.print(
        f"[bold]{esc(table.name)}[/] - {len(table.models)} models, "
        f"{len(table.terrain)} terrain pieces"
    )
    out.print(f"scenario: {esc(source)}")
    print_los(answer)
    lead = shooters[0]
    write_picture(
        output,
        render_table(
            table,
            rulings=[r for r in answer.rulings if r.shooter == lead],
            shooter=lead,
            title=f"{table.name}: lines of sight of {lead}",
        ),
    )
    out.print(f"drawn: {esc(output.resolve())} (lines of sight of {esc(lead)})")


def register(app: typer.Typer) -> None:
    """Add the table commands to ``app``."""
    for fn in (los, render, validate, schema, demo):
        command(app, fn, PANEL)
