"""The Starlette application of ``arbitre serve``: the page, its static files, the
WebSocket of one page's session, a JSON POST endpoint for scripts, and a bare echo.

Routes:

- ``GET /`` the page; ``GET /static/...`` its own files only (Starlette's
  :class:`~starlette.staticfiles.StaticFiles` refuses any path outside the folder);
  ``GET /strings/{lang}.js`` the page's texts (``en`` or ``fr``; any other name is
  English).
- ``WS /ws?lang=fr&browser=fr-FR`` a page's session (:mod:`arbitre.faces.web.session`):
  one JSON message in, its replies out; a bad message gets an ``error`` reply, never a
  closed connection. ``lang`` is the language the page chose (none: the scenario's, else
  the ``browser``'s); every reply is worded in the session's language.
- ``POST /api/ask`` ``{"scenario": text, "question", "rules", "options", "request",
  "lang"}`` answered with the JSON 2 envelope, exactly as ``arbitre QUESTION --json``
  prints it (its texts in ``lang``, else the scenario's, else ``Accept-Language``'s).
- ``POST /api/save`` ``{"scenario": text}``: the YAML the page would save.
- ``GET /api/rulesets`` the registry: every ruleset, its questions and options.
- ``WS /echo`` sends back what it gets (the benchmark's baseline).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from arbitre import backend, files, i18n
from arbitre.errors import ArbitreError
from arbitre.faces.web import protocol, stand
from arbitre.faces.web.collect import Collector
from arbitre.faces.web.protocol import MAX_MESSAGE, MessageError
from arbitre.faces.web.saving import to_yaml
from arbitre.faces.web.session import Session, open_file
from arbitre.i18n import T_, Count
from arbitre.rules import RULESETS, ask
from arbitre.rules.options import field_names
from arbitre.table import Table

log = logging.getLogger("arbitre.serve")

_R = TypeVar("_R")

STATIC = Path(str(resources.files("arbitre") / "faces" / "web" / "static"))
#: Languages of the page's texts: ``strings.<lang>.js`` in the static folder.
LANGS = ("en", "fr")


class TooLarge(MessageError):
    """A body longer than :data:`~arbitre.faces.web.protocol.MAX_MESSAGE`."""


async def _body(request: Request) -> dict[str, Any]:
    """The JSON object of a POST body, read no further than the cap."""
    size = int(request.headers.get("content-length") or 0)
    if size > MAX_MESSAGE:
        raise TooLarge(
            T_("body of {size} bytes: at most {most}", size=Count(size), most=Count(MAX_MESSAGE))
        )
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > MAX_MESSAGE:
            raise TooLarge(T_("body over {most} bytes", most=Count(MAX_MESSAGE)))
        chunks.append(chunk)
    try:
        doc = json.loads(b"".join(chunks) or b"null", parse_constant=protocol._no_constant)
    except (ValueError, RecursionError) as exc:
        raise MessageError(T_("body is not JSON: {why}", why=str(exc)[:120])) from None
    if not isinstance(doc, dict):
        raise MessageError(T_("body must be a JSON object"))
    return doc


def _scenario(doc: dict[str, Any]) -> Any:
    body = doc.get("scenario")
    if body is None:
        return None
    if not isinstance(body, str):
        raise MessageError(T_("scenario: the text of a scenario file (YAML or JSON)"))
    return files.load(body + "\n", source="scenario")  # always text, never a file name


def _refused(exc: Exception) -> JSONResponse:
    status = 413 if isinstance(exc, TooLarge) else 400
    return JSONResponse(protocol.error(str(exc)), status_code=status)


def _browser(request: Request) -> str:
    """The first language of the request's ``Accept-Language`` header (``fr-FR``)."""
    return request.headers.get("accept-language", "").split(",")[0].strip()[:40]


def _language(request: Request, doc: dict[str, Any] | None, subject: Any = None) -> i18n.Lang:
    """The language of a POST's reply: the body's ``lang``, else the scenario's, else
    ``Accept-Language``'s (French when it starts with ``fr``), else English."""
    given = (doc or {}).get("lang")
    chosen = given if given in i18n.LANGS else None
    return i18n.choose(chosen, getattr(subject, "lang", None), {"LANG": _browser(request)})


async def api_ask(request: Request) -> Response:
    """The JSON 2 answer to one question about the scenario in the body."""
    doc: dict[str, Any] | None = None
    subject: Any = None
    try:
        doc = await _body(request)
        subject = _scenario(doc)
        lang = _language(request, doc, subject)
        question = protocol.required_text(doc, "question")
        rules = protocol.text(doc, "rules")
        options = protocol.mapping(doc, "options")
        req = protocol.mapping(doc, "request")

        def work() -> dict[str, Any]:
            with i18n.speaking(lang):
                return ask(subject, question, rules=rules, options=options, **req).to_json()

        answer = await _work(request, work)
    except ArbitreError as exc:
        with i18n.speaking(_language(request, doc, subject)):
            return _refused(exc)
    return JSONResponse(answer)


async def api_save(request: Request) -> Response:
    """The YAML of the scenario in the body, in its own unit."""
    doc: dict[str, Any] | None = None
    try:
        doc = await _body(request)
        subject = _scenario(doc)
        if not isinstance(subject, Table):
            raise MessageError(T_("save: a table scenario is needed"))
    except ArbitreError as exc:
        with i18n.speaking(_language(request, doc)):
            return _refused(exc)
    return Response(to_yaml(subject), media_type="application/yaml")


async def api_rulesets(request: Request) -> Response:
    return JSONResponse(
        {
            name: {
                "title": r.title,
                "aliases": list(r.aliases),
                "options": list(field_names(r.options)),
                "questions": {
                    q.name: {
                        "title": q.title,
                        "subject": q.subject,
                        "fields": list(field_names(q.request)),
                    }
                    for q in r.questions.values()
                },
            }
            for name, r in RULESETS.items()
        }
    )


async def page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html")


async def strings(request: Request) -> Response:
    lang = request.path_params["lang"]
    if lang not in LANGS or not (STATIC / f"strings.{lang}.js").is_file():
        lang = "en"
    return FileResponse(STATIC / f"strings.{lang}.js", media_type="text/javascript")


async def _send_all(ws: WebSocket, replies: list[dict[str, Any]]) -> None:
    for reply in replies:
        await ws.send_text(json.dumps(reply, allow_nan=False, default=str))


#: Seconds the overlay waits after a change before it is computed (a newer change in
#: the meantime replaces it): a run of undos or edits asks for one map, not several.
STAND_DELAY = 0.12


class _Overlay:
    """The "where can I stand" map of a session, computed in the background after each
    change (:meth:`Session.stand_work`), one at a time, always the latest wanted (a map
    asked while another is computed waits for it; one asked in between is skipped), and
    sent unless a newer change made it stale."""

    def __init__(self, ws: WebSocket, session: Session, lock: asyncio.Lock) -> None:
        self.ws, self.session, self.lock = ws, session, lock
        self.task: asyncio.Task[None] | None = None
        self.wanted: stand.Job | None = None

    async def after(self) -> None:
        work = self.session.stand_work()
        if work is None:
            if self.session.maps.latest is None:
                self.wanted = None  # off, or no model: nothing is waited for
            return
        if isinstance(work, dict):
            self.wanted = None
            async with self.lock:
                await _send_all(self.ws, [work])
            return
        self.wanted = work
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while self.wanted is not None:
            await asyncio.sleep(STAND_DELAY)
            job, self.wanted = self.wanted, None
            if job is None:
                return
            try:
                reply = await _work(self.ws, job.run)
            except ArbitreError as exc:
                with i18n.speaking(self.session.lang):
                    reply = protocol.error(str(exc))
                reply["stand"] = True
            if reply.get("type") == "error" or self.session.maps.done(job, reply):
                async with self.lock:
                    await _send_all(self.ws, [reply])

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()


class _Item:
    """One message received: its text, parsed once (its error kept for its turn)."""

    def __init__(self, data: str | bytes) -> None:
        self.parsed: dict[str, Any] | None = None
        self.error: ArbitreError | None = None
        try:
            self.parsed = protocol.parse(data)
        except ArbitreError as exc:
            self.error = exc

    def message(self) -> dict[str, Any]:
        if self.error is not None:
            raise self.error
        assert self.parsed is not None
        return self.parsed


class _Inbox:
    """The messages of a socket, read as they come while the session works, so that a
    drag step made stale by the next one waiting is skipped (answered ``superseded``)."""

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.items: collections.deque[_Item | None] = collections.deque()
        self.ready = asyncio.Event()

    async def read(self) -> None:
        try:
            while True:
                raw = await self.ws.receive()
                if raw["type"] == "websocket.disconnect":
                    break
                data = raw.get("text")
                self.items.append(_Item(data if data is not None else raw.get("bytes") or b""))
                self.ready.set()
        finally:
            self.items.append(None)
            self.ready.set()

    async def next(self) -> _Item | None:
        while not self.items:
            self.ready.clear()
            await self.ready.wait()
        return self.items.popleft()

    def superseded(self, msg: dict[str, Any]) -> bool:
        """Whether ``msg`` is a drag step (a move, not a drop) of a model whose next move
        is already waiting: its answer would be stale before it is drawn."""
        if msg.get("type") != "move" or msg.get("drop") or not self.items:
            return False
        following = self.items[0]
        nxt = following.parsed if following is not None else None
        return nxt is not None and nxt.get("type") == "move" and nxt.get("id") == msg.get("id")


def session_endpoint(start: str | None) -> Any:
    """The WebSocket handler of a page: a session of its own, on the file ``start``."""

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        lang = ws.query_params.get("lang")
        browser = ws.query_params.get("browser", "")
        try:
            session: Session = await _work(ws, functools.partial(open_file, start, lang, browser))
        except ArbitreError as exc:
            session = open_file(None, lang, browser)
            with i18n.speaking(session.lang):
                await _send_all(ws, [protocol.error(str(exc))])
        with i18n.speaking(session.lang):
            await _send_all(ws, [session.subject_message()])
        lock = asyncio.Lock()  # the overlay's replies are sent whole, between others
        overlay = _Overlay(ws, session, lock)
        inbox = _Inbox(ws)
        reader = asyncio.create_task(inbox.read())
        try:
            while True:
                item = await inbox.next()
                if item is None:
                    return
                seq = None
                try:
                    msg = item.message()
                    seq = msg.get("seq")
                    if inbox.superseded(msg):  # a newer move of the same model is waiting
                        replies = [{"type": "superseded", "seq": seq, "last": True}]
                    else:
                        replies = await _work(ws, functools.partial(session.handle, msg))
                except ArbitreError as exc:
                    with i18n.speaking(session.lang):
                        replies = [protocol.error(str(exc), seq=seq)]
                except Exception as exc:  # a bug: said in the page, the page goes on
                    log.exception("unexpected error")
                    with i18n.speaking(session.lang):
                        message = T_(
                            "unexpected error ({error}): please report it",
                            error=type(exc).__name__,
                        )
                        replies = [protocol.error(str(message), seq=seq)]
                async with lock:
                    await _send_all(ws, replies)
                await overlay.after()
        except WebSocketDisconnect:
            return
        finally:
            overlay.close()
            reader.cancel()

    return endpoint


async def echo(ws: WebSocket) -> None:
    """Sends back every message: the latency of the socket alone."""
    await ws.accept()
    try:
        while True:
            await ws.send_text(await ws.receive_text())
    except WebSocketDisconnect:
        return


@contextlib.asynccontextmanager
async def _serving(app: Starlette) -> AsyncIterator[None]:
    """A serving process: the compiled sight kernels loaded and run once in the
    background as the server starts (a page asks many small questions in a row, each
    faster compiled; the first start after the kernels change compiles them, about a
    minute; questions meanwhile wait for it), and the garbage collected between drags,
    never during one (:mod:`arbitre.faces.web.collect`)."""
    collector = Collector()
    app.state.collector = collector
    collector.start()

    def load() -> None:
        try:
            if backend.mode() != "never":  # ARBITRE_JIT=never: the kernels stay plain Python
                backend.compiled()
                backend.warm()
        except ArbitreError as exc:  # a bad ARBITRE_JIT: every question says so too
            log.warning("%s", exc)
        finally:
            collector.settle()

    threading.Thread(target=load, name="arbitre-kernels", daemon=True).start()
    watch = asyncio.create_task(collector.watch())
    try:
        yield
    finally:
        watch.cancel()
        collector.stop()


async def _work(conn: HTTPConnection, work: Callable[[], _R]) -> _R:
    """``work()`` in the thread pool, the page marked busy meanwhile for a served page's
    collector (:meth:`Collector.working`)."""
    collector: Collector | None = getattr(conn.app.state, "collector", None)
    if collector is None:
        return await run_in_threadpool(work)

    def busy() -> _R:
        with collector.working():
            return work()

    return await run_in_threadpool(busy)


def create_app(path: str | None = None, *, warm: bool = False) -> Starlette:
    """The application serving the page on the scenario ``path`` (the demo without one).
    It writes no file, except ``path`` itself when the page saves to it. ``warm``: a
    serving process (``arbitre serve`` and its benchmark; tests need not wait): it loads
    and runs the compiled kernels as it starts and collects garbage between drags
    (:func:`_serving`)."""
    if path is not None:
        files.load(path)  # a bad file is refused before the server starts
    return Starlette(
        lifespan=_serving if warm else None,
        routes=[
            Route("/", page),
            Route("/strings/{lang}.js", strings),
            Route("/api/ask", api_ask, methods=["POST"]),
            Route("/api/save", api_save, methods=["POST"]),
            Route("/api/rulesets", api_rulesets),
            WebSocketRoute("/ws", session_endpoint(path)),
            WebSocketRoute("/echo", echo),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
    )
