"""The SVG face: a pure picture of a table and of the rulings it is given (G7, F1-F4)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from arbitre.errors import RulesError
from arbitre.faces.svg.draw import NAMED_COLOURS, clean
from arbitre.faces.svg.table import BLOCKED, CLEAR, COVERED, render_table
from arbitre.geometry import (
    CircleFootprint,
    Disc,
    Point,
    PolygonFootprint,
    WallFootprint,
    Window,
    rect_points,
)
from arbitre.rules.ruling import LosRuling, Reason
from arbitre.table import Model, Table, Terrain, Unit

NS = "{http://www.w3.org/2000/svg}"
RED, BLUE = NAMED_COLOURS["red"], NAMED_COLOURS["blue"]
INCH = Unit("in", 25.4)


def table(*extra: Model, unit: Unit = INCH) -> Table:
    terrain = (
        Terrain("house", PolygonFootprint(rect_points(Point(300, 300), 120, 80, 10))),
        Terrain("hedge", PolygonFootprint(rect_points(Point(150, 150), 100, 20, 0)), "cover"),
        Terrain("well", CircleFootprint(Point(450, 120), 25), "cover"),
        Terrain(
            "wall",
            WallFootprint((Point(500, 250), Point(500, 450)), 6.0, (Window(50, 90),)),
            "blocks",
        ),
    )
    models = (
        Model("a1", "red", Point(100, 100)),
        Model("a2", "red", Point(120, 400), Disc(32)),
        Model("b1", "blue", Point(400, 100)),
        Model("b2", "blue", Point(550, 350)),
        Model("ghost", "blue", Point(250, 200), Disc(0)),
        *extra,
    )
    return Table(600, 500, terrain, models, unit=unit, name="Test table")


def ruling(
    target: str,
    visible: bool,
    cover: int,
    *,
    shooter: str = "a1",
    blockers: tuple[str, ...] = (),
    cover_pieces: tuple[str, ...] = (),
) -> LosRuling:
    return LosRuling(
        shooter=shooter,
        target=target,
        visible=visible,
        cover=cover,
        reasons=(Reason("F1", (shooter, target), ""),),
        blockers=blockers,
        cover_pieces=cover_pieces,
    )


RULINGS = (
    ruling("b1", True, 3, cover_pieces=("well",)),
    ruling("b2", False, 0, blockers=("wall",)),
    ruling("ghost", True, 0),
    ruling("a1", True, 0, shooter="b1"),  # another shooter's: ignored
)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{NS}text")]


def sight_lines(root: ET.Element) -> dict[str, ET.Element]:
    return {
        e.get("data-target", ""): e
        for e in root.iter(f"{NS}line")
        if (e.get("class") or "").startswith("sight")
    }


def test_parses_as_svg_with_the_table_to_scale() -> None:
    root = parse(render_table(table()))
    assert root.tag == f"{NS}svg"
    x, y, w, h = (float(v) for v in (root.get("viewBox") or "").split())
    # mm, y flipped: the table spans x in [0, 600], y in [-500, 0], inside the view box
    assert x < 0 and x + w > 600 and y < -500 and y + h > 0
    grid = root.find(f"{NS}g[@class='grid']")
    assert grid is not None
    border = grid.findall(f"{NS}rect")[-1]
    assert [border.get(k) for k in ("x", "y", "width", "height")] == ["0", "-500", "600", "500"]
    # the on-screen size keeps the view box's proportions, ~900 px for the longer side
    assert float(root.get("width") or 0) / float(root.get("height") or 1) == pytest.approx(
        w / h, rel=1e-3
    )
    assert 900 < float(root.get("width") or 0) < 1400


def test_grid_is_labelled_in_the_table_unit() -> None:
    inches = texts(parse(render_table(table())))
    assert "20" in inches  # the edge labels of the grid, in inches
    assert [t for t in inches if re.fullmatch(r"[\d.]+ in", t)]  # the scale bar
    assert "10 cm" in texts(parse(render_table(table(unit=Unit("cm", 10)))))


def test_every_model_and_piece_is_labelled() -> None:
    labels = texts(parse(render_table(table())))
    for ident in ("a1", "a2", "b1", "b2", "ghost", "house", "hedge", "well", "wall"):
        assert ident in labels


def test_terrain_kinds_windows_and_bases() -> None:
    root = parse(render_table(table()))
    kinds = {
        g.get("data-id"): g.get("class")
        for g in root.iter(f"{NS}g")
        if (g.get("class") or "").startswith("terrain")
    }
    assert kinds == {
        "house": "terrain blocks",
        "hedge": "terrain cover",
        "well": "terrain cover",
        "wall": "terrain blocks",
    }
    windows = [e for e in root.iter() if e.get("class") == "window"]
    assert len(windows) == 1 and windows[0].get("d")
    models = {g.get("data-id"): g for g in root.iter(f"{NS}g") if g.get("class") == "model"}
    assert models["a2"].find(f"{NS}circle").get("r") == "16"  # type: ignore[union-attr]
    assert models["ghost"].find(f"{NS}circle") is None  # F8: a point, drawn as a cross
    assert models["ghost"].find(f"{NS}path[@class='point']") is not None
    # sides coloured by name: the side "red" red, "blue" blue, whatever the file order
    fills = {k: g.find(f"{NS}circle").get("fill") for k, g in models.items() if k != "ghost"}  # type: ignore[union-attr]
    assert fills == {"a1": RED, "a2": RED, "b1": BLUE, "b2": BLUE}


def test_lines_follow_the_rulings() -> None:
    root = parse(render_table(table(), rulings=RULINGS, shooter="a1"))
    lines = sight_lines(root)
    assert set(lines) == {"b1", "b2", "ghost"}  # b1's ruling about a1 is not drawn
    assert lines["ghost"].get("stroke") == CLEAR and lines["ghost"].get("stroke-dasharray") is None
    assert lines["b1"].get("stroke") == COVERED
    assert lines["b2"].get("stroke") == BLOCKED and lines["b2"].get("stroke-dasharray")
    assert (lines["b2"].get("x1"), lines["b2"].get("y1")) == ("100", "-100")
    assert (lines["b2"].get("x2"), lines["b2"].get("y2")) == ("550", "-350")
    assert "+3" in texts(root)
    shooter = [g for g in root.iter(f"{NS}g") if g.get("class") == "shooter"]
    assert [g.get("data-id") for g in shooter] == ["a1"]


def test_blockers_and_cover_pieces_are_marked() -> None:
    root = parse(render_table(table(), rulings=RULINGS, shooter="a1"))
    marks = [g for g in root.iter(f"{NS}g") if g.get("class") == "mark"]
    blocked = {e.get("data-id") for g in marks if g.get("stroke") == BLOCKED for e in g}
    covering = {e.get("data-id") for g in marks if g.get("stroke") == COVERED for e in g}
    assert blocked == {"wall"} and covering == {"well"}


def test_no_lines_without_a_shooter() -> None:
    root = parse(render_table(table(), rulings=RULINGS))
    assert sight_lines(root) == {}
    assert "Line of sight" not in texts(root)
    assert "Line of sight" in texts(parse(render_table(table(), rulings=RULINGS, shooter="a1")))


def test_ids_are_escaped() -> None:
    odd = Model("a<b&c", '"side" <x>', Point(300, 450))
    svg = render_table(
        table(odd),
        rulings=(ruling("a<b&c", True, 1),),
        shooter="a1",
        title="<script>alert(1)</script>",
    )
    assert "<script>" not in svg and "a<b&c" not in svg
    labels = texts(parse(svg))
    assert "a<b&c" in labels and '"side" <x>' in labels
    assert "<script>alert(1)</script>" in labels


def test_title_defaults_to_the_table_name() -> None:
    assert "Test table" in texts(parse(render_table(table())))
    assert "Other" in texts(parse(render_table(table(), title="Other")))
    assert "Test table" not in texts(parse(render_table(table(), title="")))


def test_deterministic() -> None:
    first = render_table(table(), rulings=RULINGS, shooter="a1", title="t")
    assert render_table(table(), rulings=RULINGS, shooter="a1", title="t") == first
    assert render_table(table(), rulings=list(RULINGS), shooter="a1", title="t") == first


def test_unknown_shooter_or_target_is_an_error() -> None:
    with pytest.raises(RulesError, match="nobody"):
        render_table(table(), rulings=(ruling("nobody", True, 0),), shooter="a1")
    with pytest.raises(RulesError, match="nobody"):
        render_table(table(), shooter="nobody")


def test_shooter_without_rulings_is_still_ringed() -> None:
    root = parse(render_table(table(), shooter="b2"))
    assert sight_lines(root) == {}
    assert [g.get("data-id") for g in root.iter(f"{NS}g") if g.get("class") == "shooter"] == ["b2"]


def test_empty_table() -> None:
    root = parse(render_table(Table(300, 200)))
    assert "Sides" not in texts(root) and "Terrain" not in texts(root)
    assert root.get("viewBox")


def test_text_xml_refuses_is_replaced() -> None:
    assert clean("a\x00b\x1fc\td\ne\ud800f\uffff") == "a\ufffdb\ufffdc\td\ne\ufffdf\ufffd"
    assert clean("plain é ✓ 𝄞") == "plain é ✓ 𝄞"
    odd = Model("x\x07", "s\x1b", Point(300, 450))
    root = parse(render_table(table(odd), title="t\x00"))
    assert "x\ufffd" in texts(root) and "t\ufffd" in texts(root)


def test_the_shooters_cover_bonus_sits_beside_the_target() -> None:
    root = parse(render_table(table(), rulings=RULINGS, shooter="a1"))
    (bonus,) = [t for t in root.iter(f"{NS}text") if t.get("class") == "cover-bonus"]
    x, y = float(bonus.get("x") or 0), float(bonus.get("y") or 0)
    assert bonus.text == "+3" and 0 < abs(x - 400) + abs(y + 100) < 60  # near b1 (400, 100)
