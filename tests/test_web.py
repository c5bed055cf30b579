"""The server of ``arbitre serve`` (issue 13), through Starlette's TestClient: its
endpoints, the WebSocket protocol, what it refuses (path traversal, oversize messages and
uploads, malformed messages), G4 snapping, and saving round-trips through ``arbitre
validate``.

The page asks the engine through the registry: every answer here is compared with
:func:`arbitre.ask` itself, or with a hand-checked geometric fact (a gap of 0 mm).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely

with warnings.catch_warnings():  # starlette's note about httpx's successor
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import arbitre
from arbitre.faces.cli import main
from arbitre.faces.web import patch, protocol
from arbitre.faces.web.app import create_app
from arbitre.faces.web.snap import SNAP_MM, gap_to, snap, touches
from arbitre.geometry import Point
from arbitre.places import PlaceMap
from arbitre.testing import random_table

ROOT = Path(__file__).resolve().parents[1]
DEMO = arbitre.load_table(arbitre.DEMO_SCENARIO)
INCH = 25.4


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app()) as c:
        yield c


class Page:
    """A WebSocket session, as the page holds it."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.subject: dict[str, Any] = ws.receive_json()
        self.seq = 0
        self.answer: Any = None
        self.tests: dict[str, str] = {}

    def send(self, **msg: Any) -> list[dict[str, Any]]:
        """Send one message; every reply to it (they carry its seq)."""
        self.seq += 1
        self.ws.send_text(json.dumps({**msg, "seq": self.seq}))
        return self.replies()

    def replies(self) -> list[dict[str, Any]]:
        out = [self.ws.receive_json()]
        while not out[-1].get("last"):  # the last reply to a message says so
            out.append(self.ws.receive_json())
        for reply in out:  # a move's answer comes as a patch of the view's last one
            if reply["type"] == "answer" and reply.get("role") == "view":
                if "patch" in reply:
                    reply["answer"] = patch.apply(self.answer, reply["patch"])
                    reply["tests"] = {**self.tests, **reply["tests"]}
                self.answer, self.tests = reply["answer"], reply.get("tests") or {}
        return out


@pytest.fixture()
def page(client: TestClient) -> Iterator[Page]:
    with client.websocket_connect("/ws") as ws:
        yield Page(ws)


# -- static files ----------------------------------------------------------------------


def test_the_page_and_its_files_are_served(client: TestClient) -> None:
    index = client.get("/")
    assert index.status_code == 200 and 'src="/static/app.js"' in index.text
    for name in ("app.js", "draw.js", "panel.js", "dom.js", "style.css", "strings.en.js"):
        assert client.get(f"/static/{name}").status_code == 200, name
    strings = client.get("/strings/en.js")
    assert strings.status_code == 200 and "export default" in strings.text
    # an unknown language falls back to English, never to a file of that name
    assert client.get("/strings/xx.js").text == strings.text
    sneaky = client.get("/strings/..%2f..%2fapp.js")
    assert sneaky.status_code == 404 or sneaky.text == strings.text


@pytest.mark.parametrize(
    "path",
    [
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/static/%2e%2e%2f%2e%2e%2f__init__.py",
        "/static//etc/passwd",
        "/static/%2fetc%2fpasswd",
        "/../../etc/passwd",
    ],
)
def test_path_traversal_is_refused(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code in (404, 400, 405), (path, r.status_code)
    assert "def create_app" not in r.text and "root:" not in r.text


def test_no_cdn_and_no_build_step() -> None:
    static = ROOT / "src" / "arbitre" / "faces" / "web" / "static"
    for f in static.iterdir():
        text = f.read_text(encoding="utf-8")
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", ""), f.name
        assert "https://" not in text, f.name


# -- the JSON POST endpoint -------------------------------------------------------------


def test_api_ask_answers_as_the_library(client: TestClient) -> None:
    text = Path(arbitre.DEMO_SCENARIO).read_text(encoding="utf-8")
    r = client.post(
        "/api/ask",
        json={"scenario": text, "question": "los", "request": {"shooter": "archer"}},
    )
    assert r.status_code == 200
    assert r.json() == json.loads(json.dumps(arbitre.ask(DEMO, "los", shooter="archer").to_json()))


def test_api_ask_refuses_with_one_message(client: TestClient) -> None:
    text = Path(arbitre.DEMO_SCENARIO).read_text(encoding="utf-8")
    bad = client.post(
        "/api/ask", json={"scenario": text, "question": "los", "request": {"shooter": "nobody"}}
    )
    assert bad.status_code == 400 and "nobody" in bad.json()["message"]
    assert client.post("/api/ask", content=b"{not json").status_code == 400
    assert client.post("/api/ask", content=b"[1, 2]").status_code == 400
    # a file name is never read: the scenario is always text
    r = client.post("/api/ask", json={"scenario": "/etc/passwd", "question": "los"})
    assert r.status_code == 400 and "root:" not in r.text


def test_api_body_size_is_capped(client: TestClient) -> None:
    big = b'{"scenario": "' + b"x" * (protocol.MAX_MESSAGE + 10) + b'"}'
    r = client.post("/api/ask", content=big)
    assert r.status_code == 413 and "at most" in r.json()["message"]


def test_api_rulesets_lists_the_registry(client: TestClient) -> None:
    doc = client.get("/api/rulesets").json()
    assert set(doc) == set(arbitre.RULESETS)
    assert "shooter" in doc["frostgrave"]["questions"]["los"]["fields"]


def test_api_save_round_trips_through_validate(client: TestClient, tmp_path: Path) -> None:
    text = (ROOT / "examples" / "mordheim-merchant-square.yaml").read_text(encoding="utf-8")
    r = client.post("/api/save", json={"scenario": text})
    assert r.status_code == 200
    out = tmp_path / "square.yaml"
    out.write_text(r.text, encoding="utf-8")
    assert main(["validate", str(out)]) == 0
    again = arbitre.load(out)
    first = arbitre.load(ROOT / "examples" / "mordheim-merchant-square.yaml")
    assert isinstance(again, arbitre.Table) and isinstance(first, arbitre.Table)
    assert again.unit == first.unit  # the file's unit (inches) is kept
    for a, b in zip(again.models, first.models, strict=True):
        assert a.id == b.id and a.at.distance(b.at) < 1e-6
        assert a.weapons == b.weapons or all(
            abs((x.range or 0) - (y.range or 0)) < 1e-6
            for x, y in zip(a.weapons, b.weapons, strict=True)
        )


# -- the WebSocket ------------------------------------------------------------------------


def test_the_session_starts_on_the_demo(page: Page) -> None:
    s = page.subject
    assert s["type"] == "subject" and s["kind"] == "table"
    assert [m["id"] for m in s["models"]] == [m.id for m in DEMO.models]
    assert {q["question"] for q in s["questions"]} >= {"los", "targets", "breath"}
    assert s["unit"] == "in" and s["unit_mm"] == INCH


def test_view_answers_as_the_library(page: Page) -> None:
    (reply,) = page.send(type="view", question="los", shooter="archer")
    assert reply["type"] == "answer" and reply["seq"] == page.seq
    assert reply["answer"] == json.loads(
        json.dumps(arbitre.ask(DEMO, "los", shooter="archer").to_json())
    )


@pytest.mark.parametrize(
    "raw",
    [
        "not json",
        "[1, 2, 3]",
        '"a string"',
        '{"no": "type"}',
        '{"type": "launch-missiles"}',
        '{"type": "move", "id": "archer"}',
        '{"type": "move", "id": "archer", "x": "far", "y": 1}',
        '{"type": "move", "id": "archer", "x": NaN, "y": 1}',
        '{"type": "move", "id": "archer", "x": 1e300, "y": 1}',
        '{"type": "move", "id": "nobody", "x": 1, "y": 1}',
        '{"type": "view", "question": "los", "shooter": "nobody"}',
        '{"type": "view", "question": "nothing", "shooter": "archer"}',
        '{"type": "view", "question": "los", "shooter": ["archer"]}',
        '{"type": "edit", "op": "add", "kind": "terrain", '
        '"item": {"id": "x", "circle": {"at": [1, 1], "radius": -3}}}',
        '{"type": "edit", "op": "explode"}',
        '{"type": "open", "text": "/etc/passwd"}',
        '{"type": "open", "text": "arbitre: 1\\ntable: [10]"}',
        '{"type": "measure", "a": "archer"}',
        '{"type": "ask", "question": "shoot", '
        '"request": {"shooter": "archer", "target": "hunter", "bogus": 1}}',
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_a_malformed_message_gets_an_error_and_the_session_goes_on(page: Page, raw: str) -> None:
    page.ws.send_text(raw)
    reply = page.ws.receive_json()
    assert reply["type"] == "error" and reply["message"]
    assert len(reply["message"]) <= 600
    assert "root:" not in reply["message"]
    # the session still answers, on the table as it was
    (answer,) = page.send(type="view", question="los", shooter="archer", target=None)
    assert answer["type"] == "answer" and len(answer["answer"]["rulings"]) == 7


def test_an_oversize_message_is_refused(page: Page) -> None:
    page.ws.send_text(json.dumps({"type": "open", "text": "x" * (protocol.MAX_MESSAGE + 1)}))
    reply = page.ws.receive_json()
    assert reply["type"] == "error" and "at most" in reply["message"]


def test_an_upload_opens_and_a_bad_one_names_its_problem(page: Page) -> None:
    text = (ROOT / "examples" / "darkage-wall.yaml").read_text(encoding="utf-8")
    (subject,) = page.send(type="open", text=text, name="wall.yaml")
    assert subject["type"] == "subject" and {m["id"] for m in subject["models"]} >= {"L", "M1"}
    bad = text.replace("table:", "table: [-5, 3]\nold_table:", 1)
    (err,) = page.send(type="open", text=bad, name="bad.yaml")
    assert err["type"] == "error" and "bad.yaml" in err["message"]


def test_a_move_answers_the_view_on_the_moved_table(page: Page) -> None:
    page.send(type="view", question="los", shooter="elementalist")
    to = (20 * INCH, 8.5 * INCH)
    moved, answer = page.send(type="move", id="warhound", x=to[0], y=to[1])
    assert moved["type"] == "moved" and moved["snap"] is None
    expect = arbitre.ask(DEMO.moved("warhound", Point(*to)), "los", shooter="elementalist")
    assert answer["answer"] == json.loads(json.dumps(expect.to_json()))
    hound = next(r for r in answer["answer"]["rulings"] if r["target"] == "warhound")
    assert not hound["visible"] and "tower" in hound["blockers"]  # F2


def test_undo_and_redo(page: Page) -> None:
    page.send(type="move", id="thug", x=100.0, y=100.0, drop=True, snap=False)
    subject, _ = page.send(type="undo")
    assert subject["type"] == "subject"
    thug = next(m for m in subject["models"] if m["id"] == "thug")
    assert (thug["x"], thug["y"]) == (DEMO.model("thug").at.x, DEMO.model("thug").at.y)
    subject, _ = page.send(type="redo")
    thug = next(m for m in subject["models"] if m["id"] == "thug")
    assert (thug["x"], thug["y"]) == (100.0, 100.0)
    (info,) = page.send(type="redo")
    assert info["type"] == "info"


def test_a_move_says_whether_it_can_be_undone(page: Page) -> None:
    """The toolbar's Undo follows a drag: the ``moved`` reply says there is a step to undo
    (the subject, which says it too, is not sent again for a move)."""
    assert page.subject["can_undo"] is False
    moved, _ = page.send(type="move", id="thug", x=100.0, y=100.0)
    assert (moved["can_undo"], moved["can_redo"]) == (True, False)
    page.send(type="undo")
    moved, _ = page.send(type="move", id="thug", x=120.0, y=100.0, drop=True, snap=False)
    assert (moved["can_undo"], moved["can_redo"]) == (True, False)  # a new move: no redo


def test_an_answer_says_the_engine_s_part_of_the_server_s_time(page: Page) -> None:
    """``engine_ms`` is the engine's ``ask`` alone (within the reply's ``ms``, which
    adds the session's JSON and patch); an answer kept by table content asks nothing."""
    (first,) = page.send(type="view", question="los", shooter="elementalist")
    assert 0 < first["engine_ms"] <= first["ms"]
    page.send(type="move", id="thug", x=100.0, y=100.0, drop=True, snap=False)
    _, kept = page.send(type="undo")  # the demo as it was: its answer is kept
    assert kept["engine_ms"] == 0 and kept["answer"] == first["answer"]


def test_a_model_dropped_inside_the_tower_is_warned_with_its_ids(page: Page) -> None:
    """A drop inside the blocking tower: the ``moved`` reply lists the engine's warning
    (:func:`arbitre.sanity.warnings` of the moved table) with the ids the page marks on
    the board and its words without the scenario path (``models[8]: ``); undo and the
    demo as it was have none."""
    from arbitre import sanity

    at = (24.5 * INCH, 10.5 * INCH)  # the tower: 22-27 x 8-13 in
    moved, _ = page.send(type="move", id="witch", x=at[0], y=at[1], drop=True, snap=False)
    expect = sanity.warnings(DEMO.moved("witch", Point(*at)))
    assert [w["ids"] for w in moved["warnings"]] == [list(c.ids) for c in expect]
    (inside,) = [w for w in moved["warnings"] if w["ids"] == ["witch", "tower"]]
    assert inside["text"].startswith("witch stands inside blocking terrain tower")
    assert inside["where"] == f"models[{DEMO.model_index('witch')}]"
    assert not inside["text"].startswith("models[")
    subject, _ = page.send(type="undo")
    assert subject["warnings"] == [] and page.subject["warnings"] == []


def test_measure_edge_and_centre(page: Page) -> None:
    (m,) = page.send(type="measure", a="archer", b="hunter")
    a, b = DEMO.model("archer"), DEMO.model("hunter")
    centre = math.hypot(a.at.x - b.at.x, a.at.y - b.at.y)
    assert m["centre_mm"] == pytest.approx(centre)
    assert m["edge_mm"] == pytest.approx(centre - INCH)  # two 1-inch bases
    assert m["centre"].endswith(" in")


def test_a_seeded_shot_is_the_library_s(page: Page) -> None:
    text = (ROOT / "examples" / "mordheim-merchant-square.yaml").read_text(encoding="utf-8")
    page.send(type="open", text=text)
    req: dict[str, Any] = {"shooter": "captain", "target": "night-runner", "seed": 0}
    (r,) = page.send(type="ask", question="shoot", request=req)
    square = arbitre.load(ROOT / "examples" / "mordheim-merchant-square.yaml")
    assert r["answer"] == json.loads(json.dumps(arbitre.ask(square, "shoot", **req).to_json()))
    (t,) = page.send(type="view", rules="mordheim", question="targets", shooter="captain")
    assert [x["target"] for x in t["answer"]["rulings"][0]["targets"]][:2] == [
        "skink",
        "night-runner",
    ]


def test_breath_view_and_best_aim(page: Page) -> None:
    text = (ROOT / "examples" / "breath-acid.yaml").read_text(encoding="utf-8")
    page.send(type="open", text=text)
    (a,) = page.send(type="view", question="breath", shooter="wyrm", weapon="Acid cloud", angle=0)
    assert a["answer"]["rulings"][0]["template"]["angle"] == 0
    (b,) = page.send(type="view", question="breath", shooter="wyrm", weapon="Acid cloud", best=True)
    acid = arbitre.load(ROOT / "examples" / "breath-acid.yaml")
    expect = arbitre.ask(acid, "breath", shooter="wyrm", weapon="Acid cloud", best=True)
    assert b["answer"] == json.loads(json.dumps(expect.to_json()))


def test_places_map_and_moves(page: Page) -> None:
    text = (ROOT / "examples" / "village-forest-places.yaml").read_text(encoding="utf-8")
    (s,) = page.send(type="open", text=text)
    assert s["kind"] == "places" and s["svg"].startswith("<svg")
    (a,) = page.send(type="view", question="move", shooter="john")
    village = arbitre.load(ROOT / "examples" / "village-forest-places.yaml")
    assert a["answer"] == json.loads(
        json.dumps(arbitre.ask(village, "move", unit="john").to_json())
    )
    (err,) = page.send(type="move", id="john", x=1, y=1)
    assert err["type"] == "error"


def test_a_unit_plays_its_move_onto_a_reachable_place_and_undo_brings_it_back(
    page: Page,
) -> None:
    """P3 worked example played: John (movement 7) fighting two barbarians in the meadow
    moves to the ruins (encumbrance 3): 3 spent, 4 left, 2 exhaustion; the engine's
    ``move`` ruling of the new map follows, and undo puts him back in the meadow."""
    path = ROOT / "examples" / "village-forest-places.yaml"
    page.send(type="open", text=path.read_text(encoding="utf-8"))
    village = arbitre.load(path)
    assert isinstance(village, PlaceMap)
    (a,) = page.send(type="view", question="move", shooter="john")
    ways = {w["place"]: w for w in a["answer"]["rulings"][0]["ways"]}
    assert "ruins" in ways and "pit" not in ways
    moved, subject, answer = page.send(type="move", id="john", place="ruins")
    assert moved["type"] == "moved" and moved["from"] == "meadow"
    assert (moved["spent"], moved["left"], moved["exhaustion"]) == (3, 4, 2)
    units = {u["id"]: u for u in subject["units"]}
    assert units["john"]["place"] == "ruins" and subject["can_undo"]
    assert 'data-id="ruins"' in subject["svg"]
    after = dataclasses.replace(
        village,
        units=tuple(
            dataclasses.replace(u, place="ruins") if u.id == "john" else u for u in village.units
        ),
    )
    expect = arbitre.ask(after, "move", unit="john").to_json()
    assert answer["answer"] == json.loads(json.dumps(expect))
    assert answer["answer"]["rulings"][0]["start"] == "ruins"
    # the move ruled from the ruins: out of reach stays refused, the map unchanged
    (err,) = page.send(type="move", id="john", place="deep-woods")
    assert err["type"] == "error" and "deep-woods" in err["message"]
    subject, answer = page.send(type="undo")
    assert {u["id"]: u["place"] for u in subject["units"]}["john"] == "meadow"
    assert answer["answer"]["rulings"][0]["start"] == "meadow"


def test_a_unit_arriving_on_an_occupied_place_is_the_last_arrived(page: Page) -> None:
    """P6: a unit arriving now is the last arrived among those on the place."""
    path = ROOT / "examples" / "village-forest-places.yaml"
    page.send(type="open", text=path.read_text(encoding="utf-8"))
    page.send(type="view", question="move", shooter="scout")
    _, subject, _ = page.send(type="move", id="scout", place="meadow")
    there = [u for u in subject["units"] if u["place"] == "meadow"]
    order = sorted(there, key=lambda u: u["arrived"])
    assert order[-1]["id"] == "scout" and len({u["arrived"] for u in there}) == len(there)


def _json_value(rng: np.random.Generator, depth: int = 0) -> Any:
    """A random JSON value: nested objects and arrays of ints, floats, text, bools, null."""
    kind = rng.integers(0, 7 if depth < 4 else 5)
    if kind == 0:
        return int(rng.integers(-3, 4))
    if kind == 1:
        return float(rng.choice([0.0, 1.0, 0.5, -2.25]))
    if kind == 2:
        return str(rng.choice(["a", "b", "tower", ""]))
    if kind == 3:
        return bool(rng.integers(0, 2))
    if kind == 4:
        return None
    if kind == 5:
        return [_json_value(rng, depth + 1) for _ in range(rng.integers(0, 4))]
    keys = rng.choice(["k", "margin_test", "rulings", "x", "=", "o"], size=rng.integers(0, 4))
    return {str(k): _json_value(rng, depth + 1) for k in keys}


def _mutate(rng: np.random.Generator, doc: Any) -> Any:
    """``doc`` with a few random changes (values replaced, keys added or removed)."""
    if isinstance(doc, dict) and doc and rng.random() < 0.7:
        out = dict(doc)
        key = str(rng.choice(list(out)))
        if rng.random() < 0.2:
            del out[key]
        else:
            out[key] = _mutate(rng, out[key])
        if rng.random() < 0.2:
            out["new"] = _json_value(rng)
        return out
    if isinstance(doc, list) and doc and rng.random() < 0.7:
        out_list = list(doc)
        i = int(rng.integers(0, len(out_list)))
        out_list[i] = _mutate(rng, out_list[i])
        return out_list
    return _json_value(rng) if rng.random() < 0.8 else doc


@pytest.mark.parametrize("seed", range(300))
def test_a_patch_rebuilds_the_new_document_exactly(seed: int) -> None:
    """Oracle: on random JSON documents and random edits of them, applying the patch to
    the old document gives the new one, its JSON text byte for byte (1 and 1.0, 0 and
    False told apart), and the old one is not changed."""
    rng = np.random.default_rng(seed)
    old = _json_value(rng)
    new = _mutate(rng, old) if seed % 5 else _json_value(rng)
    kept = json.dumps(old)
    node = patch.diff(old, new)
    assert json.dumps(patch.apply(old, node)) == json.dumps(new)
    assert json.dumps(old) == kept
    assert (node is None) == (json.dumps(old) == json.dumps(new))


def test_a_move_s_answer_is_a_small_patch_of_the_last_one(page: Page) -> None:
    """A drag step's answer is the difference from the one before (the page rebuilds the
    same document, checked against the library), much smaller than the whole answer."""
    (whole,) = page.send(type="view", question="los", shooter="elementalist")
    _, answer = page.send(type="move", id="imp", x=200.0, y=30.0)
    assert "patch" in answer and "answer" in answer  # rebuilt here by Page.replies
    expect = arbitre.ask(DEMO.moved("imp", Point(200.0, 30.0)), "los", shooter="elementalist")
    assert answer["answer"] == json.loads(json.dumps(expect.to_json()))
    assert len(json.dumps(answer["patch"])) < len(json.dumps(whole["answer"])) / 3


def test_a_drag_step_with_a_newer_one_waiting_is_skipped() -> None:
    """Superseded server-side: a move (not a drop) of a model whose next move is already
    received is skipped; a drop, another model's move or any other message is not."""
    from arbitre.faces.web.app import _Inbox, _Item

    inbox = _Inbox(None)  # type: ignore[arg-type]
    step = {"type": "move", "id": "imp", "x": 1, "y": 2}
    assert not inbox.superseded(step)  # nothing waiting
    inbox.items.append(_Item(json.dumps({**step, "x": 3})))
    assert inbox.superseded(step)
    assert not inbox.superseded({**step, "drop": True})
    assert not inbox.superseded({**step, "id": "thug"})
    assert not inbox.superseded({"type": "view"})
    inbox.items[0] = _Item(json.dumps({"type": "undo"}))
    assert not inbox.superseded(step)
    inbox.items[0] = _Item("{not json")
    assert not inbox.superseded(step)


def test_moves_sent_at_once_get_one_last_reply_each_and_the_last_one_rules(page: Page) -> None:
    """Moves sent without waiting (as a script may): each gets exactly one last reply,
    skipped ones ``superseded``, and the view's answer after the drop is the library's on
    the final position."""
    page.send(type="view", question="los", shooter="elementalist")
    path = [(100.0 + 5 * k, 40.0) for k in range(8)]
    for k, (x, y) in enumerate(path):
        drop = k == len(path) - 1
        page.ws.send_text(
            json.dumps({"type": "move", "id": "imp", "x": x, "y": y, "drop": drop, "seq": k + 100})
        )
    lasts: list[dict[str, Any]] = []
    while len(lasts) < len(path):
        for reply in page.replies():
            if reply.get("last"):
                lasts.append(reply)
    assert [r["seq"] for r in lasts] == list(range(100, 100 + len(path)))
    assert lasts[-1]["type"] == "answer"
    assert {r["type"] for r in lasts} <= {"answer", "superseded"}
    final = DEMO.moved("imp", Point(*path[-1]))
    expect = arbitre.ask(final, "los", shooter="elementalist").to_json()
    assert page.answer == json.loads(json.dumps(expect))


def _stand(page: Page) -> dict[str, Any]:
    """The overlay's map, sent in the background after the replies of a message."""
    reply: dict[str, Any] = page.ws.receive_json()
    assert reply["type"] == "stand", reply
    return reply


def test_where_can_i_stand_is_the_library_s_raster_and_follows_the_enemies(page: Page) -> None:
    """Issue 14 item 5: the overlay of the selected model is :func:`arbitre.maps.raster`
    of its sight map, cell by cell; moving an enemy sends the new map (not during the
    drag), undo sends the kept one again at once."""
    from arbitre import maps

    page.send(type="view", question="los", rules="frostgrave", shooter="witch")
    (ack,) = page.send(type="stand", on=True)
    assert ack == {**ack, "type": "stand", "on": True, "pending": True}
    first = _stand(page)
    pitch = first["pitch"]
    assert 10 <= pitch <= 20 and first["rules"] == "frostgrave"
    expect = maps.raster(maps.sight_map(DEMO, model="witch", pitch=pitch), pitch)
    assert first["seen"] == expect.seen.ravel().tolist()
    assert first["cover"] == expect.least_cover.ravel().tolist()
    assert (first["columns"], first["rows"]) == (expect.xs.size, expect.ys.size)
    assert 0 in first["seen"] and max(first["seen"]) >= 2
    # mid-drag: no map; the drop: a new one, on the moved table
    page.send(type="move", id="marksman", x=300.0, y=300.0)
    page.send(type="move", id="marksman", x=310.0, y=300.0, drop=True, snap=False)
    second = _stand(page)
    moved = DEMO.moved("marksman", Point(310.0, 300.0))
    expect = maps.raster(maps.sight_map(moved, model="witch", pitch=pitch), pitch)
    assert second["seen"] == expect.seen.ravel().tolist() != first["seen"]
    page.send(type="undo")
    assert _stand(page)["seen"] == first["seen"]
    (off,) = page.send(type="stand", on=False)
    assert off["on"] is False
    (pong,) = page.send(type="ping")  # nothing more comes while the overlay is off
    assert pong["type"] == "pong"


def test_where_can_i_stand_says_why_dark_age_is_not_drawn(page: Page) -> None:
    """A Dark Age map is a grid of per-point rulings (D3-D4), minutes for a table: the
    overlay says so and points to ``arbitre map`` rather than keeping the server busy."""
    text = (ROOT / "examples" / "darkage-wall.yaml").read_text(encoding="utf-8")
    (s,) = page.send(type="open", text=text)
    model = s["models"][0]["id"]
    page.send(type="view", question="los", rules="darkage", shooter=model)
    page.send(type="stand", on=True)
    reply = _stand(page)
    assert reply["rules"] == "darkage" and "arbitre map" in reply["unavailable"]
    assert "seen" not in reply


def test_where_can_i_stand_refuses_a_bad_toggle(page: Page) -> None:
    (err,) = page.send(type="stand", on="yes")
    assert err["type"] == "error" and "stand.on" in err["message"]


def test_build_from_nothing_and_save(page: Page, tmp_path: Path) -> None:
    (s,) = page.send(type="open", new={"unit": "cm", "width": 600, "depth": 400})
    assert s["unit"] == "cm" and s["width"] == pytest.approx(600)
    page.send(
        type="edit",
        op="add",
        kind="terrain",
        item={
            "id": "box",
            "sight": "blocks",
            "rect": {"at": [300, 200], "width": 60, "depth": 40, "angle": 0},
        },
    )
    page.send(
        type="edit",
        op="add",
        kind="terrain",
        item={"sight": "cover", "circle": {"at": [100, 300], "radius": 30}},
    )
    page.send(
        type="edit",
        op="add",
        kind="terrain",
        item={
            "id": "w",
            "sight": "blocks",
            "wall": {
                "points": [[50, 50], [250, 50]],
                "thickness": 5,
                "windows": [{"from": 80, "to": 110}],
            },
        },
    )
    page.send(
        type="edit",
        op="add",
        kind="model",
        item={
            "id": "a",
            "side": "red",
            "at": [150, 200],
            "base": 25,
            "weapons": [{"name": "Bow", "range": 600}],
        },
    )
    subject, _ = page.send(
        type="edit",
        op="add",
        kind="model",
        item={"id": "b", "side": "blue", "at": [450, 200], "base": 25},
    )
    assert [t["id"] for t in subject["terrain"]] == ["box", "piece-1", "w"]
    subject, _ = page.send(type="edit", op="transform", id="box", angle=90, dx=0, dy=0)
    box = arbitre.load(page.send(type="save")[0]["yaml"]).piece("box")  # type: ignore[union-attr]
    assert shapely.box(270, 170, 330, 230).symmetric_difference(box.footprint.shape()).area > 100
    assert box.footprint.shape().area == pytest.approx(60 * 40)
    (ans,) = page.send(type="view", question="los", shooter="a")
    assert ans["answer"]["rulings"][0]["blockers"] == ["box"]  # F2
    (saved,) = page.send(type="save")
    out = tmp_path / "built.yaml"
    out.write_text(saved["yaml"], encoding="utf-8")
    assert "unit: cm" in saved["yaml"]
    assert main(["validate", str(out)]) == 0
    page.send(type="edit", op="delete", id="box")
    (ans,) = page.send(type="view", question="los", shooter="a")
    assert ans["answer"]["rulings"][0]["visible"]


def test_save_writes_only_the_file_given(tmp_path: Path) -> None:
    src = tmp_path / "demo.yaml"
    src.write_text(Path(arbitre.DEMO_SCENARIO).read_text(encoding="utf-8"), encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    with TestClient(create_app(str(src))) as c, c.websocket_connect("/ws") as ws:
        p = Page(ws)
        assert p.subject["file"] == str(src)
        p.send(type="move", id="thug", x=100.0, y=100.0, drop=True, snap=False)
        p.send(type="save")  # to the page (a download): no file written
        assert src.read_text(encoding="utf-8").startswith("# arbitre demo")
        (saved,) = p.send(type="save", to_file=True)
        assert saved["written"] == str(src)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    again = arbitre.load(src)
    assert isinstance(again, arbitre.Table) and again.model("thug").at == Point(100.0, 100.0)
    assert main(["validate", str(src)]) == 0


def test_echo(client: TestClient) -> None:
    with client.websocket_connect("/echo") as ws:
        ws.send_text('{"x": 1}')
        assert ws.receive_text() == '{"x": 1}'


# -- G4 snapping -------------------------------------------------------------------------


def test_snap_to_the_hedge_ends_in_contact() -> None:
    """G4: "au contact" -- the hunter dropped 2 mm south of the hedge snaps against it."""
    h = DEMO.model("hunter")
    s = snap(DEMO, "hunter", Point(h.at.x + 5, h.at.y - 2))
    assert s is not None and s.to == "hedge" and s.gap == pytest.approx(2.0)
    moved = DEMO.moved("hunter", s.at)
    assert abs(gap_to(moved, "hunter", "hedge")) < 1e-9 and touches(moved, "hunter", "hedge")
    ruling = arbitre.ask(moved, "los", shooter="archer", target="hunter").ruling
    assert "hedge" in ruling.cover_pieces and ruling.cover == 4  # F4 +3 and F5 +1


def test_snap_prefers_the_window_and_far_drops_do_not_snap() -> None:
    a = DEMO.model("archer")
    s = snap(DEMO, "archer", Point(a.at.x + 2, a.at.y + 3))
    assert s is not None and (s.to, s.window) == ("chapel", 0)
    assert abs(gap_to(DEMO.moved("archer", s.at), "archer", "chapel", 0)) < 1e-9
    assert snap(DEMO, "archer", Point(100.0, 800.0)) is None


def _brute_gap(table: arbitre.Table, ident: str, at: Point) -> float:
    """The least gap (mm) from a base at ``at`` to any piece or other base, by shapely
    alone: the oracle for what snapping may reach."""
    m = table.model(ident)
    c = shapely.Point(at.x, at.y)
    gaps = [t.footprint.shape().distance(c) - m.base.radius for t in table.terrain]
    gaps += [
        o.at.distance(at) - o.base.radius - m.base.radius for o in table.models if o.id != ident
    ]
    return float(min(gaps))


@pytest.mark.parametrize("seed", range(6))
def test_snap_on_random_tables_ends_in_exact_contact(seed: int) -> None:
    """On seeded random tables: a drop snaps exactly when something lies within
    SNAP_MM (by the brute-force oracle) and a free contact point exists; a snapped base
    touches what it snapped to with a gap of 0 (G4) and overlaps no blocking piece."""
    table = random_table(seed, models=12, terrain=6)
    rng = np.random.default_rng(seed)
    snapped = 0
    for _ in range(25):
        m = table.models[int(rng.integers(len(table.models)))]
        if m.base.radius == 0:
            continue
        at = Point(float(rng.uniform(0, table.width)), float(rng.uniform(0, table.depth)))
        s = snap(table, m.id, at)
        near = _brute_gap(table, m.id, at)
        if s is None:
            continue
        snapped += 1
        assert -m.base.radius <= s.gap <= SNAP_MM + 1e-9
        assert near <= s.gap + 1e-9 or near < 0  # nothing nearer was passed over, unless inside
        moved = table.moved(m.id, s.at)
        assert abs(gap_to(moved, m.id, s.to, s.window)) < 1e-7
        assert touches(moved, m.id, s.to, s.window)
    # drops near a base, forced, so that every seed snaps some
    for other in table.models[:4]:
        mover = next(x for x in table.models if x.id != other.id and x.base.radius > 0)
        d = other.base.radius + mover.base.radius + 1.5
        at = Point(other.at.x + d, other.at.y)
        s = snap(table, mover.id, at)
        if s is not None:
            snapped += 1
            assert abs(gap_to(table.moved(mover.id, s.at), mover.id, s.to, s.window)) < 1e-7
    assert snapped > 0


def test_breath_apex_on_the_rim_when_the_request_takes_it(page: Page) -> None:
    """B2: the cone's apex anywhere on the shooter's rim (the second degree of freedom),
    passed through as the request's ``apex`` when the breath question declares it."""
    request = arbitre.RULESETS["breath"].questions["breath"].request
    if "apex" not in {f.name for f in dataclasses.fields(request)}:
        pytest.skip("BreathRequest has no apex yet")
    text = (ROOT / "examples" / "breath-acid.yaml").read_text(encoding="utf-8")
    page.send(type="open", text=text)
    view: dict[str, Any] = {"shooter": "wyrm", "weapon": "Acid cloud", "angle": 0.0, "apex": 20.0}
    (a,) = page.send(type="view", question="breath", **view)
    acid = arbitre.load(ROOT / "examples" / "breath-acid.yaml")
    expect = arbitre.ask(acid, "breath", **view)
    assert a["answer"] == json.loads(json.dumps(expect.to_json()))
    # best searches the apex too: the page's apex is left out of that request
    (b,) = page.send(type="view", question="breath", best=True, **view)
    assert b["type"] == "answer" and b["request"] == {
        "shooter": "wyrm",
        "weapon": "Acid cloud",
        "best": True,
    }


# -- the command ---------------------------------------------------------------------------


def test_serve_binds_locally_and_warns_for_another_host(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import uvicorn

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    assert main(["serve", "--port", "8999"]) == 0
    assert calls[-1]["host"] == "127.0.0.1" and calls[-1]["port"] == 8999
    assert calls[-1]["ws_max_size"] > protocol.MAX_MESSAGE
    assert "warning" not in capsys.readouterr().err
    assert main(["serve", "--host", "0.0.0.0"]) == 0
    assert calls[-1]["host"] == "0.0.0.0"
    err = capsys.readouterr().err
    assert "warning: serving on 0.0.0.0" in err and "no password" in err


def test_serve_refuses_a_bad_file_before_listening(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: pytest.fail("listened"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("arbitre: 1\ntable: [10]\n", encoding="utf-8")
    assert main(["serve", str(bad)]) == 2
    assert "bad.yaml" in capsys.readouterr().err


def test_every_page_text_is_in_the_catalogue() -> None:
    """Issue 12 replaces the English catalogue: every ``T.id`` the page reads must be in
    it (and the tools' ``tool_*`` ids the toolbar builds)."""
    static = ROOT / "src" / "arbitre" / "faces" / "web" / "static"
    catalogue = (static / "strings.en.js").read_text(encoding="utf-8")
    keys = set(re.findall(r"^  (\w+): ", catalogue, flags=re.M))
    used: set[str] = set()
    for name in ("app.js", "panel.js", "draw.js"):
        used |= set(re.findall(r"\bT\.(\w+)", (static / name).read_text(encoding="utf-8")))
        used |= set(re.findall(r"\btexts\.(\w+)", (static / name).read_text(encoding="utf-8")))
    app = (static / "app.js").read_text(encoding="utf-8")
    tools = re.search(r"const TOOLS = \[([^\]]*)\]", app)
    assert tools is not None
    used |= {f"tool_{t}" for t in re.findall(r'"(\w+)"', tools.group(1))}
    html = (static / "index.html").read_text(encoding="utf-8")
    used |= set(re.findall(r'data-t="(\w+)"', html))
    assert used - keys == set()


# -- the page's language (issue 12) -------------------------------------------------------

STATIC = ROOT / "src" / "arbitre" / "faces" / "web" / "static"


def _catalogue(lang: str) -> dict[str, str]:
    """The texts of ``strings.<lang>.js`` by id (one ``id: "text",`` a line)."""
    text = (STATIC / f"strings.{lang}.js").read_text(encoding="utf-8")
    return {k: json.loads(v) for k, v in re.findall(r'^  (\w+): (".*"),$', text, flags=re.M)}


def _texts(doc: Any) -> list[str]:
    """Every ``text`` field of a JSON document (the words of the reasons and refusals)."""
    if isinstance(doc, dict):
        found = [doc["text"]] if isinstance(doc.get("text"), str) else []
        return found + [t for k, v in doc.items() if k != "text" for t in _texts(v)]
    if isinstance(doc, list):
        return [t for v in doc for t in _texts(v)]
    return []


def _shape(doc: Any) -> Any:
    """``doc`` with its ``text`` fields blanked: what must not change with the language."""
    if isinstance(doc, dict):
        return {k: "" if k == "text" else _shape(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_shape(v) for v in doc]
    return doc


def test_the_french_page_texts_are_served_with_the_english_ids() -> None:
    en, fr = _catalogue("en"), _catalogue("fr")
    assert len(en) > 100 and set(fr) == set(en)
    for key, text in en.items():
        assert set(re.findall(r"\{(\w+)\}", fr[key])) == set(re.findall(r"\{(\w+)\}", text)), key
    assert fr["lang_code"] == "fr" and fr["decimal"] == ","
    with TestClient(create_app()) as c:
        served = c.get("/strings/fr.js")
        assert served.status_code == 200 and "Annuler" in served.text
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    assert 'id="lang"' in html and 'value="fr"' in html


def test_a_page_in_french_gets_french_rulings_with_the_same_ids(client: TestClient) -> None:
    with client.websocket_connect("/ws") as en_ws, client.websocket_connect("/ws?lang=fr") as fr_ws:
        en, fr = Page(en_ws), Page(fr_ws)
        assert en.subject["lang"] == "en" and fr.subject["lang"] == "fr"
        (a,) = en.send(type="view", question="los", shooter="archer")
        (b,) = fr.send(type="view", question="los", shooter="archer")
    assert _shape(a["answer"]) == _shape(b["answer"])  # keys, ids, rule IDs, numbers
    assert set(a["tests"]) == set(b["tests"]) and a["tests"] != b["tests"]
    en_texts, fr_texts = _texts(a["answer"]), _texts(b["answer"])
    assert len(en_texts) == len(fr_texts) > 10
    assert sum(x != y for x, y in zip(en_texts, fr_texts, strict=True)) > len(en_texts) // 2
    with arbitre.i18n.speaking("fr"):
        wanted = arbitre.ask(DEMO, "los", shooter="archer").to_json()
    assert b["answer"] == json.loads(json.dumps(wanted))


def test_the_lang_message_switches_the_session_and_is_kept(page: Page) -> None:
    page.send(type="view", question="los", shooter="archer")
    subject, answer = page.send(type="lang", lang="fr")
    assert subject["type"] == "subject" and subject["lang"] == "fr"
    assert answer["type"] == "answer" and answer["answer"]["rulings"]
    with arbitre.i18n.speaking("fr"):
        wanted = arbitre.ask(DEMO, "los", shooter="archer").to_json()
    assert answer["answer"] == json.loads(json.dumps(wanted))
    (m,) = page.send(type="measure", a="archer", b="hunter")
    assert m["centre"].endswith(" po") and "," in m["edge"]
    (info,) = page.send(type="undo")
    assert info["message"] == "rien à annuler"
    (err,) = page.send(type="move", id="archer", x="far", y=1)
    assert err["type"] == "error" and "un nombre attendu" in err["message"]
    page.ws.send_text('{"type": "launch-missiles"}')
    assert "type de message" in page.ws.receive_json()["message"]
    # a scenario opened later keeps the language chosen
    text = (ROOT / "examples" / "darkage-wall.yaml").read_text(encoding="utf-8")
    (subject,) = page.send(type="open", text="lang: en\n" + text, name="wall.yaml")
    assert subject["lang"] == "fr" and subject["scenario_lang"] == "en"
    back, view = page.send(type="lang", lang="en")
    assert back["lang"] == "en" and view["answer"] is None  # the new file: no view yet
    (bad,) = page.send(type="lang", lang="de")
    assert bad["type"] == "error" and "en or fr" in bad["message"]


def test_the_scenario_s_lang_then_the_browser_s(client: TestClient) -> None:
    text = Path(arbitre.DEMO_SCENARIO).read_text(encoding="utf-8")
    with client.websocket_connect("/ws?browser=fr-FR") as ws:
        page = Page(ws)
        assert page.subject["lang"] == "fr"  # the browser's, the demo having no lang
        (subject,) = page.send(type="open", text="lang: en\n" + text)
        assert subject["lang"] == "en"  # the scenario's beats the browser's
        (subject,) = page.send(type="open", text=text)
        assert subject["lang"] == "fr"
    with client.websocket_connect("/ws?browser=en-GB&lang=xx") as ws:
        assert Page(ws).subject["lang"] == "en"  # an unknown language is no choice


def test_api_ask_speaks_the_body_s_lang_else_accept_language(client: TestClient) -> None:
    text = Path(arbitre.DEMO_SCENARIO).read_text(encoding="utf-8")
    body = {"scenario": text, "question": "los", "request": {"shooter": "archer"}}
    en = client.post("/api/ask", json=body).json()
    fr = client.post("/api/ask", json={**body, "lang": "fr"}).json()
    browser = client.post("/api/ask", json=body, headers={"Accept-Language": "fr-FR,fr;q=0.9"})
    assert _shape(en) == _shape(fr) and en != fr and browser.json() == fr
    bad = client.post("/api/ask", json={**body, "lang": "fr", "request": {"shooter": "nobody"}})
    assert bad.status_code == 400 and "nobody" in bad.json()["message"]
    assert "expected" not in bad.json()["message"] or "attendu" in bad.json()["message"]
    huge = client.post("/api/ask", content=b"[1]", headers={"Accept-Language": "fr"})
    assert huge.json()["message"] == "le corps doit être un objet JSON"


def test_serve_speaks_french(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    assert main(["serve", "--host", "0.0.0.0", "--lang", "fr"]) == 0
    err = capsys.readouterr().err
    assert "avertissement : service sur 0.0.0.0" in err and "aucun mot de passe" in err
    assert "la démonstration" in err and "warning" not in err


# -- answers kept by table content -----------------------------------------------------


def _fresh(subject: Any, question: str, rules: str, lang: str, **request: Any) -> Any:
    """The oracle: the library asked afresh, as JSON text read back."""
    answer = arbitre.ask(subject, question, rules=rules, **request)
    return json.loads(json.dumps(answer.to_json(lang)))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(3))
def test_kept_answers_are_the_library_s_on_every_step_of_a_walk(seed: int) -> None:
    """Undo, redo, a drag back over spots already visited and a language switched back
    answer from the session's kept documents (the engine is not asked); every answer,
    kept or not, patch or whole, is the library's asked afresh on the table then."""
    from arbitre import scenario
    from arbitre.faces.web.session import Session

    rng = np.random.default_rng(seed)
    doc = scenario.dump(random_table(seed, models=7, terrain=4))
    for m in doc["models"]:
        m["stats"] = {"bs": 4}
        m["weapons"] = [{"name": "Bow", "range": 24 * INCH}]
    session = Session(arbitre.files.load(json.dumps(doc) + "\n", source="walk"))
    shooter, mover = doc["models"][0]["id"], doc["models"][1]["id"]
    x0, y0 = doc["models"][1]["at"]
    spots = [(x0 + 9.0 * k, y0 + 4.0 * (k % 2)) for k in range(4)]
    held: Any = None

    def play(**msg: Any) -> Any:
        nonlocal held
        for reply in session.handle(msg):
            if reply["type"] == "answer" and reply.get("role") == "view":
                held = patch.apply(held, reply["patch"]) if "patch" in reply else reply["answer"]
        return json.loads(json.dumps(held))

    for rules, question in (("frostgrave", "los"), ("mordheim", "targets")):
        play(type="view", rules=rules, question=question, shooter=shooter)
        for step in range(14):
            pick = int(rng.integers(0, 6))
            if pick < 4:
                x, y = spots[pick]
                got = play(
                    type="move", id=mover, x=x, y=y, drop=bool(rng.integers(0, 2)), snap=False
                )
            else:
                got = play(type="undo" if pick == 4 else "redo")
            if step == 9:  # French, then English again: each language's own documents
                assert play(type="lang", lang="fr") == _fresh(
                    session.subject, question, rules, "fr", shooter=shooter
                )
                got = play(type="lang", lang="en")
            assert got == _fresh(session.subject, question, rules, "en", shooter=shooter)
    assert session.answers.hits > 5  # the walk came back to spots and states it had seen
    assert len(session.answers.docs) <= session.answers.size


def test_kept_answers_are_bounded_and_skip_unhashable_keys() -> None:
    from arbitre.faces.web.session import Answers

    kept = Answers(size=3)
    for k in range(5):
        kept.put(("table", k), {"k": k})
    assert list(kept.docs) == [("table", 2), ("table", 3), ("table", 4)]
    assert kept.get(("table", 0)) is None and kept.get(("table", 3)) == {"k": 3}
    kept.put(("table", 5), {"k": 5})  # the least recently used (2) goes, not 3
    assert ("table", 3) in kept.docs and ("table", 2) not in kept.docs
    kept.put(("options", [1, 2]), {"k": 9})  # a key holding a list: not kept, no error
    assert kept.get(("options", [1, 2])) is None and kept.hits == 1


def test_an_error_keeps_its_lines_bounded(page: Page) -> None:
    """A file's problems come one a line, as the command line prints them (the page shows
    them so); a long list is cut with the count of the lines left out."""
    (err,) = page.send(type="open", text="table: {width: 10}\nmodels: [{id: a}]\n", name="b.yaml")
    lines = err["message"].split("\n")
    assert lines[0] == "b.yaml: 4 problems" and "models[0].side: required" in lines
    many = protocol.error("\n".join(f"  problem {k}  of   many" for k in range(20)))["message"]
    kept = many.split("\n")
    assert len(kept) == protocol.ERROR_LINES and kept[0] == "problem 0 of many"
    assert kept[-1] == "... and 13 more"
    assert protocol.error("x" * 2000)["message"].endswith("...")
    assert len(protocol.error("x" * 2000)["message"]) == protocol.ERROR_CHARS


def test_building_and_inside_are_edited_and_unticking_a_building_empties_it() -> None:
    """M5 from the page: a piece marked a building, a model put inside it (both in the
    subject the page draws), ``inside: null`` takes it out; ``building: false`` on a
    piece takes out every model inside it, so the table stays valid for M5."""
    from arbitre import scenario
    from arbitre.faces.web import edits, session

    table = scenario.load(str(ROOT / "examples" / "frostgrave-demo.yaml"))
    tower = next(t for t in table.terrain if t.id == "tower")
    assert not tower.building
    table = edits.apply(table, {"op": "update", "id": "tower", "item": {"building": True}})
    table = edits.apply(table, {"op": "update", "id": "witch", "item": {"inside": "tower"}})
    table = edits.apply(table, {"op": "update", "id": "imp", "item": {"inside": "tower"}})
    assert table.model("witch").inside == "tower" and table.model("imp").inside == "tower"
    sess = session.Session(table)
    drawn = sess.subject_message()
    assert next(t for t in drawn["terrain"] if t["id"] == "tower")["building"] is True
    assert next(m for m in drawn["models"] if m["id"] == "witch")["inside"] == "tower"
    out = edits.apply(table, {"op": "update", "id": "imp", "item": {"inside": None}})
    assert out.model("imp").inside is None and out.model("witch").inside == "tower"
    out = edits.apply(table, {"op": "update", "id": "tower", "item": {"building": False}})
    assert out.model("witch").inside is None and out.model("imp").inside is None
    assert not next(t for t in out.terrain if t.id == "tower").building
