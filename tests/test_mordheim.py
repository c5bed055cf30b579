"""Mordheim shooting phase M1-M11: golden scenarios citing their rules (the seed's
situations first), exact odds checked by hand and by icepool, seeded rolls converging on
the exact odds, the commands and the picture."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import replace
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import icepool
import jsonschema
import pytest
import typer
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from schema_support import validate_json
from typer.testing import CliRunner

from arbitre import scenario
from arbitre.dice import (
    NeedOverSix,
    Roller,
    enumerate_procedure,
    mordheim_to_hit,
    replay_procedure,
)
from arbitre.errors import RulesError, ScenarioError
from arbitre.faces.cli.mordheim import register
from arbitre.faces.svg.mordheim import CLOSEST, ELEVATED, LEGAL, NOT_LEGAL, overlay, overlays
from arbitre.faces.svg.table import Overlay, render_table
from arbitre.geometry import Disc, Point, PolygonFootprint, rect_points
from arbitre.rules import Answer, ask
from arbitre.rules.mordheim import (
    MordheimOptions,
    ShootRuling,
    Shot,
    TargetRuling,
    TargetsRuling,
)
from arbitre.rules.mordheim.shot import roll
from arbitre.rules.options import read_options
from arbitre.rules.ruling import LosRuling
from arbitre.rules.schema import output_schema
from arbitre.table import Model, Table, Terrain, Unit, Weapon

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = sorted((Path(__file__).parent / "golden" / "mordheim").glob("*.yaml"))
EXAMPLES = sorted((ROOT / "examples").glob("mordheim-*.yaml"))
RULES = {f"M{i}" for i in range(1, 13)}
INCH = Unit("in", 25.4)
SCHEMA = output_schema()


def ask_targets(table: Table, shooter: str, weapon: str | None = None, **options: object) -> Answer:
    return ask(table, "targets", rules="mordheim", options=options, shooter=shooter, weapon=weapon)


def targets(
    table: Table, shooter: str, weapon: str | None = None, **options: object
) -> TargetsRuling:
    """The ``targets`` ruling of ``shooter``, asked through the registry."""
    ruling: TargetsRuling = ask_targets(table, shooter, weapon, **options).ruling
    return ruling


def shoot(
    table: Table, shooter: str, target: str, *, seed: int | None, weapon: str | None = None
) -> ShootRuling:
    """The ``shoot`` ruling of ``shooter`` at ``target``, asked through the registry."""
    ruling: ShootRuling = ask(
        table, "shoot", rules="mordheim", shooter=shooter, target=target, weapon=weapon, seed=seed
    ).ruling
    return ruling


def los(table: Table, pairs: list[tuple[str, str]]) -> list[LosRuling]:
    """The Mordheim ``los`` rulings of ``pairs``."""
    return list(ask(table, "los", rules="mordheim", pairs=tuple(pairs)).rulings)


# --------------------------------------------------------------------------- goldens


def test_every_m_rule_has_a_golden_scenario() -> None:
    cited: set[str] = set()
    for path in GOLDEN:
        cited |= set(yaml.safe_load(path.read_text(encoding="utf-8"))["cites"])
    assert cited >= RULES, RULES - cited


def _same(got: object, want: object) -> bool:
    """A golden value: fractions as "1/3", lengths in the scenario unit, ids as lists."""
    if isinstance(got, F) or (isinstance(want, str) and "/" in want):
        return got is not None and F(str(got)) == F(str(want))
    if isinstance(got, float) and isinstance(want, (int, float)):
        return abs(got - want) < 1e-6
    if isinstance(got, tuple):
        return list(got) == want
    return got == want


def _check_target(
    table: Table, t: TargetRuling, want: dict[str, Any], cites: list[str], where: str
) -> None:
    odds = t.odds
    for key, value in want.items():
        if key == "rules":
            for rule in value:
                assert rule in t.rules, (where, rule, t.reasons)
                assert rule in cites, (where, rule, "cite the rules you check")
        elif key == "refused":
            assert value in {r.rule for r in t.refusals}, (where, t.refusals)
        elif key == "distance":
            assert _same(table.unit.from_mm(t.distance), value), (where, t.distance)
        elif key in ("p_hit", "p_hit_cover", "p_miss"):
            got = None if odds is None else getattr(odds, key[2:])
            assert (got is None and value is None) or _same(got, value), (where, key, got)
        elif key == "p_hit_model":
            assert odds is not None
            got = dict(odds.allocation)
            assert {k: F(str(v)) for k, v in value.items()} == got, (where, got)
        else:
            assert _same(getattr(t, key), value), (where, key, getattr(t, key), value)


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden(path: Path) -> None:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    table = scenario.load(path)
    for want in doc["expect"]:
        shooter = want["shooter"]
        answer = ask_targets(table, shooter, want.get("weapon"))
        validate_json(answer.to_json(), SCHEMA)
        ruling: TargetsRuling = answer.ruling
        where = f"{path.name}: {shooter}"
        for key in ("may_shoot", "legal", "closest"):
            if key in want:
                got = getattr(ruling, key)
                assert (list(got) if isinstance(got, tuple) else got) == want[key], (where, key)
        for rule in want.get("rules", []):
            assert rule in ruling.rules, (where, rule)
            assert rule in doc["cites"], (where, rule, "cite the rules you check")
        if "refused" in want:
            assert want["refused"] in {r.rule for r in ruling.refusals}, (where, ruling.refusals)
        for target, expected in want.get("targets", {}).items():
            _check_target(
                table, ruling.target(target), expected, doc["cites"], f"{where} -> {target}"
            )
        for shot in want.get("shots", []):
            kwargs = {"seed": shot.get("seed", 0), "weapon": want.get("weapon")}
            if "refused" in shot:
                with pytest.raises(RulesError, match=re.escape(shot["refused"])):
                    shoot(table, shooter, shot["target"], **kwargs)
                continue
            shot_answer = ask(
                table, "shoot", rules="mordheim", shooter=shooter, target=shot["target"], **kwargs
            )
            validate_json(shot_answer.to_json(), SCHEMA)
            result: ShootRuling = shot_answer.ruling
            for key in ("outcome", "hit", "automatic"):
                if key in shot:
                    assert getattr(result, key) == shot[key], (where, key, result)
            if "dice" in shot:
                assert len(result.log.dice) == shot["dice"], (where, result.log)
            for rule in shot.get("rules", []):
                assert rule in {r.rule for r in result.reasons}, (where, rule, result.reasons)
                assert rule in doc["cites"], (where, rule, "cite the rules you check")


# --------------------------------------------------------------------------- M7, M9 odds


def duel(
    bs: int,
    *,
    cover: bool = False,
    long: bool = False,
    moved: bool = False,
    large: bool = False,
    **options: object,
) -> TargetRuling:
    """One shooter and one target on a 40" table: the target 6" or 14" away (bow 24"),
    behind a hedge that hides half its base or not, large or not."""
    shooter = Model(
        "s",
        "red",
        Point(500, 100),
        Disc(25.4),
        stats=(("bs", bs),),
        status=frozenset({"moved"} if moved else ()),
        weapons=(Weapon("Bow", 24 * 25.4),),
    )
    y = 100 + (15 if long else 7) * 25.4
    target = Model("t", "blue", Point(500, y), Disc(25.4), large_target=large)
    hedge = Terrain("hedge", PolygonFootprint(rect_points(Point(480, y - 60), 40, 8, 0)), "cover")
    table = Table(
        1016,
        1016,
        (hedge,) if cover else (),
        (shooter, target),
        unit=INCH,
        options=tuple(options.items()),
    )
    return targets(table, "s").target("t")


# Derived by hand: the M7 score is 7 - BS, +1 for each of cover, long range, moving, -1 for
# a large target; a d6 hits on that score or more; in cover a roll one short hits the cover.
HAND = [
    # bs, modifiers,                                     score, hit, cover, miss
    (3, {}, 4, F(1, 2), F(0), F(1, 2)),  # 4, 5, 6
    (3, {"cover": True}, 5, F(1, 3), F(1, 6), F(1, 2)),  # 5, 6 hit; a 4 the hedge
    (4, {"cover": True, "long": True}, 5, F(1, 3), F(1, 6), F(1, 2)),
    (1, {"cover": True}, 7, F(0), F(1, 6), F(5, 6)),  # only a 6, one short: the hedge
    (2, {"moved": True, "long": True}, 7, F(0), F(0), F(1)),
    (5, {"large": True}, 1, F(1), F(0), F(0)),  # any roll
    (3, {"large": True, "cover": True}, 4, F(1, 2), F(1, 6), F(1, 3)),
    (6, {"moved": True, "cover": True, "long": True, "large": True}, 3, F(2, 3), F(1, 6), F(1, 6)),
    (10, {"cover": True}, -2, F(1), F(0), F(0)),
]


@pytest.mark.parametrize(("bs", "mods", "score", "hit", "cover", "miss"), HAND)
def test_odds_derived_by_hand(
    bs: int, mods: dict[str, bool], score: int, hit: F, cover: F, miss: F
) -> None:
    t = duel(bs, **mods)
    assert t.in_cover is mods.get("cover", False)
    assert t.long_range is mods.get("long", False)
    assert t.large is mods.get("large", False)
    assert t.score == score and t.need == (score if hit else None)
    assert t.odds is not None
    assert (t.odds.hit, t.odds.hit_cover, t.odds.miss) == (hit, cover, miss)


def test_options_change_the_odds_by_hand() -> None:
    # natural_one_misses: a score of 1 or less still misses on a 1
    t = duel(8, natural_one_misses=True)
    assert t.odds is not None and (t.odds.hit, t.odds.miss) == (F(5, 6), F(1, 6))
    # need_over_six 6-then-4+: BS 1 in cover = 7 = a 6 then 4+; a 6 then 1-3 scores 6,
    # one short: the cover
    t = duel(1, cover=True, need_over_six="6-then-4+")
    assert t.need == 7 and t.odds is not None
    assert (t.odds.hit, t.odds.hit_cover, t.odds.miss) == (F(1, 12), F(1, 12), F(5, 6))


def ip_to_hit(need: int, in_cover: bool, ones: bool, over: str) -> dict[str, F]:
    """icepool oracle of M7/M9: the score of the roll (a 6 then 4+ reads as 6 + the second
    die - 3 on the 7+ chart), then hit / hit the cover / miss."""
    if over == "6-then-4+":
        score = icepool.d6.map(lambda a: a if a < 6 else 6 + (icepool.d6 - 3).clip(0, 3))
    else:
        score = icepool.d6

    def outcome(s: int) -> str:
        if ones and s == 1 and need <= 1:  # a natural 1 misses a score of 1 or less: a
            return "miss"  # plain miss (dice.py); against 2+ it misses by 1 like any 1
        if s >= need:
            return "hit"
        return "hit_cover" if in_cover and s == need - 1 else "miss"

    law = score.map(outcome)
    return {
        str(o): F(law.quantity(o), law.denominator()) for o in law.outcomes() if law.quantity(o)
    }


@pytest.mark.parametrize("over", ["impossible", "6-then-4+"])
@pytest.mark.parametrize("ones", [False, True])
@pytest.mark.parametrize("in_cover", [False, True])
@pytest.mark.parametrize("need", range(-4, 13))
def test_shot_odds_match_icepool(need: int, in_cover: bool, ones: bool, over: NeedOverSix) -> None:
    shot = Shot("s", "t", need, True, in_cover, (), ones, over)
    odds = shot.odds()
    got = {
        k: p
        for k, p in (("hit", odds.hit), ("hit_cover", odds.hit_cover), ("miss", odds.miss))
        if p
    }
    assert got == ip_to_hit(need, in_cover, ones, over)
    law = enumerate_procedure(
        lambda d: mordheim_to_hit(
            d, need, in_cover=in_cover, natural_one_misses=ones, need_over_six=over
        )
    )
    assert got == law.probabilities()  # the same dice procedure as dice.py's


@pytest.mark.parametrize("size", [2, 3, 4])
def test_melee_allocation_matches_icepool(size: int) -> None:
    fight = tuple(f"m{k}" for k in range(size))
    odds = Shot("s", "m0", 4, fight=fight).odds()
    hit = icepool.d6 >= 4
    who = icepool.Die(list(fight))
    for m, p in odds.allocation:
        assert p == F(hit.probability(True)) * F(who.quantity(m), who.denominator())
    assert sum(p for _, p in odds.allocation) == odds.hit == F(1, 2)


def test_out_of_range_misses_without_dice() -> None:
    shot = Shot("s", "t", 3, in_range=False)
    assert shot.odds().miss == 1
    outcome, log = roll(shot, 5)
    assert outcome == ("miss", None) and log.dice == ()


# --------------------------------------------------------------------------- seeded rolls


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    need=st.integers(-2, 11),
    in_cover=st.booleans(),
    ones=st.booleans(),
    over=st.sampled_from(["impossible", "6-then-4+"]),
    fight=st.integers(0, 4),
    seed=st.integers(0, 2**32),
)
def test_seeded_rolls_converge_on_the_exact_odds(
    need: int, in_cover: bool, ones: bool, over: NeedOverSix, fight: int, seed: int
) -> None:
    """The frequencies of N seeded rolls of a shot stay within 5 sigma of its exact law
    (both come from the one procedure), and outcomes of probability 0 never show."""
    shot = Shot(
        "s",
        "t",
        need,
        True,
        in_cover,
        ("t", *(f"o{k}" for k in range(fight))) if fight else (),
        ones,
        over,
    )
    law = enumerate_procedure(shot).probabilities()
    roller, n = Roller(seed), 3000
    counts: dict[object, int] = {}
    for _ in range(n):
        outcome, _log = roll(shot, roller)
        counts[outcome] = counts.get(outcome, 0) + 1
    assert set(counts) <= set(law)
    for outcome, p in law.items():
        freq = counts.get(outcome, 0) / n
        sigma = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(freq - float(p)) <= 5 * sigma + 1e-12, (outcome, freq, p)


def test_same_seed_same_shot_and_replayable() -> None:
    table = scenario.load(GOLDEN[0].parent / "m4_multiplayer.yaml")
    for seed in range(30):
        a = shoot(table, "archer", "mercenary", seed=seed)
        b = shoot(table, "archer", "mercenary", seed=seed)
        assert (a.outcome, a.hit, a.log) == (b.outcome, b.hit, b.log)
        assert replay_procedure(a.shot, a.log) == (a.outcome, a.hit)
        assert a.odds == targets(table, "archer").target("mercenary").odds
        assert [d.label for d in a.log.dice][:1] == ["M7 to-hit archer->mercenary"]
    hits = {shoot(table, "archer", "mercenary", seed=s).hit for s in range(60)}
    assert hits == {"mercenary", "cultist", None}  # M4: either model of the fight is hit


# --------------------------------------------------------------------------- bad input


def small(*models: Model, terrain: tuple[Terrain, ...] = (), **options: object) -> Table:
    return Table(600, 600, terrain, models, unit=INCH, options=tuple(options.items()))


ARCHER = Model(
    "archer",
    "red",
    Point(100, 100),
    stats=(("bs", 3),),
    weapons=(
        Weapon("Bow", 600.0),
        Weapon("Breath", None, "Souffle englobant (feu • puissance 5/2)"),
    ),
)
ORC = Model("orc", "blue", Point(100, 300))


@pytest.mark.parametrize(("change", "message"), [
    ({"stats": (("bs", 3.5),)}, "model 'archer' stats.bs: must be a whole number from 0 to 10"),
    ({"stats": (("bs", 11),)}, "got 11"),
    ({"inside": "hedge"}, "model 'archer' inside: terrain 'hedge' is not a building"),
    ({"inside": "nowhere"}, "model 'archer' inside: unknown terrain id 'nowhere'"),
    ({"engaged": ("ghost",)}, "model 'archer' engaged: unknown model id 'ghost'"),
])  # fmt: skip
def test_bad_models_are_errors_naming_the_place(change: dict[str, Any], message: str) -> None:
    hedge = Terrain("hedge", PolygonFootprint(rect_points(Point(300, 300), 50, 10, 0)), "cover")
    table = small(replace(ARCHER, **change), ORC, terrain=(hedge,))
    with pytest.raises(RulesError, match=re.escape(message)):
        targets(table, "archer")


def test_bad_asks_are_errors() -> None:
    table = small(ARCHER, ORC)
    with pytest.raises(RulesError, match=r"no weapon 'Sling' \(missile weapons: 'Bow'\)"):
        targets(table, "archer", weapon="Sling")
    with pytest.raises(RulesError, match="'Breath' is not a missile weapon"):
        targets(table, "archer", weapon="breath")
    assert targets(table, "archer", weapon=" BOW ").weapon == ARCHER.weapons[0]
    with pytest.raises(RulesError, match="unknown model id 'nobody'"):
        targets(table, "nobody")
    with pytest.raises(RulesError, match=r"'archer' is not an enemy of 'archer' \(enemies: orc\)"):
        targets(table, "archer").target("archer")
    with pytest.raises(RulesError, match="seed must be >= 0"):
        shoot(table, "archer", "orc", seed=-1)
    with pytest.raises(RulesError, match="does not shoot itself"):
        los(table, [("orc", "orc")])


@pytest.mark.parametrize(("options", "message"), [
    ({"range_from": "middle"}, "option range_from: got 'middle', expected one of 'edge', 'centre'"),
    ({"need_over_six": "reroll"}, "expected one of 'impossible', '6-then-4+'"),
    ({"natural_one_misses": "yes"}, "option natural_one_misses: got 'yes', expected true or false"),
    ({"natural_one_miss": True}, "unknown option 'natural_one_miss' (valid options:"),
])  # fmt: skip
def test_options_are_checked(options: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=re.escape(message)):
        targets(replace(small(ARCHER, ORC), options=tuple(options.items())), "archer")


def test_option_defaults_are_rules_md() -> None:
    assert read_options(MordheimOptions, {}) == MordheimOptions(
        natural_one_misses=False, need_over_six="impossible", range_from="edge"
    )


# --------------------------------------------------------------------------- los rulings


def test_rulings_answer_the_line_of_sight_question() -> None:
    table = scenario.load(GOLDEN[0].parent / "m8_m9_cover.yaml")
    pairs = [("archer", t) for t in ("scout", "bandit", "thug", "cutpurse", "witch")]
    got = {r.target: r for r in los(table, pairs)}
    assert {k: (r.visible, r.cover) for k, r in got.items()} == {
        "scout": (True, 0),
        "bandit": (True, 1),
        "thug": (True, 1),
        "cutpurse": (True, 1),
        "witch": (False, 0),
    }
    assert got["bandit"].cover_pieces == ("hedge",) and got["witch"].blockers == ("ruin",)
    assert got["bandit"].rules == ("M1", "M8") and got["witch"].rules == ("M1",)
    assert 0 < got["thug"].visible_fraction < 1  # type: ignore[operator]
    ruling = targets(table, "archer")
    for r in got.values():
        t = ruling.target(r.target)
        assert (t.visible, t.in_cover) == (r.visible, bool(r.cover))


def _dress(table: Table, seed: int) -> Table:
    """A random table made a Mordheim one: stats, bows, statuses, fights, heights, three
    warbands on odd seeds."""
    import numpy as np

    rng = np.random.default_rng(seed)
    sides = ("red", "blue", "green") if seed % 2 else ("red", "blue")
    models = []
    for i, m in enumerate(table.models):
        status = {
            s for s in ("moved", "stunned", "knocked_down", "fleeing", "ran") if rng.random() < 0.08
        }
        models.append(
            replace(
                m,
                side=sides[i % len(sides)],
                stats=(("bs", int(rng.integers(1, 7))),),
                weapons=(Weapon("Bow", float(rng.uniform(100, 600))),),
                status=frozenset(status),
                large_target=bool(rng.random() < 0.1),
                elevation=60.0 if rng.random() < 0.1 else 0.0,
            )
        )
    for i in range(0, len(models) - 1, 7):  # some fights between neighbours in the list
        a, b = models[i], models[i + 1]
        if a.side != b.side:
            models[i] = replace(a, engaged=(b.id,))
    return replace(table, models=tuple(models))


@pytest.mark.parametrize("seed", range(16))
def test_priority_agrees_with_a_brute_force_reading_of_m3_m5(seed: int) -> None:
    """On random tables, legality follows M3-M5 read directly off the rulings: a target is
    legal iff it is seen, not barred by its fight, and (elevated shooter) free or in the
    shooter's building, or (on the ground) no closer candidate remains un-passed."""
    from arbitre.testing import random_table

    table = _dress(random_table(seed, models=14, terrain=6, width=600.0), seed)
    for s in table.models:
        ruling = targets(table, s.id)
        own = [r for r in ruling.refusals if not r.text.endswith("has no legal target")]
        if own:  # a shooter that may not shoot: no target is legal, for its own reasons
            for t in ruling.targets:
                assert not t.legal and not t.closest
                assert set(own) <= set(t.refusals) and set(own) <= set(t.deciding)
            assert not ruling.may_shoot and not ruling.legal
            continue
        cands = [
            t for t in ruling.targets if t.visible and "M4" not in {r.rule for r in t.refusals}
        ]
        for t in ruling.targets:
            assert t.target != s.id and table.model(t.target).side != s.side
            if t.odds is not None:
                assert t.odds.hit + t.odds.hit_cover + t.odds.miss == 1
                assert sum(p for _, p in t.odds.allocation) == t.odds.hit
            assert t.visible or (not t.legal and t.odds is None)
            if t not in cands:
                assert not t.legal
                continue
            if ruling.elevated:
                same = [c for c in cands if s.inside and table.model(c.target).inside == s.inside]
                assert t.legal is (not same or t in same)
                continue
            closer = [c for c in cands if c.distance < t.distance - 1e-6]
            assert t.closest is (not closer)

            def passed(c: TargetRuling, t: TargetRuling = t) -> bool:
                status = table.model(c.target).status
                return bool(status & {"stunned", "knocked_down", "fleeing"}) or (
                    t.odds is not None and c.odds is not None and t.odds.hit > c.odds.hit
                )

            assert t.legal is (t.large or all(passed(c) for c in closer)), (seed, s.id, t)
        assert ruling.may_shoot is (not ruling.refusals)
        assert set(ruling.closest) <= set(ruling.legal)


# --------------------------------------------------------------------------- commands


@pytest.fixture()
def cli() -> Any:
    app = typer.Typer()
    register(app)

    @app.command()
    def noop() -> None:  # a second command, so that typer keeps sub-command names
        pass

    runner = CliRunner()

    def run(*args: object) -> Any:
        return runner.invoke(app, [str(a) for a in args])

    return run


SEED_TABLE = GOLDEN[0].parent / "m3_priority_seed.yaml"


def test_cli_targets_json(cli: Any) -> None:
    result = cli("targets", SEED_TABLE, "hunter", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    validate_json(doc, SCHEMA)
    assert (doc["arbitre"], doc["kind"], doc["rules"], doc["unit"]) == (
        2,
        "targets",
        "mordheim",
        "in",
    )
    assert doc["options"] == {
        "natural_one_misses": False,
        "need_over_six": "impossible",
        "range_from": "edge",
        "windows": "open",
        "grazing_blocks": False,
        "close_call": 2.0,
    }
    (ruling,) = doc["rulings"]
    assert ruling["kind"] == "targets" and ruling["refusals"] == []
    assert ruling["may_shoot"] and (ruling["weapon"], ruling["range"]) == ("Bow", 24.0)
    assert (ruling["half_range"], ruling["range_ring"]) == (12.0, 24.5)  # base 1 in
    assert ruling["closest"] == ["orc"] and ruling["legal"] == ["orc", "rat", "ogre"]
    orc = ruling["targets"][0]
    assert orc["kind"] == "target" and orc["target"] == "orc"
    assert orc["distance"] == pytest.approx(6)
    assert (orc["need"], orc["need_text"], orc["in_cover"]) == (5, "5+", True)
    odds = orc["odds"]
    assert [odds[k]["p"] for k in ("hit", "hit_cover", "miss")] == ["1/3", "1/6", "1/2"]
    assert odds["hit"]["float"] == pytest.approx(1 / 3)
    assert odds["allocation"] == [{"model": "orc", "chance": {"p": "1/3", "float": 1 / 3}}]
    goblin = next(t for t in ruling["targets"] if t["target"] == "goblin")
    assert not goblin["legal"] and goblin["reasons"][-1]["rule"] == "M3"
    assert goblin["deciding"] == goblin["refusals"] == goblin["reasons"][-1:]
    assert [t["target"] for t in ruling["targets"]] == ["orc", "rat", "goblin", "ogre", "zombie"]


def test_cli_targets_text_and_explain(cli: Any) -> None:
    result = cli("targets", SEED_TABLE, "hunter")
    assert result.exit_code == 0, result.output
    assert "hunter (red), Bow 24 in, BS 3: may shoot" in result.output
    assert "closest" in result.output and "1/3" in result.output
    assert "goblin: not legal" in result.output and "rat is closer" in result.output
    explained = cli("targets", SEED_TABLE, "hunter", "--explain").output
    assert "M9" in explained and "M9" not in result.output


def test_cli_targets_without_bs_or_weapon(cli: Any) -> None:
    table = GOLDEN[0].parent / "m1_who_may_shoot.yaml"
    result = cli("targets", table, "untrained", "--json")
    (ruling,) = json.loads(result.output)["rulings"]
    assert not ruling["may_shoot"] and ruling["bs"] is None
    assert {t["odds"] is None for t in ruling["targets"]} == {True}
    # a shooter that may not shoot has no legal target: each row says why (its refusal)
    no_bs = {
        "rule": "M7",
        "ids": ["untrained"],
        "text": "untrained has no BS (stats.bs): no score to hit",
    }
    assert no_bs in ruling["refusals"]
    for row in ruling["targets"]:
        assert not row["legal"] and not row["closest"]
        assert no_bs in row["refusals"] and no_bs in row["deciding"]
    result = cli("targets", table, "unarmed")
    assert result.exit_code == 0 and "no missile weapon" in result.output


def test_cli_shoot(cli: Any) -> None:
    first = cli("shoot", SEED_TABLE, "hunter", "orc", "--seed", 0, "--json")
    assert first.exit_code == 0, first.output
    doc = json.loads(first.output)
    validate_json(doc, SCHEMA)
    assert (doc["arbitre"], doc["kind"], doc["unit"]) == (2, "shoot", "in")
    (shot,) = doc["rulings"]
    assert shot["kind"] == "shoot" and shot["refusals"] == []
    assert (shot["outcome"], shot["hit"], shot["automatic"]) == ("hit", "orc", False)
    assert (shot["seed"], shot["dice"]) == (
        0,
        [{"label": "M7 to-hit hunter->orc", "sides": 6, "value": 6}],
    )
    assert shot["odds"]["hit"]["p"] == "1/3" and shot["reasons"][-1]["rule"] == "M11"
    assert (shot["score"], shot["need_text"]) == (5, "5+")
    again = cli("shoot", SEED_TABLE, "hunter", "orc", "--seed", 0, "--json")
    assert again.output == first.output
    text = cli("shoot", SEED_TABLE, "hunter", "orc", "--seed", 12).output
    assert "d6 = 4" in text and "HIT THE COVER" in text
    multi = cli(
        "shoot", GOLDEN[0].parent / "m4_multiplayer.yaml", "archer", "mercenary", "--seed", 1
    )
    assert "HIT cultist" in multi.output and "d2 = 2" in multi.output
    far = cli(
        "shoot",
        GOLDEN[0].parent / "m6_range.yaml",
        "archer",
        "near",
        "--seed",
        1,
        "--weapon",
        "pistol",
    )
    assert "no dice: out of range" in far.output and "automatic" in far.output


def test_cli_refusals_and_mistakes_are_arbitre_errors(cli: Any, tmp_path: Path) -> None:
    result = cli("shoot", SEED_TABLE, "hunter", "goblin", "--seed", 1)
    assert isinstance(result.exception, RulesError)
    assert "hunter may not shoot goblin: rat is closer" in str(result.exception)
    assert "(M3)" in str(result.exception)
    result = cli("targets", SEED_TABLE, "hunter", "-O", "range_from=middle")
    assert isinstance(result.exception, RulesError) and "range_from" in str(result.exception)
    result = cli("targets", SEED_TABLE, "hunter", "-O", "range_from")
    assert "expected NAME=VALUE" in str(result.exception)
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "arbitre: 1\ntable: [10, 10]\nmodels: [{id: a, side: x, at: [99, 1]}]\n", encoding="utf-8"
    )
    result = cli("targets", bad, "a")
    assert isinstance(result.exception, ScenarioError) and "models[0].at" in str(result.exception)
    result = cli("shoot", SEED_TABLE, "hunter", "orc", "--seed", "x")
    assert result.exit_code == 2 and "--seed" in result.output  # a usage error: typer's


def test_cli_options_override_the_file(cli: Any) -> None:
    table = GOLDEN[0].parent / "m6_range.yaml"
    edge = json.loads(cli("targets", table, "archer", "--json").output)["rulings"][0]
    centre = json.loads(
        cli("targets", table, "archer", "--json", "-O", "range_from=centre").output
    )["rulings"][0]
    near = [t["distance"] for t in (edge["targets"][0], centre["targets"][0])]
    assert near == pytest.approx([5, 6])


def test_cli_shows_each_targets_deciding_reasons(cli: Any) -> None:
    """Under each target the face prints the reasons its ruling says decided it (the
    ``deciding`` field), and the others only with --explain."""
    ruling = targets(scenario.load(EXAMPLES[0]), "captain")
    text = cli("targets", EXAMPLES[0], "captain").output
    explained = cli("targets", EXAMPLES[0], "captain", "--explain").output
    own = {r.text for r in ruling.reasons}
    assert any(t.deciding for t in ruling.targets)
    for t in ruling.targets:
        assert t.deciding, t.target  # every target says why it is legal or not
        for r in t.reasons:
            assert r.text in explained
            if r in t.deciding:
                assert f"{r.rule:3} {r.text}" in text
            elif r.text not in own:
                assert r.text not in text, (t.target, r)


def test_a_shooter_that_may_not_shoot_has_no_legal_target(cli: Any) -> None:
    """M1, M7: each target of a shooter that may not shoot is not legal, and says why: the
    shooter's own refusal."""
    path = GOLDEN[0].parent / "m1_who_may_shoot.yaml"
    table = scenario.load(path)
    for shooter, why in (
        ("runner", "runner ran: it cannot shoot this turn"),
        ("brawler", "brawler is engaged in close combat with orc: it cannot shoot"),
        ("unarmed", "unarmed has no missile weapon"),
    ):
        ruling = targets(table, shooter)
        assert not ruling.may_shoot and ruling.legal == () and ruling.closest == ()
        assert why in {r.text for r in ruling.refusals}
        for t in ruling.targets:
            assert not t.legal and not t.closest
            assert why in {r.text for r in t.refusals} & {r.text for r in t.deciding}
    text = cli("targets", path, "runner").output
    assert "troll: not legal" in text and "M1  runner ran: it cannot shoot" in text


def test_shoot_without_a_seed_draws_one_and_reports_it(
    cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = scenario.load(SEED_TABLE)
    drawn = shoot(table, "hunter", "orc", seed=None)
    assert drawn.seed is not None and 0 <= drawn.seed < 2**32
    again = shoot(table, "hunter", "orc", seed=drawn.seed)
    assert (again.log, again.outcome) == (drawn.log, drawn.outcome)
    assert drawn.to_json(INCH)["seed"] == drawn.seed
    import secrets

    monkeypatch.setattr(secrets, "randbelow", lambda n: 12 if n == 2**32 else 0)
    fixed = shoot(table, "hunter", "orc", seed=None)
    assert (fixed.seed, fixed.outcome) == (12, "hit_cover")  # a 4 (see test_cli_shoot)
    assert "seed 12" in cli("shoot", SEED_TABLE, "hunter", "orc").output


def test_los_rulings_say_in_short_what_decided() -> None:
    """M1/M8 ``because``: the blocking pieces of a line not seen, the pieces giving cover,
    ``clear`` otherwise; a target not seen has the M1 reason as its refusal."""
    table = scenario.load(GOLDEN[0].parent / "m8_m9_cover.yaml")
    pairs = [("archer", t) for t in ("scout", "bandit", "thug", "cutpurse", "witch")]
    got = {r.target: r for r in los(table, pairs)}
    assert got["scout"].because == "clear" and got["bandit"].because == "M8 hedge"
    assert got["witch"].because == "M1 ruin"
    for r in got.values():
        if r.cover:
            assert r.because == " ".join(("M8", *r.cover_pieces))
        assert r.refusals == (() if r.visible else r.reasons[:1])


def test_targets_and_shoot_json_validate_for_every_shooter_of_the_example() -> None:
    table = scenario.load(EXAMPLES[0])
    for m in table.models:
        answer = ask_targets(table, m.id)
        doc = answer.to_json()
        validate_json(doc, SCHEMA)
        for t in answer.ruling.targets:
            if t.legal:
                shot = ask(table, "shoot", shooter=m.id, target=t.target, seed=1).to_json()
                validate_json(shot, SCHEMA)
    doc = ask_targets(table, "captain").to_json()
    doc["rulings"][0]["targets"][0]["odds"]["hit"] = "2/3"  # JSON 1's encoding
    with pytest.raises(jsonschema.ValidationError):
        validate_json(doc, SCHEMA)


def test_main_prints_one_line_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    from arbitre import cli as main_cli

    names = {
        c.name or (c.callback.__name__ if c.callback else "")
        for c in main_cli.app.registered_commands
    }
    assert "shoot" in names
    code = main_cli.main(["shoot", str(SEED_TABLE), "hunter", "zombie", "--seed", "3"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "not easier to hit" in err


# --------------------------------------------------------------------------- the picture


def _picture(table: Table, shooter: str) -> str:
    pairs = [(shooter, m.id) for m in table.models if m.side != table.model(shooter).side]
    return render_table(
        table, rulings=los(table, pairs), shooter=shooter, overlays=overlays(table, shooter)
    )


def _overlay(table: Table, shooter: str) -> Overlay:
    (one,) = overlays(table, shooter)
    return one


def test_overlay_marks_targets_scores_range_and_fights() -> None:
    table = scenario.load(EXAMPLES[0])
    svg = _picture(table, "captain")
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    kinds: dict[str, str] = {}
    for el in root.iter(f"{ns}polygon"):
        cls = el.get("class") or ""
        if cls.startswith("mordheim-target"):
            title = el.find(f"{ns}title")
            assert title is not None and title.text
            kinds[title.text.split(":")[0]] = cls.split()[1]
            assert (
                el.get("stroke")
                == {"closest": CLOSEST, "legal": LEGAL, "not-legal": NOT_LEGAL}[cls.split()[1]]
            )
    ruling = targets(table, "captain")
    assert kinds == {
        t.target: "closest" if t.closest else "legal" if t.legal else "not-legal"
        for t in ruling.targets
        if t.visible
    }
    assert list(ruling.closest) == [k for k, v in kinds.items() if v == "closest"] == ["skink"]
    texts = [t.text for t in root.iter(f"{ns}text")]
    for t in ruling.targets:
        if t.visible and t.need is not None:
            assert t.need_short in texts
    assert any((e.get("class") or "") == "mordheim-range" for e in root.iter(f"{ns}polyline"))
    assert sum((e.get("class") or "") == "mordheim-fight" for e in root.iter(f"{ns}polygon")) == 2
    assert "Mordheim: captain" in texts and "may shoot (M1)" in texts
    assert "closest: must take (M3)" in texts


def test_overlay_of_a_shooter_that_may_not_shoot() -> None:
    table = scenario.load(EXAMPLES[0])
    o = _overlay(table, "youngblood")
    assert o.title == "Mordheim: youngblood"
    assert ("note", "#d62020", "may NOT shoot (M1)") in o.legend
    assert any(text.startswith("M1: youngblood ran") for _, _, text in o.legend)
    assert all(len(text) <= 28 for _, _, text in o.legend)  # the legend column is narrow
    elevated = _overlay(table, "marksman")
    assert ("label", ELEVATED, "elevated free pick (M5)") in elevated.legend  # not the M1 dot
    assert ("note", LEGAL, "may shoot (M1)") in elevated.legend


@pytest.mark.parametrize("range_from", ["edge", "centre"])
def test_overlay_is_registered_and_draws_the_rulings_fields(range_from: str) -> None:
    """The picture draws the range rings the ruling gives (no M6 in the face), a ring a
    seen target coloured by its ``legal``/``closest``, labelled with its ``need_short``
    and titled with its deciding reasons; the registry finds it by ruleset name."""
    from arbitre.faces.svg.overlays import overlays as registered

    table = scenario.load(EXAMPLES[0])
    opts = {"range_from": range_from}
    (drawn,) = registered(table, "mordheim", "captain", options=opts)
    ruling = targets(table, "captain", **opts)
    assert drawn == overlay(table, ruling, INCH)
    assert ruling.range is not None and ruling.range_ring is not None
    assert ruling.half_range_ring is not None
    pad = table.model("captain").base.radius if range_from == "edge" else 0.0
    assert ruling.range_ring == pytest.approx(ruling.range + pad)
    assert ruling.half_range_ring == pytest.approx(ruling.range / 2 + pad)
    at = table.model("captain").at
    radii = [
        math.hypot(p.x - at.x, p.y - at.y)
        for d in drawn.drawings
        if d.cls == "mordheim-range"
        for p in d.points
    ]
    rings = (ruling.range_ring, ruling.half_range_ring)
    chord = 1 - math.cos(math.pi / 96)  # the rings are drawn as 96-gons, cut at the edges
    assert radii and all(min(abs(x - r) / r for r in rings) <= chord for x in radii)
    assert {min(rings, key=lambda r: abs(x - r)) for x in radii} == set(rings)
    marks = {
        d.title.split(":")[0]: d
        for d in drawn.drawings
        if d.cls.startswith("mordheim-target") and d.title
    }
    assert set(marks) == {t.target for t in ruling.targets if t.visible}
    for t in ruling.targets:
        if t.visible:
            mark = marks[t.target]
            assert mark.label == (t.need_short or "?")
            assert mark.stroke == (CLOSEST if t.closest else LEGAL if t.legal else NOT_LEGAL)
            assert mark.title is not None
            assert all(r.text in mark.title for r in t.deciding)
    assert [set(f) for f in ruling.fights] == [{"swordsman", "clanrat"}, {"verminkin", "cultist"}]


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="needs rsvg-convert")
def test_picture_rasterises(tmp_path: Path) -> None:
    svg, png = tmp_path / "square.svg", tmp_path / "square.png"
    svg.write_text(_picture(scenario.load(EXAMPLES[0]), "captain"), encoding="utf-8")
    subprocess.run(["rsvg-convert", str(svg), "-o", str(png)], check=True)
    assert png.stat().st_size > 20_000


# --------------------------------------------------------------------------- the example


def test_example_shows_every_m_rule() -> None:
    (path,) = EXAMPLES
    table = scenario.load(path)
    cited: set[str] = set()
    for m in table.models:
        if m.side == "reiklanders":
            cited |= set(targets(table, m.id).rules)
    shot = shoot(table, "captain", "night-runner", seed=0)
    assert shot.outcome == "hit"  # as the example's comment says
    cited |= {r.rule for r in shot.reasons}
    assert cited >= RULES - {"M12"}, RULES - cited  # the seed's rules; M12: golden files
    text = path.read_text(encoding="utf-8")
    assert all(f"#   {rule}" in text for rule in RULES - {"M12"})  # its comment tells each
    hunter = targets(table, "hunter")
    assert hunter.multiplayer and hunter.target("verminkin").fight == ("verminkin", "cultist")
    assert hunter.closest == ("verminkin",)
    pistol = targets(table, "pistolier")
    assert all(t.in_range is False for t in pistol.targets)


@pytest.mark.parametrize("seed", range(8))
def test_hiding_pieces_agree_with_each_piece_alone(seed: int) -> None:
    """M8/G7: the pieces named as hiding part of a target are exactly those that, alone,
    leave less than all of its base in view (S2 per piece, no broad phase); and a target
    is partly hidden exactly when one is named."""
    import numpy as np

    from arbitre import sight
    from arbitre.rules.mordheim import sight as mordheim_sight
    from arbitre.testing import random_table

    table = random_table(seed, models=12, terrain=8, width=500.0, degenerate=seed % 2 == 1)
    pairs = [(a.id, b.id) for a in table.models for b in table.models if a.id != b.id]
    facts = mordheim_sight.measure(table, pairs)
    ix = mordheim_sight.open_index(table, "open")  # M12: windows open by default
    s = np.asarray([table.model_index(a) for a, _ in pairs])
    g = np.asarray([table.model_index(b) for _, b in pairs])
    alone = np.ones((len(pairs), len(ix.ids)))
    for k in range(len(ix.ids)):
        mask = np.zeros(len(ix.ids), dtype=np.bool_)
        mask[k] = True
        alone[:, k] = sight.visible_fraction_batch(table, s, g, hides=mask, index=ix)
    for i, f in enumerate(facts):
        expected = tuple(ix.ids[k] for k in range(len(ix.ids)) if alone[i, k] < 1 - 1e-9)
        assert f.hiders == expected, (seed, f)
        assert f.partly_hidden is bool(f.hiders) and f.exposed <= f.seen
        if not f.visible:
            assert f.blockers and set(f.blockers) <= set(f.hiders)
            assert all(ix.blocks[ix.ids.index(b)] for b in f.blockers)
