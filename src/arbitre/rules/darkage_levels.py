"""The grown and shrunk sight indexes of the Dark Age G8 margins, each derived from the
table's pieces in a fraction of a fresh build.

A margin level's index (:func:`arbitre.sight.build_index` with ``erode``) differs from
the plain one by a few distances: every piece and base offset by the level, and the G4
bridges that the offset contact test finds. The terrain's part does not move with the
models (packed once per terrain and level, :func:`_terrain_part`); the bases are discs
whose radii shrink or grow; and the only bridges that involve a base are those of the
few bases that come near another piece once offset. So a level packs every base itself
and measures bridges only on a copy of the table holding those few bases (the very
measure of a fresh build, on the same pieces, so the same bridges in the same order),
then puts them back in the whole table's numbering.

Which bases may touch something at a level comes from the true gaps, measured once per
table (:class:`Gaps`), bounded the safe way: an offset never brings two pieces nearer
than the bound says (a shrunk polygon lies at least ``erode`` inside the true one, a
grown one at most five times the growth outside it: the mitre limit of the offset).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np
import shapely

from arbitre import backend, bounded, sight
from arbitre.geometry import CircleFootprint, WallFootprint
from arbitre.table import Table, Terrain

_K = backend.interpreted()

#: The most a grown polygon reaches past the true one, per mm of growth (the offset's
#: mitre limit is 5), with room to spare.
_MITRE = 6.0

#: Slack of the candidate bounds (mm): they only choose the bases measured.
_SLACK = 1e-3

#: Room for rounding where a gap is measured again on the offset pieces (mm).
_ROUND = 1e-5


@dataclass(frozen=True, slots=True, eq=False)
class _TerrainShapes:
    """The terrain's true footprints for the gap bounds: the circles' indices, the other
    pieces' indices, shapes and boxes (windows closed: a wall with its windows opened is
    part of the whole one, and no nearer), and which pieces have a footprint GEOS finds
    invalid (packed, it may be mended into another shape: no bound is trusted there)."""

    circle: np.ndarray
    poly: np.ndarray
    shapes: np.ndarray
    bounds: np.ndarray
    odd: np.ndarray


@lru_cache(maxsize=16)
def _terrain_shapes(terrain: tuple[Terrain, ...]) -> _TerrainShapes:
    circle, poly, shapes = [], [], []
    odd = np.zeros(len(terrain), np.bool_)
    for k, piece in enumerate(terrain):
        fp = piece.footprint
        if isinstance(fp, CircleFootprint):
            circle.append(k)
            continue
        poly.append(k)
        shapes.append(fp.shape())
        odd[k] = not shapes[-1].is_valid or (
            isinstance(fp, WallFootprint) and not fp.solid().is_valid
        )
    geoms = np.asarray(shapes, dtype=np.object_)
    return _TerrainShapes(
        np.asarray(circle, np.int64),
        np.asarray(poly, np.int64),
        geoms,
        shapely.bounds(geoms).reshape(-1, 4) if len(geoms) else np.zeros((0, 4)),
        odd,
    )


@dataclass(frozen=True, slots=True, eq=False)
class Gaps:
    """The near pairs of a table with a base, found once on the true pieces: pairs of
    bases ``(i, j)`` and their centre distance, bases and circular pieces (model,
    terrain index, centre distance), bases and other pieces (model, terrain index)."""

    mm: tuple[np.ndarray, np.ndarray, np.ndarray]
    mc: tuple[np.ndarray, np.ndarray, np.ndarray]
    mp: tuple[np.ndarray, np.ndarray]


def gaps(table: Table, within: float) -> Gaps:
    """The pairs with a base whose true gap is at most ``within`` (mm), and a few more."""
    xy, r = sight.positions(table)
    n = len(r)
    reach = within + 1e-6
    # bases: a sweep along x, then the exact gap
    order = np.argsort(xy[:, 0], kind="stable")
    xs = xy[order, 0]
    rmax = float(r.max()) if n else 0.0
    hi = np.searchsorted(xs, xs + 2.0 * rmax + reach, side="right")
    counts = hi - np.arange(1, n + 1)
    first = np.repeat(np.arange(n), counts)
    start = np.repeat(np.cumsum(counts) - counts, counts)
    second = first + 1 + np.arange(int(counts.sum())) - start
    a, b = order[first], order[second]
    d = np.hypot(*(xy[a] - xy[b]).T) if len(a) else np.zeros(0)
    ok = d - r[a] - r[b] <= reach
    mm = (a[ok], b[ok], d[ok])
    ts = _terrain_shapes(table.terrain)
    none = np.zeros(0, np.int64)
    mc: tuple[np.ndarray, np.ndarray, np.ndarray] = (none, none, np.zeros(0))
    if len(ts.circle) and n:
        fps = [table.terrain[k].footprint for k in ts.circle.tolist()]
        cxyr = np.asarray(
            [(fp.centre.x, fp.centre.y, fp.radius) for fp in fps if isinstance(fp, CircleFootprint)]
        )
        dc = np.hypot(xy[:, None, 0] - cxyr[None, :, 0], xy[:, None, 1] - cxyr[None, :, 1])
        m, c = np.nonzero(dc - r[:, None] - cxyr[None, :, 2] <= reach)
        mc = (m, ts.circle[c], dc[m, c])
    mp: tuple[np.ndarray, np.ndarray] = (none, none)
    if len(ts.poly) and n:
        room = (r + reach)[:, None]
        bx = ts.bounds
        near = (xy[:, 0:1] >= bx[None, :, 0] - room) & (xy[:, 0:1] <= bx[None, :, 2] + room)
        near &= (xy[:, 1:2] >= bx[None, :, 1] - room) & (xy[:, 1:2] <= bx[None, :, 3] + room)
        m, q = np.nonzero(near)
        dist = np.asarray(shapely.distance(shapely.points(xy[m]), ts.shapes[q]), np.float64)
        keep = dist - r[m] <= reach
        mp = (m[keep], ts.poly[q[keep]])
    return Gaps(mm, mc, mp)


@dataclass(frozen=True, slots=True, eq=False)
class Near:
    """What may touch at one level: the pairs of discs (bases, and a base with a round
    piece) whose offset gap is about within the reach, as kernel pieces ``(k, j)``,
    ``k < j``; and the bases that may touch a polygon (then a copy of the table measures
    their bridges, :func:`level_index`)."""

    discs: np.ndarray
    polygonal: np.ndarray

    def models(self, n_terrain: int) -> np.ndarray:
        """Every base that may touch something (model indices, sorted)."""
        inside = self.discs[self.discs >= n_terrain] - n_terrain
        return sight.distinct(np.concatenate([inside, self.polygonal])).astype(np.int64)


def candidates(
    table: Table,
    found: Gaps,
    terrain: sight.SightIndex,
    erode: float,
    common: Shared | None = None,
) -> Near:
    """The pieces that may have a G4 bridge with a base on ``table`` offset by ``erode``
    (``terrain``: the terrain's part of that index): a superset of those of
    :func:`arbitre.sight.build_index`. A bridge joins two pieces that do not overlap,
    their gap at most the reach; the gaps are measured again on the offset pieces, with
    room for rounding (only where the true gaps let them come that near). ``common``:
    the table's shared arrays, when the caller has them (:func:`shared`)."""
    none = np.zeros(0, np.int64)
    reach = table.contact_tolerance + erode + 10 * _K.EPS
    if reach < -_K.EPS:  # no gap is that small without an overlap
        return Near(none.reshape(0, 2), none)
    lo, hi = -_K.EPS - _ROUND, reach + _ROUND
    nt = len(table.terrain)
    xy, r = (common.xy, common.r) if common is not None else sight.positions(table)
    rr = np.maximum(r - erode, 0.0)
    a, b, d = found.mm
    gap = d - rr[a] - rr[b]
    hit = (gap >= lo) & (gap <= hi)
    pairs = [np.column_stack([nt + np.minimum(a[hit], b[hit]), nt + np.maximum(a[hit], b[hit])])]
    m, c, dc = found.mc
    hit = (dc - rr[m] - terrain.disc[c, 2] >= lo) & (dc - rr[m] - terrain.disc[c, 2] <= hi)
    pairs.append(np.column_stack([c[hit], nt + m[hit]]))
    polygonal = none
    m, q = found.mp
    if len(m):
        edges = backend.piece_sizes(terrain.kind, terrain.eoff)[q]
        signed = backend.kernels(int(edges.sum()), "arbitre.kernels_darkage").outline_gaps(
            np.ascontiguousarray(xy[m]),
            q,
            terrain.eoff,
            terrain.edges,
        )  # the centre's distance to the offset outline, negative inside
        near = np.abs(signed) - rr[m]
        ok = (signed >= -_ROUND) & (near >= lo) & (near <= hi)
        odd = common.odd if common is not None else _terrain_shapes(table.terrain).odd
        polygonal = sight.distinct(m[ok | odd[q]]).astype(np.int64)
    return Near(np.vstack(pairs).astype(np.int64).reshape(-1, 2), polygonal)


def _disc_bridges(
    disc: np.ndarray, pairs: np.ndarray, tolerance: float
) -> tuple[np.ndarray, np.ndarray]:
    """G4 between discs, as :func:`arbitre.sight.build_index` measures two discs: the
    pairs ``(k, j)`` of ``pairs`` (kernel pieces, discs ``disc[k]``) that touch without
    overlapping, in order of ``k`` then ``j``, and the segments joining their rims."""
    reach = tolerance + 10 * _K.EPS
    ends: list[tuple[int, int]] = []
    segs: list[tuple[float, float, float, float]] = []
    for k, j in sorted(set(map(tuple, pairs.tolist()))):
        (ax, ay, ar), (bx, by, br) = disc[k].tolist(), disc[j].tolist()
        d = math.hypot(bx - ax, by - ay)
        if d - ar - br > reach or d - ar - br < -_K.EPS or d == 0.0:
            continue
        ux, uy = (bx - ax) / d, (by - ay) / d
        ends.append((k, j))
        segs.append((ax + ar * ux, ay + ar * uy, bx - br * ux, by - br * uy))
    return np.asarray(ends, np.int64).reshape(-1, 2), np.asarray(segs, np.float64).reshape(-1, 4)


@lru_cache(maxsize=64)
def _terrain_part(bare: Table, solid: frozenset[str], erode: float) -> sight.SightIndex:
    """The terrain alone packed at ``erode`` (``bare``: the table without models, under
    no name): the pieces as every table with this terrain packs them, and their bridges."""
    return sight.build_index(bare, solid=solid, erode=erode)


#: How many indexes of the few bases near a polygon :func:`_near_index` keeps (a
#: table's levels need at most one each; the last few tables').
_NEAR_KEEP = 48


def _near_key(
    table: Table, common: Shared, keep: np.ndarray, solid: frozenset[str], erode: float
) -> tuple[object, ...]:
    """What :func:`_near_index` depends on: the terrain, the kept bases' ids, centres and
    radii, the contact tolerance and the beam (as :func:`arbitre.sight.sight_index` keys
    its own), the walls opened and the offset."""
    ids = common.ids
    return (
        common.bare,  # the terrain (its hash kept)
        tuple([ids[k] for k in keep.tolist()]),
        common.xy[keep].tobytes(),
        common.r[keep].tobytes(),
        float(table.contact_tolerance),
        float(table.beam),
        solid,
        float(erode),
    )


@bounded.kept_by(_near_key, _NEAR_KEEP)
def _near_index(
    table: Table, common: Shared, keep: np.ndarray, solid: frozenset[str], erode: float
) -> sight.SightIndex:
    """``sight.build_index(sub, solid=solid, erode=erode)`` of ``sub``, the copy of
    ``table`` holding only its bases ``keep`` (those near a piece), kept by what it
    depends on (:func:`_near_key`): on the page a drag moves one model, and the levels
    of the next ruling find the same few bases again unless it is one."""
    sub = replace(table, models=tuple(table.models[k] for k in keep.tolist()))
    return sight.build_index(sub, solid=solid, erode=erode)


@dataclass(frozen=True, slots=True, eq=False)
class Shared:
    """What every level of a table shares: the near pairs (:func:`gaps`), the table
    without its models under no name (the terrain's key), the bases' ids, centres and
    radii, and the terrain's odd footprints."""

    found: Gaps
    bare: Table
    ids: tuple[str, ...]
    xy: np.ndarray
    r: np.ndarray
    #: Which terrain pieces have a footprint GEOS finds invalid (:class:`_TerrainShapes`).
    odd: np.ndarray


def shared(table: Table, within: float) -> Shared:
    """:class:`Shared` for ``table``, its near pairs within ``within`` mm."""
    xy, r = sight.positions(table)
    bare = replace(table, models=(), name="")
    odd = _terrain_shapes(table.terrain).odd
    return Shared(gaps(table, within), bare, tuple(m.id for m in table.models), xy, r, odd)


def level_index(
    table: Table, common: Shared, solid: frozenset[str], erode: float
) -> sight.SightIndex:
    """``sight.build_index(table, solid=solid, erode=erode)``, array for array: the
    terrain's part packed once, every base packed here, and the bridges measured only
    on a copy holding the bases :func:`candidates` names (see the module)."""
    tp = _terrain_part(common.bare, solid, float(erode))
    near = candidates(table, common.found, tp, erode, common)
    n = len(common.ids)
    xy = common.xy
    radii = np.maximum(common.r - erode, 0.0)
    model_disc = np.column_stack([xy[:, 0], xy[:, 1], radii]).reshape(-1, 3)
    x, y = model_disc[:, 0], model_disc[:, 1]
    boxes = np.column_stack([x - radii, y - radii, x + radii, y + radii]).reshape(-1, 4)
    kind = np.concatenate([tp.kind, np.full(n, _K.DISC, np.int8)])
    disc = np.vstack([tp.disc, model_disc])
    eoff = np.concatenate([tp.eoff, np.full(n, tp.eoff[-1], np.int64)])
    bbox = np.vstack([tp.bbox, boxes])
    blocks = np.concatenate([tp.blocks, np.ones(n, np.bool_)])
    return _assembled(table, common, solid, erode, tp, near, (kind, disc, eoff, bbox, blocks))


@dataclass(frozen=True, slots=True, eq=False)
class _Stack:
    """The terrain's parts of several levels (:func:`_terrain_part`), their arrays a row
    a level (``kind``, ``disc``, ``eoff``, ``bbox``, ``blocks``), their polygons packed
    one after another for :func:`arbitre.kernels_darkage.outline_gaps` (level ``k``'s
    piece ``q`` is ``k * n_terrain + q``) and the size of each piece (edges) per level."""

    tps: tuple[sight.SightIndex, ...]
    kind: np.ndarray
    disc: np.ndarray
    eoff: np.ndarray
    bbox: np.ndarray
    blocks: np.ndarray
    outline_eoff: np.ndarray
    outline_edges: np.ndarray
    sizes: np.ndarray


@lru_cache(maxsize=8)
def _stack(bare: Table, keys: tuple[tuple[frozenset[str], float], ...]) -> _Stack | None:
    """:class:`_Stack` of the levels ``keys`` of the terrain of ``bare`` (kept by the
    terrain: on the page a drag moves a model, not the terrain); None when the parts do
    not stack (not the same number of pieces, or arrays of another shape)."""
    tps = tuple(_terrain_part(bare, solid, e) for solid, e in keys)
    nt = tps[0].n_terrain
    if any(
        tp.n_terrain != nt
        or tp.disc.ndim != 2
        or tp.bbox.ndim != 2
        or len(tp.kind) != nt
        or len(tp.eoff) != nt + 1
        for tp in tps
    ):
        return None
    counts = [len(tp.edges) for tp in tps]
    first_edge = np.cumsum([0, *counts[:-1]])
    outline_eoff = np.concatenate(
        [tp.eoff[:-1] + e for tp, e in zip(tps, first_edge.tolist(), strict=True)]
        + [np.asarray([sum(counts)], np.int64)]
    )
    return _Stack(
        tps,
        np.stack([tp.kind for tp in tps]),
        np.stack([tp.disc for tp in tps]),
        np.stack([tp.eoff for tp in tps]),
        np.stack([tp.bbox for tp in tps]),
        np.stack([tp.blocks for tp in tps]),
        outline_eoff,
        np.ascontiguousarray(np.vstack([tp.edges for tp in tps])),
        np.stack([backend.piece_sizes(tp.kind, tp.eoff) for tp in tps]),
    )


def level_indexes(
    table: Table, common: Shared, keys: Sequence[tuple[frozenset[str], float]]
) -> list[sight.SightIndex]:
    """:func:`level_index` of each ``(solid, erode)`` of ``keys``, array for array, the
    work shared: the terrain's parts stacked once per terrain (:func:`_stack`), the
    bases packed and the near pairs measured for every level at once (each level's
    arrays a row of one array), only the bridges measured level by level."""
    asked = tuple((frozenset(solid), float(e)) for solid, e in keys)
    n = len(common.ids)
    st = _stack(common.bare, asked) if n and asked else None
    if st is None:
        return [level_index(table, common, solid, e) for solid, e in asked]
    tps = st.tps
    nt = tps[0].n_terrain
    depth = len(asked)
    grow = np.asarray([e for _, e in asked], np.float64)
    xy, r = common.xy, common.r
    radii = np.maximum(r[None, :] - grow[:, None], 0.0)  # (level, base)
    kind = np.empty((depth, nt + n), np.result_type(st.kind, np.int8))
    disc = np.empty((depth, nt + n, 3), np.result_type(st.disc, np.float64))
    eoff = np.empty((depth, nt + n + 1), np.result_type(st.eoff, np.int64))
    bbox = np.empty((depth, nt + n, 4), np.result_type(st.bbox, np.float64))
    blocks = np.empty((depth, nt + n), np.result_type(st.blocks, np.bool_))
    kind[:, :nt] = st.kind
    disc[:, :nt] = st.disc
    eoff[:, : nt + 1] = st.eoff
    eoff[:, nt + 1 :] = st.eoff[:, -1:]
    bbox[:, :nt] = st.bbox
    blocks[:, :nt] = st.blocks
    kind[:, nt:] = _K.DISC
    blocks[:, nt:] = True
    disc[:, nt:, 0] = xy[:, 0]
    disc[:, nt:, 1] = xy[:, 1]
    disc[:, nt:, 2] = radii
    bbox[:, nt:, 0] = xy[:, 0] - radii
    bbox[:, nt:, 1] = xy[:, 1] - radii
    bbox[:, nt:, 2] = xy[:, 0] + radii
    bbox[:, nt:, 3] = xy[:, 1] + radii
    nears = _candidates_many(table, common, st, grow, radii)
    return [
        _assembled(
            table,
            common,
            solid,
            e,
            tp,
            near,
            (kind[k], disc[k], eoff[k], bbox[k], blocks[k]),
        )
        for k, ((solid, e), tp, near) in enumerate(zip(asked, tps, nears, strict=True))
    ]


def _candidates_many(
    table: Table, common: Shared, st: _Stack, grow: np.ndarray, radii: np.ndarray
) -> list[Near]:
    """:func:`candidates` at each level of ``grow`` (``st``: the terrain's parts,
    ``radii``: the bases' radii, a row a level), measured for every level at once."""
    none = np.zeros(0, np.int64)
    nt = st.tps[0].n_terrain
    found = common.found
    reach = table.contact_tolerance + grow + 10 * _K.EPS
    lo, hi = -_K.EPS - _ROUND, (reach + _ROUND)[:, None]
    a, b, d = found.mm
    gap = d[None, :] - radii[:, a] - radii[:, b]
    hit_mm = (gap >= lo) & (gap <= hi)
    first = nt + np.minimum(a, b)
    second = nt + np.maximum(a, b)
    m, c, dc = found.mc
    gap = dc[None, :] - radii[:, m] - st.disc[:, c, 2]
    hit_mc = (gap >= lo) & (gap <= hi)
    mp, q = found.mp
    if len(mp):  # bases near a polygon: every level's outline gaps in one kernel call
        piece = (q[None, :] + nt * np.arange(len(grow))[:, None]).ravel()
        signed = (
            backend.kernels(int(st.sizes[:, q].sum()), "arbitre.kernels_darkage")
            .outline_gaps(
                np.ascontiguousarray(np.tile(common.xy[mp], (len(grow), 1))),
                piece,
                st.outline_eoff,
                st.outline_edges,
            )
            .reshape(len(grow), -1)
        )  # the centre's distance to the offset outline, negative inside
        near = np.abs(signed) - radii[:, mp]
        mp_ok = (signed >= -_ROUND) & (near >= lo) & (near <= hi) | common.odd[q][None, :]
    out = []
    some = (hit_mm.any(axis=1) | hit_mc.any(axis=1)).tolist()
    for k in range(len(grow)):
        if reach[k] < -_K.EPS:  # no gap is that small without an overlap
            out.append(Near(none.reshape(0, 2), none))
            continue
        polygonal = sight.distinct(mp[mp_ok[k]]).astype(np.int64) if len(mp) else none
        if not some[k]:
            out.append(Near(none.reshape(0, 2), polygonal))
            continue
        hm, hc = hit_mm[k], hit_mc[k]
        pairs = [
            np.column_stack([first[hm], second[hm]]),
            np.column_stack([c[hc], nt + m[hc]]),
        ]
        out.append(Near(np.vstack(pairs).astype(np.int64).reshape(-1, 2), polygonal))
    return out


def _assembled(
    table: Table,
    common: Shared,
    solid: frozenset[str],
    erode: float,
    tp: sight.SightIndex,
    near: Near,
    real: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> sight.SightIndex:
    """The level's index from its real pieces ``real`` (kind, disc, eoff, bbox,
    blocks: the terrain's part ``tp`` and every base) and the bridges of the pieces
    ``near`` names (see :func:`level_index`)."""
    kind, disc, eoff, bbox, blocks = real
    nt = tp.n_terrain
    ends = tp.bridge_ends
    full: tuple[np.ndarray, ...] = tp.full if len(ends) else ()
    if len(near.polygonal):  # a copy of the table with those bases measures them
        keep = near.models(nt)
        built = _near_index(table, common, keep, solid, erode)
        ends = built.bridge_ends.copy()
        if len(ends):
            renumber = np.concatenate([np.arange(nt), nt + keep]).astype(np.int64)
            ends = renumber[ends]
            k0, d0, e0, g0, b0 = built.full
            tail = slice(built.n_pieces, None)
            bridge_disc = d0[tail].copy()
            bridge_disc[:, 0:2] = ends.astype(np.float64)
            full = (
                np.concatenate([kind, k0[tail]]),
                np.vstack([disc, bridge_disc]),
                np.concatenate([eoff, e0[built.n_pieces + 1 :]]),
                g0,
                np.vstack([bbox, b0[tail]]),
            )
    elif len(near.discs):  # bases and round pieces only: measured here, as there
        found, segs = _disc_bridges(disc, near.discs, table.contact_tolerance + erode)
        if len(found):
            known = tp.full[3][len(tp.edges) :: 2] if len(ends) else np.zeros((0, 4))
            both = np.vstack([ends, found])
            order = np.lexsort((both[:, 1], both[:, 0]))
            ends = both[order]
            full = sight.with_bridges(
                (kind, disc, eoff, tp.edges, bbox), ends, np.vstack([known, segs])[order]
            )
    if len(ends) and full is tp.full:  # the terrain's own bridges only
        full = sight.with_bridges(
            (kind, disc, eoff, tp.edges, bbox), ends, tp.full[3][len(tp.edges) :: 2]
        )
    return sight.SightIndex(
        ids=tp.ids + common.ids,
        n_terrain=nt,
        kind=kind,
        disc=disc,
        eoff=eoff,
        edges=tp.edges,
        bbox=bbox,
        blocks=blocks,
        half=table.beam / 2.0,
        bridge_ends=np.asarray(ends, np.int64).reshape(-1, 2),
        full=full,
    )


@dataclass(eq=False)
class Levels:
    """A table's offset indexes, built as asked and kept: by ``(solid, erode)``."""

    table: Table
    within: float
    common: Shared | None = None
    built: dict[tuple[frozenset[str], float], sight.SightIndex] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def index(self, solid: frozenset[str], erode: float) -> sight.SightIndex:
        """The index of the table offset by ``erode`` with the walls ``solid`` opened."""
        key = (frozenset(solid), float(erode))
        got = self.built.get(key)
        if got is None:
            got = level_index(self.table, self.shared(), key[0], key[1])
            self.built[key] = got
        return got

    def indexes(self, asked: Sequence[tuple[frozenset[str], float]]) -> list[sight.SightIndex]:
        """:meth:`index` of each ``(solid, erode)`` asked, those not built yet built at
        once (:func:`level_indexes`)."""
        keys = [(frozenset(solid), float(e)) for solid, e in asked]
        missing = list(dict.fromkeys(k for k in keys if k not in self.built))
        if missing:
            made = level_indexes(self.table, self.shared(), missing)
            for key, got in zip(missing, made, strict=True):
                self.built.setdefault(key, got)
        return [self.built[k] for k in keys]

    def shared(self) -> Shared:
        """What every level of the table shares (:func:`shared`), found once."""
        with self.lock:
            if self.common is None:
                self.common = shared(self.table, self.within)
            return self.common

    def terrain(self, solid: frozenset[str], erode: float) -> sight.SightIndex:
        """The terrain alone packed at ``erode`` with the walls ``solid`` opened: the
        first pieces of :meth:`index`, array for array (kept by the terrain)."""
        return _terrain_part(self.shared().bare, frozenset(solid), float(erode))


#: How many tables' :class:`Levels` :func:`levels` keeps.
_LEVELS_KEPT = 4


@bounded.kept_by(lambda table, largest: (sight.geometry_key(table), float(largest)), _LEVELS_KEPT)
def levels(table: Table, largest: float) -> Levels:
    """The offset indexes of ``table`` for levels up to ``largest`` mm, kept for the last
    few tables by what they rest on (:func:`arbitre.sight.geometry_key`: the terrain,
    the bases, the tolerance and the beam), not by the table: the margins and the
    windows' reasons of one ruling share them, and so do the rulings of an equal table
    under another name, options or question (the page asks again when the question or
    the language changes)."""
    tol = table.contact_tolerance
    return Levels(table, tol + max(largest, _MITRE * (tol + _SLACK)) + 0.1)
