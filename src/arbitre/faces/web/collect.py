"""When a serving page collects its garbage: between drags, never during one.

Python's cyclic garbage collector runs when allocations pass its thresholds, whatever
the process is doing. A ruling allocates many short-lived objects (measures, reasons,
texts) and the caches keep many long-lived ones (rulings kept by table content, the
page's answers), so the automatic passes fell in the middle of drags: on a 200-model
Mordheim table a full pass cost 100 to 270 ms, one move in six or seven, the p95 of a
drag three times its median. Rulings make no reference cycles, so their memory goes back
by reference counting as soon as they are dropped; the collector only finds cycles,
and those can wait for a pause.

While a page is served (:class:`Collector`, started by the application's lifespan):

- automatic collection is off;
- once the compiled kernels are loaded, what lives as long as the process (modules,
  numba's dispatchers and types) is collected once and frozen (:func:`gc.freeze`), so
  no later pass scans it again;
- after :data:`QUIET` seconds without a message, the young generations are collected;
  after :data:`IDLE` seconds, everything;
- a long busy spell still collects the young generations between two messages once
  :data:`YOUNG_LIMIT` allocations have piled up, so memory stays bounded.

The state is the process's own (the collector is global): one :class:`Collector` per
serving process, restored as it was when the server stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import time
from collections.abc import Iterator

#: Seconds without a message before the young generations are collected.
QUIET = 0.5
#: Seconds without a message before a full collection.
IDLE = 2.0
#: Allocations (gen 0 count) after which a busy page collects its young generations
#: between two messages anyway.
YOUNG_LIMIT = 2_000_000
#: How often the idle watch looks (seconds).
TICK = 0.25


class Collector:
    """The garbage collection of a serving page (see the module)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._busy = 0
        self._last = time.monotonic()
        self._young_due = False
        self._full_due = False
        self._was_enabled = gc.isenabled()
        self.passes: list[tuple[int, float]] = []  # (generation, seconds): the last few
        #: Set once the long-lived objects are frozen (:meth:`settle`).
        self.settled = threading.Event()

    def start(self) -> None:
        """Turn automatic collection off for the server's life."""
        self._was_enabled = gc.isenabled()
        gc.disable()

    def stop(self) -> None:
        """Give the collector back as it was."""
        gc.unfreeze()
        if self._was_enabled:
            gc.enable()

    def settle(self) -> None:
        """Once the kernels are loaded: collect everything, then freeze the survivors
        (they live as long as the process)."""
        with self._lock:
            self._collect(2)
            gc.freeze()
        self.settled.set()

    @contextlib.contextmanager
    def working(self) -> Iterator[None]:
        """Around the handling of a message (any thread): marks the page busy; after
        it, the young generations when :data:`YOUNG_LIMIT` allocations piled up."""
        with self._lock:
            self._busy += 1
        try:
            yield
        finally:
            with self._lock:
                self._busy -= 1
                self._last = time.monotonic()
                self._young_due = self._full_due = True
                if gc.get_count()[0] > YOUNG_LIMIT:
                    self._collect(1)

    def idle(self) -> int | None:
        """Collect what the quiet time allows now: the generation collected, or None."""
        with self._lock:
            if self._busy:
                return None
            quiet = time.monotonic() - self._last
            if self._full_due and quiet >= IDLE:
                self._collect(2)
                self._young_due = self._full_due = False
                return 2
            if self._young_due and quiet >= QUIET:
                self._collect(1)
                self._young_due = False
                return 1
        return None

    async def watch(self) -> None:
        """Look for quiet times while the server runs (a task of its event loop)."""
        while True:
            await asyncio.sleep(TICK)
            self.idle()

    def _collect(self, generation: int) -> None:
        start = time.perf_counter()
        gc.collect(generation)
        self.passes = [*self.passes[-9:], (generation, time.perf_counter() - start)]
