"""Dark Age commands (a face): ``rolloff`` (D2)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from arbitre.faces.cli.common import print_json
from arbitre.rules import darkage
from arbitre.rules.ruling import JSON_VERSION

out = Console(highlight=False, soft_wrap=True)


def _fraction(f: object) -> dict[str, object]:
    return {"exact": str(f), "float": float(f)}  # type: ignore[arg-type]


def register(app: typer.Typer) -> None:
    """Add the Dark Age commands to ``app``."""

    @app.command()
    def rolloff(
        seed: Annotated[
            int, typer.Option("--seed", help="Seed of the dice (same seed, same roll).")
        ],
        players: Annotated[tuple[str, str], typer.Option("--players", help="The two players.")] = (
            "A",
            "B",
        ),
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """Roll off between two players (D2): D20 each, the lower decides, ties again."""
        result = darkage.rolloff(players, seed=seed)
        odds = darkage.rolloff_odds(players)
        if as_json:
            doc = {
                "arbitre": JSON_VERSION,
                "rules": "darkage",
                "decides": result.decides,
                "log": result.log.to_json(),
                "reasons": [r.to_json() for r in result.reasons],
                "odds": {
                    players[0]: _fraction(odds.first),
                    players[1]: _fraction(odds.second),
                    "tie_each_round": _fraction(odds.tie),
                    "mean_rounds": _fraction(odds.rounds),
                },
            }
            print_json(doc)
            return
        for reason in result.reasons:
            out.print(f"{reason.rule} {reason.text}")
        out.print(
            f"odds: {players[0]} decides {odds.first} ({float(odds.first):.1%}), "
            f"{players[1]} {odds.second}; a tie each round {odds.tie}, "
            f"{odds.rounds} rounds on average"
        )
