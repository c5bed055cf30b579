"""Everything that worked before the contract (JSON 2, issue 9) still works: the rulings of
every example and golden table, on every ordered pair, as they were before.

``data/rulings-before-json2.json.gz`` was written from commit dce3ab5 (the last before the
contract) by asking every line of sight of every table of ``examples/`` and
``tests/golden/`` under Frostgrave, Dark Age and Mordheim, and every Mordheim shooter's
targets. Only rulings the texts now decide otherwise (RULES.md's corrected decisions) may
differ, and each such change is listed in :data:`CHANGED`.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import arbitre
from arbitre.errors import ArbitreError

ROOT = Path(__file__).resolve().parents[1]
BEFORE = Path(__file__).parent / "data" / "rulings-before-json2.json.gz"

#: ``(file, question/ruleset)`` whose rulings changed on purpose since dce3ab5, and why.
CHANGED: dict[tuple[str, str], str] = {}


@cache
def before() -> dict[str, Any]:
    with gzip.open(BEFORE, "rt", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def reasons(items: list[dict[str, Any]]) -> list[list[Any]]:
    return [[r["rule"], r["ids"], r["text"]] for r in items]


def los_now(table: arbitre.Table, rules: str, pairs: list[tuple[str, str]]) -> Any:
    try:
        answer = arbitre.ask(table, "los", rules=rules, pairs=tuple(pairs))
    except ArbitreError as exc:
        return {"error": str(exc)}
    return [
        {
            "shooter": r["shooter"],
            "target": r["target"],
            "visible": r["visible"],
            "cover": r["cover"],
            "visible_fraction": r["visible_fraction"],
            "blockers": r["blockers"],
            "cover_pieces": r["cover_pieces"],
            "reasons": reasons(r["reasons"]),
        }
        for r in answer.to_json()["rulings"]
    ]


def test_the_snapshot_covers_every_table() -> None:
    files = {
        str(p.relative_to(ROOT))
        for p in [*ROOT.glob("examples/*.yaml"), *ROOT.glob("tests/golden/*/*.yaml")]
        if "places:" not in p.read_text(encoding="utf-8")
    }
    assert files == set(before())


@pytest.mark.parametrize("file", sorted(before()))
@pytest.mark.parametrize("rules", ["frostgrave", "darkage", "mordheim"])
def test_lines_of_sight_are_as_before(file: str, rules: str) -> None:
    if (file, f"los/{rules}") in CHANGED:
        pytest.skip(CHANGED[(file, f"los/{rules}")])
    old = before()[file]
    if "error" in old:
        with pytest.raises(ArbitreError):
            arbitre.load(ROOT / file)
        return
    table = arbitre.load(ROOT / file)
    assert isinstance(table, arbitre.Table)
    pairs = [(a.id, b.id) for a in table.models for b in table.models if a.id != b.id]
    now = los_now(table, rules, pairs)
    was = old[f"los/{rules}"]
    if isinstance(was, dict):
        assert isinstance(now, dict), f"{file}: refused before ({was['error']}), rules now"
        return
    assert len(now) == len(was)
    for a, b in zip(now, was, strict=True):
        assert a == b, (a["shooter"], a["target"])


def _odds(row: dict[str, Any]) -> list[str] | None:
    odds = row["odds"]
    return None if odds is None else [odds[k]["p"] for k in ("hit", "hit_cover", "miss")]


@pytest.mark.parametrize("file", sorted(before()))
def test_mordheim_targets_are_as_before(file: str) -> None:
    """Every shooter's targets as before; a shooter that may not shoot now has no legal
    target, its own refusal standing on every row (RULES.md M1, fixed with the contract:
    before, its rows said "legal" for a shot it could not take)."""
    old = before()[file]
    if "error" in old:
        return
    table = arbitre.load(ROOT / file)
    for shooter, was in old["targets/mordheim"].items():
        try:
            ruling = arbitre.ask(table, "targets", rules="mordheim", shooter=shooter).ruling
        except ArbitreError as exc:
            assert "error" in was, (shooter, str(exc))
            continue
        assert "error" not in was, shooter
        now = ruling.to_json(table.unit)
        assert now["may_shoot"] == was["may_shoot"]
        assert reasons(now["reasons"]) == was["reasons"]
        assert [r["target"] for r in now["targets"]] == [r["target"] for r in was["targets"]]
        for row, old_row in zip(now["targets"], was["targets"], strict=True):
            for key in ("visible", "in_cover", "score", "need"):
                assert row[key] == old_row[key], (shooter, row["target"], key)
            assert _odds(row) == old_row["odds"], (shooter, row["target"])
            if was["may_shoot"]:
                assert row["legal"] == old_row["legal"] and row["closest"] == old_row["closest"]
                assert reasons(row["reasons"]) == old_row["reasons"]
            else:
                assert row["legal"] is False and row["closest"] is False
                assert any(shooter in r["ids"] for r in row["refusals"]), row["refusals"]
