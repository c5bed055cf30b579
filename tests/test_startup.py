"""Start-up cost (issue 16): ``arbitre --help`` imports no engine, and ``arbitre los`` on a
Frostgrave table imports only what ruling it needs. Each check runs in a fresh interpreter,
as the command does, and reads ``sys.modules`` at its end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import arbitre

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "frostgrave-demo.yaml"
DEMO = str(EXAMPLE) if EXAMPLE.exists() else arbitre.DEMO_SCENARIO

#: What the help of the command line (and of each command) never needs.
#: A fresh interpreter's environment as a user's: English spoken, the kernels chosen as
#: by default (the test suite compiles them always: conftest.py).
ENV = {k: v for k, v in os.environ.items() if k != "ARBITRE_JIT"}
ENV.update({"LC_ALL": "C", "LC_MESSAGES": "C", "LANG": "C", "COLUMNS": "100"})

ENGINE = (
    "numpy",
    "shapely",
    "pydantic",
    "pydantic_core",
    "networkx",
    "numba",
    "babel",
    "starlette",
    "uvicorn",
    "yaml",
)

#: What ruling a Frostgrave table's lines of sight never needs: the places model and its
#: graphs, the compiled kernels, the web face, French, the maps and imports, the exact
#: search of cone placements.
NOT_FOR_LOS = (
    "networkx",
    "numba",
    "starlette",
    "uvicorn",
    "babel",
    "arbitre.places",
    "arbitre.kernels",
    "arbitre.maps",
    "arbitre.imports",
    "arbitre.cone_space",
    "arbitre.cone_events",
    "arbitre.cone_sweep",
    "arbitre.faces.web",
    "arbitre.faces.svg",
    "arbitre.sanity",  # its warnings are not printed: -q
    "arbitre.rules.breath",
    "arbitre.rules.darkage",
    "arbitre.rules.mordheim",
    "arbitre.rules.places",
    "arbitre.templates",
    "arbitre.dice",  # no roll: its module is left out (not secrets: pydantic 2.14 imports it)
)


def _loaded(code: str, wanted: tuple[str, ...]) -> list[str]:
    """The modules of ``wanted`` (or their submodules) loaded once ``code`` has run in a
    fresh interpreter, English spoken."""
    probe = (
        f"{code}\n"
        "import json, sys\n"
        f"wanted = {wanted!r}\n"
        "found = sorted({w for w in wanted for m in sys.modules "
        "if m == w or m.startswith(w + '.')})\n"
        "sys.__stdout__.write('\\n' + json.dumps(found) + '\\n')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=ENV,
    )
    assert done.returncode == 0, done.stderr
    found: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_cli_import_loads_no_engine() -> None:
    assert _loaded("import arbitre.faces.cli", ENGINE) == []


def test_help_loads_no_engine() -> None:
    code = (
        "from arbitre.faces.cli import main\n"
        "for args in (['--help'], ['--version']):\n"
        "    assert main(args) == 0, args\n"
    )
    assert _loaded(code, ENGINE) == []


def test_command_help_loads_no_engine() -> None:
    """A command's help builds its parameters, which typer (0.29) does with pydantic's
    TypeAdapters: pydantic is typer's there, not the engine's."""
    code = (
        "from arbitre.faces.cli import main\n"
        "for args in (['los', '--help'], ['breath', '--help'], ['move', '--help'],\n"
        "             ['import', '--help'], ['map', '--help'], ['serve', '--help']):\n"
        "    assert main(args) == 0, args\n"
    )
    engine = tuple(m for m in ENGINE if not m.startswith("pydantic"))
    assert _loaded(code, engine) == []


def test_los_loads_only_what_it_needs() -> None:
    code = f"from arbitre.faces.cli import main\nassert main(['los', {DEMO!r}, '-q']) == 0\n"
    assert _loaded(code, NOT_FOR_LOS) == []


RULESET_MODULES = tuple(
    f"arbitre.rules.{name}" for name in ("frostgrave", "darkage", "mordheim", "breath", "places")
)


def test_the_registry_imports_a_ruleset_only_when_it_is_read() -> None:
    """Finding rulesets by name, listing them, checking every ruleset's options and
    choosing the one that answers a question read the light declarations; the one
    ruleset chosen is imported, no other."""
    code = (
        "import arbitre.rules as r\n"
        "assert list(r.RULESETS) == ['frostgrave', 'darkage', 'mordheim', 'breath', 'places']\n"
        "r.check_options({'cover_effect': 'none', 'tower_counts': 'cover', 'windows': 'open'})\n"
        "assert sorted(r.declared_options()) == sorted([r.SHARED, *r.RULESETS])\n"
        "for bad in ({'cover_effect': 1}, {'nope': 1}):\n"
        "    try:\n"
        "        r.check_options(bad)\n"
        "    except r.RulesError:\n"
        "        pass\n"
        "    else:\n"
        "        raise AssertionError(bad)\n"
        "assert 'mh' not in r.RULESETS and 'mordheim' in r.RULESETS\n"
        "assert r.ruleset_for(None, 'rolloff').name == 'darkage'\n"
        "assert r.find_ruleset('Dark-Age') is r.RULESETS['darkage']\n"
    )
    assert _loaded(code, RULESET_MODULES) == ["arbitre.rules.darkage"]


def test_help_text() -> None:
    for args, words in (
        (["--help"], "A referee engine for skirmish miniature wargames."),
        (["los", "--help"], "Rule every line of sight asked"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "arbitre", *args],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env=ENV,
        )
        assert done.returncode == 0, done.stderr
        assert words in done.stdout
        assert "Usage:" in done.stdout


# -- tables measured once (issue 16): the same print as rich measuring every cell ---------


def _reference_grid(console: Any, cols: Any, rows: Any) -> str:
    """:func:`print_grid` as it was: rich measures every cell at each try and at the
    print (the oracle of the widths measured once)."""
    from rich import box
    from rich.measure import Measurement
    from rich.table import Table as RichTable

    from arbitre.faces.cli import grid

    shorts = any(c.short for c in cols)
    for short, gap in ((False, 2), (True, 2), (True, 1)) if shorts else ((False, 2), (False, 1)):
        table = RichTable(
            box=box.SIMPLE_HEAD, padding=(0, gap - 1, 0, 0), pad_edge=False, show_edge=False
        )
        for c in cols:
            table.add_column(
                c.short if short and c.short else c.header,
                justify="right" if c.right else "left",
                no_wrap=True,
                overflow="fold",
            )
        for row in rows:
            table.add_row(*row)
        wide = console.options.update(width=10**6)
        if Measurement.get(console, wide, table).maximum <= console.width:
            console.print(table)
            if short:
                legend = [f"{c.short}: {c.meaning or c.header}" for c in cols if c.short]
                grid._packed(console, legend, console.width, indent="", sep="; ", style="dim")
            return "short" if short else "full"
    return "stacked"


CELLS = (
    "",
    " ",
    "a",
    "militia-1",
    "2/3",
    "[green]yes[/]",
    "[red]no[/] !",
    "+3",
    "86%",
    "\u4e2d\u6587",
    "\u00e9t\u00e9",
    ":smile:",
    "\\[x]",
    "x y z",
    "two\nlines",
    "[bold]F6 chapel[/]",
    "a-rather-long-value-of-thirty-one",
)


def test_grid_widths_measured_once_print_as_rich_measures() -> None:
    """Seeded random tables (markup, wide characters, emoji codes, empty cells, newlines)
    at random console widths, on a colour terminal: the same layout and the same styled
    text as when rich measures every cell."""
    import random

    from rich.console import Console

    from arbitre.faces.cli.grid import Col, print_grid

    rng = random.Random(16)
    layouts = set()
    for _ in range(300):
        n = rng.randint(1, 6)
        cols = [
            Col(
                rng.choice(CELLS[1:]),
                short=rng.choice(("", "s", "\u00e9")) if rng.random() < 0.5 else "",
                right=rng.random() < 0.3,
            )
            for _ in range(n)
        ]
        rows = [[rng.choice(CELLS) for _ in range(n)] for _ in range(rng.randint(0, 6))]
        width = rng.randint(8, 90)
        got, want = (
            Console(
                width=width,
                file=open(os.devnull, "w"),  # noqa: SIM115
                record=True,
                highlight=False,
                force_terminal=True,
                color_system="truecolor",
            )
            for _ in range(2)
        )
        layout = print_grid(got, cols, rows)
        assert _reference_grid(want, cols, rows) == layout, (cols, rows, width)
        layouts.add(layout)
        if layout != "stacked":  # the stacked layout prints no table: unchanged
            assert got.export_text(styles=True) == want.export_text(styles=True), (
                cols,
                rows,
                width,
            )
    assert layouts == {"full", "short", "stacked"}


def _plain_as_rich(tables: int) -> None:
    """On a console without styles (piped output), the tables laid out at once print
    the same characters as rich's table: ``tables`` seeded random tables (markup, wide
    characters, emoji codes, empty cells, new lines, right-aligned columns, short headers)
    at random widths, consoles as the command's and as rich's default."""
    import io
    import random

    from rich.console import Console

    from arbitre.faces.cli import grid
    from arbitre.faces.cli.grid import Col, print_grid

    rng = random.Random(17)
    plain = 0
    for i in range(tables):
        n = rng.randint(1, 6)
        cols = [
            Col(
                rng.choice(CELLS[1:]),
                short=rng.choice(("", "s", "\u00e9")) if rng.random() < 0.5 else "",
                right=rng.random() < 0.4,
            )
            for _ in range(n)
        ]
        cells = CELLS if i % 3 else tuple(c for c in CELLS if "\n" not in c)
        rows = [[rng.choice(cells) for _ in range(n)] for _ in range(rng.randint(0, 6))]
        width = rng.randint(8, 90)
        options: dict[str, Any] = {"highlight": False, "soft_wrap": True} if i % 2 else {}
        out, ref = io.StringIO(), io.StringIO()
        got, want = (Console(width=width, file=f, **options) for f in (out, ref))
        assert got.color_system is None
        layout = print_grid(got, cols, rows)
        assert _reference_grid(want, cols, rows) == layout
        if layout != "stacked":  # the stacked layout prints no table (rich's reference)
            assert out.getvalue() == ref.getvalue(), (cols, rows, width)
            heads = [c.short if layout == "short" and c.short else c.header for c in cols]
            widths = [
                max([grid.cell_len(h), *(grid.cell_len(r[k]) for r in rows)])
                for k, h in enumerate(heads)
            ]
            laid = grid._plain_table(got, cols, rows, short=layout == "short", gap=2, widths=widths)
            plain += laid is not None
    assert plain > tables // 10  # the tables laid out at once, not rich's


def test_grid_printed_plain_as_rich_prints_it() -> None:
    _plain_as_rich(80)


@pytest.mark.slow
def test_grid_printed_plain_as_rich_prints_it_full() -> None:
    _plain_as_rich(1000)


#: What typer's help module imports and no help uses (its markdown mode, its tracebacks).
NOT_FOR_HELP = ("rich.markdown", "rich.syntax", "rich.traceback", "markdown_it", "pygments")


def test_help_loads_no_markdown_nor_traceback() -> None:
    code = (
        "from arbitre.faces.cli import main\n"
        "for args in (['--help'], ['los', '--help'], ['--lang', 'fr', 'breath', '--help']):\n"
        "    assert main(args) == 0, args\n"
    )
    assert _loaded(code, NOT_FOR_HELP) == []


def _help(args: list[str], first: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", f"{first}\nfrom arbitre.faces.cli import run\nrun()", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**ENV, "FORCE_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_help_same_as_with_typer_help_module_whole() -> None:
    """The help printed (in colour, both languages) is the same whether typer's help
    module was imported whole beforehand or by :func:`light_rich_utils`."""
    for args in (["--help"], ["los", "--help"], ["--lang", "fr", "--help"], ["map", "--help"]):
        light = _help(args, "")
        assert "\x1b[" in light and "help" in light
        assert light == _help(args, "import typer.rich_utils"), args


def test_help_module_stand_ins_hand_over() -> None:
    """The stand-ins left in typer's help module are the real classes when used."""
    code = (
        "from arbitre.faces.cli.common import light_rich_utils\n"
        "light_rich_utils()\n"
        "import sys\n"
        "from typer import rich_utils\n"
        "assert 'rich.markdown' not in sys.modules\n"
        "text = rich_utils._make_rich_text(text='**x**', style='', markup_mode='markdown')\n"
        "import rich.markdown, rich.traceback\n"
        "assert type(text) is rich.markdown.Markdown\n"
        "try:\n"
        "    raise ValueError('x')\n"
        "except ValueError as exc:\n"
        "    tb = rich_utils.Traceback.from_exception(type(exc), exc, exc.__traceback__)\n"
        "assert type(tb) is rich.traceback.Traceback\n"
    )
    assert _loaded(code, ()) == []


# -- the command tree built for what runs -----------------------------------------------


def test_invoked_command_read_after_the_root_options() -> None:
    from arbitre.faces.cli.common import invoked

    for args, want in (
        ([], (True, None)),
        (["--help"], (True, None)),
        (["--version"], (True, None)),
        (["--lang", "fr", "--help"], (True, None)),
        (["--lang=fr", "--debug", "los", "--help"], (True, "los")),
        (["--lang", "fr", "los", "f.yaml"], (True, "los")),
        (["los", "--lang", "xx"], (True, "los")),
        (["lso"], (True, "lso")),
        (["--lang"], (False, None)),
        (["--lang", "--help"], (False, None)),
        (["--lang="], (False, None)),
        (["--", "los"], (False, None)),
        (["--bogus", "los"], (False, None)),
        (["-h"], (False, None)),
    ):
        assert invoked(args) == want, args


def test_only_the_command_run_is_built() -> None:
    """``los`` reads the parameters of ``los`` alone; ``--help`` lists every command
    without reading any command's parameters."""
    code = (
        "from arbitre.faces.cli import app, main\n"
        "import io, contextlib\n"
        "def built():\n"
        "    return sorted(i.name for i in app.registered_commands if i._callback)\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['--help']) == 0\n"
        "assert built() == [], built()\n"
        f"assert main(['los', {DEMO!r}, '-q']) == 0\n"
        "assert built() == ['los'], built()\n"
    )
    assert _loaded(code, ()) == []


def _printed(code: str) -> tuple[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**ENV, "FORCE_COLOR": "1"},
    )
    return done.stdout, done.stderr


#: The argument sets whose output the pruned tree must print as the whole tree does.
TREE_ARGS = (
    ["--help"],
    ["--lang", "fr", "--help"],
    ["los", "--help"],
    ["--lang=fr", "breath", "--help"],
    ["--version"],
    ["lso"],
    ["los", "--bogus"],
    ["--lang", "fr"],
)

#: Runs ``cli._main`` on each argument set, pruned and whole, each in a child forked from
#: one interpreter that has imported the command line: a child starts in the state of a
#: fresh ``python -c "import arbitre.faces.cli as cli; cli._main(args)"`` (nothing run
#: yet), its stdout and stderr files of its own. Prints their outputs as JSON.
FORKED_RUNS = """
import json, os, sys, tempfile
import arbitre.faces.cli as cli

def run(args, whole):
    sys.stdout.flush(); sys.stderr.flush()
    files = [tempfile.TemporaryFile() for _ in range(2)]
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(files[0].fileno(), 1)
            os.dup2(files[1].fileno(), 2)
            if whole:
                cli.pruned = lambda app, args: app
            cli._main(args)
            sys.stdout.flush(); sys.stderr.flush()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    printed = []
    for f in files:
        f.seek(0)
        printed.append(f.read().decode())
        f.close()
    return printed

found = [[run(args, False), run(args, True)] for args in json.loads(sys.argv[1])]
sys.__stdout__.write(json.dumps(found))
"""


def _printed_forked(arg_sets: Any) -> list[Any]:
    done = subprocess.run(
        [sys.executable, "-c", FORKED_RUNS, json.dumps(arg_sets)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**ENV, "FORCE_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr
    found: list[Any] = json.loads(done.stdout)
    return found


def test_help_and_errors_same_as_the_whole_tree() -> None:
    """What the tree built for the arguments prints is what the whole tree prints: the
    group's help (listing every command), a command's help, the version, usage errors.
    Each run starts fresh after the import (forked), one interpreter for all; a forked
    run prints what a fresh interpreter prints (checked on a help and an error)."""
    if not hasattr(os, "fork"):
        pytest.skip("needs os.fork (one fresh child a run)")
    found = _printed_forked(TREE_ARGS)
    assert len(found) == len(TREE_ARGS)
    for args, (lone, whole) in zip(TREE_ARGS, found, strict=True):
        assert lone[0] or lone[1], args
        assert lone == whole, args
    head = "import arbitre.faces.cli as cli\n"
    for i in (1, 6):  # --lang fr --help; los --bogus
        args, (lone, _) = TREE_ARGS[i], found[i]
        assert list(_printed(head + f"cli._main({args!r})\n")) == lone, args


def test_version_alone_loads_no_command_line() -> None:
    """``arbitre --version`` prints what the command line's ``--version`` prints, without
    loading typer, rich or the commands."""
    code = (
        "import sys\n"
        "sys.argv = ['arbitre', '--version']\n"
        "from arbitre.cli import run\n"
        "try:\n"
        "    run()\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
    )
    assert _loaded(code, ("typer", "rich", "click", "arbitre.faces")) == []
    fast, _ = _printed(
        "import sys\nsys.argv[1:] = ['--version']\nfrom arbitre.cli import run\nrun()"
    )
    whole, _ = _printed("from arbitre.faces.cli import main\nmain(['--version'])")
    assert fast == whole and fast.startswith("arbitre ")


# -- the scenario's validators built on first use (defer_build) -------------------------


def _eager_docs() -> Any:
    """:mod:`arbitre.scenario_doc` as it was: every document's validator built when its
    class is made (``defer_build`` off), from the same source (the oracle)."""
    import types

    import arbitre.scenario_doc as docs

    source = Path(docs.__file__).read_text(encoding="utf-8")
    deferred = 'ConfigDict(extra="forbid", defer_build=True)'
    assert source.count(deferred) == 1
    name = "arbitre_scenario_doc_eager"
    module = types.ModuleType(name)
    sys.modules[name] = module  # where pydantic reads the annotations' names
    try:
        code = compile(source.replace(deferred, 'ConfigDict(extra="forbid")'), name, "exec")
        exec(code, vars(module))
    finally:
        del sys.modules[name]
    assert module.ScenarioDoc.__pydantic_complete__
    return module


def _outcome(cls: Any, value: object) -> str:
    """What validating ``value`` gives: the document's fields, or every error."""
    from pydantic import ValidationError

    try:
        got = cls.model_validate(value).model_dump(by_alias=True)
    except ValidationError as exc:
        return "errors " + json.dumps(exc.errors(include_url=False), default=repr, sort_keys=True)
    return "valid " + json.dumps(got, default=repr, sort_keys=True)


#: What a mutated document puts in place of a value.
ODD_VALUES: tuple[object, ...] = (
    None,
    "x",
    "",
    -1,
    0,
    2.5,
    1e12,
    float("nan"),
    True,
    [],
    {},
    [1, 2, 3],
    {"a": 1},
)


def _mutated(doc: Any, rng: Any) -> Any:
    """``doc`` with one value somewhere replaced, removed, or a key added."""
    import copy

    doc = copy.deepcopy(doc)
    node: Any = doc
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return doc
        key = rng.choice(keys)
        child = node[key]
        if isinstance(child, dict | list) and child and rng.random() < 0.7:
            node = child
            continue
        what = rng.random()
        if what < 0.15 and isinstance(node, dict):
            del node[key]
        elif what < 0.25 and isinstance(node, dict):
            node["bogus"] = 1
        else:
            node[key] = rng.choice(ODD_VALUES)
        return doc


def _documents() -> list[Any]:
    """Every example and golden scenario, and dumps of seeded random tables."""
    import yaml

    from arbitre.scenario import dump
    from arbitre.testing import random_table

    root = Path(__file__).resolve().parents[1]
    golden = (root / "tests" / "golden").rglob("*.yaml")
    paths = sorted([*(root / "examples").glob("*.yaml"), *golden])
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's when there: fast
    found = [yaml.load(p.read_text(encoding="utf-8"), Loader=loader) for p in paths]
    return found + [dump(random_table(seed, models=6, terrain=5)) for seed in range(4)]


def _judged_alike(mutations: int, pieces: int | None, schemas: bool) -> None:
    """Every document class, deferred, gives the same JSON Schema (the whole scenario's
    alone unless ``schemas``: it holds every other one) and, on every example and
    golden scenario and ``mutations`` seeded mutations of each (values replaced, removed,
    keys added), the same fields or the same errors as when built with its class; the
    terrain pieces and models (the first ``pieces`` of each, all if None) are also
    validated alone, as a file that does not validate has them."""
    import random

    import arbitre.scenario_doc as docs

    eager = _eager_docs()
    classes: tuple[Any, ...] = (*docs.DOCS, docs.HeaderDoc) if schemas else (docs.ScenarioDoc,)
    for cls in classes:
        old = getattr(eager, cls.__name__)
        assert cls.model_json_schema(by_alias=True) == old.model_json_schema(by_alias=True)
    rng = random.Random(16)
    originals = _documents()
    assert len(originals) > 20
    outcomes = set()
    for doc in originals:
        for value in (doc, *(_mutated(doc, rng) for _ in range(mutations))):
            judged: list[tuple[Any, object]] = [(docs.ScenarioDoc, value), (docs.HeaderDoc, value)]
            if isinstance(value, dict):
                for key, cls in (("terrain", docs.TerrainDoc), ("models", docs.ModelDoc)):
                    items = value.get(key)
                    items = items[:pieces] if isinstance(items, list) else []
                    judged += [(cls, item) for item in items]
            for cls, item in judged:
                got = _outcome(cls, item)
                assert got == _outcome(getattr(eager, cls.__name__), item), (cls, item)
                outcomes.add(got.split()[0])
    assert outcomes == {"valid", "errors"}


def test_deferred_validators_judge_as_the_eager_ones() -> None:
    _judged_alike(mutations=3, pieces=2, schemas=False)


@pytest.mark.slow
def test_deferred_validators_judge_as_the_eager_ones_full() -> None:
    _judged_alike(mutations=24, pieces=None, schemas=True)


def test_a_valid_file_builds_the_scenario_validator_alone() -> None:
    """Loading a valid table builds one validator, the whole scenario's: the documents
    inside it are validated by it, their own validators never built."""
    code = (
        "from arbitre.faces.cli import main\n"
        f"assert main(['los', {DEMO!r}, '-q']) == 0\n"
        "import arbitre.scenario_doc as d\n"
        "built = sorted(c.__name__ for c in (*d.DOCS, d.HeaderDoc) if c.__pydantic_complete__)\n"
        "assert built == ['ScenarioDoc'], built\n"
    )
    assert _loaded(code, ()) == []


# -- the command's process: fewer collections, none of everything at exit -------------

#: The console entry point on the arguments given, reporting at exit (on stderr, last)
#: the collector's youngest threshold and whether objects were frozen.
ENTRY = (
    "import atexit, gc, sys\n"
    "def _state():\n"
    "    sys.__stderr__.write(f'\\n@@ {gc.get_threshold()[0]} {gc.get_freeze_count() > 0}')\n"
    "atexit.register(_state)\n"
    "from arbitre.cli import run\n"
    "run()\n"
)
#: The command line's ``main`` on the same arguments, the process left as it is.
PLAIN = "import sys\nfrom arbitre.faces.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def test_the_command_process_collects_less_and_exits_frozen(tmp_path: Path) -> None:
    """The console entry point raises the collector's youngest threshold for the
    command's process and freezes what is left before the interpreter exits
    (:func:`arbitre.faces.cli.run`); it prints what ``main`` prints, with its exit code:
    tables, JSON, a file written, help, usage and file errors."""
    from arbitre.cli import YOUNG_THRESHOLD

    svg = tmp_path / "demo.svg"
    for args in (
        ["los", DEMO, "-q"],
        ["los", DEMO, "--json"],
        ["--lang", "fr", "los", DEMO],
        ["render", DEMO, "-o", str(svg)],
        ["los", "--help"],
        ["los", str(tmp_path / "missing.yaml")],
        ["lso"],
    ):
        done, written = [], []
        for code in (ENTRY, PLAIN):
            svg.unlink(missing_ok=True)
            done.append(
                subprocess.run(
                    [sys.executable, "-c", code, *args],
                    capture_output=True,
                    text=True,
                    timeout=300,
                    check=False,
                    env=ENV,
                )
            )
            written.append(svg.read_text(encoding="utf-8") if svg.exists() else None)
        entry, plain = done
        stderr, state = entry.stderr.rsplit("\n@@ ", 1)
        assert state == f"{YOUNG_THRESHOLD} True", args
        assert (entry.stdout, stderr, entry.returncode) == (
            plain.stdout,
            plain.stderr,
            plain.returncode,
        ), args
        assert written[0] == written[1], args
        assert (written[0] is not None) == (args[0] == "render"), args
