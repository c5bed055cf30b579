"""The console entry point ``arbitre`` (``arbitre.cli:run``); the command line lives in
:mod:`arbitre.faces.cli`."""

from arbitre.faces.cli import app, main, run

__all__ = ["app", "main", "run"]
