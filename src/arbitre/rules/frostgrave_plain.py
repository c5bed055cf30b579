"""Frostgrave pairs away from every window, ruled in one pass (issue 16).

Most pairs of a table have neither their shooter nor their target at a window: no window
opens for their lines (F5), none lets the target be shot through it (F6), and a wall
crossing blocks as any large piece does (F7). Their ruling is then the crossings of the
centre line read in order (F2-F4, F8) with the G5 words, and a margin (G8) of the beam
tests, the window contacts of both ends, the F4 contacts and the G4 joins near the line.

:func:`rule_plain` rules those pairs as :func:`arbitre.rules.frostgrave_pair.rule_pair`
and ``frostgrave._ruling`` do, reason for reason and test for test, but in one loop with
what every pair shares made once: the reasons of each piece and each model, their
:func:`arbitre.rules.frostgrave.because` words, each model's nearest window contact, the
words of the beam. The pairs at a window go the general way.
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


def plain_rows(m: PairMeasures) -> list[int]:
    """The pairs of ``m`` whose shooter and target stand at no window (F5, F6)."""
    at = m.contacts
    if not at:
        return list(range(len(m.pairs)))
    return [i for i, (a, b) in enumerate(m.pairs) if a not in at and b not in at]


def _least_window(m: PairMeasures, who: str, tol: float) -> tuple[float, str] | None:
    """G8: the window contact test of ``who`` with the least slack (the first of equals),
    as the margin weighs them one by one; None when it has none of finite slack."""
    best: tuple[float, str] | None = None
    for w in m.window_gaps.get(who, ()):
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
    piece = np.asarray(batch.piece, np.int64)
    counts: np.ndarray = np.diff(np.asarray(batch.offsets, np.int64))
    pair_of = np.repeat(np.arange(n), counts)
    dist = np.full(len(piece), np.nan)
    for nb in m.near_batches:
        k, d, sl = nb.listed()
        value = np.abs(sl)
        value[np.isnan(value) | (k < 0)] = np.inf
        every_row = np.arange(len(value))
        for c, v in enumerate((value, np.where(nb.small[np.maximum(k, 0)], np.inf, value))):
            arg = np.argmin(v, axis=1)
            least[c, nb.rows] = v[every_row, arg]
            piece_of[c, nb.rows] = k[every_row, arg]
        pos = np.full(n, -1, np.int64)
        pos[nb.rows] = np.arange(len(nb.rows))
        here = np.flatnonzero(pos[pair_of] >= 0)
        if len(here):
            row = pos[pair_of[here]]
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
    """The rulings of pairs ``rows`` of ``m`` (each at no window, :func:`plain_rows`),
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
    f8 = {who: Reason("F8", (who,), Text(_F8, (("model", who),))) for who in baseless}
    # each reason a crossing gives, with its words in ``because`` (the pieces crossed are
    # never the pair's own ends, the F4 target aside: ``because`` leaves it out)
    bases: dict[tuple[int, int], tuple[Reason, str]] = {}
    larges: dict[int, tuple[Reason, str]] = {}
    bonuses: dict[tuple[str, int, bool], tuple[int, Reason, str]] = {}
    # the words' parameters every pair of a model, or every crossing of a piece, shares
    shooter_of: dict[str, tuple[str, str]] = {}
    target_of: dict[str, tuple[str, str]] = {}
    piece_of = [("piece", p) for p in ids]
    beam_of = ("beam", beam_words)
    windows: dict[str, tuple[float, str] | None] = {}
    out: list[LosRuling] = []
    for i, share in zip(rows, shares, strict=True):
        a, b = m.pairs[i]
        lo, hi = offsets[i], offsets[i + 1]
        ks = pieces[lo:hi]
        said_f8 = a in baseless or b in baseless
        reasons: list[Reason] = []
        if said_f8:
            if a in baseless:
                reasons.append(f8[a])
            if b in baseless:
                reasons.append(f8[b])
        words_of = ["F8"] if said_f8 else []
        blockers: list[str] = []
        cover_pieces: list[str] = []
        cover = 0
        shooter = shooter_of.get(a)
        if shooter is None:
            shooter = shooter_of[a] = ("shooter", a)
        target = target_of.get(b)
        if target is None:
            target = target_of[b] = ("target", b)
        crossed = tuple([ids[k] for k in ks])
        if crossed:
            crossing = ("crossed", make_join(crossed, ", ", ""))
            words = make_text(_THROUGH, (shooter, target, crossing), None, None)
        else:
            words = make_text(_NOTHING, (shooter, target), None, None)
        reasons.append(make_reason("F1", (a, b), words))
        for c, k in enumerate(ks):
            kind = role[k]
            if kind == 0:
                v = vias[lo + c]
                found = bases.get((k, v))
                if found is None:
                    piece = ids[k]
                    found = bases[(k, v)] = _base_words(
                        piece, None if v < 0 else ids[v], piece in baseless
                    )
                reason, part = found
                blockers.append(reason.ids[0])
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
                    text = make_text(_BEAM, (length, piece_of[k], beam_of), None, None)
                    reasons.append(make_reason("G5", (ids[k],), text))
        visible = not blockers
        if not visible:  # cover means nothing for a target that cannot be seen
            if cover_pieces:
                reasons = [r for r in reasons if r.rule != "F3" and r.rule != "F4"]
                words_of = [w for w in words_of if w[:3] != "F3 " and w[:3] != "F4 "]
            seen = make_text(_NOT_SEEN, (target, shooter), None, None)
            reasons.append(make_reason("F2", tuple(blockers), seen))
        elif not cover_pieces and not ks:
            reasons.append(make_reason("F1", (a, b), _CLEAR))
        if fraction_reason is not None:
            reasons.append(fraction_reason(a, b, share))
        margin = _NO_MARGIN
        if margins:
            best, name, arg = REACH, "beam", None  # the tests in the general way's order
            for who in (a, b):
                if who not in windows:
                    windows[who] = _least_window(m, who, tol)
                w = windows[who]
                if w is not None and w[0] < best:
                    best, name = w
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
            for pq, gap in m.joins[i]:
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
                tuple(dict.fromkeys(blockers)),
                tuple(dict.fromkeys(cover_pieces)) if visible else (),
                None,  # witness
                (),  # refusals
                ", ".join(dict.fromkeys(words_of)) if words_of else "clear",
                margin,
            )
        )
    return out
