"""Breath weapons (B1-B10): golden scenarios citing their rules (the seed's acid example
first), the B4 notation, the exact laws against the enumerated procedure, the best aim
against dense sampling, the command and the picture."""

from __future__ import annotations

import ast
import json
import math
import operator
import re
from dataclasses import replace
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
import yaml
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from arbitre import scenario
from arbitre import templates as T
from arbitre.dice import (
    Distribution,
    breath_impacting,
    enumerate_procedure,
    replay_procedure,
)
from arbitre.errors import ArbitreError, RulesError
from arbitre.faces.svg.breath import breath_overlay
from arbitre.faces.svg.table import render_table
from arbitre.geometry import Disc, Point
from arbitre.rules import breath
from arbitre.rules.breath.notation import BreathNotation, parse
from arbitre.table import Model, Table, Weapon
from arbitre.testing import random_table

GOLDEN = sorted((Path(__file__).parent / "golden" / "breath").glob("*.yaml"))
EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("breath-*.yaml"))
RULES = {f"B{i}" for i in range(1, 11)}
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv}


def frac(text: object) -> Fraction:
    """An exact number written in a golden file: ``10/3 + 599/243``, ``1/4 * 5/4``."""
    def ev(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return Fraction(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return Fraction(_OPS[type(node.op)](ev(node.left), ev(node.right)))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise ValueError(f"not an exact number: {text!r}")

    return ev(ast.parse(str(text), mode="eval").body)


# --- golden scenarios ------------------------------------------------------------------------


def test_every_b_rule_has_a_golden_scenario() -> None:
    cited: set[str] = set()
    for path in GOLDEN:
        cited |= set(yaml.safe_load(path.read_text())["cites"])
    assert cited >= RULES, RULES - cited


def _template(table: Table, case: dict[str, Any]) -> T.Template:
    if "blast" in case:
        x, y, r = case["blast"]
        return T.Blast(Point(table.unit.to_mm(x), table.unit.to_mm(y)), table.unit.to_mm(r))
    angle = case["angle"] if "angle" in case else T.aim_at(table, case["shooter"],
                                                           case["toward"])
    return T.place_cone(table, case["shooter"], angle)


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden(path: Path) -> None:
    doc = yaml.safe_load(path.read_text())
    table = scenario.load(path)
    for case in doc["expect"]:
        where = f"{path.name}: {case}"
        if "error" in case:
            with pytest.raises(RulesError, match=case["error"]):
                breath.rule(table, case["shooter"], case["weapon"], _template(table, case),
                            order=case.get("order"))
            continue
        if case.get("best"):
            found = breath.best(table, case["shooter"], case["weapon"])
            ruling = found.ruling
            assert found.best.value == ruling.value, where
            if "runner_up_value" in case:
                assert found.runner_up is not None
                assert found.runner_up.value == frac(case["runner_up_value"]), where
            lo, hi = case.get("angle_between", (0, 360))
            assert lo <= found.best.angle <= hi, where
        else:
            ruling = breath.rule(table, case["shooter"], case["weapon"], _template(table, case),
                                 order=case.get("order"))
        _check(table, doc, case, ruling, where)


def _check(table: Table, doc: dict[str, Any], case: dict[str, Any], ruling: breath.BreathRuling,
           where: str) -> None:
    if "victims" in case:
        want = tuple(tuple(sorted(v)) if isinstance(v, list) else (v,) for v in case["victims"])
        assert ruling.plan.groups == want, where
    in_area = {v.id for v in ruling.victims if v.in_area}
    for ident in case.get("not", []):
        assert ident not in in_area, (where, ident)
    if "apex" in case:
        assert isinstance(ruling.template, T.Cone)
        assert (ruling.template.apex.x, ruling.template.apex.y) == pytest.approx(
            tuple(table.unit.to_mm(c) for c in case["apex"])), where
    if "angle_is" in case:
        assert isinstance(ruling.template, T.Cone)
        assert ruling.template.angle == pytest.approx(case["angle_is"]), where
    for key, attr in (("protection", "protection"), ("cover", "cover")):
        for ident, value in case.get(key, {}).items():
            assert getattr(ruling.victim(ident), attr) == value, (where, ident)
    for ident, value in case.get("distances", {}).items():
        got = ruling.victim(ident).distance
        assert got is not None and table.unit.from_mm(got) == pytest.approx(value), where
    for ident, law in case.get("laws", {}).items():
        want_law = {int(k): frac(v) for k, v in law.items()}
        assert ruling.victim(ident).hp_lost.probabilities() == want_law, (where, ident)
    for ident, mean in case.get("means", {}).items():
        assert ruling.victim(ident).mean == frac(mean), (where, ident)
    for ident, p in case.get("spill", {}).items():
        v = ruling.victim(ident)
        assert not v.in_area and v.p_affected == frac(p), (where, ident)
    if "shielded" in case:
        assert list(ruling.shielded) == case["shielded"], where
    if "state" in case:
        assert ruling.plan.state == case["state"], where
        assert all(v.hp_lost == Distribution.point(0) for v in ruling.victims)
    if "value" in case:
        assert ruling.value == frac(case["value"]), where
    if "dice" in case:
        assert ruling.plan.dice == case["dice"], where
    for rule in case.get("rules", []):
        assert rule in ruling.rules, (where, rule, ruling.reasons)
        assert rule in doc["cites"], (where, rule, "cite the rules you check")
    if "seed" in case:
        result = breath.roll(ruling, case["seed"])
        labels = {d.label for d in result.log.dice}
        assert set(case.get("log_labels", [])) <= labels, (where, labels)
        assert result == breath.roll(ruling, case["seed"])
        assert replay_procedure(partial(breath.resolve, ruling.plan), result.log) == result.hits


def test_examples_load_and_rule() -> None:
    assert EXAMPLES
    for path in EXAMPLES:
        table = scenario.load(path)
        assert not breath.weapon_problems(table)
        for m in table.models:
            for w in m.weapons:
                if w.breath:
                    breath.rule(table, m.id, w.name, T.place_cone(table, m.id, 0.0))


# --- the B4 notation -------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "want"), [
    ("Souffle englobant (acide • puissance 5/2)",
     BreathNotation("enveloping", "acide", 5, 2)),
    ("souffle percutant (mitraille • puissance 4/1)",
     BreathNotation("impacting", "mitraille", 4, 1)),
    ("SOUFFLE ENGLOBANT (feu · 3/2)", BreathNotation("enveloping", "feu", 3, 2)),
    ("Souffle englobant (gaz soporifique • étourdi)",
     BreathNotation("enveloping", "gaz soporifique", state="étourdi")),
    ("Souffle percutant (lumière • puissance aveuglé)",
     BreathNotation("impacting", "lumière", state="aveuglé")),
    ("Enveloping breath (acid • power 5/2)", BreathNotation("enveloping", "acid", 5, 2)),
    ("impacting Breath (grapeshot | Power 6/3)",
     BreathNotation("impacting", "grapeshot", 6, 3)),
    ("Enveloping breath (sleep gas ; stunned)",
     BreathNotation("enveloping", "sleep gas", state="stunned")),
])
def test_notation_reads_french_and_english(text: str, want: BreathNotation) -> None:
    got = parse(text)
    assert replace(got, text="") == want
    again = parse(got.french())
    assert replace(again, text="") == want and replace(parse(got.english()), text="") == want


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzéèêàçñœßABCDEÉÈZ", min_size=1, max_size=12)


@given(nature=st.sampled_from(["enveloping", "impacting"]),
       kind=st.lists(_WORD, min_size=1, max_size=3).map(" ".join),
       difficulty=st.integers(1, 6), power=st.integers(1, 20),
       state=st.none() | _WORD.filter(lambda w: w.lower() not in ("puissance", "power")))
def test_notation_round_trips(nature: str, kind: str, difficulty: int, power: int,
                              state: str | None) -> None:
    want = BreathNotation(nature, kind, None if state else difficulty,  # type: ignore[arg-type]
                          None if state else power, state)
    for text in (want.french(), want.english()):
        assert replace(parse(text), text="") == want, text


@pytest.mark.parametrize(("text", "needle"), [
    ("", "it is empty"),
    ("Breath of fire", "must start with 'Souffle <nature>'"),
    ("Souffle brûlant (feu • puissance 5/2)", "unknown nature 'brûlant'"),
    ("Souffle englobant feu • puissance 5/2", "in brackets"),
    ("Souffle englobant (feu puissance 5/2)", "found no separator"),
    ("Souffle englobant (feu • puissance 5/2 • 3)", "found 2 separators"),
    ("Souffle englobant ( • puissance 5/2)", "damage type before '•' is missing"),
    ("Souffle englobant (feu • )", "after '•' are missing"),
    ("Souffle englobant (feu • puissance 7/2)", "Difficulty 7 is not 1 to 6"),
    ("Souffle englobant (feu • puissance 0/2)", "Difficulty 0 is not 1 to 6"),
    ("Souffle englobant (feu • puissance 5/0)", "Power 0 must be at least 1"),
    ("Souffle englobant (feu • puissance 5)", "neither 'puissance X/Y'"),
    ("Souffle englobant (feu • puissance 5/2.5)", "neither 'puissance X/Y'"),
])
def test_bad_notation_says_what_is_wrong(text: str, needle: str) -> None:
    with pytest.raises(RulesError, match=r"bad breath notation .*" + re.escape(needle)) as err:
        parse(text, where="weapon 'x' of y")
    assert str(err.value).startswith("weapon 'x' of y: ")
    assert "Souffle englobant (acide • puissance 5/2)" in str(err.value)
    assert "\n" not in str(err.value)


def _small(models: list[Model], **kw: Any) -> Table:
    return Table(400, 300, models=tuple(models), toise=25.0, **kw)


def test_weapon_lookup_and_its_errors() -> None:
    acid = Weapon("Acid cloud", breath="Souffle englobant (acide • puissance 5/2)")
    table = _small([Model("w", "m", Point(50, 150), weapons=(acid, Weapon("Bow", 300.0))),
                    Model("bad", "m", Point(300, 150), weapons=(
                        Weapon("Odd", breath="Souffle tiède (x • 1/1)"),))])
    assert breath.breath_weapon(table, "w", "acid CLOUD").name == "Acid cloud"
    given = breath.breath_weapon(table, "w", "Impacting breath (shot • power 4/1)")
    assert given.notation.nature == "impacting"
    with pytest.raises(RulesError, match=r"no breath weapon 'Fire'.*'Acid cloud'"):
        breath.breath_weapon(table, "w", "Fire")
    with pytest.raises(RulesError, match="'Bow' of 'w' is not a breath weapon"):
        breath.breath_weapon(table, "w", "bow")
    with pytest.raises(RulesError, match="the weapon given: bad breath notation"):
        breath.breath_weapon(table, "w", "Souffle tiède (x • 1/1)")
    with pytest.raises(RulesError, match=r"weapon 'Odd' of 'bad': .*unknown nature 'tiède'"):
        breath.breath_weapon(table, "bad", "Odd")
    assert breath.weapon_problems(table) == [
        "models[1].weapons[0].breath: bad breath notation 'Souffle tiède (x • 1/1)': unknown "
        "nature 'tiède' (expected englobant or percutant; in English enveloping or "
        "impacting); write e.g. 'Souffle englobant (acide • puissance 5/2)' or 'Enveloping "
        "breath (acid • power 5/2)' (B4)"]


def test_stats_and_options_are_checked() -> None:
    shot = "Souffle percutant (mitraille • puissance 4/1)"
    table = _small([Model("g", "r", Point(50, 150)), Model("x", "b", Point(100, 150),
                                                            stats=(("protection", 1.5),))])
    cone = T.place_cone(table, "g", 0)
    with pytest.raises(RulesError, match="B6: 'g' has no `tir` stat"):
        breath.rule(table, "g", shot, cone)
    with pytest.raises(RulesError, match="stat protection must be a whole number"):
        breath.rule(table, "g", "Souffle englobant (acide • puissance 5/2)", cone)
    odd = replace(table, options=(("cover_effect", "half"),))
    with pytest.raises(RulesError, match="option cover_effect: got 'half', expected one of "
                                         "'protection', 'none'"):
        breath.rule(odd, "g", shot, cone)
    with pytest.raises(RulesError, match="unknown option 'template_blokced'"):
        breath.options(replace(table, options=(("template_blokced", True),)))


@pytest.mark.parametrize("order", ["Vae victis", "vae-victis", "VAE  VICTIS", "Væ victis"])
def test_b9_refuses_vae_victis(order: str) -> None:
    table = _small([Model("w", "m", Point(50, 150)), Model("x", "b", Point(100, 150))])
    weapon = "Souffle englobant (acide • puissance 5/2)"
    if order == "Væ victis":  # another spelling is another order: allowed
        breath.check_order(order)
        return
    with pytest.raises(RulesError, match="B9"):
        breath.rule(table, "w", weapon, T.place_cone(table, "w", 0), order=order)
    with pytest.raises(RulesError, match="B9"):
        breath.best(table, "w", weapon, order=order)


# --- exact laws against the procedure, enumerated ------------------------------------------


def _random_plan(rng: np.random.Generator, nature: str, state: bool) -> breath.Plan:
    n = int(rng.integers(1, 5 if nature == "impacting" else 3))
    victims = [f"v{i}" for i in range(n)]
    pool = [f"o{i}" for i in range(int(rng.integers(0, 3)))]
    groups: list[tuple[str, ...]] = []
    i = 0
    while i < n:
        k = int(rng.integers(1, 3)) if nature == "impacting" else 1
        groups.append(tuple(sorted(victims[i:i + k])))
        i += k
    opps = []
    for v in victims:
        if pool and rng.random() < 0.6:
            pick = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
            opps.append((v, tuple(sorted(str(p) for p in pick))))
    everyone = victims + pool
    return breath.Plan(
        nature=nature,  # type: ignore[arg-type]
        difficulty=None if state else int(rng.integers(2, 7)),
        power=None if state else int(rng.integers(1, 4)),
        state="stunned" if state else None,
        dice=int(rng.integers(1, 4)) if nature == "impacting" and not state else None,
        groups=tuple(groups),
        protection=tuple((m, int(rng.integers(0, 3))) for m in everyone),
        opponents=tuple(opps),
    )


def _marginal(law: Distribution[tuple[breath.Hit, ...]], model: str) -> Distribution[int]:
    return law.map(lambda hits: sum(h.hp_lost for h in hits if h.model == model))


@pytest.mark.parametrize("seed", range(36))
def test_closed_forms_match_the_enumerated_procedure(seed: int) -> None:
    """The laws of :func:`breath.laws` (closed forms, dynamic programming over ties and
    spills) are the marginals of :func:`breath.resolve` enumerated over every die."""
    rng = np.random.default_rng(seed)
    nature = ("impacting", "enveloping", "impacting")[seed % 3]
    plan = _random_plan(rng, nature, state=seed % 9 == 4)
    whole = enumerate_procedure(partial(breath.resolve, plan), max_leaves=400_000)
    got = breath.laws(plan)
    for model, law in got.items():
        assert law == _marginal(whole, model), (seed, plan, model)
    for o, p in breath.spill_odds(plan).items():
        if not plan.chained:  # in a chain the spill die is not rolled once the dice are out
            def reached(hits: tuple[breath.Hit, ...], o: str = o) -> bool:
                return any(h.model == o for h in hits)

            assert whole.map(reached).probability(True) == p, (seed, o)

    def sign(m: str) -> int:
        return -1 if m.endswith("1") else 1

    if plan.state is None:
        assert breath.expected_value(plan, sign) == sum(
            (sign(m) * law.mean() for m, law in got.items()), Fraction(0))


@pytest.mark.parametrize(("dice", "difficulty"), [(5, 4), (7, 5), (3, 2)])
def test_a_chain_without_ties_or_spills_is_breath_impacting(dice: int, difficulty: int) -> None:
    prot = [1, 0, 2]
    plan = breath.Plan("impacting", difficulty, 2, None, dice, (("a",), ("b",), ("c",)),
                       (("a", 1), ("b", 0), ("c", 2)), ())
    reference = enumerate_procedure(partial(breath_impacting, tir=dice - 5,
                                            difficulty=difficulty, power=2, protections=prot))
    for i, (m, law) in enumerate(breath.laws(plan).items()):
        def lost(o: tuple[tuple[int, int], ...], i: int = i) -> int:
            return o[i][1]

        assert law == reference.map(lost), m


# --- the best aim against dense sampling ------------------------------------------------------


def _armed(seed: int, weapon: str, **options: object) -> Table:
    table = random_table(seed, models=26, terrain=8, width=330.0)
    rng = np.random.default_rng(seed)
    models = []
    for i, m in enumerate(table.models):
        stats = (("protection", float(rng.integers(0, 3))), ("tir", 2.0))
        engaged = (table.models[i + 1].id,) if i % 5 == 2 and i + 1 < len(table.models) else ()
        weapons = (Weapon("breath", breath=weapon),) if i == 0 else ()
        base = Disc(0.0) if i == 0 and seed == 6 else m.base  # F8: the apex does not move
        models.append(replace(m, stats=stats, engaged=engaged, weapons=weapons, base=base))
    return replace(table, models=tuple(models), toise=25.0, options=tuple(options.items()))


BEST_CASES = [
    (1, "Souffle englobant (acide • puissance 5/2)", {}),
    (2, "Souffle percutant (mitraille • puissance 4/1)", {}),
    (3, "Souffle percutant (mitraille • puissance 3/2)", {"template_blocked": True}),
    (4, "Enveloping breath (gas • stunned)", {"template_touch": "overlap"}),
    (5, "Souffle englobant (feu • puissance 4/1)", {"template_blocked": True}),
    (6, "Souffle percutant (mitraille • puissance 4/1)", {"template_blocked": True}),
]


@pytest.mark.parametrize(("seed", "weapon", "options"), BEST_CASES)
def test_best_is_never_beaten_by_dense_sampling(seed: int, weapon: str,
                                                options: dict[str, object]) -> None:
    table = _armed(seed, weapon, **options)
    shooter = table.models[0].id
    found = breath.best(table, shooter, "breath")
    assert found.ruling.value == found.best.value
    assert {v.id for v in found.ruling.victims if v.in_area} == set(found.best.victims)
    bw = breath.breath_weapon(table, shooter, "breath")
    rng = np.random.default_rng(seed)
    angles = np.concatenate([np.linspace(0, 360, 240, endpoint=False), rng.uniform(0, 360, 60)])
    values = []
    for angle in angles:
        r = breath.rule(table, shooter, bw, T.place_cone(table, shooter, float(angle)))
        values.append(r.value)
        assert r.value <= found.best.value, (seed, angle, r.value, found.best)
    if found.runner_up is not None:
        assert found.runner_up.value <= found.best.value
        assert set(found.runner_up.victims) != set(found.best.victims)
    # every arc is at most as good, and one sampled aim inside the best arc matches it
    inside = [v for a, v in zip(angles, values, strict=True)
              if any(found.best.start < a + k < found.best.end for k in (-360, 0, 360))]
    assert all(v == found.best.value for v in inside)


def test_best_by_sampling_baseline_agrees_on_an_easy_table() -> None:
    table = scenario.load(Path(__file__).parent / "golden" / "breath" / "b2_best_aim.yaml")
    angle, value = breath.best_by_sampling(table, "wyrm", "Acid cloud", 360)
    assert value == breath.best(table, "wyrm", "Acid cloud").best.value == 10
    assert 60 <= angle <= 120


# --- the command -------------------------------------------------------------------------------


def _app() -> typer.Typer:
    from arbitre.faces.cli.breath import register

    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

    @app.callback()
    def _root() -> None:
        """arbitre"""

    register(app)
    return app


def run(*args: str) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(_app(), list(args))
    return result.exit_code, result.stdout, result.exception


ACID = str(GOLDEN[0].parent / "b4_b5_acid_example.yaml")
SPILL = str(GOLDEN[0].parent / "b8_melee_spill.yaml")


def test_cli_json_has_victims_laws_and_roll() -> None:
    code, out, exc = run("breath", SPILL, "wyrm", "--weapon", "Spit", "--angle", "0",
                         "--seed", "5", "--json")
    assert code == 0, exc
    doc = json.loads(out)
    assert doc["arbitre"] == 1 and doc["rules"] == "breath" and doc["unit"] == "mm"
    (r,) = doc["rulings"]
    assert [v["id"] for v in r["victims"] if v["in_area"]] == ["knight", "orc", "squire"]
    assert r["dice"] == 5 and r["template"]["kind"] == "cone"
    knight = r["victims"][0]
    assert knight["rank"] == 1 and knight["distance"] == pytest.approx(42.5)
    assert knight["hp_lost"]["mean"] == "5/2" and knight["p_wounded"]["p"] == "31/32"
    assert sum(Fraction(p) for p in knight["hp_lost"]["p"]) == 1
    assert {v["id"]: v["p_affected"]["p"] for v in r["victims"] if not v["in_area"]} == {
        "troll": "5/8", "goblin": "1/4"}
    assert r["roll"]["log"]["seed"] == 5 and r["roll"]["hits"][0]["id"] == "knight"
    assert all(set(x) == {"rule", "ids", "text"} for x in r["reasons"])


def test_cli_human_output_and_svg(tmp_path: Path) -> None:
    svg = tmp_path / "acid.svg"
    code, out, exc = run("breath", ACID, "wyrm", "-w", "Acid cloud", "--toward", "knight",
                         "--seed", "2", "--svg", str(svg))
    assert code == 0, exc
    for needle in ("squire", "knight", "sergeant", "exact law of HP lost", "B5 squire:",
                   "Roll (seed 2)", "B5   each victim"):
        assert needle in out, needle
    text = svg.read_text()
    assert 'class="breath-template"' in text and 'class="breath-victim"' in text


def test_cli_best_reports_the_runner_up() -> None:
    best = str(GOLDEN[0].parent / "b2_best_aim.yaml")
    code, out, exc = run("breath", best, "wyrm", "-w", "Acid cloud", "--best", "--json")
    assert code == 0, exc
    r = json.loads(out)["rulings"][0]
    assert Fraction(r["best"]["value"]["p"]) == 10 and Fraction(r["runner_up"]["value"]["p"]) \
        == Fraction(20, 3)
    assert r["search"]["critical"] > 0 and r["value"]["p"] == "10"
    code, out, exc = run("breath", best, "wyrm", "-w", "Acid cloud", "--best")
    assert code == 0 and "best aim" in out and "runner-up" in out


def test_cli_blast_and_state() -> None:
    blast = str(GOLDEN[0].parent / "b10_blast.yaml")
    code, out, exc = run("breath", blast, "grenadier", "-w", "Fire pot", "--blast",
                         "200,200,30", "--json")
    assert code == 0, exc
    r = json.loads(out)["rulings"][0]
    assert r["template"] == {"kind": "blast", "centre": [200.0, 200.0], "radius": 30.0}
    state = str(GOLDEN[0].parent / "b4_state.yaml")
    code, out, exc = run("breath", state, "witch", "-w", "Sleep", "--angle", "0")
    assert code == 0, exc
    assert "étourdi" in out and "nothing is rolled" in out


@pytest.mark.parametrize(("args", "needle"), [
    (["--weapon", "Acid cloud"], "give exactly one of --angle DEG, --toward ID"),
    (["--weapon", "Acid cloud", "--angle", "0", "--best"], "(got --angle, --best)"),
    (["--weapon", "Dragon fire", "--angle", "0"], "no breath weapon 'Dragon fire'"),
    (["--weapon", "Souffle glacé (givre • 5/2)", "--angle", "0"], "unknown nature 'glacé'"),
    (["--weapon", "Acid cloud", "--angle", "0", "--order", "Vae victis"], "B9"),
    (["--weapon", "Acid cloud", "--toward", "ghost"], "unknown model id 'ghost'"),
    (["--weapon", "Acid cloud", "--blast", "1,2"], "expected X,Y,RADIUS"),
    (["--weapon", "Acid cloud", "--angle", "0", "--seed", "-1"], "--seed must be >= 0"),
])
def test_cli_mistakes_are_one_clear_error(args: list[str], needle: str) -> None:
    code, _, exc = run("breath", ACID, "wyrm", *args)
    assert code != 0 and isinstance(exc, ArbitreError), exc
    assert needle in str(exc) and "\n" not in str(exc)


def test_cli_negative_angle_and_missing_toise(tmp_path: Path) -> None:
    code, out, exc = run("breath", ACID, "wyrm", "-w", "Acid cloud", "--angle", "-90")
    assert code == 0, exc
    assert "aimed at 270 degrees" in out
    plain = tmp_path / "plain.yaml"
    plain.write_text(Path(ACID).read_text().replace("toise: 25\n", ""))
    code, _, exc = run("breath", str(plain), "wyrm", "-w", "Acid cloud", "--angle", "0")
    assert isinstance(exc, RulesError) and "no toise" in str(exc)


# --- the picture -------------------------------------------------------------------------------


def test_overlay_numbers_victims_in_order() -> None:
    table = scenario.load(GOLDEN[0].parent / "b7_ties.yaml")
    ruling = breath.rule(table, "gunner", "Blunderbuss", T.place_cone(table, "gunner", 0))
    overlay = breath_overlay(table, ruling)
    labels = [d.label or "" for d in overlay.drawings if d.cls == "breath-victim"]
    assert labels == ["1-2", "1-2", "3-4", "3-4", "5", "6"]
    template = next(d for d in overlay.drawings if d.cls == "breath-template")
    assert template.closed and len(template.points) == 3
    rolled = breath_overlay(table, ruling, breath.roll(ruling, 3))
    labels = sorted(d.label or "" for d in rolled.drawings if d.cls == "breath-victim")
    assert [x.split(":")[0] for x in labels] == ["1", "2", "3", "4", "5", "6"]
    svg = render_table(table, overlays=[overlay])
    assert svg.count('class="breath-victim"') == 6 and "Breath: Blunderbuss" in svg


def test_overlay_marks_spill_and_shielded() -> None:
    table = scenario.load(GOLDEN[0].parent / "b8_melee_spill.yaml")
    ruling = breath.rule(table, "wyrm", "Acid cloud", T.place_cone(table, "wyrm", 0))
    overlay = breath_overlay(table, ruling)
    spill = {d.label for d in overlay.drawings if d.cls == "breath-spill"}
    assert spill == {"B8 62%", "B8 25%"}
    table = scenario.load(GOLDEN[0].parent / "b3_template_blocked.yaml")
    ruling = breath.rule(table, "wyrm", "Acid cloud", T.place_cone(table, "wyrm", 0))
    assert [d.title for d in breath_overlay(table, ruling).drawings
            if d.cls == "breath-shielded"] == ["behind-house: shielded by large terrain (B3)"]


def test_blast_overlay_is_a_circle() -> None:
    table = scenario.load(GOLDEN[0].parent / "b10_blast.yaml")
    ruling = breath.rule(table, "grenadier", "Fire pot", T.Blast(Point(200, 200), 30))
    template = next(d for d in breath_overlay(table, ruling).drawings
                    if d.cls == "breath-template")
    assert all(math.hypot(p.x - 200, p.y - 200) == pytest.approx(30) for p in template.points)
