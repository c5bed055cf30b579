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

#: Below this many elementary tests (segment against disc or polygon edge: see
#: :func:`piece_work`), interpreting is faster
#: than loading the compiled code: about 0.1 s of Python against 0.6 s of start-up.
INTERPRET_BELOW = 20_000

_MODES = ("auto", "always", "never")


def _mode() -> str:
    mode = os.environ.get("ARBITRE_JIT", "auto").strip().lower() or "auto"
    if mode not in _MODES:
        from arbitre.errors import ArbitreError

        raise ArbitreError(f"ARBITRE_JIT={mode!r}: expected one of {', '.join(_MODES)}")
    return mode


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


def kernels(work: int) -> Any:
    """The kernels module to run a job of about ``work`` elementary tests."""
    mode = _mode()
    if mode == "always" or (mode == "auto" and (work >= INTERPRET_BELOW or _compiled_loaded())):
        return compiled()
    return interpreted()


def _compiled_loaded() -> bool:
    return "arbitre.kernels" in sys.modules


def compiled() -> Any:
    """The numba build (compiles on first use, then loads from the on-disk cache)."""
    from arbitre import kernels as compiled_kernels

    return compiled_kernels


def _njit(*args: Any, **kwargs: Any) -> Any:
    """Stand-in for ``numba.njit``: the function itself."""
    if args and callable(args[0]):
        return args[0]

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        return f

    return wrap


@cache
def interpreted() -> types.ModuleType:
    """The kernels' source run as plain Python, numba not imported."""
    spec = importlib.util.find_spec("arbitre.kernels")
    assert spec is not None and spec.origin is not None and spec.loader is not None
    source = spec.loader.get_source("arbitre.kernels")  # type: ignore[attr-defined]
    stub = types.SimpleNamespace(njit=_njit, prange=range)
    real_import = builtins.__import__

    def importer(name: str, *args: Any, **kwargs: Any) -> Any:
        return stub if name == "numba" else real_import(name, *args, **kwargs)

    module = types.ModuleType("arbitre.kernels (interpreted)")
    module.__dict__["__builtins__"] = {**vars(builtins), "__import__": importer}
    exec(compile(source, spec.origin, "exec"), module.__dict__)
    return module
