"""Test session defaults: the compiled kernels, so that every test runs the same build
whatever ran before it. tests/test_backend.py checks the interpreted build against it."""

import os

os.environ.setdefault("ARBITRE_JIT", "always")
# pytest-xdist's workers start with COLUMNS=80 in their environment; the command line's
# console reads it once, at import, and would lay every table out for 80 columns. A test
# wanting a width sets COLUMNS itself, as in a run without workers.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)
