"""Sight measures shared by the rulesets (S1, S2), batched over many pairs.

A table's pieces are packed once into a :class:`SightIndex` (terrain first, then the
models' bases), and every question goes to the compiled kernels of
:mod:`arbitre.kernels`. The beam rule of G5 applies throughout: a line crosses a piece
when it comes nearer than half the table's ``beam`` to it (meets its interior for a
beam of 0); exactly at the beam's edge it grazes, which counts only with the
``grazing_blocks`` option. A line never crosses the bases of its own two ends.

G4: blockers that touch (gap at most the contact tolerance, :func:`in_contact`) form one
obstacle. The index joins each such pair by a *bridge*, the segment between their
nearest points, that every kernel counts as a blocker of zero width (crossed by any line
that passes between the two, whatever the beam) when both its ends block for the
question asked and neither is an end of the line. A line separating two convex blockers
crosses that segment. Bridges live past the real pieces in the kernels' arrays only
(:attr:`SightIndex.packed`); what the rulesets see (``ids``, ``kind``, ``blocks``...)
are the real pieces, and a line stopped by a bridge is reported as stopped by its ends.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ParamSpec

import numpy as np
import shapely
import shapely.ops
from shapely.geometry.base import BaseGeometry

from arbitre import backend, bounded
from arbitre.bounded import trim
from arbitre.geometry import CircleFootprint, Point, WallFootprint
from arbitre.sight_twins import line_nearby_numpy as line_nearby_numpy  # re-exported
from arbitre.sight_twins import visible_share_numpy
from arbitre.table import Model, Table, Terrain

#: Kind codes and tolerance of the kernels (read without loading numba).
_K = backend.interpreted()


@dataclass(frozen=True, slots=True, eq=False)
class SightIndex:
    """The pieces of a table packed for the kernels: terrain ``0..T-1``, then bases."""

    ids: tuple[str, ...]
    n_terrain: int
    kind: np.ndarray
    disc: np.ndarray
    eoff: np.ndarray
    edges: np.ndarray
    bbox: np.ndarray
    blocks: np.ndarray
    half: float
    #: G4: ``(k, j)`` piece indices of each pair of touching pieces (its bridge).
    bridge_ends: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    #: The kernels' arrays with the bridges after the real pieces (see :attr:`packed`).
    full: tuple[np.ndarray, ...] = ()

    @property
    def n_pieces(self) -> int:
        """The real pieces (terrain and bases), the bridges not counted."""
        return len(self.ids)

    def bridge_pairs(self) -> tuple[tuple[str, str], ...]:
        """G4: the ids of each pair of touching pieces, in bridge order."""
        return tuple((self.ids[i], self.ids[j]) for i, j in self.bridge_ends.tolist())

    def mask(self, flags: np.ndarray | None = None) -> np.ndarray:
        """Per-piece flags (default: ``blocks``) extended to the bridges: a bridge is
        flagged when both its ends are (G4). Flags given for bridges are recomputed."""
        real = np.asarray(self.blocks if flags is None else flags)[: self.n_pieces]
        e = self.bridge_ends
        return np.concatenate([real, real[e[:, 0]] & real[e[:, 1]]]).astype(real.dtype)

    def ends(self, k: int) -> tuple[int, ...]:
        """The real pieces behind kernel piece ``k``: itself, or a bridge's two ends."""
        if k < self.n_pieces:
            return (k,)
        i, j = self.bridge_ends[k - self.n_pieces]
        return (int(i), int(j))

    def model_piece(self, model_index: int) -> int:
        return self.n_terrain + model_index

    def work(
        self,
        pieces: Sequence[int] | np.ndarray | None = None,
        *,
        each: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> int:
        """The work of one pair against ``pieces`` (default: all) in elementary tests:
        ``each`` of the pieces' sizes (:func:`arbitre.backend.piece_sizes`: 1 a disc, its
        edges a polygon) summed; by default the size itself (S1, G4: each edge once)."""
        kind, _, eoff, _, _ = self.packed  # the bridges (G4) after the real pieces
        sizes = backend.piece_sizes(kind, eoff)
        if pieces is not None:
            sizes = sizes[np.asarray(pieces, dtype=np.int64)]
        return int((sizes if each is None else each(sizes)).sum())

    @property
    def packed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The arrays every kernel takes, in their order: kind, disc, eoff, edges, bbox,
        the G4 bridges after the real pieces (give the kernels masks from :meth:`mask`)."""
        if not self.full:
            return self.kind, self.disc, self.eoff, self.edges, self.bbox
        kind, disc, eoff, edges, bbox = self.full
        return kind, disc, eoff, edges, bbox


def share_work(n: np.ndarray) -> np.ndarray:
    """S2's work per pair for pieces of size ``n``: the critical angles of every edge,
    and the gaps among them each tested against the edges (quadratic in one polygon's
    edges; fitted on interpreted runs of polygons of 8 to 2,000 corners)."""
    return np.asarray(4.0 * n + n * n / 64.0)


def window_work(n: np.ndarray) -> np.ndarray:
    """S3's work per pair for pieces of size ``n``: the lines pinned by pairs of features
    along the window, each tested against the edges (cubic in one polygon's edges)."""
    return np.asarray(40.0 * n + n * n * n / 4000.0)


def _rings(shape: BaseGeometry) -> list[np.ndarray]:
    polys = list(shape.geoms) if hasattr(shape, "geoms") else [shape]
    rings: list[np.ndarray] = []
    for poly in polys:
        if poly.is_empty:  # a wall whose windows cover it all, seen solid (F6)
            continue
        for ring in (poly.exterior, *poly.interiors):
            rings.append(np.asarray(ring.coords, dtype=np.float64).reshape(-1, 2))
    return rings


def build_index(
    table: Table,
    *,
    solid: frozenset[str] = frozenset(),
    openings: frozenset[tuple[str, int]] = frozenset(),
    erode: float = 0.0,
) -> SightIndex:
    """Pack a table's pieces. Walls named in ``solid`` have every window opened (the
    opening ignored: F6, M12); ``openings`` opens single windows, as ``(wall id, window
    index)`` pairs (F5: the window a shooter stands at). Other walls are whole (F7).

    ``erode`` (mm, a what-if for G8 margins) shrinks every piece and base by that much
    (a negative value grows them) and the contact test with them: two pieces touch when
    their gap, measured on the eroded shapes, is at most the tolerance plus ``erode``
    (so when their true gap is at most the tolerance less ``erode``).

    The terrain's packing and the bridges among terrain pieces are built once per
    terrain (:func:`_terrain_packing`): a table whose models moved packs only its bases
    and their bridges. A variant (``solid`` or ``openings``) built after the table's
    plain index at the same ``erode`` keeps the plain bridges with the bases of every
    piece but the walls it names, and measures only those again (:func:`_reuse_bridges`:
    the same bridges, in the same order, as a fresh build)."""
    tolerance = table.contact_tolerance + erode
    tp = _terrain_packing(table.terrain, solid, openings, erode, tolerance)
    xyr = _xyr(table)
    n = len(xyr)
    radii = np.maximum(xyr[:, 2] - erode, 0.0)
    model_disc = np.column_stack([xyr[:, 0], xyr[:, 1], radii]).reshape(-1, 3)
    disc = np.vstack([tp.disc, model_disc])
    x, y = model_disc[:, 0], model_disc[:, 1]
    boxes = np.column_stack([x - radii, y - radii, x + radii, y + radii]).reshape(-1, 4)
    real = (
        np.concatenate([tp.kind, np.full(n, _K.DISC, np.int8)]),
        disc,
        np.concatenate([tp.eoff, np.full(n, tp.eoff[-1], np.int64)]),
        tp.edges,
        np.vstack([tp.bbox, boxes]),
    )
    shapes: list[BaseGeometry | None] = [*tp.shapes, *([None] * n)]
    variant = _variant_pieces(table, solid, openings)
    key = (table, float(erode))
    base = _BASE_BRIDGES.get(key) if variant else None
    if base is None:
        found, lines = _new_bridges(disc, shapes, tolerance, tp)
        if not variant:
            _remember_base(key, found, lines)
    else:  # F5/F6: only the opened walls' contacts with the bases are measured again
        found, lines = _reuse_bridges(base, disc, shapes, tolerance, tp, variant)
    ends, segs = _merge_bridges(tp, found, lines)
    return SightIndex(
        ids=(*tp.ids, *(m.id for m in table.models)),
        n_terrain=len(table.terrain),
        kind=real[0],
        disc=real[1],
        eoff=real[2],
        edges=real[3],
        bbox=real[4],
        blocks=np.concatenate([tp.blocks, np.ones(n, np.bool_)]),
        half=table.beam / 2.0,
        bridge_ends=ends,
        full=with_bridges(real, ends, segs) if len(ends) else (),
    )


@dataclass(frozen=True, slots=True, eq=False)
class _TerrainPacking:
    """The terrain pieces packed as :class:`SightIndex` packs them (see there), with the
    G4 bridges among them."""

    ids: tuple[str, ...]
    kind: np.ndarray
    disc: np.ndarray
    eoff: np.ndarray
    edges: np.ndarray
    bbox: np.ndarray
    blocks: np.ndarray
    shapes: tuple[BaseGeometry | None, ...]
    #: The shapes made valid for GEOS (None for discs).
    valid: tuple[BaseGeometry | None, ...]
    ends: np.ndarray
    segs: np.ndarray


#: Guards the store of plain bridges below (the page may rule from more than one thread).
_STORES = threading.Lock()


@lru_cache(maxsize=64)
def _terrain_packing(
    terrain: tuple[Terrain, ...],
    solid: frozenset[str],
    openings: frozenset[tuple[str, int]],
    erode: float,
    tolerance: float,
) -> _TerrainPacking:
    """The terrain's part of :func:`build_index`, cached: pieces do not move when models
    do (the page re-rules on every drag)."""
    kinds: list[int] = []
    discs: list[tuple[float, float, float]] = []
    edge_rows: list[np.ndarray] = []
    eoff = [0]
    bboxes: list[tuple[float, float, float, float]] = []
    shapes: list[BaseGeometry | None] = []
    for piece in terrain:
        fp = piece.footprint
        if isinstance(fp, CircleFootprint):
            r = max(fp.radius - erode, 0.0)
            kinds.append(_K.DISC)
            discs.append((fp.centre.x, fp.centre.y, r))
            bboxes.append((fp.centre.x - r, fp.centre.y - r, fp.centre.x + r, fp.centre.y + r))
            eoff.append(eoff[-1])
            shapes.append(None)
            continue
        if isinstance(fp, WallFootprint) and piece.id in solid:
            shape = fp.solid()
        elif isinstance(fp, WallFootprint) and any(w == piece.id for w, _ in openings):
            shape = fp.opened(sorted(k for w, k in openings if w == piece.id))
        else:
            shape = fp.shape()
        if erode != 0.0:
            shape = _offset(shape, erode)
        shapes.append(shape)
        kinds.append(_K.POLYGON)
        discs.append((0.0, 0.0, 0.0))
        n = 0
        for ring in _rings(shape):
            rows = np.hstack([ring[:-1], ring[1:]])
            edge_rows.append(rows)
            n += len(rows)
        eoff.append(eoff[-1] + n)
        # an empty footprint (no edges) has an empty box: no broad phase lets it in
        inf = float("inf")
        x0, y0, x1, y1 = shape.bounds if n else (inf, inf, -inf, -inf)
        bboxes.append((x0, y0, x1, y1))
    edges = np.vstack(edge_rows) if edge_rows else np.zeros((0, 4))
    disc = np.asarray(discs, dtype=np.float64).reshape(-1, 3)
    ends, segs = _bridges(disc, shapes, tolerance)
    return _TerrainPacking(
        ids=tuple(p.id for p in terrain),
        kind=np.asarray(kinds, dtype=np.int8),
        disc=disc,
        eoff=np.asarray(eoff, dtype=np.int64),
        edges=np.ascontiguousarray(edges, dtype=np.float64),
        bbox=np.asarray(bboxes, dtype=np.float64).reshape(-1, 4),
        blocks=np.asarray([p.blocks for p in terrain], dtype=np.bool_),
        shapes=tuple(shapes),
        valid=tuple(
            None if g is None else g if g.is_valid else shapely.make_valid(g) for g in shapes
        ),
        ends=ends,
        segs=segs,
    )


#: Corners of a quarter circle where an eroded shape rounds a reflex corner.
_QUAD = 4


def _offset(shape: BaseGeometry, erode: float) -> BaseGeometry:
    """``shape`` shrunk by ``erode`` mm (grown when negative), never by less: grown with
    mitred corners (they hold the round ones), shrunk with rounds of few corners pushed
    out to circumscribe the true arcs. So a what-if on the offset table errs on the safe
    side (G8), and polygons keep about their number of edges."""
    if erode < 0.0:
        return shape.buffer(-erode, join_style="mitre", mitre_limit=5.0)
    reach = erode / math.cos(math.pi / (4 * _QUAD))
    return shape.buffer(-reach, quad_segs=_QUAD)


def with_bridges(
    real: tuple[np.ndarray, ...], ends: np.ndarray, segs: np.ndarray
) -> tuple[np.ndarray, ...]:
    """The packed arrays with one bridge piece per touching pair after the real ones: a
    polygon of two edges p -> q -> p whose ``disc`` row holds its ends' indices (G4)."""
    kind, disc, eoff, edges, bbox = real
    nb = len(ends)
    rows = np.empty((2 * nb, 4))
    rows[0::2] = segs
    rows[1::2] = segs[:, [2, 3, 0, 1]]
    boxes = np.column_stack(
        [
            np.minimum(segs[:, 0], segs[:, 2]),
            np.minimum(segs[:, 1], segs[:, 3]),
            np.maximum(segs[:, 0], segs[:, 2]),
            np.maximum(segs[:, 1], segs[:, 3]),
        ]
    )
    return (
        np.concatenate([kind, np.full(nb, _K.BRIDGE, np.int8)]),
        np.vstack([disc, np.column_stack([ends.astype(np.float64), np.zeros(nb)])]),
        np.concatenate([eoff, eoff[-1] + 2 * np.arange(1, nb + 1, dtype=np.int64)]),
        np.ascontiguousarray(np.vstack([edges, rows])),
        np.vstack([bbox, boxes]),
    )


#: Segments per quarter circle of a disc drawn as a polygon (G4 bridges).
_SEGS = 64


def _covering(r: np.ndarray | float) -> np.ndarray | float:
    """The buffer radius whose polygon of :data:`_SEGS` segments a quarter covers the
    circle of radius ``r`` (an inscribed one lies up to r (1 - cos) inside it)."""
    return r / math.cos(math.pi / (4 * _SEGS))


def _bridges(
    disc: np.ndarray,
    shapes: Sequence[BaseGeometry | None],
    tolerance: float,
    known: _TerrainPacking | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """G4: every pair of pieces whose gap is at most the contact tolerance without
    overlapping, and the segment joining their nearest points (one per separate contact
    place of a non-convex piece). ``shapes[k]`` is piece k's footprint as packed, None
    for a disc (``disc[k]``). Returns the pairs (k, j) and the segments (x0, y0, x1, y1),
    in order of ``k`` then ``j``. ``known``: the packing of the first pieces (the
    terrain, :func:`_terrain_packing`), whose bridges among themselves are already found
    and are not measured again (the other pieces are then all discs)."""
    if len(shapes) < 2:
        return np.zeros((0, 2), np.int64), np.zeros((0, 4))
    if known is None:
        return _new_bridges(disc, shapes, tolerance, None)
    return _merge_bridges(known, *_new_bridges(disc, shapes, tolerance, known))


def _new_bridges(
    disc: np.ndarray,
    shapes: Sequence[BaseGeometry | None],
    tolerance: float,
    known: _TerrainPacking | None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_bridges` without the known ones: the pairs that involve a piece past
    ``known`` (all pairs when None), in order of ``k`` then ``j``, and their segments."""
    if len(shapes) < 2:
        return np.zeros((0, 2), np.int64), np.zeros((0, 4))
    if known is not None and len(shapes) > len(known.ids):
        return _bridges_of_bases(disc, shapes, tolerance, known)
    first = 0 if known is None else len(known.ids)
    geoms: list[BaseGeometry | None] = [*(known.valid if known is not None else ())]
    geoms += [
        None if shape is None else shape if shape.is_valid else shapely.make_valid(shape)
        for shape in shapes[first:]
    ]
    reach = tolerance + 10 * _K.EPS
    left, right = _near_pairs(disc, geoms, reach + 1e-3, among=known is None)
    new = right >= first  # a pair of two known pieces is among the known bridges
    left, right = left[new], right[new]
    ends: list[tuple[int, int]] = []
    segs: list[tuple[float, float, float, float]] = []
    for k, j in zip(left.tolist(), right.tolist(), strict=True):
        for seg in _contact_segments(disc, shapes, geoms, k, j, reach):
            ends.append((k, j))
            segs.append(seg)
    found = np.asarray(ends, np.int64).reshape(-1, 2)
    lines = np.asarray(segs, np.float64).reshape(-1, 4)
    return found, lines


#: The contacts of bases with the terrain measured lately, by terrain packing and
#: tolerance, then by base (centre and radius): each the terrain pieces it touches and the
#: bridges' segments. A base's contacts with the terrain depend on nothing else: a
#: dragged model's are measured again, the others' found here.
_TERRAIN_CONTACTS: dict[
    tuple[_TerrainPacking, float],
    dict[tuple[float, float, float], tuple[tuple[int, tuple[float, float, float, float]], ...]],
] = {}
_CONTACTS_PACKINGS = 8
_CONTACTS_BASES = 20_000


def _bridges_of_bases(
    disc: np.ndarray,
    shapes: Sequence[BaseGeometry | None],
    tolerance: float,
    known: _TerrainPacking,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_new_bridges` past the terrain ``known`` (every piece after it a base):
    each base's bridges with the terrain found by base (:data:`_TERRAIN_CONTACTS`, the
    bases not seen lately measured as a fresh build measures them), the bridges between
    bases measured; in order of ``k`` then ``j``, each pair's segments in order."""
    first = len(known.ids)
    reach = tolerance + 10 * _K.EPS
    bases = disc[first:]
    keys = [(x, y, r) for x, y, r in bases.tolist()]
    with _STORES:
        store = bounded.entry(_TERRAIN_CONTACTS, (known, tolerance), _CONTACTS_PACKINGS)
        found = [store.get(key) for key in keys]
    missing = [m for m, f in enumerate(found) if f is None]
    if missing:
        measured = _terrain_contacts(bases[missing], shapes[:first], tolerance, known)
        with _STORES:
            for m, made in zip(missing, measured, strict=True):
                found[m] = store[keys[m]] = made
            trim(store, _CONTACTS_BASES)
    ends: list[tuple[int, int]] = []
    segs: list[tuple[float, float, float, float]] = []
    for m, contacts in enumerate(found):
        assert contacts is not None
        for k, seg in contacts:
            ends.append((k, first + m))
            segs.append(seg)
    # between bases: discs, measured exactly from their centres
    nothing: list[BaseGeometry | None] = [None] * len(bases)
    left, right = _near_pairs(bases, nothing, reach + 1e-3)
    for k, j in zip(left.tolist(), right.tolist(), strict=True):
        for seg in _contact_segments(bases, nothing, nothing, k, j, reach):
            ends.append((first + k, first + j))
            segs.append(seg)
    pairs = np.asarray(ends, np.int64).reshape(-1, 2)
    lines = np.asarray(segs, np.float64).reshape(-1, 4)
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))  # stable: a pair's segments keep order
    return pairs[order], lines[order]


def _terrain_contacts(
    bases: np.ndarray,
    shapes: Sequence[BaseGeometry | None],
    tolerance: float,
    known: _TerrainPacking,
) -> list[tuple[tuple[int, tuple[float, float, float, float]], ...]]:
    """For each base ``(x, y, r)``, its bridges with the terrain ``known``: the terrain
    pieces it touches (in order) and the segments (the broad phase and contact test of
    a fresh build)."""
    first = len(known.ids)
    reach = tolerance + 10 * _K.EPS
    disc = np.vstack([known.disc, bases])
    every: list[BaseGeometry | None] = [*shapes, *([None] * len(bases))]
    geoms: list[BaseGeometry | None] = [*known.valid, *([None] * len(bases))]
    left, right = _near_pairs(disc, geoms, reach + 1e-3, among=False)
    out: list[list[tuple[int, tuple[float, float, float, float]]]] = [[] for _ in bases]
    for k, j in zip(left.tolist(), right.tolist(), strict=True):
        if k >= first or j < first:
            continue  # two bases (measured apart), or two terrain pieces (known)
        for seg in _contact_segments(disc, every, geoms, k, j, reach):
            out[j - first].append((k, seg))
    return [tuple(c) for c in out]


def _merge_bridges(
    known: _TerrainPacking, found: np.ndarray, lines: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The terrain's own bridges and ``found`` (pairs with a base) in one list, in order
    of ``k`` then ``j``, each pair's segments in the order they were found."""
    if not len(known.ends):
        return found, lines
    both = np.vstack([known.ends, found])
    order = np.lexsort((both[:, 1], both[:, 0]))  # stable: a pair's segments keep order
    return both[order], np.vstack([known.segs, lines])[order]


@dataclass(frozen=True, slots=True, eq=False)
class _BaseBridges:
    """The bridges with a base of a table's plain index (no window opened): a variant
    of it (F5 openings, F6 solid walls) keeps those of the pieces it does not change."""

    ends: np.ndarray
    segs: np.ndarray


#: The last plain indexes' bridges with a base, by ``(table, erode)`` (most recent last).
_BASE_BRIDGES: dict[tuple[Table, float], _BaseBridges] = {}
_BASE_KEEP = 16


def _remember_base(key: tuple[Table, float], ends: np.ndarray, segs: np.ndarray) -> None:
    with _STORES:
        _BASE_BRIDGES.pop(key, None)
        _BASE_BRIDGES[key] = _BaseBridges(ends, segs)
        while len(_BASE_BRIDGES) > _BASE_KEEP:
            del _BASE_BRIDGES[next(iter(_BASE_BRIDGES))]


def _variant_pieces(
    table: Table, solid: frozenset[str], openings: frozenset[tuple[str, int]]
) -> tuple[int, ...]:
    """The terrain indices whose footprint ``solid`` or ``openings`` may change: the
    walls they name (every other piece is packed as in the plain index)."""
    if not solid and not openings:
        return ()
    named = set(solid) | {w for w, _ in openings}
    return tuple(
        i
        for i, p in enumerate(table.terrain)
        if p.id in named and isinstance(p.footprint, WallFootprint)
    )


def _reuse_bridges(
    base: _BaseBridges,
    disc: np.ndarray,
    shapes: Sequence[BaseGeometry | None],
    tolerance: float,
    tp: _TerrainPacking,
    changed: tuple[int, ...],
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_new_bridges` for an index that differs from the plain one (``base``) only
    in the ``changed`` terrain pieces: the plain bridges that do not touch them, and
    those of the changed pieces with the bases measured again (the same broad phase and
    contact test as a fresh build, so the same bridges in the same order)."""
    first = len(tp.ids)
    keep = ~np.isin(base.ends[:, 0], changed)  # a base's partner k < j is never changed
    reach = tolerance + 10 * _K.EPS
    within = reach + 1e-3
    models = disc[first:]
    ends: list[np.ndarray] = [base.ends[keep]]
    segs: list[np.ndarray] = [base.segs[keep]]
    if len(models):
        geoms: list[BaseGeometry | None] = [*tp.valid, *([None] * len(models))]
        # the bases near each changed wall's box (a superset), then GEOS for those only
        valid = np.asarray([tp.valid[c] for c in changed], dtype=np.object_)
        near_m, near_w = box_pairs(models, shapely.bounds(valid), within)
        for w, c in enumerate(changed):
            g = tp.valid[c]
            assert g is not None  # a wall
            ms = np.sort(near_m[near_w == w])
            centres = shapely.points(models[ms, :2])
            gap = np.asarray(shapely.distance(centres, g)) - models[ms, 2]
            for m in ms[gap <= within].tolist():
                for seg in _contact_segments(disc, shapes, geoms, c, first + m, reach):
                    ends.append(np.asarray([[c, first + m]], np.int64))
                    segs.append(np.asarray([seg], np.float64))
    found = np.vstack(ends).reshape(-1, 2)
    lines = np.vstack(segs).reshape(-1, 4)
    order = np.lexsort((found[:, 1], found[:, 0]))  # stable: a pair's segments keep order
    return found[order], lines[order]


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-D integer array in increasing order: ``np.unique``'s
    answer, without its first call importing ``numpy.ma`` (~25 ms of a command)."""
    ordered = np.sort(values)
    keep = np.ones(len(ordered), bool)
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _near_pairs(
    disc: np.ndarray,
    geoms: Sequence[BaseGeometry | None],
    within: float,
    *,
    among: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """The broad phase of G4: every pair ``k < j`` of pieces whose gap may be at most
    ``within`` (discs ``disc[k]`` where ``geoms[k]`` is None, measured exactly from their
    centres; a disc and a polygon by GEOS where the disc comes near the polygon's box;
    two polygons through an STRtree), in order of ``k`` then ``j``. ``among`` false: the
    polygons' pairs among themselves are left out (already known)."""
    is_disc = np.asarray([g is None for g in geoms], dtype=np.bool_)
    di = np.flatnonzero(is_disc)
    pi = np.flatnonzero(~is_disc)
    found: list[np.ndarray] = []
    radii = disc[di, 2]
    rmax = float(radii.max()) if len(di) else 0.0
    if len(di) > 1:  # disc-disc: centre distance less both radii
        a, b = _sweep_pairs(disc[di, 0], 2 * rmax + within)
        gap = np.hypot(*(disc[di[a], :2] - disc[di[b], :2]).T) - radii[a] - radii[b]
        ok = gap <= within
        found.append(np.column_stack([di[a[ok]], di[b[ok]]]))
    if len(pi):
        polys = np.asarray([geoms[int(k)] for k in pi], dtype=np.object_)
        if len(pi) > 1 and among:  # polygon-polygon
            tree = shapely.STRtree(polys)
            a, b = tree.query(polys, predicate="dwithin", distance=within)
            keep = a < b
            found.append(np.column_stack([pi[a[keep]], pi[b[keep]]]))
        if len(di):  # disc-polygon: the centre's distance less the radius
            c, q = box_pairs(disc[di], shapely.bounds(polys), within)
            centres = shapely.points(disc[di[c], :2])
            gap = np.asarray(shapely.distance(centres, polys[q])) - radii[c]
            ok = gap <= within
            k, j = di[c[ok]], pi[q[ok]]
            found.append(np.column_stack([np.minimum(k, j), np.maximum(k, j)]))
    if not found:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    pairs = np.vstack(found).astype(np.int64)
    key = distinct(pairs[:, 0] * len(geoms) + pairs[:, 1])  # in order of k then j
    return key // len(geoms), key % len(geoms)


#: Slack of the broad phases below, so that rounding never leaves a pair out (they only
#: choose the pairs measured; the measure itself decides).
_SLACK = 1e-6


def _sweep_pairs(x: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Every pair ``a < b`` of points whose abscissas ``x`` differ by at most ``reach``
    (and a little): a sweep along x, in no particular order (a superset of the pairs of
    discs whose centres are that near)."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    hi = np.searchsorted(xs, xs + reach * (1 + _SLACK) + _SLACK, side="right")
    counts = hi - np.arange(1, len(xs) + 1)
    first = np.repeat(np.arange(len(xs)), counts)
    start = np.repeat(np.cumsum(counts) - counts, counts)
    second = first + 1 + np.arange(int(counts.sum())) - start
    a, b = order[first], order[second]
    return np.minimum(a, b), np.maximum(a, b)


def box_pairs(
    discs: np.ndarray, bounds: np.ndarray, within: float
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (disc, polygon) whose disc ``(x, y, r)`` comes within ``within`` (and a
    little) of the polygon's bounding box ``(x0, y0, x1, y1)``: a superset of the pairs
    of that gap (a polygon is never nearer than its box). Empty polygons have none."""
    reach = discs[:, 2] + within + _SLACK * (1.0 + within)
    c_all: list[np.ndarray] = []
    q_all: list[np.ndarray] = []
    step = max(1, 1_000_000 // max(len(bounds), 1))
    for i in range(0, len(discs), step):  # discs x polygons at once, in slices
        d = discs[i : i + step]
        r = reach[i : i + step, None]
        x, y = d[:, 0:1], d[:, 1:2]
        near = (x >= bounds[None, :, 0] - r) & (x <= bounds[None, :, 2] + r)
        near &= (y >= bounds[None, :, 1] - r) & (y <= bounds[None, :, 3] + r)
        c, q = np.nonzero(near)
        c_all.append(c + i)
        q_all.append(q)
    return np.concatenate(c_all), np.concatenate(q_all)


def _contact_segments(
    disc: np.ndarray,
    shapes: Sequence[BaseGeometry | None],
    geoms: Sequence[BaseGeometry | None],
    k: int,
    j: int,
    reach: float,
) -> list[tuple[float, float, float, float]]:
    """The bridges between pieces k and j: none when they overlap or are apart, else the
    nearest points of each part of one within the contact reach of the other."""
    if shapes[k] is None and shapes[j] is None:  # two discs, measured exactly
        (ax, ay, ar), (bx, by, br) = disc[k], disc[j]
        d = math.hypot(bx - ax, by - ay)
        if d - ar - br > reach or d - ar - br < -_K.EPS or d == 0.0:
            return []
        ux, uy = (bx - ax) / d, (by - ay) / d
        return [(ax + ar * ux, ay + ar * uy, bx - br * ux, by - br * uy)]
    if shapes[k] is None:  # the disc second
        k, j = j, k
        flip = True
    else:
        flip = False
    a, b = geoms[k], geoms[j]
    assert a is not None
    if shapes[j] is None:
        cx, cy, r = disc[j]
        centre = shapely.Point(cx, cy)
        if a.contains(centre) or a.distance(centre) - r < -_K.EPS:
            return []
        near = a.intersection(centre.buffer(_covering(r + reach), _SEGS))
    else:
        assert b is not None
        if a.intersection(b).area > 0.0:
            return []
        near = a.intersection(b.buffer(reach, 16))
        r = 0.0
    out = []
    parts = list(near.geoms) if hasattr(near, "geoms") else [near]
    for part in parts:
        if part.is_empty:
            continue
        if shapes[j] is None:
            p = shapely.ops.nearest_points(part, centre)[0]
            d = p.distance(centre)
            if d == 0.0 or d - r > reach:
                continue
            q = (cx + (p.x - cx) * r / d, cy + (p.y - cy) * r / d)
        else:
            p, qq = shapely.ops.nearest_points(part, b)
            if p.distance(qq) > reach:
                continue
            q = (qq.x, qq.y)
        seg = (q[0], q[1], p.x, p.y) if flip else (p.x, p.y, q[0], q[1])
        out.append(seg)
    return out


#: How many indexes :func:`sight_index` keeps (most recently used last).
_INDEX_KEEP = 64


@dataclass(frozen=True, slots=True)
class _IndexKey:
    """What an index depends on, by content: the terrain, the bases (ids, centres and
    radii), the contact tolerance, the beam, and the walls opened. Two tables equal in
    these (another name, other options, other sides...) pack the same index: the page
    re-rules an equal table under a new name, and the benchmarks rename theirs."""

    terrain: tuple[Terrain, ...]
    ids: tuple[str, ...]
    bases: bytes
    tolerance: float
    beam: float
    solid: frozenset[str]
    openings: frozenset[tuple[str, int]]
    erode: float
    #: The hash of the fields above, made once (a lookup hashes its key twice: popped,
    #: then put back last; the terrain alone hashes every piece).
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        every = (self.terrain, self.ids, self.bases, self.tolerance, self.beam)
        object.__setattr__(self, "_hash", hash((*every, self.solid, self.openings, self.erode)))

    def __hash__(self) -> int:
        return self._hash


def _index_key(
    table: Table, solid: frozenset[str], openings: frozenset[tuple[str, int]], erode: float
) -> _IndexKey:
    return _IndexKey(
        table.terrain,
        tuple([m.id for m in table.models]),
        _xyr(table).tobytes(),
        float(table.contact_tolerance),
        float(table.beam),
        solid,
        openings,
        erode,
    )


def geometry_key(table: Table) -> Hashable:
    """What a table's sight indexes rest on, by content (:class:`_IndexKey` with every
    wall whole): two tables equal in it (another name, other options or sides) pack
    the same pieces, so what is built from them alone may be kept by it."""
    return _index_key(table, frozenset(), frozenset(), 0.0)


def _index_key_of(
    table: Table,
    solid: frozenset[str] = frozenset(),
    openings: frozenset[tuple[str, int]] = frozenset(),
    *,
    erode: float = 0.0,
) -> _IndexKey:
    """:func:`sight_index`'s key: one whatever form the arguments are given in (a plain
    ``lru_cache`` keys ``f(t)`` and ``f(t, openings=frozenset())`` apart, and built the
    same index twice)."""
    return _index_key(table, frozenset(solid), frozenset(openings), float(erode))


def _index_of(
    table: Table,
    solid: frozenset[str] = frozenset(),
    openings: frozenset[tuple[str, int]] = frozenset(),
    *,
    erode: float = 0.0,
) -> SightIndex:
    """The cached :func:`build_index` of a table."""
    return build_index(
        table, solid=frozenset(solid), openings=frozenset(openings), erode=float(erode)
    )


_P = ParamSpec("_P")


class _SightIndexCache(bounded.KeptBy[_P, SightIndex]):
    """:func:`sight_index`: the indexes built lately, by the content they depend on
    (:class:`_IndexKey`), the :data:`_INDEX_KEEP` most recently used; emptied with the
    stores of the bases' bridges that the builds keep."""

    def cache_clear(self) -> None:
        super().cache_clear()
        with _STORES:
            _BASE_BRIDGES.clear()
            _TERRAIN_CONTACTS.clear()


#: The cached :func:`build_index` of a table: ``sight_index(table, solid=..., openings=...,
#: erode=...)``, the same index whichever of its arguments are left to their defaults.
sight_index = _SightIndexCache(_index_of, _index_key_of, _INDEX_KEEP)


def walls_with_windows(table: Table) -> frozenset[str]:
    """The ids of the walls that have windows: pass them as ``solid`` to open every
    window (M12, option ``windows: open`` outside Frostgrave)."""
    return frozenset(
        p.id
        for p in table.terrain
        if isinstance(p.footprint, WallFootprint) and p.footprint.windows
    )


@dataclass(frozen=True, slots=True)
class Crossing:
    """A piece a centre line passes through, and where (0 at the shooter, 1 at the target)."""

    piece: str
    t: float
    is_model: bool
    #: G4: the piece touching this one that the line passes between them and this one
    #: (the two are one obstacle), None for a plain crossing.
    joined: str | None = None


@dataclass(frozen=True, slots=True)
class CentreLine:
    """S1: the segment between two centres and every piece it passes through, in order."""

    shooter: str
    target: str
    crossings: tuple[Crossing, ...]


@dataclass(frozen=True, slots=True, eq=False)
class CentreLineBatch:
    """S1 for many pairs as CSR arrays: pair i crossed ``piece[offsets[i]:offsets[i+1]]``.

    ``first_stop[i]`` is the nearest crossed piece among those asked to stop (-1 none).
    A line passing between two touching stopping pieces (G4) crosses both, each listed
    with the other in ``via`` (-1 for a plain crossing).
    """

    shooters: np.ndarray
    targets: np.ndarray
    offsets: np.ndarray
    piece: np.ndarray
    t: np.ndarray
    first_stop: np.ndarray
    via: np.ndarray | None = None


def _pairs(table: Table, pairs: Iterable[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    s, t = [], []
    for a, b in pairs:
        s.append(table.model_index(a))
        t.append(table.model_index(b))
    return np.asarray(s, dtype=np.int64), np.asarray(t, dtype=np.int64)


def _grazing(table: Table) -> bool:
    return bool(table.option("grazing_blocks", False))


def centre_line_batch(
    table: Table,
    shooters: np.ndarray,
    targets: np.ndarray,
    *,
    stops: np.ndarray | None = None,
    early_exit: bool = False,
    index: SightIndex | None = None,
) -> CentreLineBatch:
    """S1 for the pairs ``(shooters[i], targets[i])`` of model indices.

    ``stops`` flags the pieces that end the search with ``early_exit`` (default: the
    pieces that block, F2); without early exit every crossing is listed.
    """
    ix = index or sight_index(table)
    order, s, g = _by_shooter(shooters, targets)
    xy = _xy(table)
    k = backend.kernels(len(s) * ix.work())
    stop_mask = ix.mask(stops)
    offsets, piece, tt, first = k.centre_lines(
        xy[s, 0],
        xy[s, 1],
        xy[g, 0],
        xy[g, 1],
        s + ix.n_terrain,
        g + ix.n_terrain,
        *ix.packed,
        stop_mask,
        ix.half,
        _grazing(table),
        early_exit,
    )
    via = np.full(len(piece), -1, np.int64)
    if len(ix.bridge_ends) and (piece >= ix.n_pieces).any():
        offsets, piece, tt, via, first = _unbridge(ix, offsets, piece, tt, first, stop_mask)
    # back to the caller's order
    inv = np.empty_like(order)
    inv[order] = np.arange(len(order))
    counts = np.diff(offsets)[inv]
    new_off = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    take = np.repeat(offsets[:-1][inv] - new_off[:-1], counts) + np.arange(new_off[-1])
    return CentreLineBatch(
        shooters=np.asarray(shooters),
        targets=np.asarray(targets),
        offsets=new_off,
        piece=piece[take],
        t=tt[take],
        first_stop=first[inv],
        via=via[take],
    )


def _unbridge(
    ix: SightIndex,
    offsets: np.ndarray,
    piece: np.ndarray,
    tt: np.ndarray,
    first: np.ndarray,
    stop_mask: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """S1 lists with each bridge crossed (G4) replaced by its two ends, marked ``via``
    each other (an end the line crosses anyway is listed once, plainly); a bridge of
    pieces that do not stop is dropped. A bridge that stops the line stops it at its
    first end. The lines that cross no bridge are copied as they are, in bulk; the
    others are read crossing by crossing (:func:`_unbridge_line`)."""
    n = ix.n_pieces
    counts = np.diff(offsets)
    row_of = np.repeat(np.arange(len(counts)), counts)
    bridged = distinct(row_of[piece >= n]).tolist()
    redone = {}
    for i in bridged:
        lo, hi = int(offsets[i]), int(offsets[i + 1])
        redone[i] = _unbridge_line(ix, piece[lo:hi].tolist(), tt[lo:hi].tolist(), stop_mask)
        counts[i] = len(redone[i][0])
    out_off = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    total = int(out_off[-1])
    out_k = np.empty(total, np.int64)
    out_t = np.empty(total, np.float64)
    out_v = np.full(total, -1, np.int64)
    keep = np.ones(len(piece), np.bool_)
    if bridged:
        keep[np.isin(row_of, bridged)] = False
    rows = row_of[keep]
    dest = out_off[rows] + np.flatnonzero(keep) - offsets[rows]
    out_k[dest] = piece[keep]
    out_t[dest] = tt[keep]
    for i, (ks, ts, vs) in redone.items():
        lo, hi = int(out_off[i]), int(out_off[i + 1])
        out_k[lo:hi] = ks
        out_t[lo:hi] = ts
        out_v[lo:hi] = vs
    first = np.asarray(first, np.int64).copy()
    over = first >= n
    first[over] = ix.bridge_ends[first[over] - n, 0]
    return out_off, out_k, out_t, out_v, first


def _unbridge_line(
    ix: SightIndex, ks: list[int], ts: list[float], stop_mask: np.ndarray
) -> tuple[list[int], list[float], list[int]]:
    """:func:`_unbridge` of one line's crossings ``ks`` (kernel pieces) at ``ts``: the
    pieces, their places and their ``via`` (-1 for a plain crossing)."""
    n = ix.n_pieces
    out_k: list[int] = []
    out_t: list[float] = []
    out_v: list[int] = []
    plain = {k for k in ks if k < n}
    listed: set[int] = set()
    for k, t in zip(ks, ts, strict=True):
        if k < n:
            out_k.append(k)
            out_t.append(t)
            out_v.append(-1)
            continue
        if not stop_mask[k]:
            continue
        e0, e1 = ix.ends(k)
        for end, other in ((e0, e1), (e1, e0)):
            if end in plain or end in listed:
                continue
            listed.add(end)
            out_k.append(end)
            out_t.append(t)
            out_v.append(other)
    return out_k, out_t, out_v


def centre_lines(table: Table, pairs: Iterable[tuple[str, str]]) -> list[CentreLine]:
    """S1: for each ``(shooter, target)`` pair of model ids, what its centre line crosses."""
    pairs = list(pairs)
    s, g = _pairs(table, pairs)
    ix = sight_index(table)
    batch = centre_line_batch(table, s, g, index=ix)
    lines = []
    for i, (a, b) in enumerate(pairs):
        ks = batch.piece[batch.offsets[i] : batch.offsets[i + 1]]
        ts = batch.t[batch.offsets[i] : batch.offsets[i + 1]]
        assert batch.via is not None
        vs = batch.via[batch.offsets[i] : batch.offsets[i + 1]]
        lines.append(
            CentreLine(
                a,
                b,
                tuple(
                    Crossing(
                        ix.ids[k],
                        float(t),
                        bool(k >= ix.n_terrain),
                        None if v < 0 else ix.ids[v],
                    )
                    for k, t, v in zip(ks, ts, vs, strict=True)
                ),
            )
        )
    return lines


def visible_fraction_batch(
    table: Table,
    shooters: np.ndarray,
    targets: np.ndarray,
    *,
    hides: np.ndarray | None = None,
    index: SightIndex | None = None,
) -> np.ndarray:
    """S2 for the pairs of model indices: the share of the target's base seen from the
    shooter's centre. ``hides`` flags the pieces that hide (default: those that block)."""
    ix = index or sight_index(table)
    order, s, g = _by_shooter(shooters, targets)
    xyr = _xyr(table)
    k = backend.kernels(len(s) * ix.work(each=share_work))
    out = k.visible_fractions(
        xyr[s, 0],
        xyr[s, 1],
        np.ascontiguousarray(xyr[g]),
        s + ix.n_terrain,
        g + ix.n_terrain,
        *ix.packed,
        ix.mask(hides),
        ix.half,
        _grazing(table),
    )
    result: np.ndarray = np.empty(len(out))
    result[order] = out
    return result


def visible_fraction(table: Table, shooter: str, target: str) -> float:
    """S2 for one pair of model ids, with the pieces that block (F2) hiding."""
    s, g = _pairs(table, [(shooter, target)])
    return float(visible_fraction_batch(table, s, g)[0])


@dataclass(frozen=True, slots=True)
class SegmentView:
    """How much of a segment (a window opening) a point sees, and one point seen."""

    share: float
    witness: Point | None


def view_of_segment(
    table: Table,
    origin: Point,
    segment: tuple[Point, Point],
    *,
    skip: Sequence[str] = (),
    hides: np.ndarray | None = None,
    index: SightIndex | None = None,
    narrow: bool = True,
) -> SegmentView:
    """From ``origin``, the share of ``segment`` that clear lines reach (S2 on a segment).

    Only the candidates that can matter go to the kernel (:func:`_in_wedge`: the same
    share and witness as with every candidate; ``narrow=False`` gives them all)."""
    ix = index or sight_index(table)
    cand = _candidates(ix, skip, hides)
    if narrow and len(cand):
        cand = cand[_in_wedge(ix, cand, origin, segment)]
    t = np.array([segment[0].x, segment[0].y, segment[1].x, segment[1].y], dtype=np.float64)
    k = backend.kernels(2 * ix.work(cand, each=share_work))
    # interpreted, the kernel's test of each gap, piece by piece, is most of the time of
    # a small job (the F6 window views): its numpy twin tests every gap at once
    share_of = visible_share_numpy if k is _K else k.visible_share
    share, _, wx, wy = share_of(
        origin.x,
        origin.y,
        _K.TARGET_SEGMENT,
        t,
        cand,
        len(cand),
        *ix.packed[:4],
        ix.half,
        _grazing(table),
    )
    witness = None if np.isnan(wx) else Point(float(wx), float(wy))
    return SegmentView(float(share), witness)


#: How much wider than the beam (mm, and radians) :func:`_in_wedge` looks: far above
#: rounding, so that no piece that can matter is left out.
_WEDGE_SLACK = 1e-5


def _in_wedge(
    ix: SightIndex, cand: np.ndarray, origin: Point, segment: tuple[Point, Point]
) -> np.ndarray:
    """Which candidates can change the kernel's S2 of ``segment`` from ``origin``
    (``kernels.visible_share``): those whose box, widened by half the beam, holds the
    origin or is seen within the angle the segment spans, and the polygons with an edge
    whose line passes within half the beam of the origin (the kernel adds that edge's
    directions, both ways, to its critical angles). The kernel's critical angles outside
    the segment's angle change nothing, and a piece seen outside it crosses none of its
    lines: the share and the witness are those of every candidate
    (``kernels.wedge_candidates``, each bound widened by :data:`_WEDGE_SLACK`)."""
    kind, _, eoff, edges, bbox = ix.packed
    ox, oy = origin.x, origin.y
    p, q = segment
    phi = math.atan2(0.5 * (p.y + q.y) - oy, 0.5 * (p.x + q.x) - ox)
    a1 = float(_wrap(np.asarray(math.atan2(p.y - oy, p.x - ox) - phi)))
    a2 = float(_wrap(np.asarray(math.atan2(q.y - oy, q.x - ox) - phi)))
    lo, hi = min(a1, a2) - _WEDGE_SLACK, max(a1, a2) + _WEDGE_SLACK
    k = backend.kernels(ix.work(cand))
    keep: np.ndarray = k.wedge_candidates(
        ox, oy, phi, lo, hi, cand, kind, eoff, edges, bbox, ix.half + _WEDGE_SLACK
    )
    return keep


def _wrap(a: np.ndarray) -> np.ndarray:
    """Angles brought into [-pi, pi), as the kernels bring them."""
    return np.asarray((a + math.pi) % (2.0 * math.pi) - math.pi)


def _candidates(ix: SightIndex, skip: Sequence[str], hides: np.ndarray | None) -> np.ndarray:
    """The kernel pieces that may hide (``hides``, default: those that block; a bridge
    when both its ends do, G4), in index order, without the pieces named in ``skip`` nor
    the bridges from them."""
    skipped = np.zeros(ix.n_pieces, np.bool_)
    skipped[[ix.ids.index(s) for s in skip]] = True
    e = ix.bridge_ends  # a bridge is skipped with either of its ends
    skipped = np.concatenate([skipped, skipped[e[:, 0]] | skipped[e[:, 1]]])
    return np.flatnonzero(ix.mask(hides) & ~skipped).astype(np.int64)


def positions(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """The one packing of model positions: every model's centre (n x 2, mm) and base
    radius, in table order."""
    xyr = _xyr(table)
    return np.array(xyr[:, :2]), np.array(xyr[:, 2])


def _xy(table: Table) -> np.ndarray:
    return positions(table)[0]


@lru_cache(maxsize=16)
def _xyr(table: Table) -> np.ndarray:
    """Centre and base radius of every model, in mm (cached per table, read-only)."""
    rows = [[m.at.x, m.at.y, m.base.radius] for m in table.models]
    out = np.array(rows, dtype=np.float64).reshape(-1, 3)
    out.flags.writeable = False
    return out


def _by_shooter(
    shooters: np.ndarray, targets: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs sorted by shooter (the kernels build their broad phase once per origin):
    the permutation, then the sorted shooters and targets."""
    order = np.argsort(shooters, kind="stable")
    s = np.asarray(shooters, dtype=np.int64)[order]
    g = np.asarray(targets, dtype=np.int64)[order]
    return order, s, g


def touching(
    table: Table,
    *,
    index: SightIndex | None = None,
    models: Sequence[int] | np.ndarray | None = None,
    pieces: Sequence[int] | np.ndarray | None = None,
) -> np.ndarray:
    """G4: ``[model, terrain]`` is true where the model's base touches the piece's footprint
    (gap at most the contact tolerance, :func:`in_contact`; a base overlapping the piece
    touches it).

    ``models`` (model indices) and ``pieces`` (terrain indices) restrict the matrix to
    those rows and columns, in the order given: on a large table a rule that asks about a
    few pairs (F4) measures only those.
    """
    ix = index or sight_index(table)
    xyr = _xyr(table)
    rows = np.arange(len(xyr)) if models is None else np.asarray(models, dtype=np.int64)
    cols = (
        np.arange(ix.n_terrain, dtype=np.int64)
        if pieces is None
        else np.asarray(pieces, dtype=np.int64)
    )
    if not len(rows) or not len(cols):
        return np.zeros((len(rows), len(cols)), dtype=np.bool_)
    gaps = backend.kernels(len(rows) * ix.work(cols)).gaps(
        np.ascontiguousarray(xyr[rows, :2]),
        np.ascontiguousarray(xyr[rows, 2]),
        cols,
        *ix.packed[:4],
    )
    return in_contact(gaps, table.contact_tolerance)


def in_contact(gaps: np.ndarray | float, tolerance: float) -> np.ndarray:
    """G4, the one contact test: a gap (mm, negative when overlapping) of at most the
    contact tolerance is a contact. Every rule that asks "touches" asks it here."""
    return np.asarray(np.asarray(gaps) <= tolerance + _K.EPS)


def all_pairs(
    table: Table, *, stops: np.ndarray, weights: np.ndarray, index: SightIndex | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """S1 over every ordered pair of models at once, for matrix rulings.

    ``stop[s, t]`` is a crossed piece flagged in ``stops`` (-1 when none: the line is
    clear of them) and ``total[s, t]`` sums ``weights[t, piece]`` over the other pieces
    the line crosses.
    """
    ix = index or sight_index(table)
    n = len(table.models)
    stop, total = backend.kernels(n * n * ix.work()).all_pairs(
        _xy(table),
        ix.n_terrain,
        *ix.packed,
        ix.mask(stops),
        _weights(ix, weights),
        ix.half,
        _grazing(table),
    )
    stop = np.asarray(stop)
    if len(ix.bridge_ends):
        bridged = stop >= ix.n_pieces
        stop[bridged] = ix.bridge_ends[stop[bridged] - ix.n_pieces, 0]
    return stop, np.asarray(total)


def _weights(ix: SightIndex, weights: np.ndarray) -> np.ndarray:
    """Weights per (target, real piece), with a zero column for each bridge (G4: a bridge
    only stops lines, it gives no cover)."""
    w = np.asarray(weights, dtype=np.float64)[:, : ix.n_pieces]
    pad = np.zeros((w.shape[0], len(ix.bridge_ends)))
    return np.ascontiguousarray(np.hstack([w, pad]))


@dataclass(frozen=True, slots=True)
class ClearLine:
    """S3: whether some clear segment joins two bases, one such segment, or what closes
    the window between them (the pieces that block and reach into it)."""

    observer: str
    target: str
    clear: bool
    witness: tuple[Point, Point] | None
    blockers: tuple[str, ...]
    #: G4: the pairs of ``blockers`` that touch, each one obstacle.
    joined: tuple[tuple[str, str], ...] = ()


def kernel_ranks(ix: SightIndex, ranks: np.ndarray) -> np.ndarray:
    """The D4 rank of every piece the kernels see on ``ix``: the real pieces' own
    (``ranks``, by piece index), then each G4 bridge's, the lower of its two ends'."""
    real = np.asarray(ranks, np.int64)[: ix.n_pieces]
    e = ix.bridge_ends
    return np.concatenate([real, np.minimum(real[e[:, 0]], real[e[:, 1]])])


def any_clear_indices(
    table: Table,
    ix: SightIndex,
    ranks: np.ndarray,
    need: np.ndarray,
    s: np.ndarray,
    g: np.ndarray,
    without: np.ndarray | None = None,
    *,
    widen: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """The S3 test of :func:`clear_lines` for the pairs of model indices ``(s[i],
    g[i])`` on ``ix``, only pieces of rank ``ranks`` at least ``need[i]`` blocking,
    ``without[i]`` left out (-1: none): its one kernel call. Whether each is clear, and
    its witness segment (x0, y0, x1, y1; NaN when not)."""
    xyr = _xyr(table)
    found, witness = backend.kernels(len(s) * ix.work(each=window_work)).any_clear_batch(
        np.ascontiguousarray(xyr[s]),
        np.ascontiguousarray(xyr[g]),
        s + ix.n_terrain,
        g + ix.n_terrain,
        np.asarray(need, np.int64),
        kernel_ranks(ix, ranks),
        *ix.packed,
        max(ix.half + widen, 0.0),
        _grazing(table),
        np.full(len(s), -1, np.int64) if without is None else np.asarray(without, np.int64),
    )
    return np.asarray(found, np.bool_), np.asarray(witness, np.float64)


def clear_lines(
    table: Table,
    pairs: Sequence[tuple[str, str]],
    *,
    piece_rank: np.ndarray | None = None,
    min_rank: np.ndarray | None = None,
    index: SightIndex | None = None,
    without: np.ndarray | None = None,
    widen: float = 0.0,
    closers: bool = True,
) -> list[ClearLine]:
    """S3 for each ``(observer, target)`` pair of model ids.

    Only pieces whose ``piece_rank`` is at least the pair's ``min_rank`` block (all of
    them by default); the two bases themselves never do. Exact: see ``kernels.any_clear``.
    What-if keywords: ``without[i]`` leaves one more piece out of pair i (-1 none, with
    the bridges from it, G4); ``widen`` (mm) adds to half the beam, so a pair is clear
    only with that much room (G8 margins). ``closers=False`` skips naming the pieces
    that close the window (``blockers`` is then empty).
    """
    ix = index or sight_index(table)
    s, g = _pairs(table, pairs)
    ranks = np.zeros(len(ix.ids), np.int64) if piece_rank is None else piece_rank
    need = np.zeros(len(s), np.int64) if min_rank is None else min_rank
    found, witness = any_clear_indices(table, ix, ranks, need, s, g, without, widen=widen)
    out = []
    blocked = [i for i in range(len(pairs)) if not found[i] and closers]
    reach = iter(window_reach(table, s[blocked], g[blocked], index=ix))
    for i, (a, b) in enumerate(pairs):
        if found[i]:
            w = witness[i]
            ends = (Point(float(w[0]), float(w[1])), Point(float(w[2]), float(w[3])))
            out.append(ClearLine(a, b, True, ends, ()))
            continue
        if not closers:
            out.append(ClearLine(a, b, False, None, ()))
            continue
        closing = tuple(ix.ids[p] for p in next(reach) if ranks[p] >= need[i])
        out.append(ClearLine(a, b, False, None, closing, _joined(ix, closing)))
    return out


def window_reach(
    table: Table,
    observers: np.ndarray,
    targets: np.ndarray,
    *,
    index: SightIndex | None = None,
) -> list[np.ndarray]:
    """D3 for pairs of model indices: the pieces (terrain and other bases, in index
    order) that reach into the window of the two bases, their convex hull: nearer than
    half the beam to it (G5). One batched kernel call, no geometry built per pair."""
    offsets, piece = window_reach_flat(table, observers, targets, index=index)
    return [piece[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]


def window_reach_flat(
    table: Table,
    observers: np.ndarray,
    targets: np.ndarray,
    *,
    index: SightIndex | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`window_reach` as the kernel gives it: every pair's pieces one after
    another, pair ``i``'s from ``offsets[i]`` to ``offsets[i + 1]``."""
    ix = index or sight_index(table)
    s = np.asarray(observers, np.int64)
    g = np.asarray(targets, np.int64)
    if not len(s):
        return np.zeros(1, np.int64), np.zeros(0, np.int64)
    xyr = _xyr(table)
    offsets, piece = backend.kernels(len(s) * ix.work()).window_pieces(
        np.ascontiguousarray(xyr[s]),
        np.ascontiguousarray(xyr[g]),
        s + ix.n_terrain,
        g + ix.n_terrain,
        ix.n_pieces,
        ix.kind,
        ix.disc,
        ix.eoff,
        ix.edges,
        ix.bbox,
        ix.half,
    )
    return np.asarray(offsets), np.asarray(piece)


def _joined(ix: SightIndex, names: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """G4: the pairs among ``names`` (pieces that block) that touch: one obstacle each."""
    inside = set(names)
    return tuple(p for p in ix.bridge_pairs() if p[0] in inside and p[1] in inside)


def base_shape(m: Model) -> BaseGeometry:
    """A base as a fine polygon, a model without a base as a tiny disc (so that it still
    has an inside for the window tests of S3)."""
    return shapely.Point(m.at.x, m.at.y).buffer(max(m.base.radius, 1e-9), 64)
