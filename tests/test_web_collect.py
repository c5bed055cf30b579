"""The served page's garbage collection (arbitre.faces.web.collect): off during a
message, young generations after a quiet spell, everything after a longer one, and the
collector given back as it was."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from arbitre.faces.web import collect
from arbitre.faces.web.collect import Collector


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(collect.time, "monotonic", c)
    return c


@pytest.fixture
def served() -> Iterator[Collector]:
    was = gc.isenabled()
    c = Collector()
    c.start()
    try:
        yield c
    finally:
        c.stop()
        if was:
            gc.enable()
        else:
            gc.disable()


def test_start_turns_automatic_collection_off_and_stop_gives_it_back() -> None:
    gc.enable()
    c = Collector()
    c.start()
    try:
        assert not gc.isenabled()
    finally:
        c.stop()
    assert gc.isenabled()


def test_stop_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        c = Collector()
        c.start()
        c.stop()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_nothing_is_collected_before_any_message(served: Collector, clock: Clock) -> None:
    clock.now += 100
    assert served.idle() is None


def test_quiet_collects_young_then_idle_collects_all(served: Collector, clock: Clock) -> None:
    with served.working():
        clock.now += 5  # a long message: quiet time counts from its end
    assert served.idle() is None
    clock.now += collect.QUIET / 2
    assert served.idle() is None
    clock.now += collect.QUIET
    assert served.idle() == 1
    assert served.idle() is None  # once per quiet spell
    clock.now += collect.IDLE
    assert served.idle() == 2
    assert served.idle() is None
    clock.now += 100
    assert served.idle() is None  # nothing new since
    assert [g for g, _ in served.passes] == [1, 2]


def test_a_long_idle_spell_goes_straight_to_everything(served: Collector, clock: Clock) -> None:
    with served.working():
        pass
    clock.now += collect.IDLE + 1
    assert served.idle() == 2
    assert served.idle() is None


def test_never_while_a_message_is_handled(served: Collector, clock: Clock) -> None:
    inside = threading.Event()
    release = threading.Event()

    def handle() -> None:
        with served.working():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=handle)
    t.start()
    try:
        assert inside.wait(5)
        clock.now += 100
        assert served.idle() is None
    finally:
        release.set()
        t.join(5)
    clock.now += collect.IDLE
    assert served.idle() == 2


def test_cycles_made_while_served_are_found_in_a_quiet_spell(
    served: Collector, clock: Clock
) -> None:
    class Node:
        pass

    with served.working():
        a, b = Node(), Node()
        a.other, b.other = b, a  # type: ignore[attr-defined]
        del a, b
    found = [o for o in gc.get_objects() if isinstance(o, Node)]
    assert len(found) == 2  # automatic collection is off: the cycle waits
    del found
    clock.now += collect.IDLE
    assert served.idle() == 2
    assert not [o for o in gc.get_objects() if isinstance(o, Node)]


def test_a_busy_page_collects_young_generations_past_the_limit(
    served: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(collect, "YOUNG_LIMIT", 1_000)
    with served.working():
        keep: list[list[int]] = [
            [] for _ in range(5_000)
        ]  # containers: the young generation's count
    assert [g for g, _ in served.passes] == [1]
    assert gc.get_count()[0] < 1_000
    del keep


def test_settle_freezes_what_lives_and_says_so(served: Collector) -> None:
    try:
        assert not served.settled.is_set()
        served.settle()
        assert served.settled.is_set()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_the_page_marks_itself_busy_while_it_handles_a_message(clock: Clock) -> None:
    from starlette.testclient import TestClient

    from arbitre.faces.web.app import create_app

    app = create_app()
    seen: list[int] = []
    c = Collector()  # not started: the test process keeps its own collector settings
    working = c.working

    def spy() -> Any:
        seen.append(c._busy)
        return working()

    c.working = spy  # type: ignore[method-assign]
    app.state.collector = c
    with TestClient(app) as client, client.websocket_connect("/ws") as ws:
        ws.receive_json()  # the subject
        clock.now += 50
        ws.send_json({"type": "ping", "seq": 1})
        reply = ws.receive_json()
        assert reply["seq"] == 1
    assert len(seen) >= 2  # opening the file, then the ping
    assert c._last == clock.now  # quiet time counts from the last message handled
    clock.now += collect.IDLE
    assert c.idle() == 2


@pytest.mark.parametrize("jit", ["never", "bogus"])
def test_a_served_page_settles_without_warming_when_told_not_to_compile(
    jit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ARBITRE_JIT=never``: the serving lifespan runs no kernels (plain Python, as asked)
    and still settles; a bad value is logged and settles too; the collector is given
    back as it was when the server stops."""
    from starlette.testclient import TestClient

    from arbitre import backend
    from arbitre.faces.web.app import create_app

    ran: list[str] = []
    monkeypatch.setattr(backend, "warm", lambda: ran.append("warm"))
    monkeypatch.setattr(backend, "compiled", lambda *a: ran.append("compiled"))
    monkeypatch.setenv("ARBITRE_JIT", jit)
    was = gc.isenabled()
    app = create_app(warm=True)
    try:
        with TestClient(app):
            assert app.state.collector.settled.wait(30)
            assert not gc.isenabled()
        assert ran == []
        assert gc.isenabled() == was
    finally:
        gc.enable() if was else gc.disable()
        gc.unfreeze()
