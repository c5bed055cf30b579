"""What every command module shares (a face): the common arguments, loading a file and
asking the registry, JSON output, writing files and pictures, help without type
placeholders. No rule lives here.

Tables for people are printed by :func:`arbitre.faces.cli.grid.print_grid`, which never
cuts a value; ids and other user text go through :func:`esc` before they are printed as
rich markup.
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import types
import typing
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import typer.main
from rich.console import Console
from rich.markup import escape
from typer.core import TyperArgument, TyperCommand, TyperGroup
from typer.models import CommandInfo

from arbitre import i18n
from arbitre.constants import MAX_BYTES as MAX_BYTES
from arbitre.errors import ArbitreError, RulesError
from arbitre.i18n import N_, T_, Count, Text

if TYPE_CHECKING:  # the engine is imported when a command runs, not for --help
    from arbitre.places import PlaceMap
    from arbitre.rules import Answer
    from arbitre.table import Table

#: Human output: no highlighting guesses, long lines left whole (the terminal folds them).
out = Console(highlight=False, soft_wrap=True)

# -- help in the language spoken --------------------------------------------------------
#
# typer builds the help when the commands are imported, before the language is known:
# each help text is written in English (its message id, marked with ``N_``), and
# :class:`Command` and :class:`Group` word it in the language spoken when they show it.

#: The help texts that have parameters, by their English wording.
_HELP_TEXTS: dict[str, Text] = {}


def help_text(text: Text) -> str:
    """The English wording of ``text``, a help with parameters (a ``T_`` message), which
    the help shows in the language spoken."""
    english = text.render("en")
    _HELP_TEXTS[english] = text
    return english


def spoken(english: str | None) -> str | None:
    """A help text (a message id, or the English wording of a :func:`help_text`) in the
    language spoken."""
    if not english or i18n.current() == "en":
        return english
    text = _HELP_TEXTS.get(english)
    return unbroken(text.render() if text is not None else i18n.tr(english))


def unbroken(words: str) -> str:
    """``words`` with a no-break space before French high punctuation ("chemin : ..."),
    so that the help never starts a line with ":" or ";"."""
    return re.sub(r" ([:;?!])", "\u00a0\\1", words)


#: rich's pattern of a word where lines may break, the no-break space kept inside words:
#: the help keeps "10 000 000" and "chemin :" whole.
_UNBROKEN_WORD = re.compile(r"[^\S\u00a0]*[\S\u00a0]+[^\S\u00a0]*")


#: The words typer and click write in every help themselves, by typer's name for them.
TYPER_WORDS = {
    "ARGUMENTS_PANEL_TITLE": N_("Arguments"),
    "OPTIONS_PANEL_TITLE": N_("Options"),
    "COMMANDS_PANEL_TITLE": N_("Commands"),
    "REQUIRED_LONG_STRING": N_("[required]"),
    "DEFAULT_STRING": N_("[default: {}]"),
    "DEPRECATED_STRING": N_("(deprecated) "),
}
#: The help of ``--help`` (click's) and the head of the usage line.
HELP_OPTION = N_("Show this message and exit.")
USAGE = N_("Usage:")


#: The help panel of the options every command shares.
IO_PANEL = N_("Input and output")

FileArg = Annotated[
    Path,
    typer.Argument(metavar="FILE", help=N_("Scenario file (YAML or JSON)."), show_default=False),
]
RulesOpt = Annotated[
    str | None,
    typer.Option(
        "--rules",
        metavar="NAME",
        help=N_("Ruleset that answers (default: the scenario's `rules`)."),
        show_default=False,
    ),
]
OptionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        "-O",
        metavar="NAME=VALUE",
        help=N_("Ruleset option over the file's (repeatable)."),
        show_default=False,
    ),
]
JsonOpt = Annotated[
    bool,
    typer.Option("--json", help=N_("Print JSON 2 instead of tables."), rich_help_panel=IO_PANEL),
]
ExplainOpt = Annotated[
    bool, typer.Option("--explain", help=N_("Every reason in full."), rich_help_panel=IO_PANEL)
]
SeedOpt = Annotated[
    int | None,
    typer.Option(
        "--seed",
        metavar="N",
        help=N_("Seed of the dice (same seed, same roll; default: a fresh one, printed)."),
        show_default=False,
    ),
]
MaxBytesOpt = Annotated[
    int,
    typer.Option(
        "--max-bytes",
        metavar="N",
        help=help_text(
            T_("Largest file read, in bytes (default {max_bytes}).", max_bytes=Count(MAX_BYTES))
        ),
        show_default=False,
        rich_help_panel=IO_PANEL,
    ),
]
QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help=N_("Do not print the warnings (plausible mistakes of the table) on stderr."),
        rich_help_panel=IO_PANEL,
    ),
]


def warn(subject: object, quiet: bool) -> None:
    """The table's warnings (:mod:`arbitre.sanity`), one line each on stderr, unless
    ``quiet``: they head a command's output and never go to stdout or into JSON."""
    from arbitre.table import Table

    if quiet or not isinstance(subject, Table):
        return
    from arbitre import sanity  # read only when its warnings are printed

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
    import tempfile  # read when a PNG is written, not at start

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
        help=N_(
            "Language of the output (default: the scenario's `lang`, else LANG/LC_ALL, "
            "else English)."
        ),
        callback=_given_lang,
        is_eager=True,
        show_default=False,
        rich_help_panel=IO_PANEL,
    ),
]


#: ``--lang`` given to ``arbitre`` itself (``arbitre --lang fr --help``), read as a
#: command's; hidden, as the help of ``arbitre`` has no panel for it.
RootLangOpt = Annotated[
    str | None,
    typer.Option("--lang", metavar="fr|en", callback=_given_lang, is_eager=True, hidden=True),
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


def start_language(environ: Any = None, args: Sequence[str] = ()) -> None:
    """The language before any file is read: the environment's, or the one ``--lang``
    gives in ``args`` (the command line), so that ``--help`` before it speaks it too.
    The option itself is read and checked later, when the command line is parsed."""
    _LANG_FLAG[0] = None
    i18n.use(i18n.choose(None, None, os.environ if environ is None else environ))
    given = early_lang(args)
    if given is not None:
        i18n.use(given)


def early_lang(args: Sequence[str]) -> i18n.Lang | None:
    """The last language arbitre speaks given by ``--lang X`` or ``--lang=X`` in
    ``args`` (before a ``--``), if any."""
    found: i18n.Lang | None = None
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--lang="):
            value = arg.removeprefix("--lang=")
        else:
            continue
        if value in i18n.LANGS:
            found = i18n.check(value)
    return found


def scenario_language(subject: object) -> None:
    """Speak the language of ``subject``'s ``lang`` field, unless ``--lang`` was given."""
    lang = getattr(subject, "lang", None)
    if _LANG_FLAG[0] is None and lang is not None:
        i18n.use(i18n.choose(None, lang))


@contextmanager
def _help_spoken(cmd: Any, ctx: Any) -> Iterator[None]:
    """Within the block, the help of ``cmd`` (its text, its parameters' and panels', its
    commands' for a group, typer's own words) is in the language spoken; English as
    written."""
    if i18n.current() == "en":
        yield
        return
    from rich import _wrap
    from typer import rich_utils

    saved: list[tuple[object, str, Any]] = []

    def swap(obj: object, attr: str, value: Any) -> None:
        saved.append((obj, attr, getattr(obj, attr)))
        setattr(obj, attr, value)

    def translate(obj: object, *attrs: str) -> None:
        for attr in attrs:
            english = getattr(obj, attr, None)
            if english:
                swap(obj, attr, spoken(english))

    translate(cmd, "help", "short_help")
    for param in cmd.get_params(ctx):
        translate(param, "help", "rich_help_panel")
    if isinstance(cmd, TyperGroup):
        for name in cmd.list_commands(ctx):
            translate(cmd.get_command(ctx, name), "help", "short_help", "rich_help_panel")
    for attr, msgid in TYPER_WORDS.items():
        if hasattr(rich_utils, attr):
            swap(rich_utils, attr, unbroken(i18n.tr(msgid)))
    if isinstance(getattr(_wrap, "re_word", None), re.Pattern):
        swap(_wrap, "re_word", _UNBROKEN_WORD)
    try:
        yield
    finally:
        for obj, attr, value in reversed(saved):
            setattr(obj, attr, value)


#: What typer's help module imports and the help never uses, by module: ``Markdown``
#: (typer's ``markdown`` markup mode; arbitre's is ``rich``) and ``Traceback`` (typer's
#: pretty exceptions, turned off). With them rich's markdown, syntax and traceback
#: modules, and markdown-it and pygments, would be read for every ``--help``.
_UNUSED_BY_HELP = (("rich.markdown", "Markdown"), ("rich.traceback", "Traceback"))


class _Deferred(type):
    """The class of a stand-in for ``where.name`` (a class of another module): calling
    it or reading an attribute of it imports the real one and hands over to it."""

    where: str

    def _real(cls) -> Any:
        return getattr(importlib.import_module(cls.where), cls.__name__)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._real()(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        return getattr(cls._real(), name)


def light_rich_utils() -> None:
    """Import typer's help module (``typer.rich_utils``) without the modules it imports
    and the help never uses (:data:`_UNUSED_BY_HELP`): while it is imported they stand
    as modules holding a :class:`_Deferred` stand-in, then leave ``sys.modules``, so the
    real ones load whenever something asks for them. Any surprise (another typer) and it
    is imported as it is."""
    if "typer.rich_utils" in sys.modules:
        return
    stubs: dict[str, types.ModuleType] = {}
    for where, name in _UNUSED_BY_HELP:
        if where not in sys.modules:
            stub = types.ModuleType(where)
            setattr(stub, name, _Deferred(name, (), {"where": where}))
            stubs[where] = stub
    sys.modules.update(stubs)
    try:
        importlib.import_module("typer.rich_utils")
    except Exception:
        sys.modules.pop("typer.rich_utils", None)
    finally:
        for where, stub in stubs.items():
            if sys.modules.get(where) is stub:
                del sys.modules[where]
    importlib.import_module("typer.rich_utils")


def _usage(cmd: Any, ctx: Any, formatter: Any) -> None:
    """The usage line, its head in the language spoken."""
    pieces = " ".join(cmd.collect_usage_pieces(ctx))
    formatter.write_usage(ctx.command_path, pieces, prefix=f"{unbroken(i18n.tr(USAGE))} ")


class _Spoken:
    """Help without ``<bool>``/``<str>`` placeholders, in the language spoken (mixed
    into typer's command and group classes)."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))  # type: ignore[misc]

    def format_help(self, ctx: Any, formatter: Any) -> None:
        light_rich_utils()
        with _help_spoken(self, ctx):
            super().format_help(ctx, formatter)  # type: ignore[misc]

    def format_usage(self, ctx: Any, formatter: Any) -> None:
        if i18n.current() == "en":
            super().format_usage(ctx, formatter)  # type: ignore[misc]
        else:
            _usage(self, ctx, formatter)


class Command(_Spoken, TyperCommand):
    """A command whose help shows no type placeholders, in the language spoken."""


class Group(_Spoken, TyperGroup):
    """The ``arbitre`` group, its help without type placeholders, in the language
    spoken."""


def command(
    app: typer.Typer,
    fn: Callable[..., Any],
    panel: str,
    help: str,
    name: str | None = None,
) -> None:
    """Add ``fn`` to ``app`` as a command in help panel ``panel``; ``help`` is its help,
    a message id (marked with ``N_``) worded as its docstring's. Its parameters are read
    when the command is first built (:class:`LazyCommandInfo`)."""
    app.command(name, cls=Command, rich_help_panel=panel, help=help)(fn)
    app.registered_commands.append(LazyCommandInfo(fn, app.registered_commands.pop()))


class LazyCommandInfo(CommandInfo):
    """A command of ``arbitre`` as typer registered it (``info``), named, its
    ``callback`` (``fn`` taking ``--lang`` too: :func:`with_lang`, which reads every
    parameter's annotation) made when first asked for: by building the command that
    runs, not at import."""

    def __init__(self, fn: Callable[..., Any], info: CommandInfo) -> None:
        super().__init__()
        vars(self).update((k, v) for k, v in vars(info).items() if k != "callback")
        self.name = info.name or typer.main.get_command_name(fn.__name__)
        self._fn = fn
        self._callback: Callable[..., Any] | None = None

    @property
    def callback(self) -> Callable[..., Any]:
        if self._callback is None:
            self._callback = with_lang(self._fn)
        return self._callback

    @callback.setter
    def callback(self, value: Callable[..., Any] | None) -> None:
        self._callback = value


def _listed_only() -> None:
    """The callback of a command built only to be listed in the help of ``arbitre``."""


#: The options of ``arbitre`` itself: flags, and ``--lang`` with its value.
_ROOT_FLAGS = frozenset({"--version", "--debug", "--help"})


def invoked(args: Sequence[str]) -> tuple[bool, str | None]:
    """Whether ``args`` surely name the command run, and which: the first word after the
    options of ``arbitre`` itself (``None`` when there is none: only those options, the
    group's help or version). Anything else (another option, ``--``) is unsure."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _ROOT_FLAGS or (arg.startswith("--lang=") and len(arg) > len("--lang=")):
            i += 1
        elif arg == "--lang" and i + 1 < len(args) and not args[i + 1].startswith("-"):
            i += 2
        elif arg.startswith("-"):
            return False, None
        else:
            return True, arg
    return True, None


def pruned(app: typer.Typer, args: Sequence[str]) -> typer.Typer:
    """``app`` with only what running ``args`` builds: the one command they name, or,
    when they name none, every command without its parameters (to be listed in the
    help). Unsure (:func:`invoked`), an unknown name, or a command not named: ``app``."""
    sure, name = invoked(args)
    infos = app.registered_commands
    if not sure or any(info.name is None for info in infos):
        return app
    if name is None:
        kept = [copy.copy(info) for info in infos]
        for info in kept:
            info.callback = _listed_only
    else:
        kept = [info for info in infos if info.name == name]
        if len(kept) != 1:
            return app
    lone = copy.copy(app)
    lone.registered_commands = kept
    return lone
