"""The interpreted build of the kernels is the compiled one's source: same answers."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from arbitre import backend, sight
from arbitre.errors import ArbitreError
from arbitre.testing import random_table


@pytest.fixture
def jit(monkeypatch: pytest.MonkeyPatch):
    def use(mode: str) -> None:
        monkeypatch.setenv("ARBITRE_JIT", mode)

    return use


@pytest.mark.parametrize("seed", range(6))
def test_interpreted_and_compiled_kernels_agree(seed: int, jit) -> None:
    table = random_table(seed, models=10, terrain=8, degenerate=True, width=450.0)
    n = len(table.models)
    s, g = np.divmod(np.arange(n * n), n)
    s, g = s[s != g], g[s != g]
    ix = sight.build_index(table)
    weights = np.ones((n, len(ix.ids)))
    answers = []
    for mode in ("always", "never"):
        jit(mode)
        lines = sight.centre_line_batch(table, s, g, index=ix)
        fractions = sight.visible_fraction_batch(table, s, g, index=ix)
        stop, total = sight.all_pairs(table, stops=ix.blocks, weights=weights, index=ix)
        touch = sight.touching(table, index=ix)
        answers.append((lines, fractions, stop, total, touch))
    (a, fa, sa, ta, ua), (b, fb, sb, tb, ub) = answers
    assert np.array_equal(a.offsets, b.offsets)
    assert np.array_equal(a.piece, b.piece)
    assert np.allclose(a.t, b.t)
    assert np.array_equal(a.first_stop, b.first_stop)
    assert np.allclose(fa, fb, atol=1e-12)
    assert np.array_equal(sa >= 0, sb >= 0)
    assert np.array_equal(ta[sa < 0], tb[sb < 0])
    assert np.array_equal(ua, ub)


def test_small_jobs_do_not_load_numba() -> None:
    code = (
        "import sys, arbitre\n"
        "t = arbitre.load(arbitre.DEMO_SCENARIO)\n"
        "arbitre.los(t, 'archer', 'hunter')\n"
        "print('numba' in sys.modules, 'arbitre.kernels' in sys.modules)\n"
    )
    env = {**os.environ, "ARBITRE_JIT": "auto"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False"]


def test_large_jobs_run_compiled(jit) -> None:
    jit("auto")
    assert backend.kernels(backend.INTERPRET_BELOW) is backend.compiled()
    jit("never")
    assert backend.kernels(10**9) is backend.interpreted()


def test_bad_mode_is_a_clear_error(jit) -> None:
    jit("sometimes")
    with pytest.raises(ArbitreError, match="ARBITRE_JIT='sometimes'"):
        backend.kernels(1)


def _polygon_table_code(question: str, *corners: int) -> str:
    """A script asking ``question`` on tables with one polygon of ``corners`` corners each
    (in turn, in one process) and six models around it, printing after each whether the
    compiled kernels were loaded."""
    return (
        "import math, sys, arbitre\n"
        "from arbitre.geometry import Point, PolygonFootprint\n"
        "from arbitre.table import Model, Table, Terrain\n"
        f"for n in {corners!r}:\n"
        "    ring = tuple(Point(500 + (200 - 60 * (i % 2)) * math.cos(2 * math.pi * i / n),\n"
        "                       500 + (200 - 60 * (i % 2)) * math.sin(2 * math.pi * i / n))\n"
        "                 for i in range(n))\n"
        "    models = tuple(Model(f'm{i}', 'ab'[i % 2], Point(500 + 350 * math.cos(i),\n"
        "                                                     500 + 350 * math.sin(i)))\n"
        "                   for i in range(6))\n"
        "    wall = (Terrain('p', PolygonFootprint(ring)),)\n"
        "    t = Table(1000, 1000, terrain=wall, models=models)\n"
        f"    arbitre.ask(t, 'los', rules={question!r})\n"
        "    print('arbitre.kernels' in sys.modules)\n"
    )


@pytest.mark.parametrize("question", ["frostgrave", "darkage", "mordheim"])
def test_a_polygon_of_many_corners_runs_compiled(question: str) -> None:
    """The work counts a polygon's edges (issue 17: 500 corners took 57.6 s interpreted):
    8 corners run interpreted, then 500 in the same fresh process load the compiled
    kernels."""
    env = {**os.environ, "ARBITRE_JIT": "auto"}
    out = subprocess.run(
        [sys.executable, "-c", _polygon_table_code(question, 8, 500)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["False", "True"]


def test_the_work_of_a_piece_is_its_edges() -> None:
    table = random_table(3, models=4, terrain=6)
    ix = sight.build_index(table)
    sizes = backend.piece_sizes(ix.kind, ix.eoff)
    edges = np.diff(ix.eoff)
    assert np.array_equal(sizes[ix.kind == 1], edges[ix.kind == 1])
    assert np.all(sizes[ix.kind == 0] == 1)
    assert backend.piece_work(ix.kind, ix.eoff) == ix.work() == int(sizes.sum())
    assert ix.work([0, 1]) == int(sizes[:2].sum())
    assert ix.work(each=sight.share_work) >= 4 * ix.work()
    assert ix.work(each=sight.window_work) >= 40 * ix.work()


def test_progress_shows_nothing_unless_a_face_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Library loops report steps; with no face showing bars (tests, pipes, JSON) no bar
    is ever opened, however long the job."""
    from arbitre import progress

    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "_open", lambda *a: pytest.fail("a bar was opened"))
    with progress.steps(100, "pairs") as advance:
        for _ in range(100):
            advance()


def test_progress_bar_appears_after_the_delay_and_is_stopped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arbitre import progress

    seen: list[tuple[str, int]] = []

    class Bar:
        stopped = False

        def update(self, _task: object, completed: int) -> None:
            seen.append(("update", completed))

        def stop(self) -> None:
            Bar.stopped = True

    monkeypatch.setattr(progress, "_open", lambda label, total: (Bar(), 0))
    monkeypatch.setattr(progress, "DELAY", 0.0)
    with progress.shown(), progress.steps(5, lambda: "pairs") as advance:
        for _ in range(5):
            advance()
    assert seen[-1] == ("update", 5) and Bar.stopped
    monkeypatch.setattr(progress, "DELAY", 3600.0)  # a short job: no bar at all
    seen.clear()
    with progress.shown(), progress.steps(5, "pairs") as advance:
        advance(5)
    assert seen == []


def test_each_kernels_module_is_checked_for_a_cold_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module found cold (here the maps' kernels) is announced and warmed even when
    another module was compiled first in the process; then nothing is checked again."""
    warmed: list[bool] = []
    monkeypatch.setattr(backend, "_CHECKED", set())
    monkeypatch.setattr(backend, "_watched", lambda: True)
    monkeypatch.setattr(backend, "cold", lambda module: module.__name__ == "arbitre.kernels_maps")
    monkeypatch.setattr(backend, "_warm_watched", lambda: warmed.append(True))
    backend.compiled(backend.KERNELS)
    assert warmed == []
    backend.compiled("arbitre.kernels_maps")
    assert warmed == [True]
    for name in backend.KERNEL_MODULES:
        backend.compiled(name)
    assert warmed == [True]


def test_warming_loads_every_kernels_module_compiled() -> None:
    """:func:`backend.warm` (what the first-compile spinner runs) compiles every kernels
    module, the sight maps' too, so that none compiles later unannounced."""
    code = (
        "import sys; from arbitre import backend; backend.warm(); "
        "print([m for m in backend.KERNEL_MODULES if m not in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600
    )
    assert out.stdout.strip() == "[]"
