"""Frostgrave house rule for lines of sight and cover (F1-F9, seed 000).

The line of sight is the centre line (F1, S1). A large piece or another model's base on
it blocks (F2); each small piece on it gives +1 (F3), +3 when the target touches it
(F4). Walls block even through their windows (F7), except that a model touching a wall
at a window sees from that window: the line may leave through it, every other wall
crossing still blocking, and its targets get +1 for the wall (F5); and a model touching
a wall at a window can be shot by whoever sees the window, with +3 (F6). Models without
a base use their centre (F8); the visible share of the base (S2) is reported beside
(F9). Each ruling carries its G8 margin (:mod:`arbitre.rules.frostgrave_margins`).

:func:`matrix` rules every ordered pair of a table at once (the fast path);
:func:`rulings` explains the pairs asked. Both agree, pair by pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arbitre import collector, progress, sight
from arbitre.i18n import N_, T_, Num, Text, tr
from arbitre.rules import schema
from arbitre.rules.declared import (
    FrostgraveOptions as FrostgraveOptions,  # the registry reads it light
)
from arbitre.rules.frostgrave_margins import index_for, opening_groups
from arbitre.rules.frostgrave_pair import (
    PairMeasures,
    Tally,
    measure_pairs,
    model_rows,
    rule_pair,
)
from arbitre.rules.frostgrave_plain import plain_rows, rule_plain
from arbitre.rules.frostgrave_windows import WindowContact, WindowKey, window_contacts
from arbitre.rules.options import read_options, shared_options
from arbitre.rules.registry import Question, Ruleset, questions
from arbitre.rules.requests import LosRequest
from arbitre.rules.ruling import LosRuling, Margin, Reason
from arbitre.table import Table

__all__ = [
    "FrostgraveMatrix",
    "FrostgraveOptions",
    "WindowContact",
    "because",
    "matrix",
    "rulings",
    "window_contacts",
]


@dataclass(frozen=True, slots=True)
class FrostgraveMatrix:
    """Every ordered pair at once: ``visible[s, t]`` and ``cover[s, t]`` by model index."""

    ids: tuple[str, ...]
    visible: np.ndarray
    cover: np.ndarray


def matrix(table: Table) -> FrostgraveMatrix:
    """F1-F7 for every ordered pair of models, batched (the diagonal is False / 0)."""
    shared_options(table)  # the kernels read grazing_blocks: refuse a bad value here
    n = len(table.models)
    ids = tuple(m.id for m in table.models)
    visible = np.zeros((n, n), dtype=np.bool_)
    cover = np.zeros((n, n), dtype=np.int16)
    if n < 2:
        return FrostgraveMatrix(ids, visible, cover)
    ix = sight.sight_index(table)
    # F3/F4 weights: each small piece crossed is worth 1, or 3 to a target touching it
    weights = np.zeros((n, len(ix.ids)))
    small = ~ix.blocks[: ix.n_terrain]
    weights[:, : ix.n_terrain] = np.where(small, 1 + 2 * sight.touching(table, index=ix), 0)
    stop, total = sight.all_pairs(table, stops=ix.blocks, weights=weights, index=ix)
    visible = stop < 0
    np.fill_diagonal(visible, False)
    cover = np.where(visible, total, 0).astype(np.int16)
    # F5/F6 change only pairs whose shooter or target stands at a window: a shooter
    # sees from its window (the window opened, F5), a target at a window is seen through
    # it whatever lies on the centre line (F6); those few pairs are ruled one by one
    redo: set[tuple[int, int]] = set()
    for model in window_contacts(table):
        i = table.model_index(model)
        redo.update((i, b) for b in range(n) if b != i)
        redo.update((a, i) for a in range(n) if a != i)
    if redo:
        order = sorted(redo)
        asked = [(ids[a], ids[b]) for a, b in order]
        redone = _rulings(
            table,
            asked,
            read_options(FrostgraveOptions, table.options),
            fractions=False,
            margins=False,
        )
        for ruling, (a, b) in zip(redone, order, strict=True):
            visible[a, b] = ruling.visible
            cover[a, b] = ruling.cover
    return FrostgraveMatrix(ids, visible, cover)


def rulings(
    table: Table,
    pairs: Sequence[tuple[str, str]],
    *,
    options: FrostgraveOptions | None = None,
    margins: bool = True,
) -> list[LosRuling]:
    """F1-F9 for each ``(shooter, target)`` pair, each ruling with its reasons and its G8
    margin (unless ``margins`` is false: then ``NO_MARGIN`` and no G5 words), under
    ``options`` (default: the table's)."""
    opts = options or read_options(FrostgraveOptions, table.options)
    return _rulings(table, pairs, opts, fractions=True, margins=margins)


def _rulings(
    table: Table,
    pairs: Sequence[tuple[str, str]],
    opts: FrostgraveOptions,
    *,
    fractions: bool,
    margins: bool,
    plain: bool = True,
) -> list[LosRuling]:
    """The rulings; without ``fractions`` the S2 share is not measured (nan), without
    ``margins`` the G8 margin is not (the matrix's window pairs). The pairs away from the
    windows (``frostgrave_plain.plain_rows``) are ruled in one pass
    (:mod:`arbitre.rules.frostgrave_plain`) unless ``plain`` is false (the general way
    for every pair: the tests' oracle)."""
    rows = model_rows(table, pairs)
    if not pairs:
        return []
    close = shared_options(table).close_call
    # called directly (not through ``ask``, which holds the collector off around the
    # whole question), measured with the collector running: the first call of a process
    # loads the kernels here (numba's modules, ~100,000 objects)
    m = measure_pairs(table, pairs, margins=margins, rows=rows)
    shares = np.full(len(pairs), np.nan)
    if fractions:
        shares = _fractions(table, pairs, m)
    every = shares.tolist()
    # the collector paused: only objects of the rulings are made meanwhile
    with collector.paused():
        out: list[LosRuling | None] = [None] * len(pairs)
        plains = plain_rows(m) if plain else []
        if plains:  # the pairs away from the windows, in one pass

            def f9(a: str, b: str, share: float) -> Reason:
                return Reason("F9", (b,), _fraction_words(table, a, b, share))

            ruled = rule_plain(
                table,
                m,
                plains,
                [every[i] for i in plains],
                close_call=close,
                margins=margins,
                fraction_reason=f9 if opts.visible_fraction else None,
            )
            if len(ruled) == len(pairs):  # every pair plain: the rulings in order
                return ruled
            for i, ruling in zip(plains, ruled, strict=True):
                out[i] = ruling
        with progress.steps(len(pairs), lambda: tr(N_("ruling the lines of sight"))) as advance:
            advance(len(plains))
            for i, share in enumerate(every):
                if out[i] is not None:
                    continue
                rule = rule_pair(table, m, i, close_call=close, margins=margins)
                out[i] = _ruling(table, opts, m, i, share, rule.tally, rule.margin)
                advance()
    return [r for r in out if r is not None]


def _fractions(table: Table, pairs: Sequence[tuple[str, str]], m: PairMeasures) -> np.ndarray:
    """S2 for each pair (F9): the shooter's windows open for its lines (F5), the target's
    windows open (F6)."""
    s, g = m.s, m.g
    # the pairs by the windows open for them: one batch each (each pair's share is its own)
    opened: dict[frozenset[WindowKey], list[np.ndarray]] = {}
    seen = {b: frozenset(c.key for c in cs) for b, cs in m.contacts.items()}
    at = np.zeros(len(table.models), dtype=np.bool_)
    at[[table.model_index(b) for b in seen]] = True
    hit = at[g]  # the pairs whose target stands at a window
    for keys, rows in m.groups or opening_groups(m.openings):
        rest = rows[~hit[rows]]
        if len(rest):
            opened.setdefault(keys, []).append(rest)
    windowed: dict[frozenset[WindowKey], list[int]] = {}
    for i in np.flatnonzero(hit).tolist():
        windowed.setdefault(m.openings[i] | seen[pairs[i][1]], []).append(i)
    for keys, more in windowed.items():
        opened.setdefault(keys, []).append(np.asarray(more, dtype=np.int64))
    shares = np.full(len(pairs), np.nan)
    for keys, parts in opened.items():
        rows = parts[0] if len(parts) == 1 else np.concatenate(parts)
        ix = index_for(table, keys, m.indexes)
        shares[rows] = sight.visible_fraction_batch(table, s[rows], g[rows], index=ix)
    return shares


def _ruling(
    table: Table,
    opts: FrostgraveOptions,
    m: PairMeasures,
    i: int,
    fraction: float,
    tally: Tally,
    margin: Margin,
) -> LosRuling:
    """The ruling from what the crossings gave: visible when nothing blocks (F2), the
    cover dropped otherwise, the F1 and F9 words, the G8 margin."""
    a, b = m.pairs[i]
    visible = not tally.blockers
    reasons = tally.reasons
    if not visible:  # cover means nothing for a target that cannot be seen
        reasons = [r for r in reasons if r.rule not in {"F3", "F4"}]
    if visible and not tally.cover_pieces and not m.lines[i].crossings:
        reasons.append(Reason("F1", (a, b), T_("the centre line is clear: visible, no cover")))
    elif not visible:
        text = T_("{target} is not visible to {shooter}", target=b, shooter=a)
        reasons.append(Reason("F2", tuple(tally.blockers), text))
    if opts.visible_fraction:
        reasons.append(Reason("F9", (b,), _fraction_words(table, a, b, fraction)))
    return LosRuling(
        shooter=a,
        target=b,
        visible=visible,
        cover=tally.cover if visible else 0,
        reasons=tuple(reasons),
        visible_fraction=round(fraction, 6),
        blockers=tuple(dict.fromkeys(tally.blockers)),
        cover_pieces=tuple(dict.fromkeys(tally.cover_pieces)) if visible else (),
        because=because(a, b, reasons),
        margin=margin,
    )


def _fraction_words(table: Table, a: str, b: str, fraction: float) -> Text:
    """F9 in words; a target without a base is its centre (F8)."""
    if table.model(b).base.radius <= 0:
        if fraction > 0:
            return T_(
                "{target} has no base: its centre is seen from {shooter}'s centre (F8)",
                target=b,
                shooter=a,
            )
        return T_(
            "{target} has no base: its centre is not seen from {shooter}'s centre (F8)",
            target=b,
            shooter=a,
        )
    share = Num(fraction * 100, ".0f")  # the same digits as f"{fraction:.0%}"
    return T_(
        "{share}% of {target}'s base is visible from {shooter}'s centre",
        share=share,
        target=b,
        shooter=a,
    )


def because(shooter: str, target: str, reasons: Sequence[Reason]) -> str:
    """The deciding reasons in a few words, for tables and pictures: each rule ID with the
    pieces it involves (the shooter and the target left out), ``"clear"`` when none. The
    centre line (F1), the beam's words (G5), the visible share (F9) and the F2 summary
    are not deciding."""
    parts = []
    for r in reasons:
        rule = r.rule
        if rule in _NOT_DECIDING or (rule == "F2" and _summary(r)):
            continue
        ids = " ".join([i for i in r.ids if i != shooter and i != target])
        parts.append(f"{rule} {ids}".strip())
    return ", ".join(dict.fromkeys(parts)) or "clear"


#: The reasons :func:`because` leaves out (the F2 summary too).
_NOT_DECIDING = frozenset({"F1", "F9", "G5"})


def _summary(reason: Reason) -> bool:
    """The F2 summary ("... is not visible to ..."), whatever the language it is read in."""
    message = reason.message
    if isinstance(message, Text):
        return message.msgid == "{target} is not visible to {shooter}"
    return "not visible" in message


def _los(table: Table, request: LosRequest, *, options: FrostgraveOptions) -> list[LosRuling]:
    """The ``los`` question: F1-F9 for the pairs asked."""
    return rulings(table, request.pairs_on(table), options=options)


RULESET = Ruleset(
    name="frostgrave",
    title=N_("Frostgrave house rule for lines of sight and cover (F1-F9)"),
    aliases=("fg", "frost"),
    options=FrostgraveOptions,
    questions=questions(
        Question(
            "los", N_("Lines of sight and cover (F1-F9)"), LosRequest, _los, schema=schema.LOS
        ),
    ),
    sight="S1",
)
