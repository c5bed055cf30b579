"""M1 and M8: who is seen and who is in cover, from the sight measures (S2).

:func:`measure` asks :mod:`arbitre.sight`, for each ``(shooter, target)`` pair, the share
of the target's base the shooter sees past blocking terrain and other models' bases (M1),
the share left when every terrain piece hides as well (M8), the pieces that hide part of
it, and the M6 distances. :func:`seen_reason` and :func:`cover` word M1 and M8 from those
facts; :func:`los_rulings` answers the ``los`` question.

**Decision (G6, M5):** on a one-level table a building is a solid footprint, so a model
``inside`` a building could see nothing out of it. The building a shooter stands in
therefore hides none of its lines (it shoots out of the ruin), and the building a target
stands in does not stop it being seen (M1); being inside a building other than the
shooter's is cover on its own (M8: the building hides part of it), so it is left out of
the M8 share too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arbitre import sight
from arbitre.errors import RulesError
from arbitre.rules.ruling import LosRuling, Reason
from arbitre.table import Model, Table

#: Shares within this of 0 or 1 count as 0 or 1 (the kernels' float arithmetic).
SHARE_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class PairSight:
    """What a shooter sees of a target (S2), and how far it is (M6), in mm.

    ``seen``: S2 with blocking terrain and other bases hiding (M1). ``exposed``: S2 with
    every terrain piece and other bases hiding (M8). ``blockers``: the pieces among the
    M1 hiders that hide some of the target; ``hiders``: the same among the M8 hiders.
    ``ignored``: the buildings left out because the shooter or the target stands in them.
    """

    shooter: str
    target: str
    seen: float
    exposed: float
    blockers: tuple[str, ...]
    hiders: tuple[str, ...]
    ignored: tuple[str, ...]
    centre_distance: float
    edge_distance: float

    @property
    def visible(self) -> bool:
        """M1: some part of the target's base is visible (S2 > 0)."""
        return self.seen > SHARE_EPS

    @property
    def partly_hidden(self) -> bool:
        """M8: some part of the target is hidden by terrain or another model (S2 < 1)."""
        return self.exposed < 1.0 - SHARE_EPS


def measure(table: Table, pairs: Sequence[tuple[str, str]]) -> list[PairSight]:
    """The :class:`PairSight` of each ``(shooter, target)`` pair of model ids."""
    if not pairs:
        return []
    ix = sight.sight_index(table)
    n = len(ix.ids)
    s = np.asarray([table.model_index(a) for a, _ in pairs], dtype=np.int64)
    g = np.asarray([table.model_index(b) for _, b in pairs], dtype=np.int64)
    ignored = [_buildings(table, a, b) for a, b in pairs]
    m1 = np.repeat(ix.blocks[None, :], len(pairs), axis=0)
    m8 = np.ones((len(pairs), n), dtype=np.bool_)
    for i, ids in enumerate(ignored):
        for ident in ids:
            k = ix.ids.index(ident)
            m1[i, k] = m8[i, k] = False
    seen = _shares(table, ix, s, g, m1)
    exposed = _shares(table, ix, s, g, m8)
    # which pieces hide part of the target: each piece alone, for the pairs it may touch
    asks = np.zeros(len(pairs), dtype=np.bool_)
    asks |= seen <= SHARE_EPS
    asks |= exposed < 1.0 - SHARE_EPS
    part = np.zeros((len(pairs), n), dtype=np.bool_)
    near = _near(table, ix, s, g) & m8 & asks[:, None]
    for k in map(int, np.flatnonzero(near.any(axis=0))):
        rows = np.flatnonzero(near[:, k])
        alone = np.zeros(n, dtype=np.bool_)
        alone[k] = True
        share = sight.visible_fraction_batch(table, s[rows], g[rows], hides=alone, index=ix)
        part[rows, k] = share < 1.0 - SHARE_EPS
    out = []
    for i, (a, b) in enumerate(pairs):
        sa, tb = table.model(a), table.model(b)
        centre = sa.at.distance(tb.at)
        hidden = np.flatnonzero(part[i])
        out.append(
            PairSight(
                shooter=a,
                target=b,
                seen=_clip(seen[i]),
                exposed=_clip(exposed[i]),
                blockers=tuple(ix.ids[k] for k in hidden if m1[i, k])
                if seen[i] <= SHARE_EPS
                else (),
                hiders=tuple(ix.ids[k] for k in hidden),
                ignored=ignored[i],
                centre_distance=centre,
                edge_distance=max(0.0, centre - sa.base.radius - tb.base.radius),
            )
        )
    return out


def _buildings(table: Table, a: str, b: str) -> tuple[str, ...]:
    """The buildings the shooter and the target stand in (checked by the ruleset)."""
    found = (table.model(a).inside, table.model(b).inside)
    return tuple(dict.fromkeys(i for i in found if i is not None and i in table))


def _shares(
    table: Table, ix: sight.SightIndex, s: np.ndarray, g: np.ndarray, masks: np.ndarray
) -> np.ndarray:
    """S2 for each pair with its own hiding mask: one batch per distinct mask."""
    out = np.empty(len(s))
    groups: dict[bytes, list[int]] = {}
    for i in range(len(s)):
        groups.setdefault(masks[i].tobytes(), []).append(i)
    for rows in groups.values():
        r = np.asarray(rows, dtype=np.int64)
        out[r] = sight.visible_fraction_batch(table, s[r], g[r], hides=masks[rows[0]], index=ix)
    return out


def _near(table: Table, ix: sight.SightIndex, s: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``[pair, piece]``: the piece's box meets the box of the shooter's centre and the
    target's base, widened by the beam. A piece outside it cannot hide any of the target
    (the lines from the centre to the base stay in their convex hull): a broad phase."""
    xyr = np.column_stack(sight.positions(table))
    a, t = xyr[s], xyr[g]
    pad = ix.half + 1e-6
    lo_x = np.minimum(a[:, 0], t[:, 0] - t[:, 2]) - pad
    hi_x = np.maximum(a[:, 0], t[:, 0] + t[:, 2]) + pad
    lo_y = np.minimum(a[:, 1], t[:, 1] - t[:, 2]) - pad
    hi_y = np.maximum(a[:, 1], t[:, 1] + t[:, 2]) + pad
    box = ix.bbox
    hit: np.ndarray = (
        (box[None, :, 0] <= hi_x[:, None])
        & (box[None, :, 2] >= lo_x[:, None])
        & (box[None, :, 1] <= hi_y[:, None])
        & (box[None, :, 3] >= lo_y[:, None])
    )
    hit[np.arange(len(s)), s + ix.n_terrain] = False  # a line never meets its own ends
    hit[np.arange(len(s)), g + ix.n_terrain] = False
    return hit


def _clip(share: float) -> float:
    """A share rounded to 0 or 1 within :data:`SHARE_EPS`, else to 6 decimals."""
    if share <= SHARE_EPS:
        return 0.0
    if share >= 1.0 - SHARE_EPS:
        return 1.0
    return round(float(share), 6)


# -- M1, M8 in words, and the line-of-sight question ----------------------------------------


def check_buildings(table: Table) -> None:
    """M5: a model's ``inside`` must name a building of the table (an error otherwise)."""
    problems = building_problems(table)
    if problems:
        raise RulesError(problems[0])


def building_problems(table: Table) -> list[str]:
    """M5: every model whose ``inside`` names no building of the table, and why."""
    pieces = {t.id: t for t in table.terrain}
    found = []
    for m in table.models:
        if m.inside is None:
            continue
        if m.inside not in pieces:
            known = ", ".join(t.id for t in table.terrain if t.building) or "none"
            found.append(
                f"model {m.id!r} inside: unknown terrain id {m.inside!r} (buildings: {known})"
            )
        elif not pieces[m.inside].building:
            found.append(
                f"model {m.id!r} inside: terrain {m.inside!r} is not a building "
                "(give it building: true)"
            )
    return found


def seen_reason(table: Table, f: PairSight) -> Reason:
    """M1: whether the shooter sees some of the target (S2 > 0, blocking pieces hiding)."""
    a, b = f.shooter, f.target
    inside = "".join(
        f"; {b} does not hide: {a if table.model(a).inside == b else f.target} stands in it"
        for b in f.ignored
    )
    if f.visible:
        return Reason(
            "M1",
            (a, b),
            f"{a} sees {f.seen:.0%} of {b}'s base past blocking terrain and other models{inside}",
        )
    by = ", ".join(f.blockers) or "blocking terrain and models"
    return Reason("M1", (a, b, *f.blockers), f"{b} is not visible to {a}: hidden by {by}")


def cover(s: Model, t: Model, f: PairSight) -> tuple[bool, tuple[str, ...], Reason]:
    """M8: in cover when terrain (any piece) or another model hides part of the target;
    by decision, a target inside a building other than the shooter's is in cover."""
    building = t.inside if t.inside is not None and t.inside != s.inside else None
    pieces = (*f.hiders, *((building,) if building and building not in f.hiders else ()))
    parts = []
    if f.partly_hidden:
        parts.append(f"{1 - f.exposed:.0%} of {t.id}'s base is hidden by {', '.join(f.hiders)}")
    if building:
        parts.append(f"{t.id} stands inside building {building}")
    if not parts:
        return False, (), Reason("M8", (t.id,), f"nothing hides any part of {t.id}: no cover")
    return True, pieces, Reason("M8", (t.id, *pieces), f"in cover: {'; '.join(parts)}")


def because(visible: bool, blockers: Sequence[str], cover_pieces: Sequence[str]) -> str:
    """The deciding reasons of a line of sight in a few words: ``M1 wall`` (not seen, and
    what hides it), ``M8 fence`` (in cover, and what gives it), ``clear`` otherwise."""
    if not visible:
        return " ".join(("M1", *blockers))
    if cover_pieces:
        return " ".join(("M8", *cover_pieces))
    return "clear"


def los_rulings(table: Table, pairs: Sequence[tuple[str, str]]) -> list[LosRuling]:
    """M1 and M8 for each ``(shooter, target)`` pair: visible when the shooter sees some of
    the target's base, and ``cover`` 1 when the target is in cover (the M7 -1); a target
    not seen has the M1 reason as its refusal."""
    check_buildings(table)
    for a, b in pairs:
        table.model(a)
        table.model(b)
        if a == b:
            raise RulesError(f"a model does not shoot itself: {a!r}")
    out = []
    for f in measure(table, list(pairs)):
        s, t = table.model(f.shooter), table.model(f.target)
        seen = seen_reason(table, f)
        reasons = [seen]
        in_cover, pieces, reason = cover(s, t, f)
        if f.visible:
            reasons.append(reason)
        shown = pieces if f.visible and in_cover else ()
        out.append(
            LosRuling(
                shooter=f.shooter,
                target=f.target,
                visible=f.visible,
                cover=int(f.visible and in_cover),
                reasons=tuple(reasons),
                visible_fraction=f.seen,
                blockers=f.blockers,
                cover_pieces=shown,
                refusals=() if f.visible else (seen,),
                because=because(f.visible, f.blockers, shown),
            )
        )
    return out
