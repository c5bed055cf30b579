"""Write (or compare) the rulings snapshot that ``tests/test_same_rulings.py`` guards.

    python tests/snapshot.py --diff    # what changed against the stored snapshot
    python tests/snapshot.py --write   # store the current rulings as the snapshot

The snapshot holds, for every table of ``examples/`` and ``tests/golden/`` (places maps
aside), every ordered pair's line of sight under Frostgrave, Dark Age and Mordheim, and
every Mordheim shooter's targets. Rewrite it only when rulings change on purpose, and
say which and why in the commit.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import arbitre
from arbitre.errors import ArbitreError

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = Path(__file__).parent / "data" / "rulings-snapshot.json.gz"
RULESETS = ("frostgrave", "darkage", "mordheim")


def files() -> list[str]:
    """The tables the snapshot covers (relative paths)."""
    found = [*ROOT.glob("examples/*.yaml"), *ROOT.glob("tests/golden/*/*.yaml")]
    return sorted(
        str(p.relative_to(ROOT)) for p in found if "places:" not in p.read_text(encoding="utf-8")
    )


def reasons(items: list[dict[str, Any]]) -> list[list[Any]]:
    return [[r["rule"], r["ids"], r["text"]] for r in items]


def los_rows(table: arbitre.Table, rules: str) -> Any:
    pairs = tuple((a.id, b.id) for a in table.models for b in table.models if a.id != b.id)
    try:
        answer = arbitre.ask(table, "los", rules=rules, pairs=pairs)
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


def _odds(row: dict[str, Any]) -> list[str] | None:
    odds = row["odds"]
    return None if odds is None else [odds[k]["p"] for k in ("hit", "hit_cover", "miss")]


def targets_rows(table: arbitre.Table) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for m in table.models:
        try:
            ruling = arbitre.ask(table, "targets", rules="mordheim", shooter=m.id).ruling
        except ArbitreError as exc:
            out[m.id] = {"error": str(exc)}
            continue
        doc = ruling.to_json(table.unit)
        out[m.id] = {
            "may_shoot": doc["may_shoot"],
            "reasons": reasons(doc["reasons"]),
            "targets": [
                {
                    "target": row["target"],
                    **{k: row[k] for k in ("visible", "in_cover", "score", "need")},
                    "legal": row["legal"],
                    "closest": row["closest"],
                    "odds": _odds(row),
                    "reasons": reasons(row["reasons"]),
                }
                for row in doc["targets"]
            ],
        }
    return out


def rulings_of(file: str) -> dict[str, Any]:
    """The rulings of one covered table (a relative path) as the code gives them now."""
    try:
        table = arbitre.load(ROOT / file)
    except ArbitreError as exc:
        return {"error": str(exc)}
    assert isinstance(table, arbitre.Table)
    entry: dict[str, Any] = {f"los/{r}": los_rows(table, r) for r in RULESETS}
    entry["targets/mordheim"] = targets_rows(table)
    return entry


def current() -> dict[str, Any]:
    """The rulings of every covered table as the code gives them now."""
    return {file: rulings_of(file) for file in files()}


@cache
def stored() -> dict[str, Any]:
    with gzip.open(SNAPSHOT, "rt", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def diff(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """One line per (file, question) whose rulings differ, with a count."""
    lines = []
    for file in sorted(set(old) | set(new)):
        a, b = old.get(file), new.get(file)
        if a is None or b is None:
            lines.append(f"{file}: {'added' if a is None else 'removed'}")
            continue
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                x, y = a.get(key), b.get(key)
                if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
                    n = sum(p != q for p, q in zip(x, y, strict=True))
                    lines.append(f"{file} {key}: {n} of {len(x)} rulings differ")
                else:
                    lines.append(f"{file} {key}: differs")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="store the current rulings")
    parser.add_argument("--diff", action="store_true", help="list what changed")
    args = parser.parse_args(argv)
    now = current()
    if args.diff or not args.write:
        for line in diff(stored() if SNAPSHOT.exists() else {}, now):
            print(line)
    if args.write:
        with gzip.open(SNAPSHOT, "wt", encoding="utf-8") as f:
            json.dump(now, f, sort_keys=True)
        print(f"wrote {SNAPSHOT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
