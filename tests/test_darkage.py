"""Dark Age D1-D5: golden figures of the seed, action points, roll-offs, the face."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import yaml

from arbitre import dice, scenario
from arbitre.cli import main
from arbitre.errors import RulesError
from arbitre.rules import darkage, find_ruleset
from arbitre.testing import random_table

ROOT = Path(__file__).parent.parent
GOLDEN = sorted((ROOT / "examples").glob("darkage-*.yaml")) + sorted(
    (ROOT / "tests" / "golden" / "darkage").glob("*.yaml")
)


def test_the_seed_figures_ship_as_examples() -> None:
    assert len(list((ROOT / "examples").glob("darkage-*.yaml"))) == 3
    cited = set().union(*(yaml.safe_load(p.read_text())["cites"] for p in GOLDEN))
    assert {"D3", "D4", "D5"} <= cited


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden(path: Path) -> None:
    doc = yaml.safe_load(path.read_text())
    table = scenario.load(path)
    got = darkage.rulings(table, [(e["shooter"], e["target"]) for e in doc["expect"]])
    for want, ruling in zip(doc["expect"], got, strict=True):
        where = f"{path.name}: {want['shooter']} -> {want['target']}"
        assert ruling.visible is want["visible"], where
        assert (ruling.witness is not None) is ruling.visible, where
        if "blockers" in want:
            assert list(ruling.blockers) == want["blockers"], where
        for rule in want.get("rules", []):
            assert rule in ruling.rules and rule in doc["cites"], (where, rule)


def test_d4_sight_is_not_symmetric_somewhere_on_random_tables() -> None:
    sizes = ("small", "medium", "large", "huge")
    found = 0
    for seed in range(20):
        base = random_table(seed, models=12, terrain=6, width=400.0)
        rng = np.random.default_rng(seed)
        models = tuple(
            m.__class__(
                **{**{f: getattr(m, f) for f in m.__slots__}, "size": sizes[int(rng.integers(4))]}
            )
            for m in base.models
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
    assert find_ruleset("da").los is darkage.rulings


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
    assert doc["decides"] in {"ann", "bob"} and doc["odds"]["ann"]["exact"] == "1/2"
    assert main(["rolloff", "--seed", "5", "--players", "ann", "bob", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == doc
    assert main(["rolloff", "--seed", "5"]) == 0
    assert "decides the order" in capsys.readouterr().out


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
