"""Sight measures shared by the rulesets (S1, S2), batched over many pairs.

A table's pieces are packed once into a :class:`SightIndex` (terrain first, then the
models' bases), and every question goes to the compiled kernels of
:mod:`arbitre.kernels`. The beam rule of G5 applies throughout: a line crosses a piece
when it comes nearer than half the table's ``beam`` to it (meets its interior for a
beam of 0); exactly at the beam's edge it grazes, which counts only with the
``grazing_blocks`` option. A line never crosses the bases of its own two ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from arbitre import backend
from arbitre.geometry import CircleFootprint, Point, WallFootprint
from arbitre.table import Model, Table

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
        sizes = backend.piece_sizes(self.kind, self.eoff)
        if pieces is not None:
            sizes = sizes[np.asarray(pieces, dtype=np.int64)]
        return int((sizes if each is None else each(sizes)).sum())

    @property
    def packed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The arrays every kernel takes, in their order: kind, disc, eoff, edges, bbox."""
        return self.kind, self.disc, self.eoff, self.edges, self.bbox


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
) -> SightIndex:
    """Pack a table's pieces. Walls named in ``solid`` have every window opened (the
    opening ignored: F6, M12); ``openings`` opens single windows, as ``(wall id, window
    index)`` pairs (F5: the window a shooter stands at). Other walls are whole (F7)."""
    kinds: list[int] = []
    discs: list[tuple[float, float, float]] = []
    edge_rows: list[np.ndarray] = []
    eoff = [0]
    bboxes: list[tuple[float, float, float, float]] = []
    blocks: list[bool] = []
    ids: list[str] = []

    def add_disc(cx: float, cy: float, r: float) -> None:
        kinds.append(_K.DISC)
        discs.append((cx, cy, r))
        bboxes.append((cx - r, cy - r, cx + r, cy + r))
        eoff.append(eoff[-1])

    for piece in table.terrain:
        ids.append(piece.id)
        blocks.append(piece.blocks)
        fp = piece.footprint
        if isinstance(fp, CircleFootprint):
            add_disc(fp.centre.x, fp.centre.y, fp.radius)
            continue
        if isinstance(fp, WallFootprint) and piece.id in solid:
            shape = fp.solid()
        elif isinstance(fp, WallFootprint) and any(w == piece.id for w, _ in openings):
            shape = fp.opened(sorted(k for w, k in openings if w == piece.id))
        else:
            shape = fp.shape()
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
    for model in table.models:
        ids.append(model.id)
        blocks.append(True)
        add_disc(model.at.x, model.at.y, model.base.radius)
    edges = np.vstack(edge_rows) if edge_rows else np.zeros((0, 4))
    return SightIndex(
        ids=tuple(ids),
        n_terrain=len(table.terrain),
        kind=np.asarray(kinds, dtype=np.int8),
        disc=np.asarray(discs, dtype=np.float64).reshape(-1, 3),
        eoff=np.asarray(eoff, dtype=np.int64),
        edges=np.ascontiguousarray(edges, dtype=np.float64),
        bbox=np.asarray(bboxes, dtype=np.float64).reshape(-1, 4),
        blocks=np.asarray(blocks, dtype=np.bool_),
        half=table.beam / 2.0,
    )


@lru_cache(maxsize=64)
def sight_index(
    table: Table,
    solid: frozenset[str] = frozenset(),
    openings: frozenset[tuple[str, int]] = frozenset(),
) -> SightIndex:
    """The cached :func:`build_index` of a table."""
    return build_index(table, solid=solid, openings=openings)


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
    """

    shooters: np.ndarray
    targets: np.ndarray
    offsets: np.ndarray
    piece: np.ndarray
    t: np.ndarray
    first_stop: np.ndarray


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
    offsets, piece, tt, first = k.centre_lines(
        xy[s, 0],
        xy[s, 1],
        xy[g, 0],
        xy[g, 1],
        s + ix.n_terrain,
        g + ix.n_terrain,
        *ix.packed,
        ix.blocks if stops is None else stops,
        ix.half,
        _grazing(table),
        early_exit,
    )
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
    )


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
        lines.append(
            CentreLine(
                a,
                b,
                tuple(
                    Crossing(ix.ids[k], float(t), bool(k >= ix.n_terrain))
                    for k, t in zip(ks, ts, strict=True)
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
        ix.blocks if hides is None else hides,
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
) -> SegmentView:
    """From ``origin``, the share of ``segment`` that clear lines reach (S2 on a segment)."""
    ix = index or sight_index(table)
    skipped = {ix.ids.index(s) for s in skip}
    mask = ix.blocks if hides is None else hides
    cand = np.asarray(
        [k for k in range(len(ix.ids)) if mask[k] and k not in skipped], dtype=np.int64
    )
    t = np.array([segment[0].x, segment[0].y, segment[1].x, segment[1].y], dtype=np.float64)
    share, _, wx, wy = backend.kernels(2 * ix.work(cand, each=share_work)).visible_share(
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


def positions(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """The one packing of model positions: every model's centre (n x 2, mm) and base
    radius, in table order."""
    xyr = _xyr(table)
    return np.ascontiguousarray(xyr[:, :2]), np.ascontiguousarray(xyr[:, 2])


def _xy(table: Table) -> np.ndarray:
    return positions(table)[0]


def _xyr(table: Table) -> np.ndarray:
    """Centre and base radius of every model, in mm."""
    rows = [[m.at.x, m.at.y, m.base.radius] for m in table.models]
    return np.array(rows, dtype=np.float64).reshape(-1, 3)


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
        stops,
        np.ascontiguousarray(weights, dtype=np.float64),
        ix.half,
        _grazing(table),
    )
    return np.asarray(stop), np.asarray(total)


@dataclass(frozen=True, slots=True)
class ClearLine:
    """S3: whether some clear segment joins two bases, one such segment, or what closes
    the window between them (the pieces that block and reach into it)."""

    observer: str
    target: str
    clear: bool
    witness: tuple[Point, Point] | None
    blockers: tuple[str, ...]


def clear_lines(
    table: Table,
    pairs: Sequence[tuple[str, str]],
    *,
    piece_rank: np.ndarray | None = None,
    min_rank: np.ndarray | None = None,
    index: SightIndex | None = None,
) -> list[ClearLine]:
    """S3 for each ``(observer, target)`` pair of model ids.

    Only pieces whose ``piece_rank`` is at least the pair's ``min_rank`` block (all of
    them by default); the two bases themselves never do. Exact: see ``kernels.any_clear``.
    """
    ix = index or sight_index(table)
    s, g = _pairs(table, pairs)
    ranks = np.zeros(len(ix.ids), np.int64) if piece_rank is None else piece_rank
    need = np.zeros(len(s), np.int64) if min_rank is None else min_rank
    xyr = _xyr(table)
    k = backend.kernels(len(s) * ix.work(each=window_work))
    found, witness = k.any_clear_batch(
        np.ascontiguousarray(xyr[s]),
        np.ascontiguousarray(xyr[g]),
        s + ix.n_terrain,
        g + ix.n_terrain,
        np.asarray(need, np.int64),
        np.asarray(ranks, np.int64),
        *ix.packed,
        ix.half,
        _grazing(table),
    )
    out = []
    grown: dict[int, tuple[BaseGeometry, BaseGeometry | None]] = {}
    for i, (a, b) in enumerate(pairs):
        if found[i]:
            w = witness[i]
            ends = (Point(float(w[0]), float(w[1])), Point(float(w[2]), float(w[3])))
            out.append(ClearLine(a, b, True, ends, ()))
            continue
        skip = {int(s[i]) + ix.n_terrain, int(g[i]) + ix.n_terrain}
        hull = shapely.convex_hull(
            shapely.union(
                shapely.Point(xyr[s[i], 0], xyr[s[i], 1]).buffer(max(xyr[s[i], 2], 1e-9), 64),
                shapely.Point(xyr[g[i], 0], xyr[g[i], 1]).buffer(max(xyr[g[i], 2], 1e-9), 64),
            )
        )
        pieces = [p for p in range(len(ix.ids)) if p not in skip and ranks[p] >= need[i]]
        out.append(ClearLine(a, b, False, None, _closing(table, ix, hull, pieces, grown)))
    return out


def _closing(
    table: Table,
    ix: SightIndex,
    hull: BaseGeometry,
    pieces: Sequence[int],
    grown: dict[int, tuple[BaseGeometry, BaseGeometry | None]],
) -> tuple[str, ...]:
    """The ids of ``pieces`` whose shape grown by the beam meets ``hull`` (those that
    close a window). ``grown`` keeps each piece's shape and, once needed, its grown
    shape, for the whole call: a polygon of many corners is slow to grow, and pieces
    whose box is beyond the beam's reach of the hull's are never grown."""
    x0, y0, x1, y1 = hull.bounds
    reach = ix.half + 1e-6
    names = []
    for p in pieces:
        shape, big = grown.get(p) or (_piece_shape(table, ix, p), None)
        px0, py0, px1, py1 = shape.bounds
        if not (px0 - reach > x1 or px1 + reach < x0 or py0 - reach > y1 or py1 + reach < y0):
            big = shape.buffer(ix.half) if big is None else big
            if shapely.intersects(hull, big):
                names.append(ix.ids[p])
        grown[p] = (shape, big)
    return tuple(names)


def _piece_shape(table: Table, ix: SightIndex, p: int) -> BaseGeometry:
    if p < ix.n_terrain:
        return table.terrain[p].footprint.shape()
    return base_shape(table.models[p - ix.n_terrain])


def base_shape(m: Model) -> BaseGeometry:
    """A base as a fine polygon, a model without a base as a tiny disc (so that it still
    has an inside for the window tests of S3)."""
    return shapely.Point(m.at.x, m.at.y).buffer(max(m.base.radius, 1e-9), 64)
