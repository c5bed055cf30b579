"""Benchmark: the table page's WebSocket (``arbitre serve``), latency of a drag.

A real uvicorn server on 127.0.0.1 (a thread of this process) and a WebSocket client
(``websockets``) drive scripted drags on seeded random tables
(:func:`arbitre.testing.random_table`) of 50 and 200 models: each ``move`` of one model
along a path, while the page looks at a shooter, is timed from the message sent to the
last of its replies received (the model moved and the view's rulings: JSON 2). Two views:
the Frostgrave shooter's lines of sight (``los``) and the Mordheim targets panel
(``targets``). Printed per view: the round trip's median and p95, the server's own time
(session and engine: the replies' ``ms``), the engine's part of it (``ask`` alone: the
answer's ``engine_ms``; the rest is the session's JSON, patch and warnings), and the
bytes a move brings back (its answer is a patch of the last one) against the whole
answer's. The baseline is the bare
``/echo`` endpoint with a message of a move's size: the cost of the socket alone.
Targets: p95 < 30 ms at 50 models, < 60 ms at 200. The drag never visits a spot twice
(every answer is the engine's work); a ``shooter`` row drags the view's shooter itself
(every line changes at every step: no pair is kept, :mod:`arbitre.rules.mordheim.kept`),
no target given; a ``back`` row then drags the model back over its
last spots, which the session answers from the answers it keeps by table content.

Usage: ``python3 bench/bench_serve.py [--moves N] [--sizes 50 200]``.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn
from websockets.sync.client import ClientConnection, connect

from arbitre import scenario
from arbitre.faces.web.app import create_app
from arbitre.testing import random_table

TARGET_P95_MS = {50: 30.0, 200: 60.0}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve() -> tuple[uvicorn.Server, int]:
    port = _free_port()
    app = create_app(warm=True)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws="websockets-sansio",
    )
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    # the kernels loaded and run once, the long-lived objects frozen (as a page sees it
    # a few seconds after ``arbitre serve`` starts)
    app.state.collector.settled.wait(600)
    return server, port


def _scenario(models: int, seed: int) -> dict[str, Any]:
    """A random table with a Mordheim shooter (BS 4, a 24-inch bow) in every model."""
    doc = scenario.dump(random_table(seed, models=models, terrain=max(8, models // 10)))
    for m in doc["models"]:
        m["stats"] = {"bs": 4}
        m["weapons"] = [{"name": "Bow", "range": 24 * 25.4}]
    return doc


def _until_last(ws: ClientConnection) -> dict[str, Any]:
    while True:
        reply: dict[str, Any] = json.loads(ws.recv())
        if reply.get("last"):
            return reply


class Drag:
    """What a scripted drag measured: per move, the round trip (ms), the server's own
    time (the session and the engine, ms: the replies' ``ms``), the engine's (``ask``
    alone: ``engine_ms``) and the bytes received."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.server: list[float] = []
        self.engine: list[float] = []
        self.sizes: list[int] = []


def _path(
    doc: dict[str, Any], moves: int, start: int = 0, mover: int = 1
) -> list[tuple[float, float]]:
    """The spots of a scripted drag: a model (the second by default) walking a small loop
    from where it stands, never twice on the same spot (each step drifts 0.01 mm), from
    step ``start``."""
    x0, y0 = doc["models"][mover]["at"]
    return [
        (x0 + 30 * (k % 7) / 7 + 0.01 * k, y0 + 20 * ((k * 3) % 5) / 5)
        for k in range(start, start + moves)
    ]


def _drag(
    ws: ClientConnection, doc: dict[str, Any], path: list[tuple[float, float]], mover: int = 1
) -> Drag:
    """Milliseconds from each move sent to its last reply, the moved model (the second
    by default; the first is the view's shooter) walking ``path``."""
    moved = doc["models"][mover]
    out = Drag()
    for k, (x, y) in enumerate(path):
        msg = json.dumps({"type": "move", "id": moved["id"], "x": x, "y": y, "seq": k})
        start = time.perf_counter()
        ws.send(msg)
        size = 0
        while True:
            raw = ws.recv()
            size += len(raw)
            last: dict[str, Any] = json.loads(raw)
            if last.get("last"):
                break
        out.times.append((time.perf_counter() - start) * 1000)
        out.server.append(float(last.get("ms", 0.0)))
        out.engine.append(float(last.get("engine_ms", 0.0)))
        out.sizes.append(size)
        if last["type"] == "error":
            raise RuntimeError(last["message"])
    return out


def _echo(port: int, size: int, moves: int) -> list[float]:
    body = json.dumps({"type": "move", "pad": "x" * max(0, size - 40)})
    times = []
    with connect(f"ws://127.0.0.1:{port}/echo", max_size=None) as ws:
        for _ in range(moves):
            start = time.perf_counter()
            ws.send(body)
            ws.recv()
            times.append((time.perf_counter() - start) * 1000)
    return times


def _stats(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200])
    args = parser.parse_args()
    server, port = _serve()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print(f"engine at commit {commit or '?'} (plus any uncommitted change), load {_load()}")
    print(
        f"{'table':>10} {'view':>10} {'median ms':>10} {'p95 ms':>8} {'target':>7}     "
        f"{'server ms':>9} {'engine ms':>9} {'session':>7}  bytes per move (whole answer)"
    )
    try:
        for models in args.sizes:
            doc = _scenario(models, seed=models)
            with connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
                _until_last_subject(ws)
                ws.send(json.dumps({"type": "open", "text": json.dumps(doc), "seq": -1}))
                _until_last(ws)
                for rules, question in (("frostgrave", "los"), ("mordheim", "targets")):
                    shooter = doc["models"][0]["id"]
                    view = {"type": "view", "rules": rules, "question": question}
                    ws.send(json.dumps({**view, "shooter": shooter, "seq": -2}))
                    reply = _until_last(ws)
                    size = len(json.dumps(reply))
                    _drag(ws, doc, _path(doc, 5, start=10_000))  # warm: kernels, caches
                    path = _path(doc, args.moves)
                    drag = _drag(ws, doc, path)
                    median, p95 = _stats(drag.times)
                    target = TARGET_P95_MS.get(models)
                    ok = "" if target is None else ("ok" if p95 < target else "SLOW")
                    per_move = round(statistics.median(drag.sizes))
                    own = statistics.median(drag.server)
                    engine = statistics.median(drag.engine)
                    pairs = zip(drag.server, drag.engine, strict=True)
                    session = statistics.median(s - e for s, e in pairs)
                    print(
                        f"{models:>4} models {question:>10} {median:>10.1f} {p95:>8.1f} "
                        f"{target or '-':>7} {ok:<4} {own:>9.1f} {engine:>9.1f} "
                        f"{session:>7.1f}  {per_move:,} ({size:,})"
                    )
                    # the same model dragged back over the last spots of its path: the
                    # answers kept by table content (the session's Answers)
                    back = _drag(ws, doc, path[::-1][: min(len(path), 20)])
                    b_median, b_p95 = _stats(back.times)
                    print(
                        f"{'':>10} {'back':>10} {b_median:>10.1f} {b_p95:>8.1f} "
                        f"{'':>7} {'':<4} {statistics.median(back.server):>9.1f}"
                    )
                    # the shooter itself dragged: every line changes at every step
                    held = _drag(ws, doc, _path(doc, args.moves, mover=0), mover=0)
                    _drag(ws, doc, [tuple(doc["models"][0]["at"])], mover=0)  # put back
                    o_median, o_p95 = _stats(held.times)
                    print(
                        f"{'':>10} {'shooter':>10} {o_median:>10.1f} {o_p95:>8.1f} "
                        f"{'':>7} {'':<4} {statistics.median(held.server):>9.1f} "
                        f"{statistics.median(held.engine):>9.1f}"
                    )
                    e_median, e_p95 = _stats(_echo(port, per_move, args.moves))
                    print(f"{'':>10} {'echo':>10} {e_median:>10.2f} {e_p95:>8.2f}")
    finally:
        server.should_exit = True


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def _until_last_subject(ws: ClientConnection) -> None:
    """The first message of a session: its subject (no seq, no ``last``)."""
    json.loads(ws.recv())


if __name__ == "__main__":
    main()
