"""Which build of the kernels runs a job: compiled by numba, or the same source interpreted.

The kernels of :mod:`arbitre.kernels` are written once. Compiled, they are fast, but
loading numba and its cached machine code costs about a second per process, which is
all a small question (one table, a few dozen pairs) needs in total. So a small job runs
the very same functions as plain Python, and only a large one (or any job once numba is
loaded in this process) runs compiled. ``ARBITRE_JIT`` forces the choice: ``always``,
``never``, or ``auto`` (the default).
"""

from __future__ import annotations

import builtins
import importlib.util
import os
import sys
import types
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from arbitre.i18n import N_

#: Below this many elementary tests (segment against disc or polygon edge: see
#: :func:`piece_work`), interpreting is faster
#: than loading the compiled code: about 0.1 s of Python against 0.6 s of start-up.
INTERPRET_BELOW = 20_000

_MODES = ("auto", "always", "never")


def mode() -> str:
    """``ARBITRE_JIT``: ``always``, ``never`` or ``auto`` (the default); an error naming
    any other value."""
    chosen = os.environ.get("ARBITRE_JIT", "auto").strip().lower() or "auto"
    if chosen not in _MODES:
        from arbitre.errors import ArbitreError

        raise ArbitreError(f"ARBITRE_JIT={chosen!r}: expected one of {', '.join(_MODES)}")
    return chosen


def piece_sizes(kind: np.ndarray, eoff: np.ndarray) -> np.ndarray:
    """The size of each packed piece for the work estimates: 1 for a disc (kind 0,
    ``kernels.DISC``), its number of edges for a polygon (at least 1)."""
    edges = np.maximum(np.diff(eoff[: len(kind) + 1]), 1)
    return np.where(kind == 0, 1, edges).astype(np.float64)


def piece_work(kind: np.ndarray, eoff: np.ndarray) -> int:
    """Elementary tests of one segment against every packed piece (a disc counts one, a
    polygon its edges): callers multiply it by their segments, so that a polygon of many
    corners, not one piece among others, decides the build."""
    return int(piece_sizes(kind, eoff).sum())


#: Below this many elementary tests a compiled job runs on one thread: waking the other
#: threads (OpenMP) costs more than it saves, and on a busy machine a woken thread may
#: wait a whole time slice (about 20 ms measured on this 2-core machine under load, for
#: a job of under a millisecond).
PARALLEL_ABOVE = 2_000_000


#: The kernels module every caller gets unless it names another (each kernels module is
#: written once and runs compiled or interpreted like this one).
KERNELS = "arbitre.kernels"


def kernels(work: int, name: str = KERNELS) -> Any:
    """The kernels module ``name`` to run a job of about ``work`` elementary tests
    (compiled, on as many threads as the job is worth, or its source interpreted)."""
    chosen = mode()
    if chosen == "always" or (chosen == "auto" and (work >= INTERPRET_BELOW or _compiled_loaded())):
        module = compiled(name)
        _threads(work)
        return module
    return interpreted(name)


def _threads(work: int) -> None:
    """One thread for a small job, every thread numba has for a large one."""
    import numba

    every = int(getattr(numba.config, "NUMBA_NUM_THREADS", 1))
    numba.set_num_threads(1 if work < PARALLEL_ABOVE else every)


def _compiled_loaded() -> bool:
    """Whether numba's machine code is already loaded in this process (then compiled is
    the cheaper build for any job)."""
    return KERNELS in sys.modules


def compiled(name: str = KERNELS) -> Any:
    """The numba build of the kernels module ``name`` (compiles on first use, then loads
    from the on-disk cache). The first time in a process that a kernels module is found
    with its cache cold while a person watches (stderr is a terminal), it says so and
    compiles every kernel of every module at once under a spinner."""
    module = importlib.import_module(name)
    if name not in _CHECKED:
        _CHECKED.add(name)
        if _watched() and cold(module):
            _CHECKED.update(KERNEL_MODULES)
            _warm_watched()
    return module


#: Every kernels module (each compiled by :func:`warm`).
KERNEL_MODULES = (
    KERNELS,
    "arbitre.kernels_darkage",
    "arbitre.kernels_mordheim",
    "arbitre.kernels_maps",
)

#: The kernels modules whose cache has been checked in this process.
_CHECKED: set[str] = set()

#: What a person is told before the first compile (a message id, see :mod:`arbitre.i18n`).
COMPILING = N_("compiling the sight kernels once, about a minute; cached afterwards")


def _watched() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def cold(module: Any) -> bool:
    """Whether the kernels of ``module`` have hardly any machine code cached for their
    current source (numba's on-disk index): the first compile after an install or an
    edit, not a kernel a rare question compiles later. Unreadable counts as warm: no
    false alarm."""
    from numba.core.registry import CPUDispatcher

    try:
        caches: list[Any] = [
            getattr(fn, "_cache", None)
            for fn in vars(module).values()
            if isinstance(fn, CPUDispatcher)
        ]
        found = [c._cache_file._load_index() != {} for c in caches if c is not None]
    except Exception:  # numba's private cache layout changed: say nothing
        return False
    return bool(found) and sum(found) < len(found) / 2


def _warm_watched() -> None:
    """Compile every kernel now, a spinner on stderr saying why it takes a minute."""
    import time

    from rich.console import Console

    from arbitre.i18n import T_, tr

    console = Console(stderr=True, highlight=False)
    start = time.perf_counter()
    with console.status(f"arbitre: {tr(COMPILING)}"):
        warm()
    done = T_("sight kernels compiled in {seconds} s", seconds=round(time.perf_counter() - start))
    console.print(f"arbitre: {done}")


def warm() -> None:
    """Run every ruleset's sight questions and sight maps once on small tables, compiled,
    so that each kernel is compiled (or loaded from the cache) for the types the
    questions use."""
    from arbitre import ask
    from arbitre.maps import sight_map
    from arbitre.testing import random_table

    saved = os.environ.get("ARBITRE_JIT")
    os.environ["ARBITRE_JIT"] = "always"
    try:
        for seed in (3, 4):
            table = random_table(seed, models=12, terrain=10, degenerate=seed == 4)
            for rules in ("frostgrave", "mordheim", "darkage"):
                ask(table, "los", rules=rules)
            ask(table, "targets", rules="mordheim", shooter=table.models[0].id)
            for rules in ("frostgrave", "mordheim"):
                sight_map(table, model=table.models[0].id, rules=rules, faces=False)
    finally:
        if saved is None:
            del os.environ["ARBITRE_JIT"]
        else:
            os.environ["ARBITRE_JIT"] = saved


def _njit(*args: Any, **kwargs: Any) -> Any:
    """Stand-in for ``numba.njit``: the function itself."""
    if args and callable(args[0]):
        return args[0]

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        return f

    return wrap


def interpreted(name: str = KERNELS) -> types.ModuleType:
    """The source of the kernels module ``name`` run as plain Python, numba not
    imported (once per process and module)."""
    return _interpreted(name)


@cache
def _interpreted(name: str) -> types.ModuleType:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None and spec.loader is not None
    # the module's own code object: read from its byte-code cache when Python wrote one
    # (the same as compiling the source, which costs ~50 ms for arbitre.kernels)
    code = spec.loader.get_code(name)  # type: ignore[attr-defined]
    stub = types.SimpleNamespace(njit=_njit, prange=range)
    real_import = builtins.__import__

    def importer(name: str, *args: Any, **kwargs: Any) -> Any:
        return stub if name == "numba" else real_import(name, *args, **kwargs)

    module = types.ModuleType(f"{name} (interpreted)")
    module.__dict__["__builtins__"] = {**vars(builtins), "__import__": importer}
    exec(code, module.__dict__)
    return module
