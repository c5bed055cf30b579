"""Benchmark: how fast arbitre refuses hostile files (issue 17), against a plain loader run
in the same process on the same files: ``yaml.safe_load`` (or ``json.loads``) of the whole
text, the way a naive tool reads a scenario before checking it.

arbitre reads at most 10 MB, refuses YAML aliases and nesting deeper than 40 levels and
counts the values before building any (at most 500,000), so each file is refused in well
under the 2 s the issue asks; the plain loader may take far longer, exhaust memory, or
crash (shown as its error). The plain loader is skipped on the alias bomb (it would build
a billion values) and the endless stream.

Usage: ``python bench/bench_hostile.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path

import yaml

import arbitre
from arbitre.errors import ArbitreError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_hostile import HOSTILE  # the hostile files the tests write

SKIP_PLAIN = {"alias bomb"}


def plain(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    try:
        if text.lstrip().startswith("{"):
            json.loads(text)
        else:
            yaml.safe_load(text)
    except (ValueError, RecursionError, yaml.YAMLError, MemoryError) as exc:
        return type(exc).__name__
    return "loaded"


def ours(path: Path | str) -> str:
    try:
        arbitre.load(path)
    except ArbitreError:
        return "refused"
    return "loaded"


def timed(run: Callable[[], str], repeats: int) -> tuple[float, str, float]:
    """Median seconds, the outcome, and the peak Python allocation (MB) of one run."""
    times, outcome = [], ""
    for _ in range(repeats):
        start = time.perf_counter()
        outcome = run()
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return statistics.median(times), outcome, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'file':28} {'arbitre s':>9} {'MB':>6} {'plain s':>9} {'MB':>6} {'ratio':>7}  outcome")
    with tempfile.TemporaryDirectory() as folder:
        cases: dict[str, Path | str] = {"endless stream": "/dev/zero"}
        for name, make in HOSTILE.items():
            written = Path(folder) / f"{len(cases)}.yaml"
            written.write_text(make(), encoding="utf-8")
            cases[name] = written
        for name, path in cases.items():
            t, outcome, mb = timed(partial(ours, path), args.repeats)
            if name in SKIP_PLAIN or isinstance(path, str):
                print(f"{name:28} {t:9.3f} {mb:6.0f} {'-':>9} {'-':>6} {'-':>7}  {outcome}")
                continue
            p_t, p_out, p_mb = timed(partial(plain, path), 1)
            print(
                f"{name:28} {t:9.3f} {mb:6.0f} {p_t:9.3f} {p_mb:6.0f} {p_t / t:7.1f}  "
                f"{outcome}; plain: {p_out}"
            )


if __name__ == "__main__":
    main()
