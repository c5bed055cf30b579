"""The console entry point ``arbitre`` (``arbitre.cli:run``); the command line lives in
:mod:`arbitre.faces.cli`, imported when a command runs: ``arbitre --version`` alone needs
none of it (nor typer, nor rich)."""

from __future__ import annotations

import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arbitre.faces.cli import app, main

__all__ = ["app", "arbitre_version", "main", "run"]


def arbitre_version() -> str:
    """The installed package's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("arbitre")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


def run() -> None:
    """Run the command line on ``sys.argv`` and exit with its code; ``--version`` alone
    prints the version as the command line's ``--version`` does, without loading it."""
    if sys.argv[1:] == ["--version"]:
        print(f"arbitre {arbitre_version()}")
        sys.exit(0)
    import_module("arbitre.faces.cli").run()


def __getattr__(name: str) -> Any:
    if name in ("app", "main"):
        return getattr(import_module("arbitre.faces.cli"), name)
    raise AttributeError(f"module 'arbitre.cli' has no attribute {name!r}")
