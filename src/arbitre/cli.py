"""The ``arbitre`` command: parses, calls the library, prints. No rule lives here.

Every user mistake is an :class:`ArbitreError`, turned into one line on stderr and exit
code 2 in :func:`main`, the one place that does so.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import yaml
from rich.console import Console
from rich.table import Table as RichTable

from arbitre import scenario
from arbitre.cli_common import print_json
from arbitre.errors import ArbitreError, RulesError, ScenarioError
from arbitre.rules import find_ruleset
from arbitre.rules.ruling import JSON_VERSION, LosRuling
from arbitre.table import Table

if TYPE_CHECKING:
    from arbitre.render import Overlay

app = typer.Typer(
    name="arbitre",
    help="A referee engine for skirmish miniature wargames.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(highlight=False, soft_wrap=True)

FileArg = Annotated[Path, typer.Argument(help="Scenario file (YAML or JSON).", show_default=False)]
RulesOpt = Annotated[
    str | None, typer.Option("--rules", help="Ruleset (default: the scenario's `rules`).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def _ruleset_name(table: Table, rules: str | None) -> str:
    name = rules or table.rules
    if not name:
        raise RulesError("no ruleset: the scenario has no `rules`, give --rules NAME")
    return find_ruleset(name).name


def select_pairs(
    table: Table, shooters: Sequence[str], targets: Sequence[str], *, same_side: bool
) -> list[tuple[str, str]]:
    """The ordered pairs asked: named shooters/targets or every model; by default only
    pairs of different sides unless targets are named or ``same_side`` is set."""
    for ident in (*shooters, *targets):
        table.model(ident)
    s_ids = list(shooters) or [m.id for m in table.models]
    t_ids = list(targets) or [m.id for m in table.models]
    keep_same = same_side or bool(targets)
    return [
        (a, b)
        for a in s_ids
        for b in t_ids
        if a != b and (keep_same or table.model(a).side != table.model(b).side)
    ]


def los_json(table: Table, rules: str, rulings: Sequence[LosRuling]) -> dict[str, Any]:
    return {
        "arbitre": JSON_VERSION,
        "rules": rules,
        "unit": table.unit.name,
        "rulings": [r.to_json(table.unit) for r in rulings],
    }


def print_los(
    table: Table, rules: str, rulings: Sequence[LosRuling], *, explain: bool = False
) -> None:
    """A table of rulings: one row a pair, the rules and pieces that decided it."""
    grid = RichTable(title=f"Lines of sight ({rules}, {len(rulings)} pairs)")
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
            _because(r),
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


def _because(r: LosRuling) -> str:
    """The deciding reasons in a few words: rule IDs and the pieces involved."""
    parts = []
    for x in r.reasons:
        if x.rule in {"F1", "F9"} or (x.rule == "F2" and "not visible" in x.text):
            continue
        parts.append(
            f"{x.rule} {' '.join(i for i in x.ids if i not in (r.shooter, r.target))}".strip()
        )
    return ", ".join(dict.fromkeys(parts)) or "clear"


@app.command()
def los(
    file: FileArg,
    rules: RulesOpt = None,
    shooter: Annotated[
        list[str] | None, typer.Option("--shooter", help="Shooter id (repeatable).")
    ] = None,
    target: Annotated[
        list[str] | None, typer.Option("--target", help="Target id (repeatable).")
    ] = None,
    all_pairs: Annotated[bool, typer.Option("--all", help="Same-side pairs too.")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Every reason in full.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Rule every line of sight asked: visible or not, the cover, and why."""
    table = scenario.load(file)
    name = _ruleset_name(table, rules)
    pairs = select_pairs(table, shooter or [], target or [], same_side=all_pairs)
    rulings = find_ruleset(name).los(table, pairs)
    if as_json:
        _print_json(los_json(table, name, rulings))
    else:
        print_los(table, name, rulings, explain=explain)


@app.command()
def render(
    file: FileArg,
    output: Annotated[Path, typer.Option("-o", "--output", help="SVG file to write.")],
    shooter: Annotated[
        str | None, typer.Option("--shooter", help="Draw this model's lines.")
    ] = None,
    rules: RulesOpt = None,
) -> None:
    """Draw the table to scale as SVG, with a shooter's lines of sight if asked."""
    from arbitre.render import render_table

    if _is_places(file):
        from arbitre.cli_places import render_places_file

        render_places_file(file, output)
        out.print(f"wrote {output}")
        return
    table = scenario.load(file)
    rulings: list[LosRuling] = []
    overlays: list[Overlay] = []
    name = None
    if shooter is not None:
        name = _ruleset_name(table, rules)
        rulings = find_ruleset(name).los(table, select_pairs(table, [shooter], [], same_side=False))
        overlays = _overlays(table, name, shooter, rulings)
    svg = render_table(table, rulings=rulings, shooter=shooter, overlays=overlays,
                       centre_lines=name != "darkage")
    _write(output, svg)
    out.print(f"wrote {output}")


def _overlays(table: Table, rules: str, shooter: str, rulings: list[LosRuling]) -> list[Overlay]:
    """What a ruleset draws beyond the lines of sight (its own face module)."""
    if rules == "darkage":
        from arbitre import render_darkage

        return [render_darkage.overlay(table, rulings)]
    if rules == "mordheim":
        from arbitre import render_mordheim

        return [render_mordheim.overlay(table, shooter)]
    return []


@app.command()
def validate(file: FileArg) -> None:
    """Check a scenario file; print every problem with its path (exit 2 if any)."""
    if _is_places(file):
        from arbitre.places import load_places

        placemap = load_places(file)
        out.print(f"{file}: ok (a map of {len(placemap.places)} places)")
        return
    table = scenario.load(file)
    from arbitre.rules.breath import weapon_problems

    if problems := weapon_problems(table):
        raise RulesError(f"{file}: " + "; ".join(problems))
    out.print(f"{file}: ok ({len(table.models)} models, {len(table.terrain)} terrain pieces)")


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    _print_json(scenario.json_schema())


DEMO = "frostgrave-demo.yaml"


@app.command()
def demo(
    output: Annotated[Path, typer.Option("-o", "--output", help="Where to write the SVG.")] = Path(
        "arbitre-demo.svg"
    ),
) -> None:
    """Rule the bundled example table: one side's lines of sight against the other's."""
    from arbitre.render import render_table

    source = resources.files("arbitre") / "data" / DEMO
    table = scenario.loads(source.read_text(encoding="utf-8"), source=f"(bundled) {DEMO}")
    name = _ruleset_name(table, None)
    sides = table.sides()
    shooters = [m.id for m in table.models if m.side == sides[0]]
    targets = [m.id for m in table.models if m.side != sides[0]]
    rulings = find_ruleset(name).los(table, [(a, b) for a in shooters for b in targets])
    out.print(
        f"[bold]{table.name}[/] - {len(table.models)} models, {len(table.terrain)} terrain pieces"
    )
    out.print(f"scenario: {source}")
    print_los(table, name, rulings)
    lead = shooters[0]
    _write(
        output,
        render_table(
            table,
            rulings=[r for r in rulings if r.shooter == lead],
            shooter=lead,
            title=f"{table.name}: lines of sight of {lead}",
        ),
    )
    out.print(f"drawn: {output.resolve()} (lines of sight of {lead})")


def _is_places(path: Path) -> bool:
    """Whether a file is a map of places (seed 003) rather than a table; an unreadable
    file is left to the loader, which says what is wrong with it."""
    from arbitre.places import is_places_document

    try:
        return is_places_document(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False


_print_json = print_json


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ArbitreError(f"cannot write {path}: {exc.strerror or exc}") from None


def _register_faces() -> None:
    """The commands of the rulesets that have their own (places: move, shot, place)."""
    from arbitre import cli_breath, cli_darkage, cli_mordheim, cli_places

    cli_places.register(app)
    cli_darkage.register(app)
    cli_breath.register(app)
    cli_mordheim.register(app)


_register_faces()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; library errors become one line and exit code 2."""
    try:
        app(args=list(argv) if argv is not None else None, standalone_mode=False)
    except ScenarioError as exc:
        print(f"arbitre: {exc}", file=sys.stderr)
        return 2
    except ArbitreError as exc:
        print(f"arbitre: {exc}", file=sys.stderr)
        return 2
    except typer.Exit as exc:
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        print("arbitre: aborted", file=sys.stderr)
        return 130
    except Exception as exc:
        # usage errors (bad option, missing argument) come from typer's click and say
        # what is wrong themselves; anything else is a bug and keeps its traceback
        show, code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        if callable(show) and isinstance(code, int):
            show()
            return code
        raise
    return 0


def run() -> None:
    sys.exit(main())
