"""The commands every table shares (a face): ``los``, ``render``, ``validate``, ``schema``,
``demo``. They parse, ask the registry, print; no rule lives here."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

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
from arbitre.i18n import N_, T_, TN_, Num, Text, _, join
from arbitre.vocabulary import test_words

if TYPE_CHECKING:  # the engine is imported when a command runs, not for --help
    from arbitre.rules import Answer
    from arbitre.rules.ruling import LosRuling
    from arbitre.table import Table, Unit

PANEL = N_("Tables")
DEMO = "frostgrave-demo.yaml"


#: The mark of a close call (G8) beside a ruling in the ``los`` table.
CLOSE_MARK = "!"


def print_los(answer: Answer, *, explain: bool = False) -> None:
    """A table of rulings: one row a pair, the rules and pieces that decided it; close
    calls (G8, ``ruling.margin.close``) marked, with a footnote, and with ``explain``
    each ruling's reasons and margin."""
    from arbitre.table import MM

    rulings: Sequence[LosRuling] = answer.rulings
    unit = answer.unit or MM
    cols = (
        Col(_("shooter")),
        Col(_("target")),
        Col(_("visible"), _("vis")),
        Col(_("cover"), _("cov"), right=True),
        Col(_("base seen"), _("seen"), right=True),
        Col(_("because")),
    )
    yes, no, clear = _("yes"), _("no"), _("clear")
    rows = [
        [
            esc(r.shooter),
            esc(r.target),
            (f"[green]{yes}[/]" if r.visible else f"[red]{no}[/]") + _close_mark(r),
            f"+{r.cover}" if r.cover else ("0" if r.visible else "-"),
            "" if r.visible_fraction is None else percent(r.visible_fraction),
            esc(clear if r.because in ("", "clear") else r.because),
        ]
        for r in rulings
    ]
    n = len(rulings)
    title = TN_(
        "Lines of sight ({rules}, {n} pair)",
        "Lines of sight ({rules}, {n} pairs)",
        "n",
        rules=answer.rules,
        n=n,
    )
    print_grid(out, cols, rows, title=str(title), key=2, joiner=" -> ")
    if any(r.margin.close for r in rulings):
        given = answer.options.get("close_call", 2.0)
        mm = float(given) if isinstance(given, int | float) else 2.0
        out.print(f"[yellow]{CLOSE_MARK}[/] {esc(_close_words(mm, unit))}", soft_wrap=True)
    if explain:
        for r in rulings:
            out.print(_ruling_head(r))
            print_reasons(r.reasons)
            if r.margin.mm is not None:
                out.print(f"  [dim]G8 [/] {_margin_words(r, unit)}")


def percent(share: float) -> str:
    """A share as a whole percentage in the current language ("86%", "86 %")."""
    return str(T_("{share}%", share=Num(share * 100, ".0f")))


def _close_words(mm: float, unit: Unit) -> Text:
    """The close-call footnote (G8): the threshold in mm, and in the report unit too."""
    from arbitre.table import MM

    if unit.mm == 1.0:
        return T_(
            "close call: margin below {threshold}, measure with care (G8)",
            threshold=MM.measure(mm),
        )
    return T_(
        "close call: margin below {threshold} ({length}), measure with care (G8)",
        threshold=MM.measure(mm),
        length=unit.measure(mm),
    )


def _ruling_head(r: LosRuling) -> str:
    """The head line of a ruling's explanation: the pair, visible or not, the cover."""
    pair = f"[bold]{esc(r.shooter)} -> {esc(r.target)}[/]"
    if not r.visible:
        return str(T_("{pair}: not visible", pair=pair))
    if r.cover:
        return str(T_("{pair}: visible, cover +{cover}", pair=pair, cover=r.cover))
    return str(T_("{pair}: visible", pair=pair))


def _margin_words(r: LosRuling, unit: Unit) -> str:
    """The G8 line of a ruling's explanation: its margin, the test named for people, and
    the close-call mark."""
    assert r.margin.mm is not None
    words = esc(T_("margin {length}", length=unit.measure(r.margin.mm)))
    if r.margin.test:
        words += f" ({esc(test_words(r.margin.test))})"
    if r.margin.close:
        words += f" [yellow]{CLOSE_MARK} {esc(_('close call'))}[/]"
    return words


def _close_mark(r: LosRuling) -> str:
    """The close-call mark (G8) for a ruling's visible cell, or nothing."""
    return f" [yellow]{CLOSE_MARK}[/]" if r.margin.close else ""


ShooterOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--shooter", metavar="ID", help=N_("Shooter id (repeatable)."), show_default=False
    ),
]
TargetOpt = Annotated[
    list[str] | None,
    typer.Option("--target", metavar="ID", help=N_("Target id (repeatable)."), show_default=False),
]
PictureOpt = Annotated[
    Path,
    typer.Option(
        "-o",
        "--output",
        metavar="FILE",
        help=N_("Picture to write: .svg, or .png (through rsvg-convert)."),
        show_default=False,
        rich_help_panel=IO_PANEL,
    ),
]


def los(
    file: FileArg,
    rules: RulesOpt = None,
    shooter: ShooterOpt = None,
    target: TargetOpt = None,
    all_pairs: Annotated[bool, typer.Option("--all", help=N_("Same-side pairs too."))] = False,
    option: OptionOpt = None,
    explain: ExplainOpt = False,
    as_json: JsonOpt = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    quiet: QuietOpt = False,
) -> None:
    """Rule every line of sight asked: visible or not, the cover, and why."""
    from arbitre.rules import ask

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
            "--shooter", metavar="ID", help=N_("Draw this model's lines."), show_default=False
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
    from arbitre.places import PlaceMap
    from arbitre.rules import ask, find_ruleset

    check_picture(output)
    subject = load_file(file, max_bytes)
    options = option_pairs(option)
    if isinstance(subject, PlaceMap):
        write_picture(output, render_places(subject, options=options))
        out.print(esc(T_("wrote {path}", path=output)))
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
    out.print(esc(T_("wrote {path}", path=output)))


def validate(file: FileArg, max_bytes: MaxBytesOpt = MAX_BYTES, quiet: QuietOpt = False) -> None:
    """Check a scenario file: every problem any command would refuse, with its path (exit
    2 if any); then the warnings, plausible mistakes that stop nothing."""
    from arbitre.places import PlaceMap
    from arbitre.rules import RULESETS, check_options, find_ruleset

    subject = load_file(file, max_bytes)
    problems: list[str | Text] = []
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
        raise RulesError(T_("{file}: {problems}", file=file, problems=join(problems, sep="; ")))
    warn(subject, quiet)
    if isinstance(subject, PlaceMap):
        n = len(subject.places)
        ok = TN_(
            "{file}: ok (a map of {n} place)",
            "{file}: ok (a map of {n} places)",
            "n",
            file=file,
            n=n,
        )
    else:
        ok = T_(
            "{file}: ok ({models}, {terrain})",
            file=file,
            models=_models(subject),
            terrain=_pieces(subject),
        )
    out.print(esc(ok))


def _models(table: Table) -> Text:
    """How many models a table has, in words."""
    n = len(table.models)
    return TN_("{n} model", "{n} models", "n", n=n)


def _pieces(table: Table) -> Text:
    """How many terrain pieces a table has, in words."""
    n = len(table.terrain)
    return TN_("{n} terrain piece", "{n} terrain pieces", "n", n=n)


def schema(
    output: Annotated[
        bool,
        typer.Option("--output", help=N_("The schema of the --json output (JSON 2) instead.")),
    ] = False,
) -> None:
    """Print the JSON Schema of scenario files (or, with --output, of JSON output)."""
    from arbitre import scenario
    from arbitre.rules.schema import output_schema

    print_json(output_schema() if output else scenario.json_schema())


def demo(
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help=N_("Where to draw the picture: .svg, or .png (through rsvg-convert)."),
            rich_help_panel=IO_PANEL,
        ),
    ] = Path("arbitre-demo.svg"),
    option: OptionOpt = None,
) -> None:
    """Rule the bundled example table: one side's lines of sight against the other's."""
    from arbitre import scenario
    from arbitre.faces.svg.table import render_table
    from arbitre.rules import ask

    check_picture(output)
    from importlib import resources

    source = resources.files("arbitre") / "data" / DEMO
    table = scenario.loads(source.read_text(encoding="utf-8"), source=f"(bundled) {DEMO}")
    sides = table.sides()
    shooters = [m.id for m in table.models if m.side == sides[0]]
    targets = [m.id for m in table.models if m.side != sides[0]]
    answer = ask(
        table, "los", options=option_pairs(option), shooter=tuple(shooters), target=tuple(targets)
    )
    name = f"[bold]{esc(table.name)}[/]"
    head = T_(
        "{name} - {models}, {terrain}", name=name, models=_models(table), terrain=_pieces(table)
    )
    out.print(str(head))
    out.print(esc(T_("scenario: {path}", path=source)))
    print_los(answer)
    lead = shooters[0]
    write_picture(
        output,
        render_table(
            table,
            rulings=[r for r in answer.rulings if r.shooter == lead],
            shooter=lead,
            title=str(T_("{name}: lines of sight of {shooter}", name=table.name, shooter=lead)),
        ),
    )
    drawn = T_("drawn: {path} (lines of sight of {shooter})", path=output.resolve(), shooter=lead)
    out.print(esc(drawn))


def register(app: typer.Typer) -> None:
    """Add the table commands to ``app``."""
    command(
        app, los, PANEL, N_("Rule every line of sight asked: visible or not, the cover, and why.")
    )
    command(
        app,
        render,
        PANEL,
        N_("Draw the table (or the map of places) to scale, a shooter's lines if asked."),
    )
    command(
        app,
        validate,
        PANEL,
        N_(
            "Check a scenario file: every problem any command would refuse, with its path (exit\n"
            "2 if any); then the warnings, plausible mistakes that stop nothing."
        ),
    )
    command(
        app,
        schema,
        PANEL,
        N_("Print the JSON Schema of scenario files (or, with --output, of JSON output)."),
    )
    command(
        app,
        demo,
        PANEL,
        N_("Rule the bundled example table: one side's lines of sight against the other's."),
    )
