"""Write (or compare) the rulings snapshot that ``tests/test_same_rulings.py`` guards.

    python tests/snapshot.py --diff    # what changed against the stored snapshot
    python tests/snapshot.py --write   # store the current rulings as the snapshot

The snapshot holds, for every table of ``examples/`` and ``tests/golden/`` (places maps
aside), every ordered pair's line of sight under Frostgrave, Dark Age and Mordheim, and
every Mordheim shooter's targets. A second file, ``data/margins-snapshot.json.gz``, holds
the G8 close-call fields of the same rulings (``margin`` in the report unit,
``margin_test``, ``close_call``), so that a margin or the test it names cannot move
unnoticed either. Both are written together. Rewrite them only when rulings change on
purpose, and say which and why in the commit.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from functools import cache
from pathlib import Path
from typing import Any

import arbitre
from arbitre.errors import ArbitreError

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = Path(__file__).parent / "data" / "rulings-snapshot.json.gz"
MARGINS = Path(__file__).parent / "data" / "margins-snapshot.json.gz"
RULESETS = ("frostgrave", "darkage", "mordheim")


def files() -> list[str]:
    """The tables the snapshot covers (relative paths)."""
    found = [*ROOT.glob("examples/*.yaml"), *ROOT.glob("tests/golden/*/*.yaml")]
    return sorted(
        str(p.relative_to(ROOT)) for p in found if "places:" not in p.read_text(encoding="utf-8")
    )


def reasons(items: list[dict[str, Any]]) -> list[list[Any]]:
    return [[r["rule"], r["ids"], r["text"]] for r in items]


def margin(doc: dict[str, Any]) -> list[Any]:
    """A ruling's G8 close-call fields: margin (report unit), the test it names, close call."""
    return [doc["margin"], doc["margin_test"], doc["close_call"]]


def los_rows(table: arbitre.Table, rules: str) -> tuple[Any, Any]:
    """Every ordered pair's line of sight under ``rules``: the rulings, and their margins."""
    pairs = tuple((a.id, b.id) for a in table.models for b in table.models if a.id != b.id)
    try:
        answer = arbitre.ask(table, "los", rules=rules, pairs=pairs)
    except ArbitreError as exc:
        return {"error": str(exc)}, {"error": str(exc)}
    docs = answer.to_json()["rulings"]
    margins = [[r["shooter"], r["target"], *margin(r)] for r in docs]
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
        for r in docs
    ], margins


def _odds(row: dict[str, Any]) -> list[str] | None:
    odds = row["odds"]
    return None if odds is None else [odds[k]["p"] for k in ("hit", "hit_cover", "miss")]


def targets_rows(table: arbitre.Table) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every Mordheim shooter's targets: the rulings, and their margins."""
    out: dict[str, Any] = {}
    margins: dict[str, Any] = {}
    for m in table.models:
        try:
            ruling = arbitre.ask(table, "targets", rules="mordheim", shooter=m.id).ruling
        except ArbitreError as exc:
            out[m.id] = margins[m.id] = {"error": str(exc)}
            continue
        doc = ruling.to_json(table.unit)
        margins[m.id] = {
            "ruling": margin(doc),
            "targets": [[row["target"], *margin(row)] for row in doc["targets"]],
        }
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
    return out, margins


def entries_of(file: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The rulings of one covered table (a relative path) as the code gives them now, and
    their margins (one computation for both snapshots)."""
    try:
        table = arbitre.load(ROOT / file)
    except ArbitreError as exc:
        return {"error": str(exc)}, {"error": str(exc)}
    assert isinstance(table, arbitre.Table)
    entry: dict[str, Any] = {}
    margins: dict[str, Any] = {}
    for r in RULESETS:
        entry[f"los/{r}"], margins[f"los/{r}"] = los_rows(table, r)
    entry["targets/mordheim"], margins["targets/mordheim"] = targets_rows(table)
    return entry, margins


def rulings_of(file: str) -> dict[str, Any]:
    """The rulings of one covered table (a relative path) as the code gives them now."""
    return entries_of(file)[0]


def margins_of(file: str) -> dict[str, Any]:
    """The margins of one covered table's rulings as the code gives them now."""
    return entries_of(file)[1]


def current() -> tuple[dict[str, Any], dict[str, Any]]:
    """The rulings of every covered table as the code gives them now, and their margins."""
    both = {file: entries_of(file) for file in files()}
    return {f: e[0] for f, e in both.items()}, {f: e[1] for f, e in both.items()}


def _read(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


@cache
def stored() -> dict[str, Any]:
    return _read(SNAPSHOT)


@cache
def stored_margins() -> dict[str, Any]:
    return _read(MARGINS)


#: Margins are compared to this tolerance (mm or inches, the report unit), not to the last
#: bit: a faster path may add the same numbers in another order. Anything a player could
#: measure, or a change of the named test or of the close call, is a difference.
MARGIN_TOLERANCE = 1e-9


def same_margin(a: Any, b: Any) -> bool:
    """Two snapshot margin entries agree: same shape and names, margins within tolerance."""
    if isinstance(a, float) and isinstance(b, float | int) and not isinstance(b, bool):
        return math.isclose(a, b, rel_tol=MARGIN_TOLERANCE, abs_tol=MARGIN_TOLERANCE)
    if isinstance(b, float) and isinstance(a, int) and not isinstance(a, bool):
        return same_margin(b, a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_margin(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_margin(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def diff(
    old: dict[str, Any], new: dict[str, Any], what: str = "rulings", same: Any = None
) -> list[str]:
    """One line per (file, question) whose rulings (or margins) differ, with a count."""
    same = same or (lambda p, q: p == q)
    lines = []
    for file in sorted(set(old) | set(new)):
        a, b = old.get(file), new.get(file)
        if a is None or b is None:
            lines.append(f"{file}: {what} {'added' if a is None else 'removed'}")
            continue
        for key in sorted(set(a) | set(b)):
            x, y = a.get(key), b.get(key)
            if not same(x, y):
                if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
                    n = sum(not same(p, q) for p, q in zip(x, y, strict=True))
                    lines.append(f"{file} {key}: {n} of {len(x)} {what} differ")
                elif isinstance(x, dict) and isinstance(y, dict) and x.keys() == y.keys():
                    n = sum(not same(x[k], y[k]) for k in x)
                    lines.append(f"{file} {key}: {n} of {len(x)} {what} differ")
                else:
                    lines.append(f"{file} {key}: {what} differ")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="store the current rulings")
    parser.add_argument("--diff", action="store_true", help="list what changed")
    args = parser.parse_args(argv)
    now, margins = current()
    if args.diff or not args.write:
        for line in diff(stored() if SNAPSHOT.exists() else {}, now):
            print(line)
        was = stored_margins() if MARGINS.exists() else {}
        for line in diff(was, margins, "margins", same_margin):
            print(line)
    if args.write:
        for path, data in ((SNAPSHOT, now), (MARGINS, margins)):
            with gzip.open(path, "wt", encoding="utf-8") as f:
                json.dump(data, f, sort_keys=True)
            print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
