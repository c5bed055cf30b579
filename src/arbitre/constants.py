"""Constants that the command line's help shows, in a module that imports nothing, so
that ``arbitre --help`` loads no engine (no numpy, shapely, pydantic, yaml).

Each stays importable where it is documented: :data:`arbitre.reading.MAX_BYTES`,
:data:`arbitre.imports.DEFAULT_THICKNESS`.
"""

from __future__ import annotations

#: Largest file read, in bytes.
MAX_BYTES = 10_000_000
#: Wall thickness of an imported scene when none is given, in inches: a drawn wall line.
DEFAULT_THICKNESS = 0.1
