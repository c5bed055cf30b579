"""Hostile and broken files (issue 17): a bad file gets one clear error, a valid file never
crashes, nothing runs unbounded.

- The fuzz suite feeds random mutations of every example and golden file through the
  loader and, when they load, through every question of every registered ruleset: the
  only outcomes allowed are rulings or an :class:`~arbitre.errors.ArbitreError`, each case
  within a watchdog bound.
- The resource tests write their own hostile files (alias bombs, deep nesting, 4,300-digit
  integers, 100,000 models, a 1,000,000-vertex polygon, an endless stream, 10,000 places):
  each is answered or refused, within the watchdog's bound and under 200 MB: of Python
  allocations (tracemalloc) for the small ones; for the big ones (:data:`BIG`), tracing
  every allocation of millions of parsed values made the test five times slower, so they
  are loaded in a child process whose peak resident memory (the operating system's count
  of every allocation, C ones included) may grow by no more. Their times are printed by
  ``bench/bench_hostile.py``; no test here asserts a speed.
"""

from __future__ import annotations

import copy
import functools
import json
import signal
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arbitre
from arbitre.errors import ArbitreError
from arbitre.rules import RULESETS

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted([*ROOT.glob("examples/*.yaml"), *ROOT.glob("tests/golden/*/*.yaml")])
DOCS = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in FILES]

#: A case that runs longer than this is a hang (far beyond any case's real time).
WATCHDOG_S = 30
#: Python allocations allowed to one hostile file, in bytes.
MEMORY = 200 * 1024 * 1024


class Hang(Exception):
    pass


@contextmanager
def watchdog(seconds: int = WATCHDOG_S) -> Iterator[None]:
    """Fail a case that runs unbounded (SIGALRM: the main thread, on POSIX)."""

    def alarm(signum: int, frame: object) -> None:
        raise Hang(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def questions(subject: Any) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every question of every ruleset, asked of a few subjects of ``subject``."""
    if isinstance(subject, arbitre.PlaceMap):
        units = [u.id for u in subject.units][:2]
        for u in units:
            yield "places", "move", {"unit": u}
        for p in subject.places[:2]:
            yield "places", "place", {"place": p.id}
        if len(units) == 2:
            yield "places", "shot", {"shooter": units[0], "target": units[1]}
        return
    ids = [m.id for m in subject.models][:3]
    for name, ruleset in RULESETS.items():
        if "los" in ruleset.questions and ids:
            yield name, "los", {"shooter": ids[0]}
    for m in subject.models[:3]:
        yield "mordheim", "targets", {"shooter": m.id}
        yield "darkage", "activation", {"model": m.id, "actions": ("move",), "ap": 2}
        for w in m.weapons:
            if w.breath:
                yield "breath", "breath", {"shooter": m.id, "weapon": w.name, "angle": 30.0}
                yield "breath", "breath", {"shooter": m.id, "weapon": w.name, "best": True}
    if len(ids) == 2:
        yield "mordheim", "shoot", {"shooter": ids[0], "target": ids[1], "seed": 1}


def rule_everything(doc: object) -> None:
    """Load ``doc``; if it loads, ask it everything. Only rulings or ArbitreError."""
    try:
        subject = arbitre.load(json.dumps(doc, allow_nan=True) if not isinstance(doc, str) else doc)
    except ArbitreError:
        return
    for rules, question, request in questions(subject):
        try:
            answer = arbitre.ask(subject, question, rules=rules, **request)
        except ArbitreError:
            continue
        json.dumps(answer.to_json(), allow_nan=False)  # the JSON is valid JSON


# -- mutations --------------------------------------------------------------------------

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1e-323, 1e300, -1e300, 1e9, "", "x", [], {}, [0], [0, 0], [[0, 0]]]),
    st.text(max_size=5),
)


def paths(value: object, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            found += paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += paths(v, (*here, i))
    return found


def get(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        doc = doc[part]
    return doc


@st.composite
def mutated(draw: st.DrawFn) -> object:
    doc = copy.deepcopy(draw(st.sampled_from(DOCS)))
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.sampled_from(paths(doc)))
        if not where:
            continue
        parent, key = get(doc, where[:-1]), where[-1]
        action = draw(st.sampled_from(["junk", "delete", "scale", "copy"]))
        if action == "junk":
            parent[key] = draw(JUNK)
        elif action == "delete":
            del parent[key]
        elif (
            action == "scale"
            and isinstance(parent[key], int | float)
            and not isinstance(parent[key], bool)
        ):
            parent[key] = parent[key] * draw(st.sampled_from([0, -1, 1e-9, 1e6, 1.0000001]))
        elif action == "copy" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
    return doc


def _fuzz(examples: int) -> Callable[[Callable[[object], None]], Any]:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@_fuzz(100)
@given(mutated())
def test_mutated_files_give_rulings_or_one_clear_error(doc: object) -> None:
    with watchdog():
        rule_everything(doc)


@pytest.mark.slow
@_fuzz(250)
@given(mutated())
def test_mutated_files_give_rulings_or_one_clear_error_full(doc: object) -> None:
    with watchdog():
        rule_everything(doc)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_example_answers_every_question(path: Path) -> None:
    with watchdog():
        rule_everything(path.read_text(encoding="utf-8"))


# -- hostile files ----------------------------------------------------------------------


def alias_bomb() -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for k in range(1, 9):
        lines.append(f"a{k}: &a{k} [{', '.join([f'*a{k - 1}'] * 10)}]")
    return "\n".join(lines) + "\narbitre: 1\ntable: [10, 10]\ncites: *a8\n"


def many_models(n: int) -> str:
    models = ",".join(f'{{"id":"m{i}","side":"s{i % 2}","at":[1,1]}}' for i in range(n))
    return f'{{"arbitre":1,"table":[100,100],"models":[{models}]}}'


def big_polygon(n: int) -> str:
    points = ",".join(f"[{i % 100},{(i * 7) % 100}]" for i in range(n))
    return f'{{"arbitre":1,"table":[100,100],"terrain":[{{"id":"p","polygon":[{points}]}}]}}'


def many_places(n: int) -> str:
    places = ",".join(f'{{"id":"p{i}"}}' for i in range(n))
    return f'{{"arbitre":1,"places":[{places}]}}'


HOSTILE: dict[str, Callable[[], str]] = {
    "alias bomb": alias_bomb,
    "deep YAML": lambda: "arbitre: 1\ntable: [10, 10]\ncites: " + "[" * 100_000 + "]" * 100_000,
    "deep JSON": lambda: '{"arbitre": 1, "cites": ' + "[" * 900 + "]" * 900 + "}",
    "4,300-digit integer": lambda: "arbitre: 1\ntable: [" + "9" * 4400 + ", 10]\n",
    "100,000 models": lambda: many_models(100_000),
    "1,000,000-vertex polygon": lambda: big_polygon(1_000_000),
    "10,000 places": lambda: many_places(10_000),
}


#: The hostile files a ``main`` run refuses slowly (a second to parse each): the everyday
#: CLI test asks them ``validate`` only, the ``slow`` one every command.
BIG = ("100,000 models", "1,000,000-vertex polygon")


@functools.cache
def hostile_text(name: str) -> str:
    """The text of the hostile file ``name``, built once per session."""
    return HOSTILE[name]()


#: The child process of the big hostile files: it loads a small example first (so that the
#: imports a load makes are not counted), then each file named, and prints for each its
#: error and the growth of its peak resident memory over its resident memory before it,
#: in bytes. Linux: writing 5 to ``/proc/self/clear_refs`` resets the peak (``VmHWM``); where
#: that is refused the child prints ``null`` and the test traces allocations in process.
_CHILD = """
import json, sys
import arbitre

def kib(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field))

arbitre.load(sys.argv[1])
out = []
try:
    for path in sys.argv[2:]:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        before = kib("VmRSS:")
        try:
            arbitre.load(path)
            error = None
        except arbitre.ArbitreError as exc:
            error = str(exc)
        out.append({"error": error, "growth": (kib("VmHWM:") - before) * 1024})
except OSError:
    out = None
print(json.dumps(out))
"""


def _loaded_in_a_child(*paths: Path) -> list[dict[str, Any]] | None:
    """Load ``paths`` in order in a fresh process: each one's error and memory growth
    (``None`` where the peak cannot be reset)."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(FILES[0]), *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=WATCHDOG_S,
        check=True,
    )
    out: list[dict[str, Any]] | None = json.loads(done.stdout.splitlines()[-1])
    return out


def test_a_child_sees_the_memory_a_load_takes(tmp_path: Path) -> None:
    """The child's measure is not blind: a file it refuses costs it memory it reports, a
    big file far more than a small one."""
    small, big = tmp_path / "small.yaml", tmp_path / "big.yaml"
    small.write_text(many_models(100)[:-1] + ',"bad":1}', encoding="utf-8")
    big.write_text(many_models(30_000)[:-1] + ',"bad":1}', encoding="utf-8")
    out = _loaded_in_a_child(small, big)
    if out is None:
        pytest.skip("the peak resident memory cannot be reset here (/proc/self/clear_refs)")
    first, second = out
    assert "unknown field" in first["error"] and "unknown field" in second["error"]
    assert 0 <= first["growth"] < 2**20 < 4 * 2**20 < second["growth"], (first, second)


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_files_are_refused_bounded(name: str, tmp_path: Path) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_text(hostile_text(name), encoding="utf-8")
    measured = _loaded_in_a_child(path) if name in BIG else None
    if measured is not None:
        (out,) = measured
        assert out["error"] is not None, "the hostile file loaded"
        assert 0 <= out["growth"] < MEMORY, f"{out['growth'] / 2**20:.0f} MB"
        assert len(out["error"]) < 5_000 and "Traceback" not in out["error"]
        return
    tracemalloc.start()
    try:
        with watchdog(), pytest.raises(ArbitreError) as info:
            arbitre.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MEMORY, f"{peak / 2**20:.0f} MB"
    message = str(info.value)
    assert len(message) < 5_000 and "Traceback" not in message


def test_an_endless_stream_is_refused_bounded() -> None:
    tracemalloc.start()
    try:
        with watchdog(), pytest.raises(ArbitreError, match="more than 10,000,000 bytes"):
            arbitre.load("/dev/zero")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < MEMORY


def _cli_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str], everything: bool) -> None:
    from arbitre.cli import main

    for name in HOSTILE:
        path = tmp_path / "h.yaml"
        path.write_text(hostile_text(name), encoding="utf-8")
        commands = [
            ["validate", str(path)],
            ["los", str(path)],
            ["render", str(path), "-o", str(tmp_path / "x.svg")],
        ]
        for command in commands if everything or name not in BIG else commands[:1]:
            with watchdog():
                code = main(command)
            _, err = capsys.readouterr()
            assert code == 2, (name, command, err)
            assert err.startswith("arbitre: ") and "Traceback" not in err
            assert len(err) < 5_000, name
        assert not (tmp_path / "x.svg").exists()


def test_the_cli_refuses_hostile_files_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every hostile file through ``validate``, the small ones through every command (the
    big ones through every command in the ``slow`` twin)."""
    _cli_refuses(tmp_path, capsys, everything=False)


@pytest.mark.slow
def test_the_cli_refuses_hostile_files_with_one_line_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cli_refuses(tmp_path, capsys, everything=True)
