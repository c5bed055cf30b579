"""The Mordheim commands of ``arbitre`` (M1-M11): ``targets`` and ``shoot`` (a face).

They parse, ask the registry (:func:`~arbitre.faces.cli.common.ask_file`), print the
rulings' fields; no rule lives here. :func:`register` adds them to a typer app; user
mistakes are raised as :class:`~arbitre.errors.ArbitreError` for the app's ``main`` to
print as one line with exit code 2.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any

import typer

from arbitre.faces.cli.common import (
    MAX_BYTES,
    ExplainOpt,
    FileArg,
    JsonOpt,
    MaxBytesOpt,
    OptionOpt,
    QuietOpt,
    RulesOpt,
    SeedOpt,
    ask_file,
    command,
    esc,
    out,
    print_reasons,
    seed_line,
    show,
    warn,
)
from arbitre.faces.cli.grid import Col, print_grid
from arbitre.rules import Answer
from arbitre.rules.ruling import Margin
from arbitre.table import MM, Unit

PANEL = "Mordheim"
#: The mark of a close call (G8) beside a target's legality.
CLOSE_MARK = "!"

ShooterArg = Annotated[
    str, typer.Argument(metavar="SHOOTER", help="The model that shoots.", show_default=False)
]
TargetArg = Annotated[
    str, typer.Argument(metavar="TARGET", help="The model shot at.", show_default=False)
]
WeaponOpt = Annotated[
    str | None,
    typer.Option(
        "--weapon",
        "-w",
        metavar="NAME",
        help="Missile weapon by name (default: the shooter's only or first one).",
        show_default=False,
    ),
]


def _p(p: Fraction) -> str:
    return f"{p} ({float(p):.0%})" if p not in (0, 1) else str(p)


COLUMNS = (
    Col("target"),
    Col("seen", right=True),
    Col("dist", right=True),
    Col("range"),
    Col("cover"),
    Col("large", "lg", "large target (M10)"),
    Col("need"),
    Col("hit", right=True),
    Col("on cover", "cov", "hit on the cover (M9)", right=True),
    Col("miss", right=True),
    Col("legal"),
)


def _row(t: Any, unit: Unit) -> list[str]:
    """One target's cells: seen, distance, range, cover, large, need, odds, legality."""
    rng = (
        "-"
        if t.in_range is None
        else "out"
        if not t.in_range
        else ("long" if t.long_range else "short")
    )
    odds = (
        ("-", "-", "-")
        if t.odds is None
        else (str(t.odds.hit), str(t.odds.hit_cover), str(t.odds.miss))
    )
    legal = (
        ("[bold magenta]closest[/]" if t.closest else "[green]yes[/]") if t.legal else "[red]no[/]"
    ) + (f" [yellow]{CLOSE_MARK}[/]" if t.margin.close else "")
    return [
        esc(t.target),
        f"{t.visible_fraction:.0%}" if t.visible else "[red]no[/]",
        f"{unit.from_mm(t.distance):.4g}",
        rng,
        esc(", ".join(t.cover_pieces) or "yes") if t.in_cover else "",
        "yes" if t.large else "",
        esc(t.need_text or "-"),
        *odds,
        legal,
    ]


def print_targets(answer: Answer, *, explain: bool) -> None:
    """The shooter's verdict (M1), then one row a target: facts, score, odds, legality;
    under it each target's deciding reasons (every reason with ``explain``)."""
    ruling, unit = answer.ruling, answer.unit or MM
    w = ruling.weapon
    arms = f"{esc(w.name)} {unit.length(w.range)}" if w and w.range else "no missile weapon"
    verdict = "[green]may shoot[/]" if ruling.may_shoot else "[red]may not shoot[/]"
    bs = "-" if ruling.bs is None else ruling.bs
    out.print(f"[bold]{esc(ruling.shooter)}[/] ({esc(ruling.side)}), {arms}, BS {bs}: {verdict}")
    print_reasons(ruling.reasons)
    print_grid(
        out,
        COLUMNS,
        [_row(t, unit) for t in ruling.targets],
        title=f"Targets of {esc(ruling.shooter)}, nearest first (unit: {unit.name}; "
        "hit, on cover, miss: exact odds)",
    )
    if any(t.margin.close for t in ruling.targets):
        out.print(
            f"[yellow]{CLOSE_MARK}[/] close call: a move shorter than "
            f"{esc(unit.length(_threshold(answer)))} may change it, measure with care (G8)",
            soft_wrap=True,
        )
    if explain:
        print_margin(ruling.margin, unit, "")
    for t in ruling.targets:
        verdict = "[green]legal[/]" if t.legal else "[red]not legal[/]"
        out.print(f"[bold]{esc(t.target)}[/]: {verdict}")
        print_reasons(t.reasons if explain else t.deciding, "    ")
        if explain:
            print_margin(t.margin, unit, "    ")


def _threshold(answer: Answer) -> float:
    """The close-call threshold of the answer's options, in mm (G8)."""
    given = answer.options.get("close_call", 2.0)
    return float(given) if isinstance(given, int | float) else 2.0


def print_margin(margin: Margin, unit: Unit, indent: str) -> None:
    """G8: the margin of a ruling, the test it names, and a mark on a close call."""
    if margin.mm is None:
        return
    test = f" ({esc(margin.test)})" if margin.test else ""
    close = f" [yellow]{CLOSE_MARK} close call[/]" if margin.close else ""
    out.print(f"{indent}  [dim]G8 [/] margin {esc(unit.length(margin.mm))}{test}{close}")


def print_shot(answer: Answer) -> None:
    """The dice rolled, the outcome, the odds it had, and why (M4, M6, M7, M9, M11)."""
    result = answer.ruling
    out.print(
        f"[bold]{esc(result.shooter)}[/] shoots [bold]{esc(result.target)}[/] "
        f"with {esc(result.weapon)}"
    )
    for d in result.log.dice:
        out.print(f"  die: {esc(d.label)}: d{d.sides} = [bold]{d.value}[/]")
    if not result.log.dice:
        out.print("  no dice: out of range")
    word = {
        "hit": f"[green]HIT[/] {esc(result.hit)}",
        "miss": "[red]MISS[/]",
        "hit_cover": "[yellow]HIT THE COVER[/]",
    }[result.outcome]
    out.print(f"  result: {word}" + (" (automatic: out of range)" if result.automatic else ""))
    odds = result.odds
    shares = odds.allocation if len(odds.allocation) > 1 else ()
    out.print(
        f"  odds: hit {_p(odds.hit)}, cover {_p(odds.hit_cover)}, miss {_p(odds.miss)}"
        + "".join(f"; {esc(m)} {_p(p)}" for m, p in shares)
    )
    out.print(f"  {seed_line(result.seed)}")
    print_reasons(result.reasons)
    print_margin(result.margin, answer.unit or MM, "")


def targets(
    file: FileArg,
    shooter: ShooterArg,
    weapon: WeaponOpt = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
    explain: ExplainOpt = False,
    as_json: JsonOpt = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    quiet: QuietOpt = False,
) -> None:
    """Whom a Mordheim shooter may shoot, the score it needs and its exact odds (M1-M10)."""
    table, answer = ask_file(
        file,
        "targets",
        rules=rules,
        option=option,
        max_bytes=max_bytes,
        shooter=shooter,
        weapon=weapon,
    )
    warn(table, quiet)
    show(answer, as_json, lambda a: print_targets(a, explain=explain))


def shoot(
    file: FileArg,
    shooter: ShooterArg,
    target: TargetArg,
    seed: SeedOpt = None,
    weapon: WeaponOpt = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
    as_json: JsonOpt = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
) -> None:
    """Roll a Mordheim shot, every die logged (no --seed: a fresh one); refused if illegal."""
    _, answer = ask_file(
        file,
        "shoot",
        rules=rules,
        option=option,
        max_bytes=max_bytes,
        shooter=shooter,
        target=target,
        weapon=weapon,
        seed=seed,
    )
    show(answer, as_json, print_shot)


def register(app: typer.Typer) -> None:
    """Add the Mordheim commands ``targets`` and ``shoot`` to ``app``."""
    command(app, targets, PANEL)
    command(app, shoot, PANEL)
