"""Bounded stores: the dicts the engine keeps its measures in, oldest entries dropped.

A dict remembers the order its keys came in, so the oldest entries are its first. But
dropping them one at a time (``del d[next(iter(d))]`` in a loop) is quadratic: CPython
leaves a dummy slot where a key was deleted, and each ``next(iter(d))`` walks every dummy
before the first live key until the dict is next resized. On a 1000-model table the
Frostgrave gaps' store spent most of a ruling there (:func:`trim` drops them in one pass).
"""

from __future__ import annotations

from collections.abc import Hashable
from itertools import islice
from typing import Any, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def trim(store: dict[Any, Any], keep: int) -> None:
    """Drop the oldest entries of ``store`` (its first keys) until at most ``keep`` are
    left, in one pass over them."""
    extra = len(store) - keep
    if extra > 0:
        for key in list(islice(store, extra)):
            del store[key]


def entry(stores: dict[K, dict[Any, V]], key: K, most: int) -> dict[Any, V]:
    """The store kept in ``stores`` (stores by what they rest on, as a terrain and a
    tolerance, the most recent last) under ``key``, made empty if missing and moved
    last, at most ``most`` of them kept. Called with the stores' lock held. The last
    one is found by comparing keys first: a key of the very same parts compares equal
    without hashing them (a terrain tuple hashes each of its pieces)."""
    if stores:
        last_key, last = next(reversed(stores.items()))
        if last_key == key:
            return last
    found = stores.pop(key, None)
    if found is None:
        found = {}
    stores[key] = found  # the most recent last
    trim(stores, most)
    return found
