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

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import shapely

from arbitre import bounded, sight, sight_rows
from arbitre.errors import RulesError
from arbitre.geometry import WallFootprint
from arbitre.i18n import N_, T_, Num, Text, join, semicolons
from arbitre.rules.frostgrave_make import replacer
from arbitre.rules.mordheim import kept, margins
from arbitre.rules.mordheim.margins import NO_SLACK, Slack
from arbitre.rules.mordheim.values import MordheimOptions
from arbitre.rules.options import shared_options
from arbitre.rules.ruling import LosRuling, Margin, Reason
from arbitre.table import Model, Table, Terrain

#: M12: a wall's windows are openings (``open``, the default) or part of the wall.
Windows = Literal["open", "closed"]

#: Shares within this of 0 or 1 count as 0 or 1 (the kernels' float arithmetic).
SHARE_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class PairSight:
    """What a shooter sees of a target (S2), and how far it is (M6), in mm.

    ``seen``: S2 with blocking terrain and other bases hiding (M1). ``exposed``: S2 with
    every terrain piece and other bases hiding (M8). ``blockers``: the pieces among the
    M1 hiders that hide some of the target when it is not seen, ``partial`` those that
    hide some of a target seen; ``hiders``: the same among the M8 hiders, and
    ``hidden`` the share of the base each of them hides alone. ``ignored``: the
    buildings left out because the shooter or the target stands in them.

    M12: ``windows`` are the walls whose windows change what the shooter sees of the
    target; ``other`` is the M1 share with the windows the other way (None when no wall
    with windows is near): with ``windows: open``, every window shut but the shooter's
    own (those it touches); with ``windows: closed``, every window open.
    ``only_windows``: the target is seen only through windows.

    G8: ``seen_margin`` is how far ``visible`` is from changing, ``cover_margin`` how
    far the M8/M12 cover is (:mod:`arbitre.rules.mordheim.margins`): no slack for a
    target not seen (cover means nothing for it) or inside another building (in cover
    whatever the geometry).
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
    hidden: tuple[tuple[str, float], ...] = ()
    partial: tuple[str, ...] = ()
    windows: tuple[str, ...] = ()
    other: float | None = None
    open_windows: bool = True
    seen_margin: Slack = NO_SLACK
    cover_margin: Slack = NO_SLACK

    @property
    def visible(self) -> bool:
        """M1: some part of the target's base is visible (S2 > 0)."""
        return self.seen > SHARE_EPS

    @property
    def partly_hidden(self) -> bool:
        """M8: some part of the target is hidden by terrain or another model (S2 < 1)."""
        return self.exposed < 1.0 - SHARE_EPS

    @property
    def only_windows(self) -> bool:
        """M12: seen, but only through windows (the shut walls would hide it all)."""
        return (
            self.open_windows
            and self.visible
            and self.other is not None
            and self.other <= SHARE_EPS
        )


#: ``replace(f, seen_margin=..., cover_margin=...)`` of a :class:`PairSight` ``f``, made
#: faster (:func:`arbitre.rules.frostgrave_make.replacer`).
_with_margins = replacer(PairSight, ("seen_margin", "cover_margin"))


def open_index(table: Table, windows: Windows) -> sight.SightIndex:
    """The sight index of the M rules: every window open (M12, ``windows: open``), or
    every wall whole (``windows: closed``)."""
    walls = sight.walls_with_windows(table) if windows == "open" else frozenset()
    return sight.sight_index(table, solid=walls)


@bounded.kept_by(sight.geometry_key, 16)
def window_contacts(table: Table) -> dict[str, frozenset[tuple[str, int]]]:
    """M12: the windows each model touches (G4 contact of its base with the window's part
    of the wall): its own windows, which give its targets no cover (kept by what they
    rest on, :func:`arbitre.sight.geometry_key`)."""
    found: dict[str, set[tuple[str, int]]] = {}
    xyr = np.asarray(
        [(m.at.x, m.at.y, m.base.radius) for m in table.models], dtype=np.float64
    ).reshape(-1, 3)
    tol = table.contact_tolerance
    for piece in table.terrain:
        fp = piece.footprint
        if not isinstance(fp, WallFootprint) or not fp.windows or not len(xyr):
            continue
        for k, window in enumerate(fp.windows):
            part = margins.window_part(fp, window)
            # the bases near the window's box (a superset of those in contact: the box test
            # allows 1e-6 mm, more than the contact test's own rounding), then GEOS
            near, _ = sight.box_pairs(xyr, np.asarray([part.bounds]), tol + 1e-6)
            near = np.sort(near)
            gaps = shapely.distance(shapely.points(xyr[near, :2]), part) - xyr[near, 2]
            for i in near[sight.in_contact(gaps, tol)].tolist():
                found.setdefault(table.models[i].id, set()).add((piece.id, k))
    return {k: frozenset(v) for k, v in found.items()}


def measure(
    table: Table, pairs: Sequence[tuple[str, str]], windows: Windows = "open"
) -> list[PairSight]:
    """The :class:`PairSight` of each ``(shooter, target)`` pair of model ids, windows
    open or shut as the M12 option says."""
    return measure_facts(table, pairs, windows).with_margins()


@dataclass(frozen=True, slots=True, eq=False)
class Measured:
    """The :class:`PairSight` of some pairs before their G8 margins (``sights``, every
    margin :data:`NO_SLACK`), and what :meth:`with_margins` measures them from."""

    sights: tuple[PairSight, ...]
    #: The margins of each pair, given the caps (:func:`_margins`).
    slacks: Callable[[Sequence[float] | None], list[tuple[Slack, Slack]]] | None = None
    #: The sights with their margins, given the caps (when kept: :func:`measure_facts`).
    finals: Callable[[Sequence[float] | None], list[PairSight]] | None = None
    #: Each pair's key (:func:`.kept.pair_keys`) and the store they are kept in.
    keys: tuple[Hashable, ...] = ()
    store: kept.Store | None = None

    def with_margins(self, caps: Sequence[float] | None = None) -> list[PairSight]:
        """The sights with their margins. ``caps``: for each pair, a slack its M1 margin
        could not beat when its target is not seen (``math.inf``: none); such a margin
        surely above its cap is left a lower bound (:func:`margins.hidden_slacks`)."""
        if self.finals is not None:
            return self.finals(caps)
        if self.slacks is None:
            return list(self.sights)
        slack = self.slacks(caps)
        return [
            _with_margins(f, seen_by, cover_by)
            for f, (seen_by, cover_by) in zip(self.sights, slack, strict=True)
        ]


def measure_facts(
    table: Table, pairs: Sequence[tuple[str, str]], windows: Windows = "open"
) -> Measured:
    """:func:`measure` but for the margins (:meth:`Measured.with_margins`). Each pair's
    facts and margins are kept by what they rest on (:mod:`.kept`): a drag measures
    again only the pairs near the model that moved (and the caps that changed)."""
    if not pairs:
        return Measured(())
    box = kept.store(table, windows)
    keys = kept.pair_keys(table, pairs)
    sights: list[PairSight | None] = [box.get("sight", k) for k in keys]
    todo = [i for i, f in enumerate(sights) if f is None]
    fresh = _measure_batch(table, [pairs[i] for i in todo], windows) if todo else None
    for j, i in enumerate(todo):
        assert fresh is not None
        sights[i] = fresh.sights[j]
        box.put("sight", keys[i], fresh.sights[j])
    facts = tuple(f for f in sights if f is not None)

    def finals(caps: Sequence[float] | None) -> list[PairSight]:
        wanted = [(k, None if caps is None else float(caps[i])) for i, k in enumerate(keys)]
        out: list[PairSight | None] = [box.get("final", w) for w in wanted]
        missing = [i for i, f in enumerate(out) if f is None]
        if not missing:
            return [f for f in out if f is not None]
        # the pairs measured above are measured with their caps; the others again
        in_fresh = {i: j for j, i in enumerate(todo)}
        again = [i for i in missing if i not in in_fresh]
        batches = []
        if fresh is not None and any(i in in_fresh for i in missing):
            batches.append((todo, fresh))
        if again:
            batches.append((again, _measure_batch(table, [pairs[i] for i in again], windows)))
        for rows, batch in batches:
            done = batch.with_margins(None if caps is None else [caps[i] for i in rows])
            for i, f in zip(rows, done, strict=True):
                out[i] = f
                box.put("final", wanted[i], f)
        return [f for f in out if f is not None]

    return Measured(facts, finals=finals, keys=tuple(keys), store=box)


def _measure_batch(
    table: Table, pairs: Sequence[tuple[str, str]], windows: Windows = "open"
) -> Measured:
    """:func:`measure_facts` of ``pairs`` measured together, nothing kept."""
    if not pairs:
        return Measured(())
    ix = open_index(table, windows)
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
    part = np.ones((len(pairs), n))
    near = _near(table, ix, s, g) & m8 & asks[:, None]
    rows, ks = np.nonzero(near)
    part[rows, ks] = sight_rows.alone_shares(table, s[rows], g[rows], ks, index=ix)
    shut = _windows(table, ix, pairs, s, g, m1, seen, windows)

    def slacks(caps: Sequence[float] | None) -> list[tuple[Slack, Slack]]:
        return _margins(
            table, ix, pairs, s, g, m1, m8, seen, exposed, part, shut, windows, caps=caps
        )

    out = []
    for i, (a, b) in enumerate(pairs):
        sa, tb = table.model(a), table.model(b)
        centre = sa.at.distance(tb.at)
        hidden = np.flatnonzero(part[i] < 1.0 - SHARE_EPS)
        other, walls = shut.get(i, (None, ()))
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
                hidden=tuple((ix.ids[k], _clip(1.0 - part[i, k])) for k in hidden),
                partial=tuple(ix.ids[k] for k in hidden if m1[i, k]) if seen[i] > SHARE_EPS else (),
                windows=walls,
                other=other,
                open_windows=windows == "open",
            )
        )
    return Measured(tuple(out), slacks)


def _windows(
    table: Table,
    ix: sight.SightIndex,
    pairs: Sequence[tuple[str, str]],
    s: np.ndarray,
    g: np.ndarray,
    m1: np.ndarray,
    seen: np.ndarray,
    windows: Windows,
) -> dict[int, tuple[float, tuple[str, ...]]]:
    """M12: for each pair near a wall with windows, the M1 share with the windows the
    other way (``open``: shut, the shooter's own windows left open; ``closed``: every
    window open), and the walls whose windows change what the shooter sees (each wall
    turned the other way alone)."""
    walls = sight.walls_with_windows(table)
    if not walls:
        return {}
    order = sorted(walls)
    wall_k = [ix.ids.index(w) for w in order]
    near = _near(table, ix, s, g) & m1
    rows = [i for i in range(len(pairs)) if near[i, wall_k].any()]
    contacts = window_contacts(table) if windows == "open" else {}
    groups: dict[frozenset[tuple[str, int]], list[int]] = {}
    for i in rows:
        groups.setdefault(contacts.get(pairs[i][0], frozenset()), []).append(i)
    out: dict[int, tuple[float, tuple[str, ...]]] = {}
    for own, members in groups.items():
        r = np.asarray(members, dtype=np.int64)
        other_ix = (
            sight.sight_index(table, openings=own)
            if windows == "open"
            else open_index(table, "open")
        )
        other = _shares(table, other_ix, s[r], g[r], m1[r])
        differ = np.abs(other - seen[r]) > SHARE_EPS
        named: dict[int, list[str]] = {}
        for w, k in zip(order, wall_k, strict=True):
            rr = r[differ & near[r, k]]
            if not len(rr):
                continue
            one = (
                sight.sight_index(table, solid=walls - {w}, openings=own)
                if windows == "open"
                else sight.sight_index(table, solid=frozenset({w}))
            )
            share = _shares(table, one, s[rr], g[rr], m1[rr])
            for j, i in enumerate(rr.tolist()):
                if abs(share[j] - seen[i]) > SHARE_EPS:
                    named.setdefault(i, []).append(w)
        for j, i in enumerate(r.tolist()):
            out[i] = (_clip(other[j]), tuple(named.get(i, ())))
    return out


def _margins(
    table: Table,
    ix: sight.SightIndex,
    pairs: Sequence[tuple[str, str]],
    s: np.ndarray,
    g: np.ndarray,
    m1: np.ndarray,
    m8: np.ndarray,
    seen: np.ndarray,
    exposed: np.ndarray,
    part: np.ndarray,
    shut: dict[int, tuple[float, tuple[str, ...]]],
    windows: Windows,
    caps: Sequence[float] | None = None,
) -> list[tuple[Slack, Slack]]:
    """G8: for each pair, how far M1 (seen or not) and the cover (M8, M12) are from
    changing (:mod:`arbitre.rules.mordheim.margins`); the pairs not seen all at once
    (:func:`margins.hidden_slacks`, with their ``caps``), and the pairs seen all at once
    (:func:`margins.seen_slacks`; M12, those seen with the windows shut too, all at once
    per shooter's own windows)."""
    p = margins.index_pieces(table, windows)
    kern = margins.kernels(p, _near(table, ix, s, g))
    xyr = np.column_stack(sight.positions(table))
    contacts = window_contacts(table) if windows == "open" else {}
    views, masks1, masks8 = [], [], []
    for i in range(len(pairs)):
        a, b = int(s[i]), int(g[i])
        views.append(margins.view(xyr[a, 0], xyr[a, 1], xyr[b, 0], xyr[b, 1], xyr[b, 2]))
        own = np.zeros(len(ix.ids), dtype=np.bool_)
        own[[a + ix.n_terrain, b + ix.n_terrain]] = True
        masks1.append(m1[i] & ~own)
        masks8.append(m8[i] & ~own)
    hidden = [i for i in range(len(pairs)) if not seen[i] > SHARE_EPS]
    unseen = dict(
        zip(
            hidden,
            margins.hidden_slacks(
                kern,
                table,
                p,
                [views[i] for i in hidden],
                [masks1[i] for i in hidden],
                ix.half,
                None if caps is None else [caps[i] for i in hidden],
            ),
            strict=True,
        )
    )
    shown = [i for i in range(len(pairs)) if seen[i] > SHARE_EPS]
    apart = [_in_other_building(table, a, b) for a, b in pairs]  # M8: cover whatever
    others = [shut.get(i, (None, ()))[0] for i in range(len(pairs))]  # M12 shares
    seen_by_pair = dict(
        zip(
            shown,
            margins.seen_slacks(
                kern, table, p, [views[i] for i in shown], [masks1[i] for i in shown], ix.half
            ),
            strict=True,
        )
    )
    # M8, nothing hidden: how far the nearest piece is, for those pairs all at once
    clear = [i for i in shown if not apart[i] and not exposed[i] < 1.0 - SHARE_EPS]
    cleared = dict(
        zip(
            clear,
            margins.clear_slacks(p, [views[i] for i in clear], [masks8[i] for i in clear], ix.half),
            strict=True,
        )
    )
    shut_by: dict[frozenset[tuple[str, int]], margins.Pieces] = {}

    def shut_pieces_of(openings: frozenset[tuple[str, int]]) -> margins.Pieces:
        """M12: the pieces with every window shut but ``openings`` (once per openings)."""
        if openings not in shut_by:
            shut_by[openings] = margins.pieces(table, openings=openings)
        return shut_by[openings]

    # M12: the pairs seen also with the windows shut (but the shooter's own) that the loop
    # below gives a window slack, measured with those pieces all at once (per openings)
    seen_shut: dict[int, Slack] = {}
    groups: dict[frozenset[tuple[str, int]], list[int]] = {}
    for i in shown if windows == "open" else ():
        other = others[i]
        if other is None or other <= SHARE_EPS or apart[i]:
            continue
        groups.setdefault(contacts.get(pairs[i][0], frozenset()), []).append(i)
    for openings, rows in groups.items():
        shut_pieces = shut_pieces_of(openings)
        batch = [views[i] for i in rows], [masks1[i] for i in rows]
        slacks = margins.seen_slacks(kern, table, shut_pieces, *batch, ix.half)
        seen_shut.update(zip(rows, slacks, strict=True))
    out = []
    for i in range(len(pairs)):
        v, mask1, mask8 = views[i], masks1[i], masks8[i]
        visible = seen[i] > SHARE_EPS
        seen_by = seen_by_pair[i] if visible else unseen[i]
        if not visible or apart[i]:
            # M8 means nothing for a target not seen; one in another building is in
            # cover whatever the geometry (M8 decision): no cover slack to measure
            out.append((seen_by, NO_SLACK))
            continue
        hidden = exposed[i] < 1.0 - SHARE_EPS  # M8: part of it hidden
        if hidden:
            hiders = [int(k) for k in np.flatnonzero(part[i] < 1.0 - SHARE_EPS) if mask8[k]]
            geo = margins.hiding_slack(kern, p, v, hiders, ix.half)
        else:
            geo = cleared[i]
        other = others[i]
        only, by_window = False, NO_SLACK  # M12: seen only through windows, and its slack
        if other is not None and windows == "open":
            only = other <= SHARE_EPS
            shut_pieces = shut_pieces_of(contacts.get(pairs[i][0], frozenset()))
            by_window = min(
                margins.hidden_slack(kern, table, shut_pieces, v, mask1, ix.half)
                if only
                else seen_shut[i],
                margins.window_slack(table, pairs[i][0], _window_walls(table)),
                key=lambda t: t.mm,
            )
        if hidden or only:  # in cover while one of its reasons holds
            cover_by = max(
                (t for t, holds in ((geo, hidden), (by_window, only)) if holds),
                key=lambda t: t.mm,
            )
        else:
            cover_by = min(geo, by_window, key=lambda t: t.mm)
        out.append((seen_by, cover_by))
    return out


def _window_walls(table: Table) -> tuple[str, ...]:
    """The walls with windows, in id order (M12)."""
    return tuple(sorted(sight.walls_with_windows(table)))


def _in_other_building(table: Table, a: str, b: str) -> bool:
    """M8 decision: the target stands inside a building other than the shooter's."""
    t = table.model(b).inside
    return t is not None and t != table.model(a).inside


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


def building_problems(table: Table) -> list[Text]:
    """M5: every model whose ``inside`` names no building of the table, and why."""
    pieces = {t.id: t for t in table.terrain}
    found = []
    for m in table.models:
        if m.inside is None:
            continue
        if m.inside not in pieces:
            known = join((t.id for t in table.terrain if t.building), empty=N_("none"))
            found.append(
                T_(
                    "model {id} inside: unknown terrain id {inside} (buildings: {known})",
                    id=repr(m.id),
                    inside=repr(m.inside),
                    known=known,
                )
            )
        elif not pieces[m.inside].building:
            found.append(
                T_(
                    "model {id} inside: terrain {inside} is not a building "
                    "(give it building: true)",
                    id=repr(m.id),
                    inside=repr(m.inside),
                )
            )
    return found


def pct(share: float) -> Text:
    """A share in words, never rounded to 0% or 100% unless it is: ``<1%``, ``>99%``
    (French: ``86 %``)."""
    if 0.0 < share < 0.005:
        return T_("<1%")
    if 0.995 <= share < 1.0:
        return T_(">99%")
    return T_("{pct}%", pct=Num(share * 100, ".0f"))


def _shares_text(small: frozenset[str], f: PairSight, pieces: Sequence[str], whole: float) -> Text:
    """What ``pieces`` hide of the target, ``whole`` in all: ``fence hides 40%`` for one
    piece, ``40% is hidden: fence hides 30%, cart 25% (each alone)`` for several; a
    piece that only gives cover (of ``small``) says so (it hides without blocking, M8
    decision)."""
    alone = dict(f.hidden)
    words = [
        T_(
            "{piece} hides {share} (a cover piece: it hides without blocking)",
            piece=p,
            share=pct(alone.get(p, 0.0)),
        )
        if p in small
        else T_("{piece} hides {share}", piece=p, share=pct(alone.get(p, 0.0)))
        for p in pieces
    ]
    if len(words) == 1:
        return words[0]
    return T_("{share} is hidden: {pieces} (each alone)", share=pct(whole), pieces=join(words))


def _cover_only(table: Table) -> frozenset[str]:
    """The pieces that hide without blocking (cover pieces, M8 decision); the last
    answer kept for the very same terrain (a frozen tuple held here: its pieces cannot
    change), the others by content (:func:`_cover_pieces`)."""
    terrain = table.terrain
    last = _LAST_SMALL[-1] if _LAST_SMALL else None
    if last is not None and last[0] is terrain:
        return last[1]
    small = _cover_pieces(terrain)
    _LAST_SMALL[:] = [(terrain, small)]
    return small


#: The last :func:`_cover_only` answer: its terrain and cover pieces.
_LAST_SMALL: list[tuple[tuple[Terrain, ...], frozenset[str]]] = []


@lru_cache(maxsize=32)
def _cover_pieces(terrain: tuple[Terrain, ...]) -> frozenset[str]:
    """:func:`_cover_only` of a table's terrain (kept per terrain: models move, pieces
    do not)."""
    return frozenset(t.id for t in terrain if not t.blocks)


#: How many reasons :func:`seen_reason` and :func:`cover` keep (a few tables' pairs).
WORDS_MAX = 2048


def seen_reason(table: Table, f: PairSight) -> Reason:
    """M1: whether the shooter sees some of the target (S2 > 0, blocking pieces hiding),
    and, when blocking pieces hide part of it, what each hides. Kept by what the words
    are made of (the sight, the cover pieces, where the shooter stands): a pair whose
    sight did not change gets the same words without wording them again."""
    inside = table.model(f.shooter).inside if f.ignored else None
    return _seen_reason(f, _cover_only(table) if f.partial else frozenset(), inside)


@lru_cache(maxsize=WORDS_MAX)
def _seen_reason(f: PairSight, small: frozenset[str], shooter_inside: str | None) -> Reason:
    """:func:`seen_reason` of the sight ``f``, ``small`` the cover pieces (M8 decision)
    and ``shooter_inside`` the building the shooter stands in."""
    a, b = f.shooter, f.target
    if f.visible:
        words = T_(
            "{shooter} sees {share} of {target}'s base past blocking terrain and other models",
            shooter=a,
            share=pct(f.seen),
            target=b,
        )
        for w in f.ignored:
            who = a if shooter_inside == w else b
            words = semicolons(
                (words, T_("{piece} does not hide: {id} stands in it", piece=w, id=who))
            )
        if f.partial:
            words = semicolons((words, _shares_text(small, f, f.partial, 1 - f.seen)))
        return Reason("M1", (a, b, *f.partial), words)
    by = join(f.blockers, empty=N_("blocking terrain and models"))
    return Reason(
        "M1",
        (a, b, *f.blockers),
        T_("{target} is not visible to {shooter}: hidden by {by}", target=b, shooter=a, by=by),
    )


def window_reason(f: PairSight) -> Reason | None:
    """M12: how the windows of the walls near the line decided, if they did."""
    if not f.windows or f.other is None:
        return None
    a, b, walls = f.shooter, f.target, join(f.windows)
    ids = (a, b, *f.windows)
    if not f.open_windows:
        return Reason(
            "M12",
            ids,
            T_(
                "option windows: closed: the windows of {walls} are part of the wall; open, "
                "they would let {shooter} see {share} of {target}'s base",
                walls=walls,
                shooter=a,
                share=pct(f.other),
                target=b,
            ),
        )
    if f.only_windows:
        return Reason(
            "M12",
            ids,
            T_(
                "{shooter} sees {target} only through a window of {walls}: a window is an "
                "opening (option windows: open), and a target seen only through a window is "
                "in cover",
                shooter=a,
                target=b,
                walls=walls,
            ),
        )
    return Reason(
        "M12",
        ids,
        T_(
            "{shooter} sees {share} of {target}'s base through a window of {walls} (a window "
            "is an opening, option windows: open; shut, {shut})",
            shooter=a,
            share=pct(f.seen - f.other),
            target=b,
            walls=walls,
            shut=pct(f.other),
        ),
    )


def cover(table: Table, s: Model, t: Model, f: PairSight) -> tuple[bool, tuple[str, ...], Reason]:
    """M8: in cover when terrain (any piece) or another model hides part of the target;
    by decision, a target inside a building other than the shooter's is in cover, and
    (M12) so is a target seen only through windows. The words say which share is hidden
    and what each piece hides of it alone. Kept by what the words are made of (as
    :func:`seen_reason`)."""
    small = _cover_only(table) if f.partly_hidden else frozenset()
    return _cover(s.id, s.inside, t.id, t.inside, f, small)


@lru_cache(maxsize=WORDS_MAX)
def _cover(
    shooter: str,
    shooter_inside: str | None,
    target: str,
    target_inside: str | None,
    f: PairSight,
    small: frozenset[str],
) -> tuple[bool, tuple[str, ...], Reason]:
    """:func:`cover` of the shooter and target (ids and the buildings they stand in), the
    sight ``f`` and ``small`` the cover pieces (M8 decision)."""
    building = (
        target_inside if target_inside is not None and target_inside != shooter_inside else None
    )
    through = f.windows if f.only_windows else ()
    extra = [p for p in (*((building,) if building else ()), *through) if p not in f.hiders]
    pieces = (*f.hiders, *dict.fromkeys(extra))
    parts = []
    if f.partly_hidden:
        parts.append(
            T_(
                "of {target}'s base seen from {shooter}, {shares}; {plain} in plain view",
                target=target,
                shooter=shooter,
                shares=_shares_text(small, f, f.hiders, 1 - f.exposed),
                plain=pct(f.exposed),
            )
        )
    if building:
        parts.append(T_("{id} stands inside building {building}", id=target, building=building))
    if through:
        parts.append(
            T_(
                "{id} is seen only through a window of {walls} (M12)",
                id=target,
                walls=join(through),
            )
        )
    if not parts:
        words = T_("nothing hides any part of {id}: no cover", id=target)
        return False, (), Reason("M8", (target,), words)
    words = T_("in cover: {parts}", parts=semicolons(parts))
    return True, pieces, Reason("M8", (target, *pieces), words)


def because(visible: bool, blockers: Sequence[str], cover_pieces: Sequence[str]) -> str:
    """The deciding reasons of a line of sight in a few words: ``M1 wall`` (not seen, and
    what hides it), ``M8 fence`` (in cover, and what gives it), ``clear`` otherwise."""
    if not visible:
        return " ".join(("M1", *blockers))
    if cover_pieces:
        return " ".join(("M8", *cover_pieces))
    return "clear"


def los_rulings(
    table: Table, pairs: Sequence[tuple[str, str]], options: MordheimOptions | None = None
) -> list[LosRuling]:
    """M1 and M8 for each ``(shooter, target)`` pair: visible when the shooter sees some of
    the target's base, and ``cover`` 1 when the target is in cover (the M7 -1); a target
    not seen has the M1 reason as its refusal."""
    check_buildings(table)
    for a, b in pairs:
        table.model(a)
        table.model(b)
        if a == b:
            raise RulesError(T_("a model does not shoot itself: {id}", id=repr(a)))
    out = []
    opts = options or MordheimOptions()
    close_call = shared_options(table).close_call
    for f in measure(table, list(pairs), opts.windows):
        s, t = table.model(f.shooter), table.model(f.target)
        seen = seen_reason(table, f)
        reasons = [seen]
        in_cover, pieces, reason = cover(table, s, t, f)
        if f.visible:
            reasons.append(reason)
        window = window_reason(f)
        if window is not None:
            reasons.append(window)
        shown = pieces if f.visible and in_cover else ()
        tests = [f.seen_margin, *((f.cover_margin,) if f.visible else ())]
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
                margin=Margin.smallest(((t.mm, t.test) for t in tests), close_call),
            )
        )
    return out
