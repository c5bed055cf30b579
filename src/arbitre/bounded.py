"""Bounded stores: the dicts the engine keeps its measures in, oldest entries dropped.

A dict remembers the order its keys came in, so the oldest entries are its first. But
dropping them one at a time (``del d[next(iter(d))]`` in a loop) is quadratic: CPython
leaves a dummy slot where a key was deleted, and each ``next(iter(d))`` walks every dummy
before the first live key until the dict is next resized. On a 1000-model table the
Frostgrave gaps' store spent most of a ruling there (:func:`trim` drops them in one pass).
"""

from __future__ import annotations

from itertools import islice
from typing import Any


def trim(store: dict[Any, Any], keep: int) -> None:
    """Drop the oldest entries of ``store`` (its first keys) until at most ``keep`` are
    left, in one pass over them."""
    extra = len(store) - keep
    if extra > 0:
        for key in list(islice(store, extra)):
            del store[key]
