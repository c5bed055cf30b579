"""The ``arbitre`` command: parses, asks the library, prints. No rule lives here.

Every user mistake is an :class:`ArbitreError`, turned into one line on stderr and exit
code 2 in :func:`main`, the one place that does so. Each ruleset's commands live in a
module of their own; :mod:`arbitre.faces.cli.table` holds the commands every table shares.
"""

from __future__ import annotations

import contextvars
import gc
import sys
import traceback
from collections.abc import Sequence
from typing import Annotated

import typer

from arbitre import progress
from arbitre.cli import arbitre_version
from arbitre.errors import ArbitreError
from arbitre.faces.cli import breath, darkage, imports, maps, mordheim, places, serve, table
from arbitre.faces.cli.common import Command, Group, RootLangOpt, pruned, start_language
from arbitre.i18n import N_, T_, Count

app = typer.Typer(
    name="arbitre",
    cls=Group,
    help=N_("A referee engine for skirmish miniature wargames."),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _module in (table, mordheim, breath, darkage, places, serve, imports, maps):
    _module.register(app)
for _info in app.registered_commands:  # every command's help without type placeholders
    if _info.cls is None or not issubclass(_info.cls, Command):
        _info.cls = Command


def _show_version(value: bool) -> None:
    if value:
        print(f"arbitre {arbitre_version()}")
        raise typer.Exit(0)


@app.callback()
def _root(
    _version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help=N_("Print the version.")
        ),
    ] = False,
    _debug: Annotated[
        bool, typer.Option("--debug", help=N_("Show the traceback of an unexpected error."))
    ] = False,
    _lang: RootLangOpt = None,
) -> None:
    """A referee engine for skirmish miniature wargames."""


#: The longest error message printed: a user's 100,000-character id is not echoed whole.
MESSAGE_CHARS = 4_000


def _bounded(message: str) -> str:
    """``message``, each line cut at 300 characters and the whole at :data:`MESSAGE_CHARS`."""
    lines = [line if len(line) <= 300 else line[:297] + "..." for line in message.splitlines()]
    text = "\n".join(lines)
    if len(text) > MESSAGE_CHARS:
        more = T_("... ({n} more characters)", n=Count(len(text) - MESSAGE_CHARS))
        text = text[:MESSAGE_CHARS] + f"\n{more}"
    return text


#: Exit code of an unexpected error (a bug): sysexits' EX_SOFTWARE.
BUG = 70


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; library errors become one line and exit code 2, an
    unexpected error one line asking for a report and exit code 70 (its traceback only
    with ``--debug``). The language chosen for it does not outlive it."""
    args = list(argv) if argv is not None else sys.argv[1:]
    return contextvars.copy_context().run(_main, args)


def _on_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _main(args: list[str]) -> int:
    try:
        start_language(args=args)
        with progress.shown(_on_terminal()):  # bars for a person, on stderr only
            pruned(app, args)(args=args, standalone_mode=False)  # built: what runs
    except ArbitreError as exc:
        print(T_("arbitre: {message}", message=_bounded(str(exc))), file=sys.stderr)
        return 2
    except typer.Exit as exc:
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        print(T_("arbitre: aborted"), file=sys.stderr)
        return 130
    except Exception as exc:
        # usage errors (bad option, missing argument) come from typer's click and say
        # what is wrong themselves; anything else is a bug
        show, code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        if callable(show) and isinstance(code, int):
            show()
            return code
        if "--debug" in args:
            traceback.print_exc()
        print(
            T_(
                "arbitre {version}: unexpected error ({error}: {message}); please report it "
                "with the command and the file (--debug shows the traceback)",
                version=arbitre_version(),
                error=type(exc).__name__,
                message=str(exc)[:200],
            ),
            file=sys.stderr,
        )
        return BUG
    return 0


def run() -> None:
    """Run the command line on ``sys.argv`` and exit the process with its code.

    The process is the command's: the collector's youngest threshold was raised for it
    (:func:`arbitre.cli.collect_less`, by :func:`arbitre.cli.run` before this module was
    imported), and what is left when the command is done is frozen
    (:func:`gc.freeze`) before the interpreter exits, so that its last collections do not
    walk every object of numpy, shapely, pydantic and the table again (~0.1 s of
    ``arbitre los`` on the demo table). Objects outside reference cycles are still freed
    as the modules are cleared; those in cycles are left to the operating system, their
    finalizers not run: none has anything to write (every file a command writes is
    closed before the command returns, and the standard streams are flushed as ever)."""
    try:
        code = main()
    finally:
        gc.freeze()
    sys.exit(code)
