"""Python's cycle collector paused around work that makes many objects and no cycles.

A ruling of thousands of pairs, an arrangement of tens of thousands of cells, the SVG of
a map: each makes objects by the hundred thousand, none in a reference cycle, and every
pass of the collector meanwhile would walk all of them for nothing (a fifth of the time
of thousands of Frostgrave pairs). :func:`paused` holds the passes off while it runs and
lets them resume as they were (a caller that had paused them keeps them paused).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector's automatic passes held off inside the block."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
