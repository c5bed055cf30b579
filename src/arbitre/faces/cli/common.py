"""What every command module shares (a face): the common arguments, loading a file and
asking the registry, JSON output, writing files. No rule lives here."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.console import Console

from arbitre.errors import ArbitreError, RulesError
from arbitre.files import load
from arbitre.rules import Answer, ask

#: Human output: no highlighting guesses, long lines wrapped by the terminal.
out = Console(highlight=False, soft_wrap=True)

FileArg = Annotated[Path, typer.Argument(help="Scenario file (YAML or JSON).", show_default=False)]
RulesOpt = Annotated[
    str | None,
    typer.Option("--rules", help="Ruleset (default: the scenario's `rules`).", show_default=False),
]
OptionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        "-O",
        help="Ruleset option NAME=VALUE over the file's (repeatable).",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON 2 instead of tables.")]
ExplainOpt = Annotated[bool, typer.Option("--explain", help="Every reason in full.")]
SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", help="Seed of the dice (same seed, same roll).", show_default=False),
]


def print_json(doc: object) -> None:
    """Machine output: plain JSON on stdout, no colours."""
    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def option_pairs(given: Sequence[str] | None) -> dict[str, object]:
    """``NAME=VALUE`` strings from the command line, values read as YAML (``true``, ``2``)."""
    values: dict[str, object] = {}
    for item in given or []:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise RulesError(f"option {item!r}: expected NAME=VALUE")
        try:
            values[name.strip()] = yaml.safe_load(text)
        except yaml.YAMLError:
            values[name.strip()] = text
    return values


def ask_file(
    file: Path,
    question: str,
    *,
    rules: str | None = None,
    option: Sequence[str] | None = None,
    **request: Any,
) -> tuple[Any, Answer]:
    """Load ``file`` (a table or a places map), ask ``question`` of it through the registry
    with the ``-O`` options given; the subject and the answer."""
    subject = load(file)
    return subject, ask(subject, question, rules=rules, options=option_pairs(option), **request)


def show(answer: Answer, as_json: bool, human: Callable[[Answer], None]) -> None:
    """The answer as its JSON 2 document, or for people by ``human``."""
    if as_json:
        print_json(answer.to_json())
    else:
        human(answer)


def write_text(path: Path, text: str) -> None:
    """Write a file the user asked for; a failure is one clear error."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ArbitreError(f"cannot write {path}: {exc.strerror or exc}") from None


def print_reasons(reasons: Sequence[Any], indent: str = "  ") -> None:
    """Reasons (or refusals) one a line: the rule ID, then the words."""
    for r in reasons:
        out.print(f"{indent}[dim]{r.rule:3}[/] {r.text}")
