"""The ``breath`` command of ``arbitre`` (B1-B10): parses, calls the library, prints.

:func:`register` adds it to a typer app; user mistakes are raised as
:class:`~arbitre.errors.ArbitreError` for the app's ``main`` to print as one line.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.table import Table as RichTable

from arbitre import scenario, templates
from arbitre.dice import Distribution
from arbitre.errors import ArbitreError, RulesError
from arbitre.faces.cli.common import print_json
from arbitre.geometry import Point
from arbitre.rules import breath as rules
from arbitre.table import Table

out = Console(highlight=False, soft_wrap=True)


_print_json = print_json


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


def _blast(table: Table, text: str) -> templates.Blast:
    parts = text.replace(";", ",").split(",")
    try:
        x, y, r = (float(p) for p in parts)
    except ValueError:
        raise RulesError(f"--blast {text!r}: expected X,Y,RADIUS in {table.unit.name}, "
                         "e.g. --blast 300,200,3") from None
    u = table.unit
    blast = templates.Blast(Point(u.to_mm(x), u.to_mm(y)), u.to_mm(r))
    templates.check_blast(blast)
    return blast


def _template(table: Table, shooter: str, angle: float | None, toward: str | None,
              blast: str | None) -> templates.Template:
    if blast is not None:
        return _blast(table, blast)
    if toward is not None:
        angle = templates.aim_at(table, shooter, toward)
    assert angle is not None
    return templates.place_cone(table, shooter, angle)


def print_ruling(table: Table, r: rules.BreathRuling) -> None:
    """Victims in order with distance, cover, the exact law and mean of HP lost."""
    u, n = table.unit, r.weapon.notation
    out.print(f"[bold]{r.shooter}[/]: {r.weapon.name} - {n.french()}  [dim]({n.english()})[/]")
    t = r.template
    if isinstance(t, templates.Cone):
        out.print(f"cone aimed at {t.angle:.4g} degrees, apex ({u.from_mm(t.apex.x):.4g}, "
                  f"{u.from_mm(t.apex.y):.4g}) {u.name}")
    else:
        out.print(f"blast at ({u.from_mm(t.centre.x):.4g}, {u.from_mm(t.centre.y):.4g}), "
                  f"radius {u.from_mm(t.radius):.4g} {u.name}")
    if r.plan.dice is not None:
        out.print(f"{r.plan.dice} dice (Tir + 5) start the chain (B6)")
    grid = RichTable(title=f"Victims, nearest first ({sum(v.in_area for v in r.victims)} in "
                           f"the template; distances in {u.name})", box=box.SIMPLE_HEAD,
                     pad_edge=False)
    rolled = n.rolls
    cols = ["#", "model", "side", "dist", "cover", "prot", "p"]
    cols += ["mean", "p>=1", "p out"] if rolled else []
    for col in cols:  # numbers never wrap nor shrink; long names fold
        names = col in ("model", "side")
        grid.add_column(col, no_wrap=not names, overflow="fold" if names else "ignore",
                        min_width=None if names else len(col))
    for v in r.victims:
        num = (str(v.rank) + ("=" if v.tied_with else "")) if v.in_area else "B8"
        dist = f"{u.from_mm(v.distance):.2f}" if v.distance is not None else "-"
        row = [num, v.id, v.side, dist, f"+{v.cover}" if v.cover else "-", str(v.protection),
               _pct(v.p_affected)]
        if rolled:
            row += [_num(v.mean), _pct(v.p_wounded),
                    "" if v.p_out is None else _pct(v.p_out)]
        grid.add_row(*row)
    out.print(grid)
    if rolled:
        out.print("[dim]p: chance of being affected; mean: HP lost on average; p>=1: chance "
                  "of losing some; p out: of losing all its hp[/]")
        out.print("exact law of HP lost (HP: chance; fractions in --json):")
        for v in r.victims:
            out.print(f"  {v.id}: {_law(v.hp_lost)}")
    else:
        out.print(f"every model affected is [bold]{n.state}[/]; nothing is rolled (B4)")
    for v in r.victims:
        if not v.in_area:
            out.print(f"  {v.id}: reached by a melee spill from {', '.join(v.via)} "
                      f"({_pct(v.p_affected)}, B8)")
    if r.shielded:
        out.print(f"shielded by large terrain (B3): {', '.join(r.shielded)}")
    what = "affected" if not rolled else "HP lost"
    out.print(f"expected {what}, enemies minus friends: [bold]{float(r.value):.4g}[/] "
              f"({r.value})")
    for reason in r.reasons:
        out.print(f"  [dim]{reason.rule:4}[/] {reason.text}")


def print_roll(result: rules.BreathRoll) -> None:
    """The roll: what each model got, then every die of the log, grouped by label."""
    grid = RichTable(title=f"Roll (seed {result.log.seed}), in resolution order",
                     box=box.SIMPLE_HEAD)
    for col in ("step", "model", "dice", "hits", "HP lost", "via"):
        grid.add_column(col)
    for k, h in enumerate(result.hits, start=1):
        grid.add_row(str(k), h.model, "-" if h.dice is None else str(h.dice),
                     "-" if h.hits is None else str(h.hits),
                     h.state if h.state else str(h.hp_lost), h.via or "")
    out.print(grid)
    for label, group in itertools.groupby(result.log.dice, key=lambda d: d.label):
        dice = list(group)
        out.print(f"  {label}: {' '.join(str(d.value) for d in dice)}"
                  + (f"  [dim](d{dice[0].sides})[/]" if dice[0].sides != 6 else ""))


def print_best(found: rules.BestAim) -> None:
    def line(a: rules.Aim) -> str:
        ties = [g for g in a.ties if len(g) > 1]
        extra = f" (tied: {'; '.join(', '.join(g) for g in ties)})" if ties else ""
        return (f"{a.angle:.4g} degrees (any aim from {a.start % 360:.4g} to "
                f"{a.end % 360:.4g}, {a.end - a.start:.3g} degrees wide): value "
                f"{float(a.value):.4g}; victims {', '.join(a.victims) or 'none'}{extra}")

    out.print(f"[bold]best aim[/]: {line(found.best)}")
    if found.runner_up is not None:
        out.print(f"runner-up: {line(found.runner_up)}")
    out.print(f"[dim]searched exactly: {found.critical} critical aims, {found.arcs} arcs[/]")


def breath(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML or JSON).",
                                         show_default=False)],
    shooter: Annotated[str, typer.Argument(help="Id of the model that breathes.",
                                           show_default=False)],
    weapon: Annotated[str, typer.Option("--weapon", "-w", help=(
        "Breath weapon name, or a B4 notation such as "
        "'Souffle englobant (acide • puissance 5/2)'."), show_default=False)],
    angle: Annotated[float | None, typer.Option(
        "--angle", help="Aim in degrees, counter-clockwise from +x.")] = None,
    toward: Annotated[str | None, typer.Option(
        "--toward", help="Aim the cone's axis at this model's centre.")] = None,
    best: Annotated[bool, typer.Option(
        "--best", help="Search every aim for the most HP lost by enemies minus friends.")
    ] = False,
    blast: Annotated[str | None, typer.Option(
        "--blast", help="A B10 blast instead of a cone: X,Y,RADIUS in the scenario's unit.")
    ] = None,
    seed: Annotated[int | None, typer.Option(
        "--seed", help="Roll it: the seed of the logged dice.")] = None,
    order: Annotated[str | None, typer.Option(
        "--order", help="The order given with the shot (B9: never Vae victis).")] = None,
    svg: Annotated[Path | None, typer.Option(
        "--svg", help="Also draw the table, the template and the victims to this SVG.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")
    ] = False,
) -> None:
    """Rule a breath weapon (B1-B10): victims in order, exact odds of HP lost, a roll."""
    given = [x for x, on in (("--angle", angle is not None), ("--toward", toward is not None),
                             ("--best", best), ("--blast", blast is not None)) if on]
    if len(given) != 1:
        raise RulesError("give exactly one of --angle DEG, --toward ID, --best, --blast X,Y,R"
                         + (f" (got {', '.join(given)})" if given else ""))
    if seed is not None and seed < 0:
        raise RulesError(f"--seed must be >= 0, got {seed}")
    table = scenario.load(file)
    found = None
    if best:
        found = rules.best(table, shooter, weapon, order=order)
        ruling = found.ruling
    else:
        ruling = rules.rule(table, shooter, weapon,
                            _template(table, shooter, angle, toward, blast), order=order)
    result = rules.roll(ruling, seed) if seed is not None else None
    if svg is not None:
        from arbitre.faces.svg.breath import breath_overlay
        from arbitre.faces.svg.table import render_table

        title = f"{table.name + ': ' if table.name else ''}{ruling.weapon.name} of {shooter}"
        text = render_table(table, title=title,
                            overlays=[breath_overlay(table, ruling, result)])
        try:
            svg.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ArbitreError(f"cannot write {svg}: {exc.strerror or exc}") from None
    if as_json:
        doc: dict[str, Any] = rules.ruling_json(table, ruling)
        if found is not None:
            doc["best"] = rules.aim_json(found.best)
            doc["runner_up"] = None if found.runner_up is None else rules.aim_json(
                found.runner_up)
            doc["search"] = {"critical": found.critical, "arcs": found.arcs}
        if result is not None:
            doc["roll"] = rules.roll_json(result)
        _print_json(rules.document(table, [doc]))
        return
    if found is not None:
        print_best(found)
    print_ruling(table, ruling)
    if result is not None:
        print_roll(result)
    if svg is not None:
        out.print(f"drawn: {svg}")


def register(app: typer.Typer) -> None:
    """Add the ``breath`` command to ``app``."""
    app.command("breath")(breath)


__all__ = ["breath", "register"]
