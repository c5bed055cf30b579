"""The Mordheim commands of ``arbitre`` (M1-M11): ``targets`` and ``shoot``.

They parse, call :mod:`arbitre.rules.mordheim`, print; no rule lives here. :func:`register`
adds them to a typer app; user mistakes are raised as :class:`~arbitre.errors.ArbitreError`
for the app's ``main`` to print as one line with exit code 2.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.table import Table as RichTable

from arbitre import scenario
from arbitre.faces.cli.common import option_pairs, print_json
from arbitre.rules import mordheim
from arbitre.rules.ruling import Reason
from arbitre.table import Table

out = Console(highlight=False, soft_wrap=True)

FileArg = Annotated[Path, typer.Argument(help="Scenario file (YAML or JSON).", show_default=False)]
ShooterArg = Annotated[str, typer.Argument(help="The model that shoots.", show_default=False)]
WeaponOpt = Annotated[str | None, typer.Option(
    "--weapon", help="Missile weapon by name (default: the shooter's first).")]
OptionOpt = Annotated[list[str] | None, typer.Option(
    "--option", "-O", help="Ruleset option NAME=VALUE, over the file's (repeatable).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
ExplainOpt = Annotated[bool, typer.Option("--explain", help="Every reason of every target.")]

#: The rules that decide whether a target is legal, shown in the "because" column.
LEGALITY = ("M1", "M3", "M4", "M5")


def load(file: Path, given: list[str] | None) -> tuple[Table, mordheim.MordheimOptions]:
    """The scenario's table, its options overridden by ``NAME=VALUE`` strings (YAML values),
    and the Mordheim options read from them."""
    table = scenario.load(file)
    values = option_pairs(given)
    if values:
        table = replace(table, options=tuple(sorted({**dict(table.options), **values}.items())))
    return table, mordheim.options(table)


_print_json = print_json


def _p(p: Fraction) -> str:
    return f"{p} ({float(p):.0%})" if p not in (0, 1) else str(p)


def _reasons(reasons: tuple[Reason, ...], indent: str = "  ") -> None:
    for r in reasons:
        out.print(f"{indent}[dim]{r.rule:3}[/] {r.text}")


def print_targets(table: Table, ruling: mordheim.TargetsRuling, *, explain: bool) -> None:
    """The shooter's verdict (M1), then one row a target: facts, score, odds, legality."""
    s = table.model(ruling.shooter)
    w = ruling.weapon
    arms = f"{w.name} {mordheim.length(table, w.range)}" if w and w.range else "no missile weapon"
    verdict = "[green]may shoot[/]" if ruling.may_shoot else "[red]may not shoot[/]"
    bs = "-" if ruling.bs is None else ruling.bs
    out.print(f"[bold]{s.id}[/] ({s.side}), {arms}, BS {bs}: {verdict}")
    _reasons(ruling.reasons)
    grid = RichTable(title=f"Targets of {s.id}, nearest first (unit: {table.unit.name}; "
                     "hit, on cover, miss: exact odds)", box=box.SIMPLE_HEAD,
                     title_justify="left", pad_edge=False, collapse_padding=True)
    for col in ("target", "seen", "dist", "range", "cover", "large",
                "need", "hit", "on cover", "miss", "legal"):
        grid.add_column(col, overflow="fold", no_wrap=True)
    for t in ruling.targets:
        rng = "-" if t.in_range is None else "out" if not t.in_range else (
            "long" if t.long_range else "short")
        need = "-" if t.score is None else mordheim.need_text(t.score, ruling.options,
                                                              t.in_range)
        odds = ("-", "-", "-") if t.odds is None else (
            str(t.odds.hit), str(t.odds.hit_cover), str(t.odds.miss))
        legal = ("[bold magenta]closest[/]" if t.closest else "[green]yes[/]") if t.legal \
            else "[red]no[/]"
        grid.add_row(
            t.target, f"{t.visible_fraction:.0%}" if t.visible else "[red]no[/]",
            f"{table.unit.from_mm(t.distance):.4g}", rng,
            (", ".join(t.cover_pieces) or "yes") if t.in_cover else "",
            "yes" if t.large else "", need, *odds, legal)
    out.print(grid)
    for t in ruling.targets:
        shown = t.reasons if explain else tuple(
            r for r in t.reasons if r.rule in LEGALITY and (
                r in t.refusals or r.rule in ("M3", "M5") or (r.rule == "M4" and t.legal)))
        verdict = "[green]legal[/]" if t.legal else "[red]not legal[/]"
        out.print(f"[bold]{t.target}[/]: {verdict}")
        _reasons(shown, "    ")


def print_shot(table: Table, result: mordheim.ShotResult) -> None:
    """The dice rolled, the outcome, the odds it had, and why (M4, M6, M7, M9, M11)."""
    shot = result.shot
    out.print(f"[bold]{result.shooter}[/] shoots [bold]{result.target}[/] with {result.weapon}")
    for d in result.log.dice:
        out.print(f"  die: {d.label}: d{d.sides} = [bold]{d.value}[/]")
    if not result.log.dice:
        out.print("  no dice: out of range")
    word = {"hit": f"[green]HIT[/] {result.hit}", "miss": "[red]MISS[/]",
            "hit_cover": "[yellow]HIT THE COVER[/]"}[result.outcome]
    out.print(f"  result: {word}" + (" (automatic: out of range)" if result.automatic else ""))
    odds = result.odds
    out.print(f"  odds: hit {_p(odds.hit)}, cover {_p(odds.hit_cover)}, miss {_p(odds.miss)}"
              + ("".join(f"; {m} {_p(p)}" for m, p in odds.allocation)
                 if len(shot.fight) > 1 else ""))
    out.print(f"  seed {result.log.seed}")
    _reasons(result.reasons)


def register(app: typer.Typer) -> None:
    """Add the Mordheim commands ``targets`` and ``shoot`` to ``app``."""

    @app.command()
    def targets(file: FileArg, shooter: ShooterArg, weapon: WeaponOpt = None,
                option: OptionOpt = None, explain: ExplainOpt = False,
                as_json: JsonOpt = False) -> None:
        """Whom a Mordheim shooter may shoot, the score it needs and its exact odds (M1-M10)."""
        table, opts = load(file, option)
        ruling = mordheim.targets(table, shooter, weapon=weapon, opts=opts)
        if as_json:
            _print_json(mordheim.document(table, opts, [ruling]))
        else:
            print_targets(table, ruling, explain=explain)

    @app.command()
    def shoot(file: FileArg, shooter: ShooterArg,
              target: Annotated[str, typer.Argument(help="The model shot at.",
                                                    show_default=False)],
              seed: Annotated[int, typer.Option("--seed", help="Seed of the dice (same seed, "
                                                "same roll).", show_default=False)],
              weapon: WeaponOpt = None, option: OptionOpt = None,
              as_json: JsonOpt = False) -> None:
        """Roll a Mordheim shot, logging every die; an illegal shot is refused (M1-M11)."""
        table, opts = load(file, option)
        result = mordheim.shoot(table, shooter, target, seed=seed, weapon=weapon, opts=opts)
        if as_json:
            _print_json(mordheim.document(table, opts, [result]))
        else:
            print_shot(table, result)

    _ = (targets, shoot)
