"""Start-up cost (issue 16): ``arbitre --help`` imports no engine, and ``arbitre los`` on a
Frostgrave table imports only what ruling it needs. Each check runs in a fresh interpreter,
as the command does, and reads ``sys.modules`` at its end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
