"""Bounded stores: the dicts the engine keeps its measures in, oldest entries dropped.

A dict remembers the order its keys came in, so the oldest entries are its first. But
dropping them one at a time (``del d[next(iter(d))]`` in a loop) is quadratic: CPython
leaves a dummy slot where a key was deleted, and each ``next(iter(d))`` walks every dummy
before the first live key until the dict is next resized. On a 1000-model table the
Frostgrave gaps' store spent most of a ruling there (:func:`trim` drops them in one pass).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from itertools import islice
from typing import Any, Generic, ParamSpec, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
P = ParamSpec("P")


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


class KeptBy(Generic[P, V]):
    """A function whose last ``most`` answers are kept by ``key`` of its arguments (not by
    the arguments themselves, as ``lru_cache`` keeps them), the most recently used last;
    thread-safe (made outside the lock: two threads may make one answer, the first kept)."""

    #: The function itself, nothing kept (set by ``functools.update_wrapper``).
    __wrapped__: Callable[P, V]

    def __init__(self, make: Callable[P, V], key: Callable[P, Hashable], most: int) -> None:
        self._make, self._key, self._most = make, key, most
        self._kept: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()
        functools.update_wrapper(self, make)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> V:
        key = self._key(*args, **kwargs)
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        made = self._make(*args, **kwargs)
        with self._lock:
            found = self._kept.setdefault(key, made)
            self._kept.move_to_end(key)
            while len(self._kept) > self._most:
                self._kept.popitem(last=False)
            return found

    def cache_clear(self) -> None:
        with self._lock:
            self._kept.clear()


def kept_by(key: Callable[P, Hashable], most: int) -> Callable[[Callable[P, V]], KeptBy[P, V]]:
    """Decorate a function so that its last ``most`` answers are kept by ``key`` of its
    arguments (:class:`KeptBy`): a table's measures by what they rest on, say."""

    def wrap(make: Callable[P, V]) -> KeptBy[P, V]:
        return KeptBy(make, key, most)

    return wrap
