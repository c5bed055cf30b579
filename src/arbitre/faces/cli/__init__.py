"""The ``arbitre`` command: parses, asks the library, prints. No rule lives here.

Every user mistake is an :class:`ArbitreError`, turned into one line on stderr and exit
code 2 in :func:`main`, the one place that does so. Each ruleset's commands live in a
module of their own; :mod:`arbitre.faces.cli.table` holds the commands every table shares.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from arbitre.errors import ArbitreError
from arbitre.faces.cli import breath, darkage, mordheim, places, table

app = typer.Typer(
    name="arbitre",
    help="A referee engine for skirmish miniature wargames.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _module in (table, mordheim, breath, darkage, places):
    _module.register(app)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; library errors become one line and exit code 2."""
    try:
        app(args=list(argv) if argv is not None else None, standalone_mode=False)
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
