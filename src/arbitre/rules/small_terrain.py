"""Small terrain cover: the F3/F4 bonus shared by Frostgrave (F3-F4) and the breath
weapons (B6).

F3: each small terrain piece (``sight: cover``) the centre line from the shooter to the
target passes through (S1, G5 beam rule) gives +1. F4: a crossed piece the target's base
touches (G4, :func:`arbitre.sight.touching`) gives +3 instead of +1. Large pieces and
bases are not looked at here: what blocks a line is each ruleset's own question (F2 for
Frostgrave; nothing for a breath, B3). :func:`piece_bonus` is the one wording of a piece's
bonus; :func:`cover_bonuses` rules whole lines (B6).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arbitre import sight
from arbitre.i18n import T_
from arbitre.rules.ruling import Reason
from arbitre.table import Table


@dataclass(frozen=True, slots=True)
class CoverBonus:
    """The F3-F4 bonus of one centre line, the small pieces giving it, and why."""

    shooter: str
    target: str
    bonus: int
    pieces: tuple[str, ...]
    reasons: tuple[Reason, ...]


def cover_bonuses(table: Table, pairs: Sequence[tuple[str, str]]) -> list[CoverBonus]:
    """F3-F4 for each ``(shooter, target)`` pair of model ids, in the order given."""
    if not pairs:
        return []
    lines = sight.centre_lines(table, pairs)
    crossed = {
        (line.target, c.piece)
        for line in lines
        for c in line.crossings
        if not c.is_model and not table.piece(c.piece).blocks
    }
    # G4 on the rows and columns asked only: the whole matrix costs far more on a big table
    rows = {m: i for i, m in enumerate(sorted({m for m, _ in crossed}))}
    cols = {p: j for j, p in enumerate(sorted({p for _, p in crossed}))}
    terrain = {t.id: k for k, t in enumerate(table.terrain)}
    near = sight.touching(
        table, models=[table.model_index(m) for m in rows], pieces=[terrain[p] for p in cols]
    )
    out = []
    for line in lines:
        bonus, pieces, reasons = 0, [], []
        for c in line.crossings:
            if (line.target, c.piece) not in crossed:
                continue
            pieces.append(c.piece)
            touches = bool(near[rows[line.target], cols[c.piece]])
            baseless = table.model(line.target).base.radius <= 0
            gained, reason = piece_bonus(line.target, c.piece, touches=touches, baseless=baseless)
            bonus += gained
            reasons.append(reason)
        out.append(CoverBonus(line.shooter, line.target, bonus, tuple(pieces), tuple(reasons)))
    return out


def piece_bonus(
    target: str, piece: str, *, touches: bool, baseless: bool = False
) -> tuple[int, Reason]:
    """The bonus one small piece on the centre line gives ``target``, and why: +1 (F3), or
    +3 when the target touches it (F4, replacing that piece's +1); a ``baseless`` target
    touches it with its centre (F8)."""
    if touches and baseless:
        text = T_(
            "{target} is behind small terrain {piece} and {target}'s centre (no base, F8) "
            "touches it: +3",
            target=target,
            piece=piece,
        )
        return 3, Reason("F4", (target, piece), text)
    if touches:
        text = T_(
            "{target} is behind small terrain {piece} and touches it: +3",
            target=target,
            piece=piece,
        )
        return 3, Reason("F4", (target, piece), text)
    return 1, Reason(
        "F3", (piece,), T_("the line passes through small terrain {piece}: +1", piece=piece)
    )
