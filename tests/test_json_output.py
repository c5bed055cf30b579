"""The ``--json`` output of every command, on every example and golden file, is a JSON 2
document that ``arbitre schema --output`` describes (issue 9: one envelope, one encoding
of chances and laws, reasons and refusals in one shape)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import arbitre
from arbitre.cli import main
from arbitre.rules.ruling import RULE_IDS
from arbitre.rules.schema import output_schema

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted([*ROOT.glob("examples/*.yaml"), *ROOT.glob("tests/golden/*/*.yaml")])
VALIDATOR = jsonschema.Draft202012Validator(output_schema())


def commands(path: Path) -> list[list[str]]:
    """The commands worth asking of a file: every question, a few subjects each."""
    subject = arbitre.load(path)
    file = str(path)
    if isinstance(subject, arbitre.PlaceMap):
        units = [u.id for u in subject.units]
        asked = [["move", file, u] for u in units[:4]]
        asked += [["place", file, p.id] for p in subject.places[:4]]
        sides = {u.id: u.side for u in subject.units}
        pairs = [(a, b) for a in units for b in units if sides[a] != sides[b]]
        asked += [["shot", file, a, b] for a, b in pairs[:3]]
        return asked
    asked = [["los", file, "--rules", r] for r in ("frostgrave", "darkage", "mordheim")]
    shooters = [m.id for m in subject.models if any(w.range for w in m.weapons)]
    asked += [["targets", file, s] for s in shooters[:3]]
    for m in subject.models:
        for w in m.weapons:
            if w.breath:
                asked.append(["breath", file, m.id, "-w", w.name, "--angle", "0", "--seed", "1"])
    return asked


CASES = [
    pytest.param(args, id=" ".join([args[0], Path(args[1]).stem, *args[2:3]]))
    for path in FILES
    for args in commands(path)
]


def cited(doc: object) -> set[str]:
    if isinstance(doc, dict):
        found = {doc["rule"]} if set(doc) == {"rule", "ids", "text"} else set()
        return found.union(*(cited(v) for v in doc.values()))
    if isinstance(doc, list):
        return set().union(*(cited(v) for v in doc))
    return set()


def test_every_file_is_asked_something() -> None:
    asked = {args[1] for args in (c.values[0] for c in CASES)}  # type: ignore[index]
    assert asked == {str(p) for p in FILES}


@pytest.mark.parametrize("args", CASES)
def test_json_validates(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main([*args, "--json"])
    out, err = capsys.readouterr()
    if code == 2:  # a question the file's table cannot answer (sizes, missing stats)
        assert err.startswith("arbitre: ") and not out
        return
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    errors = sorted(VALIDATOR.iter_errors(doc), key=str)
    assert not errors, errors[0]
    assert doc["kind"] == args[0]
    assert cited(doc) <= RULE_IDS


def test_rolloff_json_validates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rolloff", "--seed", "3", "--json"]) == 0
    VALIDATOR.validate(json.loads(capsys.readouterr().out))
