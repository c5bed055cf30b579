"""Dark Age ``los`` made faster (issue 16) rules as before: every ruling's JSON, in English
and French, on seeded random tables (sizes of every class, windows open and closed, some
degenerate placements) against digests of the rulings the previous code gave (taken
before the faster forms; run this file as a script under that code to take them again:
``PYTHONPATH=<old src> python tests/test_darkage_speed.py``); and each faster form against
the form it replaced, kept here as the oracle (the rulings' values made one field at a
time against the dataclass constructors)."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import shapely

from arbitre import sight
from arbitre.i18n import N_, T_, TN_, join, speaking
from arbitre.rules import darkage
from arbitre.rules.darkage import DarkAgeLosRuling, DarkAgeOptions, SizeWord, window_sides
from arbitre.rules.ruling import Margin, Reason
from arbitre.table import Model, Table
from arbitre.testing import random_table

# --- the seeded tables ------------------------------------------------------------------


def case(seed: int) -> tuple[Table, DarkAgeOptions, list[tuple[str, str]]]:
    """A seeded table (models of every size class, some degenerate placements), options
    and pairs: each model against a few others, the same side too."""
    rng = np.random.default_rng(1000 + seed)
    table = random_table(
        seed,
        models=int(rng.integers(12, 40)),
        terrain=int(rng.integers(6, 16)),
        width=float(rng.uniform(300, 600)),
        degenerate=seed % 3 == 1,
    )
    classes = table.size_classes
    models = tuple(
        replace(m, size=classes[int(rng.choice(len(classes), p=[0.15, 0.55, 0.2, 0.1]))])
        for m in table.models
    )
    table = replace(table, models=models, name=f"speed {seed}")
    options = DarkAgeOptions(windows="closed" if seed % 4 == 3 else "open")
    ids = [m.id for m in models]
    pairs = [(a, b) for a in ids for b in ids if a != b and rng.random() < 0.4]
    return table, options, pairs


#: The seeds of the everyday test (the slow one takes every seed digested).
SEEDS = range(6)


def digest(table: Table, options: DarkAgeOptions, pairs: Sequence[tuple[str, str]]) -> str:
    """A digest of every ruling's JSON, in English then in French."""
    rulings = darkage.rulings(table, pairs, options=options)
    h = hashlib.sha256()
    for lang in ("en", "fr"):
        with speaking(lang):
            doc = [r.to_json(table.unit) for r in rulings]
        h.update(json.dumps(doc, sort_keys=True).encode())
    return h.hexdigest()[:32]


#: :func:`digest` of each seed's case under the code before the faster forms.
DIGESTS: dict[int, str] = {
    0: "fcd03bdbcd08816b77c5263f619cdfb6",
    1: "c276a0fa6d4c2e83e31564ce7e51d7cb",
    2: "9475ab6b3cf916086f934314ea7b49b2",
    3: "9fcc83a452c25636f15a0a8094d29efa",
    4: "43c57b3946f52efd427b29e663ed8a4c",
    5: "181ad5056684dc43549f7148faa41639",
    6: "1ae5f5bd80723fe951b5574823164dcc",
    7: "cf41855462682ba9e82d749e32e77b90",
    8: "f39cb3bc8722d0ecbb5c5d91dbded7cf",
    9: "0321d5c99a1e60c412d643cb32602f81",
    10: "a1c0fce021fa020ea3985aee5b6f1cfa",
    11: "b70feaa02e5df4307205679443bf0b8b",
    12: "ecc47e54243610619ff593626fe9a32e",
    13: "1137371dab592ae65ad672aff27ad256",
    14: "f1f77a3bed36c918ccd457c011aba988",
    15: "aa9da61b073b1998cb811ba472c4390b",
    16: "1f1f54edfb05fb495973db61ae23bc69",
    17: "b3c8d8da59cf84694fd2fa7081077a3b",
    18: "aee11ba7af5eba95b5dbe577bdc1337f",
    19: "576a12f8b4145219e5f7d3f06d2da7d1",
    20: "8b37bee8cf930062a9bcb839236076b8",
    21: "b10549794dcb287e9d315f715f98bc0a",
    22: "1af769000476e0700c59455b643c6a04",
    23: "117ae704414039f6aa6903651673bf78",
}


@pytest.mark.parametrize("seed", SEEDS)
def test_rulings_as_before(seed: int) -> None:
    assert digest(*case(seed)) == DIGESTS[seed]


@pytest.mark.slow
@pytest.mark.parametrize("seed", sorted(set(DIGESTS) - set(SEEDS)))
def test_rulings_as_before_many(seed: int) -> None:
    assert digest(*case(seed)) == DIGESTS[seed]


# --- the rulings' values, made one field at a time ---------------------------------------


def old_because(observer: str, target: str, reasons: Sequence[Reason]) -> str:
    parts: dict[str, None] = {}
    for r in reasons:
        named = " ".join([i for i in r.ids if i != observer and i != target])
        parts[f"{r.rule} {named}".strip()] = None
    return ", ".join(parts)


def old_rule(
    table: Table,
    ends: tuple[Model, Model],
    smaller: tuple[str, ...],
    closers: tuple[str, ...],
    through: tuple[str, ...],
    margin: Margin,
    line: sight.ClearLine,
) -> DarkAgeLosRuling:
    """The ruling of one pair as the constructors made it (the previous ``_rule``)."""
    a, b = line.observer, line.target
    size = ends[1].size
    reasons = [
        Reason("D3", (a, b), T_("the window joins the sides of {a}'s and {b}'s bases", a=a, b=b))
    ]
    passed: list[Reason] = []
    if smaller:
        passed.append(
            Reason(
                "D4",
                smaller,
                TN_(
                    "smaller than {b} ({size}), these do not obstruct: {names}",
                    "smaller than {b} ({size}), these do not obstruct: {names}",
                    "n",
                    n=len(smaller),
                    b=b,
                    size=SizeWord(size),
                    names=join(smaller),
                ),
            )
        )
    reasons.extend(passed)
    window = window_sides(*ends)
    if line.clear and line.witness is not None:
        p, q = line.witness
        text = T_(
            "a clear line joins the bases, from {p} to {q}: {b} is in line of sight",
            p=table.unit.at(p.x, p.y),
            q=table.unit.at(q.x, q.y),
            b=b,
        )
        reasons.append(Reason("D3", (a, b), text))
        for wall in through:
            reasons.append(
                Reason(
                    "M12",
                    (a, b, wall),
                    T_(
                        "through the window of {wall}: with the windows closed {wall} would "
                        "close the window",
                        wall=wall,
                    ),
                )
            )
        witness = ((p.x, p.y), (q.x, q.y))
    else:
        names = join(closers, empty=N_("nothing"))
        closing = TN_(
            "of {b}'s size ({size}) or larger, these close the window: {names}",
            "of {b}'s size ({size}) or larger, these close the window: {names}",
            "n",
            n=len(closers),
            b=b,
            size=SizeWord(size),
            names=names,
        )
        reasons.append(Reason("D4", closers, closing))
        inner = set(closers)
        for x, y in line.joined:
            if x in inner and y in inner:
                reasons.append(
                    Reason("G4", (x, y), T_("{x} and {y} touch (G4): one obstacle", x=x, y=y))
                )
        idle = tuple(n for n in line.blockers if n not in inner)
        if idle:
            passed.append(
                Reason(
                    "D3",
                    idle,
                    T_(
                        "also in the window but closing nothing the others leave open: {names}",
                        names=join(idle),
                    ),
                )
            )
            reasons.append(passed[-1])
        reasons.append(
            Reason("D3", (a, b), T_("no clear line joins the bases: {b} is not in sight", b=b))
        )
        witness = None
    skip = {id(r) for r in passed}
    return DarkAgeLosRuling(
        shooter=a,
        target=b,
        visible=witness is not None,
        cover=0,
        reasons=tuple(reasons),
        blockers=() if witness is not None else closers,
        witness=witness,
        because=old_because(a, b, [r for r in reasons if id(r) not in skip]),
        window=window,
        margin=margin,
    )


def test_rulings_made_field_by_field_equal_the_constructors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every ruling :func:`darkage._rules` makes equals the one the constructors make
    from the same measures, field for field (reasons, texts and their parameters)."""
    fast = darkage._rules
    seen: list[int] = []

    def both(table: Table, ends: Any, *rest: Any) -> list[DarkAgeLosRuling]:
        got = fast(table, ends, *rest)
        want = [old_rule(table, e, *x) for e, *x in zip(ends, *rest, strict=True)]
        assert got == want
        assert [type(r) for r in got] == [DarkAgeLosRuling] * len(want)
        seen.append(len(got))
        return got

    monkeypatch.setattr(darkage, "_rules", both)
    kinds: set[object] = set()
    for seed in range(8):
        table, options, pairs = case(seed)
        rulings = darkage.rulings(table, pairs, options=options)
        for r in rulings:
            kinds.add((r.visible, bool(r.reasons[1].rule == "D4" and r.visible)))
            kinds |= {x.rule for x in r.reasons}
    assert sum(seen) > 500
    # every kind of reason was made: smaller pieces, windows, touching closers, idle ones
    assert {"D3", "D4", "G4", "M12"} <= kinds
    assert (True, True) in kinds and (False, False) in kinds


if __name__ == "__main__":  # take the digests under the code running now
    every = range(int(sys.argv[1]) if len(sys.argv) > 1 else 24)
    print("DIGESTS: dict[int, str] = {")
    for s in every:
        print(f'    {s}: "{digest(*case(s))}",', flush=True)
    print("}")


# --- the kept indexes of the bases near a polygon ----------------------------------------


def test_level_indexes_after_a_drag_are_fresh_builds() -> None:
    """The indexes of the few bases near a polygon are kept by content
    (:func:`darkage_levels._near_index`): after a model is dragged next to a piece, or
    away from every piece, or a piece moves, each level index of the new table is still
    a fresh :func:`arbitre.sight.build_index`, array for array."""
    from test_darkage_levels import _same

    from arbitre.geometry import Point, PolygonFootprint
    from arbitre.rules import darkage_levels, darkage_margins

    table = random_table(3, models=40, terrain=12, width=450.0)
    fp = next(t.footprint for t in table.terrain if isinstance(t.footprint, PolygonFootprint))
    assert isinstance(fp, PolygonFootprint)
    shape = fp.shape()
    p, q = fp.points[0], fp.points[1]

    def touching(t: float, gap: float) -> Point:
        """A point ``gap`` outside the polygon's first edge, at ``t`` along it."""
        mx, my = p.x + t * (q.x - p.x), p.y + t * (q.y - p.y)
        nx, ny = q.y - p.y, p.x - q.x
        d = (nx * nx + ny * ny) ** 0.5
        out = Point(mx + nx / d, my + ny / d)
        if shapely.Point(out.x, out.y).within(shape):
            nx, ny = -nx, -ny
        r = table.models[1].base.radius + gap
        return Point(mx + nx / d * r, my + ny / d * r)

    def at(where: dict[str, Point]) -> Table:
        return replace(
            table, models=tuple(replace(m, at=where.get(m.id, m.at)) for m in table.models)
        )

    first = table.models[1].id
    tables = [
        at({first: touching(0.5, 0.2)}),  # a base touching a polygon (G4, at some levels)
        replace(at({first: touching(0.5, 0.2)}), name="again"),  # the same: kept ones found
        at({first: touching(0.45, 0.2)}),  # dragged along the edge: the same bases near it
        at({first: touching(0.45, 0.35)}),  # and away a little
        at({first: Point(-500.0, -500.0)}),  # dragged far from every piece
        replace(at({first: touching(0.5, 0.2)}), terrain=table.terrain[1:]),  # a piece gone
    ]
    levels = darkage_margins.LEVELS
    for t in tables:
        found = darkage_levels.Levels(t, darkage_levels.levels(t, levels[-1]).within)
        for solid in (frozenset(), sight.walls_with_windows(t)):
            for erode in (*levels, *(-v for v in levels)):
                _same(found.index(solid, erode), sight.build_index(t, solid=solid, erode=erode))
    assert darkage_levels._near_index._kept  # bounded, and used
    assert len(darkage_levels._near_index._kept) <= darkage_levels._NEAR_KEEP


def old_window_sides(a: Model, b: Model) -> tuple[Any, Any]:
    """The window's sides as the previous :func:`darkage.window_sides` found them."""
    import math

    dx, dy = b.at.x - a.at.x, b.at.y - a.at.y
    d = math.hypot(dx, dy) or 1.0
    ra, rb = a.base.radius, b.base.radius
    base = math.atan2(dy, dx)
    turn = math.acos(max(-1.0, min(1.0, (ra - rb) / d)))
    sides = []
    for sign in (1.0, -1.0):
        nx, ny = math.cos(base + sign * turn), math.sin(base + sign * turn)
        sides.append(((a.at.x + ra * nx, a.at.y + ra * ny), (b.at.x + rb * nx, b.at.y + rb * ny)))
    return sides[0], sides[1]


def test_window_sides_as_before() -> None:
    """Bit for bit, on seeded bases of every size (none, equal, unequal, one on the
    other's centre, on the same x)."""
    from arbitre.geometry import Disc, Point

    rng = np.random.default_rng(5)
    for _ in range(3000):
        ra, rb = (float(rng.choice([0.0, 25.0, rng.uniform(0, 100)])) for _ in range(2))
        ax, ay = (float(v) for v in rng.uniform(-1e3, 1e3, 2))
        bx = ax if rng.random() < 0.1 else float(rng.uniform(-1e3, 1e3))
        by = ay if rng.random() < 0.05 else float(rng.uniform(-1e3, 1e3))
        a = Model("a", "red", Point(ax, ay), Disc(ra))
        b = Model("b", "blue", Point(bx, by), Disc(rb))
        assert window_sides(a, b) == old_window_sides(a, b)


# --- which pieces close a window (darkage._needed) ---------------------------------------


def old_needed(
    table: Table,
    ix: sight.SightIndex,
    ranks: np.ndarray,
    need: np.ndarray,
    s: np.ndarray,
    g: np.ndarray,
    lines: Sequence[sight.ClearLine],
) -> list[tuple[str, ...]]:
    """The previous ``_needed``: every piece asked alone, every two of them asked where
    none closes alone (no early stop)."""
    from itertools import combinations

    from arbitre.rules.darkage_alone import closed_by

    def closing(asks: list[tuple[int, tuple[int, ...]]]) -> list[tuple[int, tuple[int, ...]]]:
        if not asks:
            return []
        r = np.fromiter((i for i, _ in asks), np.int64, len(asks))
        yes = closed_by(table, ix, s[r], g[r], [x for _, x in asks])
        return [ask for ask, y in zip(asks, yes.tolist(), strict=True) if y]

    where = {name: k for k, name in enumerate(ix.ids)}
    many = [i for i, line in enumerate(lines) if not line.clear and len(line.blockers) > 1]
    blocking = {i: [where[name] for name in lines[i].blockers] for i in many}
    lone: dict[int, list[int]] = {i: [] for i in many}
    for row, (k,) in closing([(i, (k,)) for i in many for k in blocking[i]]):
        lone[row].append(k)
    none = [i for i in many if not lone[i] and len(blocking[i]) <= darkage.PAIRS_UP_TO]
    twos: dict[int, list[tuple[int, ...]]] = {i: [] for i in none}
    for j, two in closing([(i, two) for i in none for two in combinations(blocking[i], 2)]):
        twos[j].append(two)
    rows: list[int] = []
    gone: list[int] = []
    for i in many:
        if len(lone[i]) > 1:
            continue
        tried = lone[i] or [k for k in blocking[i] if all(k in two for two in twos.get(i, ()))]
        rows.extend([i] * len(tried))
        gone.extend(tried)
    opened: set[tuple[int, int]] = set()
    if rows:
        r = np.asarray(rows, np.int64)
        pairs = [(table.models[int(s[i])].id, table.models[int(g[i])].id) for i in rows]
        tests = sight.clear_lines(
            table,
            pairs,
            piece_rank=ranks,
            min_rank=need[r],
            index=ix,
            without=np.asarray(gone, np.int64),
            closers=False,
        )
        opened = {(i, k) for i, k, t in zip(rows, gone, tests, strict=True) if t.clear}
    out = []
    for i, line in enumerate(lines):
        if line.clear:
            out.append(line.blockers)
            continue
        named = {n for n in line.blockers if (i, where[n]) in opened}
        grown = True
        while grown:
            more = {y for x, y in line.joined if x in named} | {
                x for x, y in line.joined if y in named
            }
            grown = not more <= named
            named |= more
        out.append(tuple(n for n in line.blockers if n in named) or line.blockers)
    return out


def test_closing_pieces_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pieces named as closing each window, with the kernels that stop early, are
    those every piece and every two asked named, on seeded tables crowded enough that
    some windows have two pieces closing them alone, and some none."""
    fast = darkage._needed
    counts = {"pairs": 0, "named": 0}

    def both(*args: Any) -> list[tuple[str, ...]]:
        got = fast(*args)
        assert got == old_needed(*args)
        counts["pairs"] += len(got)
        counts["named"] += sum(1 for x in got if x)
        return got

    monkeypatch.setattr(darkage, "_needed", both)
    for seed in range(6):
        table, options, pairs = case(seed)
        darkage.rulings(table, pairs, options=options)
    crowded = random_table(11, models=60, terrain=25, width=420.0)
    ids = [m.id for m in crowded.models]
    darkage.rulings(crowded, [(a, b) for a in ids[:12] for b in ids if a != b])
    assert counts["pairs"] > 1000 and counts["named"] > 300
