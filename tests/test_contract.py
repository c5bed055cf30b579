"""The contract every ruleset keeps (issue 9): the registry, options owned by rulesets,
JSON 2 with one envelope, and faces that hold no rules.

The conformance tests run over every registered ruleset and every question it answers:
each question has a sample request below (a question added without one fails here).
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import jsonschema
import pytest
from schema_support import validate_json

import arbitre
from arbitre.errors import RulesError, UnknownRulesetError
from arbitre.rules import RULESETS, ask, find_ruleset
from arbitre.rules.options import SharedOptions, as_dict
from arbitre.rules.ruling import RULE_IDS
from arbitre.rules.schema import output_schema

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
RULES_MD = ROOT.parent / "shared" / "RULES.md"

#: (ruleset, question) -> (file or None, request keywords): one sample each.
SAMPLES: dict[tuple[str, str], tuple[str | None, dict[str, Any]]] = {
    ("frostgrave", "los"): ("frostgrave-demo.yaml", {"shooter": "archer"}),
    ("darkage", "los"): ("darkage-wall.yaml", {}),
    ("darkage", "rolloff"): (None, {"players": ("ann", "bob"), "seed": 7}),
    ("darkage", "activation"): ("darkage-wall.yaml", {"model": "L", "actions": ("move",), "ap": 2}),
    ("mordheim", "los"): ("mordheim-merchant-square.yaml", {"shooter": "captain"}),
    ("mordheim", "targets"): ("mordheim-merchant-square.yaml", {"shooter": "captain"}),
    ("mordheim", "shoot"): (
        "mordheim-merchant-square.yaml",
        {"shooter": "captain", "target": "night-runner", "seed": 0},
    ),
    ("breath", "breath"): (
        "breath-acid.yaml",
        {"shooter": "wyrm", "weapon": "Acid cloud", "best": True, "seed": 1},
    ),
    ("breath", "blast"): (
        "breath-acid.yaml",
        {
            "shooter": "wyrm",
            "weapon": "Acid cloud",
            "at": (215.0, 215.0),
            "radius": 30.0,
            "seed": 2,
        },
    ),
    ("places", "move"): ("village-forest-places.yaml", {"unit": "john"}),
    ("places", "shot"): ("village-forest-places.yaml", {"shooter": "archer", "target": "witch"}),
    ("places", "place"): ("village-forest-places.yaml", {"place": "square"}),
}

SCHEMA = output_schema()


def subject_of(file: str | None) -> Any:
    return None if file is None else arbitre.load(EXAMPLES / file)


def all_questions() -> list[tuple[str, str]]:
    return [(r.name, q) for r in RULESETS.values() for q in r.questions]


def reasons_in(doc: object) -> list[dict[str, Any]]:
    """Every reason-shaped object anywhere in a JSON document."""
    found: list[dict[str, Any]] = []
    if isinstance(doc, dict):
        if set(doc) == {"rule", "ids", "text"}:
            found.append(doc)
        for value in doc.values():
            found += reasons_in(value)
    elif isinstance(doc, list):
        for value in doc:
            found += reasons_in(value)
    return found


def test_every_ruleset_is_registered_and_found_by_name_and_alias() -> None:
    assert set(RULESETS) == {"frostgrave", "darkage", "mordheim", "breath", "places"}
    for ruleset in RULESETS.values():
        assert find_ruleset(ruleset.name) is ruleset
        assert find_ruleset(ruleset.name.upper()) is ruleset
        for alias in ruleset.aliases:
            assert find_ruleset(alias) is ruleset
        assert ruleset.questions, ruleset.name
    with pytest.raises(UnknownRulesetError, match="known: breath, darkage"):
        find_ruleset("chess")
    with pytest.raises(UnknownRulesetError):
        find_ruleset("")


def _options_declared(cls: type[Any]) -> tuple[object, ...]:
    """What an options dataclass declares: its name, words, fields (name, type, default)
    and dataclass parameters."""
    hints = typing.get_type_hints(cls)
    fields = tuple((f.name, hints[f.name], f.default) for f in dataclasses.fields(cls))
    params = cls.__dataclass_params__
    return cls.__name__, cls.__doc__, fields, params.frozen, hasattr(cls, "__slots__")


RULES_DIR = ROOT / "src" / "arbitre" / "rules"


def test_the_light_declarations_are_what_each_ruleset_module_declares() -> None:
    """The registry reads :mod:`arbitre.rules.declared` instead of importing the rulesets:
    each declaration names its module, and is that module's ``RULESET`` (name, aliases,
    questions in order, the very options dataclass); no module declares a ruleset that is
    not declared there."""
    from arbitre.rules.declared import DECLARED

    assert [d.name for d in DECLARED] == list(RULESETS)
    for declared in DECLARED:
        ruleset = importlib.import_module(declared.module).RULESET
        assert RULESETS[declared.name] is ruleset
        assert ruleset.name == declared.name
        assert ruleset.aliases == declared.aliases
        assert tuple(ruleset.questions) == declared.questions
        assert ruleset.options is declared.options  # one dataclass, imported by the module
        assert _options_declared(ruleset.options) == _options_declared(declared.options)
    declaring = set()
    for path in RULES_DIR.rglob("*.py"):
        if re.search(r"^RULESET\b.*=", path.read_text(encoding="utf-8"), flags=re.M):
            parts = path.relative_to(RULES_DIR.parent.parent).with_suffix("").parts
            declaring.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert declaring == {d.module for d in DECLARED}


def test_a_declaration_that_is_not_its_module_is_refused() -> None:
    from arbitre.rules.declared import DECLARED
    from arbitre.rules.registry import Rulesets

    wrong = dataclasses.replace(DECLARED[0], name="darkage")
    with pytest.raises(TypeError, match="not the ruleset 'darkage'"):
        _ = Rulesets([wrong])["darkage"]
    assert list(Rulesets([wrong])) == ["darkage"]


def test_every_question_has_a_sample() -> None:
    assert sorted(all_questions()) == sorted(SAMPLES)


@pytest.mark.parametrize(("rules", "question"), sorted(SAMPLES))
def test_each_question_answers_in_json_2(rules: str, question: str) -> None:
    file, request = SAMPLES[(rules, question)]
    answer = ask(subject_of(file), question, rules=rules, **request)
    doc = answer.to_json()
    validate_json(doc, SCHEMA)
    assert doc["arbitre"] == 2
    assert doc["kind"] == question
    assert doc["rules"] == rules
    assert doc["rulings"], "a sample asks something with at least one ruling"
    for ruling in doc["rulings"]:
        assert ruling["kind"] == question
        assert isinstance(ruling["reasons"], list)
        assert isinstance(ruling["refusals"], list)
    cited = reasons_in(doc)
    assert cited
    assert {r["rule"] for r in cited} <= RULE_IDS
    for ruling in answer.rulings:
        assert type(ruling).kind == question
        assert ruling.to_json(answer.unit) == doc["rulings"][answer.rulings.index(ruling)]


def test_schema_refuses_what_json_2_is_not() -> None:
    file, request = SAMPLES[("frostgrave", "los")]
    doc = ask(subject_of(file), "los", **request).to_json()
    bad = {**doc, "arbitre": 1}
    with pytest.raises(jsonschema.ValidationError):
        validate_json(bad, SCHEMA)
    ruling = {**doc["rulings"][0], "refusals": ["a plain string"]}
    with pytest.raises(jsonschema.ValidationError):
        validate_json({**doc, "rulings": [ruling]}, SCHEMA)
    extra = {**doc, "odds": {}}
    with pytest.raises(jsonschema.ValidationError):
        validate_json(extra, SCHEMA)


def test_rule_ids_are_those_of_rules_md() -> None:
    if not RULES_MD.exists():
        pytest.skip(f"{RULES_MD} is not beside this checkout")
    text = RULES_MD.read_text(encoding="utf-8")
    ids = set(re.findall(r"^- \*\*([A-Z]\d+)\b", text, flags=re.M))
    assert ids == set(RULE_IDS)


def _other_value(kind: Any, value: object) -> object:
    """A valid value of an option other than its default."""
    if get_origin(kind) is Literal:
        return next(c for c in get_args(kind) if c != value)
    if kind is bool:
        return not value
    if kind in (int, float):
        return kind(value) + 1
    raise AssertionError(f"no other value for {kind}")


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_options_round_trip(rules: str) -> None:
    ruleset = RULESETS[rules]
    question = next(iter(ruleset.questions))
    file, request = SAMPLES[(rules, question)]
    subject = subject_of(file)
    defaults = as_dict(ruleset.options())
    shared = as_dict(SharedOptions()) if ruleset.geometric else {}
    plain = ask(subject, question, rules=rules, **request).to_json()["options"]
    own_file = dict(getattr(subject, "options", ()) or ())
    assert plain == {**shared, **defaults, **{k: v for k, v in own_file.items() if k in plain}}
    hints = typing.get_type_hints(ruleset.options)
    for name, value in defaults.items():
        other = _other_value(hints[name], value)
        doc = ask(subject, question, rules=rules, options={name: other}, **request).to_json()
        assert doc["options"][name] == other
        with pytest.raises(RulesError, match=name):
            ask(subject, question, rules=rules, options={name: object()}, **request)


def test_an_unknown_option_names_every_rulesets_options() -> None:
    table = subject_of("frostgrave-demo.yaml")
    with pytest.raises(RulesError) as info:
        ask(table, "los", options={"visible_fractoin": True})
    message = str(info.value)
    assert "visible_fractoin" in message
    for ruleset in RULESETS.values():
        assert f"{ruleset.name}:" in message
    assert "grazing_blocks" in message


def test_any_rulesets_options_are_accepted_on_any_table_without_import_order() -> None:
    """A Frostgrave table with a places option and a breath option is normal, whichever
    module a fresh process imports first."""
    code = (
        "import arbitre.rules.frostgrave as fg, arbitre\n"
        "t = arbitre.load(arbitre.DEMO_SCENARIO)\n"
        "a = arbitre.ask(t, 'los', shooter='archer', target='hunter',\n"
        "                options={'tower_counts': 'cover', 'cover_effect': 'none'})\n"
        "print(a.options['visible_fraction'], 'tower_counts' in a.options)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["True", "False"]


def test_ask_refuses_unknown_questions_and_request_fields() -> None:
    table = subject_of("frostgrave-demo.yaml")
    with pytest.raises(RulesError, match="does not answer 'targets'"):
        ask(table, "targets", rules="frostgrave", shooter="archer")
    with pytest.raises(RulesError, match="unknown question 'fly'"):
        ask(table, "fly")
    with pytest.raises(RulesError, match="unknown request field 'shooterz'"):
        ask(table, "los", shooterz="archer")


def test_a_question_the_tables_ruleset_does_not_answer_goes_to_the_one_that_does() -> None:
    table = subject_of("mordheim-merchant-square.yaml")
    answer = ask(table, "los", shooter="captain")
    assert answer.rules == "mordheim"
    acid = subject_of("breath-acid.yaml")
    assert ask(acid, "breath", shooter="wyrm", weapon="Bile", best=True).rules == "breath"


def test_answer_ruling_needs_exactly_one() -> None:
    table = subject_of("frostgrave-demo.yaml")
    answer = ask(table, "los", shooter="archer")
    assert len(answer.rulings) > 1
    with pytest.raises(RulesError, match="not one"):
        _ = answer.ruling
    one = ask(table, "los", shooter="archer", target="hunter").ruling
    assert (one.shooter, one.target) == ("archer", "hunter")


def test_request_values_are_frozen_dataclasses() -> None:
    for ruleset in RULESETS.values():
        for q in ruleset.questions.values():
            assert dataclasses.is_dataclass(q.request), q.name
            params = q.request.__dataclass_params__  # type: ignore[attr-defined]
            assert params.frozen, q.name


FACES = ROOT / "src" / "arbitre" / "faces"
RULESET_MODULES = re.compile(
    r"arbitre\.rules\.(frostgrave|darkage|mordheim|breath|placemap|places)\b"
    r"|from arbitre\.rules import [^\n]*\b(frostgrave|darkage|mordheim|breath|placemap|places)\b"
)
NAME_SWITCH = re.compile(r"[=!]= *[\"'](frostgrave|darkage|mordheim|breath|places)[\"']")


@pytest.mark.parametrize("path", sorted(FACES.rglob("*.py")), ids=lambda p: p.name)
def test_faces_never_import_a_ruleset_or_switch_on_its_name(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert not RULESET_MODULES.search(text), RULESET_MODULES.search(text)
    assert not NAME_SWITCH.search(text), NAME_SWITCH.search(text)


def test_the_readme_documents_every_question() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for _, question in all_questions():
        assert f'"{question}"' in readme or f"arbitre {question}" in readme, question


def test_ask_holds_the_collector_off_and_gives_it_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """An ask makes many objects and no cycles: the collector's automatic passes wait
    while the question runs (they would walk them all for nothing), and come back as
    they were after it, also when it fails on a user mistake."""
    import gc

    from arbitre.rules import mordheim

    seen: list[bool] = []
    rule = mordheim.rule_targets

    def watched(*args: Any) -> Any:
        seen.append(gc.isenabled())
        return rule(*args)

    monkeypatch.setattr(mordheim, "rule_targets", watched)
    table = subject_of("mordheim-merchant-square.yaml")
    was = gc.isenabled()
    gc.enable()
    try:
        answer = ask(table, "targets", rules="mordheim", shooter="captain")
        assert seen == [False]
        assert gc.isenabled()
        with pytest.raises(RulesError):
            ask(table, "targets", rules="mordheim", shooter="nobody")
        assert gc.isenabled()
        gc.disable()  # a caller that paused it keeps it paused
        ask(table, "targets", rules="mordheim", shooter="captain")
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()
    assert answer.rulings
