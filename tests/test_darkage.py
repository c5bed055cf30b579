"""Dark Age D1-D5: golden figures of the seed, action points, roll-offs, the face."""

from __future__ import annotations

import dataclasses
import json
import math
import secrets
from fractions import Fraction
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
import yaml
from schema_support import validate_json

from arbitre import dice, scenario
from arbitre.cli import main
from arbitre.errors import RulesError
from arbitre.faces.svg.darkage import overlay
from arbitre.rules import ask, darkage, find_ruleset
from arbitre.rules.options import read_options
from arbitre.rules.schema import output_schema, ruling_schema
from arbitre.testing import random_table

ROOT = Path(__file__).parent.parent
GOLDEN = sorted((ROOT / "examples").glob("darkage-*.yaml")) + sorted(
    (ROOT / "tests" / "golden" / "darkage").glob("*.yaml")
)


def validate_rulings(doc: dict[str, Any]) -> None:
    """Each ruling of a JSON 2 answer against the schema its Dark Age question declares."""
    defs = output_schema()["$defs"]
    question = find_ruleset("darkage").questions[doc["kind"]]
    one = {"$defs": defs, **ruling_schema(doc["kind"], dict(question.schema))}
    assert doc["arbitre"] == 2 and doc["rules"] == "darkage"
    for ruling in doc["rulings"]:
        validate_json(ruling, one)


def test_validate_json_is_jsonschema_validate() -> None:
    """The cached validator gives jsonschema.validate's verdict and error, a valid answer
    and a broken one."""
    doc = ask(None, "rolloff", players=("ann", "bob"), seed=11).to_json()
    schema = output_schema()
    validate_json(doc, schema)
    jsonschema.validate(doc, schema)
    bad = {**doc, "rulings": [{**doc["rulings"][0], "winner": 3}]}
    with pytest.raises(jsonschema.ValidationError) as old:
        jsonschema.validate(bad, schema)
    for _ in range(2):  # the first call builds the validator, the second reuses it
        with pytest.raises(jsonschema.ValidationError) as new:
            validate_json(bad, schema)
        assert (new.value.message, list(new.value.path)) == (
            old.value.message,
            list(old.value.path),
        )


def test_the_seed_figures_ship_as_examples() -> None:
    assert len(list((ROOT / "examples").glob("darkage-*.yaml"))) == 3
    cited = set().union(*(yaml.safe_load(p.read_text())["cites"] for p in GOLDEN))
    assert {"D3", "D4", "D5"} <= cited


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden(path: Path) -> None:
    doc = yaml.safe_load(path.read_text())
    table = scenario.load(path)
    pairs = tuple((e["shooter"], e["target"]) for e in doc["expect"])
    answer = ask(table, "los", rules="darkage", pairs=pairs)
    got = answer.rulings
    opts = read_options(darkage.DarkAgeOptions, table.options)
    assert list(got) == darkage.rulings(table, pairs, options=opts)
    validate_rulings(answer.to_json())
    for want, ruling in zip(doc["expect"], got, strict=True):
        where = f"{path.name}: {want['shooter']} -> {want['target']}"
        assert ruling.visible is want["visible"], where
        assert (ruling.witness is not None) is ruling.visible, where
        assert ruling.window is not None, where
        if "blockers" in want:
            assert list(ruling.blockers) == want["blockers"], where
        if "because" in want:
            assert ruling.because == want["because"], where
        for rule in want.get("rules", []):
            assert rule in ruling.rules and rule in doc["cites"], (where, rule)


def test_d4_sight_is_not_symmetric_somewhere_on_random_tables() -> None:
    sizes = ("small", "medium", "large", "huge")
    found = 0
    for seed in range(20):
        base = random_table(seed, models=12, terrain=6, width=400.0)
        rng = np.random.default_rng(seed)
        models = tuple(
            dataclasses.replace(m, size=sizes[int(rng.integers(4))]) for m in base.models
        )
        table = base.__class__(
            width=base.width, depth=base.depth, terrain=base.terrain, models=models
        )
        ids = [m.id for m in models if m.base.radius > 0]
        pairs = [(a, b) for a in ids for b in ids if a < b]
        there = darkage.rulings(table, pairs)
        back = darkage.rulings(table, [(b, a) for a, b in pairs])
        for r, s in zip(there, back, strict=True):
            if r.visible != s.visible:
                found += 1
                small, large = (r, s) if r.visible else (s, r)
                # whoever is seen is the larger, or smaller pieces let the line through
                assert table.size_rank(table.model(small.target).size) >= table.size_rank(
                    table.model(large.target).size
                )
    assert found > 0


def test_darkage_is_registered() -> None:
    assert find_ruleset("Dark Age").name == "darkage"
    questions = find_ruleset("da").questions
    assert list(questions) == ["los", "rolloff", "activation"]
    assert questions["rolloff"].subject == "none"
    assert questions["activation"].subject == questions["los"].subject == "table"


def test_unknown_size_class_is_an_error() -> None:
    t = scenario.loads(
        "arbitre: 1\ntable: [100, 100]\nsize_classes: [tiny, big]\n"
        "models:\n  - {id: a, side: r, at: [10, 10], size: tiny}\n"
        "  - {id: b, side: s, at: [90, 90], size: big}\n"
    )
    assert [r.visible for r in darkage.rulings(t, [("a", "b"), ("b", "a")])] == [True, True]


# --- D1 ---------------------------------------------------------------------------------


def test_d1_spend_in_any_order_and_lose_the_rest() -> None:
    act = darkage.Activation("scout", ap=3)
    act = act.spend("move").spend("attack")
    assert (act.left, act.ended, act.lost) == (1, False, 0)
    act = act.spend("move")
    assert act.ended and act.lost == 0
    with pytest.raises(RulesError, match="activation is over"):
        act.spend("skill")
    stopped = darkage.Activation("scout", ap=3).spend("psychogenics").end()
    assert stopped.ended and stopped.lost == 2
    assert [r.text for r in stopped.reasons()] == [
        "psychogenics: 1 AP",
        "activation over, 2 AP lost",
    ]


def test_d1_costs_are_configurable_and_checked() -> None:
    act = darkage.Activation("ogre", ap=4, costs={"move": 1, "charge": 2, "spell": 3})
    act = act.spend("charge")
    with pytest.raises(RulesError, match="costs 3 AP and 2 are left"):
        act.spend("spell")
    with pytest.raises(RulesError, match="unknown action 'fly'"):
        act.spend("fly")
    assert act.spend("fly", cost=2).ended
    with pytest.raises(RulesError, match="AP must be a whole number"):
        darkage.Activation("ogre", ap=-1)
    with pytest.raises(RulesError, match="cost must be a whole number"):
        darkage.Activation("ogre", ap=2, costs={"move": -1})


# --- D2 ---------------------------------------------------------------------------------


def test_d2_exact_odds() -> None:
    odds = darkage.rolloff_odds(("a", "b"))
    assert (odds.first, odds.second) == (Fraction(1, 2), Fraction(1, 2))
    assert odds.tie == Fraction(1, 20) and odds.rounds == Fraction(20, 19)
    small = darkage.rolloff_odds(("a", "b"), sides=2)
    assert small.tie == Fraction(1, 2) and small.rounds == 2


def test_d2_seeded_rolls_replay_and_converge() -> None:
    first = darkage.rolloff(("a", "b"), seed=11)
    again = darkage.rolloff(("a", "b"), seed=11)
    assert first == again
    proc = lambda d: dice.roll_off(d, ("a", "b"))  # noqa: E731
    assert dice.replay_procedure(proc, first.log) == first.decides
    values = [r.value for r in first.log.dice]
    rounds = list(zip(values[::2], values[1::2], strict=True))
    assert all(x == y for x, y in rounds[:-1]) and rounds[-1][0] != rounds[-1][1]
    assert first.decides == ("a" if rounds[-1][0] < rounds[-1][1] else "b")
    n = 4000
    wins = sum(darkage.rolloff(("a", "b"), seed=s).decides == "a" for s in range(n))
    assert abs(wins / n - 0.5) < 4 * (0.25 / n) ** 0.5


def test_rolloff_through_ask() -> None:
    answer = ask(None, "rolloff", players=("ann", "bob"), seed=11)
    doc = answer.to_json()
    validate_json(doc, output_schema())
    assert (doc["kind"], doc["rules"], doc["unit"]) == ("rolloff", "darkage", None)
    ruling = answer.ruling
    assert ruling == darkage.rolloff(("ann", "bob"), seed=11)
    assert (ruling.seed, ruling.log.seed) == (11, 11)
    (js,) = doc["rulings"]
    assert list(js) == [
        "kind", "players", "decides", "seed", "log", "odds", "tie_each_round", "mean_rounds",
        "reasons", "refusals", "margin", "margin_test", "close_call",
    ]  # fmt: skip
    assert (js["margin"], js["margin_test"], js["close_call"]) == (None, "", False)  # G8: no length
    assert js["odds"] == {"ann": {"p": "1/2", "float": 0.5}, "bob": {"p": "1/2", "float": 0.5}}
    assert js["tie_each_round"] == {"p": "1/20", "float": 0.05}
    assert js["mean_rounds"] == {"p": "20/19", "float": 20 / 19}
    proc = lambda d: dice.roll_off(d, ("ann", "bob"))  # noqa: E731
    assert dice.replay_procedure(proc, js["log"]) == js["decides"]
    assert all(r["rule"] == "D2" for r in js["reasons"]) and js["refusals"] == []


def test_rolloff_without_a_seed_draws_one_and_reports_it(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []

    def draw(n: int) -> int:
        asked.append(n)
        return 4242

    monkeypatch.setattr(secrets, "randbelow", draw)
    ruling = ask(None, "rolloff").ruling
    assert asked == [2**32] and ruling.seed == 4242
    assert ruling == darkage.rolloff(("A", "B"), seed=4242)


def test_rolloff_odds_come_from_the_procedure_rolled(monkeypatch: pytest.MonkeyPatch) -> None:
    # brute force over two d6: the lower decides, a tie is rolled again
    faces = range(1, 7)
    first = sum(x < y for x in faces for y in faces)
    ties = sum(x == y for x in faces for y in faces)
    odds = darkage.rolloff_odds(("a", "b"), sides=6)
    assert odds.first == Fraction(first, 36 - ties) == odds.second
    assert odds.tie == Fraction(ties, 36) and odds.rounds == 1 / (1 - odds.tie)
    # the odds and the roll are both that one procedure: change it, both change
    monkeypatch.setattr(dice, "roll_off", lambda d, players, sides=20: players[1])
    darkage.rolloff_odds.cache_clear()
    try:
        assert darkage.rolloff_odds(("a", "b")).second == 1
        assert darkage.rolloff(("a", "b"), seed=3).decides == "b"
    finally:
        darkage.rolloff_odds.cache_clear()


def test_rolloff_refuses_anything_but_two_players() -> None:
    with pytest.raises(RulesError, match="two players"):
        ask(None, "rolloff", players=("a",), seed=1)
    with pytest.raises(RulesError, match="2 distinct players"):
        ask(None, "rolloff", players=("a", "a"), seed=1)
    with pytest.raises(RulesError, match="unknown request field 'sides'"):
        ask(None, "rolloff", sides=6)


ACTIVATION = (
    "arbitre: 1\ntable: [600, 400]\nmodels:\n"
    "  - {id: scout, side: r, at: [100, 200], stats: {ap: 3}}\n"
    "  - {id: ogre, side: s, at: [500, 200]}\n"
    "  - {id: imp, side: s, at: [500, 300], stats: {ap: 2.5}}\n"
)


def test_d1_activation_through_ask() -> None:
    table = scenario.loads(ACTIVATION)
    answer = ask(table, "activation", model="scout", actions=("move", "attack"))
    validate_json(answer.to_json(), output_schema())
    r = answer.ruling
    assert (r.model, r.ap, r.left, r.lost, r.ended) == ("scout", 3, 1, 0, False)
    assert r.spent == (("move", 1), ("attack", 1)) and r.refusals == ()
    assert [x.text for x in r.reasons] == ["move: 1 AP", "attack: 1 AP"]
    js = answer.to_json()["rulings"][0]
    assert js["spent"] == [{"action": "move", "cost": 1}, {"action": "attack", "cost": 1}]
    assert (js["kind"], js["left"], js["lost"], js["ended"]) == ("activation", 1, 0, False)
    # the player stops: what is left is lost (D1)
    stopped = ask(table, "activation", model="scout", actions=("skill", "end")).ruling
    assert (stopped.ended, stopped.lost) == (True, 2)
    assert stopped.reasons[-1].text == "activation over, 2 AP lost"
    # AP spent: the activation is over, and what comes after is refused, not spent
    over = ask(table, "activation", model="scout", actions=("move",) * 4).ruling
    assert (over.ended, over.left, over.lost, len(over.spent)) == (True, 0, 0, 3)
    assert [x.rule for x in over.refusals] == ["D1"]
    assert "activation is over" in over.refusals[0].text
    validate_json(ask(table, "activation", model="scout", actions=("move",) * 4).to_json(),
                        output_schema())  # fmt: skip
    # AP given rather than read from the stat; one action alone
    given = ask(table, "activation", model="ogre", ap=2, actions="move").ruling
    assert (given.ap, given.left, given.spent) == (2, 1, (("move", 1),))
    assert ask(table, "activation", model="scout").ruling.left == 3


def test_d1_activation_errors_say_what_to_fix() -> None:
    table = scenario.loads(ACTIVATION)
    with pytest.raises(RulesError, match="ogre has no ap stat"):
        ask(table, "activation", model="ogre", actions=("move",))
    with pytest.raises(RulesError, match="ap stat must be a whole number"):
        ask(table, "activation", model="imp")
    with pytest.raises(RulesError, match=r"unknown action 'fly' \(actions: move, attack"):
        ask(table, "activation", model="scout", actions=("move", "fly"))
    with pytest.raises(RulesError, match="nobody"):
        ask(table, "activation", model="nobody", ap=2)
    with pytest.raises(RulesError, match="AP must be a whole number"):
        ask(table, "activation", model="scout", ap=-1)


# --- the face ---------------------------------------------------------------------------


def test_los_json_gives_the_witness_in_the_scenario_unit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = tmp_path / "cm.yaml"
    f.write_text(
        "arbitre: 1\nrules: darkage\nunit: cm\ntable: [60, 40]\nmodels:\n"
        "  - {id: a, side: r, at: [10, 20], base: 3}\n"
        "  - {id: b, side: s, at: [50, 20], base: 3}\n"
    )
    assert main(["los", str(f), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rules"] == "darkage" and doc["unit"] == "cm"
    (p, q), *_ = [r["witness"] for r in doc["rulings"]]
    assert p == pytest.approx([11.5, 20]) and q == pytest.approx([48.5, 20])


def test_rolloff_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rolloff", "--seed", "5", "--players", "ann", "bob", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate_json(doc, output_schema())
    (ruling,) = doc["rulings"]
    assert ruling["decides"] in {"ann", "bob"} and ruling["odds"]["ann"]["p"] == "1/2"
    assert ruling["seed"] == 5 and ruling["players"] == ["ann", "bob"]
    assert main(["rolloff", "--seed", "5", "--players", "ann", "bob", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == doc
    assert main(["rolloff", "--seed", "5"]) == 0
    said = capsys.readouterr().out
    assert "decides the order" in said and "A decides 1/2 (50.0%)" in said
    assert main(["rolloff", "--json"]) == 0  # no seed: a fresh one, reported
    fresh = json.loads(capsys.readouterr().out)["rulings"][0]
    assert fresh["log"]["seed"] == fresh["seed"]
    replayed = darkage.rolloff(("A", "B"), seed=fresh["seed"])
    assert replayed.decides == fresh["decides"] and replayed.log.to_json() == fresh["log"]


def test_activation_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "act.yaml"
    f.write_text(ACTIVATION)
    assert main(["activation", str(f), "scout", "move", "attack"]) == 0
    said = capsys.readouterr().out
    assert "scout: 3 AP, spent move 1, attack 1; 1 AP left" in said
    assert main(["activation", str(f), "ogre", "--ap", "2", "move", "end", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate_json(doc, output_schema())
    (ruling,) = doc["rulings"]
    assert (ruling["ap"], ruling["left"], ruling["lost"], ruling["ended"]) == (2, 1, 1, True)
    assert main(["activation", str(f), "scout", "move", "move", "move", "skill"]) == 0
    said = capsys.readouterr().out
    assert "over, 0 AP lost" in said and "refused" in said and "cannot skill" in said
    assert main(["activation", str(f), "scout", "fly"]) == 2
    assert "unknown action 'fly'" in capsys.readouterr().err
    assert main(["activation", str(f), "ogre", "move"]) == 2
    assert "ogre has no ap stat" in capsys.readouterr().err


def test_render_draws_windows_and_witnesses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "w.svg"
    assert (
        main(
            [
                "render",
                str(ROOT / "examples" / "darkage-wall.yaml"),
                "--shooter",
                "L",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    svg = out.read_text()
    assert svg.count('class="window"') == 2
    assert svg.count('class="witness"') == 1
    assert 'class="sight' not in svg  # D3 is not a centre line


def test_overlay_draws_the_windows_the_rulings_give() -> None:
    table = scenario.load(ROOT / "examples" / "darkage-wall.yaml")
    rulings = ask(table, "los", rules="darkage", shooter="L").rulings
    drawn = overlay(rulings)
    windows = [d for d in drawn.drawings if d.cls == "window"]
    assert len(windows) == len(rulings) == 2
    for r, d in zip(rulings, windows, strict=True):
        (a0, a1), (b0, b1) = r.window
        assert [(p.x, p.y) for p in d.points] == [a0, a1, b1, b0]
    # nothing is measured in the face: another window in the ruling, another picture
    other = dataclasses.replace(rulings[0], window=(((0, 0), (10, 0)), ((0, 5), (10, 5))))
    assert [(p.x, p.y) for p in overlay([other]).drawings[0].points] == [
        (0, 0), (10, 0), (10, 5), (0, 5)
    ]  # fmt: skip


def _tangent(side: Any, a: Any, b: Any) -> None:
    (px, py), (qx, qy) = side
    for m, (x, y) in ((a, (px, py)), (b, (qx, qy))):
        assert math.hypot(x - m.at.x, y - m.at.y) == pytest.approx(m.base.radius)
        # the side touches the base: the centre is a radius away from its line
        d = abs((qx - px) * (py - m.at.y) - (px - m.at.x) * (qy - py)) / math.hypot(
            qx - px, qy - py
        )
        assert d == pytest.approx(m.base.radius)


def test_window_sides_are_the_outer_tangents_in_the_report_unit() -> None:
    table = scenario.load(ROOT / "examples" / "darkage-huge-between.yaml")
    for r in ask(table, "los", rules="darkage").rulings:
        a, b = table.model(r.shooter), table.model(r.target)
        left, right = r.window
        _tangent(left, a, b)
        _tangent(right, a, b)
    cm = scenario.loads(
        "arbitre: 1\nrules: darkage\nunit: cm\ntable: [60, 40]\nmodels:\n"
        "  - {id: a, side: r, at: [10, 20], base: 3}\n"
        "  - {id: b, side: s, at: [50, 20], base: 3}\n"
    )
    js = ask(cm, "los", shooter="a", target="b").to_json()["rulings"][0]
    want = [[[10, 18.5], [50, 18.5]], [[10, 21.5], [50, 21.5]]]
    np.testing.assert_allclose(sorted(js["window"]), want, atol=1e-9)


HEDGE = """
arbitre: 1
rules: darkage
table: [600, 400]
terrain:
  - {id: hedge, sight: cover, size: small, rect: {at: [300, 200], width: 10, depth: 300}}
  - {id: wall, sight: blocks, size: large, rect: {at: [400, 200], width: 20, depth: 300}}
models:
  - {id: a, side: r, at: [100, 200], base: 30, size: medium}
  - {id: b, side: s, at: [350, 300], base: 30, size: medium}
  - {id: c, side: s, at: [500, 200], base: 30, size: medium}
"""


def test_because_names_only_what_closes_the_window() -> None:
    # D4: the small hedge does not obstruct a medium target: the reasons say so, and
    # "because" never lists it as if it blocked
    table = scenario.loads(HEDGE)
    seen, hidden = ask(table, "los", shooter="a", target=("b", "c")).rulings
    assert seen.visible and not hidden.visible
    for r in (seen, hidden):
        assert any(x.rule == "D4" and x.ids == ("hedge",) and "do not obstruct" in x.text
                   for x in r.reasons)  # fmt: skip
        assert "hedge" not in r.because and "hedge" not in r.blockers
    assert seen.because == "D3"
    assert hidden.because == "D3, D4 wall" and hidden.blockers == ("wall",)


def test_los_json_validates_against_the_output_schema() -> None:
    table = scenario.load(GOLDEN[0])
    validate_json(ask(table, "los", rules="darkage").to_json(), output_schema())
