"""The console entry point ``arbitre`` (``arbitre.cli:run``); the command line lives in
:mod:`arbitre.faces.cli`, imported when a command runs: ``arbitre --version`` alone needs
none of it (nor typer, nor rich)."""

from __future__ import annotations

import gc
import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arbitre.faces.cli import app, main

__all__ = ["app", "arbitre_version", "collect_less", "main", "run"]

#: Allocations between two collections of the youngest generation in a command's process
#: (Python's default: 700). The modules a command imports leave ~70,000 objects that live
#: as long as the process; at 700 the collector walked them ~100 times as they were
#: made (~20 ms of ``arbitre los`` on the demo table) and found nothing to free. Larger
#: jobs are still collected, in fewer and larger passes.
YOUNG_THRESHOLD = 100_000


def arbitre_version() -> str:
    """The installed package's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("arbitre")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


def collect_less() -> None:
    """Raise the collector's youngest threshold to :data:`YOUNG_THRESHOLD` (a command's
    process, not the library's: the older generations' thresholds are kept)."""
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


def run() -> None:
    """Run the command line on ``sys.argv`` and exit with its code; ``--version`` alone
    prints the version as the command line's ``--version`` does, without loading it."""
    if sys.argv[1:] == ["--version"]:
        print(f"arbitre {arbitre_version()}")
        sys.exit(0)
    collect_less()  # before the command line's own imports
    import_module("arbitre.faces.cli").run()


def __getattr__(name: str) -> Any:
    if name in ("app", "main"):
        return getattr(import_module("arbitre.faces.cli"), name)
    raise AttributeError(f"module 'arbitre.cli' has no attribute {name!r}")
