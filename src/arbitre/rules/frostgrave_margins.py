"""G5/G8 measures of Frostgrave centre lines, batched: how far each line runs from the
pieces near it, and the slack of each threshold test a ruling rests on.

A line *crosses* a piece when it comes nearer than half the beam (G5). The slack of that
test is how far one end of the line (or the piece) must move to change its answer: for a
piece the line misses, its distance less half the beam; for a piece it crosses, half the
beam plus how deep inside the piece the line runs (the largest distance from a point of
the line inside the piece to the piece's edge, sampled along the line: never more than
the true depth, so the slack is never overstated). Every point of a segment moves by at
most as much as its ends, so a move shorter than the slack keeps the answer (G8).

Distances come from vectorised shapely calls over arrays of segments and pieces, the
pieces near each line found by an STRtree; discs (bases, round terrain) are measured
exactly with numpy.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from arbitre import backend, sight
from arbitre.bounded import trim
from arbitre.geometry import EPS, CircleFootprint, WallFootprint
from arbitre.table import Table, Terrain

#: Pieces farther than this (mm) beyond the beam's edge are not measured one by one: a
#: ruling's beam slack is then at least this, and reported as this at most.
REACH = 50.0
#: Points sampled along the part of a line inside a piece to measure its depth.
SAMPLES = 33
#: Blockers nearer than this (mm) beyond the beam's width to a line are measured against
#: each other for G4 (touching blockers are one obstacle).
JOIN_REACH = 3.0


class Near(NamedTuple):
    """A piece (terrain or base) near a centre line: its id, the distance of the line to
    it (mm, 0 when the line meets it; negative inside a base: the centre distance less
    the radius), and the slack of the G5 crossing test (mm). A named tuple: a line has
    tens of them, and a tuple is made in half the time of a frozen dataclass."""

    piece: str
    dist: float
    slack: float


def segment_depths(lines: np.ndarray, geoms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For aligned arrays of segments and polygons: the distance of each segment to its
    polygon, and (where it meets it) how deep the segment runs inside (sampled)."""
    dist = np.asarray(shapely.distance(lines, geoms), dtype=np.float64)
    depth = np.zeros(len(dist))
    inside = np.flatnonzero(dist <= 0.0)
    if len(inside):
        inter = shapely.intersection(lines[inside], geoms[inside])
        lineal = np.isin(shapely.get_type_id(inter), (1, 5))
        keep = inside[lineal]
        if len(keep):
            fr = np.linspace(0.0, 1.0, SAMPLES)
            parts = np.repeat(inter[lineal], SAMPLES)
            pts = shapely.line_interpolate_point(parts, np.tile(fr, len(keep)), normalized=True)
            edge = np.repeat(shapely.boundary(geoms[keep]), SAMPLES)
            d = np.asarray(shapely.distance(pts, edge)).reshape(len(keep), SAMPLES)
            d = np.where(np.isnan(d), 0.0, d)
            depth[keep] = d.max(axis=1)
    return dist, depth


def crossing_slack(dist: np.ndarray, depth: np.ndarray, half: float) -> np.ndarray:
    """The slack of the G5 test: ``|dist - half|`` off the piece, ``half + depth`` on it."""
    return np.where(dist > 0.0, np.abs(dist - half), half + depth)


def crosses(dist: float, depth: float, half: float, grazing: bool) -> bool:
    """G5 for a distance (and depth inside, for a segment meeting a polygon): nearer than
    half the beam; with no beam, into the interior; exactly at the edge, ``grazing``."""
    if half > EPS:
        if dist < half - EPS:
            return True
        return grazing and dist <= half + EPS
    if dist <= EPS and depth > EPS:
        return True
    return grazing and dist <= half + EPS


def seg_point_dist(segs: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Distances from segments (rows x0, y0, x1, y1) to points (rows x, y), aligned."""
    a, b = segs[:, :2], segs[:, 2:]
    ab = b - a
    n2 = np.einsum("ij,ij->i", ab, ab)
    t = np.where(n2 > 0, np.einsum("ij,ij->i", pts - a, ab) / np.where(n2 > 0, n2, 1), 0.0)
    t = np.clip(t, 0.0, 1.0)
    foot = a + ab * t[:, None]
    return np.asarray(np.hypot(*(pts - foot).T))


@lru_cache(maxsize=64)
def _terrain(table: Table, openings: frozenset[tuple[str, int]]) -> tuple[np.ndarray, object]:
    """The terrain footprints as packed for lines with ``openings`` opened (F5), and
    their STRtree."""
    shapes = []
    for piece in table.terrain:
        fp = piece.footprint
        if isinstance(fp, WallFootprint) and any(w == piece.id for w, _ in openings):
            shapes.append(fp.opened(sorted(k for w, k in openings if w == piece.id)))
        else:
            shapes.append(fp.shape())
    arr = np.asarray(shapes, dtype=object)
    bad = ~shapely.is_valid(arr)
    arr[bad] = shapely.make_valid(arr[bad])  # a mitred wall may cross itself
    return arr, shapely.STRtree(arr)


@dataclass(frozen=True, slots=True, eq=False)
class NearBatch:
    """:func:`near_pieces`'s measures of the pairs ``rows`` (those of one set of openings)
    as the kernel gave them: row ``j``'s pieces nearer than the join reach are
    ``k[j, :counts[j]]`` (kernel indices, in index order) with their distances ``d`` and
    slacks ``s``; ``arg_small``/``min_small`` (``arg_large``/``min_large``) the small
    piece (the other piece) of least slack, -1 for none."""

    rows: np.ndarray
    ids: tuple[str, ...]
    small: np.ndarray
    half: float
    counts: np.ndarray
    k: np.ndarray
    d: np.ndarray
    s: np.ndarray
    arg_small: np.ndarray
    min_small: np.ndarray
    arg_large: np.ndarray
    min_large: np.ndarray

    #: Each row's near list as :func:`near_pieces` makes it, padded (:func:`_listed`).
    lists: tuple[np.ndarray, np.ndarray, np.ndarray]
    #: Whether each piece of :attr:`lists` is small (F3; False past the end).
    listed_small: np.ndarray

    def listed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each row's near list as :func:`near_pieces` makes it, padded: the pieces (-1
        past the end), their distances and slacks; the nearer pieces first, then the two
        least-slack pieces beyond the reach (a small one, then another; -1 where none) at
        their slack plus half the beam."""
        return self.lists

    def near(self, j: int) -> list[Near]:
        """Row ``j``'s near list, as :class:`Near` values."""
        ids, half = self.ids, self.half
        c = int(self.counts[j])
        ks = self.k[j, :c].tolist()
        line = [
            Near(ids[k], d, sl)
            for k, d, sl in zip(ks, self.d[j, :c].tolist(), self.s[j, :c].tolist(), strict=True)
        ]
        for k, sl in (
            (int(self.arg_small[j]), float(self.min_small[j])),
            (int(self.arg_large[j]), float(self.min_large[j])),
        ):
            if k >= 0 and k not in ks:  # beyond ``close``: off it, d = slack + half
                line.append(Near(ids[k], sl + half, sl))
        return line


def _listed(
    counts: np.ndarray,
    near_k: np.ndarray,
    near_d: np.ndarray,
    near_s: np.ndarray,
    extras: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    half: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:meth:`NearBatch.listed` of the kernel's arrays (``extras``: the least-slack small
    piece and other piece, with their slacks)."""
    n, cap = near_k.shape
    col = np.arange(cap)
    inside = col[None, :] < counts[:, None]
    k = np.where(inside, near_k, -1)
    extra_k = np.full((n, 2), -1, np.int64)
    extra_d = np.zeros((n, 2))
    extra_s = np.zeros((n, 2))
    for c, (arg, least) in enumerate(extras):
        listed = (k == arg[:, None]).any(axis=1)
        add = (arg >= 0) & ~listed
        extra_k[add, c] = arg[add]
        extra_s[add, c] = least[add]
        extra_d[add, c] = least[add] + half
    return (
        np.hstack([k, extra_k]),
        np.hstack([np.where(inside, near_d, 0.0), extra_d]),
        np.hstack([np.where(inside, near_s, 0.0), extra_s]),
    )


#: The windows opened for a line (F5): ``(wall id, window index)`` pairs.
Openings = frozenset[tuple[str, int]]


def opening_groups(openings: Sequence[Openings]) -> list[tuple[Openings, np.ndarray]]:
    """The pairs by the windows opened for their lines: each set of openings, in sorted
    order of the sets, with the rows of its pairs in order (one group at once when
    every pair has the same, as when no shooter stands at a window)."""
    if len(set(openings)) <= 1:
        return [(openings[0], np.arange(len(openings), dtype=np.int64))] if openings else []
    groups: dict[Openings, list[int]] = {}
    for i, o in enumerate(openings):
        groups.setdefault(o, []).append(i)
    return [(key, np.asarray(groups[key], dtype=np.int64)) for key in sorted(groups, key=sorted)]


def index_for(
    table: Table, key: Openings, kept: dict[Openings, sight.SightIndex]
) -> sight.SightIndex:
    """:func:`arbitre.sight.sight_index` with ``key`` opened, looked up once an ask
    (``kept``: the indexes of this ask so far, by openings)."""
    ix = kept.get(key)
    if ix is None:
        ix = kept[key] = sight.sight_index(table, openings=key)
    return ix


def near_batches(
    table: Table,
    s: np.ndarray,
    g: np.ndarray,
    openings: Sequence[Openings],
    *,
    groups: Sequence[tuple[Openings, np.ndarray]] | None = None,
    indexes: dict[Openings, sight.SightIndex] | None = None,
) -> list[NearBatch]:
    """:func:`near_pieces`'s kernel measures, one :class:`NearBatch` per set of openings
    (in sorted order of the sets; ``groups``: :func:`opening_groups` of ``openings`` if
    made already; ``indexes``: the ask's indexes so far, :func:`index_for`)."""
    half = table.beam / 2.0
    out: list[NearBatch] = []
    if not len(s):
        return out
    xy, _ = sight.positions(table)
    segs = np.ascontiguousarray(np.hstack([xy[s], xy[g]]))
    close = JOIN_REACH + table.beam
    kept = {} if indexes is None else indexes
    for key, rows in opening_groups(openings) if groups is None else groups:
        ix = index_for(table, key, kept)
        kind, disc, eoff, edges, bbox = ix.packed
        small = np.zeros(ix.n_pieces, dtype=np.bool_)
        small[: ix.n_terrain] = ~ix.blocks[: ix.n_terrain]
        sa = ix.n_terrain + s[rows]
        sb = ix.n_terrain + g[rows]
        cap = 32  # above the count of nearly every line: one kernel call
        k = backend.kernels(len(rows) * ix.work())
        # interpreted, the kernel's loops over segments and pieces are most of a small
        # job's time: its numpy twin measures them all at once (the same floats)
        nearby = sight.line_nearby_numpy if k is backend.interpreted() else k.line_nearby
        while True:
            found = nearby(
                segs[rows], sa, sb, kind, disc, eoff, edges, bbox, ix.n_pieces, small,
                half, half + REACH + 1.0, close, SAMPLES, cap,
            )  # fmt: skip
            if int(found[4].max(initial=0)) <= cap:
                break
            cap = int(found[4].max())
        min_small, arg_small, min_large, arg_large, near_n, near_k, near_d, near_s = found
        # the columns past every row's count hold nothing: the lists without them
        wide = max(int(near_n.max(initial=0)), 1)
        near_k, near_d, near_s = near_k[:, :wide], near_d[:, :wide], near_s[:, :wide]
        lists = _listed(
            near_n, near_k, near_d, near_s, ((arg_small, min_small), (arg_large, min_large)), half
        )
        out.append(
            NearBatch(
                rows=rows,
                ids=ix.ids,
                small=small,
                half=half,
                counts=near_n,
                k=near_k,
                d=near_d,
                s=near_s,
                arg_small=arg_small,
                min_small=min_small,
                arg_large=arg_large,
                min_large=min_large,
                lists=lists,
                listed_small=small[np.maximum(lists[0], 0)] & (lists[0] >= 0),
            )
        )
    return out


def near_pieces(
    table: Table,
    s: np.ndarray,
    g: np.ndarray,
    openings: Sequence[frozenset[tuple[str, int]]],
) -> list[list[Near]]:
    """For each pair of model indices (``s[i]`` shooting ``g[i]``, its shooter's windows
    ``openings[i]`` opened, F5), what its words and margin need of the pieces near its
    centre line: every terrain piece and other base nearer than :data:`JOIN_REACH` plus
    the beam (the G5 words, the G4 joins), and the small piece and the other piece
    (large or a base) whose crossing test has the least slack, if farther (G8), each
    with its distance and slack, measured by one batched kernel call per set of
    openings (``kernels.line_nearby``, :func:`near_batches`)."""
    out: list[list[Near]] = [[] for _ in range(len(s))]
    for batch in near_batches(table, s, g, openings):
        for j, i in enumerate(batch.rows.tolist()):
            out[i] = batch.near(j)
    return out


def shape_slacks(
    segs: np.ndarray, geoms: Sequence[BaseGeometry], half: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For aligned segments and polygons (F5's window, F6's side of a wall): distance,
    depth and slack of the G5 crossing test."""
    if not len(segs):
        z = np.zeros(0)
        return z, z, z
    lines = shapely.linestrings(np.asarray(segs, dtype=np.float64).reshape(-1, 2, 2))
    dist, depth = segment_depths(lines, np.asarray(list(geoms), dtype=object))
    return dist, depth, crossing_slack(dist, depth, half)


#: The terrain footprints' shapes (:meth:`Footprint.shape`) of the terrain tuples seen
#: lately, by identity: the pieces do not move when models do (a dragged model makes a
#: new table with the same terrain), and a shape costs tens of microseconds to build.
_SHAPES: dict[int, tuple[tuple[Terrain, ...], tuple[BaseGeometry, ...]]] = {}


def terrain_shapes(table: Table) -> tuple[BaseGeometry, ...]:
    """Each terrain piece's footprint shape, in table order (built once per terrain)."""
    terrain = table.terrain
    hit = _SHAPES.get(id(terrain))
    if hit is not None and hit[0] is terrain:
        return hit[1]
    shapes = tuple(t.footprint.shape() for t in terrain)
    if len(_SHAPES) >= 16:
        _SHAPES.pop(next(iter(_SHAPES)))
    _SHAPES[id(terrain)] = (terrain, shapes)  # holding the tuple keeps its id unique
    return shapes


#: Each terrain tuple's pieces as :func:`_measure_gaps` measures them, by identity (as
#: :data:`_SHAPES`): a circle's centre and radius, another piece's shape and 0.
_GAP_GEOMS: dict[int, tuple[tuple[Terrain, ...], np.ndarray, np.ndarray]] = {}


def _terrain_gap_geoms(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """Each terrain piece as :func:`_measure_gaps` measures it, in table order: the
    geometries (a circle's centre point, another piece's shape) and the radii."""
    terrain = table.terrain
    hit = _GAP_GEOMS.get(id(terrain))
    if hit is not None and hit[0] is terrain:
        return hit[1], hit[2]
    shaped = terrain_shapes(table)
    geoms = np.empty(len(terrain), dtype=object)
    radii = np.zeros(len(terrain))
    for k, piece in enumerate(terrain):
        fp = piece.footprint
        if isinstance(fp, CircleFootprint):
            geoms[k] = shapely.Point(fp.centre.x, fp.centre.y)
            radii[k] = fp.radius
        else:
            geoms[k] = shaped[k]
    if len(_GAP_GEOMS) >= 16:
        _GAP_GEOMS.pop(next(iter(_GAP_GEOMS)))
    _GAP_GEOMS[id(terrain)] = (terrain, geoms, radii)  # holding the tuple keeps its id unique
    return geoms, radii


def gaps_by_index(table: Table, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """The gap (mm) between pieces ``left[i]`` and ``right[i]`` given by kernel index
    (terrain in table order, then the bases: :attr:`arbitre.sight.SightIndex.ids`), in
    one vectorised call: the very floats of :func:`_measure_gaps` (the same shapes, the
    same centres, the same sums), without naming the pieces."""
    nt = len(table.terrain)
    shapes, sizes = _terrain_gap_geoms(table)
    xy, radii = sight.positions(table)
    geoms = np.empty(nt + len(xy), dtype=object)
    geoms[:nt] = shapes
    bases = sight.distinct(np.concatenate([left, right]))
    bases = bases[bases >= nt]
    geoms[bases] = shapely.points(xy[bases - nt])
    r = np.concatenate([sizes, radii])
    dist = np.asarray(shapely.distance(geoms[left], geoms[right]), dtype=np.float64)
    out: np.ndarray = dist - (r[left] + r[right])
    return out


#: The gaps measured lately, by the content of their two pieces (a base: its centre and
#: radius; a terrain piece: itself), most recent last: a dragged model's gaps are measured
#: again, the others' are found here.
_GAPS: dict[tuple[object, object], float] = {}
_GAPS_KEEP = 20_000
_GAPS_LOCK = threading.Lock()


def gaps_between(table: Table, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], float]:
    """The gap (mm) between each two pieces or bases named (negative where bases overlap;
    0 where a base and a polygon meet), measured in one vectorised call; the gaps of
    pieces measured lately (:data:`_GAPS`) are not measured again."""
    if not pairs:
        return {}
    models = {m.id: m for m in table.models}
    pieces = {t.id: t for t in table.terrain}

    def content(ident: str) -> object:
        m = models.get(ident)
        return pieces[ident] if m is None else (m.at.x, m.at.y, m.base.radius)

    # each piece's content made once (a piece is in several pairs)
    of = {x: content(x) for x in {x for pq in pairs for x in pq}}
    keys = [(of[p], of[q]) for p, q in pairs]
    with _GAPS_LOCK:
        known = [_GAPS.get(key) for key in keys]
    missing = [i for i, v in enumerate(known) if v is None]
    if missing:
        measured = _measure_gaps(table, [pairs[i] for i in missing])
        with _GAPS_LOCK:
            for i in missing:
                known[i] = _GAPS[keys[i]] = measured[pairs[i]]
            trim(_GAPS, _GAPS_KEEP)
    return {pq: float(v) for pq, v in zip(pairs, known, strict=True)}  # type: ignore[arg-type]


def _measure_gaps(table: Table, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], float]:
    """:func:`gaps_between`, every gap measured."""
    models = {m.id: m for m in table.models}
    pieces = {t.id: k for k, t in enumerate(table.terrain)}
    shaped = terrain_shapes(table)

    def geom(ident: str) -> tuple[BaseGeometry, float]:
        if ident in models:
            m = models[ident]
            return shapely.Point(m.at.x, m.at.y), m.base.radius
        fp = table.terrain[pieces[ident]].footprint
        if isinstance(fp, CircleFootprint):
            return shapely.Point(fp.centre.x, fp.centre.y), fp.radius
        return shaped[pieces[ident]], 0.0

    named = sorted({x for p in pairs for x in p})
    bases = [i for i in named if i in models]
    shapes = {i: geom(i) for i in named if i not in models}
    centres = shapely.points(
        np.asarray([(models[i].at.x, models[i].at.y) for i in bases]).reshape(-1, 2)
    )
    shapes.update((i, (c, models[i].base.radius)) for i, c in zip(bases, centres, strict=True))
    left = np.asarray([shapes[p][0] for p, _ in pairs], dtype=object)
    right = np.asarray([shapes[q][0] for _, q in pairs], dtype=object)
    radii = np.asarray([shapes[p][1] + shapes[q][1] for p, q in pairs])
    dist = np.asarray(shapely.distance(left, right), dtype=np.float64) - radii
    return {pq: float(d) for pq, d in zip(pairs, dist, strict=True)}
