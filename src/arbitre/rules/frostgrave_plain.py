"""Frostgrave pairs away from the windows, ruled in one pass (issue 16).

Most pairs of a table have neither their shooter nor their target at a window: no window
opens for their lines (F5), none lets the target be shot through it (F6), and a wall
crossing blocks as any large piece does (F7). So do the pairs whose target stands at a
window but whose centre line does not come in through that window's side of the wall:
F6 does not apply, and only that side test (G5) and the target's other windows weigh in
its margin. Their ruling is then the crossings of the centre line read in order (F2-F4,
F8) with the G5 words, and a margin (G8) of the beam tests, the window contacts of both
ends (the target's window side tests instead, at a window), the F4 contacts and the G4
joins near the line.

:func:`rule_plain` rules those pairs as :func:`arbitre.rules.frostgrave_pair.rule_pair`
and ``frostgrave._ruling`` do, reason for reason and test for test, but in one loop with
what every pair shares made once: the reasons of each piece and each model, their
:func:`arbitre.rules.frostgrave.because` words, each model's nearest window contact, the
words of the beam; the F1, F2 and F8 reasons of a pair are values of its ids and the
pieces crossed, kept from one ask to the next. The other pairs go the general way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from arbitre.i18n import Text
from arbitre.rules.frostgrave_make import (
    make_join,
    make_length,
    make_margin,
    make_reason,
    make_ruling,
    make_text,
)
from arbitre.rules.frostgrave_margins import REACH
from arbitre.rules.frostgrave_pair import PairMeasures, _base_reason, _large_reason
from arbitre.rules.frostgrave_windows import WindowKey
from arbitre.rules.ruling import LosRuling, Margin, Reason
from arbitre.rules.small_terrain import piece_bonus
from arbitre.table import Table, Terrain

#: The message ids of the words every plain pair may say (the same as the general way's).
_THROUGH = "centre line {shooter} -> {target} passes through {crossed}"
_NOTHING = "centre line {shooter} -> {target} passes through nothing"
_BEAM = "passes {gap} from {piece}: within the {beam} beam"
_NOT_SEEN = "{target} is not visible to {shooter}"
_CLEAR = Text("the centre line is clear: visible, no cover")
_F8 = "{model} has no base: its centre stands for it"
#: The margin of a pair ruled without margins (as the general way gives it).
_NO_MARGIN = Margin()


@lru_cache(maxsize=4096)
def _base_words(piece: str, joined: str | None, baseless: bool) -> tuple[Reason, str]:
    """The F2 reason of a base crossed (:func:`~arbitre.rules.frostgrave_pair._base_reason`)
    and its words in ``because``: a value of its arguments alone, kept for the next asks."""
    r = _base_reason(piece, joined, baseless=baseless)
    return r, f"F2 {' '.join(r.ids)}"


@lru_cache(maxsize=1024)
def _large_words(piece: Terrain) -> tuple[Reason, str]:
    """The reason of a large piece crossed (:func:`~arbitre.rules.frostgrave_pair._large_reason`)
    and its words in ``because``: a value of the piece alone, kept for the next asks."""
    r = _large_reason(piece)
    return r, f"{r.rule} {piece.id}"


@lru_cache(maxsize=4096)
def _bonus_words(target: str, piece: str, touches: bool, baseless: bool) -> tuple[int, Reason, str]:
    """F3/F4 (:func:`arbitre.rules.small_terrain.piece_bonus`) and the words in
    ``because``: a value of its arguments alone, kept for the next asks."""
    gained, r = piece_bonus(target, piece, touches=touches, baseless=baseless)
    return gained, r, f"{r.rule} {piece}"


@lru_cache(maxsize=1024)
def _f8_reason(model: str) -> Reason:
    """F8: a model without a base stands for its centre: a value of its id alone."""
    return Reason("F8", (model,), Text(_F8, (("model", model),)))


@lru_cache(maxsize=8192)
def _through_reason(shooter: str, target: str, crossed: tuple[str, ...]) -> Reason:
    """F1: the centre line's words (what it passes through, ``crossed`` in order): a
    value of its arguments alone, kept for the next asks (a model dragged leaves most
    lines crossing what they crossed)."""
    who = (("shooter", shooter), ("target", target))
    if crossed:
        crossing = ("crossed", make_join(crossed, ", ", ""))
        words = make_text(_THROUGH, (*who, crossing), None, None)
    else:
        words = make_text(_NOTHING, who, None, None)
    return make_reason("F1", (shooter, target), words)


@lru_cache(maxsize=8192)
def _unseen_reason(shooter: str, target: str, blockers: tuple[str, ...]) -> Reason:
    """F2: the target not visible, ``blockers`` in the way: a value of its arguments
    alone, kept for the next asks."""
    seen = make_text(_NOT_SEEN, (("target", target), ("shooter", shooter)), None, None)
    return make_reason("F2", blockers, seen)


@lru_cache(maxsize=8192)
def _clear_reason(shooter: str, target: str) -> Reason:
    """F1: the centre line clear: a value of its arguments alone, kept for the next asks."""
    return make_reason("F1", (shooter, target), _CLEAR)


def plain_rows(m: PairMeasures) -> list[int]:
    """The pairs of ``m`` whose shooter stands at no window (F5) and whose centre line
    does not come in through the side of a wall where the target stands at a window
    (F6): their target, at a window or not, is ruled by the centre line alone."""
    at = m.contacts
    if not at:
        return list(range(len(m.pairs)))
    ins = m.in_through
    return [
        i
        for i, (a, b) in enumerate(m.pairs)
        if a not in at and (b not in at or not any(t.crossed for t in ins[i]))
    ]


def _least_window(
    m: PairMeasures, who: str, tol: float, skip: frozenset[WindowKey] = frozenset()
) -> tuple[float, str] | None:
    """G8: the window contact test of ``who`` with the least slack (the first of equals),
    as the margin weighs them one by one; None when it has none of finite slack. The
    windows ``skip`` are left out: those ``who`` stands at as a target whose centre line
    does not come in through their side of the wall (only that side test decides)."""
    best: tuple[float, str] | None = None
    for w in m.window_gaps.get(who, ()):
        if skip and (w.wall, w.index) in skip:
            continue
        value = abs(float(w.gap - tol))
        if math.isfinite(value) and (best is None or value < best[0]):
            best = (value, f"window contact {who}-{w.wall}")
    return best


def _beam_and_words(
    m: PairMeasures,
) -> tuple[tuple[list[float], list[int]], tuple[list[float], list[int]], list[float]]:
    """From the near batches, in bulk: each pair's beam test of least slack (G8) among
    every piece of its near list, and among the pieces that are not small, as the margin
    takes them (the first of equal slacks in the list's order): its slack (infinite when
    none is finite) and its kernel piece; and each crossing's distance for the G5 words
    (nan where the near list has no such piece or it is met: no words)."""
    n = len(m.pairs)
    batch = m.batch
    assert batch is not None
    least = np.full((2, n), np.inf)
    piece_of = np.full((2, n), -1, np.int64)
    piece = batch.piece_array
    pair_of = np.repeat(np.arange(n), np.diff(batch.offsets_array))
    dist = np.full(len(piece), np.nan)
    for nb in m.near_batches:
        k, d, sl = nb.listed()
        value = np.abs(sl)
        value[np.isnan(value) | (k < 0)] = np.inf
        every_row = np.arange(len(value))
        for c, v in enumerate((value, np.where(nb.listed_small, np.inf, value))):
            arg = np.argmin(v, axis=1)
            least[c, nb.rows] = v[every_row, arg]
            piece_of[c, nb.rows] = k[every_row, arg]
        if len(nb.rows) == n:  # every pair in this batch, in order
            here = np.arange(len(piece))
            row = pair_of
        else:
            pos = np.full(n, -1, np.int64)
            pos[nb.rows] = np.arange(len(nb.rows))
            here = np.flatnonzero(pos[pair_of] >= 0)
            row = pos[pair_of[here]]
        if len(here):
            hit = k[row] == piece[here, None]
            col = np.argmax(hit, axis=1)
            found = hit[np.arange(len(here)), col]
            at = d[row, col]
            dist[here] = np.where(found & (at > 1e-7), at, np.nan)
    return (
        (least[0].tolist(), piece_of[0].tolist()),
        (least[1].tolist(), piece_of[1].tolist()),
        dist.tolist(),
    )


def rule_plain(
    table: Table,
    m: PairMeasures,
    rows: Sequence[int],
    shares: Sequence[float],
    *,
    close_call: float,
    margins: bool,
    fraction_reason: Callable[[str, str, float], Reason] | None,
) -> list[LosRuling]:
    """The rulings of pairs ``rows`` of ``m`` (each one of :func:`plain_rows`),
    ``shares[j]`` the S2 share of ``rows[j]`` (F9), ``fraction_reason`` its F9 reason
    when the option asks for it: the same rulings as the general way, made in one loop."""
    known = m.facts
    small, baseless = known.small, known.baseless
    touch, gaps = m.touch, m.gaps
    u = table.unit
    beam_words = u.measure(table.beam)
    unit, unit_mm = u.name, u.mm
    tol = table.contact_tolerance
    batch = m.batch
    assert batch is not None
    ids, nt = batch.ids, batch.n_terrain
    offsets, pieces, vias = batch.offsets, batch.piece, batch.via
    # what each kernel piece is: 0 a base (it blocks, F2), 1 small (F3, F4), 2 large
    role = [1 if p in small else 2 for p in ids[:nt]] + [0] * (len(ids) - nt)
    nothing: tuple[list[float], list[int]] = ([], [])
    every_beam, large_beam, dists = _beam_and_words(m) if margins else (nothing, nothing, [])
    # each reason a crossing gives, with its words in ``because`` (the pieces crossed are
    # never the pair's own ends, the F4 target aside: ``because`` leaves it out)
    larges: dict[int, tuple[Reason, str]] = {}
    bonuses: dict[tuple[str, int, bool], tuple[int, Reason, str]] = {}
    through, unseen, clear = _through_reason, _unseen_reason, _clear_reason
    beam_of = ("beam", beam_words)
    # G8: each end's window contact of least slack (none for a model far from windows)
    windows = {who: _least_window(m, who, tol) for who in m.window_gaps} if margins else {}
    # the same for a target at a window: its windows' side tests instead (F6)
    targets = {
        b: _least_window(m, b, tol, frozenset(c.key for c in cs))
        for b, cs in m.contacts.items()
        if margins
    }
    pairs, ins, joins = m.pairs, m.in_through, m.joins
    names = [ids[k] for k in pieces]  # each crossing's piece
    out: list[LosRuling] = []
    for i, share in zip(rows, shares, strict=True):
        a, b = pairs[i]
        lo, hi = offsets[i], offsets[i + 1]
        ks = pieces[lo:hi]
        said_f8 = a in baseless or b in baseless
        reasons: list[Reason] = []
        if said_f8:
            if a in baseless:
                reasons.append(_f8_reason(a))
            if b in baseless:
                reasons.append(_f8_reason(b))
        words_of = ["F8"] if said_f8 else []
        blockers: list[str] = []
        cover_pieces: list[str] = []
        cover = 0
        reasons.append(through(a, b, tuple(names[lo:hi])))
        for c, k in enumerate(ks):
            kind = role[k]
            if kind == 0:  # seldom the same base twice an ask: found among those kept
                v = vias[lo + c]
                piece = ids[k]
                reason, part = _base_words(piece, None if v < 0 else ids[v], piece in baseless)
                blockers.append(piece)
            elif kind == 1:
                key = (b, k, touch.get((b, ids[k]), False))
                made = bonuses.get(key)
                if made is None:
                    made = bonuses[key] = _bonus_words(b, ids[k], key[2], b in baseless)
                cover += made[0]
                reason, part = made[1], made[2]
                cover_pieces.append(ids[k])
            else:
                found = larges.get(k)
                if found is None:
                    found = larges[k] = _large_words(table.piece(ids[k]))
                reason, part = found
                blockers.append(ids[k])
            reasons.append(reason)
            words_of.append(part)
            if margins:
                d = dists[lo + c]
                if d == d:  # not nan: the beam touches a piece the line misses (G5)
                    length = ("gap", make_length(d, unit, unit_mm))
                    text = make_text(_BEAM, (length, ("piece", ids[k]), beam_of), None, None)
                    reasons.append(make_reason("G5", (ids[k],), text))
        visible = not blockers
        if not visible:  # cover means nothing for a target that cannot be seen
            if cover_pieces:
                reasons = [r for r in reasons if r.rule != "F3" and r.rule != "F4"]
                words_of = [w for w in words_of if w[:3] != "F3 " and w[:3] != "F4 "]
            reasons.append(unseen(a, b, tuple(blockers)))
        elif not cover_pieces and not ks:
            reasons.append(clear(a, b))
        if fraction_reason is not None:
            reasons.append(fraction_reason(a, b, share))
        margin = _NO_MARGIN
        if margins:
            best, name, arg = REACH, "beam", None  # the tests in the general way's order
            if windows:
                w = windows.get(a)
                if w is not None and w[0] < best:
                    best, name = w
                w = targets[b] if b in targets else windows.get(b)
                if w is not None and w[0] < best:
                    best, name = w
            for t in ins[i]:  # the target's windows, missed (F6)
                value = abs(float(t.slack))
                if value < best:  # a nan is never less
                    best, name = value, f"beam {t.contact.wall} beside window"
            slacks, near = every_beam if visible else large_beam
            if slacks[i] < best:  # an infinite slack (no piece) never is
                best, name = slacks[i], "beam " + ids[near[i]]
            if visible:
                for piece in cover_pieces:
                    g = gaps.get((b, piece))
                    if g is not None:
                        value = abs(float(g - tol))
                        if value < best:  # a nan is never less
                            best, name, arg = value, "contact {}-{}", (b, piece)
            for pq, gap in joins[i]:
                value = abs(float(gap - tol))
                if value < best:
                    best, name, arg = value, "contact {}-{}", pq
            if arg is not None:
                name = name.format(*arg)
            margin = make_margin(best, name, best < close_call)
        out.append(
            make_ruling(
                a,
                b,
                visible,
                cover if visible else 0,
                tuple(reasons),
                round(share, 6),
                tuple(blockers) if len(blockers) < 2 else tuple(dict.fromkeys(blockers)),
                tuple(dict.fromkeys(cover_pieces)) if visible else (),
                None,  # witness
                (),  # refusals
                (", ".join(dict.fromkeys(words_of)) if len(words_of) > 1 else words_of[0])
                if words_of
                else "clear",
                margin,
            )
        )
    return out
