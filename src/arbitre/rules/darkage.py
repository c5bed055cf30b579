"""Dark Age (seed 004): action points (D1), roll-offs (D2), the line-of-sight window with
size classes (D3-D5).

D3: the target is in line of sight when some unobstructed segment joins the observer's
base to the target's inside the window (the convex hull of the two bases, bounded by
their outer tangents, S3). D4: only models and terrain of the target's size class or
larger obstruct, so sight is not symmetric. D1: an activation spends action points in
any order and loses what is left. D2: two opposing effects at once are ordered by the
lower of two D20, ties rolled again (:func:`arbitre.dice.roll_off`, the one procedure
both rolled and enumerated exactly).

Questions: ``los`` (:class:`DarkAgeLosRuling`, with the window's two sides), ``rolloff``
(:class:`RolloffRuling`), ``activation`` (:class:`ActivationRuling`).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from arbitre import dice, sight
from arbitre.errors import RulesError
from arbitre.geometry import Point
from arbitre.i18n import N_, T_, TN_, At, Join, Lang, Text, Word, current, join, tr
from arbitre.rules import darkage_alone, schema
from arbitre.rules.darkage_alone import alone_counts, in_every_closing_two
from arbitre.rules.darkage_levels import levels
from arbitre.rules.darkage_margins import LEVELS, los_margins, margin_indexes
from arbitre.rules.declared import DarkAgeOptions as DarkAgeOptions  # the registry reads it light
from arbitre.rules.frostgrave_make import make_join, make_reason, make_text, maker
from arbitre.rules.registry import Question, Ruleset, questions
from arbitre.rules.requests import LosRequest, ids
from arbitre.rules.ruling import NO_MARGIN, LosRuling, Margin, Reason, chance, point, reasons_json
from arbitre.table import Model, Table, Unit
from arbitre.vocabulary import SIZES

# --- D3-D4: the line-of-sight window ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class SizeWord(Word):
    """A D4 size class as a text parameter: its id in English ("medium", as the table
    names it), the seed's word in French ("Moyen"); a size class of the table's own is
    its id in every language."""

    def render(self, lang: Lang | None = None) -> str:
        name = SIZES.get(self.msgid)
        lang = lang or current()
        return self.msgid if name is None or lang == "en" else tr(name, lang)


#: A segment in mm, from the observer's side to the target's.
Segment = tuple[tuple[float, float], tuple[float, float]]


@dataclass(frozen=True, slots=True)
class DarkAgeLosRuling(LosRuling):
    """A Dark Age line of sight (D3-D4): a :class:`~arbitre.rules.ruling.LosRuling` with
    the two sides of its D3 window, ``window`` (the outer common tangents of the two
    bases, each from the observer's rim to the target's, in mm), for pictures."""

    window: tuple[Segment, Segment] | None = None

    def to_json(self, unit: Unit | None = None) -> dict[str, Any]:
        """:meth:`LosRuling.to_json` and ``window``: two segments of two points in ``unit``."""
        doc = LosRuling.to_json(self, unit)
        tail = {k: doc.pop(k) for k in ("reasons", "refusals")}
        doc["window"] = (
            None if self.window is None else [[point(unit, p) for p in s] for s in self.window]
        )
        doc.update(tail)
        return doc


_hypot, _atan2, _acos, _cos, _sin = math.hypot, math.atan2, math.acos, math.cos, math.sin


def window_sides(a: Model, b: Model) -> tuple[Segment, Segment]:
    """The two sides of the D3 window of ``a`` and ``b``: the outer common tangents of the
    two bases, each from its point on a's rim to its point on b's rim (left, then right,
    looking from a to b)."""
    at, bt = a.at, b.at
    ax, ay, bx, by = at.x, at.y, bt.x, bt.y
    dx, dy = bx - ax, by - ay
    d = _hypot(dx, dy) or 1.0
    ra, rb = a.base.radius, b.base.radius
    base = _atan2(dy, dx)
    turn = _acos(max(-1.0, min(1.0, (ra - rb) / d)))
    left, right = base + turn, base - turn
    lx, ly = _cos(left), _sin(left)
    rx, ry = _cos(right), _sin(right)
    return (
        ((ax + ra * lx, ay + ra * ly), (bx + rb * lx, by + rb * ly)),
        ((ax + ra * rx, ay + ra * ry), (bx + rb * rx, by + rb * ry)),
    )


def _ranks(table: Table, ix: sight.SightIndex) -> np.ndarray:
    """The D4 rank of every piece of the sight index (terrain, then models)."""
    sizes = [t.size for t in table.terrain] + [m.size for m in table.models]
    ranks = []
    for ident, size in zip(ix.ids, sizes, strict=True):
        if size not in table.size_classes:
            raise RulesError(
                T_(
                    "{id}: size {size} is not a size class ({known})",
                    id=ident,
                    size=repr(size),
                    known=join(table.size_classes),
                )
            )
        ranks.append(table.size_rank(size))
    return np.asarray(ranks, dtype=np.int64)


def index_for(table: Table, options: DarkAgeOptions) -> sight.SightIndex:
    """The sight index of the rulings: every window of every wall opened (M12, option
    ``windows: open``), or the walls whole (``closed``)."""
    if options.windows == "open":
        return sight.sight_index(table, sight.walls_with_windows(table))
    return sight.sight_index(table)


def in_sight(
    table: Table,
    pairs: Sequence[tuple[str, str]],
    *,
    options: DarkAgeOptions | None = None,
) -> np.ndarray:
    """D3-D4 alone, the deciding field of :func:`rulings`: for each ``(observer,
    target)`` pair whether a clear line joins the bases inside the window."""
    opts = options or DarkAgeOptions()
    ix = index_for(table, opts)
    ranks = _ranks(table, ix)
    need = np.asarray([table.size_rank(table.model(b).size) for _, b in pairs], np.int64)
    lines = sight.clear_lines(
        table, pairs, piece_rank=ranks, min_rank=need, index=ix, closers=False
    )
    return np.asarray([line.clear for line in lines], np.bool_)


def rulings(
    table: Table,
    pairs: Sequence[tuple[str, str]],
    *,
    options: DarkAgeOptions | None = None,
) -> list[DarkAgeLosRuling]:
    """D3-D4 for each ``(observer, target)`` pair: visible or not, a witness segment or
    the pieces that close the window (touching ones as one obstacle, G4), the smaller
    pieces D4 lets the line pass, the window's sides, whether a window decided (M12),
    and the G8 margin (:func:`arbitre.rules.darkage_margins.los_margins`)."""
    opts = options or DarkAgeOptions()
    rows: list[int] = []
    cols: list[int] = []
    for a, b in pairs:
        i, j = table.model_index(a), table.model_index(b)
        if i == j:  # the same model (ids are unique)
            raise RulesError(T_("a model does not look at itself: {id}", id=repr(a)))
        rows.append(i)
        cols.append(j)
    if not pairs:
        return []
    ix = index_for(table, opts)
    ranks = _ranks(table, ix)
    models = table.models
    ends = [(models[i], models[j]) for i, j in zip(rows, cols, strict=True)]
    rank_of = {size: table.size_rank(size) for size in {mb.size for _, mb in ends}}
    need = np.asarray([rank_of[mb.size] for _, mb in ends], np.int64)
    s = np.asarray(rows, np.int64)
    g = np.asarray(cols, np.int64)
    found, witness = sight.any_clear_indices(table, ix, ranks, need, s, g)
    lines = _lines(pairs, found, witness)
    reach = darkage_alone.reach_lists(table, ix, s, g)
    ids, rank_list, need_list = ix.ids, ranks.tolist(), need.tolist()
    smaller = [
        tuple([ids[p] for p in near if rank_list[p] < least])
        for near, least in zip(reach, need_list, strict=True)
    ]
    lines = _with_blockers(ix, ranks, need, reach, lines)
    closers = _needed(table, ix, ranks, need, s, g, lines)
    seen = [line.clear for line in lines]
    through = _through_windows(
        table, opts, ranks, need, s, g, lines, also=margin_indexes(table, ix, seen)
    )
    margins = los_margins(table, ix, ranks, need, s, g, seen, closers)
    return _rules(table, ends, smaller, closers, through, margins, lines)


def _lines(
    pairs: Sequence[tuple[str, str]], found: np.ndarray, witness: np.ndarray
) -> list[sight.ClearLine]:
    """The lines of :func:`arbitre.sight.clear_lines` (``closers=False``) from the
    answers of :func:`arbitre.sight.any_clear_indices`."""
    out = []
    line, point = _make_line, _make_point
    for (a, b), clear, w in zip(pairs, found.tolist(), witness.tolist(), strict=True):
        if clear:
            ends = (point(float(w[0]), float(w[1])), point(float(w[2]), float(w[3])))
            out.append(line(a, b, True, ends, (), ()))
        else:
            out.append(line(a, b, False, None, (), ()))
    return out


#: ``ClearLine(...)`` and ``Point(...)`` of every field in order, made slot by slot
#: (:func:`arbitre.rules.frostgrave_make.maker`): equal to what the constructors make.
_make_line = maker(sight.ClearLine)
_make_point = maker(Point)


def _with_blockers(
    ix: sight.SightIndex,
    ranks: np.ndarray,
    need: np.ndarray,
    inside: Sequence[Sequence[int]],
    lines: Sequence[sight.ClearLine],
) -> list[sight.ClearLine]:
    """The blocked lines with what :func:`arbitre.sight.clear_lines` names when asked:
    the pieces of the target's size or larger reaching into the window (``inside[i]``,
    D3-D4, in index order) and the G4 pairs of them that touch (in bridge order), from
    the window's reach measured once for every pair."""
    bridges = ix.bridge_pairs()
    by_first: dict[str, list[int]] = {}
    for j, (x, _) in enumerate(bridges):
        by_first.setdefault(x, []).append(j)
    ids, rank_list, need_list = ix.ids, ranks.tolist(), need.tolist()
    out = []
    for line, near, least in zip(lines, inside, need_list, strict=True):
        if line.clear:
            out.append(line)
            continue
        names = tuple([ids[p] for p in near if rank_list[p] >= least])
        joined: tuple[tuple[str, str], ...] = ()
        if by_first:
            named = set(names)
            touch = [j for n in names if n in by_first for j in by_first[n]]
            joined = tuple([bridges[j] for j in sorted(touch) if bridges[j][1] in named])
        out.append(_make_line(line.observer, line.target, False, None, names, joined))
    return out


#: Where no piece closes a window alone, each two of at most this many pieces are asked
#: whether they close it (the work of that grows as the square of the pieces).
PAIRS_UP_TO = 16


def _needed(
    table: Table,
    ix: sight.SightIndex,
    ranks: np.ndarray,
    need: np.ndarray,
    s: np.ndarray,
    g: np.ndarray,
    lines: Sequence[sight.ClearLine],
) -> list[tuple[str, ...]]:
    """For each blocked pair, the pieces that close its window: of the pieces of the
    target's size or larger reaching into it, those without which a clear line appears
    (D3-D4; all of them when none is needed alone, as with two walls one behind the
    other), with the pieces touching them (G4: one obstacle). A piece that reaches into
    the window but closes nothing is not named.

    Each piece is first asked whether it closes the window alone (cheap: its own pinned
    lines). Two that do keep it closed without either, so none is needed; one that does
    keeps it closed without any other, so only it is tried away. Where none does, each
    two of them are asked the same (still cheap: two pieces' lines): a piece left out of
    some closing two is not needed, so only the pieces in every closing two are tried
    away. The exact S3 test without a piece runs only for the pieces these answers leave
    open. Each kernel stops asking a pair once its answer is settled: after a second
    piece closes the window alone, or once no piece is in every closing two
    (:func:`arbitre.rules.darkage_alone.alone_counts`, ``in_every_closing_two``)."""
    where = {name: k for k, name in enumerate(ix.ids)}
    many = [i for i, line in enumerate(lines) if not line.clear and len(line.blockers) > 1]
    blocking = {i: [where[name] for name in lines[i].blockers] for i in many}
    # each piece alone, pair i's in index order: until two close the window alone
    flat = [k for i in many for k in blocking[i]]
    off = np.zeros(len(many) + 1, np.int64)
    np.cumsum([len(blocking[i]) for i in many], out=off[1:])
    pick = np.asarray(many, np.int64)
    count, first = alone_counts(table, ix, s[pick], g[pick], off, flat)
    # each two of them, where none closes the window alone: the pieces in every two
    # that close it (every piece where none does)
    none = [j for j, c in enumerate(count.tolist()) if c == 0]
    few = [j for j in none if off[j + 1] - off[j] <= PAIRS_UP_TO]
    kept: dict[int, list[int]] = {}
    if few:
        sub = np.asarray(few, np.int64)
        lens = off[sub + 1] - off[sub]
        sub_off = np.zeros(len(few) + 1, np.int64)
        np.cumsum(lens, out=sub_off[1:])
        take = np.repeat(off[sub] - sub_off[:-1], lens) + np.arange(int(sub_off[-1]))
        pieces = np.asarray(flat, np.int64)[take]
        flags = in_every_closing_two(table, ix, s[pick[sub]], g[pick[sub]], sub_off, pieces)
        for n, j in enumerate(few):
            lo, hi = int(sub_off[n]), int(sub_off[n + 1])
            both = zip(pieces[lo:hi].tolist(), flags[lo:hi].tolist(), strict=True)
            kept[j] = [k for k, f in both if f]
    rows: list[int] = []
    gone: list[int] = []
    for j, (i, c, k1) in enumerate(zip(many, count.tolist(), first.tolist(), strict=True)):
        if c > 1:
            continue  # each of two closes it alone: without any one it stays closed
        tried = [k1] if c == 1 else kept.get(j, blocking[i])
        for k in tried:
            rows.append(i)
            gone.append(k)
    opened: set[tuple[int, int]] = set()
    if rows:
        r = np.asarray(rows, np.int64)
        clear, _ = sight.any_clear_indices(
            table, ix, ranks, need[r], s[r], g[r], np.asarray(gone, np.int64)
        )
        opened = {(i, k) for i, k, t in zip(rows, gone, clear.tolist(), strict=True) if t}
    out = []
    for i, line in enumerate(lines):
        if line.clear:
            out.append(line.blockers)
            continue
        named = {n for n in line.blockers if (i, where[n]) in opened}
        grown = bool(line.joined)
        while grown:  # G4: what touches a closing piece is part of the same obstacle
            more = {y for x, y in line.joined if x in named} | {
                x for x, y in line.joined if y in named
            }
            grown = not more <= named
            named |= more
        out.append(tuple(n for n in line.blockers if n in named) or line.blockers)
    return out


def _through_windows(
    table: Table,
    opts: DarkAgeOptions,
    ranks: np.ndarray,
    need: np.ndarray,
    s: np.ndarray,
    g: np.ndarray,
    lines: Sequence[sight.ClearLine],
    *,
    also: Sequence[tuple[frozenset[str], float]] = (),
) -> list[tuple[str, ...]]:
    """M12: for each visible pair, the walls whose windows decided: with every window
    closed no clear line would join the bases. Empty when windows are closed, or when
    no wall with windows of the target's size or larger reaches into the window.

    The walls reaching into a window are found on the terrain alone (the first pieces of
    the index with the walls whole, :meth:`~arbitre.rules.darkage_levels.Levels.terrain`);
    that whole index is built only when some pair asks it, at once with the offset
    indexes ``also`` (keys of :meth:`~arbitre.rules.darkage_levels.Levels.indexes`)."""
    out: list[tuple[str, ...]] = [() for _ in lines]
    walls = sight.walls_with_windows(table)
    if opts.windows != "open" or not walls:
        return out
    seen = [i for i, line in enumerate(lines) if line.clear]
    found = levels(table, LEVELS[-1])
    terrain = found.terrain(frozenset(), 0.0)  # walls whole
    reach = darkage_alone.reach_lists(table, terrain, s[seen], g[seen])
    rank_list, need_list = ranks.tolist(), need.tolist()
    asks: list[tuple[int, tuple[str, ...]]] = []
    for i, near in zip(seen, reach, strict=True):
        least = need_list[i]
        names = tuple(
            terrain.ids[k] for k in near if terrain.ids[k] in walls and rank_list[k] >= least
        )
        if names:
            asks.append((i, names))
    if not asks:
        return out
    closed = found.indexes([*also, (frozenset(), 0.0)])[-1]
    r = np.asarray([i for i, _ in asks], np.int64)
    clear, _ = sight.any_clear_indices(table, closed, ranks, need[r], s[r], g[r])
    for (i, names), test in zip(asks, clear.tolist(), strict=True):
        if not test:
            out[i] = names
    return out


#: The words of every ruling (message ids as the source marks them, the parameters
#: filled in per pair by :func:`_rules`).
_WINDOW = T_("the window joins the sides of {a}'s and {b}'s bases")
_SMALLER = TN_(
    "smaller than {b} ({size}), these do not obstruct: {names}",
    "smaller than {b} ({size}), these do not obstruct: {names}",
    "n",
)
_CLEAR = T_("a clear line joins the bases, from {p} to {q}: {b} is in line of sight")
_THROUGH = T_("through the window of {wall}: with the windows closed {wall} would close the window")
_CLOSING = TN_(
    "of {b}'s size ({size}) or larger, these close the window: {names}",
    "of {b}'s size ({size}) or larger, these close the window: {names}",
    "n",
)
_TOUCH = T_("{x} and {y} touch (G4): one obstacle")
_IDLE = T_("also in the window but closing nothing the others leave open: {names}")
_NOT_SEEN = T_("no clear line joins the bases: {b} is not in sight")
_NOTHING = N_("nothing")

_new = object.__new__
_FIELDS = [f.name for f in fields(DarkAgeLosRuling)]
_SET = {name: getattr(DarkAgeLosRuling, name).__set__ for name in _FIELDS}


def _make_ruling(
    shooter: str,
    target: str,
    reasons: tuple[Reason, ...],
    blockers: tuple[str, ...],
    witness: Segment | None,
    because: str,
    window: tuple[Segment, Segment],
    margin: Margin,
) -> DarkAgeLosRuling:
    """``DarkAgeLosRuling(...)`` of these fields (cover 0, the others their defaults),
    each slot written through its descriptor (:mod:`arbitre.rules.frostgrave_make`)."""
    x: DarkAgeLosRuling = _new(DarkAgeLosRuling)
    put = _SET
    put["shooter"](x, shooter)
    put["target"](x, target)
    put["visible"](x, witness is not None)
    put["cover"](x, 0)
    put["reasons"](x, reasons)
    put["visible_fraction"](x, None)
    put["blockers"](x, blockers)
    put["cover_pieces"](x, ())
    put["witness"](x, witness)
    put["refusals"](x, ())
    put["because"](x, because)
    put["margin"](x, margin)
    put["window"](x, window)
    return x


def _rules(
    table: Table,
    ends: Sequence[tuple[Model, Model]],
    smaller: Sequence[tuple[str, ...]],
    closers: Sequence[tuple[str, ...]],
    through: Sequence[tuple[str, ...]],
    margins: Sequence[Margin],
    lines: Sequence[sight.ClearLine],
) -> list[DarkAgeLosRuling]:
    """Each pair's ruling: D3 the window, D4 the pieces too small to obstruct
    (``smaller[i]``, those reaching into the window below the target's size), then the
    clear line found (M12 when it goes through a window) or the pieces that close the
    window (G4 when some of them touch). ``because`` names the deciding reasons (see
    :func:`because`): the pieces D4 lets pass decide nothing, nor those closing nothing.

    The values are made slot by slot (:mod:`arbitre.rules.frostgrave_make`), equal to
    what their constructors make."""
    unit_mm = table.unit.mm
    # equal parameters and words are made once and shared (fewer values to collect)
    sizes: dict[str, tuple[str, SizeWord]] = {}
    as_a: dict[str, tuple[str, str]] = {}
    as_b: dict[str, tuple[str, str]] = {}
    counts: dict[int, tuple[str, int]] = {}
    lists: dict[tuple[str, ...], tuple[str, Join]] = {}
    unseen: dict[str, Text] = {}
    d4_parts: dict[tuple[str, ...], str] = {}
    out: list[DarkAgeLosRuling] = []
    for (ma, mb), small, closing, walls, margin, line in zip(
        ends, smaller, closers, through, margins, lines, strict=True
    ):
        a, b = line.observer, line.target
        size = sizes.get(mb.size)
        if size is None:
            size = sizes[mb.size] = ("size", SizeWord(mb.size))
        pa = as_a.get(a)
        if pa is None:
            pa = as_a[a] = ("a", a)
        pb = as_b.get(b)
        if pb is None:
            pb = as_b[b] = ("b", b)
        ab = (a, b)
        reasons = [make_reason("D3", ab, make_text(_WINDOW.msgid, (pa, pb), None, None))]
        if small:
            n = counts.get(len(small))
            if n is None:
                n = counts[len(small)] = ("n", len(small))
            words = (n, pb, size, ("names", make_join(small, ", ", "")))
            reasons.append(
                make_reason("D4", small, make_text(_SMALLER.msgid, words, _SMALLER.plural, "n"))
            )
        parts = ["D3"]
        if line.clear and line.witness is not None:
            p, q = line.witness
            ends_at = (
                ("p", At(float(p.x), float(p.y), unit_mm)),
                ("q", At(float(q.x), float(q.y), unit_mm)),
                pb,
            )
            reasons.append(make_reason("D3", ab, make_text(_CLEAR.msgid, ends_at, None, None)))
            for wall in walls:
                text = make_text(_THROUGH.msgid, (("wall", wall),), None, None)
                reasons.append(make_reason("M12", (a, b, wall), text))
                parts.append(_part("M12", (wall,), a, b))
            witness: Segment | None = ((p.x, p.y), (q.x, q.y))
            blockers: tuple[str, ...] = ()
        else:
            names = lists.get(closing)
            if names is None:
                names = lists[closing] = ("names", make_join(closing, ", ", _NOTHING))
            n = counts.get(len(closing))
            if n is None:
                n = counts[len(closing)] = ("n", len(closing))
            text = make_text(_CLOSING.msgid, (n, pb, size, names), _CLOSING.plural, "n")
            reasons.append(make_reason("D4", closing, text))
            if a in closing or b in closing:
                parts.append(_part("D4", closing, a, b))
            else:  # the same words for every pair: kept by the pieces
                d4 = d4_parts.get(closing)
                if d4 is None:
                    d4 = d4_parts[closing] = _part("D4", closing, a, b)
                parts.append(d4)
            if line.joined:
                inner = set(closing)
                for x, y in line.joined:
                    if x in inner and y in inner:
                        text = make_text(_TOUCH.msgid, (("x", x), ("y", y)), None, None)
                        reasons.append(make_reason("G4", (x, y), text))
                        parts.append(_part("G4", (x, y), a, b))
            if len(line.blockers) > len(closing):
                inner = set(closing)
                idle = tuple([k for k in line.blockers if k not in inner])
                text = make_text(_IDLE.msgid, (("names", make_join(idle, ", ", "")),), None, None)
                reasons.append(make_reason("D3", idle, text))
            not_seen = unseen.get(b)
            if not_seen is None:
                not_seen = unseen[b] = make_text(_NOT_SEEN.msgid, (pb,), None, None)
            reasons.append(make_reason("D3", ab, not_seen))
            witness = None
            blockers = closing
        because = parts[0] if len(parts) == 1 else ", ".join(dict.fromkeys(parts))
        out.append(
            _make_ruling(
                a, b, tuple(reasons), blockers, witness, because, window_sides(ma, mb), margin
            )
        )
    return out


def _part(rule: str, pieces: Sequence[str], observer: str, target: str) -> str:
    """One reason in :func:`because`'s words: its rule ID and the pieces it involves."""
    named = " ".join([i for i in pieces if i != observer and i != target])
    return f"{rule} {named}".strip()


def because(observer: str, target: str, reasons: Sequence[Reason]) -> str:
    """The deciding reasons in a few words: each rule ID with the pieces it involves (the
    two models left out), as ``D3, D4 wall``. Give it the reasons that decide: the
    pieces D4 lets the line pass do not obstruct and are not listed."""
    parts: dict[str, None] = {}  # in order, without repeats
    for r in reasons:
        named = " ".join([i for i in r.ids if i != observer and i != target])
        parts[f"{r.rule} {named}".strip()] = None
    return ", ".join(parts)


def _los(table: Table, request: LosRequest, *, options: DarkAgeOptions) -> list[DarkAgeLosRuling]:
    """The ``los`` question: D3-D4 for the pairs asked."""
    return rulings(table, request.pairs_on(table), options=options)


# --- D1: action points ------------------------------------------------------------------

#: Default AP cost of each kind of action (D1 names them; the seed gives 1 AP each).
DEFAULT_COSTS: Mapping[str, int] = MappingProxyType(
    {"move": 1, "attack": 1, "skill": 1, "psychogenics": 1}
)

#: The D1 actions in words (a verb: "cannot move"); the id itself in English.
ACTION_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "move": N_("move"),
        "attack": N_("attack"),
        "skill": N_("skill"),
        "psychogenics": N_("psychogenics"),
    }
)


def action_word(action: str) -> Word | str:
    """An action as a text parameter: a D1 action in the language's words, any other
    action by its name."""
    return Word(ACTION_WORDS[action]) if action in ACTION_WORDS else action


@dataclass(frozen=True, slots=True)
class Activation:
    """D1: one model's activation. Spend AP on actions in any order; it ends when the AP
    are spent or the player stops, and the AP left are lost. Each step gives a new value.

    >>> act = Activation("scout", ap=3).spend("move").spend("attack")
    >>> act.left, act.ended
    (1, False)
    >>> act.end().lost
    1
    """

    model: str
    ap: int
    costs: Mapping[str, int] = field(default_factory=lambda: DEFAULT_COSTS)
    spent: tuple[tuple[str, int], ...] = ()
    stopped: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.ap, bool) or not isinstance(self.ap, int) or self.ap < 0:
            raise RulesError(
                T_(
                    "{model}: AP must be a whole number >= 0, got {ap}",
                    model=self.model,
                    ap=repr(self.ap),
                )
            )
        for action, cost in self.costs.items():
            if isinstance(cost, bool) or not isinstance(cost, int) or cost < 0:
                raise RulesError(
                    T_(
                        "action {action}: cost must be a whole number >= 0, got {cost}",
                        action=repr(action),
                        cost=repr(cost),
                    )
                )

    @property
    def left(self) -> int:
        return self.ap - sum(cost for _, cost in self.spent)

    @property
    def ended(self) -> bool:
        """Whether the activation is over: stopped, or no AP left (D1)."""
        return self.stopped or self.left == 0

    @property
    def lost(self) -> int:
        """The AP lost when the activation ends (0 while it goes on)."""
        return self.left if self.ended else 0

    def spend(self, action: str, *, cost: int | None = None) -> Activation:
        """The activation after ``action`` (its cost from ``costs`` unless given)."""
        if self.ended:
            raise RulesError(
                T_(
                    "{model}'s activation is over: it cannot {action}",
                    model=self.model,
                    action=action_word(action),
                )
            )
        if cost is None:
            if action not in self.costs:
                raise RulesError(
                    T_(
                        "unknown action {action} (actions: {known}); give its cost",
                        action=repr(action),
                        known=join(self.costs),
                    )
                )
            cost = self.costs[action]
        if cost > self.left:
            raise RulesError(
                T_(
                    "{model} cannot {action}: it costs {cost} AP and {left} are left",
                    model=self.model,
                    action=action_word(action),
                    cost=cost,
                    left=self.left,
                )
            )
        return replace(self, spent=(*self.spent, (action, cost)))

    def end(self) -> Activation:
        """The player stops: the AP left are lost (D1)."""
        return replace(self, stopped=True)

    def reasons(self) -> tuple[Reason, ...]:
        steps = [
            Reason("D1", (self.model,), T_("{action}: {cost} AP", action=action_word(a), cost=c))
            for a, c in self.spent
        ]
        if self.ended:
            over = TN_(
                "activation over, {lost} AP lost",
                "activation over, {lost} AP lost",
                "lost",
                lost=self.lost,
            )
            steps.append(Reason("D1", (self.model,), over))
        return tuple(steps)


#: The action that stands for the player stopping the activation (D1).
END = "end"


@dataclass(frozen=True, slots=True)
class ActivationRequest:
    """D1: ``model`` spends ``actions`` in order (``"end"``: its player stops there); its
    AP come from its ``ap`` stat unless ``ap`` is given."""

    model: str
    actions: tuple[str, ...] = ()
    ap: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions", ids(self.actions))


@dataclass(frozen=True, slots=True)
class ActivationRuling:
    """D1: what an activation spent (action and cost, in order), the AP left, the AP lost
    when it is over, and whether it is; an action it could not pay is a refusal."""

    kind: ClassVar[str] = "activation"

    model: str
    ap: int
    spent: tuple[tuple[str, int], ...]
    left: int
    lost: int
    ended: bool
    reasons: tuple[Reason, ...]
    refusals: tuple[Reason, ...] = ()
    margin: Margin = NO_MARGIN

    def to_json(self, unit: Unit | None = None) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "model": self.model,
            "ap": self.ap,
            "spent": [{"action": a, "cost": c} for a, c in self.spent],
            "left": self.left,
            "lost": self.lost,
            "ended": self.ended,
            "reasons": reasons_json(self.reasons),
            "refusals": reasons_json(self.refusals),
            **self.margin.to_json(unit),
        }


def _ap(table: Table, request: ActivationRequest) -> int:
    """The AP of the activation: as asked, else the model's ``ap`` stat (a whole number)."""
    if request.ap is not None:
        return request.ap
    model = table.model(request.model)
    stat = model.stat("ap")
    if stat is None:
        raise RulesError(T_("{id} has no ap stat: give its action points (ap=, --ap)", id=model.id))
    if stat != int(stat):
        raise RulesError(
            T_("{id}: the ap stat must be a whole number, got {stat}", id=model.id, stat=repr(stat))
        )
    return int(stat)


def activate(table: Table, request: ActivationRequest) -> ActivationRuling:
    """D1: spend the actions asked, in order, on :class:`Activation`; an action it cannot
    pay (its AP left, or the activation over) is refused and the next ones still tried."""
    act = Activation(table.model(request.model).id, ap=_ap(table, request))
    for action in request.actions:
        if action != END and action not in act.costs:
            raise RulesError(
                T_(
                    "unknown action {action} (actions: {known})",
                    action=repr(action),
                    known=join((*act.costs, END)),
                )
            )
    refusals = []
    for action in request.actions:
        if action == END:
            act = act.end()
            continue
        try:
            act = act.spend(action)
        except RulesError as exc:
            refusals.append(Reason("D1", (act.model,), _message(exc)))
    return ActivationRuling(
        model=act.model,
        ap=act.ap,
        spent=act.spent,
        left=act.left,
        lost=act.lost,
        ended=act.ended,
        reasons=act.reasons(),
        refusals=tuple(refusals),
    )


def _message(exc: RulesError) -> Text | str:
    """The words of an error as a refusal's message: its :class:`Text` when it has one
    (worded when read, in the language then spoken)."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Text) else str(exc)


def _activation(
    table: Table, request: ActivationRequest, *, options: DarkAgeOptions
) -> list[ActivationRuling]:
    """The ``activation`` question (D1)."""
    return [activate(table, request)]


# --- D2: roll-offs ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RollOffOdds:
    """D2 exactly: each player's chance to decide, one round's chance of a tie, and the
    mean number of rounds (ties are rolled again)."""

    first: Fraction
    second: Fraction
    tie: Fraction
    rounds: Fraction


@lru_cache(maxsize=32)
def rolloff_odds(players: tuple[str, str] = ("A", "B"), *, sides: int = 20) -> RollOffOdds:
    """The exact D2 odds. Who decides comes from enumerating the very procedure that
    :func:`rolloff` rolls (:func:`arbitre.dice.roll_off`); a round ties when both dice
    show the same face, and the rounds until one does not are geometric."""
    law = dice.enumerate_procedure(lambda d: dice.roll_off(d, players, sides=sides))
    die = dice.die(sides)
    tie = sum((die.probability(v) ** 2 for v in die.support), Fraction(0))
    return RollOffOdds(law.probability(players[0]), law.probability(players[1]), tie, 1 / (1 - tie))


@dataclass(frozen=True, slots=True)
class RolloffRequest:
    """D2: a roll-off between two ``players``; a ``seed`` replays a roll (none: a fresh
    one, reported in the ruling)."""

    players: tuple[str, str] = ("A", "B")
    seed: int | None = None

    def __post_init__(self) -> None:
        players = ids(self.players)
        if len(players) != 2:
            raise RulesError(
                T_("a roll-off is between two players, got {players}", players=list(players))
            )
        object.__setattr__(self, "players", players)


@dataclass(frozen=True, slots=True)
class RolloffRuling:
    """A seeded D2 roll-off: who decides the order, the seed and every die rolled, the
    exact odds of the procedure (each player's chance, a tie each round, the mean number
    of rounds), and why."""

    kind: ClassVar[str] = "rolloff"

    players: tuple[str, str]
    decides: str
    seed: int
    log: dice.RollLog
    odds: RollOffOdds
    reasons: tuple[Reason, ...]
    refusals: tuple[Reason, ...] = ()
    margin: Margin = NO_MARGIN

    def to_json(self, unit: Unit | None = None) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "players": list(self.players),
            "decides": self.decides,
            "seed": self.seed,
            "log": self.log.to_json(),
            "odds": {
                self.players[0]: chance(self.odds.first),
                self.players[1]: chance(self.odds.second),
            },
            "tie_each_round": chance(self.odds.tie),
            "mean_rounds": chance(self.odds.rounds),
            "reasons": reasons_json(self.reasons),
            "refusals": reasons_json(self.refusals),
            **self.margin.to_json(unit),
        }


def rolloff(players: tuple[str, str], *, seed: int, sides: int = 20) -> RolloffRuling:
    """Roll off between two players (D2): the lower D20 decides, ties rolled again."""
    decides, log = dice.roll_procedure(lambda d: dice.roll_off(d, players, sides=sides), seed)
    rolls = [r.value for r in log.dice]
    rounds = [rolls[i : i + 2] for i in range(0, len(rolls), 2)]
    steps = [Reason("D2", players, _round(n, players, x, y)) for n, (x, y) in enumerate(rounds, 1)]
    steps.append(
        Reason("D2", (decides,), T_("{who} rolled lower and decides the order", who=decides))
    )
    return RolloffRuling(
        players=players,
        decides=decides,
        seed=seed,
        log=log,
        odds=rolloff_odds(players, sides=sides),
        reasons=tuple(steps),
    )


def _round(n: int, players: tuple[str, str], x: int, y: int) -> Text:
    """One round of a roll-off in words: both dice, and a tie rolled again."""
    (first, second) = players
    if x == y:
        return T_(
            "round {n}: {first} {x}, {second} {y} - a tie, rolled again",
            n=n,
            first=first,
            x=x,
            second=second,
            y=y,
        )
    return T_("round {n}: {first} {x}, {second} {y}", n=n, first=first, x=x, second=second, y=y)


def _rolloff(
    subject: None, request: RolloffRequest, *, options: DarkAgeOptions
) -> list[RolloffRuling]:
    """The ``rolloff`` question (D2): a fresh seed unless one is given."""
    seed = secrets.randbelow(2**32) if request.seed is None else request.seed
    return [rolloff(request.players, seed=seed)]


# --- the registry -----------------------------------------------------------------------

_SEGMENT = {**schema.array(schema.POINT), "minItems": 2, "maxItems": 2}

#: The Dark Age ``los`` ruling: the shared one and the D3 window's two sides.
LOS_SCHEMA: dict[str, Any] = {
    "properties": {
        **schema.LOS["properties"],
        "window": schema.nullable({**schema.array(_SEGMENT), "minItems": 2, "maxItems": 2}),
    },
    "required": [*schema.LOS["required"], "window"],
}

ROLLOFF_SCHEMA: dict[str, Any] = {
    "properties": {
        "players": {**schema.IDS, "minItems": 2, "maxItems": 2},
        "decides": schema.STR,
        "seed": schema.INT,
        "log": schema.obj(
            {
                "seed": schema.nullable(schema.INT),
                "dice": schema.array(
                    schema.obj({"label": schema.STR, "sides": schema.INT, "value": schema.INT})
                ),
            }
        ),
        "odds": {"type": "object", "additionalProperties": schema.CHANCE},
        "tie_each_round": schema.CHANCE,
        "mean_rounds": schema.CHANCE,
    },
    "required": ["players", "decides", "seed", "log", "odds", "tie_each_round", "mean_rounds"],
}

ACTIVATION_SCHEMA: dict[str, Any] = {
    "properties": {
        "model": schema.STR,
        "ap": schema.INT,
        "spent": schema.array(schema.obj({"action": schema.STR, "cost": schema.INT})),
        "left": schema.INT,
        "lost": schema.INT,
        "ended": schema.BOOL,
    },
    "required": ["model", "ap", "spent", "left", "lost", "ended"],
}

RULESET = Ruleset(
    name="darkage",
    title=N_("Dark Age: action points, roll-offs, the line-of-sight window (D1-D5)"),
    aliases=("dark-age", "da"),
    options=DarkAgeOptions,
    questions=questions(
        Question(
            "los",
            N_("Lines of sight through the window (D3-D5)"),
            LosRequest,
            _los,
            schema=LOS_SCHEMA,
        ),
        Question(
            "rolloff",
            N_("Roll-off of two opposing effects (D2)"),
            RolloffRequest,
            _rolloff,
            subject="none",
            schema=ROLLOFF_SCHEMA,
        ),
        Question(
            "activation",
            N_("An activation's action points (D1)"),
            ActivationRequest,
            _activation,
            schema=ACTIVATION_SCHEMA,
        ),
    ),
    sight="S3",
)
