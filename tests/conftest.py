"""Test session defaults: the compiled kernels, so that every test runs the same build
whatever ran before it. tests/test_backend.py checks the interpreted build against it."""

import os

os.environ.setdefault("ARBITRE_JIT", "always")
