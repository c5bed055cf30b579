"""Maps of places at their bounds (issue 17): long parent chains load and answer, their
resolution agrees with a plain walk of P2 (the oracle), loops of parents are refused with
their places, counts over the caps are refused with their count, problems stay short
whatever the ids, and big maps draw to well-formed SVG without scipy. No timed asserts:
the times are in bench/bench_places.py."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from arbitre.errors import RulesError, ScenarioError
from arbitre.faces.svg.places import CARD_H, CARD_W, layout, render_places
from arbitre.places import (
    MAX_ADJACENT,
    MAX_MOVEMENT,
    MAX_PLACES,
    MAX_UNITS,
    Place,
    PlaceMap,
    Unit,
    catalogue,
    find_place_type,
    places_from_dict,
)
from arbitre.rules import ask

SVG = "{http://www.w3.org/2000/svg}"


def chain_doc(n: int, **extra: Any) -> dict[str, Any]:
    """p0 (a Forêt) <- p1 <- ... <- p{n-1}, each adjacent to the next, a unit at each end."""
    places = [{"id": "p0", "type": "Forêt"}] + [
        {"id": f"p{i}", "parent": f"p{i - 1}"} for i in range(1, n)
    ]
    return {
        "arbitre": 1,
        "places": places,
        "adjacent": [[f"p{i - 1}", f"p{i}"] for i in range(1, n)],
        "units": [
            {"id": "last", "side": "a", "place": f"p{n - 1}", "movement": 8},
            {"id": "first", "side": "b", "place": "p0"},
        ],
        **extra,
    }


def problems(doc: object) -> list[str]:
    with pytest.raises(ScenarioError) as err:
        places_from_dict(doc)
    return [str(p) for p in err.value.problems]


# -- parent chains ------------------------------------------------------------------------


def test_a_chain_of_5000_places_loads_and_answers() -> None:
    pm = places_from_dict(chain_doc(5000))
    last = pm.place("p4999")
    assert last.lineage == (*(f"p{i}" for i in range(4998, -1, -1)), "Forêt")
    assert (last.encumbrance, last.source("encumbrance")) == (4, "Forêt")  # P2, from the root
    assert last.root == "Forêt"
    place = ask(pm, "place", place="p4999").ruling
    assert len(place.lineage) == 5000 and place.lineage[-1] == "Forêt"
    inherits = next(r for r in place.reasons if r.text.startswith("inherits"))
    assert len(inherits.ids) == 5001 and len(inherits.text) < 300  # all ids, short words
    move = ask(pm, "move", unit="last").ruling
    assert move.places == ("p4998", "p4997")  # 8 points, 4 a step
    assert len(move.unreachable) == 4997
    shot = ask(pm, "shot", shooter="last", target="first").ruling
    assert shot.crossed == tuple(f"p{i}" for i in range(4999, -1, -1))


def test_chains_are_shared_and_compare_without_recursion() -> None:
    one, two = places_from_dict(chain_doc(5000)), places_from_dict(chain_doc(5000))
    assert one.place("p4999").chain.rest is one.place("p4998").chain  # type: ignore[union-attr]
    assert one.places == two.places and hash(one.places) == hash(two.places)
    other = chain_doc(5000)
    other["places"][0]["cover"] = 1
    assert places_from_dict(other).places != one.places
    assert "5001 elements" in repr(one.place("p4999").chain)


def naive(doc: dict[str, Any], ident: str) -> tuple[tuple[str, ...], dict[str, tuple[Any, str]]]:
    """P2 read plainly, one place at a time: its statement, its catalogue type, then its
    parent (a place of the map, else a catalogue type), and so on; a catalogue type's
    parent is in the catalogue. The lineage, and each characteristic's value and source."""
    places = {p["id"]: p for p in doc["places"]}
    elements: list[tuple[str, Any, Any, Any]] = []  # label, encumbrance, cover, effects
    current: dict[str, Any] | None = places[ident]
    kind = None
    while current is not None:
        elements.append(
            (
                current["id"],
                current.get("encumbrance"),
                current.get("cover"),
                current.get("effects"),
            )
        )
        kind = find_place_type(current["type"]) if "type" in current else None
        if kind is not None:
            elements.append((kind.name, kind.encumbrance, kind.cover, kind.effects))
        parent = current.get("parent")
        current = places.get(parent) if parent is not None else None
        if parent is not None and current is None:
            kind = find_place_type(parent)
            break
        if parent is None:
            kind = find_place_type(kind.parent) if kind is not None and kind.parent else None
            break
        kind = None
    while kind is not None:
        elements.append((kind.name, kind.encumbrance, kind.cover, kind.effects))
        kind = find_place_type(kind.parent) if kind.parent else None
    picked = {}
    for k, (name, default) in enumerate((("encumbrance", 3), ("cover", 0), ("effects", ()))):
        found = next(((e[k + 1], n) for n, e in enumerate(elements) if e[k + 1] is not None), None)
        if found is None:
            picked[name] = (default, "default")
        else:
            picked[name] = (found[0], "stated" if found[1] == 0 else elements[found[1]][0])
    return tuple(e[0] for e in elements[1:]), picked


@pytest.mark.parametrize("seed", range(6))
def test_chains_agree_with_a_plain_walk(seed: int) -> None:
    """The oracle: 300 places in random forests of parents (places of the map and
    catalogue types), in shuffled file order; every lineage and characteristic matches."""
    rng = random.Random(seed)
    names = [t.name for t in catalogue().places]
    docs: list[dict[str, Any]] = []
    for i in range(300):
        p: dict[str, Any] = {"id": f"p{i}"}
        if rng.random() < 0.4:
            p["type"] = rng.choice(names)
        roll = rng.random()
        if i and roll < 0.6:
            p["parent"] = f"p{rng.randrange(max(0, i - 20), i)}"
        elif roll < 0.75:
            p["parent"] = rng.choice(names)
        if rng.random() < 0.3:
            p["encumbrance"] = rng.randint(1, 5)
        if rng.random() < 0.3:
            p["cover"] = rng.randint(0, 3)
        if rng.random() < 0.1:
            p["effects"] = [{"kind": "stat", "name": "vivacite", "amount": 1}]
        docs.append(p)
    rng.shuffle(docs)
    doc = {"arbitre": 1, "places": docs}
    pm = places_from_dict(doc)
    for place in pm.places:
        lineage, picked = naive(doc, place.id)
        assert place.lineage == lineage, place.id
        assert (place.encumbrance, place.source("encumbrance")) == picked["encumbrance"]
        assert (place.cover, place.source("cover")) == picked["cover"]
        assert place.source("effects") == picked["effects"][1], place.id
        assert len(place.effects) == len(picked["effects"][0] or ()), place.id


def test_a_loop_of_parents_is_refused_with_its_places() -> None:
    doc = {
        "arbitre": 1,
        "places": [
            {"id": "d", "parent": "b"},  # runs into the loop: not a problem of its own
            {"id": "b", "parent": "c"},
            {"id": "c", "parent": "a"},
            {"id": "a", "parent": "b"},
            {"id": "self", "parent": "self"},
            {"id": "fine", "parent": "Forêt"},
        ],
    }
    assert problems(doc) == [
        "places[1].parent: the parent chain loops: b -> c -> a -> b",
        "places[4].parent: the parent chain loops: self -> self",
    ]


def test_a_loop_of_5000_parents_is_one_short_problem() -> None:
    doc = chain_doc(5000)
    doc["places"][0]["parent"] = "p4999"
    (found,) = problems(doc)
    assert found.startswith("places[0].parent: the parent chain loops: p0 -> p4999 -> p4998")
    assert found.endswith("-> p1 -> p0 (5000 places)") and len(found) < 300


# -- caps and bounded problems ------------------------------------------------------------


def test_counts_over_the_caps_are_refused_with_their_count() -> None:
    places = [{"id": f"p{i}"} for i in range(MAX_PLACES + 1)]
    assert problems({"arbitre": 1, "places": places}) == [
        "places: at most 5,000 places in a places scenario, got 5,001"
    ]
    ways = [["p0", "p1"]] * (MAX_ADJACENT + 1)
    units = [{"id": f"u{i}", "side": "s", "place": "p0"} for i in range(MAX_UNITS + 1)]
    doc = {"arbitre": 1, "places": places[:2], "adjacent": ways, "units": units}
    assert problems(doc) == [
        "adjacent: at most 50,000 adjacencies in a places scenario, got 50,001",
        "units: at most 5,000 units in a places scenario, got 5,001",
    ]
    at_caps = {
        "arbitre": 1,
        "places": places[:MAX_PLACES],
        "adjacent": [[f"p{i}", f"p{i + 1}"] for i in range(MAX_PLACES - 1)],
        "units": units[:MAX_UNITS],
    }
    assert len(places_from_dict(at_caps).units) == MAX_UNITS


def test_movement_points_are_capped() -> None:
    doc = chain_doc(3)
    doc["units"][0]["movement"] = MAX_MOVEMENT + 1
    assert problems(doc) == ["units[0].movement: must be <= 100, got 101"]
    pm = places_from_dict(chain_doc(3))
    with pytest.raises(RulesError, match="movement points must be <= 100"):
        ask(pm, "move", unit="last", points=MAX_MOVEMENT + 1)
    assert ask(pm, "move", unit="last", points=MAX_MOVEMENT).ruling.places == ("p1", "p0")


def test_problems_stay_short_whatever_the_ids() -> None:
    long = "x" * 100_000
    doc = chain_doc(4998)
    doc["adjacent"] += [[f"p{k}", f"p{k}x"] for k in range(300)]
    doc["adjacent"].append(["p0", long])
    doc["places"] += [{"id": "q", "name": "a\x01b"}, {"id": "r", "parent": long}]
    with pytest.raises(ScenarioError) as err:
        places_from_dict(doc)
    found = [str(p) for p in err.value.problems]
    assert len(found) == 303
    assert found[0] == "places[4998].name: must not hold control characters, got 'a\\x01b'"
    assert found[1].startswith("places[4999].parent: unknown parent 'xxxxx")
    assert found[2] == "adjacent[4997][1]: unknown place id 'p0x' (did you mean 'p0'?)"
    assert found[301] == "adjacent[5296][1]: unknown place id 'p299x' (5000 places)"  # no hint
    assert max(len(p) for p in found) < 200
    message = str(err.value)
    assert len(message.splitlines()) == 52 and message.endswith("... and 253 more")


def test_control_characters_are_refused_in_ids() -> None:
    doc = chain_doc(3)
    doc["units"][1]["id"] = "tab\there"
    assert problems(doc) == ["units[1].id: must not hold control characters, got 'tab\\there'"]


def test_unknown_ids_asked_are_named_briefly() -> None:
    pm = places_from_dict(chain_doc(5000))
    with pytest.raises(RulesError) as err:
        ask(pm, "place", place="nowhere")
    assert str(err.value).endswith("p9, p10, p11, ... (5000 in all))")


# -- the picture --------------------------------------------------------------------------


def layout_doc(kind: str, n: int) -> dict[str, Any]:
    rng = random.Random(n)
    pairs: set[tuple[int, int]] = set()
    if kind == "chain":
        pairs = {(i - 1, i) for i in range(1, n)}
    elif kind == "grid":
        w = int(math.sqrt(n))
        pairs = {(i, i + 1) for i in range(n - 1) if (i + 1) % w} | {
            (i, i + w) for i in range(n - w)
        }
    elif kind == "random":
        pairs = {(rng.randrange(i), i) for i in range(1, n)}
        while len(pairs) < 1.5 * n:
            a, b = sorted(rng.sample(range(n), 2))
            pairs.add((a, b))
    places: list[dict[str, Any]] = [{"id": f"p{i}"} for i in range(n)]
    if kind == "same-at":
        for k, p in enumerate(places):
            p["at"] = [0, 0] if k % 3 else [k * 1e-9, 0]
    if kind == "some-at":
        for k, p in enumerate(places[: n // 2]):
            p["at"] = [k % 7, k // 7]
        pairs = {(rng.randrange(i), i) for i in range(1, n)}
    return {
        "arbitre": 1,
        "places": places,
        "adjacent": [[f"p{a}", f"p{b}"] for a, b in sorted(pairs)],
    }


def overlapping(pos: dict[str, tuple[float, float]]) -> list[tuple[str, str]]:
    """Pairs of cards that overlap (a sweep along x)."""
    items = sorted(pos.items(), key=lambda kv: kv[1][0])
    found = []
    for k, (a, (ax, ay)) in enumerate(items):
        for b, (bx, by) in items[k + 1 :]:
            if bx - ax >= CARD_W - 1e-6:
                break
            if abs(by - ay) < CARD_H - 1e-6:
                found.append((a, b))
    return found


@pytest.mark.parametrize(
    ("kind", "n"),
    [
        ("chain", 5000),
        ("grid", 5000),
        ("random", 5000),
        ("none", 5000),
        ("same-at", 2000),
        ("some-at", 600),
    ],
)
def test_big_layouts_keep_cards_apart(kind: str, n: int) -> None:
    pos = layout(places_from_dict(layout_doc(kind, n)))
    assert len(pos) == n
    assert overlapping(pos) == []
    assert all(math.isfinite(x) and math.isfinite(y) for x, y in pos.values())


#: The layout has no size threshold (linear, never scipy at any size): 1,000 places every
#: day, the 5,000 of the bound under ``-m slow``.
@pytest.mark.parametrize("n", [1000, pytest.param(5000, marks=pytest.mark.slow)])
def test_many_places_render_to_well_formed_svg_without_scipy(n: int) -> None:
    code = textwrap.dedent(
        """
        import importlib.abc, json, sys
        import xml.etree.ElementTree as ET

        class NoScipy(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name.split(".")[0] == "scipy":
                    raise ImportError("scipy is blocked in this test")
                return None

        sys.meta_path.insert(0, NoScipy())
        from arbitre.faces.svg.places import render_places
        from arbitre.places import places_from_dict

        doc = json.load(sys.stdin)
        root = ET.fromstring(render_places(places_from_dict(doc)))
        cards = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "place"]
        print(json.dumps({"cards": len(cards), "scipy": "scipy" in sys.modules}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(layout_doc("random", n)),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == {"cards": n, "scipy": False}


def test_svg_is_well_formed_whatever_the_ids() -> None:
    """A map built through the API may hold characters XML cannot carry: drawn as U+FFFD."""
    pm = PlaceMap(
        places=(Place(id="a\x01"), Place(id="b", name="\ud800")),
        adjacent=(("a\x01", "b"),),
        units=(Unit(id="u\x02", side="s\x03", place="b"),),
    )
    root = ET.fromstring(render_places(pm))
    ids = {g.get("data-id") for g in root.iter(f"{SVG}g")}
    assert {"a\ufffd", "u\ufffd"} <= ids
