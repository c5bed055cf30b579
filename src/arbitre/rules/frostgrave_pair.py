"""One Frostgrave pair ruled crossing by crossing (F2-F8), with its G5 words and its G8
margin; the measures of many pairs taken at once (:func:`measure_pairs`).

A shooter at a window sees from it (F5): its centre lines are traced with that window
opened, every other crossing of a wall blocking (F7); the line going out through the
window gives +1 for the wall. A target at a window is shot through it (F6) when the
centre line crosses the window's side of the wall: then seeing some point of the opening
is the whole test, +3; the rest of the centre line only adds its small pieces (F3, F4).
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import overload

import numpy as np
import shapely

from arbitre import sight
from arbitre.bounded import entry, trim
from arbitre.errors import RulesError
from arbitre.geometry import CircleFootprint, WallFootprint
from arbitre.i18n import T_, Text, join
from arbitre.rules.frostgrave_margins import (
    REACH,
    Near,
    NearBatch,
    crosses,
    gaps_between,
    gaps_by_index,
    index_for,
    near_batches,
    opening_groups,
    shape_slacks,
    terrain_shapes,
)
from arbitre.rules.frostgrave_windows import (
    WindowContact,
    WindowGap,
    WindowKey,
    WindowView,
    beside_window,
    sees_window,
    wall_of,
    window_contacts,
    window_gaps,
    window_slice,
)
from arbitre.rules.ruling import NO_MARGIN, Margin, Reason
from arbitre.rules.small_terrain import piece_bonus
from arbitre.table import Table, Terrain

#: How far (mm) the F6 view margin is sought when the window is seen (G8).
VIEW_REACH = 25.0


@dataclass(frozen=True, slots=True)
class Through:
    """A window-side test of one pair (F5: the line goes out through the shooter's
    window; F6: it comes in through the target's side of the wall): crossed or not, the
    distance (mm) and the slack of the test (G8)."""

    contact: WindowContact
    crossed: bool
    dist: float
    slack: float


@dataclass(frozen=True, slots=True, eq=False)
class Facts:
    """What every pair of one ask reads of the table, looked up once: the small pieces
    (F3), the models without a base (F8), the walls each model stands at a window of
    (F5, F7), and the reasons many pairs share (the same words for the same piece),
    made once per ask."""

    small: frozenset[str]
    baseless: frozenset[str]
    walls: dict[str, frozenset[str]]
    said: dict[tuple[object, ...], Reason] = field(default_factory=dict)
    bonuses: dict[tuple[str, str, bool], tuple[int, Reason]] = field(default_factory=dict)

    def bonus(self, target: str, piece: str, touches: bool) -> tuple[int, Reason]:
        """F3/F4: :func:`arbitre.rules.small_terrain.piece_bonus`, made once per ask."""
        key = (target, piece, touches)
        found = self.bonuses.get(key)
        if found is None:
            found = piece_bonus(target, piece, touches=touches, baseless=target in self.baseless)
            self.bonuses[key] = found
        return found


def facts(table: Table, contacts: dict[str, tuple[WindowContact, ...]]) -> Facts:
    """The :class:`Facts` of a table whose window contacts are ``contacts``."""
    _, radii = sight.positions(table)
    models = table.models
    return Facts(
        small=frozenset(t.id for t in table.terrain if not t.blocks),
        baseless=frozenset([models[i].id for i in np.flatnonzero(radii <= 0).tolist()]),
        walls={m: frozenset(c.wall for c in cs) for m, cs in contacts.items()},
    )


@dataclass(frozen=True, slots=True, eq=False)
class LineBatch:
    """S1 of every pair of one ask in pair order, as flat lists: pair ``i`` crosses the
    kernel pieces ``piece[offsets[i]:offsets[i + 1]]`` (terrain, then bases: ``ids``,
    bases from ``n_terrain``), at ``t``, each ``via`` the piece it is one obstacle with
    (G4; -1 for a plain crossing)."""

    ids: tuple[str, ...]
    n_terrain: int
    offsets: list[int]
    piece: list[int]
    t: list[float]
    via: list[int]
    #: ``offsets`` and ``piece`` as arrays (int64).
    offsets_array: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    piece_array: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def line(self, pair: tuple[str, str], i: int) -> sight.CentreLine:
        """Pair ``i``'s centre line as :class:`arbitre.sight.CentreLine`."""
        ids, nt = self.ids, self.n_terrain
        lo, hi = self.offsets[i], self.offsets[i + 1]
        crossings = tuple(
            [
                sight.Crossing(ids[k], t, k >= nt, None if v < 0 else ids[v])
                for k, t, v in zip(self.piece[lo:hi], self.t[lo:hi], self.via[lo:hi], strict=True)
            ]
        )
        return sight.CentreLine(pair[0], pair[1], crossings)


class _Lines(Sequence[sight.CentreLine]):
    """The centre lines of an ask's pairs, each made from the batch when first read (the
    pairs ruled in one pass never read theirs)."""

    __slots__ = ("_batch", "_made", "_pairs")

    def __init__(self, pairs: Sequence[tuple[str, str]], batch: LineBatch) -> None:
        self._pairs = pairs
        self._batch = batch
        self._made: dict[int, sight.CentreLine] = {}

    def __len__(self) -> int:
        return len(self._pairs)

    @overload
    def __getitem__(self, i: int) -> sight.CentreLine: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[sight.CentreLine]: ...
    def __getitem__(self, i: int | slice) -> sight.CentreLine | Sequence[sight.CentreLine]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        line = self._made.get(i)
        if line is None:
            line = self._made[i] = self._batch.line(self._pairs[i], i)
        return line


class _NearRows(Sequence[tuple[Near, ...]]):
    """The pieces near each pair's line (:func:`near_pieces`), each row made from its
    batch when first read."""

    __slots__ = ("_batches", "_made", "_n", "_where")

    def __init__(self, n: int, batches: Sequence[NearBatch]) -> None:
        self._n = n
        self._batches = batches
        self._where: dict[int, tuple[NearBatch, int]] | None = None  # made when first read
        self._made: dict[int, tuple[Near, ...]] = {}

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> tuple[Near, ...]: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[tuple[Near, ...]]: ...
    def __getitem__(self, i: int | slice) -> tuple[Near, ...] | Sequence[tuple[Near, ...]]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        row = self._made.get(i)
        if row is None:
            where = self._where
            if where is None:  # made whole, then kept (a reader never sees it half made)
                where = {}
                for batch in self._batches:
                    for j, k in enumerate(batch.rows.tolist()):
                        where[k] = (batch, j)
                self._where = where
            found = where.get(i)
            row = () if found is None else tuple(found[0].near(found[1]))
            self._made[i] = row
        return row


@dataclass(frozen=True, slots=True, eq=False)
class PairMeasures:
    """What the rulings of many pairs rest on, measured at once: the centre lines (S1,
    each shooter's windows opened, F5), the window contacts, the pieces near each line
    and their distances (G5, G8), the window-side tests (F5, F6), the targets' G4 contacts
    and gaps to the small pieces crossed (F4). ``lines`` and ``near`` are made pair by
    pair when read, from ``batch`` and ``near_batches`` (the arrays every pair's
    measures come in); ``s`` and ``g`` are the pairs' model indices."""

    pairs: tuple[tuple[str, str], ...]
    contacts: dict[str, tuple[WindowContact, ...]]
    openings: tuple[frozenset[WindowKey], ...]
    lines: Sequence[sight.CentreLine]
    near: Sequence[tuple[Near, ...]]
    out_through: tuple[tuple[Through, ...], ...]
    in_through: tuple[tuple[Through, ...], ...]
    touch: dict[tuple[str, str], bool]
    gaps: dict[tuple[str, str], float]
    window_gaps: dict[str, tuple[WindowGap, ...]]
    joins: tuple[tuple[tuple[tuple[str, str], float], ...], ...]
    facts: Facts
    s: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    g: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    batch: LineBatch | None = None
    near_batches: tuple[NearBatch, ...] = ()
    #: The pairs by the windows opened for their lines (F5), as ``opening_groups``
    #: makes them, and the sight index of each set of openings looked up by this ask.
    groups: tuple[tuple[frozenset[WindowKey], np.ndarray], ...] = ()
    indexes: dict[frozenset[WindowKey], sight.SightIndex] = field(default_factory=dict)


def model_rows(table: Table, pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """The model indices of each pair's shooter and target, every id checked (an unknown
    id, or a model shooting itself, refused as the pairs are read in order)."""
    index = {m.id: i for i, m in enumerate(table.models)}
    try:
        s = [index[a] for a, _ in pairs]
        g = [index[b] for _, b in pairs]
    except KeyError:
        s = g = []
    if len(s) != len(pairs) or any(x == y for x, y in zip(s, g, strict=True)):
        for a, b in pairs:  # the first bad pair, refused in its words
            table.model(a)
            table.model(b)
            if a == b:
                raise RulesError(T_("a model does not shoot itself: {id}", id=repr(a)))
    return np.asarray(s, dtype=np.int64), np.asarray(g, dtype=np.int64)


def measure_pairs(
    table: Table,
    pairs: Sequence[tuple[str, str]],
    *,
    margins: bool,
    rows: tuple[np.ndarray, np.ndarray] | None = None,
) -> PairMeasures:
    """Measure every pair asked (model ids): see :class:`PairMeasures`. Without
    ``margins`` only what decides the rulings is measured. ``rows``: the pairs' model
    indices, if :func:`model_rows` gave them already."""
    contacts = window_contacts(table)
    known = facts(table, contacts)
    s, g = rows if rows is not None else model_rows(table, pairs)
    opened = {a: frozenset(c.key for c in cs) for a, cs in contacts.items()}
    none: frozenset[WindowKey] = frozenset()
    if opened.keys().isdisjoint([a for a, _ in pairs]):  # no shooter at a window
        openings: tuple[frozenset[WindowKey], ...] = (none,) * len(pairs)
    else:
        openings = tuple([opened.get(a, none) for a, _ in pairs])
    groups = opening_groups(openings)
    indexes: dict[frozenset[WindowKey], sight.SightIndex] = {}
    batch = _line_batch(table, pairs, s, g, openings, groups=groups, indexes=indexes)
    batches = near_batches(table, s, g, openings, groups=groups, indexes=indexes) if margins else []
    xy, _ = sight.positions(table)
    segs = np.hstack([xy[s], xy[g]])
    out_through = _through(table, pairs, segs, contacts, outgoing=True)
    in_through = _through(table, pairs, segs, contacts, outgoing=False)
    touch, gaps = _small_contacts_of(table, batch, g, known.small)
    wgaps: dict[str, list[WindowGap]] = {}
    if margins:
        ends = sorted({*s.tolist(), *g.tolist()})
        # a window farther than this gives a slack over REACH: the beam test's floor
        for w in window_gaps(table, ends, within=REACH + table.contact_tolerance):
            wgaps.setdefault(w.model, []).append(w)
    joins = _batch_joins(table, len(pairs), batches) if margins else [() for _ in pairs]
    return PairMeasures(
        pairs=tuple(pairs),
        contacts=contacts,
        openings=openings,
        lines=_Lines(pairs, batch),
        near=_NearRows(len(pairs), batches),
        out_through=out_through,
        in_through=in_through,
        touch=touch,
        gaps=gaps,
        window_gaps={k: tuple(v) for k, v in wgaps.items()},
        joins=tuple(joins),
        facts=known,
        s=s,
        g=g,
        batch=batch,
        near_batches=tuple(batches),
        groups=tuple(groups),
        indexes=indexes,
    )


def _near_joins(
    table: Table, near: Sequence[Sequence[Near]], small: frozenset[str]
) -> list[tuple[tuple[tuple[str, str], float], ...]]:
    """G4 near each line: of every two blockers both within a few mm of it, measured at
    once (:func:`arbitre.rules.frostgrave_margins.gaps_between`), the two whose gap is
    nearest the contact tolerance (the first such), with their gap (mm): the one G4 test
    near the line that can be a ruling's margin (G8), none when there are not two."""
    reach = 3.0 + table.beam
    closes = [[n.piece for n in found if n.dist < reach and n.piece not in small] for found in near]
    return _joins_of(table, closes)


def _batch_joins(
    table: Table, n: int, batches: Sequence[NearBatch]
) -> list[tuple[tuple[tuple[str, str], float], ...]]:
    """:func:`_near_joins` of ``n`` pairs read from their near batches, in bulk: the
    blockers within reach of each line picked at once, moved to the front of its row in
    their order; every two of them (in the order of ``itertools.combinations``: the
    positions of every two of the widest row's, those past a row's count left out) looked
    up among the gaps measured once by kernel index
    (:func:`arbitre.rules.frostgrave_margins.gaps_by_index`, the floats of
    ``gaps_between``), the first of least slack kept (as ``min`` keeps it)."""
    reach = 3.0 + table.beam
    tol = table.contact_tolerance
    out: list[tuple[tuple[tuple[str, str], float], ...]] = [()] * n
    size = len(batches[0].ids) if batches else 1
    groups: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for batch in batches:
        k, d, _ = batch.listed()
        ok = (k >= 0) & (d < reach) & ~batch.listed_small
        count = ok.sum(axis=1)
        many = np.flatnonzero(count > 1)
        if not len(many):
            continue
        ok, k, count = ok[many], k[many], count[many]
        c = int(count.max())
        front = np.argsort(~ok, axis=1, kind="stable")[:, :c]  # the blockers first, in order
        close = np.take_along_axis(k, front, axis=1)
        left, right = _every_two(c)
        both = right[None, :] < count[:, None]  # both of the two among the row's blockers
        groups.append((batch.rows[many], close[:, left] * size + close[:, right], both))
    if not groups:
        return out
    ids = batches[0].ids
    every = sight.distinct(np.concatenate([key[ok] for _, key, ok in groups]))
    first, second = every // size, every % size
    gaps = gaps_by_index(table, first, second)
    slack = np.abs(gaps - tol)
    slack[~np.isfinite(slack)] = np.inf
    found = gaps.tolist()
    one, two = first.tolist(), second.tolist()
    for rows, key, ok in groups:
        at = np.where(ok, np.searchsorted(every, key), 0)
        sl = np.where(ok, slack[at], np.inf)
        arg = np.argmin(sl, axis=1)
        line = np.arange(len(rows))
        pick = at[line, arg].tolist()
        fine = np.isfinite(sl[line, arg]).tolist()
        for i, x, keep in zip(rows.tolist(), pick, fine, strict=True):
            if keep:
                out[i] = (((ids[one[x]], ids[two[x]]), found[x]),)
    return out


@lru_cache(maxsize=64)
def _every_two(c: int) -> tuple[np.ndarray, np.ndarray]:
    """The positions of every two of ``c`` items, in ``itertools.combinations``' order."""
    return np.triu_indices(c, 1)


def _joins_of(
    table: Table, closes: Sequence[Sequence[str]]
) -> list[tuple[tuple[tuple[str, str], float], ...]]:
    """For each line, of the blockers ``closes`` near it, the join nearest the contact
    tolerance (see :func:`_near_joins`)."""
    tol = table.contact_tolerance
    needed: set[tuple[str, str]] = set()
    for close in closes:
        if len(close) > 1:
            needed.update(itertools.combinations(close, 2))
    gaps = gaps_between(table, sorted(needed))
    # the slack of each join's test (G8), as Margin.smallest weighs it; none: infinite
    slack = {x: abs(float(gap - tol)) for x, gap in gaps.items()}
    slack = {x: v if math.isfinite(v) else math.inf for x, v in slack.items()}
    out: list[tuple[tuple[tuple[str, str], float], ...]] = []
    for close in closes:
        if len(close) < 2:
            out.append(())
            continue
        # min keeps the first of equal slacks, as the tests in their order would
        x = min(itertools.combinations(close, 2), key=slack.__getitem__)
        out.append(((x, gaps[x]),) if slack[x] < math.inf else ())
    return out


class _Smallest:
    """:meth:`Margin.smallest` taken test by test, the name of a test made only for the
    one that wins: the smallest finite absolute slack, the first of equals."""

    __slots__ = ("arg", "name", "slack")

    def __init__(self) -> None:
        self.slack: float | None = None
        self.name = ""
        self.arg: tuple[str, str] | None = None

    def add(self, slack: float, name: str, arg: tuple[str, str] | None = None) -> None:
        """A test of this slack (mm), named ``name`` (formatted with ``arg`` if any)."""
        value = abs(float(slack))
        if math.isfinite(value) and (self.slack is None or value < self.slack):
            self.slack, self.name, self.arg = value, name, arg

    def margin(self, close_call: float) -> Margin:
        if self.slack is None:
            return NO_MARGIN
        name = self.name if self.arg is None else self.name.format(*self.arg)
        return Margin(self.slack, name, self.slack < close_call)


def _line_batch(
    table: Table,
    pairs: Sequence[tuple[str, str]],
    s: np.ndarray,
    g: np.ndarray,
    openings: Sequence[frozenset[WindowKey]],
    *,
    groups: Sequence[tuple[frozenset[WindowKey], np.ndarray]] | None = None,
    indexes: dict[frozenset[WindowKey], sight.SightIndex] | None = None,
) -> LineBatch:
    """S1 for each pair, traced with its shooter's windows opened (F5): one batch per
    set of openings (``groups``: ``opening_groups`` of ``openings`` if made already;
    ``indexes``: the ask's indexes so far), gathered in pair order."""
    n = len(pairs)
    kept = {} if indexes is None else indexes
    parts = []
    counts = np.zeros(n, np.int64)
    ix: sight.SightIndex | None = None
    for key, rows in opening_groups(openings) if groups is None else groups:
        ix = index_for(table, key, kept)
        batch = sight.centre_line_batch(table, s[rows], g[rows], index=ix)
        via = batch.via if batch.via is not None else np.full(len(batch.piece), -1)
        counts[rows] = np.diff(batch.offsets)
        parts.append((rows, batch, via))
    ids = ix.ids if ix is not None else sight.sight_index(table).ids
    if len(parts) == 1 and len(parts[0][0]) == n:  # every pair in one batch, in order
        _, batch, via = parts[0]
        offsets = np.asarray(batch.offsets, np.int64)
        piece = np.asarray(batch.piece, np.int64)
        return LineBatch(
            ids=ids,
            n_terrain=len(table.terrain),
            offsets=offsets.tolist(),
            piece=piece.tolist(),
            t=batch.t.tolist(),
            via=via.tolist(),
            offsets_array=offsets,
            piece_array=piece,
        )
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    total = int(offsets[-1])
    piece = np.empty(total, np.int64)
    tt = np.empty(total, np.float64)
    vv = np.empty(total, np.int64)
    for rows, batch, via in parts:
        c = np.diff(batch.offsets)
        dest = np.repeat(offsets[rows] - batch.offsets[:-1], c) + np.arange(len(batch.piece))
        piece[dest] = batch.piece
        tt[dest] = batch.t
        vv[dest] = via
    return LineBatch(
        ids=ids,
        n_terrain=len(table.terrain),
        offsets=offsets.tolist(),
        piece=piece.tolist(),
        t=tt.tolist(),
        via=vv.tolist(),
        offsets_array=offsets,
        piece_array=piece,
    )


def _through(
    table: Table,
    pairs: Sequence[tuple[str, str]],
    segs: np.ndarray,
    contacts: dict[str, tuple[WindowContact, ...]],
    *,
    outgoing: bool,
) -> tuple[tuple[Through, ...], ...]:
    """For each pair, its window-side tests (G5 against the window's part of the wall):
    ``outgoing``, whether the centre line goes out through each window the shooter
    stands at (F5); else, whether it comes in through the side of the wall of each
    window the target stands at (F6), the shooter's other windows not counted."""
    rows: list[int] = []
    cs: list[WindowContact] = []
    geoms = []
    end = 0 if outgoing else 1
    if not contacts or contacts.keys().isdisjoint([p[end] for p in pairs]):
        return ((),) * len(pairs)
    for i in [i for i, p in enumerate(pairs) if p[end] in contacts]:
        a, b = pairs[i]
        for c in contacts[a if outgoing else b]:
            fp = wall_of(table, c.wall)
            if outgoing:
                geom = window_slice(fp, c.index)
            else:
                geom = beside_window(fp, c.index)
                for o in contacts.get(a, ()):
                    if o.wall == c.wall and o.index != c.index:
                        cut = shapely.make_valid(window_slice(fp, o.index).buffer(1e-7))
                        geom = shapely.difference(geom, cut)
            rows.append(i)
            cs.append(c)
            geoms.append(geom)
    half = table.beam / 2.0
    grazing = bool(table.option("grazing_blocks", False))
    dist, depth, slack = shape_slacks(segs[rows] if rows else np.zeros((0, 4)), geoms, half)
    found: dict[int, list[Through]] = {}
    for j, i in enumerate(rows):
        hit = crosses(float(dist[j]), float(depth[j]), half, grazing)
        found.setdefault(i, []).append(Through(cs[j], hit, float(dist[j]), float(slack[j])))
    out: list[tuple[Through, ...]] = [()] * len(pairs)
    for i, tests in found.items():
        out[i] = tuple(tests)
    return tuple(out)


def _small_contacts_of(
    table: Table, batch: LineBatch, g: np.ndarray, small: frozenset[str]
) -> tuple[dict[tuple[str, str], bool], dict[tuple[str, str], float]]:
    """:func:`_small_contacts` of the lines of ``batch`` (targets ``g``), the pairs of a
    target and a small piece crossed found in bulk."""
    piece = batch.piece_array
    target = np.repeat(g, np.diff(batch.offsets_array))
    flags = np.asarray([i in small for i in batch.ids[: batch.n_terrain]], np.bool_)
    hit = piece < batch.n_terrain
    hit[hit] = flags[piece[hit]]
    keys = sight.distinct(target[hit] * len(batch.ids) + piece[hit]).tolist()
    ids = batch.ids
    models = ids[batch.n_terrain :]
    crossed = sorted({(models[x // len(ids)], ids[x % len(ids)]) for x in keys})
    return _contacts_of(table, crossed)


def _small_contacts(
    table: Table, lines: Sequence[sight.CentreLine], small: frozenset[str]
) -> tuple[dict[tuple[str, str], bool], dict[tuple[str, str], float]]:
    """F4: for each target and small piece its centre line crosses, whether it touches
    the piece (G4, :func:`arbitre.sight.touching`) and the gap (mm)."""
    crossed = sorted(
        {(line.target, c.piece) for line in lines for c in line.crossings if c.piece in small}
    )
    return _contacts_of(table, crossed)


#: F4 measured lately, by terrain and contact tolerance, then by base (centre, radius)
#: and piece id: whether the base touches the piece, and the gap (mm). A base's contacts
#: depend on nothing else: a dragged model's are measured again, the others' found here.
_TOUCH: dict[
    tuple[tuple[Terrain, ...], float], dict[tuple[float, float, float, str], tuple[bool, float]]
] = {}
_TOUCH_TERRAINS = 4
_TOUCH_PAIRS = 20_000
_TOUCH_LOCK = threading.Lock()


def _contacts_of(
    table: Table, crossed: Sequence[tuple[str, str]]
) -> tuple[dict[tuple[str, str], bool], dict[tuple[str, str], float]]:
    """F4 for these ``(target, small piece)`` pairs: touching, and the gap (mm); those
    measured lately (:data:`_TOUCH`) are not measured again."""
    if not crossed:
        return {}, {}
    keys = []
    for m, p in crossed:
        model = table.model(m)
        keys.append((model.at.x, model.at.y, model.base.radius, p))
    with _TOUCH_LOCK:
        known = entry(_TOUCH, (table.terrain, float(table.contact_tolerance)), _TOUCH_TERRAINS)
        found = [known.get(k) for k in keys]
    missing = [i for i, f in enumerate(found) if f is None]
    if missing:
        touch, gaps = _measure_contacts(table, [crossed[i] for i in missing])
        with _TOUCH_LOCK:
            for i in missing:
                found[i] = known[keys[i]] = (touch[crossed[i]], gaps[crossed[i]])
            trim(known, _TOUCH_PAIRS)
    both = [f for f in found if f is not None]
    return (
        {mp: f[0] for mp, f in zip(crossed, both, strict=True)},
        {mp: f[1] for mp, f in zip(crossed, both, strict=True)},
    )


def _measure_contacts(
    table: Table, crossed: Sequence[tuple[str, str]]
) -> tuple[dict[tuple[str, str], bool], dict[tuple[str, str], float]]:
    """:func:`_contacts_of`, every pair measured."""
    models = sorted({m for m, _ in crossed})
    pieces = sorted({p for _, p in crossed})
    row = {m: j for j, m in enumerate(models)}
    col = {p: j for j, p in enumerate(pieces)}
    terrain = {t.id: k for k, t in enumerate(table.terrain)}
    near = sight.touching(
        table,
        models=[table.model_index(m) for m in models],
        pieces=[terrain[p] for p in pieces],
        index=sight.sight_index(table),
    )
    touch = {(m, p): bool(near[row[m], col[p]]) for m, p in crossed}
    held = [table.model(m) for m, _ in crossed]
    centres = shapely.points([(x.at.x, x.at.y) for x in held])
    shapes = terrain_shapes(table)
    dist = shapely.distance(centres, [shapes[terrain[p]] for _, p in crossed]).tolist()
    gaps = {}
    for (m, p), model, d in zip(crossed, held, dist, strict=True):
        fp = table.terrain[terrain[p]].footprint
        if isinstance(fp, CircleFootprint):
            d = model.at.distance(fp.centre) - fp.radius
        gaps[(m, p)] = float(d) - model.base.radius
    return touch, gaps


@dataclass(slots=True)
class Tally:
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


@dataclass(frozen=True, slots=True)
class PairRule:
    """One pair's tally and its G8 margin."""

    tally: Tally
    margin: Margin


def rule_pair(
    table: Table, m: PairMeasures, i: int, *, close_call: float, margins: bool
) -> PairRule:
    """Rule pair ``i`` of ``m``: F1-F8 with the G5 words; its margin when ``margins``."""
    line = m.lines[i]
    a, b = line.shooter, line.target
    tally = Tally()
    for who in (a, b):
        if who in m.facts.baseless:
            text = T_("{model} has no base: its centre stands for it", model=who)
            tally.reasons.append(Reason("F8", (who,), text))
    tally.reasons.append(Reason("F1", (a, b), _centre_line_words(m, i)))
    near = {n.piece: n for n in m.near[i]} if m.near[i] else {}
    incoming = [t for t in m.in_through[i] if t.crossed]
    views: list[tuple[WindowContact, WindowView]] = []
    if incoming:
        views = _at_window(table, m, i, incoming, tally, margins=margins)
    else:
        _along(table, m, i, tally, near)
    margin = _margin(table, m, i, views, tally, close_call) if margins else Margin()
    return PairRule(tally, margin)


def _centre_line_words(m: PairMeasures, i: int) -> Text:
    """F1 in words: what the centre line passes through, the shooter's windows it goes
    out through included (F5)."""
    line = m.lines[i]
    a, b = line.shooter, line.target
    windows = [
        T_("the window of {wall}", wall=t.contact.wall) for t in m.out_through[i] if t.crossed
    ]
    crossed = [*(c.piece for c in line.crossings), *windows]
    if not crossed:
        return T_("centre line {shooter} -> {target} passes through nothing", shooter=a, target=b)
    return T_(
        "centre line {shooter} -> {target} passes through {crossed}",
        shooter=a,
        target=b,
        crossed=join(crossed),
    )


def _words(table: Table, piece: str, near: dict[str, Near], tally: Tally) -> None:
    """G5: a piece the centre line itself misses but the beam touches, said so."""
    n = near.get(piece) if near else None
    if n is not None and n.dist > 1e-7:
        u = table.unit
        text = T_(
            "passes {gap} from {piece}: within the {beam} beam",
            gap=u.measure(n.dist),
            piece=piece,
            beam=u.measure(table.beam),
        )
        tally.reasons.append(Reason("G5", (piece,), text))


def _along(table: Table, m: PairMeasures, i: int, tally: Tally, near: dict[str, Near]) -> None:
    """F2-F5, F7 along the centre line (no target window on it): bases and large pieces
    block, small pieces give cover, the shooter's window lets the line out (+1)."""
    line = m.lines[i]
    a, b = line.shooter, line.target
    known = m.facts
    shooter_walls = known.walls.get(a, frozenset())
    said = known.said
    for c in line.crossings:
        if c.is_model:
            reason = said.get(("F2 base", c.piece, c.joined))
            if reason is None:
                reason = said[("F2 base", c.piece, c.joined)] = _base_reason(
                    c.piece, c.joined, baseless=c.piece in known.baseless
                )
            tally.blocks(c.piece, reason)
        elif c.piece in known.small:
            tally.gives(c.piece, *known.bonus(b, c.piece, m.touch.get((b, c.piece), False)))
        elif c.piece in shooter_walls:
            text = T_(
                "{shooter} stands at a window of {wall}, but the line crosses {wall} "
                "away from that window: the wall blocks there",
                shooter=a,
                wall=c.piece,
            )
            tally.blocks(c.piece, Reason("F7", (a, c.piece), text))
        else:
            reason = said.get(("large", c.piece))
            if reason is None:
                reason = said[("large", c.piece)] = _large_reason(table.piece(c.piece))
            tally.blocks(c.piece, reason)
        if near:
            _words(table, c.piece, near, tally)
    for t in m.out_through[i]:
        if t.crossed and t.contact.wall not in tally.blockers:
            wall = t.contact.wall
            if tally.blockers:
                text = T_(
                    "{shooter} stands at a window of {wall} and the line goes out through it: "
                    "{shooter} sees from the window",
                    shooter=a,
                    wall=wall,
                )
                tally.reasons.append(Reason("F5", (a, wall), text))
            else:
                tally.gives(wall, 1, Reason("F5", (a, wall), _sees_out(a, wall)))


def _at_window(
    table: Table,
    m: PairMeasures,
    i: int,
    incoming: Sequence[Through],
    tally: Tally,
    *,
    margins: bool,
) -> list[tuple[WindowContact, WindowView]]:
    """F6: the centre line comes in through the side of a wall where the target stands at
    a window: visible with +3 when the shooter sees some point of the opening, whatever
    else lies on the centre line; small pieces on it still add (F3, F4), and the shooter's
    own window the line goes out through (F5, +1, unless it is that same window)."""
    line = m.lines[i]
    a, b = line.shooter, line.target
    views = []
    for t in incoming:
        view = sees_window(
            table, a, b, t.contact.key, m.openings[i], margin_cap=VIEW_REACH if margins else 0.0
        )
        views.append((t.contact, view))
    seen = [(c, v) for c, v in views if v.seen]
    own = {c.key for c in m.contacts.get(a, ())}
    if not seen:
        c = views[0][0]
        text = T_(
            "{target} stands at a window of {wall}, but no clear line from {shooter} reaches "
            "the window's opening",
            target=b,
            wall=c.wall,
            shooter=a,
        )
        tally.blocks(c.wall, Reason("F6", (b, c.wall), text))
        return views
    c, view = seen[0]
    assert view.point is not None
    for t in m.out_through[i]:
        if t.crossed and t.contact.key != c.key:
            wall = t.contact.wall
            tally.gives(wall, 1, Reason("F5", (a, wall), _sees_out(a, wall)))
    at = table.unit.at(view.point.x, view.point.y)
    ignored = [
        x.piece
        for x in line.crossings
        if x.is_model or (table.piece(x.piece).blocks and x.piece != c.wall)
    ]
    text = T_(
        "{target} stands at a window of {wall} and {shooter} sees the window (at {at}): +3",
        target=b,
        wall=c.wall,
        shooter=a,
        at=at,
    )
    if ignored:
        text += T_(
            "; seeing the window is the whole test: {ignored} on the centre line do not block",
            ignored=join(ignored),
        )
    if c.key in own:
        same = T_(
            "{shooter} stands at the same window of {wall}: it sees from it; the window "
            "gives its target +3 (F6), not +1",
            shooter=a,
            wall=c.wall,
        )
        tally.reasons.append(Reason("F5", (a, c.wall), same))
    tally.gives(c.wall, 3, Reason("F6", (b, c.wall), text))
    for x in line.crossings:
        if x.piece in m.facts.small:
            tally.gives(x.piece, *m.facts.bonus(b, x.piece, m.touch.get((b, x.piece), False)))
    return views


def _base_reason(model: str, joined: str | None, *, baseless: bool) -> Reason:
    """F2: the line passes through another model's base (its centre without a base, F8),
    one obstacle with the piece it touches (G4)."""
    text = T_("the line passes through the base of {model}", model=model)
    if baseless:
        text = T_("the line passes through {model} (no base: its centre, F8)", model=model)
    if joined:
        text += T_(", which touches {other}: one obstacle (G4)", other=joined)
    return Reason("F2", (model,), text)


def _sees_out(shooter: str, wall: str) -> Text:
    """F5 in words: the shooter at a window of ``wall`` sees out through it, +1."""
    return T_(
        "{shooter} stands at a window of {wall} and the line goes out through it: "
        "{shooter} sees from the window; +1 cover for the wall",
        shooter=shooter,
        wall=wall,
    )


def _large_reason(piece: Terrain) -> Reason:
    """Why a large piece on the line blocks it: F7 for a wall with windows, else F2."""
    is_wall = isinstance(piece.footprint, WallFootprint)
    if is_wall and piece.footprint.windows:  # type: ignore[union-attr]
        text = T_(
            "the line crosses wall {wall}; its windows open it only for a model touching it "
            "at a window",
            wall=piece.id,
        )
        return Reason("F7", (piece.id,), text)
    if is_wall:
        return Reason("F2", (piece.id,), T_("the line passes through wall {wall}", wall=piece.id))
    text = T_("the line passes through large terrain {piece}", piece=piece.id)
    return Reason("F2", (piece.id,), text)


def _margin(
    table: Table,
    m: PairMeasures,
    i: int,
    views: Sequence[tuple[WindowContact, WindowView]],
    tally: Tally,
    close_call: float,
) -> Margin:
    """G8: the smallest slack among the tests the ruling rests on: the window contacts
    of the shooter and the target (G4), the window-side tests (F5, F6), the F6 view, and
    the beam tests (G5) of the pieces that decide: blockers when the target is not
    visible, every piece (and the F4 contacts) when it is."""
    a, b = m.pairs[i]
    tol = table.contact_tolerance
    visible = not tally.blockers
    best = _Smallest()  # the tests in their order: the first of equal slacks names it
    best.add(REACH, "beam")
    # a window contact decides only where the line goes out (F5) or comes in (F6) through
    # that window's part of the wall: elsewhere, only its side test does (G4, G5)
    if m.window_gaps:
        sides = {(a, t.contact.key): t for t in m.out_through[i]}
        sides.update({(b, t.contact.key): t for t in m.in_through[i]})
        for who in (a, b):
            for w in m.window_gaps.get(who, ()):
                side = sides.get((who, (w.wall, w.index)))
                # F6: the shooter's windows also open its lines to the target's window
                if side is None or side.crossed or (views and who == a):
                    best.add(w.gap - tol, f"window contact {who}-{w.wall}")
    for t in m.out_through[i]:
        best.add(t.slack, f"beam {t.contact.wall} window")
    for t in m.in_through[i]:
        best.add(t.slack, f"beam {t.contact.wall} beside window")
    seen = [v for _, v in views if v.seen]
    if views:
        if seen:
            best.add(max(v.margin for v in seen), f"window view {views[0][0].wall}")
        else:
            for c, v in views:
                best.add(v.margin, f"window view {c.wall}")
    smalls = m.facts.small
    # the beam tests, the least slack kept here first (one call to ``add`` for them all)
    beam: Near | None = None
    least = math.inf
    for n in m.near[i]:
        small = n.piece in smalls
        if views and not small:
            continue  # F6: the centre line's blockers do not decide
        if visible or not small:
            value = abs(n.slack)
            if value < least:  # a nan or an infinite slack is never kept (as in add)
                beam, least = n, value
    if beam is not None:
        best.add(beam.slack, "beam {}", (beam.piece, ""))
    if visible:
        for piece in tally.cover_pieces:
            if (b, piece) in m.gaps:
                best.add(m.gaps[(b, piece)] - tol, "contact {}-{}", (b, piece))
    if not views:
        # G4 near the line: two blockers' gap against the contact tolerance (touching
        # blockers are one obstacle); only the one nearest the tolerance can win here
        for (p, q), gap in m.joins[i]:
            best.add(gap - tol, "contact {}-{}", (p, q))
    return best.margin(close_call)
