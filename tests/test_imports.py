"""Importing Universal VTT and Foundry VTT scenes (issue 15): the fixtures of
``tests/data/imports`` (written for these tests from the formats' documented fields),
checked by hand; the bounded reader; every refusal with its place; the ``import``
command; and the property that a random scene imported from either format rules as the
same table written directly (F1-F7 ``los`` for every pair, M1-M6 ``targets``).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely
import yaml

from arbitre import scenario
from arbitre.errors import ArbitreError, RulesError, ScenarioError
from arbitre.faces.cli import main
from arbitre.geometry import PolygonFootprint, WallFootprint
from arbitre.imports import detect, import_scene, load_foundry, load_uvtt, stream
from arbitre.rules import ask
from arbitre.table import Table, Weapon

DATA = Path(__file__).parent / "data" / "imports"
IN = 25.4
#: The default wall thickness, 0.1 in, as half a thickness in inches.
HALF = 0.05


def walls(table: Table, sight: str = "blocks") -> list[tuple[Any, list[Any]]]:
    """Each wall piece of ``sight`` as (centre line in inches, its window openings)."""
    out = []
    for t in table.terrain:
        f = t.footprint
        if isinstance(f, WallFootprint) and t.sight == sight:
            line = _inches(f.line())
            openings = [_inches(f.window_opening(w)) for w in f.windows]
            out.append((line, openings))
    return out


def _inches(g: Any) -> Any:
    """A geometry in mm back in inches, on a 1e-9 in grid (mm / 25.4 is not exact)."""
    return shapely.set_precision(shapely.transform(g, lambda xy: xy / IN), 1e-9)


def has_line(found: list[tuple[Any, list[Any]]], points: list[tuple[float, float]]) -> list[Any]:
    """The window openings of the piece whose centre line is ``points`` (either way)."""
    want = shapely.LineString(points)
    for line, openings in found:
        if line.equals(want):
            return openings
    raise AssertionError(f"no wall along {points}; walls: {[list(g.coords) for g, _ in found]}")


def seg(a: tuple[float, float], b: tuple[float, float]) -> Any:
    return shapely.LineString([a, b])


# -- Universal VTT ------------------------------------------------------------------------


def test_uvtt_walls_portals_and_objects() -> None:
    """G3, F2, F5-F7 («Les joueurs peuvent convenir de l'existence de fenêtres sur les murs
    considérés comme des grands décors»): the crypt, drawn by hand in cells with its map
    origin at (2, 1), y down, 8 cells deep (arbitre: y' = 8 - (y - 1)).

    The room's three polylines and its closed door merge into one wall; the closed door is
    its window from 14 to 15 in along it (3 + 5 + 5 + 1 in from its open end at the open
    door); the open door between two wall ends stays a gap. The wall x = 8 runs through two
    portals: the closed one is its window, the open one is cut out (two pieces). A
    freestanding closed portal is a wall of its own, a freestanding open one nothing."""
    done = import_scene(DATA / "crypt-0.3.dd2vtt")
    t = done.table
    assert (t.width, t.depth) == (10 * IN, 8 * IN) and t.unit.name == "in"
    found = walls(t)
    assert len(found) == 4
    room = has_line(found, [(6, 3), (6, 2), (1, 2), (1, 7), (6, 7), (6, 4)])
    assert len(room) == 1 and room[0].equals(seg((4, 7), (5, 7)))
    assert has_line(found, [(8, 7), (8, 3)])[0].equals(seg((8, 6), (8, 5)))
    assert has_line(found, [(8, 2), (8, 1)]) == []
    assert has_line(found, [(2, 0.5), (3, 0.5)]) == []
    objects = [p for p in t.terrain if p.id.startswith("object-")]
    assert [p.sight for p in objects] == ["cover", "cover"]
    square = objects[0].footprint
    assert isinstance(square, PolygonFootprint)
    assert _inches(square.shape()).equals(shapely.box(2, 5, 3, 6))
    assert isinstance(objects[1].footprint, WallFootprint)  # an open outline: a wall line
    s = done.summary
    assert (s.doors_closed, s.doors_open, s.windows, s.walls, s.cover) == (3, 3, 2, 4, 0)
    assert (s.segments, s.pieces, s.merged) == (12, 4, 8)
    assert [(d.what, d.count) for d in s.dropped] == [("lights", 2)]
    assert t.models == ()


@pytest.mark.parametrize(("objects", "sight"), [("blocks", "blocks"), ("skip", None)])
def test_uvtt_objects_option(objects: str, sight: str | None) -> None:
    """``--objects``: outlines block (F2) or are left out, said in the summary."""
    done = import_scene(DATA / "crypt-0.3.dd2vtt", objects=objects)  # type: ignore[arg-type]
    found = [p.sight for p in done.table.terrain if p.id.startswith("object-")]
    assert found == ([] if sight is None else [sight, sight])
    if sight is None:
        assert ("objects", 2) in [(d.what, d.count) for d in done.summary.dropped]


def test_uvtt_format_0_2_open_portal_is_a_gap() -> None:
    """Format 0.2 (no objects, no environment): an open portal between two walls is a gap."""
    t = load_uvtt(DATA / "hall-0.2.uvtt")
    found = walls(t)
    has_line(found, [(1, 2), (2.5, 2)])
    has_line(found, [(3.5, 2), (5, 2)])
    assert len(found) == 2


# -- Foundry VTT --------------------------------------------------------------------------


def test_foundry_v10_to_v13_walls_doors_windows_tokens() -> None:
    """G2, G3, F2, F3, F5-F7: the keep (1000 x 800 px, 100 px cells, padding 0.25: the
    canvas is offset by ceil(2.5) = 3 cells on x, ceil(2) = 2 on y), by hand:
    pixel (px, py) is cell ((px - 300) / 100, 8 - (py - 200) / 100).

    Normal walls and the closed door merge through their corners into one polyline; the
    open door is a gap; the locked secret door blocks on its own; two collinear limited
    walls are one piece of small cover; proximity and distance walls (sight 30, 40) that
    meet at a corner are two pieces whose whole length is a window; the sight-0 wall, the
    one-way wall and a duplicate are left out. Tokens: centres from their top-left
    corners, round bases as wide as them, sides by disposition, elevation in cells."""
    done = import_scene(DATA / "keep-v11.json")
    t = done.table
    assert (t.width, t.depth) == (10 * IN, 8 * IN) and t.name == "Keep gatehouse"
    found = walls(t)
    assert has_line(found, [(1, 4), (1, 7), (4, 7), (4, 4), (2, 4)]) == []
    assert has_line(found, [(7, 3), (9, 3)]) == []
    for a, b in (((6, 7), (6, 6)), ((6, 6), (7, 6))):
        assert [o.equals(seg(a, b)) for o in has_line(found, [a, b])] == [True]
    assert len(found) == 4
    cover = walls(t, "cover")
    assert len(cover) == 1 and has_line(cover, [(5, 7), (5, 3)]) == []
    models = {m.id: m for m in t.models}
    assert list(models) == ["knight", "goblin", "goblin-2", "villager", "eagle"]
    expect = {
        "knight": ("friendly", (1.5, 6.5), 1.0, "medium", 0.0),
        "goblin": ("hostile", (2.5, 5.5), 1.0, "medium", 0.0),
        "goblin-2": ("hostile", (4.0, 5.0), 2.0, "large", 0.0),
        "villager": ("neutral", (7.5, 1.5), 1.0, "medium", 0.0),
        "eagle": ("friendly", (5.5, 1.5), 1.0, "medium", 2.0),  # 10 ft of 5 ft cells
    }
    for ident, (side, (x, y), base, size, up) in expect.items():
        m = models[ident]
        assert (m.side, m.size) == (side, size)
        assert (m.at.x, m.at.y, m.base.diameter, m.elevation) == pytest.approx(
            (x * IN, y * IN, base * IN, up * IN)
        )
    s = done.summary
    assert (s.doors_closed, s.doors_open, s.windows, s.walls, s.cover) == (2, 1, 2, 4, 1)
    assert (s.segments, s.pieces) == (10, 5)
    assert dict(s.tokens) == {"friendly": 2, "hostile": 2, "neutral": 1}
    dropped = {(d.what, d.count) for d in s.dropped}
    assert {("tiles", 1), ("lights", 2), ("sounds", 1), ("tokens", 1)} <= dropped
    reasons = " ".join(d.reason for d in s.dropped)
    assert "one-way" in reasons and "sight 0" in reasons and "padding" in reasons
    assert "5 ft" in s.cell and "default" in s.cell


def test_foundry_v9_top_level_grid_and_scene_cells() -> None:
    """v9: ``grid`` 50 px, ``gridDistance`` 5 ``gridUnits`` ft at the top level, ``sense``
    for sight; padding 0.1 of 800 x 600 is ceil(1.6) = 2 and ceil(1.2) = 2 cells (100 px).
    With ``--cell grid`` a cell is 5 ft = 60 in: the archer's centre (225, 225) px is cell
    (2.5, 12 - 2.5) = (150, 570) in."""
    t = load_foundry(DATA / "watchtower-v9.json")
    assert (t.width, t.depth) == (16 * IN, 12 * IN)
    has_line(walls(t), [(1, 11), (5, 11), (5, 7)])
    has_line(walls(t, "cover"), [(1, 6), (5, 6)])
    done = import_scene(DATA / "watchtower-v9.json", cell="grid")
    archer = done.table.model("archer")
    assert (archer.at.x, archer.at.y, archer.base.diameter) == pytest.approx(
        (150 * IN, 570 * IN, 60 * IN)
    )
    assert done.summary.cell.startswith("5 ft = 60 in")
    assert done.summary.format == "Foundry VTT v9"


def test_foundry_v14_levels() -> None:
    """v14 ``levels`` (G6, one level): the initial level by default; others by id or
    name; walls and tokens of other levels left out, said in the summary."""
    ground = import_scene(DATA / "manor-v14.json")
    assert [m.id for m in ground.table.models] == ["butler"]
    has_line(walls(ground.table), [(1, 5), (5, 5)])
    assert "Upper floor" in " ".join(d.reason for d in ground.summary.dropped)
    upper = import_scene(DATA / "manor-v14.json", level="Upper floor")
    assert [m.id for m in upper.table.models] == ["ghost"]
    has_line(walls(upper.table), [(1, 3), (5, 3)])
    assert len(walls(upper.table, "cover")) == 1  # a wall without levels is on every level
    with pytest.raises(ScenarioError, match=r"no level 'attic'.*Ground floor"):
        import_scene(DATA / "manor-v14.json", level="attic")
    with pytest.raises(ScenarioError, match="has no levels"):
        import_scene(DATA / "keep-v11.json", level="attic")


def test_foundry_hex_grid_is_dropped_with_its_reason() -> None:
    """A hexagonal grid: walls and tokens imported at its size, the grid said dropped."""
    done = import_scene(DATA / "moor-hex-v12.json")
    assert [m.id for m in done.table.models] == ["scout"]
    assert any(d.what == "grid" and "hexagonal" in d.reason for d in done.summary.dropped)
    with pytest.raises(RulesError, match="not a length"):
        import_scene(DATA / "crypt-0.3.dd2vtt", cell="grid")
    miles = import_scene(DATA / "moor-hex-v12.json", cell="grid")  # 5 mi is a length
    assert miles.table.width == pytest.approx(5 * 5 * 63_360 * IN)


def test_cell_and_thickness_lengths() -> None:
    """``--cell 25mm``: a cell of 25 mm; ``--wall-thickness 3mm``."""
    t = import_scene(DATA / "keep-v11.json", cell="25mm", wall_thickness="3mm").table
    assert t.width == pytest.approx(10 * 25, abs=1e-4)
    wall = next(p.footprint for p in t.terrain if isinstance(p.footprint, WallFootprint))
    assert wall.thickness == pytest.approx(3.0, abs=1e-4)
    for bad in ("0in", "abc", "-2mm", "1 parsec"):
        with pytest.raises(RulesError, match="--cell"):
            import_scene(DATA / "keep-v11.json", cell=bad)


# -- detection, bounded reading, refusals -------------------------------------------------


def test_detect_by_fields_then_suffix() -> None:
    assert detect({"resolution": {}, "line_of_sight": []}) == "uvtt"
    assert detect({"width": 10, "walls": []}) == "foundry"
    assert detect({}, "x.df2vtt") == "uvtt"
    with pytest.raises(ScenarioError, match="--from"):
        detect({"a": 1}, "x.json")


def test_a_huge_picture_is_never_held_whole(tmp_path: Path) -> None:
    """The base64 image (30 MB here, more than the 10 MB bound on the rest) streams past in
    chunks: memory stays a few MB and the summary says it was not decoded."""
    doc = json.loads((DATA / "hall-0.2.uvtt").read_text())
    doc["image"] = "@IMAGE@"
    head, tail = json.dumps(doc).split('"@IMAGE@"')
    f = tmp_path / "big.dd2vtt"
    block = b"iVBORw0KGgo/" * 100_000
    with f.open("wb") as out:
        out.write(head.encode() + b'"')
        for _ in range(25):
            out.write(block)
        out.write(b'"' + tail.encode())
    tracemalloc.start()
    done = import_scene(f)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 12_000_000, peak
    pictures = [d for d in done.summary.dropped if d.what == "pictures"]
    assert pictures and "30,000,000 bytes" in pictures[0].reason
    assert len(walls(done.table)) == 2


def test_the_filter_keeps_every_string_escape_across_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Byte by byte or whole, escapes (``\\"``, ``\\\\``, ``\\u00e9``) and short strings come out
    as json reads them; long ones (over the bound, 8 here) are emptied, with their key."""
    monkeypatch.setattr(stream, "LONG_STRING", 8)
    text = json.dumps(
        {"a": 'q"\\x', "image": "A" * 20 + '\\"', "n": [1, "é", {"k": "AAAAAAAAAA\\"}]}
    ).encode()
    for size in (1, 2, 3, 7, len(text)):
        kept = stream._Filter("t", 10_000)
        for i in range(0, len(text), size):
            kept.feed(text[i : i + size])
        got = json.loads(kept.text())
        assert got == {"a": 'q"\\x', "image": "", "n": [1, "é", {"k": ""}]}
        assert [s.key for s in kept.skipped] == ["image", "k"]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("[1, 2]", "expected a JSON object"),
        ('{"resolution": {"map_size": {"x": 4}}, "line_of_sight": []}', "resolution.map_size.y"),
        (
            '{"resolution": {"map_size": {"x": 4, "y": 4}}, "portals": [{"bounds": [{"x": 1, '
            '"y": 1}]}]}',
            "portals[0].bounds",
        ),
        ('{"width": 100, "walls": [{"c": [1, 2, 3]}]}', "walls[0].c"),
        ('{"width": 100, "walls": [{"c": [1, 2, 3, NaN]}]}', "walls[0].c[3]"),
        ('{"width": 100, "walls": [{"c": [1, 2, 3, 4], "sight": 25}]}', "walls[0].sight"),
        ('{"width": 100, "tokens": [{"x": "left"}]}', "tokens[0].x"),
        ('{"width": 100, "grid": {"size": -5}, "walls": []}', "grid.size"),
        ('{"width": 100, "walls": [', "invalid JSON"),
    ],
)
def test_bad_scenes_are_refused_naming_the_place(tmp_path: Path, text: str, where: str) -> None:
    f = tmp_path / "bad.json"
    f.write_text(text)
    with pytest.raises(ScenarioError) as err:
        import_scene(f)
    assert where in str(err.value) and str(f) in str(err.value)


def test_max_bytes_bounds_what_is_kept(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="more than 100 bytes"):
        import_scene(DATA / "keep-v11.json", max_bytes=100)


# -- the command --------------------------------------------------------------------------


def test_the_import_command_writes_a_scenario_every_command_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``arbitre import`` prints the summary and writes a scenario of format 1 (unit in)
    that ``validate`` accepts and ``los`` and ``targets`` rule."""
    out = tmp_path / "keep.yaml"
    code = main(["import", str(DATA / "keep-v11.json"), "-o", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "doors: 2 closed (block), 1 open (gaps)" in printed and "wrote" in printed
    assert "dropped: 1 walls: one-way" in printed
    doc = yaml.safe_load(out.read_text())
    assert doc["arbitre"] == 1 and doc["unit"] == "in" and doc["rules"] == "frostgrave"
    assert scenario.from_dict(doc) == import_scene(DATA / "keep-v11.json").table
    for args in (["validate", str(out)], ["los", str(out)], ["targets", str(out), "knight"]):
        assert main([*args, "-q"] if args[0] != "targets" else args) == 0, args
        capsys.readouterr()
    js = tmp_path / "crypt.json"
    code = main(["import", str(DATA / "crypt-0.3.dd2vtt"), "-o", str(js), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["windows"] == 2 and json.loads(js.read_text())["arbitre"] == 1


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--from", "roll20"], "--from 'roll20'"),
        (["--objects", "maybe"], "--objects 'maybe'"),
        (["--cell", "huge"], "--cell 'huge'"),
        (["--from", "uvtt"], "resolution"),
        (["--rules", "chess"], "unknown ruleset 'chess'"),
    ],
)
def test_the_import_command_refuses_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    code = main(["import", str(DATA / "keep-v11.json"), "-o", str(tmp_path / "x.yaml"), *args])
    err = capsys.readouterr().err
    assert code == 2 and said in err, err
    assert not (tmp_path / "x.yaml").exists()


# -- property: imported scenes rule as the same table written directly -------------------

THICK = 0.1


def _random_scene(seed: int, fmt: str) -> dict[str, Any]:
    """A random dungeon in cells (y up): rooms (rectangles, openings on their sides),
    free straight walls of cover and windows (Foundry) or object squares (Universal VTT),
    tokens at cell centres. Nothing of different rooms or free walls touches."""
    rng = np.random.default_rng(seed)
    width, depth = 16, 12
    used = shapely.Polygon()
    rooms: list[dict[str, Any]] = []
    free: list[tuple[str, tuple[int, int], tuple[int, int]]] = []
    for _ in range(40):
        w, d = int(rng.integers(3, 7)), int(rng.integers(3, 6))
        x, y = int(rng.integers(0, width - w + 1)), int(rng.integers(0, depth - d + 1))
        box = shapely.box(x, y, x + w, y + d)
        if box.buffer(1).intersects(used) or len(rooms) >= 3:
            continue
        used = used.union(box)
        corners = [(x, y), (x + w, y), (x + w, y + d), (x, y + d)]
        sides = []
        for k in range(4):
            a, b = corners[k], corners[(k + 1) % 4]
            n = abs(b[0] - a[0]) + abs(b[1] - a[1])
            picked = rng.choice(np.arange(1, n - 1), size=min(2, n - 2), replace=False)
            spots = sorted(int(p) for p in picked)
            if len(spots) == 2 and spots[1] - spots[0] < 2:  # openings never side by side
                spots = spots[:1]
            kinds = [str(rng.choice(["window", "gap", "plain"])) for _ in spots]
            sides.append((a, b, sorted(zip(spots, kinds, strict=True))))
        rooms.append({"sides": sides, "split": bool(rng.random() < 0.5)})
    kinds = ["cover", "window"] if fmt == "foundry" else ["object"]
    for _ in range(30):
        if len(free) >= 4:
            break
        kind = str(rng.choice(kinds))
        a = (int(rng.integers(0, width)), int(rng.integers(0, depth)))
        n = int(rng.integers(2, 5))
        b = (a[0] + n, a[1]) if rng.random() < 0.5 else (a[0], a[1] + n)
        shape = (
            shapely.LineString([a, b]) if kind != "object" else shapely.box(*a, a[0] + 1, a[1] + 1)
        )
        if b[0] > width or b[1] > depth or shape.buffer(1).intersects(used):
            continue
        used = used.union(shape.buffer(0.01))
        free.append((kind, a, b))
    tokens: list[tuple[float, float]] = []
    for room in rooms:  # a model inside and one outside an opening: at windows (F5, F6)
        for a, b, spots in room["sides"][:2]:
            n = abs(b[0] - a[0]) + abs(b[1] - a[1])
            ux, uy = (b[0] - a[0]) / n, (b[1] - a[1]) / n
            for s, _ in spots[:1]:
                mx, my = a[0] + ux * (s + 0.5), a[1] + uy * (s + 0.5)
                tokens += [(mx - uy * 0.5, my + ux * 0.5), (mx + uy * 0.5, my - ux * 0.5)]
    tokens = [(x, y) for x, y in tokens if 0 < x < width and 0 < y < depth]
    cells = [(i + 0.5, j + 0.5) for i in range(width) for j in range(depth)]
    cells = [c for c in cells if c not in tokens]
    picks = rng.choice(len(cells), size=12 - min(len(tokens), 8), replace=False)
    tokens = tokens[:8] + [cells[int(p)] for p in picks]
    return {"width": width, "depth": depth, "rooms": rooms, "free": free, "tokens": tokens}


def _direct(spec: dict[str, Any], fmt: str) -> dict[str, Any]:
    """The scenario written directly (inches): each room side a wall of its own, made as
    long as the mitred corner of one polyline (half a thickness past each corner), cut at
    its gaps, windows where the format makes windows (F5-F7)."""
    h = THICK / 2
    terrain: list[dict[str, Any]] = []
    for room in spec["rooms"]:
        for a, b, spots in room["sides"]:
            n = abs(b[0] - a[0]) + abs(b[1] - a[1])
            ux, uy = (b[0] - a[0]) / n, (b[1] - a[1]) / n
            cuts = [0.0] + [v for s, k in spots if k == "gap" for v in (s, s + 1)] + [float(n)]
            for lo, hi in zip(cuts[::2], cuts[1::2], strict=True):
                start = lo - (h if lo == 0 else 0.0)
                end = hi + (h if hi == n else 0.0)
                windows = [
                    {"from": s - start, "to": s + 1 - start}
                    for s, k in spots
                    if k == "window" and fmt == "uvtt" and lo <= s < hi
                ]
                points = [
                    [a[0] + ux * start, a[1] + uy * start],
                    [a[0] + ux * end, a[1] + uy * end],
                ]
                wall = {"points": points, "thickness": THICK, "windows": windows}
                terrain.append({"id": f"w{len(terrain)}", "sight": "blocks", "wall": wall})
    for kind, a, b in spec["free"]:
        ident = f"f{len(terrain)}"
        if kind == "object":
            terrain.append(
                {
                    "id": ident,
                    "sight": "cover",
                    "rect": {"at": [a[0] + 0.5, a[1] + 0.5], "width": 1, "depth": 1},
                }
            )
            continue
        length = abs(b[0] - a[0]) + abs(b[1] - a[1])
        windows = [{"from": 0, "to": length}] if kind == "window" else []
        wall = {"points": [list(a), list(b)], "thickness": THICK, "windows": windows}
        terrain.append(
            {"id": ident, "sight": "cover" if kind == "cover" else "blocks", "wall": wall}
        )
    return {
        "arbitre": 1,
        "unit": "in",
        "table": [spec["width"], spec["depth"]],
        "terrain": terrain,
        "models": _models(spec),
    }


def _models(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"id": f"m{i}", "side": "ab"[i % 2], "at": list(p), "base": 1.0}
        for i, p in enumerate(spec["tokens"])
    ]


def _ring_pieces(sides: list[Any]) -> tuple[list[list[tuple[int, int]]], list[Any]]:
    """A room's walls as written by a map maker: polylines between its door openings, and
    the openings (closed or open portals)."""
    polylines: list[list[tuple[int, int]]] = [[]]
    portals = []
    for a, b, spots in sides:
        n = abs(b[0] - a[0]) + abs(b[1] - a[1])
        ux, uy = (b[0] - a[0]) // n, (b[1] - a[1]) // n

        def at(s: int, a: tuple[int, int] = a, ux: int = ux, uy: int = uy) -> tuple[int, int]:
            return (a[0] + ux * s, a[1] + uy * s)

        if not polylines[-1]:
            polylines[-1].append(a)
        for s, kind in spots:
            if kind == "plain":
                continue
            polylines[-1].append(at(s))
            portals.append((at(s), at(s + 1), kind))
            polylines.append([at(s + 1)])
        polylines[-1].append(b)
    return polylines, portals


def _uvtt(spec: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """The scene as a Universal VTT file: cells, y down, the map origin at (3, 2)."""
    ox, oy, depth = 3, 2, spec["depth"]

    def p(xy: tuple[float, float]) -> dict[str, float]:
        return {"x": xy[0] + ox, "y": depth - xy[1] + oy}

    lines, portals = [], []
    for room in spec["rooms"]:
        polylines, doors = _ring_pieces(room["sides"])
        if room["split"] or not doors:
            for pl in polylines:  # the exporter's way: walls stop at portals
                lines.append([p(q) for q in pl])
        else:  # a continuous wall the portals lie on
            ring = [q for a, _, _ in room["sides"] for q in (a,)] + [room["sides"][0][0]]
            lines.append([p(q) for q in ring])
        for a, b, kind in doors:
            ends = [p(a), p(b)] if rng.random() < 0.5 else [p(b), p(a)]
            portals.append(
                {
                    "position": p(a),
                    "bounds": ends,
                    "rotation": 0.0,
                    "closed": kind == "window",
                    "freestanding": False,
                }
            )
    objects = [
        [p(q) for q in [a, (a[0] + 1, a[1]), (a[0] + 1, a[1] + 1), (a[0], a[1] + 1), a]]
        for kind, a, _ in spec["free"]
    ]
    return {
        "format": 0.3,
        "resolution": {
            "map_origin": {"x": ox, "y": oy},
            "map_size": {"x": spec["width"], "y": depth},
            "pixels_per_grid": 256,
        },
        "line_of_sight": lines,
        "objects_line_of_sight": objects,
        "portals": portals,
        "lights": [],
        "image": "",
    }


def _foundry(spec: dict[str, Any], rng: np.random.Generator, layout: str) -> dict[str, Any]:
    """The scene as Foundry VTT JSON: one wall a segment (some cut in two collinear
    halves), 70 px cells, padding 0.25 (offset ceil(0.25 * 16) = 4 cells on x, 3 on y)."""
    size, pad, depth = 70, 0.25, spec["depth"]
    off_x = math.ceil(pad * spec["width"]) * size
    off_y = math.ceil(pad * depth) * size

    def px(xy: tuple[float, float]) -> list[float]:
        return [xy[0] * size + off_x, (depth - xy[1]) * size + off_y]

    docs = []

    def wall(a: Any, b: Any, **fields: Any) -> None:
        if rng.random() < 0.3:  # cut in two collinear halves
            m = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            docs.append({"c": px(a) + px(m), **fields})
            docs.append({"c": px(m) + px(b), **fields})
        else:
            docs.append({"c": px(a) + px(b) if rng.random() < 0.5 else px(b) + px(a), **fields})

    for room in spec["rooms"]:
        polylines, doors = _ring_pieces(room["sides"])
        for pl in polylines:
            for a, b in itertools.pairwise(pl):
                wall(a, b, sight=20, door=0, ds=0)
        for a, b, kind in doors:  # closed doors block as walls; open ones are gaps
            ds = 1 if kind == "gap" else int(rng.choice([0, 2]))
            docs.append(
                {"c": px(a) + px(b), "sight": 20, "door": int(rng.choice([1, 2])), "ds": ds}
            )
    for kind, a, b in spec["free"]:
        wall(a, b, sight=10 if kind == "cover" else int(rng.choice([30, 40])))
    tokens = [
        {
            "name": f"m{i}",
            "x": px((x - 0.5, y + 0.5))[0],
            "y": px((x - 0.5, y + 0.5))[1],
            "width": 1,
            "height": 1,
            "disposition": [1, -1][i % 2],
        }
        for i, (x, y) in enumerate(spec["tokens"])
    ]
    doc: dict[str, Any] = {
        "name": "random",
        "width": spec["width"] * size,
        "height": depth * size,
        "padding": pad,
        "walls": docs,
        "tokens": tokens,
    }
    grid = {"type": 1, "size": size, "distance": 5, "units": "ft"}
    if layout == "v9":
        doc.update(grid=size, gridDistance=5, gridUnits="ft")
        for w in docs:
            w["sense"] = w.pop("sight")
    else:
        doc["grid"] = grid
    return doc


def _los(table: Table, rules: str) -> dict[Any, Any]:
    """The deciding fields of every ordered pair's line of sight (F1-F7)."""
    return {
        (r.shooter, r.target): (r.visible, r.cover)
        for r in ask(table, "los", rules=rules, same_side=True).rulings
    }


def _targets(table: Table) -> dict[Any, Any]:
    """The deciding fields of three shooters' targets (M1-M6), every model with a bow."""
    bow = (Weapon("Bow", range=6 * IN),)
    armed = dataclasses.replace(
        table,
        models=tuple(
            dataclasses.replace(m, weapons=bow, stats=(("bs", 3.0),)) for m in table.models
        ),
    )
    targets = {}
    for m in armed.models[:3]:
        for t in ask(armed, "targets", rules="mordheim", shooter=m.id).ruling.targets:
            targets[(m.id, t.target)] = (t.visible, t.legal, t.in_range)
    return targets


@pytest.mark.parametrize("fmt", ["uvtt", "foundry-v9", "foundry-v11"])
@pytest.mark.parametrize("seed", range(6))
def test_imported_scenes_rule_as_the_table_written_directly(
    tmp_path: Path, fmt: str, seed: int
) -> None:
    """Property (issue 15): a random scene written in each format and imported gives the
    same F1-F7 rulings for every ordered pair, and the same M1-M6 targets, as the table
    written directly (pieces unmerged: G4 and F5's «a room drawn as one closed wall rules
    exactly like the same room drawn as four walls»)."""
    rng = np.random.default_rng(1000 + seed)
    kind = "uvtt" if fmt == "uvtt" else "foundry"
    spec = _random_scene(seed, kind)
    scene = _uvtt(spec, rng) if kind == "uvtt" else _foundry(spec, rng, fmt.split("-")[1])
    f = tmp_path / ("scene.dd2vtt" if kind == "uvtt" else "scene.json")
    f.write_text(json.dumps(scene))
    done = import_scene(f, wall_thickness=THICK)
    doc = dict(done.document)
    if kind == "uvtt":  # Universal VTT has no tokens: the same models on both
        doc["models"] = _models(spec)
    else:
        doc["models"] = [
            {**m, "id": m["name"], "side": "ab"[int(m["name"][1:]) % 2]} for m in doc["models"]
        ]
    imported = scenario.from_dict(doc)
    direct = scenario.from_dict(_direct(spec, kind))
    assert [m.at for m in imported.models] == [m.at for m in direct.models]
    assert len(done.table.terrain) <= len(direct.terrain)
    assert _targets(imported) == _targets(direct)
    assert _los(imported, "frostgrave") == _los(direct, "frostgrave")


def test_errors_are_arbitre_errors() -> None:
    assert issubclass(ScenarioError, ArbitreError) and issubclass(RulesError, ArbitreError)


# -- the merge against a brute-force oracle ------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_merging_keeps_every_stretch_and_nothing_else(seed: int) -> None:
    """G3, F5-F7, against shapely's unions of the raw segments (random unit edges of a
    6 x 6 grid, some given twice or in either direction): the merged blocking polylines
    cover exactly the walls and portals, less the openings lying on walls; their windows
    exactly the portals; cover and window runs exactly their segments, each run straight;
    no piece passes the same point twice (a closed ring returns to its start only)."""
    from arbitre.imports.scene import Kind, Segment
    from arbitre.imports.walls import merge

    rng = np.random.default_rng(seed)
    edges = [((x, y), (x + 1, y)) for x in range(6) for y in range(7)]
    edges += [((x, y), (x, y + 1)) for x in range(7) for y in range(6)]
    picked = rng.choice(len(edges), size=40, replace=False)
    choices: list[Kind] = ["wall", "wall", "portal", "cover", "window"]
    kinds = [choices[int(k)] for k in rng.integers(0, 5, size=40)]
    segments: list[Segment] = []
    by_kind: dict[str, list[Any]] = {k: [] for k in ("wall", "portal", "cover", "window")}

    def add(kind: Kind, a: tuple[int, int], b: tuple[int, int]) -> None:
        segments.append(Segment(kind, (float(a[0]), float(a[1])), (float(b[0]), float(b[1])), ""))
        by_kind.setdefault(kind, []).append((a, b))

    for e, kind in zip(picked, kinds, strict=True):
        a, b = edges[int(e)]
        a, b = (a, b) if rng.random() < 0.5 else (b, a)
        add(kind, a, b)
        if rng.random() < 0.1:  # given twice, the other way
            add(kind, b, a)
    for a, b in list(by_kind["wall"][:3]):  # open portals lying on walls: gaps
        add("opening", a, b)
    done = merge(segments, tolerance=1e-6)

    def union(lines: list[Any]) -> Any:
        return (
            shapely.union_all([shapely.LineString(s) for s in lines])
            if lines
            else shapely.LineString()
        )

    def pieces(kind: str) -> list[Any]:
        return [p for p in done.pieces if p.kind == kind]

    walls_given = union(by_kind["wall"] + by_kind["portal"])
    blocking = walls_given.difference(union(by_kind.get("opening", [])))
    walls_made = [shapely.LineString(p.points) for p in pieces("wall")]
    assert shapely.union_all(walls_made).equals(blocking) or (blocking.is_empty and not walls_made)
    windows = [
        shapely.ops.substring(shapely.LineString(p.points), lo, hi)
        for p in pieces("wall")
        for lo, hi in p.windows
    ]
    assert shapely.union_all(windows).equals(union(by_kind["portal"])) or not by_kind["portal"]
    for kind in ("cover", "window"):
        runs = pieces(kind)
        assert all(len(p.points) == 2 for p in runs)
        made = shapely.union_all([shapely.LineString(p.points) for p in runs])
        assert made.equals(union(by_kind[kind])) or not by_kind[kind]
        if kind == "window":
            assert all(p.windows == ((0.0, shapely.LineString(p.points).length),) for p in runs)
    for p in done.pieces:
        inner = p.points[:-1] if p.points[0] == p.points[-1] else p.points
        assert len(set(inner)) == len(inner), p.points


@pytest.mark.parametrize("fixture", sorted(p.name for p in DATA.iterdir()))
def test_every_fixture_writes_a_scenario_that_loads_as_its_table(fixture: str) -> None:
    """The YAML the command writes (points one a line) loads back as the imported table."""
    from arbitre.faces.cli.imports import scenario_text

    done = import_scene(DATA / fixture)
    text = scenario_text(done.document, Path("out.yaml"))
    assert scenario.loads(text) == done.table
    assert scenario.validate(yaml.safe_load(text)) == []
