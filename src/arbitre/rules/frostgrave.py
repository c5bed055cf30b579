"""Frostgrave house rule for lines of sight and cover (F1-F9, seed 000).

The line of sight is the centre line (F1, S1). A large piece or another model's base on
it blocks (F2); each small piece on it gives +1 (F3), +3 when the target touches it
(F4). Walls block even through their windows (F7), except for a model touching a wall at
a window: it shoots as if the wall were not there, its targets getting +1 for the wall
(F5), and it can be shot by whoever sees the window, with +3 (F6). Models without a base
use their centre (F8); the visible share of the base (S2) is reported beside (F9).

:func:`matrix` rules every ordered pair of a table at once (the fast path);
:func:`rulings` explains the pairs asked. Both agree, pair by pair.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely

from arbitre import sight
from arbitre.errors import RulesError
from arbitre.geometry import Point, WallFootprint, Window
from arbitre.rules import schema
from arbitre.rules.options import read_options, shared_options
from arbitre.rules.registry import Question, Ruleset, questions
from arbitre.rules.requests import LosRequest
from arbitre.rules.ruling import LosRuling, Reason
from arbitre.rules.small_terrain import piece_bonus
from arbitre.table import Table, Terrain


@dataclass(frozen=True, slots=True)
class FrostgraveOptions:
    """Options of the F rules (RULES.md): G5 grazing, F9 visible fraction."""

    visible_fraction: bool = False


@dataclass(frozen=True, slots=True)
class WindowContact:
    """A model touching a wall exactly where a window is (F5, F6)."""

    model: str
    wall: str
    window: Window


def window_contacts(table: Table) -> dict[str, tuple[WindowContact, ...]]:
    """For each model touching a wall at a window (G4 contact with the window's part of
    the wall, :func:`arbitre.sight.in_contact`), the windows it stands at."""
    found: dict[str, list[WindowContact]] = {}
    xy, radii = sight.positions(table)
    centres = shapely.points(xy)
    for piece in table.terrain:
        fp = piece.footprint
        if not isinstance(fp, WallFootprint) or not fp.windows or not piece.blocks:
            continue
        for window in fp.windows:
            gap = shapely.distance(centres, fp.window_slice(window)) - radii
            for i in np.flatnonzero(sight.in_contact(gap, table.contact_tolerance)):
                model = table.models[i].id
                found.setdefault(model, []).append(WindowContact(model, piece.id, window))
    return {k: tuple(v) for k, v in found.items()}


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
    # F5/F6 change a pair only when the wall stopping its line is one at whose window
    # the shooter or the target stands: those few pairs are ruled one by one
    redo: set[tuple[int, int]] = set()
    for model, found in window_contacts(table).items():
        i = table.model_index(model)
        walls = [ix.ids.index(c.wall) for c in found]
        redo.update((i, int(b)) for b in np.flatnonzero(np.isin(stop[i], walls)))
        redo.update((int(a), i) for a in np.flatnonzero(np.isin(stop[:, i], walls)))
    if redo:
        order = sorted(redo)
        asked = [(ids[a], ids[b]) for a, b in order]
        redone = _rulings(
            table, asked, read_options(FrostgraveOptions, table.options), fractions=False
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
) -> list[LosRuling]:
    """F1-F9 for each ``(shooter, target)`` pair, each ruling with its reasons, under
    ``options`` (default: the table's)."""
    opts = options or read_options(FrostgraveOptions, table.options)
    return _rulings(table, pairs, opts, fractions=True)


def _rulings(
    table: Table,
    pairs: Sequence[tuple[str, str]],
    opts: FrostgraveOptions,
    *,
    fractions: bool,
) -> list[LosRuling]:
    """The rulings; without ``fractions`` the S2 share is not measured (nan)."""
    for a, b in pairs:
        table.model(a)
        table.model(b)
        if a == b:
            raise RulesError(f"a model does not shoot itself: {a!r}")
    if not pairs:
        return []
    lines = sight.centre_lines(table, pairs)
    s = np.asarray([table.model_index(a) for a, _ in pairs], dtype=np.int64)
    g = np.asarray([table.model_index(b) for _, b in pairs], dtype=np.int64)
    # G4 for the targets' rows only (F4 asks whether the target touches a piece)
    rows = {t: i for i, t in enumerate(sorted(set(g.tolist())))}
    touch = sight.touching(table, models=list(rows))
    contacts = window_contacts(table)
    shares = np.full(len(pairs), np.nan)
    if fractions:
        shares = sight.visible_fraction_batch(table, s, g)
        for i, (a, b) in enumerate(pairs):
            if a in contacts or b in contacts:
                shares[i] = _window_fraction(table, a, b, contacts)
    return [
        _rule(
            table, opts, line, float(share), touch[rows[table.model_index(line.target)]], contacts
        )
        for line, share in zip(lines, shares, strict=True)
    ]


def _window_fraction(
    table: Table, a: str, b: str, contacts: dict[str, tuple[WindowContact, ...]]
) -> float:
    """S2 for a pair at a window: the shooter's window walls hide nothing (F5), the
    target's hide only where they have no opening (F6)."""
    ix = sight.sight_index(table, frozenset(c.wall for c in contacts.get(b, ())))
    hides = ix.blocks.copy()
    for c in contacts.get(a, ()):
        hides[ix.ids.index(c.wall)] = False
    s = np.asarray([table.model_index(a)], dtype=np.int64)
    g = np.asarray([table.model_index(b)], dtype=np.int64)
    return float(sight.visible_fraction_batch(table, s, g, hides=hides, index=ix)[0])


@dataclass(slots=True)
class _Tally:
    """What one pair's ruling gathers, crossing by crossing (F2-F8)."""

    reasons: list[Reason] = field(default_factory=list)
    blockers: list[str] = field(default_factory=list)
    cover_pieces: list[str] = field(default_factory=list)
    cover: int = 0

    def blocks(self, piece: str, reason: Reason) -> None:
        self.blockers.append(piece)
        self.reasons.append(reason)

    def gives(self, piece: str, bonus: int, reason: Reason) -> None:
        self.cover += bonus
        self.cover_pieces.append(piece)
        self.reasons.append(reason)


def _rule(
    table: Table,
    opts: FrostgraveOptions,
    line: sight.CentreLine,
    fraction: float,
    touch: np.ndarray,
    contacts: dict[str, tuple[WindowContact, ...]],
) -> LosRuling:
    """One pair's ruling; ``touch[k]`` says whether the target touches terrain piece k (G4)."""
    a, b = line.shooter, line.target
    tally = _Tally()
    for who in (a, b):
        if table.model(who).base.radius <= 0:
            tally.reasons.append(Reason("F8", (who,), f"{who} has no base: its centre is used"))
    crossed = ", ".join(c.piece for c in line.crossings) or "nothing"
    tally.reasons.append(Reason("F1", (a, b), f"centre line {a} -> {b} passes through {crossed}"))
    shooter_walls = {c.wall for c in contacts.get(a, ())}
    target_windows = {c.wall: c for c in contacts.get(b, ())}
    window_walls: list[str] = []
    for c in line.crossings:
        if c.is_model:
            tally.blocks(
                c.piece, Reason("F2", (c.piece,), f"the line passes through the base of {c.piece}")
            )
            continue
        piece = table.piece(c.piece)
        if not piece.blocks:
            touches = bool(touch[table.terrain.index(piece)])
            tally.gives(piece.id, *piece_bonus(b, piece.id, touches=touches))
        elif piece.id in shooter_walls:
            bonus = 3 if piece.id in target_windows else 1
            text = (
                f"{a} stands at a window of {piece.id}: it sees as if the wall were "
                f"not there; +{bonus} cover for the wall"
            )
            tally.gives(piece.id, bonus, Reason("F5", (a, piece.id), text))
        elif piece.id in target_windows:
            window_walls.append(piece.id)
        else:
            tally.blocks(piece.id, _large_reason(piece))
    for wall in window_walls:
        _at_window(table, line, target_windows[wall], shooter_walls, tally)
    return _ruling(opts, line, fraction, tally)


def _large_reason(piece: Terrain) -> Reason:
    """Why a large piece on the line blocks it: F7 for a wall with windows, else F2."""
    is_wall = isinstance(piece.footprint, WallFootprint)
    if is_wall and piece.footprint.windows:  # type: ignore[union-attr]
        return Reason(
            "F7",
            (piece.id,),
            (
                f"the line crosses wall {piece.id}; its windows open it only for a "
                "model touching it at a window"
            ),
        )
    kind = "wall" if is_wall else "large terrain"
    return Reason("F2", (piece.id,), f"the line passes through {kind} {piece.id}")


def _at_window(
    table: Table,
    line: sight.CentreLine,
    contact: WindowContact,
    shooter_walls: set[str],
    tally: _Tally,
) -> None:
    """F6: the target stands at a window of the wall on the line: +3 when the shooter
    sees the window, else the wall blocks."""
    a, b, wall = line.shooter, line.target, contact.wall
    seen = _sees_window(table, a, b, contact, shooter_walls)
    if seen is None:
        text = f"{b} stands at a window of {wall}, but no clear line from {a} reaches the window"
        tally.blocks(wall, Reason("F6", (b, wall), text))
    else:
        text = (
            f"{b} stands at a window of {wall} and {a} sees the window "
            f"(at {table.unit.point(seen.x, seen.y)}): +3"
        )
        tally.gives(wall, 3, Reason("F6", (b, wall), text))


def _ruling(
    opts: FrostgraveOptions, line: sight.CentreLine, fraction: float, tally: _Tally
) -> LosRuling:
    """The ruling from what the crossings gave: visible when nothing blocks (F2), the
    cover dropped otherwise, the F1 and F9 words."""
    a, b = line.shooter, line.target
    visible = not tally.blockers
    reasons = tally.reasons
    if not visible:  # cover means nothing for a target that cannot be seen
        reasons = [r for r in reasons if r.rule not in {"F3", "F4"}]
    if visible and not line.crossings:
        reasons.append(Reason("F1", (a, b), "the centre line is clear: visible, no cover"))
    elif not visible:
        reasons.append(Reason("F2", tuple(tally.blockers), f"{b} is not visible to {a}"))
    if opts.visible_fraction:
        reasons.append(
            Reason("F9", (b,), f"{fraction:.0%} of {b}'s base is visible from {a}'s centre")
        )
    return LosRuling(
        shooter=a,
        target=b,
        visible=visible,
        cover=tally.cover if visible else 0,
        reasons=tuple(reasons),
        visible_fraction=round(fraction, 6),
        blockers=tuple(tally.blockers),
        cover_pieces=tuple(tally.cover_pieces) if visible else (),
        because=because(a, b, reasons),
    )


def because(shooter: str, target: str, reasons: Sequence[Reason]) -> str:
    """The deciding reasons in a few words, for tables and pictures: each rule ID with the
    pieces it involves (the shooter and the target left out), ``"clear"`` when none. The
    centre line (F1), the visible share (F9) and the F2 summary are not deciding."""
    parts = []
    for r in reasons:
        if r.rule in {"F1", "F9"} or (r.rule == "F2" and "not visible" in r.text):
            continue
        ids = " ".join(i for i in r.ids if i not in (shooter, target))
        parts.append(f"{r.rule} {ids}".strip())
    return ", ".join(dict.fromkeys(parts)) or "clear"


def _sees_window(
    table: Table, shooter: str, target: str, contact: WindowContact, ignored: set[str]
) -> Point | None:
    """F6: a point of the window opening that the shooter's centre reaches by a clear line
    (the wall counting only where it has no opening), or None."""
    ix = sight.sight_index(table, frozenset({contact.wall}))
    hides = ix.blocks.copy()
    for wall in ignored:
        hides[ix.ids.index(wall)] = False
    footprint = table.piece(contact.wall).footprint
    assert isinstance(footprint, WallFootprint)
    coords = list(footprint.window_opening(contact.window).coords)
    origin = table.model(shooter).at
    for p, q in itertools.pairwise(coords):
        view = sight.view_of_segment(
            table, origin, (Point(*p), Point(*q)), skip=(shooter, target), hides=hides, index=ix
        )
        if view.share > 0 and view.witness is not None:
            return view.witness
    return None


def _los(table: Table, request: LosRequest, *, options: FrostgraveOptions) -> list[LosRuling]:
    """The ``los`` question: F1-F9 for the pairs asked."""
    return rulings(table, request.pairs_on(table), options=options)


RULESET = Ruleset(
    name="frostgrave",
    title="Frostgrave house rule for lines of sight and cover (F1-F9)",
    aliases=("fg", "frost"),
    options=FrostgraveOptions,
    questions=questions(
        Question("los", "Lines of sight and cover (F1-F9)", LosRequest, _los, schema=schema.LOS),
    ),
    sight="S1",
)
