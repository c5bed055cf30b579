"""Progress of long jobs, for a person watching (issue 16): the library reports steps,
a face decides whether anyone sees them.

Library loops call :func:`steps` around their work and ``advance()`` per step; by default
nothing is shown and the cost is one function call per step. A face that talks to a
person (the CLI when stderr is a terminal) wraps a command in :func:`shown`: a rich
progress bar then appears on stderr once a job has run for :data:`DELAY` seconds, and is
gone when it ends. Nothing of it reaches stdout, JSON or a pipe.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

#: Seconds a job runs before its bar appears (short jobs never show one).
DELAY = 1.0

#: Whether bars are shown in this context (:func:`shown`).
_SHOWN: ContextVar[bool] = ContextVar("arbitre_progress_shown", default=False)


def _nothing(_n: int = 1) -> None:
    return None


@contextmanager
def shown(enabled: bool = True) -> Iterator[None]:
    """Show the bars of the jobs run within the block (when ``enabled``)."""
    token = _SHOWN.set(enabled)
    try:
        yield
    finally:
        _SHOWN.reset(token)


@contextmanager
def steps(total: int, label: str | Callable[[], str]) -> Iterator[Callable[..., None]]:
    """A job of ``total`` steps: yields ``advance(n=1)``. ``label`` (or a function giving
    it, called only if a bar is drawn: it may translate) names the job on the bar."""
    if not _SHOWN.get() or total <= 1:
        yield _nothing
        return
    state: dict[str, Any] = {"done": 0, "bar": None}
    start = time.perf_counter()

    def advance(n: int = 1) -> None:
        state["done"] += n
        bar = state["bar"]
        if bar is None:
            if time.perf_counter() - start < DELAY:
                return
            bar = state["bar"] = _open(label() if callable(label) else label, total)
        progress, task = bar
        progress.update(task, completed=state["done"])

    try:
        yield advance
    finally:
        if state["bar"] is not None:
            state["bar"][0].stop()


def _open(label: str, total: int) -> tuple[Any, Any]:
    """A rich progress bar on stderr, started."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    bar = Progress(
        f"arbitre: {label}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    bar.start()
    task = bar.add_task(label, total=total)
    return bar, task
