"""The F3-F4 cover bonus of a centre line, shared by the rulesets that need it.

F3: each small terrain piece (``sight: cover``) the centre line from the shooter to the
target passes through (S1, G5 beam rule) gives +1. F4: a crossed piece the target's base
touches (G4) gives +3 instead of +1. Large pieces and bases are not looked at here: what
blocks a line is each ruleset's own question (F2 for Frostgrave; nothing for a breath,
B3). The breath ruleset uses it for B6 and Frostgrave for F3-F4 (:func:`piece_bonus`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arbitre import backend, sight
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
    touch = _touching(table, crossed)
    out = []
    for line in lines:
        bonus, pieces, reasons = 0, [], []
        for c in line.crossings:
            if (line.target, c.piece) not in crossed:
                continue
            pieces.append(c.piece)
            gained, reason = piece_bonus(line.target, c.piece, touches=touch[line.target, c.piece])
            bonus += gained
            reasons.append(reason)
        out.append(CoverBonus(line.shooter, line.target, bonus, tuple(pieces), tuple(reasons)))
    return out


def piece_bonus(target: str, piece: str, *, touches: bool) -> tuple[int, Reason]:
    """The bonus one small piece on the centre line gives ``target``, and why: +1 (F3), or
    +3 when the target touches it (F4, replacing that piece's +1)."""
    if touches:
        return 3, Reason(
            "F4", (target, piece), f"{target} is behind small terrain {piece} and touches it: +3"
        )
    return 1, Reason("F3", (piece,), f"the line passes through small terrain {piece}: +1")


def _touching(table: Table, asked: set[tuple[str, str]]) -> dict[tuple[str, str], bool]:
    """G4 for the (model, terrain) pairs asked only: :func:`sight.touching` restricted to
    their rows and columns (the whole matrix costs far more on a large table)."""
    if not asked:
        return {}
    ix = sight.sight_index(table)
    models = sorted({m for m, _ in asked})
    pieces = sorted({p for _, p in asked})
    rows = [table.model(m) for m in models]
    cols = np.array([ix.ids.index(p) for p in pieces], dtype=np.int64)
    xy = np.array([[m.at.x, m.at.y] for m in rows], dtype=np.float64)
    radii = np.array([m.base.radius for m in rows], dtype=np.float64)
    gaps = backend.kernels(len(rows) * len(cols)).gaps(
        xy, radii, cols, ix.kind, ix.disc, ix.eoff, ix.edges
    )
    near = gaps <= table.contact_tolerance + backend.interpreted().EPS
    return {(m, p): bool(near[i, j]) for i, m in enumerate(models) for j, p in enumerate(pieces)}
