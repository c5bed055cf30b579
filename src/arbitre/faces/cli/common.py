"""What every command module shares (a face): the common arguments, loading a file and
asking the registry, JSON output, writing files and pictures, help without type
placeholders. No rule lives here.

Tables for people are printed by :func:`arbitre.faces.cli.grid.print_grid`, which never
cuts a value; ids and other user text go through :func:`esc` before they are printed as
rich markup.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperArgument, TyperCommand, TyperGroup

from arbitre import i18n
from arbitre.constants import MAX_BYTES as MAX_BYTES
from arbitre.errors import ArbitreError, RulesError
from arbitre.i18n import T_

if TYPE_CHECKING:  # the engine is imported when a command runs, not for --help
    from arbitre.places import PlaceMap
    from arbitre.rules import Answer
    from arbitre.table import Table

#: Human output: no highlighting guesses, long lines left whole (the terminal folds them).
out = Console(highlight=False, soft_wrap=True)

#: The help panel of the options every command shares.
IO_PANEL = "Input and output"

FileArg = Annotated[
    Path,
    typer.Argument(metavar="FILE", help="Scenario file (YAML or JSON).", show_default=False),
]
RulesOpt = Annotated[
    str | None,
    typer.Option(
        "--rules",
        metavar="NAME",
        help="Ruleset that answers (default: the scenario's `rules`).",
        show_default=False,
    ),
]
OptionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        "-O",
        metavar="NAME=VALUE",
        help="Ruleset option over the file's (repeatable).",
        show_default=False,
    ),
]
JsonOpt = Annotated[
    bool,
    typer.Option("--json", help="Print JSON 2 instead of tables.", rich_help_panel=IO_PANEL),
]
ExplainOpt = Annotated[
    bool, typer.Option("--explain", help="Every reason in full.", rich_help_panel=IO_PANEL)
]
SeedOpt = Annotated[
    int | None,
    typer.Option(
        "--seed",
        metavar="N",
        help="Seed of the dice (same seed, same roll; default: a fresh one, printed).",
        show_default=False,
    ),
]
MaxBytesOpt = Annotated[
    int,
    typer.Option(
        "--max-bytes",
        metavar="N",
        help=f"Largest file read, in bytes (default {MAX_BYTES:,}).",
        show_default=False,
        rich_help_panel=IO_PANEL,
    ),
]
QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Do not print the warnings (plausible mistakes of the table) on stderr.",
        rich_help_panel=IO_PANEL,
    ),
]


def warn(subject: object, quiet: bool) -> None:
    """The table's warnings (:mod:`arbitre.sanity`), one line each on stderr, unless
    ``quiet``: they head a command's output and never go to stdout or into JSON."""
    from arbitre import sanity
    from arbitre.table import Table

    if quiet or not isinstance(subject, Table):
        return
    for caution in sanity.warnings(subject):
        print(T_("arbitre: warning: {caution}", caution=caution), file=sys.stderr)


def esc(text: object) -> str:
    """User text (an id, a name) made safe to print as rich markup."""
    return escape(str(text))


def print_json(doc: object) -> None:
    """Machine output: plain JSON on stdout, no colours."""
    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def option_pairs(given: Sequence[str] | None) -> dict[str, object]:
    """``NAME=VALUE`` strings from the command line, values read as YAML (``true``, ``2``)."""
    import yaml

    values: dict[str, object] = {}
    for item in given or []:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise RulesError(T_("option {item}: expected NAME=VALUE", item=repr(item)))
        try:
            values[name.strip()] = yaml.safe_load(text)
        except yaml.YAMLError:
            values[name.strip()] = text
    return values


def load_file(file: Path, max_bytes: int = MAX_BYTES) -> Table | PlaceMap:
    """The table or places map of ``file``, read once and at most ``max_bytes`` long."""
    if max_bytes < 1:
        raise RulesError(T_("--max-bytes {n}: expected a number of bytes, at least 1", n=max_bytes))
    from arbitre.files import load

    subject = load(file, max_bytes=max_bytes)
    scenario_language(subject)
    return subject


def load_table(file: Path, command: str, max_bytes: int = MAX_BYTES) -> Table:
    """The table of ``file``; a map of places is refused for ``command``."""
    from arbitre.table import Table

    subject = load_file(file, max_bytes)
    if not isinstance(subject, Table):
        raise RulesError(
            T_("{command} rules a table; {file} is a map of places", command=command, file=file)
        )
    return subject


def ask_file(
    file: Path,
    question: str,
    *,
    rules: str | None = None,
    option: Sequence[str] | None = None,
    max_bytes: int = MAX_BYTES,
    **request: Any,
) -> tuple[Any, Answer]:
    """Load ``file`` (a table or a places map), ask ``question`` of it through the registry
    with the ``-O`` options given; the subject and the answer."""
    subject = load_file(file, max_bytes)
    from arbitre.rules import ask

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
        raise ArbitreError(
            T_("cannot write {path}: {why}", path=path, why=exc.strerror or exc)
        ) from None


#: The picture files written, by extension (PNG through rsvg-convert).
PICTURES = (".svg", ".png")


def check_picture(path: Path) -> None:
    """Refuse, before any work, a picture file whose extension cannot be written."""
    if path.suffix.lower() not in PICTURES:
        what = (
            T_("a {suffix} picture", suffix=repr(path.suffix))
            if path.suffix
            else T_("a picture without an extension")
        )
        raise RulesError(
            T_(
                "{path}: cannot write {what}; name it .svg, or .png (drawn through rsvg-convert)",
                path=path,
                what=what,
            )
        )


def write_picture(path: Path, svg: str) -> None:
    """Write the SVG document ``svg`` to ``path`` as SVG, or as PNG through
    ``rsvg-convert`` (Debian ``librsvg2-bin``); nothing is written when that fails."""
    check_picture(path)
    if path.suffix.lower() == ".svg":
        write_text(path, svg)
        return
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise ArbitreError(
            T_(
                "cannot write {path}: PNG needs rsvg-convert (Debian: apt install "
                "librsvg2-bin); or write .svg",
                path=path,
            )
        )
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(suffix=".png", dir=folder)
    except OSError as exc:
        raise ArbitreError(
            T_("cannot write {path}: {why}", path=path, why=exc.strerror or exc)
        ) from None
    os.close(fd)
    try:
        done = subprocess.run(
            [exe, "--format=png", "--output", tmp],
            input=svg.encode("utf-8"),
            capture_output=True,
            timeout=120,
            check=False,
        )
        if done.returncode != 0:
            why = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise ArbitreError(
                T_(
                    "cannot write {path}: rsvg-convert failed ({why})",
                    path=path,
                    why=why[0][:200] if why else "",
                )
            )
        os.replace(tmp, path)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ArbitreError(T_("cannot write {path}: {why}", path=path, why=exc)) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def print_reasons(reasons: Sequence[Any], indent: str = "  ") -> None:
    """Reasons (or refusals) one a line: the rule ID, then the words."""
    for r in reasons:
        out.print(f"{indent}[dim]{esc(r.rule):3}[/] {esc(r.text)}")


def seed_line(seed: int | None) -> str:
    """How to roll the same dice again."""
    again = T_("seed {seed} (--seed {seed} rolls it again)", seed=seed)
    return f"[dim]{again}[/]"


# -- help without type placeholders ------------------------------------------------------


class _Argument(TyperArgument):
    """An argument whose help shows its name only (no ``<str>``)."""

    def display_type_rich(self, ctx: typer.Context) -> str | None:  # type: ignore[override]
        return None


def _plain(params: list[Any]) -> list[Any]:
    """Help rows without type placeholders: flags show none, options their metavar (the
    option's name in capitals where the command gives none), arguments their name."""
    for p in params:
        if isinstance(p, TyperArgument):
            p.__class__ = _Argument
            p.metavar = p.metavar or (p.name or "value").upper()
        elif getattr(p, "param_type_name", "") == "option" and p.metavar is None:
            flag = getattr(p, "is_flag", False) or getattr(p, "count", False)
            p.metavar = "" if flag else (p.name or "value").upper()
    return params


# -- the language of every command ------------------------------------------------------

#: The ``--lang`` given on the command line, if any (it wins over the scenario's ``lang``).
_LANG_FLAG: list[str | None] = [None]


def _given_lang(value: str | None) -> None:
    if value is not None:
        _LANG_FLAG[0] = value
        i18n.use(i18n.choose(value))


LangOpt = Annotated[
    str | None,
    typer.Option(
        "--lang",
        metavar="fr|en",
        help="Language of the output (default: the scenario's `lang`, else LANG/LC_ALL, "
        "else English).",
        callback=_given_lang,
        is_eager=True,
        show_default=False,
        rich_help_panel=IO_PANEL,
    ),
]


def with_lang(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as a command that also takes ``--lang`` (read by its callback, before the
    command runs; ``fn`` never sees it)."""
    sig = inspect.signature(fn, eval_str=True)
    hints = typing.get_type_hints(fn, include_extras=True)

    @functools.wraps(fn)
    def command(*args: Any, lang: str | None = None, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    extra = inspect.Parameter("lang", inspect.Parameter.KEYWORD_ONLY, default=None)
    params = [
        p.replace(annotation=hints.get(p.name, p.annotation)) for p in sig.parameters.values()
    ]
    command.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[*params, extra.replace(annotation=LangOpt)]
    )
    command.__annotations__ = {**hints, "lang": LangOpt}
    return command


def start_language(environ: Any = None) -> None:
    """The language before any file is read: the environment's (``--lang`` comes next)."""
    _LANG_FLAG[0] = None
    i18n.use(i18n.choose(None, None, os.environ if environ is None else environ))


def scenario_language(subject: object) -> None:
    """Speak the language of ``subject``'s ``lang`` field, unless ``--lang`` was given."""
    lang = getattr(subject, "lang", None)
    if _LANG_FLAG[0] is None and lang is not None:
        i18n.use(i18n.choose(None, lang))


class Command(TyperCommand):
    """A command whose help shows no ``<bool>``/``<str>`` placeholders."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))


class Group(TyperGroup):
    """The ``arbitre`` group, its help without type placeholders."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))


def command(app: typer.Typer, fn: Callable[..., Any], panel: str, name: str | None = None) -> None:
    """Add ``fn`` to ``app`` as a command in help panel ``panel``."""
    app.command(name, cls=Command, rich_help_panel=panel)(with_lang(fn))
