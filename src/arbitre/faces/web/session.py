"""One page's state: the table (or map of places) on screen, what is being looked at, and
the undo history; every message of :mod:`arbitre.faces.web.protocol` handled here.

The session asks the registry (:func:`arbitre.rules.ask`) exactly as the command line
does and sends the JSON 2 envelope to the page, which only draws it: no rule lives here
or in the page. A move dropped near a piece, window or base snaps to contact first
(:mod:`arbitre.faces.web.snap`, G4).

Each page speaks one language (issue 12): the one it chose (a ``lang`` message), else
the scenario's ``lang``, else the browser's; every message is handled, and its rulings
and errors worded, in it (:func:`arbitre.i18n.speaking`).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import math
import time
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arbitre import DEMO_SCENARIO, files, i18n, sanity, vocabulary
from arbitre.errors import ArbitreError
from arbitre.faces.svg.draw import path as svg_path
from arbitre.faces.svg.draw import side_colours
from arbitre.faces.web import edits, snap, stand
from arbitre.faces.web.patch import diff
from arbitre.faces.web.protocol import (
    MAX_UPLOAD,
    MessageError,
    mapping,
    number,
    required_number,
    required_text,
    text,
)
from arbitre.faces.web.saving import to_yaml
from arbitre.geometry import Point, WallFootprint
from arbitre.i18n import T_, Count, _
from arbitre.places import PlaceMap
from arbitre.rules import RULESETS, ask, ruleset_for
from arbitre.rules.options import field_names
from arbitre.table import Table

Subject = Table | PlaceMap

#: Undo steps kept.
HISTORY = 200
#: Answers kept by what they answer (:class:`Answers`): undo, redo, a drag back over
#: the same spots answer at once.
ANSWERS = 48
#: The fields of a request that name the model a view is about, in order of preference.
WHO = ("shooter", "unit", "model")


@dataclass(frozen=True, slots=True)
class View:
    """What the page looks at: ``question`` asked of ``shooter`` under ``rules`` (the
    subject's when ``None``), with a breath ``weapon``, its aim ``angle`` and ``apex``
    (degrees; B2) or the ``best`` aim, and ``options`` over the subject's."""

    question: str | None = None
    rules: str | None = None
    shooter: str | None = None
    weapon: str | None = None
    angle: float | None = None
    apex: float | None = None
    best: bool = False
    options: tuple[tuple[str, Any], ...] = ()


class Answers:
    """The JSON documents of the last answers, by everything an answer depends on: the
    subject (its content: a table moved back to where it was is equal to the one then),
    the question, ruleset, options and request, and the language of its texts.

    A document is the engine's answer exactly (it was once computed for that key, and
    the engine answers a value by its value); it is shared, never changed: the patches
    of :mod:`arbitre.faces.web.patch` build new values. The oldest is dropped first.
    """

    def __init__(self, size: int = ANSWERS) -> None:
        self.size = size
        self.docs: collections.OrderedDict[Hashable, dict[str, Any]] = collections.OrderedDict()
        self.hits = 0

    def get(self, key: Hashable) -> dict[str, Any] | None:
        """The document kept for ``key`` (``None``: none, or a key that cannot be hashed,
        as options holding a list: such answers are not kept)."""
        try:
            doc = self.docs.get(key)
        except TypeError:
            return None
        if doc is not None:
            self.docs.move_to_end(key)
            self.hits += 1
        return doc

    def put(self, key: Hashable, doc: dict[str, Any]) -> None:
        try:
            self.docs[key] = doc
        except TypeError:
            return
        self.docs.move_to_end(key)
        while len(self.docs) > self.size:
            self.docs.popitem(last=False)


@dataclass
class Session:
    """The state of one page (a WebSocket connection): mutable, it changes with each
    message; the subject itself is a frozen value replaced on each change."""

    subject: Subject
    path: Path | None = None
    view: View = field(default_factory=View)
    undo: list[Subject] = field(default_factory=list)
    redo: list[Subject] = field(default_factory=list)
    dragging: bool = False
    #: The language the page chose (``None``: the scenario's, else the browser's).
    chosen: i18n.Lang | None = None
    #: The browser's language (``navigator.language``, such as ``fr-FR``).
    browser: str = ""
    #: The "where can I stand" overlay (:mod:`arbitre.faces.web.stand`).
    maps: stand.Maps = field(default_factory=stand.Maps)
    #: The view's answer last sent, and how it was asked (a move's answer is its patch).
    sent: tuple[Any, dict[str, Any]] | None = None
    #: The view's answers by table content and request (:class:`Answers`).
    answers: Answers = field(default_factory=Answers)

    @property
    def lang(self) -> i18n.Lang:
        """The language the page speaks: the one it chose, else the scenario's ``lang``,
        else the browser's (French when it starts with ``fr``), else English."""
        return i18n.choose(self.chosen, self.subject.lang, {"LANG": self.browser})

    # -- messages ------------------------------------------------------------------------

    def handle(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The replies to one parsed message (in order); an :class:`ArbitreError` when
        it cannot be done (the caller turns it into an ``error`` message)."""
        kind = msg["type"]
        seq = msg.get("seq")
        start = time.perf_counter()
        with i18n.speaking(self.lang):
            replies: list[dict[str, Any]] = getattr(self, f"_on_{kind}")(msg)
        ms = (time.perf_counter() - start) * 1000
        for reply in replies:
            reply.setdefault("seq", seq)
            reply.setdefault("ms", round(ms, 2))
        replies[-1]["last"] = True  # the page and the benchmark know the answer is whole
        return replies

    def _on_stand(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The overlay on or off; its map follows in the background (:meth:`stand_work`)."""
        on = msg.get("on", True)
        if not isinstance(on, bool):
            raise MessageError(T_("stand.on: true or false, got {on}", on=repr(on)))
        self.maps.on = on
        self.maps.latest = None
        return [{"type": "stand", "on": on, "pending": on and self.view.shooter is not None}]

    def stand_work(self) -> stand.Job | dict[str, Any] | None:
        """What the overlay needs after the last message: nothing, a kept map to send, or
        a map to compute in the background. Nothing while a model is being dragged: the
        map is asked once it is dropped, so moves stay live."""
        if self.dragging or not isinstance(self.subject, Table):
            return None
        options = (*self.view.options, ("(lang)", self.lang))
        return self.maps.job(self.subject, self.view.shooter, self.view.rules, options)

    def _on_ping(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [{"type": "pong"}]

    def _on_lang(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        lang = required_text(msg, "lang")
        if lang not in i18n.LANGS:
            raise MessageError(T_("lang: en or fr, got {lang}", lang=repr(lang)))
        self.chosen = i18n.check(lang)
        with i18n.speaking(self.lang):  # the subject and the view again, in that language
            return [self.subject_message(), *self._answer()]

    def _on_open(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        if msg.get("demo"):
            subject = files.load(DEMO_SCENARIO)
        elif isinstance(msg.get("new"), dict):
            new = msg["new"]
            unit = text(new, "unit", default="in") or "in"
            if unit not in ("in", "cm", "mm"):
                raise MessageError(T_("open.new.unit: in, cm or mm, got {unit}", unit=repr(unit)))
            size = number(new, "width", default=914.4) or 914.4
            subject = edits.blank(size, number(new, "depth", default=size) or size, unit)
        else:
            body = msg.get("text")
            if not isinstance(body, str):
                raise MessageError(T_("open: needs demo, new or the text of a scenario"))
            if len(body.encode("utf-8")) > MAX_UPLOAD:
                raise MessageError(T_("open: scenario of over {n} bytes", n=Count(MAX_UPLOAD)))
            name = text(msg, "name", default="upload") or "upload"
            # a trailing newline: the text is always read as text, never as a file name
            subject = files.load(body + "\n", source=name)
        self.subject = subject
        self.undo.clear()
        self.redo.clear()
        self.view = View()
        with i18n.speaking(self.lang):  # the new scenario may speak another language
            return [self.subject_message()]

    def _on_view(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        best = msg.get("best", False)
        if not isinstance(best, bool):
            raise MessageError(T_("view.best: true or false, got {best}", best=repr(best)))
        options = mapping(msg, "options")
        before = self.view
        self.view = View(
            question=text(msg, "question"),
            rules=text(msg, "rules"),
            shooter=text(msg, "shooter"),
            weapon=text(msg, "weapon"),
            angle=number(msg, "angle"),
            apex=number(msg, "apex"),
            best=best,
            options=tuple(sorted(options.items())),
        )
        # the same question of the same model asked again (a template's aim dragged): a
        # patch of the answer held, as for a move
        same = (before.question, before.rules, before.shooter, before.weapon) == (
            self.view.question,
            self.view.rules,
            self.view.shooter,
            self.view.weapon,
        )
        return self._answer(patch=same)

    def _on_move(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        if isinstance(self.subject, PlaceMap):
            return self._move_unit(self.subject, msg)
        table = self._table("move")
        ident = required_text(msg, "id")
        at = Point(required_number(msg, "x"), required_number(msg, "y"))
        drop = bool(msg.get("drop", False))
        if not self.dragging:
            self._push()
        self.dragging = not drop
        snapped = snap.snap(table, ident, at) if drop and msg.get("snap", True) else None
        if snapped is not None:
            at = snapped.at
        self.subject = table.moved(ident, at)
        moved = {
            "type": "moved",
            "id": ident,
            "x": at.x,
            "y": at.y,
            "snap": None if snapped is None else snapped.to_json(),
        }
        if drop:
            moved["warnings"] = self._warnings()
        moved["can_undo"], moved["can_redo"] = bool(self.undo), bool(self.redo)
        return [moved, *self._answer(patch=True)]

    def _move_unit(self, placemap: PlaceMap, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        """P3-P4 played: the unit ``id`` goes to ``place`` if the engine's ``move`` question
        says it can end its move there (with the view's points), arriving last (P6)."""
        ident, there = required_text(msg, "id"), required_text(msg, "place")
        rules = self.view.rules if self.view.question == "move" else None
        answer = ask(placemap, "move", rules=rules, options=dict(self.view.options), unit=ident)
        ruling = answer.ruling
        way = next((w for w in ruling.ways if w.place == there), None)
        if way is None:
            raise MessageError(
                T_(
                    "move: {unit} cannot end its move on {place} with {points} points",
                    unit=ident,
                    place=there,
                    points=ruling.points,
                )
            )
        self._push()
        arrived = max((u.arrived for u in placemap.units_on(there) if u.id != ident), default=0)
        units = tuple(
            replace(u, place=there, arrived=arrived + 1) if u.id == ident else u
            for u in placemap.units
        )
        self.subject = replace(placemap, units=units)
        moved = {
            "type": "moved",
            "id": ident,
            "place": there,
            "from": way.path[0],
            "spent": way.spent,
            "left": way.left,
            "exhaustion": way.exhaustion,
        }
        return [moved, self.subject_message(), *self._answer()]

    def _on_edit(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        table = self._table("edit")
        changed = edits.apply(table, msg)
        self._push()
        self.subject = changed
        if self.view.shooter is not None and self.view.shooter not in changed:
            self.view = replace(self.view, shooter=None)
        return [self.subject_message(), *self._answer()]

    def _on_undo(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        return self._step(self.undo, self.redo)

    def _on_redo(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        return self._step(self.redo, self.undo)

    def _on_measure(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        table = self._table("measure")
        a, b = required_text(msg, "a"), required_text(msg, "b")
        ma, mb = table.model(a), table.model(b)
        centre = ma.at.distance(mb.at)
        edge = centre - ma.base.radius - mb.base.radius
        u = table.unit
        return [
            {
                "type": "measure",
                "a": a,
                "b": b,
                "centre_mm": centre,
                "edge_mm": edge,
                "centre": u.measure(centre).render(),
                "edge": u.measure(edge).render(),
            }
        ]

    def _on_ask(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        question = required_text(msg, "question")
        request = mapping(msg, "request")
        answer = ask(
            self.subject,
            question,
            rules=text(msg, "rules") or self.view.rules,
            options=dict(self.view.options),
            **request,
        )
        doc = answer.to_json()
        return [{"type": "answer", "role": "asked", "answer": doc, "tests": _tests(doc)}]

    def _on_svg(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        from arbitre.faces.svg.overlays import overlays
        from arbitre.faces.svg.places import render_places
        from arbitre.faces.svg.table import render_table

        if isinstance(self.subject, PlaceMap):
            return [{"type": "svg", "svg": render_places(self.subject)}]
        v, table, opts = self.view, self.subject, dict(self.view.options)
        if v.shooter is None:
            return [{"type": "svg", "svg": render_table(table)}]
        answer = ask(table, "los", rules=v.rules, options=opts, shooter=v.shooter)
        ruleset = RULESETS[answer.rules]
        svg = render_table(
            table,
            rulings=answer.rulings,
            shooter=v.shooter,
            overlays=overlays(table, ruleset.name, v.shooter, options=opts),
            centre_lines=ruleset.sight != "S3",
        )
        return [{"type": "svg", "svg": svg}]

    def _on_save(self, msg: Mapping[str, Any]) -> list[dict[str, Any]]:
        table = self._table("save")
        body = to_yaml(table)
        written = None
        if msg.get("to_file"):
            if self.path is None:
                raise MessageError(T_("save: no file was opened from the command line"))
            self.path.write_text(body, encoding="utf-8")
            written = str(self.path)
        name = (self.path.name if self.path else "table.yaml") or "table.yaml"
        return [{"type": "saved", "yaml": body, "name": name, "written": written}]

    # -- helpers -------------------------------------------------------------------------

    def _table(self, what: str) -> Table:
        if not isinstance(self.subject, Table):
            raise MessageError(T_("{what}: a map of places has no table to {what} on", what=what))
        return self.subject

    def _push(self) -> None:
        self.undo.append(self.subject)
        del self.undo[:-HISTORY]
        self.redo.clear()

    def _step(self, source: list[Subject], target: list[Subject]) -> list[dict[str, Any]]:
        if not source:
            key = "nothing_to_undo" if source is self.undo else "nothing_to_redo"
            message = _("nothing to undo") if source is self.undo else _("nothing to redo")
            return [{"type": "info", "key": key, "message": message}]
        target.append(self.subject)
        self.subject = source.pop()
        self.dragging = False
        if self.view.shooter is not None and self.view.shooter not in self._ids():
            self.view = replace(self.view, shooter=None)
        return [self.subject_message(), *self._answer()]

    def _ids(self) -> set[str]:
        if isinstance(self.subject, PlaceMap):
            return {u.id for u in self.subject.units}
        return {m.id for m in self.subject.models}

    def _warnings(self) -> list[dict[str, Any]]:
        """The table's warnings for the page: each one's words (without the path of the
        scenario file it is about, which a player dragging models has not seen), the ids
        it is about (the page marks them on the board) and that path."""
        if not isinstance(self.subject, Table):
            return []
        return [
            {"text": words, "ids": list(ids), "where": where}
            for where, ids, words in _warnings(self.subject, self.lang)
        ]

    def request(self) -> dict[str, Any] | None:
        """The request fields of the view's question (``None``: nothing to ask yet)."""
        v = self.view
        if v.question is None or v.shooter is None:
            return None
        ruleset = ruleset_for(self.subject, v.question, v.rules)
        fields = field_names(ruleset.questions[v.question].request)
        who = next((f for f in WHO if f in fields), None)
        if who is None:
            raise MessageError(
                T_("view: {question} is not asked of one model", question=repr(v.question))
            )
        req: dict[str, Any] = {who: v.shooter}
        if "weapon" in fields and v.weapon:
            req["weapon"] = v.weapon
        if "best" in fields and v.best:
            req["best"] = True
        elif "angle" in fields:
            req["angle"] = v.angle if v.angle is not None else self._facing(v.shooter)
        if "apex" in fields and v.apex is not None and not req.get("best"):
            req["apex"] = v.apex  # B2: where the apex sits on the rim (best searches it)
        return req

    def _facing(self, ident: str) -> float:
        """A first aim for a template: from the model towards the table's centre."""
        table = self._table("aim")
        at = table.model(ident).at
        return math.degrees(math.atan2(table.depth / 2 - at.y, table.width / 2 - at.x))

    def _answer(self, *, patch: bool = False) -> list[dict[str, Any]]:
        """The view's answer on the subject now: whole, or with ``patch`` (a move) as the
        difference from the answer last sent to the page when it was asked the same way
        (:mod:`arbitre.faces.web.patch`); ``tests`` then words only the margin tests
        the patch brings (the page keeps the others)."""
        req = self.request()
        if req is None:
            self.sent = None
            return [{"type": "answer", "role": "view", "answer": None}]
        v = self.view
        how = (v.question, v.rules, self.lang)
        key = (self.subject, how, v.options, tuple(sorted(req.items())))
        doc = self.answers.get(key)
        engine = 0.0
        if doc is None:
            start = time.perf_counter()
            answer = ask(
                self.subject, v.question or "", rules=v.rules, options=dict(v.options), **req
            )
            engine = time.perf_counter() - start
            doc = answer.to_json()
            self.answers.put(key, doc)
        before, self.sent = self.sent, (how, doc)
        # the engine's own time (ask; 0 for a kept answer): the rest of the reply's ``ms``
        # is the session's (the JSON, the patch, the warnings)
        timing = {"engine_ms": round(engine * 1000, 2)}
        if patch and before is not None and before[0] == how:
            node = diff(before[1], doc)
            return [
                {
                    "type": "answer",
                    "role": "view",
                    "patch": node,
                    "request": req,
                    "tests": _tests(node),
                    **timing,
                }
            ]
        return [
            {
                "type": "answer",
                "role": "view",
                "answer": doc,
                "request": req,
                "tests": _tests(doc),
                **timing,
            }
        ]

    # -- the subject, for drawing -------------------------------------------------------

    def subject_message(self) -> dict[str, Any]:
        """What the page draws: the pieces as SVG paths (y flipped, mm) and the models,
        the questions every ruleset answers about this kind of subject, the warnings."""
        s = self.subject
        kind = "places" if isinstance(s, PlaceMap) else "table"
        questions = [
            {
                "rules": r.name,
                "title": i18n.tr(r.title),
                "question": q.name,
                "question_title": i18n.tr(q.title),
                "fields": list(field_names(q.request)),
                "required": _required(q.request),
            }
            for r in RULESETS.values()
            for q in r.questions.values()
            if q.subject == kind
        ]
        base: dict[str, Any] = {
            "type": "subject",
            "kind": kind,
            "name": s.name,
            "rules": s.rules,
            "questions": questions,
            "can_undo": bool(self.undo),
            "can_redo": bool(self.redo),
            "file": str(self.path) if self.path else None,
            "lang": self.lang,
            "scenario_lang": s.lang,
        }
        if isinstance(s, PlaceMap):
            from arbitre.faces.svg.places import render_places

            base["svg"] = render_places(s)
            base["units"] = [dataclasses.asdict(u) for u in s.units]
            return base
        colours = side_colours(s.sides())
        base.update(
            width=s.width,
            depth=s.depth,
            unit=s.unit.name,
            unit_mm=s.unit.mm,
            contact_tolerance=s.contact_tolerance,
            sides={side: colours[side] for side in s.sides()},
            terrain=[dict(_piece(t)) for t in s.terrain],
            models=[_model(m) for m in s.models],
            warnings=self._warnings(),
        )
        return base


def _tests(doc: Any) -> dict[str, str]:
    """Every margin test named in an answer's document (``margin_test``, an English label
    such as ``contact hunter-hedge``) worded for people in the current language."""
    found: dict[str, str] = {}
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            test = item.get("margin_test")
            if isinstance(test, dict):  # a patch's new value (arbitre.faces.web.patch)
                test = test.get("=")
            if isinstance(test, str) and test not in found:
                found[test] = vocabulary.test_words(test)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _required(request: type[Any]) -> list[str]:
    """The fields a request cannot go without."""
    return [
        f.name
        for f in dataclasses.fields(request)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]


@functools.lru_cache(maxsize=64)
def _warnings(table: Table, lang: i18n.Lang) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """The first 50 warnings of :func:`arbitre.sanity.warnings` about ``table``: where,
    the ids, the words in ``lang`` (kept: undo, redo and a drop back where a model was
    ask them again)."""
    with i18n.speaking(lang):
        return tuple((c.where, c.ids, str(c.text)) for c in sanity.warnings(table)[:50])


@functools.lru_cache(maxsize=4096)
def _piece(t: Any) -> dict[str, Any]:
    """A piece as the page draws it (kept by piece: a terrain value hashes once; the
    caller copies the dict before handing it out)."""
    fp = t.footprint
    shape = fp.shape()
    windows = []
    if isinstance(fp, WallFootprint):
        windows = [svg_path(fp.window_slice(w)) for w in fp.windows]
    c = shape.representative_point()
    return {
        "id": t.id,
        "name": t.name,
        "sight": t.sight,
        "size": t.size,
        "building": t.building,
        "d": svg_path(shape),
        "windows": windows,
        "label": [c.x, c.y],
        "kind": type(fp).__name__.removesuffix("Footprint").lower(),
    }


def _model(m: Any) -> dict[str, Any]:
    return {
        "id": m.id,
        "name": m.name,
        "side": m.side,
        "x": m.at.x,
        "y": m.at.y,
        "r": m.base.radius,
        "size": m.size,
        "inside": m.inside,
        "stats": dict(m.stats),
        "weapons": [{"name": w.name, "range": w.range, "breath": w.breath} for w in m.weapons],
    }


def open_file(path: str | None, lang: str | None = None, browser: str = "") -> Session:
    """The session of the file given on the command line (the demo without one), in the
    language ``lang`` the page chose (ignored unless en or fr), else the scenario's, else
    the ``browser``'s."""
    chosen = i18n.check(lang) if lang in i18n.LANGS else None
    subject = files.load(DEMO_SCENARIO if path is None else path)
    return Session(
        subject, path=None if path is None else Path(path), chosen=chosen, browser=browser[:40]
    )


def error_text(exc: ArbitreError) -> str:
    """An error for the page: its message, the path of the first problems kept."""
    return str(exc)
