"""Frostgrave F1-F9: golden scenarios citing their rules, and the batched matrix checked
against the pair-by-pair rulings on random tables."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from schema_support import validate_json

from arbitre import scenario, sight
from arbitre.errors import RulesError
from arbitre.geometry import Point, WallFootprint
from arbitre.rules import ask, find_ruleset, frostgrave
from arbitre.rules.frostgrave import FrostgraveOptions
from arbitre.rules.schema import output_schema
from arbitre.table import Table
from arbitre.testing import random_table

GOLDEN = sorted((Path(__file__).parent / "golden" / "frostgrave").glob("*.yaml"))
RULES = {f"F{i}" for i in range(1, 10)}


def test_every_f_rule_has_a_golden_scenario() -> None:
    cited = set()
    for path in GOLDEN:
        cited |= set(yaml.safe_load(path.read_text())["cites"])
    assert cited >= RULES, RULES - cited


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden(path: Path) -> None:
    check_golden(path)


def check_golden(path: Path) -> None:
    """A golden scenario's expectations, the JSON schema, and the matrix agreeing. An
    expectation may also give ``says`` (phrases some reason contains), ``margin`` (in
    the report unit), ``margin_test`` and ``close_call`` (G8)."""
    doc = yaml.safe_load(path.read_text())
    table = scenario.load(path)
    expected = doc["expect"]
    pairs = tuple((e["shooter"], e["target"]) for e in expected)
    answer = ask(table, "los", rules="frostgrave", pairs=pairs)
    got = answer.rulings
    assert list(got) == frostgrave.rulings(table, pairs)
    validate_json(answer.to_json(), output_schema())
    grid = frostgrave.matrix(table)
    for want, ruling in zip(expected, got, strict=True):
        where = f"{path.name}: {want['shooter']} -> {want['target']}"
        assert ruling.visible is want["visible"], where
        if "cover" in want:
            assert ruling.cover == want["cover"], where
        if "blockers" in want:
            assert list(ruling.blockers) == want["blockers"], where
        if "visible_fraction" in want:
            assert ruling.visible_fraction == pytest.approx(want["visible_fraction"], abs=1e-6), (
                where
            )
        if "because" in want:
            assert ruling.because == want["because"], where
        for phrase in want.get("says", []):
            assert any(phrase in r.text for r in ruling.reasons), (where, phrase, ruling.reasons)
        if "margin" in want:
            assert ruling.margin.mm is not None, where
            got_margin = table.unit.from_mm(ruling.margin.mm)
            assert got_margin == pytest.approx(want["margin"], abs=1e-6), where
        if "margin_test" in want:
            assert ruling.margin.test == want["margin_test"], where
        if "close_call" in want:
            assert ruling.margin.close is want["close_call"], where
        for rule in want.get("rules", []):
            assert rule in ruling.rules, (where, rule, ruling.reasons)
        for rule in want.get("rules", []):
            assert rule in doc["cites"], (where, "cite the rules you check")
        s, t = table.model_index(ruling.shooter), table.model_index(ruling.target)
        assert bool(grid.visible[s, t]) is ruling.visible, where
        assert int(grid.cover[s, t]) == ruling.cover, where


def _golden(stem: str) -> Path:
    return Path(__file__).parent / "golden" / "frostgrave" / f"{stem}.yaml"


def test_golden_f5_room_drawn_both_ways() -> None:
    """F5, F7: « une figurine accolée à un mur, à l'endroit où est percée une fenêtre,
    peut tracer ses lignes de vue depuis la fenêtre comme si le mur n'existait pas »; «
    dans les autres cas, les lignes de vue traversant les murs restent bloquées ». From
    the window, not through the room's other sides, whether the room is one wall or four."""
    check_golden(_golden("f5_room_drawn_both_ways"))


def test_golden_f6_friend_inside() -> None:
    """F6: « peut être prise pour cible par toute autre figurine disposant d'une ligne de
    vue sur la fenêtre. Dans ce cas, la première figurine bénéficie d'un bonus de couvert
    de +3 »: a friend of the target inside, on the centre line, does not hide it."""
    check_golden(_golden("f6_friend_inside"))


def test_golden_f6_pillar_beside_the_opening() -> None:
    """F6: « toute autre figurine disposant d'une ligne de vue sur la fenêtre »: a pillar
    on the centre line that the lines to the opening pass beside does not block."""
    check_golden(_golden("f6_pillar_beside_opening"))


def test_golden_f5_and_f6_both_at_windows() -> None:
    """F5, F6: « Ses cibles bénéficient tout de même d'un bonus de couvert +1, lié à la
    présence du mur » and « la première figurine bénéficie d'un bonus de couvert de +3 »:
    both cited when shooter and target stand at windows."""
    check_golden(_golden("f5_f6_both_at_windows"))


def test_golden_g5_beam_graze() -> None:
    """G5: « on trace sur la table (par exemple avec un laser) une ligne horizontale »; «
    si la ligne passe par la trace au sol d'un petit décor ... bonus de +1 »: the beam
    touches a hedge the centre line misses by 0.3 mm, and the ruling says so."""
    check_golden(_golden("g5_beam_graze"))


def test_golden_g8_close_call() -> None:
    """G8, F4: « Si la figurine ciblée est derrière un petit décor et le touche, alors elle
    bénéficie d'un bonus de +3 »: touching by 0.4 mm within the 0.5 mm tolerance is a
    close call, with its margin and test."""
    check_golden(_golden("g8_close_call"))


def assert_matrix_matches_rulings(table: Table) -> frostgrave.FrostgraveMatrix:
    """The batched matrix and the pair-by-pair rulings agree on every ordered pair."""
    grid = frostgrave.matrix(table)
    ids = [m.id for m in table.models]
    pairs = [(a, b) for a in ids for b in ids if a != b]
    for ruling in frostgrave.rulings(table, pairs):
        s, t = ids.index(ruling.shooter), ids.index(ruling.target)
        assert bool(grid.visible[s, t]) is ruling.visible, ruling
        assert int(grid.cover[s, t]) == ruling.cover, ruling
        assert ruling.visible is (not ruling.blockers)
        assert ruling.visible or ruling.cover == 0
    return grid


@pytest.mark.parametrize("seed", range(40))
def test_matrix_agrees_with_rulings(seed: int) -> None:
    table = random_table(seed, models=16, terrain=10, degenerate=seed % 2 == 1, width=500.0)
    assert assert_matrix_matches_rulings(table).visible.any()


def test_cover_is_three_per_touched_piece_and_one_per_other() -> None:
    # F3/F4 decision: every crossed small piece adds 1, or 3 when the target touches it
    table = random_table(11, models=30, terrain=20, width=500.0)
    for ruling in frostgrave.rulings(table, [(a.id, b.id) for a in table for b in table if a != b]):
        if ruling.visible:
            bonuses = [r for r in ruling.reasons if r.rule in {"F3", "F4"}]
            assert ruling.cover == sum(3 if r.rule == "F4" else 1 for r in bonuses)


def test_unknown_option_is_an_error_listing_the_valid_ones() -> None:
    table = random_table(1, models=4, terrain=2)
    bad = table.__class__(
        **{
            **{f: getattr(table, f) for f in ("width", "depth", "terrain", "models")},
            "options": (("visible_fractoin", True),),
        }
    )
    with pytest.raises(RulesError, match="visible_fraction"):
        ask(bad, "los", rules="fg", shooter="m0", target="m1")
    with pytest.raises(RulesError, match="visible_fraction"):
        ask(table, "los", rules="fg", shooter="m0", options={"visible_fractoin": True})


def test_bad_option_value_and_unknown_ids() -> None:
    table = random_table(1, models=4, terrain=2)
    bad = table.__class__(
        width=table.width,
        depth=table.depth,
        models=table.models,
        options=(("grazing_blocks", "yes"),),
    )
    with pytest.raises(RulesError, match="grazing_blocks"):
        frostgrave.matrix(bad)
    with pytest.raises(RulesError, match="grazing_blocks"):
        ask(bad, "los", rules="frostgrave", shooter="m0")
    with pytest.raises(RulesError, match="visible_fraction"):
        ask(table, "los", rules="frostgrave", options={"visible_fraction": "yes"})
    with pytest.raises(RulesError, match="nobody"):
        frostgrave.rulings(table, [("m0", "nobody")])


def test_registry_finds_frostgrave_by_alias() -> None:
    assert find_ruleset("Frostgrave").name == "frostgrave"
    assert find_ruleset("fg").name == "frostgrave"
    assert list(find_ruleset("frost").questions) == ["los"]
    assert find_ruleset("fg").questions["los"].run is not None
    with pytest.raises(RulesError, match=r"known: .*frostgrave"):
        find_ruleset("warhammer")


def test_matrix_diagonal_is_empty() -> None:
    grid = frostgrave.matrix(random_table(2, models=10, terrain=5))
    assert not np.diag(grid.visible).any()


def at_windows(table: Table, rng: np.random.Generator) -> Table:
    """The table with models moved against wall windows, on both sides (F5, F6)."""
    moved = table
    spots = []
    for piece in table.terrain:
        fp = piece.footprint
        if isinstance(fp, WallFootprint) and fp.windows:
            w = fp.windows[0]
            line = fp.line()
            mid = line.interpolate((w.start + w.end) / 2)
            ahead = line.interpolate((w.start + w.end) / 2 + 0.01)
            dx, dy = ahead.x - mid.x, ahead.y - mid.y
            norm = math.hypot(dx, dy)
            off = fp.thickness / 2 + 12.5 + float(rng.uniform(0, 0.4))
            for side in (1, -1):
                spots.append(Point(mid.x - side * dy / norm * off, mid.y + side * dx / norm * off))
    ids = [m.id for m in table.models]
    for ident, spot in zip(ids, spots, strict=False):
        moved = moved.moved(ident, spot)
    return moved


@pytest.mark.parametrize("seed", range(30))
def test_matrix_agrees_with_rulings_at_windows(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = at_windows(random_table(seed, models=14, terrain=10, width=500.0), rng)
    contacts = frostgrave.window_contacts(table)
    assert_matrix_matches_rulings(table)
    if any(isinstance(p.footprint, WallFootprint) for p in table.terrain):
        assert contacts


def test_the_options_asked_are_the_options_ruled() -> None:
    # F9 words come from the options the question receives, over the table's own
    table = random_table(3, models=6, terrain=4)
    pairs = [("m0", "m1"), ("m1", "m0")]
    plain = frostgrave.rulings(table, pairs)
    assert not any(r.rule == "F9" for x in plain for r in x.reasons)
    shown = frostgrave.rulings(table, pairs, options=FrostgraveOptions(visible_fraction=True))
    assert all(x.reasons[-1].rule == "F9" for x in shown)
    asked = ask(table, "los", rules="fg", pairs=tuple(pairs), options={"visible_fraction": True})
    assert list(asked.rulings) == shown
    assert asked.options == {"close_call": 2.0, "grazing_blocks": False, "visible_fraction": True}


def old_because(r: Any) -> str:
    """The "because" column as the old CLI computed it (``cli._because``, dce3ab5), the
    G5 words (the beam's distances, not deciding) left out as F1's."""
    parts = []
    for x in r.reasons:
        if x.rule in {"F1", "F9", "G5"} or (x.rule == "F2" and "not visible" in x.text):
            continue
        parts.append(" ".join([x.rule, *(i for i in x.ids if i not in (r.shooter, r.target))]))
    return ", ".join(dict.fromkeys(parts)) or "clear"


@pytest.mark.parametrize("seed", range(6))
def test_because_words_the_deciding_reasons_as_the_old_cli_did(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = at_windows(random_table(seed, models=12, terrain=10, width=500.0), rng)
    answer = ask(table, "los", rules="frostgrave", options={"visible_fraction": True})
    assert answer.rulings
    for r in answer.rulings:
        assert r.because == old_because(r), r
        assert r.to_json()["because"] == r.because


def test_los_json_is_json_2() -> None:
    table = scenario.load(GOLDEN[0])
    doc = ask(table, "los").to_json()
    validate_json(doc, output_schema())
    assert list(doc) == ["arbitre", "kind", "rules", "unit", "options", "rulings"]
    assert (doc["arbitre"], doc["kind"], doc["rules"]) == (2, "los", "frostgrave")
    first = doc["rulings"][0]
    keys = list(first)
    assert keys[0] == "kind" and keys[-5:-3] == ["reasons", "refusals"]
    assert keys[-3:] == ["margin", "margin_test", "close_call"]  # G8


def test_window_contact_is_the_one_g4_test() -> None:
    # a base whose gap to a window's part of the wall is the contact tolerance stands at it
    # (sight.in_contact, the one G4 test); a little more is no contact
    def table_with(y: float) -> Table:
        return scenario.loads(
            "arbitre: 1\ntable: [600, 600]\nterrain:\n"
            "  - {id: wall, sight: blocks, wall: {points: [[100, 300], [500, 300]], "
            "thickness: 10, windows: [{from: 180, to: 220}]}}\n"
            f"models:\n  - {{id: w, side: r, at: [300, {y!r}]}}\n"
            "  - {id: x, side: b, at: [300, 500]}\n"
        )

    tol = table_with(318.0).contact_tolerance
    for gap in (0.0, tol - 1e-3, tol, tol + 5e-8):
        contacts = frostgrave.window_contacts(table_with(305 + 12.5 + gap))
        assert [c.wall for c in contacts["w"]] == ["wall"], gap
        assert bool(sight.in_contact(gap, tol))
    for gap in (tol + 1e-6, tol + 0.1):
        assert "w" not in frostgrave.window_contacts(table_with(305 + 12.5 + gap)), gap
        assert not bool(sight.in_contact(gap, tol))
