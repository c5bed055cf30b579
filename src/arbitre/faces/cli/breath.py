"""The ``breath`` command of ``arbitre`` (B1-B10), a face: it parses, asks the registry
(the ``breath`` question, or ``blast`` with ``--blast``), and prints the ruling's fields.

:func:`register` adds it to a typer app; user mistakes are raised as
:class:`~arbitre.errors.ArbitreError` for the app's ``main`` to print as one line.
"""

from __future__ import annotations

import itertools
import secrets
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, TypeAlias

import typer

from arbitre.dice import Distribution
from arbitre.errors import RulesError
from arbitre.faces.cli.common import (
    IO_PANEL,
    MAX_BYTES,
    FileArg,
    JsonOpt,
    MaxBytesOpt,
    OptionOpt,
    QuietOpt,
    RulesOpt,
    ask_file,
    check_picture,
    command,
    esc,
    out,
    print_json,
    seed_line,
    warn,
    write_picture,
)
from arbitre.faces.cli.grid import Col, print_grid
from arbitre.rules import Answer
from arbitre.table import MM, Unit
from arbitre.templates import Cone

#: The breath ruleset's values, read by field (a face imports no ruleset).
BreathRuling: TypeAlias = Any
BreathRoll: TypeAlias = Any
Aim: TypeAlias = Any

PANEL = "Breath"


def _pct(p: Fraction) -> str:
    """A probability for people: exact 0 and 100%, never a rounded 0 or 100 otherwise."""
    if p in (0, 1):
        return f"{float(p):.0%}"
    f = float(p)
    return "<0.1%" if f < 0.001 else ">99.9%" if f > 0.999 else f"{f:.1%}"


def _num(x: Fraction) -> str:
    return "<0.01" if 0 < x < Fraction(1, 100) else f"{float(x):.2f}"


def _law(d: Distribution[int]) -> str:
    return "  ".join(f"{o}: {_pct(p)}" for o, p in d.probabilities().items())


def _blast(text: str) -> tuple[tuple[float, float], float]:
    parts = text.replace(";", ",").split(",")
    try:
        x, y, r = (float(p) for p in parts)
    except ValueError:
        raise RulesError(
            f"--blast {text!r}: expected X,Y,RADIUS in the scenario's unit, e.g. --blast 300,200,3"
        ) from None
    return (x, y), r


def _weapon_line(r: BreathRuling) -> str:
    """The weapon's name, then its notation once: French, then English in brackets."""
    w = r.weapon
    head = f"{w.name} - " if w.name != w.french else ""
    english = f"  ({w.english})" if w.english != w.french else ""
    return f"[bold]{esc(r.shooter)}[/]: {esc(head)}{esc(w.french)}{esc(english)}"


def _template_line(unit: Unit, r: BreathRuling) -> str:
    t, u = r.template, unit
    if isinstance(t, Cone):
        rim = "" if t.rim is None else f" at {t.rim:.4g} degrees on the rim"
        return (
            f"cone aimed at {t.angle:.4g} degrees, apex ({u.from_mm(t.apex.x):.4g}, "
            f"{u.from_mm(t.apex.y):.4g}) {u.name}{rim}"
        )
    return (
        f"blast at ({u.from_mm(t.centre.x):.4g}, {u.from_mm(t.centre.y):.4g}), "
        f"radius {u.from_mm(t.radius):.4g} {u.name}"
    )


VICTIM_COLUMNS = (
    Col("#"),
    Col("model"),
    Col("side"),
    Col("dist", right=True),
    Col("cover"),
    Col("prot", right=True),
    Col("p", right=True),
)
ROLLED_COLUMNS = (Col("mean", right=True), Col("p>=1", right=True), Col("p out", right=True))


def _victims_grid(unit: Unit, r: BreathRuling) -> None:
    """The victims, nearest first: rank, distance, cover, Protection, odds."""
    rolled = r.weapon.notation.rolls
    rows = []
    for v in r.victims:
        num = (str(v.rank) + ("=" if v.tied_with else "")) if v.in_area else "B8"
        dist = f"{unit.from_mm(v.distance):.2f}" if v.distance is not None else "-"
        row = [
            num,
            esc(v.id),
            esc(v.side),
            dist,
            f"+{v.cover}" if v.cover else "-",
            str(v.protection),
            _pct(v.p_affected),
        ]
        if rolled:
            row += [_num(v.mean), _pct(v.p_wounded), "" if v.p_out is None else _pct(v.p_out)]
        rows.append(row)
    print_grid(
        out,
        VICTIM_COLUMNS + (ROLLED_COLUMNS if rolled else ()),
        rows,
        title=f"Victims, nearest first ({sum(v.in_area for v in r.victims)} in "
        f"the template; distances in {unit.name})",
        key=2,
        joiner=" ",
    )


def print_ruling(unit: Unit, r: BreathRuling) -> None:
    """Victims in order with distance, cover, the exact law and mean of HP lost."""
    out.print(_weapon_line(r))
    out.print(_template_line(unit, r))
    if r.dice is not None:
        out.print(f"{r.dice} dice (Tir + 5) start the chain (B6)")
    _victims_grid(unit, r)
    rolled = r.weapon.notation.rolls
    if rolled:
        out.print(
            "[dim]p: chance of being affected; mean: HP lost on average; p>=1: chance "
            "of losing some; p out: of losing all its hp[/]"
        )
        out.print("exact law of HP lost (HP: chance; fractions in --json):")
        for v in r.victims:
            out.print(f"  {esc(v.id)}: {_law(v.hp_lost)}")
    else:
        out.print(
            f"every model affected is [bold]{r.weapon.notation.state}[/]; nothing is rolled (B4)"
        )
    for v in r.victims:
        if not v.in_area:
            out.print(
                f"  {esc(v.id)}: reached by a melee spill from {esc(', '.join(v.via))} "
                f"({_pct(v.p_affected)}, B8)"
            )
    if r.shielded:
        out.print(f"shielded by large terrain (B3): {esc(', '.join(r.shielded))}")
    what = "affected" if not rolled else "HP lost"
    out.print(f"expected {what}, enemies minus friends: [bold]{float(r.value):.4g}[/] ({r.value})")
    if r.margin.mm is not None:
        mark = " [bold red]close call[/]: measure with care" if r.margin.close else ""
        out.print(f"margin {unit.length(r.margin.mm)} ({esc(r.margin.test)}, G8){mark}")
    for reason in r.reasons:
        out.print(f"  [dim]{esc(reason.rule):4}[/] {esc(reason.text)}")


def print_roll(roll: BreathRoll) -> None:
    """The roll: what each model got, then every die of the log, grouped by label."""
    cols = (
        Col("step"),
        Col("model"),
        Col("dice", right=True),
        Col("hits", right=True),
        Col("HP lost", right=True),
        Col("via"),
    )
    rows = [
        [
            str(k),
            esc(h.model),
            "-" if h.dice is None else str(h.dice),
            "-" if h.hits is None else str(h.hits),
            esc(h.state) if h.state else str(h.hp_lost),
            esc(h.via or ""),
        ]
        for k, h in enumerate(roll.hits, start=1)
    ]
    print_grid(
        out,
        cols,
        rows,
        title=f"Roll (seed {roll.log.seed}), in resolution order",
        key=2,
        joiner=" ",
    )
    for label, group in itertools.groupby(roll.log.dice, key=lambda d: d.label):
        dice = list(group)
        sides = f"  [dim](d{dice[0].sides})[/]" if dice[0].sides != 6 else ""
        out.print(f"  {esc(label)}: {' '.join(str(d.value) for d in dice)}{sides}")
    out.print(seed_line(roll.log.seed))


def _aim_line(a: Aim) -> str:
    ties = [g for g in a.ties if len(g) > 1]
    extra = esc(f" (tied: {'; '.join(', '.join(g) for g in ties)})") if ties else ""
    apex = "" if a.apex is None else f"apex at {a.apex:.4g} degrees on the rim, "
    return (
        f"{apex}axis {a.angle:.4g} degrees (any axis from {a.start % 360:.4g} to "
        f"{a.end % 360:.4g} there, {a.width:.3g} degrees wide): value "
        f"{float(a.value):.4g}; victims {esc(', '.join(a.victims) or 'none')}{extra}"
    )


def print_best(r: BreathRuling) -> None:
    """The best aim found, its runner-up, and the size of the exact search."""
    if r.best is not None:
        out.print(f"[bold]best aim[/]: {_aim_line(r.best)}")
    if r.runner_up is not None:
        out.print(f"runner-up: {_aim_line(r.runner_up)}")
    if r.search is not None:
        found = (
            f"{r.search.critical} critical apexes, {r.search.slices} slices, "
            f"{r.search.arcs} cells of constant victims"
        )
        out.print(f"[dim]searched exactly: {found}[/]")


def _ask(
    file: Path,
    shooter: str,
    weapon: str | None,
    aim: dict[str, Any],
    blast: str | None,
    common: dict[str, Any],
) -> tuple[Any, Answer]:
    """Ask the ``blast`` question with ``--blast``, else ``breath`` with the aim given."""
    given = [f"--{k}" for k, v in aim.items() if v is not None and v is not False]
    given += ["--blast"] if blast is not None else []
    if len(given) != 1:
        raise RulesError(
            "give exactly one of --angle DEG, --toward ID, --best, --blast X,Y,R"
            + (f" (got {', '.join(given)})" if given else "")
        )
    if blast is not None:
        if "apex" in common:
            raise RulesError("--apex places a cone's apex on the rim (B2); a blast has none")
        at, radius = _blast(blast)
        return ask_file(
            file, "blast", shooter=shooter, weapon=weapon, at=at, radius=radius, **common
        )
    return ask_file(file, "breath", shooter=shooter, weapon=weapon, **aim, **common)


#: Help panel of the aim options (one of them is given).
AIM_PANEL = "Aim (give one)"

ShooterArg = Annotated[
    str,
    typer.Argument(metavar="SHOOTER", help="Id of the model that breathes.", show_default=False),
]
WeaponOpt = Annotated[
    str | None,
    typer.Option(
        "--weapon",
        "-w",
        metavar="NAME",
        help="Breath weapon name, or a B4 notation such as "
        "'Souffle englobant (acide • puissance 5/2)' (default: the model's only one).",
        show_default=False,
    ),
]
AngleOpt = Annotated[
    float | None,
    typer.Option(
        "--angle",
        metavar="DEG",
        help="Aim in degrees, counter-clockwise from +x.",
        rich_help_panel=AIM_PANEL,
    ),
]
TowardOpt = Annotated[
    str | None,
    typer.Option(
        "--toward",
        metavar="ID",
        help="Aim the cone's axis at this model's centre.",
        rich_help_panel=AIM_PANEL,
    ),
]
ApexOpt = Annotated[
    float | None,
    typer.Option(
        "--apex",
        metavar="DEG",
        help="Where the apex sits on the shooter's rim, degrees from its centre "
        "(default: the aim direction); with --angle or --toward.",
        rich_help_panel=AIM_PANEL,
    ),
]
BestOpt = Annotated[
    bool,
    typer.Option(
        "--best",
        help="Search every placement (apex and axis) for the most HP lost by enemies "
        "minus friends.",
        rich_help_panel=AIM_PANEL,
    ),
]
BlastOpt = Annotated[
    str | None,
    typer.Option(
        "--blast",
        metavar="X,Y,R",
        help="A B10 blast instead of a cone: X,Y,RADIUS in the scenario's unit.",
        rich_help_panel=AIM_PANEL,
    ),
]
BreathSeedOpt = Annotated[
    int | None,
    typer.Option(
        "--seed",
        metavar="N",
        help="Roll with this seed (same seed, same roll).",
        show_default=False,
    ),
]
RollOpt = Annotated[
    bool,
    typer.Option("--roll", help="Roll it too, with a fresh seed (printed); --seed N rolls N."),
]
OrderOpt = Annotated[
    str | None,
    typer.Option(
        "--order", metavar="ORDER", help="The order given with the shot (B9: never Vae victis)."
    ),
]
SvgOpt = Annotated[
    Path | None,
    typer.Option(
        "--svg",
        metavar="FILE",
        help="Also draw the table, the template and the victims (.svg, or .png).",
        rich_help_panel=IO_PANEL,
    ),
]


def breath(
    file: FileArg,
    shooter: ShooterArg,
    weapon: WeaponOpt = None,
    angle: AngleOpt = None,
    toward: TowardOpt = None,
    apex: ApexOpt = None,
    best: BestOpt = False,
    blast: BlastOpt = None,
    roll: RollOpt = False,
    seed: BreathSeedOpt = None,
    order: OrderOpt = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
    svg: SvgOpt = None,
    as_json: JsonOpt = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    quiet: QuietOpt = False,
) -> None:
    """Rule a breath weapon (B1-B10): victims in order, exact odds of HP lost; rolled with
    --roll or --seed."""
    if svg is not None:
        check_picture(svg)
    if roll and seed is None:
        seed = secrets.randbelow(2**32)
    table, answer = _ask(
        file,
        shooter,
        weapon,
        {"angle": angle, "toward": toward, "best": best},
        blast,
        {
            "seed": seed,
            "order": order,
            "rules": rules,
            "option": option,
            "max_bytes": max_bytes,
            **({"apex": apex} if apex is not None else {}),
        },
    )
    warn(table, quiet)
    ruling = answer.ruling
    if svg is not None:
        from arbitre.faces.svg.breath import breath_overlay
        from arbitre.faces.svg.table import render_table

        title = f"{table.name + ': ' if table.name else ''}{ruling.weapon.name} of {shooter}"
        picture = render_table(table, title=title, overlays=[breath_overlay(table, ruling)])
        write_picture(svg, picture)
    if as_json:
        print_json(answer.to_json())
        return
    if ruling.best is not None:
        print_best(ruling)
    print_ruling(answer.unit or MM, ruling)
    if ruling.roll is not None:
        print_roll(ruling.roll)
    if svg is not None:
        out.print(f"drawn: {esc(svg)}")


def register(app: typer.Typer) -> None:
    """Add the ``breath`` command to ``app``."""
    command(app, breath, PANEL, "breath")


__all__ = ["breath", "print_best", "print_roll", "print_ruling", "register"]
