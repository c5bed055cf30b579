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
from rich import box
from rich.table import Table as RichTable

from arbitre.faces.cli.common import (
    ExplainOpt,
    FileArg,
    JsonOpt,
    OptionOpt,
    RulesOpt,
    SeedOpt,
    ask_file,
    out,
    print_reasons,
    show,
)
from arbitre.rules import Answer
from arbitre.table import MM, Unit

PANEL = "Mordheim"

ShooterArg = Annotated[str, typer.Argument(help="The model that shoots.", show_default=False)]
TargetArg = Annotated[str, typer.Argument(help="The model shot at.", show_default=False)]
WeaponOpt = Annotated[
    str | None,
    typer.Option(
        "--weapon",
        help="Missile weapon by name (default: the shooter's first).",
        show_default=False,
    ),
]


def _p(p: Fraction) -> str:
    return f"{p} ({float(p):.0%})" if p not in (0, 1) else str(p)


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
    )
    return [
        t.target,
        f"{t.visible_fraction:.0%}" if t.visible else "[red]no[/]",
        f"{unit.from_mm(t.distance):.4g}",
        rng,
        (", ".join(t.cover_pieces) or "yes") if t.in_cover else "",
        "yes" if t.large else "",
        t.need_text or "-",
        *odds,
        legal,
    ]


def print_targets(answer: Answer, *, explain: bool) -> None:
    """The shooter's verdict (M1), then one row a target: facts, score, odds, legality;
    under it each target's deciding reasons (every reason with ``explain``)."""
    ruling, unit = answer.ruling, answer.unit or MM
    w = ruling.weapon
    arms = f"{w.name} {unit.length(w.range)}" if w and w.range else "no missile weapon"
    verdict = "[green]may shoot[/]" if ruling.may_shoot else "[red]may not shoot[/]"
    bs = "-" if ruling.bs is None else ruling.bs
    out.print(f"[bold]{ruling.shooter}[/] ({ruling.side}), {arms}, BS {bs}: {verdict}")
    print_reasons(ruling.reasons)
    grid = RichTable(
        title=f"Targets of {ruling.shooter}, nearest first (unit: {unit.name}; "
        "hit, on cover, miss: exact odds)",
        box=box.SIMPLE_HEAD,
        title_justify="left",
        pad_edge=False,
        collapse_padding=True,
    )
    for col in (
        "target",
        "seen",
        "dist",
        "range",
        "cover",
        "large",
        "need",
        "hit",
        "on cover",
        "miss",
        "legal",
    ):
        grid.add_column(col, overflow="fold", no_wrap=True)
    for t in ruling.targets:
        grid.add_row(*_row(t, unit))
    out.print(grid)
    for t in ruling.targets:
        verdict = "[green]legal[/]" if t.legal else "[red]not legal[/]"
        out.print(f"[bold]{t.target}[/]: {verdict}")
        print_reasons(t.reasons if explain else t.deciding, "    ")


def print_shot(answer: Answer) -> None:
    """The dice rolled, the outcome, the odds it had, and why (M4, M6, M7, M9, M11)."""
    result = answer.ruling
    out.print(f"[bold]{result.shooter}[/] shoots [bold]{result.target}[/] with {result.weapon}")
    for d in result.log.dice:
        out.print(f"  die: {d.label}: d{d.sides} = [bold]{d.value}[/]")
    if not result.log.dice:
        out.print("  no dice: out of range")
    word = {
        "hit": f"[green]HIT[/] {result.hit}",
        "miss": "[red]MISS[/]",
        "hit_cover": "[yellow]HIT THE COVER[/]",
    }[result.outcome]
    out.print(f"  result: {word}" + (" (automatic: out of range)" if result.automatic else ""))
    odds = result.odds
    shares = odds.allocation if len(odds.allocation) > 1 else ()
    out.print(
        f"  odds: hit {_p(odds.hit)}, cover {_p(odds.hit_cover)}, miss {_p(odds.miss)}"
        + "".join(f"; {m} {_p(p)}" for m, p in shares)
    )
    out.print(f"  seed {result.seed}")
    print_reasons(result.reasons)


def targets(
    file: FileArg,
    shooter: ShooterArg,
    weapon: WeaponOpt = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
    explain: ExplainOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Whom a Mordheim shooter may shoot, the score it needs and its exact odds (M1-M10)."""
    _, answer = ask_file(
        file, "targets", rules=rules, option=option, shooter=shooter, weapon=weapon
    )
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
) -> None:
    """Roll a Mordheim shot, every die logged (no --seed: a fresh one); refused if illegal."""
    _, answer = ask_file(
        file,
        "shoot",
        rules=rules,
        option=option,
        shooter=shooter,
        target=target,
        weapon=weapon,
        seed=seed,
    )
    show(answer, as_json, print_shot)


def register(app: typer.Typer) -> None:
    """Add the Mordheim commands ``targets`` and ``shoot`` to ``app``."""
    app.command(rich_help_panel=PANEL)(targets)
    app.command(rich_help_panel=PANEL)(shoot)
