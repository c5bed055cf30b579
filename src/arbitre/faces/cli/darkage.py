"""Dark Age commands (a face): ``rolloff`` (D2) and ``activation`` (D1). They parse, ask
the registry, print; no rule lives here."""

from __future__ import annotations

from typing import Annotated

import typer

from arbitre.faces.cli.common import (
    MAX_BYTES,
    FileArg,
    JsonOpt,
    MaxBytesOpt,
    OptionOpt,
    RulesOpt,
    SeedOpt,
    ask_file,
    command,
    esc,
    option_pairs,
    out,
    print_json,
    print_reasons,
    seed_line,
)
from arbitre.rules import ask

PANEL = "Dark Age"


def rolloff(
    seed: SeedOpt = None,
    players: Annotated[
        tuple[str, str], typer.Option("--players", metavar="A B", help="The two players.")
    ] = ("A", "B"),
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            metavar="NAME",
            help="Ruleset that answers (default: the one that rolls off).",
            show_default=False,
        ),
    ] = None,
    option: OptionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Roll off between two players (D2): D20 each, the lower decides, ties again."""
    answer = ask(
        None, "rolloff", rules=rules, options=option_pairs(option), players=players, seed=seed
    )
    if as_json:
        print_json(answer.to_json())
        return
    ruling = answer.ruling
    for reason in ruling.reasons:
        out.print(f"{esc(reason.rule)} {esc(reason.text)}")
    (first, second), odds = ruling.players, ruling.odds
    out.print(
        f"odds: {esc(first)} decides {odds.first} ({float(odds.first):.1%}), "
        f"{esc(second)} {odds.second}; a tie each round {odds.tie}, "
        f"{odds.rounds} rounds on average"
    )
    out.print(seed_line(ruling.seed))


def activation(
    file: FileArg,
    model: Annotated[
        str, typer.Argument(metavar="MODEL", help="The model activated.", show_default=False)
    ],
    actions: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="ACTION",
            help="Actions spent in order (move, attack, skill, psychogenics; end: stop).",
            show_default=False,
        ),
    ] = None,
    ap: Annotated[
        int | None,
        typer.Option(
            "--ap",
            metavar="N",
            help="Action points (default: the model's ap stat).",
            show_default=False,
        ),
    ] = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
    as_json: JsonOpt = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
) -> None:
    """Spend a model's action points (D1): what each action cost, what is left or lost."""
    _, answer = ask_file(
        file,
        "activation",
        rules=rules,
        option=option,
        max_bytes=max_bytes,
        model=model,
        actions=tuple(actions or ()),
        ap=ap,
    )
    if as_json:
        print_json(answer.to_json())
        return
    r = answer.ruling
    spent = ", ".join(f"{esc(action)} {cost}" for action, cost in r.spent) or "nothing"
    state = f"over, {r.lost} AP lost" if r.ended else f"{r.left} AP left"
    out.print(f"[bold]{esc(r.model)}[/]: {r.ap} AP, spent {spent}; {state}")
    print_reasons(r.reasons)
    if r.refusals:
        out.print("[red]refused[/]:")
        print_reasons(r.refusals)


def register(app: typer.Typer) -> None:
    """Add the Dark Age commands to ``app``."""
    for fn in (rolloff, activation):
        command(app, fn, PANEL)
