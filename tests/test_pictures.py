"""The pictures as a player reads them: on every example (and the golden tables), no label
covers another label, a base or a window; sides are coloured by name; one legend entry a
meaning; sight lines to different targets are not drawn on top of each other; the SVG is
well-formed XML whatever the ids hold.

Label boxes are estimated as the placement pass estimates them
(:func:`arbitre.faces.svg.draw.label_box`)."""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

import arbitre
from arbitre.faces.svg.breath import breath_overlay
from arbitre.faces.svg.draw import (
    NAMED_COLOURS,
    PALETTE,
    Box,
    hits_circle,
    label_box,
    overlap,
    side_colour,
    side_colours,
)
from arbitre.faces.svg.overlays import overlays
from arbitre.faces.svg.table import SCREEN_PX, render_table
from arbitre.geometry import Point
from arbitre.rules import ask, find_ruleset
from arbitre.table import Model, Table

ROOT = Path(__file__).parent.parent
NS = "{http://www.w3.org/2000/svg}"
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.yaml") if "places" not in p.name)
GOLDEN = sorted(
    p
    for d in ("frostgrave", "mordheim", "darkage", "breath")
    for p in (ROOT / "tests" / "golden" / d).glob("*.yaml")
)


def _tables(paths: list[Path]) -> list[tuple[str, Table]]:
    out = []
    for p in paths:
        subject = arbitre.load(p)
        assert isinstance(subject, Table)
        out.append((p.name, subject))
    return out


def picture(table: Table, shooter: str | None, rules: str | None) -> str:
    """What ``arbitre render FILE --rules RULES --shooter ID`` draws."""
    if shooter is None:
        return render_table(table)
    answer = ask(table, "los", rules=rules, shooter=shooter)
    ruleset = find_ruleset(answer.rules)
    return render_table(
        table,
        rulings=answer.rulings,
        shooter=shooter,
        overlays=overlays(table, ruleset.name, shooter),
        centre_lines=ruleset.sight != "S3",
    )


def _los_rules(table: Table) -> list[str]:
    own = table.rules if table.rules and "los" in find_ruleset(table.rules).questions else None
    return [own or "frostgrave"]


def breath_pictures(table: Table) -> Iterator[tuple[str, str]]:
    for m in table.models:
        for w in m.weapons:
            if w.breath is None:
                continue
            ruling = ask(table, "breath", shooter=m.id, weapon=w.name, best=True, seed=1).ruling
            yield f"{m.id}/{w.name}", render_table(table, overlays=[breath_overlay(table, ruling)])


def pictures(paths: list[Path], every_shooter: bool) -> Iterator[tuple[str, str]]:
    for name, table in _tables(paths):
        yield f"{name} plain", picture(table, None, None)
        for rules in _los_rules(table):
            shooters = table.models if every_shooter else table.models[:1]
            for m in shooters:
                yield f"{name} {rules} {m.id}", picture(table, m.id, rules)
        yield from ((f"{name} breath {k}", svg) for k, svg in breath_pictures(table))


ALL = list(pictures(EXAMPLES, True)) + list(pictures(GOLDEN, False))


def _words(t: ET.Element) -> str:
    """A text element's words: its text, then each note (a tspan) after a space."""
    return " ".join(part for part in t.itertext() if part)


def _label_boxes(root: ET.Element) -> list[tuple[str, Box]]:
    groups = [g for g in root.iter(f"{NS}g") if g.get("class") == "labels"]
    assert len(groups) == 1
    boxes = []
    for t in groups[0].iter(f"{NS}text"):
        words = _words(t)
        x, y, size = (float(t.get(k) or 0) for k in ("x", "y", "font-size"))
        boxes.append((words, label_box(x, y, words, size)))
    return boxes


def _bases(root: ET.Element) -> list[tuple[str, tuple[float, float, float]]]:
    found = []
    for g in root.iter(f"{NS}g"):
        if g.get("class") != "model":
            continue
        c = g.find(f"{NS}circle")
        if c is not None:
            found.append(
                (g.get("data-id") or "", tuple(float(c.get(k) or 0) for k in ("cx", "cy", "r")))
            )
        for p in g.iter(f"{NS}path"):  # a model without a base: its cross
            xs = [float(v) for v in re.findall(r"-?[\d.]+", p.get("d") or "")]
            cx, cy = sum(xs[0::2]) / len(xs[0::2]), sum(xs[1::2]) / len(xs[1::2])
            found.append((g.get("data-id") or "", (cx, cy, (max(xs[0::2]) - min(xs[0::2])) / 2)))
    return found  # type: ignore[return-value]


def _windows(root: ET.Element) -> list[Box]:
    found = []
    for p in root.iter(f"{NS}path"):
        if p.get("class") == "window":
            v = [float(x) for x in re.findall(r"-?[\d.]+", p.get("d") or "")]
            found.append((min(v[0::2]), min(v[1::2]), max(v[0::2]), max(v[1::2])))
    return found


@pytest.mark.parametrize(("name", "svg"), ALL, ids=[n for n, _ in ALL])
def test_no_label_covers_a_label_a_base_or_a_window(name: str, svg: str) -> None:
    root = ET.fromstring(svg)
    labels = _label_boxes(root)
    assert labels, name
    for (one, b1), (two, b2) in itertools.combinations(labels, 2):
        assert overlap(b1, b2) <= 1e-9, f"{name}: label {one!r} covers label {two!r}"
    for words, b in labels:
        for ident, (cx, cy, r) in _bases(root):
            assert not hits_circle(b, cx, cy, r), f"{name}: label {words!r} over base {ident}"
        for w in _windows(root):
            assert overlap(b, w) <= 1e-9, f"{name}: label {words!r} over a window"


@pytest.mark.parametrize(("name", "svg"), ALL, ids=[n for n, _ in ALL])
def test_one_legend_entry_per_symbol(name: str, svg: str) -> None:
    root = ET.fromstring(svg)
    rows = [
        (g.get("data-kind"), g.get("data-colour"), "".join(g.itertext()))
        for g in root.iter(f"{NS}g")
        if g.get("class") == "legend-row" and g.get("data-kind") != "note"
    ]
    symbols = [(k, c) for k, c, _ in rows]
    doubles = {s for s in symbols if symbols.count(s) > 1}
    assert not doubles, (
        f"{name}: one symbol, several meanings: {[r for r in rows if r[:2] in doubles]}"
    )


def test_the_legend_check_finds_a_symbol_with_two_meanings() -> None:
    from arbitre.faces.svg.table import Overlay

    twice = Overlay(legend=(("line", "#123456", "clear"), ("line", "#123456", "may shoot")))
    svg = render_table(
        Table(300, 200, models=(Model("a", "red", Point(50, 50)),)), overlays=[twice]
    )
    with pytest.raises(AssertionError, match="several meanings"):
        test_one_legend_entry_per_symbol("twice", svg)


def test_every_model_and_piece_is_named_once() -> None:
    table = _tables([ROOT / "examples" / "frostgrave-demo.yaml"])[0][1]
    texts = [w for w, _ in _label_boxes(ET.fromstring(picture(table, "archer", "frostgrave")))]
    for ident in [m.id for m in table.models] + [t.id for t in table.terrain]:
        assert texts.count(ident) == 1, ident


def test_a_label_moved_away_gets_a_leader_line() -> None:
    crowd = tuple(
        Model(f"m{i}{j}", "red", Point(100 + 26 * i, 100 + 26 * j))
        for i in range(4)
        for j in range(4)
    )
    svg = render_table(Table(400, 300, models=crowd, name="crowd"))
    root = ET.fromstring(svg)
    test_no_label_covers_a_label_a_base_or_a_window("crowd", svg)
    assert [e for e in root.iter(f"{NS}line") if e.get("class") == "leader"]


# -- side colours -------------------------------------------------------------------------


def test_sides_named_after_a_colour_are_drawn_in_it() -> None:
    assert side_colour("red") == side_colour("Red Band") == NAMED_COLOURS["red"]
    assert side_colour("blue") == side_colour("bleu") == NAMED_COLOURS["blue"]
    table = _tables([ROOT / "examples" / "darkage-wall.yaml"])[0][1]
    root = ET.fromstring(render_table(table))
    fills = {
        g.get("data-side"): g.find(f"{NS}circle").get("fill")  # type: ignore[union-attr]
        for g in root.iter(f"{NS}g")
        if g.get("class") == "model"
    }
    assert fills == {"red": NAMED_COLOURS["red"], "blue": NAMED_COLOURS["blue"]}
    # file order does not matter: the same table with its sides swapped, same colours
    swapped = Table(600, 500, table.terrain, tuple(reversed(table.models)))
    assert side_colours(swapped.sides()) == side_colours(table.sides())


def test_a_side_keeps_its_colour_in_every_picture_and_sides_stay_apart() -> None:
    # "wardens" has its hashed colour beside "monsters" and beside "ann"...
    assert side_colours(("wardens", "monsters"))["wardens"] == side_colour("wardens")
    assert side_colours(("ann", "wardens"))["wardens"] == side_colour("wardens")
    # ... and beside "witch", which hashes to the same colour, one of them moves
    both = side_colours(("witch", "wardens"))
    assert side_colour("witch") == side_colour("wardens") and len(set(both.values())) == 2
    many = [f"warband {i}" for i in range(len(PALETTE))]
    assert len(set(side_colours(many).values())) == len(PALETTE)
    assert all(side_colour(s) in PALETTE for s in many)
    demo = arbitre.load_table(arbitre.DEMO_SCENARIO)
    mordheim = arbitre.load_table(ROOT / "examples" / "mordheim-merchant-square.yaml")
    for t in (demo, mordheim):
        colours = side_colours(t.sides())
        assert len(set(colours.values())) == len(colours)


# -- sight lines, marks -------------------------------------------------------------------


def _segments(root: ET.Element) -> dict[str, tuple[float, float, float, float]]:
    return {
        e.get("data-target") or "": tuple(float(e.get(k) or 0) for k in ("x1", "y1", "x2", "y2"))  # type: ignore[misc]
        for e in root.iter(f"{NS}line")
        if (e.get("class") or "").startswith("sight")
    }


def _dist(p: tuple[float, float], s: tuple[float, float, float, float]) -> float:
    x1, y1, x2, y2 = s
    dx, dy = x2 - x1, y2 - y1
    t = max(0.0, min(1.0, ((p[0] - x1) * dx + (p[1] - y1) * dy) / (dx * dx + dy * dy or 1)))
    return math.hypot(p[0] - x1 - t * dx, p[1] - y1 - t * dy)


def _shared(
    a: tuple[float, float, float, float], b: tuple[float, float, float, float], w: float
) -> float:
    """The share of the shorter segment drawn within ``w`` of the other."""
    la, lb = math.hypot(a[2] - a[0], a[3] - a[1]), math.hypot(b[2] - b[0], b[3] - b[1])
    short, other = (a, b) if la <= lb else (b, a)
    pts = [
        (short[0] + (short[2] - short[0]) * k / 50, short[1] + (short[3] - short[1]) * k / 50)
        for k in range(51)
    ]
    return sum(_dist(p, other) < w for p in pts) / len(pts)


@pytest.mark.parametrize(
    ("example", "shooter", "rules"),
    [
        ("mordheim-merchant-square.yaml", "marksman", "mordheim"),
        ("mordheim-merchant-square.yaml", "captain", "mordheim"),
        ("frostgrave-demo.yaml", "archer", "frostgrave"),
        ("frostgrave-demo.yaml", "thug", "frostgrave"),
    ],
)
def test_lines_to_different_targets_are_not_drawn_on_top_of_each_other(
    example: str, shooter: str, rules: str
) -> None:
    table = _tables([ROOT / "examples" / example])[0][1]
    u = max(table.width, table.depth) / SCREEN_PX
    lines = _segments(ET.fromstring(picture(table, shooter, rules)))
    assert len(lines) > 3
    for (a, sa), (b, sb) in itertools.combinations(lines.items(), 2):
        assert _shared(sa, sb, 3 * u) < 0.6, f"{a} and {b} share their line"


def test_mordheim_marks_statuses_cover_and_a_single_legend() -> None:
    table = _tables([ROOT / "examples" / "mordheim-merchant-square.yaml"])[0][1]
    root = ET.fromstring(picture(table, "marksman", "mordheim"))
    texts = [_words(t) for t in root.iter(f"{NS}text")]
    assert "skink stunned" in texts and "youngblood ran" in texts  # statuses by the id
    covered = [
        t.target
        for t in ask(table, "targets", shooter="marksman").ruling.targets
        if t.visible and t.in_cover
    ]
    cover = [t for t in root.iter(f"{NS}text") if "mordheim-cover" in (t.get("class") or "")]
    assert covered and len(cover) == len(covered)
    assert not [t for t in texts if re.fullmatch(r"\+\d", t)]  # no Frostgrave "+n" bonus
    legend = ["".join(g.itertext()) for g in root.iter(f"{NS}g") if g.get("class") == "legend-row"]
    assert "may shoot (M1)" in legend and "in cover" in legend


def test_mordheim_cover_reads_minus_one_to_hit() -> None:
    """M8: cover is -1 to hit, written as the ruling's M7 modifiers say."""
    table = _tables([ROOT / "examples" / "mordheim-merchant-square.yaml"])[0][1]
    t = next(t for t in ask(table, "targets", shooter="marksman").ruling.targets if t.in_cover)
    assert ("cover", -1) in t.modifiers
    root = ET.fromstring(picture(table, "marksman", "mordheim"))
    cover = [
        "".join(e.itertext())
        for e in root.iter(f"{NS}text")
        if "mordheim-cover" in (e.get("class") or "")
    ]
    assert cover and set(cover) == {"-1"}


def test_dark_age_writes_size_classes_and_its_swatches_match() -> None:
    table = _tables([ROOT / "examples" / "darkage-wall.yaml"])[0][1]
    root = ET.fromstring(picture(table, "L", "darkage"))
    texts = [_words(t) for t in root.iter(f"{NS}text")]
    sizes = [(m.id, m.size) for m in table.models] + [(t.id, t.size) for t in table.terrain]
    for ident, size in sizes:
        assert f"{ident} {size}" in texts
    windows = {e.get("fill"): e for e in root.iter(f"{NS}polygon") if e.get("class") == "window"}
    swatches = {
        g.get("data-colour"): g.find(f"{NS}rect")
        for g in root.iter(f"{NS}g")
        if g.get("class") == "legend-row" and g.get("data-kind") == "area"
    }
    assert set(windows) == set(swatches) and len(windows) == 2  # one open, one closed
    for colour, drawn in windows.items():
        key = swatches[colour]
        assert key is not None
        assert key.get("fill-opacity") == drawn.get("fill-opacity")
        assert key.get("stroke") == drawn.get("stroke") == colour


def test_breath_labels_stay_outside_the_bases() -> None:
    table = _tables([ROOT / "examples" / "breath-grapeshot.yaml"])[0][1]
    ruling = ask(table, "breath", shooter="gunner", weapon="Blunderbuss", angle=0, seed=7).ruling
    root = ET.fromstring(render_table(table, overlays=[breath_overlay(table, ruling)]))
    boxes = _label_boxes(root)
    victims = [(w, b) for w, b in boxes if re.fullmatch(r"\d+: .*|B8.*", w)]
    assert len(victims) == len(ruling.victims)
    for words, b in victims:
        for ident, (cx, cy, r) in _bases(root):
            assert not hits_circle(b, cx, cy, r), (words, ident)


# -- well-formed XML ----------------------------------------------------------------------


def test_control_characters_in_ids_still_make_well_formed_svg() -> None:
    odd = "bad\x01id\x1b[31m\x0c"
    table = Table(
        300,
        200,
        models=(
            Model(odd, "side\x00x", Point(50, 50)),
            Model("b", "other\x7f", Point(250, 150)),
        ),
        name="t\x08itle",
    )
    ruling = ask(table, "los", rules="frostgrave", shooter=odd).rulings
    svg = render_table(table, rulings=ruling, shooter=odd)
    root = ET.fromstring(svg)  # parses: nothing XML refuses is left
    texts = "".join("".join(t.itertext()) for t in root.iter(f"{NS}text"))
    assert "bad\ufffdid\ufffd[31m\ufffd" in texts and "\x01" not in svg
