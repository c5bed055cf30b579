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
from arbitre.i18n import N_, T_, TN_, Num, _, join

PANEL = N_("Dark Age")

#: The D1 actions in words (a verb), as the rulings word them; the id itself in English.
ACTIONS = {
    "move": N_("move"),
    "attack": N_("attack"),
    "skill": N_("skill"),
    "psychogenics": N_("psychogenics"),
}


def _action(action: str) -> str:
    """An action's name in the language spoken (any other action as it is named)."""
    return _(ACTIONS[action]) if action in ACTIONS else action


def rolloff(
    seed: SeedOpt = None,
    players: Annotated[
        tuple[str, str], typer.Option("--players", metavar="A B", help=N_("The two players."))
    ] = ("A", "B"),
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            metavar="NAME",
            help=N_("Ruleset that answers (default: the one that rolls off)."),
            show_default=False,
        ),
    ] = None,
    option: OptionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Roll off between two players (D2): D20 each, the lower decides, ties again."""
    from arbitre.rules import ask

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
    line = T_(
        "odds: {first} decides {p} ({percent}%), {second} {q}; a tie each round {tie}, "
        "{rounds} rounds on average",
        first=first,
        p=odds.first,
        percent=Num(100 * float(odds.first), ".1f"),
        second=second,
        q=odds.second,
        tie=odds.tie,
        rounds=odds.rounds,
    )
    out.print(esc(str(line)))
    out.print(seed_line(ruling.seed))


def activation(
    file: FileArg,
    model: Annotated[
        str, typer.Argument(metavar="MODEL", help=N_("The model activated."), show_default=False)
    ],
    actions: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="ACTION",
            help=N_("Actions spent in order (move, attack, skill, psychogenics; end: stop)."),
            show_default=False,
        ),
    ] = None,
    ap: Annotated[
        int | None,
        typer.Option(
            "--ap",
            metavar="N",
            help=N_("Action points (default: the model's ap stat)."),
            show_default=False,
        ),
    ] = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
    as_json: JsonOpt = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
) -> None:
    """Spend a model's action points (D1): what each action cost, what is left or lost."""
    _table, answer = ask_file(
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
    spent = join(
        (T_("{action} {cost}", action=esc(_action(a)), cost=c) for a, c in r.spent),
        empty=N_("nothing"),
    )
    if r.ended:
        state = TN_("over, {lost} AP lost", "over, {lost} AP lost", "lost", lost=r.lost)
    else:
        state = TN_("{left} AP left", "{left} AP left", "left", left=r.left)
    bold = f"[bold]{esc(r.model)}[/]"
    out.print(
        str(
            T_(
                "{model}: {ap} AP, spent {spent}; {state}",
                model=bold,
                ap=r.ap,
                spent=spent,
                state=state,
            )
        )
    )
    print_reasons(r.reasons)
    if r.refusals:
        out.print(_("[red]refused[/]:"))
        print_reasons(r.refusals)


def register(app: typer.Typer) -> None:
    """Add the Dark Age commands to ``app``."""
    command(
        app,
        rolloff,
        PANEL,
        N_("Roll off between two players (D2): D20 each, the lower decides, ties again."),
    )
    command(
        app,
        activation,
        PANEL,
        N_("Spend a model's action points (D1): what each action cost, what is left or lost."),
    )
