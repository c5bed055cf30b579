"""G8 for the M rules: how far the sight facts of a pair are from changing (M1, M8, M12).

A shooter's centre ``O`` sees a target's base ``D`` along the *near segments*: from ``O``
to the first point of ``D`` in each direction of its angular width (S2, as the kernels
measure it). Their union is the region ``R`` between the two tangents, in front of the
base. A piece hides a direction when its footprint comes nearer than ``beam/2`` to the
near segment (G5). Moving one model by ``δ`` moves every near segment by at most ``δ``
(its ends move by at most ``δ``, and so does every point between), and a moved piece by
``δ``; so, with ``φ`` a piece's signed distance (negative inside, 1-Lipschitz):

- **seen** (M1, S2 > 0): some near segment passes every blocking piece at a clearance
  ``c = dist - beam/2``; it keeps ``c - δ > 0``: the margin is the best clearance
  among the directions tried (any one is a witness, so the value is a lower bound);
- **not seen**: every near segment comes within ``beam/2`` of some blocking piece, by
  ``h = beam/2 - min φ`` along it; each keeps ``h - δ > 0``: the margin is the smallest
  ``h`` over the near arc, less half the spacing of the points tried (``h`` is
  1-Lipschitz in the near point, so the value is a lower bound);
- **partly hidden** (M8): a piece hides a point ``x`` of ``R`` lying at depth ``ρ`` in
  both ``R`` and the piece grown by ``beam/2``; ``x`` stays hidden for ``δ < ρ``;
- **nothing hides**: every piece is at ``dist(piece, R) > beam/2``; it keeps that for
  ``δ`` below the difference.

G4: a line passing between two blockers whose gap is within the contact tolerance is
closed (one obstacle); the joint holds while the gap stays within it, so such a line is
closed by ``tolerance - gap`` and a line through a wider gap is open by ``gap -
tolerance`` (``contact a-b``). Discs are drawn as fine polygons inside the true circle;
the margins are lowered by the largest such error. Pieces whose box is far from ``R``
are bounded by their box's distance (a lower bound, never measured exactly).

The distances of a view's segments to all its near pieces, and the points of M8, come
from :mod:`arbitre.kernels_mordheim` in one call each (compiled, or the same source
interpreted for small jobs: both builds give the same bits, and the numpy forms they
replaced gave them too, ``tests/test_mordheim_kernels.py``); the depths into polygons
stay GEOS's, measured only where they may decide (:func:`hidden_slack`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import shapely
import shapely.errors
from shapely.geometry.base import BaseGeometry

from arbitre import backend, bounded, sight
from arbitre.geometry import CircleFootprint, WallFootprint, Window
from arbitre.table import Table, Terrain

#: Segments of a quarter circle in the polygons standing for discs.
QUAD = 32
#: Directions tried across the target's angular width (then refined near the best).
DIRECTIONS = 48
#: Points tried along a near segment for how deep it runs into a piece.
ALONG = 9
#: Pieces whose box is farther than this (mm) from the region are bounded by their box.
FAR = 25.0
#: G4 joints are looked for up to this much (mm) beyond the contact tolerance.
JOINT = 5.0
#: How far (mm) the kernels' estimate of a depth into a polygon may be from GEOS's measure
#: (:func:`arbitre.kernels_mordheim.meet_depths`; float errors are below 1e-9 mm).
GUESS = 1e-6
#: The kernels' smallest angular width: a target narrower is a point (F8).
POINT_WIDTH = 1e-10


@dataclass(frozen=True, slots=True)
class Slack:
    """How far one fact is from changing (mm, never negative) and the test it names."""

    mm: float
    test: str


#: No length test: nothing geometric decides.
NO_SLACK = Slack(math.inf, "")


@dataclass(frozen=True, slots=True, eq=False)
class Pieces:
    """A table's pieces as shapely shapes, in the order of a sight index (terrain, then
    bases): the windows opened as that index opens them."""

    ids: tuple[str, ...]
    shapes: tuple[BaseGeometry, ...]
    boundaries: tuple[BaseGeometry, ...]
    bbox: np.ndarray
    error: float
    #: ``cx, cy, r`` of each disc piece (bases, round terrain), ``r < 0`` for the others:
    #: discs are measured exactly, without their polygons.
    discs: np.ndarray
    #: G4: pairs of pieces that touch or nearly do (:func:`_bridges`).
    bridges: tuple[tuple[int, int, float, BaseGeometry], ...] = ()
    #: Each piece's outline as edges (rows ``x0, y0, x1, y1``; empty for a disc).
    edges: tuple[np.ndarray, ...] = ()
    #: The same edges packed for the kernels: piece ``k``'s are rows ``eoff[k]`` to
    #: ``eoff[k + 1]`` of ``eflat``.
    eoff: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    eflat: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    #: The shapes as an array (for shapely's vectorised predicates).
    geoms: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    #: Whether GEOS finds each shape valid.
    valid: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    #: The bridges packed: their two pieces (rows ``a, b``), gaps, and the ends of their
    #: segments (rows ``px, py, qx, qy``; NaN for a segment not of two points).
    joint_ab: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    joint_gap: np.ndarray = field(default_factory=lambda: np.zeros(0))
    joint_xy: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    #: :attr:`boundaries` as an array (for GEOS's vectorised calls).
    outlines: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))

    def shape(self, k: int) -> BaseGeometry:
        return self.shapes[k]


def _pieces_key(
    table: Table,
    solid: frozenset[str] = frozenset(),
    openings: frozenset[tuple[str, int]] = frozenset(),
) -> Hashable:
    """What :func:`pieces` rests on: the table's geometry and the walls' windows."""
    return (sight.geometry_key(table), frozenset(solid), frozenset(openings))


@bounded.kept_by(_pieces_key, 32)
def pieces(
    table: Table,
    solid: frozenset[str] = frozenset(),
    openings: frozenset[tuple[str, int]] = frozenset(),
) -> Pieces:
    """The shapes of :func:`arbitre.sight.sight_index` ``(table, solid, openings)``,
    prepared once (kept by what they rest on, :func:`arbitre.sight.geometry_key`, and
    the windows: an equal table under another name finds them; the terrain's part per
    terrain, as pieces do not move when models do)."""
    ground = _ground(table.terrain, solid, openings)
    bases = _bases(table)
    geoms = np.concatenate([ground.geoms, bases.geoms])
    shapes = list(geoms)
    disc_rows = np.vstack([ground.discs, bases.discs])
    bounds = np.vstack([ground.bbox, bases.bbox])
    edges = (*ground.edges, *((_NO_EDGES,) * len(bases.discs)))  # a base has no edges
    bridges = _bridges(shapes, disc_rows, table.contact_tolerance)
    boundaries = (*ground.boundaries, *bases.boundaries)
    outlines = np.empty(len(boundaries), dtype=object)
    outlines[:] = boundaries
    return Pieces(
        ids=(*(t.id for t in table.terrain), *(m.id for m in table.models)),
        shapes=tuple(shapes),
        boundaries=boundaries,
        outlines=outlines,
        bbox=bounds.reshape(-1, 4),
        error=1e-6,
        discs=disc_rows,
        bridges=bridges,
        edges=edges,
        eoff=np.concatenate([[0], np.cumsum([len(e) for e in edges])]).astype(np.int64),
        eflat=np.vstack([np.zeros((0, 4)), *ground.edges]),  # bases have no edges
        geoms=geoms,
        valid=np.concatenate([ground.valid, bases.valid]),
        **_packed_joints(bridges),
    )


def _packed_joints(bridges: Sequence[tuple[int, int, float, BaseGeometry]]) -> dict[str, Any]:
    """The fields ``joint_ab``, ``joint_gap`` and ``joint_xy`` of :class:`Pieces`."""
    xy = np.full((len(bridges), 4), np.nan)
    for i, (_, _, _, line) in enumerate(bridges):
        ends = np.asarray(line.coords, dtype=np.float64)
        if ends.shape == (2, 2):
            xy[i] = ends.reshape(4)
    return {
        "joint_ab": np.asarray([(a, b) for a, b, _, _ in bridges], dtype=np.int64).reshape(-1, 2),
        "joint_gap": np.asarray([gap for _, _, gap, _ in bridges], dtype=np.float64),
        "joint_xy": xy,
    }


#: The edges of a disc piece: none (one array for all, never written).
_NO_EDGES = np.zeros((0, 4))
_NO_EDGES.flags.writeable = False


@dataclass(frozen=True, slots=True, eq=False)
class _Ground:
    """The terrain's part of :class:`Pieces` (see there), for one opening of the walls."""

    geoms: np.ndarray
    boundaries: tuple[BaseGeometry, ...]
    bbox: np.ndarray
    discs: np.ndarray
    edges: tuple[np.ndarray, ...]
    valid: np.ndarray


@lru_cache(maxsize=32)
def _ground(
    terrain: tuple[Terrain, ...],
    solid: frozenset[str],
    openings: frozenset[tuple[str, int]],
) -> _Ground:
    """The terrain pieces as :func:`pieces` draws them (cached per terrain: a table whose
    models moved draws only its bases)."""
    shapes: list[BaseGeometry] = []
    discs: list[tuple[float, float, float]] = []
    for piece in terrain:
        fp = piece.footprint
        discs.append((0.0, 0.0, -1.0))
        if isinstance(fp, CircleFootprint):
            shapes.append(_disc(fp.centre.x, fp.centre.y, fp.radius))
            discs[-1] = (fp.centre.x, fp.centre.y, fp.radius)
        elif isinstance(fp, WallFootprint) and piece.id in solid:
            shapes.append(fp.solid())
        elif isinstance(fp, WallFootprint) and any(w == piece.id for w, _ in openings):
            shapes.append(fp.opened(sorted(k for w, k in openings if w == piece.id)))
        else:
            shapes.append(fp.shape())
    ground = np.empty(len(shapes), dtype=object)
    ground[:] = shapes
    shapely.prepare(ground)
    rows = np.asarray(discs, dtype=np.float64).reshape(-1, 3)
    return _Ground(
        geoms=ground,
        boundaries=tuple(shapely.boundary(ground)),
        bbox=_bounds(ground).reshape(-1, 4),
        discs=rows,
        edges=tuple(
            np.zeros((0, 4)) if rows[k, 2] >= 0.0 else _outline(g) for k, g in enumerate(shapes)
        ),
        valid=_valid(ground),
    )


def _valid(geoms: np.ndarray) -> np.ndarray:
    """Whether GEOS finds each shape valid."""
    return np.asarray(shapely.is_valid(geoms), dtype=np.bool_).reshape(-1)


@dataclass(frozen=True, slots=True, eq=False)
class _Bases:
    """The models' bases as the prepared polygons of :class:`Pieces` (they do not depend
    on the windows: built once per table)."""

    geoms: np.ndarray
    boundaries: np.ndarray
    bbox: np.ndarray
    discs: np.ndarray
    valid: np.ndarray


@bounded.kept_by(sight.geometry_key, 32)
def _bases(table: Table) -> _Bases:
    """Every base as :func:`_disc` draws it (each drawn once per place and size: a table
    whose models moved draws only the bases that moved, :func:`_drawn`)."""
    xyr = np.asarray(
        [(m.at.x, m.at.y, m.base.radius) for m in table.models], dtype=np.float64
    ).reshape(-1, 3)
    geoms, boundaries, valid = _drawn(xyr)
    return _Bases(geoms, boundaries, _bounds(geoms), xyr, valid)


#: Bases already drawn, by ``(x, y, r)``: their prepared polygon, its boundary and
#: whether GEOS finds it valid.
_DRAWN: dict[tuple[float, float, float], tuple[BaseGeometry, BaseGeometry, bool]] = {}
#: The store above is emptied when it holds more (a few tables' worth).
DRAWN_MAX = 4096


def _drawn(xyr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The prepared polygons of the bases ``x, y, r``, their boundaries and whether
    GEOS finds them valid, as one
    vectorised ``buffer`` of the base centres draws them (GEOS draws each geometry
    alone: the same shapes); the new ones drawn in one call."""
    keys = [(float(x), float(y), float(r)) for x, y, r in xyr.tolist()]
    new = [i for i, k in enumerate(keys) if k not in _DRAWN]
    if new:
        rows = xyr[new]
        geoms = np.asarray(
            shapely.buffer(
                shapely.points(rows[:, :2]), np.maximum(rows[:, 2], 1e-9), quad_segs=QUAD
            ),
            dtype=object,
        ).reshape(-1)
        shapely.prepare(geoms)
        lines = np.asarray(shapely.boundary(geoms)).reshape(-1)
        valid = _valid(geoms)
        if len(_DRAWN) + len(new) > DRAWN_MAX:
            _DRAWN.clear()
        for i, g, b, ok in zip(new, geoms, lines, valid.tolist(), strict=True):
            _DRAWN[keys[i]] = (g, b, ok)
    found = [_DRAWN.get(k) or _drawn_one(k) for k in keys]
    out = np.empty(len(keys), dtype=object)
    out[:] = [g for g, _, _ in found]
    edges = np.empty(len(keys), dtype=object)
    edges[:] = [b for _, b, _ in found]
    return out, edges, np.asarray([ok for _, _, ok in found], dtype=np.bool_)


def _drawn_one(key: tuple[float, float, float]) -> tuple[BaseGeometry, BaseGeometry, bool]:
    """One base drawn (when another thread emptied the store meanwhile)."""
    g = shapely.buffer(shapely.Point(key[0], key[1]), max(key[2], 1e-9), quad_segs=QUAD)
    shapely.prepare(g)
    return g, shapely.boundary(g), bool(shapely.is_valid(g))


def _bounds(geoms: np.ndarray) -> np.ndarray:
    """Each shape's box (``x0, y0, x1, y1``), infinite for an empty one."""
    if not len(geoms):
        return np.zeros((0, 4))
    box = np.asarray(shapely.bounds(geoms), dtype=np.float64).reshape(-1, 4)
    box[np.asarray(shapely.is_empty(geoms))] = np.inf
    return box


def _outline(shape: BaseGeometry) -> np.ndarray:
    """A polygon's rings as edges (rows ``x0, y0, x1, y1``)."""
    rows = []
    for poly in getattr(shape, "geoms", [shape]):
        if poly.is_empty:
            continue
        for ring in (poly.exterior, *poly.interiors):
            xy = np.asarray(ring.coords, dtype=np.float64).reshape(-1, 2)
            rows.append(np.hstack([xy[:-1], xy[1:]]))
    return np.vstack(rows) if rows else np.zeros((0, 4))


def _disc(x: float, y: float, r: float) -> BaseGeometry:
    return shapely.Point(x, y).buffer(max(r, 1e-9), quad_segs=QUAD)


@dataclass(frozen=True, slots=True)
class View:
    """What a shooter's centre sees a target's base by: the near segments tried (rows
    ``x0, y0, x1, y1``), the spacing of their far ends along the near arc, and the
    region ``R`` they sweep (a segment for a point target): its outline's points
    (``ring``, drawn as a shape only when asked, :attr:`region`) and their box."""

    segments: np.ndarray
    spacing: float
    ring: np.ndarray
    point: bool
    ox: float
    oy: float
    tx: float
    ty: float
    r: float
    #: ``x0, y0, x1, y1``: the box of :attr:`region` (its points' least and largest).
    bounds: tuple[float, float, float, float]

    @property
    def region(self) -> BaseGeometry:
        """``R`` as a shape: the tangents and the near arc (a polygon), or the segment
        from the centre to a point target."""
        if self.point:
            return shapely.LineString(self.ring)
        return shapely.polygons(self.ring)

    def sides(self) -> np.ndarray:
        """``tx, ty, r, ox, oy`` and the inner normals of the two tangents of ``R``
        (as :meth:`depth` measures them), for the kernels."""
        d = math.hypot(self.tx - self.ox, self.ty - self.oy)
        w = math.asin(min(1.0, self.r / d))
        phi = math.atan2(self.ty - self.oy, self.tx - self.ox)
        out = [self.tx, self.ty, self.r, self.ox, self.oy]
        for side in (-1.0, 1.0):
            a = phi + side * w
            out += [-math.sin(a) * side, math.cos(a) * side]
        return np.asarray(out, dtype=np.float64)


def _box(ring: np.ndarray) -> tuple[float, float, float, float]:
    """The box of some points, as GEOS bounds a shape of them (least and largest)."""
    lo, hi = ring.min(axis=0), ring.max(axis=0)
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def view(ox: float, oy: float, tx: float, ty: float, r: float, n: int = DIRECTIONS) -> View:
    """The near segments from ``(ox, oy)`` to the base ``(tx, ty, r)``: ``n`` spread evenly
    along the near arc (by length), both tangent points included. Kept by its numbers
    (their signs too: -0.0 is not 0.0 here): a drag asks the views of every model that
    did not move again. Nothing writes into a view's arrays."""
    numbers = (float(ox), float(oy), float(tx), float(ty), float(r))
    signs = tuple(math.copysign(1.0, x) for x in numbers)
    return _kept_view(numbers, signs, n)


@lru_cache(maxsize=4096)
def _kept_view(
    numbers: tuple[float, float, float, float, float], signs: tuple[float, ...], n: int
) -> View:
    """:func:`view` made (``signs`` only tell -0.0 from 0.0 in the key)."""
    return _view(*numbers, n)


def _view(ox: float, oy: float, tx: float, ty: float, r: float, n: int) -> View:
    """:func:`view`, made."""
    d = math.hypot(tx - ox, ty - oy)
    if r <= 0.0 or d <= r or math.asin(r / d) < POINT_WIDTH:
        seg = np.asarray([[ox, oy, tx, ty]])
        ring = np.asarray([[ox, oy], [tx, ty]], dtype=np.float64)
        return View(seg, 0.0, ring, True, ox, oy, tx, ty, r, _box(ring))
    phi = math.atan2(ty - oy, tx - ox)
    # the near arc runs from one tangent point to the other through the nearest point:
    # angles on the base's circle, seen from its centre
    half_arc = math.acos(r / d)
    theta = phi + math.pi + _spread(-half_arc, half_arc, n)
    px, py = tx + r * np.cos(theta), ty + r * np.sin(theta)
    # R: the tangents and the near arc; its chords run a little into the base, so the
    # polygon holds R (a larger region: distances to it are never too large)
    ring = np.empty((n + 1, 2))
    ring[0] = ox, oy
    ring[1:, 0], ring[1:, 1] = px, py
    segs = np.empty((n, 4))
    segs[:, 0], segs[:, 1], segs[:, 2:] = ox, oy, ring[1:]
    spacing = 2.0 * r * math.sin(half_arc / max(n - 1, 1))  # chord between neighbours
    lo_x, lo_y, hi_x, hi_y = float(px.min()), float(py.min()), float(px.max()), float(py.max())
    box = (min(ox, lo_x), min(oy, lo_y), max(ox, hi_x), max(oy, hi_y))
    return View(segs, spacing, ring, False, ox, oy, tx, ty, r, box)


def _spread(lo: float, hi: float, n: int) -> np.ndarray:
    """``np.linspace(lo, hi, n)``, its operations in its order (numpy 2: a ramp times
    the step, plus ``lo``, the last set to ``hi``) without its checks."""
    step = (hi - lo) / (n - 1) if n > 1 else 0.0
    if n < 2 or step == 0.0:
        return np.linspace(lo, hi, n)
    y = _ramp(n) * step
    y += lo
    y[-1] = hi
    return y


@lru_cache(maxsize=8)
def _ramp(n: int) -> np.ndarray:
    ramp = np.arange(0, n, dtype=np.float64)
    ramp.flags.writeable = False
    return ramp


def _lines(segs: np.ndarray) -> np.ndarray:
    return np.asarray(shapely.linestrings(segs.reshape(-1, 2, 2)))


def _candidates(p: Pieces, v: View, mask: np.ndarray) -> tuple[np.ndarray, float]:
    """The masked pieces whose box is within :data:`FAR` of the region's, and the box
    distance of the nearest one left out (a lower bound on its distance)."""
    x0, y0, x1, y1 = v.bounds
    b = p.bbox
    dx = np.maximum(0.0, np.maximum(b[:, 0] - x1, x0 - b[:, 2]))
    dy = np.maximum(0.0, np.maximum(b[:, 1] - y1, y0 - b[:, 3]))
    gap = np.hypot(dx, dy)
    gap[~mask] = np.inf
    near = np.flatnonzero(gap <= FAR)
    rest = gap.copy()
    rest[near] = np.inf
    return near, float(rest.min()) if len(rest) else math.inf


def _signed(kern: Any, p: Pieces, near: np.ndarray, segs: np.ndarray) -> np.ndarray:
    """``min φ`` of each ``near`` piece along each segment (rows: pieces, columns:
    segments): its distance when apart, minus (a lower bound on) how deep the segment runs
    into it when it meets it. The distances come from the kernels ``kern``
    (:mod:`arbitre.kernels_mordheim`, compiled or interpreted) in one call."""
    ks = np.asarray(near, dtype=np.int64)
    segs = np.ascontiguousarray(segs)  # one compiled form of the kernels
    dist, meets = _apart(kern, p, ks, segs)
    _meet(p, ks, segs, dist, meets)
    return dist


def _apart(kern: Any, p: Pieces, ks: np.ndarray, segs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_signed` but for the segments meeting a polygon: the distances (0 where a
    segment meets a polygon), and where those meetings are (their depths still to
    measure, :func:`_meet`). A segment starting inside a polygon it does not cross is
    wholly inside: GEOS says which polygons hold the start, once for the segments'
    common start (the shooter's centre, :func:`_starts_inside`)."""
    dist = np.empty((len(ks), len(segs)))
    meets = np.zeros(dist.shape, dtype=np.bool_)
    if not len(segs):
        return dist, meets
    ox, oy = float(segs[0, 0]), float(segs[0, 1])
    if (segs[:, 0] == ox).all() and (segs[:, 1] == oy).all():
        kern.apart(segs, ks, p.discs, p.eoff, p.eflat, _starts_inside(p, ox, oy), dist, meets)
        return dist, meets
    kern.piece_distances(segs, ks, p.discs, p.eoff, p.eflat, dist)
    poly = np.flatnonzero(p.discs[ks, 2] < 0.0)
    if len(poly):
        inside = shapely.contains_xy(p.geoms[ks[poly], None], segs[None, :, 0], segs[None, :, 1])
        rows = dist[poly]
        rows[inside] = 0.0
        dist[poly] = rows
        meets[poly] = rows <= 0.0
    return dist, meets


#: The last :func:`_starts_inside` answer: its pieces, point and flags.
_LAST_INSIDE: list[tuple[Pieces, float, float, np.ndarray]] = []


def _starts_inside(p: Pieces, x: float, y: float) -> np.ndarray:
    """Which polygon pieces hold the point (GEOS ``contains_xy``, as for each segment
    starting there), flags per piece; kept for the next call (a shooter's targets)."""
    last = _LAST_INSIDE[-1] if _LAST_INSIDE else None
    if last is not None and last[0] is p and last[1] == x and last[2] == y:
        return last[3]
    flags = np.zeros(len(p.ids), dtype=np.bool_)
    poly = np.flatnonzero(p.discs[:, 2] < 0.0)
    if len(poly):
        flags[poly] = shapely.contains_xy(p.geoms[poly], x, y)
    _LAST_INSIDE[:] = [(p, x, y, flags)]
    return flags


def _meet(p: Pieces, ks: np.ndarray, segs: np.ndarray, dist: np.ndarray, meets: np.ndarray) -> None:
    """Minus the depth of each meeting of ``meets`` (:func:`_depth`, GEOS), into
    ``dist``. A piece GEOS finds invalid has every meeting of its row measured at once,
    as its fallback measures a whole batch; the valid pieces' meetings are measured
    together, in one GEOS call of each kind (each pair alone: the same depths)."""
    rows = np.flatnonzero(meets.any(axis=1))
    if not len(rows):
        return
    good = rows[p.valid[ks[rows]]]
    for i in rows[~p.valid[ks[rows]]].tolist():
        meet = np.flatnonzero(meets[i])
        dist[i, meet] = -_depth(p, int(ks[i]), _lines(segs[meet]), segs[meet])
    if not len(good):
        return
    at, cols = np.nonzero(meets[good])
    at = good[at]
    pieces = ks[at]
    try:
        parts, which = shapely.get_parts(
            shapely.intersection(_lines(segs[cols]), p.geoms[pieces]), return_index=True
        )
    except shapely.errors.GEOSException:  # GEOS fails on one: each piece alone
        for i in good.tolist():
            meet = np.flatnonzero(meets[i])
            dist[i, meet] = -_depth(p, int(ks[i]), _lines(segs[meet]), segs[meet])
        return
    keep = shapely.get_type_id(parts) == 1  # the stretches (LineStrings), not touches
    parts, which = parts[keep], which[keep]
    deep = np.zeros(len(at))
    if len(parts):
        mids = shapely.line_interpolate_point(parts, 0.5, normalized=True)
        edges = p.outlines[pieces[which]]
        np.maximum.at(deep, which, shapely.distance(mids, edges))
    dist[at, cols] = -deep


def _depth(p: Pieces, k: int, lines: np.ndarray, segs: np.ndarray) -> np.ndarray:
    """A lower bound on how deep each segment runs into piece ``k``: the depth of the
    middle of each stretch inside it (or, where the footprint is not a valid polygon
    for GEOS, of points spread along the segment)."""
    shape = p.shape(k)
    deep = np.zeros(len(segs))
    try:
        parts, which = shapely.get_parts(shapely.intersection(lines, shape), return_index=True)
    except shapely.errors.GEOSException:
        t = np.linspace(0.0, 1.0, 4 * ALONG)
        x = segs[:, None, 0] + (segs[:, None, 2] - segs[:, None, 0]) * t
        y = segs[:, None, 1] + (segs[:, None, 3] - segs[:, None, 1]) * t
        inside = shapely.contains_xy(shape, x, y)
        d = shapely.distance(shapely.points(x, y), p.boundaries[k])
        return np.asarray(np.where(inside, d, 0.0).max(axis=1))
    keep = shapely.get_type_id(parts) == 1  # the stretches (LineStrings), not touches
    parts, which = parts[keep], which[keep]
    if len(parts):
        mids = shapely.line_interpolate_point(parts, 0.5, normalized=True)
        np.maximum.at(deep, which, shapely.distance(mids, p.boundaries[k]))
    return deep


def _bridges(
    shapes: Sequence[BaseGeometry], discs: np.ndarray, tolerance: float
) -> tuple[tuple[int, int, float, BaseGeometry], ...]:
    """G4: the pairs of pieces whose gap is within ``tolerance`` plus :data:`JOINT` mm
    without overlapping: their indices, gap and the segment between their nearest points
    (a gap this close or closer makes, or would make, one obstacle).

    The pairs come in the order of an STRtree of the pieces queried with each piece's
    box grown by the reach (the order a ``dwithin`` query of that tree gives: the ties
    between equal gaps are decided by it). Two discs are measured exactly, so GEOS is
    asked whether their polygons are within reach only for those whose gap is (the
    polygons lie inside the discs); the other pairs are GEOS's alone."""
    reach = tolerance + max(JOINT, 2.0 * tolerance)
    every = np.empty(len(shapes), dtype=object)
    every[:] = shapes
    live = np.flatnonzero(~np.asarray(shapely.is_empty(every), dtype=np.bool_)).tolist()
    if len(live) < 2:
        return ()
    geoms = every[live]
    tree = shapely.STRtree(geoms)
    box = np.asarray(shapely.bounds(geoms), dtype=np.float64).reshape(-1, 4)
    grown = shapely.box(box[:, 0] - reach, box[:, 1] - reach, box[:, 2] + reach, box[:, 3] + reach)
    left, right = tree.query(grown)
    index = np.asarray(live, dtype=np.int64)
    pick = index[left] < index[right]
    left, right = left[pick], right[pick]
    found: list[_Pair | None] = [None] * len(left)
    todo = []
    for i, (u, w) in enumerate(zip(left.tolist(), right.tolist(), strict=True)):
        known = _PAIRS.get((id(geoms[u]), id(geoms[w]), reach))
        if known is not None and known[0] is geoms[u] and known[1] is geoms[w]:
            found[i] = known
        else:
            todo.append(i)
    if todo:
        at = np.asarray(todo, dtype=np.int64)
        new = _pairs(geoms, discs[index], left[at], right[at], reach)
        if len(_PAIRS) + len(new) > PAIRS_MAX:
            _PAIRS.clear()
        for i, measured in zip(todo, new, strict=True):
            found[i] = measured
            _PAIRS[(id(measured[0]), id(measured[1]), reach)] = measured
    out = []
    for u, w, pair in zip(left.tolist(), right.tolist(), found, strict=True):
        if pair is not None and pair[2] is not None and pair[3] is not None:
            out.append((int(index[u]), int(index[w]), pair[2], pair[3]))
    return tuple(out)


#: Two shapes, and their gap and the segment between them when they make a joint
#: (``None, None`` when not).
_Pair = tuple[BaseGeometry, BaseGeometry, float | None, BaseGeometry | None]
#: Pairs of shapes already measured, by the shapes' ids and the reach (the shapes kept:
#: a pair is found again only for the very same shapes, as the terrain's and the bases'
#: stores give them to a table whose models moved).
_PAIRS: dict[tuple[int, int, float], _Pair] = {}
#: The store above is emptied when it holds more.
PAIRS_MAX = 65536


def _pairs(
    geoms: np.ndarray, discs: np.ndarray, left: np.ndarray, right: np.ndarray, reach: float
) -> list[_Pair]:
    """:func:`_bridges` for the candidate pairs ``left, right`` (indices of ``geoms``
    and ``discs`` rows): each pair's gap and segment when its shapes are within
    ``reach`` (GEOS) and apart by a gap in ``(0, reach]``."""
    ar, br = discs[left, 2], discs[right, 2]
    both = (ar >= 0.0) & (br >= 0.0)
    d = np.hypot(discs[right, 0] - discs[left, 0], discs[right, 1] - discs[left, 1])
    disc_gap = d - ar - br
    # two discs: only a gap in (0, reach] can make a joint (then GEOS says if within;
    # the exact gap is measured below, as before: this only leaves out the far pairs)
    ask = np.flatnonzero(~both | ((disc_gap > -1e-6) & (disc_gap <= reach + 1e-6)))
    within = np.zeros(len(left), dtype=np.bool_)
    if len(ask):
        within[ask] = shapely.dwithin(geoms[left[ask]], geoms[right[ask]], reach)
    out: list[_Pair] = []
    for i in range(len(left)):
        ga, gb = geoms[left[i]], geoms[right[i]]
        out.append((ga, gb, None, None))
        if not within[i]:
            continue
        (ax, ay, ra), (bx, by, rb) = discs[left[i]], discs[right[i]]
        if both[i]:  # two discs, exactly
            dd = math.hypot(bx - ax, by - ay)
            gap = dd - ra - rb
            if dd == 0.0 or not 0.0 < gap <= reach:
                continue
            ux, uy = (bx - ax) / dd, (by - ay) / dd
            line = shapely.LineString([(ax + ra * ux, ay + ra * uy), (bx - rb * ux, by - rb * uy)])
        else:
            gap = float(shapely.distance(ga, gb))
            if not 0.0 < gap <= reach:
                continue
            line = shapely.shortest_line(ga, gb)
        out[-1] = (ga, gb, gap, line)
    return out


@dataclass(frozen=True, slots=True)
class Joints:
    """The G4 joints between a view's near pieces (bridges in :attr:`Pieces.bridges`
    order): their pieces (rows ``a, b``), gaps, and which segments pass through each
    (rows: joints, columns: segments)."""

    ab: np.ndarray
    gap: np.ndarray
    through: np.ndarray

    def __len__(self) -> int:
        return len(self.gap)


def _joints(p: Pieces, near: np.ndarray, segs: np.ndarray, kern: Any = None) -> Joints:
    """The G4 joints between ``near`` pieces, each with the segments passing through it
    (:func:`_through`, by the kernels ``kern`` when given)."""
    ab = p.joint_ab
    if not len(ab):
        return Joints(ab, p.joint_gap, np.zeros((0, len(segs)), dtype=np.bool_))
    keep = np.zeros(len(p.ids), dtype=np.bool_)
    keep[near] = True
    sel = np.flatnonzero(keep[ab[:, 0]] & keep[ab[:, 1]])
    if not len(sel):
        return Joints(ab[sel], p.joint_gap[sel], np.zeros((0, len(segs)), dtype=np.bool_))
    through = _through(segs, p.joint_xy[sel], [p.bridges[int(j)][3] for j in sel], kern)
    return Joints(ab[sel], p.joint_gap[sel], through)


#: Relative bound on the float error of an orientation (a 2x2 determinant): beyond it,
#: its sign is the exact one (Shewchuk's bound is about 3.3e-16).
ORIENT_ERR = 1e-12


def _through(
    segs: np.ndarray, xy: np.ndarray, lines: Sequence[BaseGeometry], kern: Any = None
) -> np.ndarray:
    """Which segments meet each two-point line (a G4 joint: rows ``px, py, qx, qy`` of
    ``xy``, the shapes ``lines``), as GEOS's ``intersects`` says: by the signs of the
    four orientations where each is surely of its sign (then the two meet only by
    crossing), GEOS itself for the others (touching, collinear or too close to tell).
    The orientations by the kernels ``kern`` when given (the same operations)."""
    if kern is not None:
        out = np.zeros((len(xy), len(segs)), dtype=np.bool_)
        sure = np.zeros((len(xy), len(segs)), dtype=np.bool_)
        kern.through(np.ascontiguousarray(segs), np.ascontiguousarray(xy), ORIENT_ERR, out, sure)
    else:
        px, py, qx, qy = (xy[:, c, None] for c in range(4))
        ox, oy, ex, ey = (segs[None, :, c] for c in range(4))

        def orient(ax: Any, ay: Any, bx: Any, by: Any, cx: Any, cy: Any) -> tuple[Any, Any]:
            left, right = (bx - ax) * (cy - ay), (by - ay) * (cx - ax)
            return left - right, np.abs(left) + np.abs(right)

        o1, m1 = orient(ox, oy, ex, ey, px, py)
        o2, m2 = orient(ox, oy, ex, ey, qx, qy)
        o3, m3 = orient(px, py, qx, qy, ox, oy)
        o4, m4 = orient(px, py, qx, qy, ex, ey)
        sure = np.ones((len(xy), len(segs)), dtype=np.bool_)
        for o, m in ((o1, m1), (o2, m2), (o3, m3), (o4, m4)):
            sure &= np.abs(o) > ORIENT_ERR * m  # NaN ends (not two points): never sure
        out = np.asarray((o1 * o2 < 0.0) & (o3 * o4 < 0.0) & sure)
    for i in np.flatnonzero(~sure.all(axis=1)).tolist():
        doubt = np.flatnonzero(~sure[i])
        out[i, doubt] = shapely.intersects(_lines(segs[doubt]), lines[i])
    return out


def _first_best(rows: np.ndarray, start: np.ndarray, larger: bool) -> tuple[np.ndarray, np.ndarray]:
    """Down each column, the best of ``start`` then ``rows`` (the largest or the
    smallest), and the row that first reached it (-1 for ``start``): what a loop keeping a
    value only when strictly better gives (NaN never better)."""
    worst = -np.inf if larger else np.inf
    every = np.vstack([start[None, :], np.where(np.isnan(rows), worst, rows)])
    pick = np.argmax(every, axis=0) if larger else np.argmin(every, axis=0)
    return every[pick, np.arange(every.shape[1])], pick - 1


def _who(p: Pieces, near: np.ndarray, row: int) -> str:
    """The test a best row names: a near piece's beam, or none (``-1``)."""
    return "" if row < 0 else f"beam {p.ids[int(near[row])]}"


def seen_slack(
    kern: Any,
    table: Table,
    p: Pieces,
    v: View,
    mask: np.ndarray,
    half: float,
    *,
    refine: bool = True,
) -> Slack:
    """M1, a target seen: the best clearance of a near segment from the pieces of
    ``mask`` (G5 beam) and from the G4 joints it would need to stay open: every other
    near segment tried, then more between the neighbours of the clearest."""
    near, far = _candidates(p, v, mask)
    coarse = v.segments if v.point else v.segments[::2]
    clear, who = _clearance(kern, table, p, near, far, half, coarse)
    best = int(np.argmax(clear))
    if refine and not v.point:
        extra = _between(v, coarse, best)
        more, more_who = _clearance(kern, table, p, near, far, half, extra)
        top = int(np.argmax(more))
        if more[top] > clear[best]:
            clear, who, best = more, more_who, top
    return Slack(max(0.0, float(clear[best])), who[best] or "beam")  # float, not numpy


def _clearance(
    kern: Any,
    table: Table,
    p: Pieces,
    near: np.ndarray,
    far: float,
    half: float,
    segs: np.ndarray,
) -> tuple[np.ndarray, list[str]]:
    """Each segment's clearance from the ``near`` pieces (beyond the beam), from the G4
    joints it passes through, and from the pieces left out (``far``), and what limits it.

    Only the clearest segment is read (:func:`seen_slack`). A segment meeting a polygon
    has clearance at most ``-half``, less its depth (GEOS, the costly part): the depths
    are measured only when no segment meeting nothing is clearer than every meeting one
    is at depth 0; otherwise the meeting segments keep that bound (never the clearest)."""
    ks = np.asarray(near, dtype=np.int64)
    segs = np.ascontiguousarray(segs)  # one compiled form of the kernels
    dist, meets = _apart(kern, p, ks, segs)
    joints = _joints(p, near, segs, kern)
    clear, who = _clear_of(table, p, near, far, half, dist, joints)
    met = meets.any(axis=0)
    if met.any() and (met.all() or clear[~met].max() <= clear[met].max()):
        _meet(p, ks, segs, dist, meets)
        clear, who = _clear_of(table, p, near, far, half, dist, joints)
    return clear, who


def _clear_of(
    table: Table,
    p: Pieces,
    near: np.ndarray,
    far: float,
    half: float,
    dist: np.ndarray,
    joints: Joints,
) -> tuple[np.ndarray, list[str]]:
    """:func:`_clearance` from the signed distances ``dist`` (rows: ``near`` pieces)."""
    start = np.full(dist.shape[1], far - half - p.error)
    clear, row = _first_best(dist - half - p.error, start, False)
    who = [_who(p, near, r) for r in row.tolist()]
    tol = table.contact_tolerance
    for (a, b), gap, through in zip(joints.ab.tolist(), joints.gap, joints.through, strict=True):
        open_by = gap - tol
        better = through & (open_by < clear)
        clear = np.where(better, open_by, clear)
        for j in np.flatnonzero(better).tolist():
            who[j] = f"contact {p.ids[a]}-{p.ids[b]}"
    return clear, who


def _between(v: View, segs: np.ndarray, best: int) -> np.ndarray:
    """Near segments between the neighbours of segment ``best`` (ends back on the arc)."""
    lo, hi = max(0, best - 1), min(len(segs) - 1, best + 1)
    t = np.linspace(0.0, 1.0, 11)[1:-1, None]
    a, b = segs[lo, 2:], segs[hi, 2:]
    ends = a + (b - a) * t
    # back onto the near arc: the first point of the base along each direction
    ox, oy = v.ox, v.oy
    ux, uy = ends[:, 0] - ox, ends[:, 1] - oy
    n = np.hypot(ux, uy)
    ux, uy = ux / n, uy / n
    fx, fy = v.tx - ox, v.ty - oy
    proj = ux * fx + uy * fy
    disc = np.maximum(0.0, v.r * v.r - (fx * fx + fy * fy - proj * proj))
    s = proj - np.sqrt(disc)
    return np.column_stack([np.full(len(s), ox), np.full(len(s), oy), ox + s * ux, oy + s * uy])


def seen_slacks(
    kern: Any,
    table: Table,
    p: Pieces,
    views: Sequence[View],
    masks: Sequence[np.ndarray],
    half: float,
) -> list[Slack]:
    """:func:`seen_slack` of each view and mask, bit for bit, the views batched: each
    round (every other near segment, then more between the neighbours of the clearest)
    is one kernel call for every view's distances, joints and clearances
    (:func:`arbitre.kernels_mordheim.seen_many`), GEOS only where a view alone calls it
    (joints too close to tell, the depths :func:`_clearance` measures), one call of each
    kind for all, then one kernel call for the clearances of the views GEOS changed. A
    view whose segments do not all start at its centre (never one of :func:`view`) is
    measured alone."""
    if not views:
        return []
    ks, koff, fars = _candidates_many(p, views, masks)
    jsel, joff = _joints_many(p, ks, koff)
    coarse = [np.ascontiguousarray(v.segments if v.point else v.segments[::2]) for v in views]
    centre = np.asarray([(v.ox, v.oy, v.tx, v.ty, v.r) for v in views], dtype=np.float64)
    alone = _not_one_start(centre, coarse).tolist()
    coarse = [_NO_SEGS if a else sg for a, sg in zip(alone, coarse, strict=True)]
    inside = np.vstack([_starts_inside(p, float(v.ox), float(v.oy)) for v in views])
    target = np.ascontiguousarray(centre[:, 2:])
    tol = table.contact_tolerance
    batch = _Batch(kern, tol, p, ks, koff, jsel, joff, fars, inside, target, half)
    first = batch.clearances(coarse)
    refine = np.asarray([not (v.point or a) for v, a in zip(views, alone, strict=True)])
    second = batch.clearances(_between_many(views, first, refine))
    out = []
    for t, v in enumerate(views):
        if alone[t]:
            out.append(seen_slack(kern, table, p, v, masks[t], half))
            continue
        at = int(first.soff[t] + first.best[t])
        value, who = first.clear[at], int(first.who[at])
        if refine[t]:
            top = int(second.soff[t] + second.best[t])
            if second.clear[top] > value:
                value, who = second.clear[top], int(second.who[top])
        out.append(Slack(max(0.0, float(value)), batch.name(t, who) or "beam"))  # a float
    return out


#: No segments (a view measured alone by :func:`seen_slacks`, or not refined).
_NO_SEGS = np.zeros((0, 4))
_NO_SEGS.flags.writeable = False


def _not_one_start(centre: np.ndarray, segs: Sequence[np.ndarray]) -> np.ndarray:
    """Which views (their centres ``ox, oy`` first in the rows of ``centre``) have no
    segments, or some not starting at the centre (measured alone: :func:`_apart` asks
    :func:`_starts_inside` about the one start of them all)."""
    ns = np.asarray([len(sg) for sg in segs], dtype=np.int64)
    flat = np.vstack([_NO_SEGS, *segs])
    view = np.repeat(np.arange(len(segs)), ns)
    off = (flat[:, 0] != centre[view, 0]) | (flat[:, 1] != centre[view, 1])
    out = np.asarray(ns == 0, dtype=np.bool_)
    out[view[off]] = True
    return out


def _candidates_many(
    p: Pieces, views: Sequence[View], masks: Sequence[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_candidates` of each view and mask, in one numpy form (the same operations
    element by element): the near pieces of view ``t`` are ``ks[koff[t]:koff[t + 1]]``
    (in piece order), and ``far[t]`` the box distance of the nearest left out."""
    box = np.asarray([v.bounds for v in views], dtype=np.float64).reshape(-1, 4)
    gap = box_gaps(box, p.bbox)
    gap[~np.vstack(masks).reshape(gap.shape)] = np.inf
    near = gap <= FAR
    rest = np.where(near, np.inf, gap)
    far = rest.min(axis=1) if rest.shape[1] else np.full(len(views), np.inf)
    rows, ks = np.nonzero(near)
    koff = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(views)))])
    return ks.astype(np.int64), koff.astype(np.int64), np.asarray(far, dtype=np.float64)


def box_gaps(box: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``[view, piece]``: the distance between each view's box (rows of ``box``) and each
    piece's (rows of ``b``), 0 where they meet (the lower bound :func:`_candidates_many`
    gives the pieces it leaves out; :mod:`.kept` keys the pairs by it)."""
    x0, y0, x1, y1 = (box[:, c, None] for c in range(4))
    dx = np.maximum(0.0, np.maximum(b[None, :, 0] - x1, x0 - b[None, :, 2]))
    dy = np.maximum(0.0, np.maximum(b[None, :, 1] - y1, y0 - b[None, :, 3]))
    gap: np.ndarray = np.hypot(dx, dy)
    return gap


def base_boxes(table: Table) -> np.ndarray:
    """The boxes of the bases as :class:`Pieces` bounds them (their drawn polygons), in
    table order: the rows of every :func:`pieces` after the terrain's."""
    return _bases(table).bbox


def _joints_many(p: Pieces, ks: np.ndarray, koff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The G4 joints of each view of :func:`_candidates_many` (:func:`_joints`: the
    bridges between two of its near pieces, in bridge order): view ``t``'s are the rows
    ``jsel[joff[t]:joff[t + 1]]`` of the packed joints."""
    n = len(koff) - 1
    ab = p.joint_ab
    if not len(ab):
        return np.zeros(0, dtype=np.int64), np.zeros(n + 1, dtype=np.int64)
    keep = np.zeros((n, len(p.ids)), dtype=np.bool_)
    keep[np.repeat(np.arange(n), np.diff(koff)), ks] = True
    rows, jsel = np.nonzero(keep[:, ab[:, 0]] & keep[:, ab[:, 1]])
    joff = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
    return jsel.astype(np.int64), joff.astype(np.int64)


@dataclass(frozen=True, slots=True, eq=False)
class _Round:
    """One round of :func:`seen_slacks`: view ``t``'s segments are the rows
    ``soff[t]:soff[t + 1]`` of ``segs``, with their clearances and what limits each
    (``who``, :meth:`_Batch.name`), and its clearest (``best[t]``, an index into its
    segments: ``np.argmax``)."""

    segs: np.ndarray
    soff: np.ndarray
    clear: np.ndarray
    who: np.ndarray
    best: np.ndarray


@dataclass(frozen=True, slots=True, eq=False)
class _Batch:
    """The views of :func:`seen_slacks` and what their rounds share (near pieces,
    joints, the box distance of the pieces left out, the polygons holding each start)."""

    kern: Any
    tol: float
    p: Pieces
    ks: np.ndarray
    koff: np.ndarray
    jsel: np.ndarray
    joff: np.ndarray
    far: np.ndarray
    inside: np.ndarray
    #: ``tx, ty, r`` of each view's target (its segments end on that circle).
    target: np.ndarray
    half: float

    def clearances(self, segs: Sequence[np.ndarray]) -> _Round:
        """:func:`_clearance` of each view's segments ``segs[t]`` (every one starting at
        the view's centre), its clearest found as :func:`seen_slack` finds it."""
        p, ks, koff, joff = self.p, self.ks, self.koff, self.joff
        ns = np.asarray([len(sg) for sg in segs], dtype=np.int64)
        nk, nj = np.diff(koff), np.diff(joff)
        soff = np.concatenate([[0], np.cumsum(ns)]).astype(np.int64)
        doff = np.concatenate([[0], np.cumsum(nk * ns)]).astype(np.int64)
        toff = np.concatenate([[0], np.cumsum(nj * ns)]).astype(np.int64)
        flat = np.ascontiguousarray(np.vstack([_NO_SEGS, *segs]))
        dist = np.empty(int(doff[-1]))
        meets = np.zeros(len(dist), dtype=np.bool_)
        thr = np.zeros(int(toff[-1]), dtype=np.bool_)
        sure = np.zeros(len(thr), dtype=np.bool_)
        clear = np.empty(len(flat))
        who = np.empty(len(flat), dtype=np.int64)
        n = len(segs)
        meet = np.zeros(n, dtype=np.bool_)
        best = np.zeros(n, dtype=np.int64)
        self.kern.seen_many(
            flat, soff, ks, koff, doff, p.discs, p.eoff, p.eflat, self.inside, p.bbox,
            self.target, self.jsel, joff, toff, p.joint_xy, p.joint_gap, self.far, self.half,
            p.error, self.tol, ORIENT_ERR, dist, meets, thr, sure, clear, who, meet, best,
        )  # fmt: skip
        doubt = np.flatnonzero(~sure)
        if len(doubt):  # too close to tell: GEOS's ``intersects`` (:func:`_through`)
            t = np.searchsorted(toff, doubt, side="right") - 1
            i, j = np.divmod(doubt - toff[t], ns[t])
            lines = np.empty(len(p.bridges), dtype=object)
            lines[:] = [b[3] for b in p.bridges]
            thr[doubt] = shapely.intersects(
                _lines(flat[soff[t] + j]), lines[self.jsel[joff[t] + i]]
            )
            redo = np.zeros(n, dtype=np.bool_)
            redo[t] = True
            self._clear(soff, doff, toff, dist, meets, thr, redo, clear, who, meet, best)
        if meet.any():  # the depths :func:`_clearance` measures, then its clearances again
            jobs = []
            for u in np.flatnonzero(meet).tolist():
                shape = (int(nk[u]), int(ns[u]))
                block = slice(int(doff[u]), int(doff[u + 1]))
                sg = flat[soff[u] : soff[u + 1]]
                d, m = dist[block].reshape(shape), meets[block].reshape(shape)
                jobs.append((ks[koff[u] : koff[u + 1]], sg, d, m))
            _meet_many(p, jobs)
            redo = meet.copy()
            self._clear(soff, doff, toff, dist, meets, thr, redo, clear, who, meet, best)
        return _Round(flat, soff, clear, who, best)

    def _clear(
        self,
        soff: np.ndarray,
        doff: np.ndarray,
        toff: np.ndarray,
        dist: np.ndarray,
        meets: np.ndarray,
        thr: np.ndarray,
        redo: np.ndarray,
        clear: np.ndarray,
        who: np.ndarray,
        meet: np.ndarray,
        best: np.ndarray,
    ) -> None:
        self.kern.seen_clear(
            soff, self.koff, doff, dist, meets, self.jsel, self.joff, toff, self.p.joint_gap,
            thr, self.far, self.half, self.p.error, self.tol, redo, clear, who, meet, best,
        )  # fmt: skip

    def name(self, t: int, who: int) -> str:
        """The test :func:`_clear_of` names for view ``t``'s ``who`` (-1: none; a near
        piece's row; past them, a joint's row among the view's)."""
        near = self.ks[self.koff[t] : self.koff[t + 1]]
        if who < len(near):
            return _who(self.p, near, who)
        a, b = self.p.joint_ab[self.jsel[self.joff[t] + who - len(near)]].tolist()
        return f"contact {self.p.ids[a]}-{self.p.ids[b]}"


#: The fractions of :func:`_between` (its points between two neighbours).
_BETWEEN = np.linspace(0.0, 1.0, 11)[1:-1, None]


def _between_many(views: Sequence[View], first: _Round, refine: np.ndarray) -> list[np.ndarray]:
    """:func:`_between` of each view to refine around its clearest segment of ``first``,
    in one numpy form (the same operations element by element); no segments for the
    others."""
    out = [_NO_SEGS] * len(views)
    at = np.flatnonzero(refine)
    if not len(at):
        return out
    ns, best, soff = np.diff(first.soff)[at], first.best[at], first.soff[at]
    lo = soff + np.maximum(0, best - 1)
    hi = soff + np.minimum(ns - 1, best + 1)
    a, b = first.segs[lo, None, 2:], first.segs[hi, None, 2:]
    ends = a + (b - a) * _BETWEEN[None]
    picked = [views[t] for t in at.tolist()]
    centre = np.asarray([(v.ox, v.oy, v.tx, v.ty, v.r) for v in picked], dtype=np.float64)
    ox, oy, tx, ty, r = (centre[:, c, None] for c in range(5))
    ux, uy = ends[..., 0] - ox, ends[..., 1] - oy
    n = np.hypot(ux, uy)
    ux, uy = ux / n, uy / n
    fx, fy = tx - ox, ty - oy
    proj = ux * fx + uy * fy
    disc = np.maximum(0.0, r * r - (fx * fx + fy * fy - proj * proj))
    s = proj - np.sqrt(disc)
    wide = np.broadcast_to
    segs = np.stack([wide(ox, s.shape), wide(oy, s.shape), ox + s * ux, oy + s * uy], axis=-1)
    for i, t in enumerate(at.tolist()):
        out[t] = segs[i]
    return out


def _meet_many(
    p: Pieces, jobs: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]
) -> None:
    """:func:`_meet` of each job (``ks, segs, dist, meets``), the valid pieces' meetings
    of every job in one GEOS call of each kind (each pair alone: the same depths); should
    GEOS fail on that call, each job as :func:`_meet` measures it."""
    found, lines, pieces = [], [_NO_SEGS], [np.zeros(0, dtype=np.int64)]
    for ks, segs, _, meets in jobs:
        rows = np.flatnonzero(meets.any(axis=1))
        good = rows[p.valid[ks[rows]]]
        at, cols = np.nonzero(meets[good])
        found.append((rows[~p.valid[ks[rows]]], good[at], cols))
        lines.append(segs[cols])
        pieces.append(ks[good[at]])
    every = np.concatenate(pieces)
    deep = np.zeros(len(every))
    if len(every):
        try:
            parts, which = shapely.get_parts(
                shapely.intersection(_lines(np.vstack(lines)), p.geoms[every]),
                return_index=True,
            )
        except shapely.errors.GEOSException:  # GEOS fails on one: each job alone
            for job in jobs:
                _meet(p, *job)
            return
        keep = shapely.get_type_id(parts) == 1  # the stretches (LineStrings), not touches
        parts, which = parts[keep], which[keep]
        if len(parts):
            mids = shapely.line_interpolate_point(parts, 0.5, normalized=True)
            np.maximum.at(deep, which, shapely.distance(mids, p.outlines[every[which]]))
    start = 0
    for (ks, segs, dist, meets), (invalid, at, cols) in zip(jobs, found, strict=True):
        for i in invalid.tolist():  # as its fallback measures a whole batch
            meet = np.flatnonzero(meets[i])
            dist[i, meet] = -_depth(p, int(ks[i]), _lines(segs[meet]), segs[meet])
        dist[at, cols] = -deep[start : start + len(at)]
        start += len(at)


def hidden_slack(
    kern: Any, table: Table, p: Pieces, v: View, mask: np.ndarray, half: float
) -> Slack:
    """M1, a target not seen: the least depth by which the near segments run into the
    pieces of ``mask`` grown by the beam (or cross a G4 joint), over the near arc.

    A segment's depth is its deepest piece; the least over the segments is the answer.
    The depths into polygons (GEOS, the costly part) are measured only where they may
    give it: the kernels estimate each within :data:`GUESS` (or, near a corner or an
    edge, bound it by 0 and half the smaller side of the polygon's box), and a depth
    surely below another in its segment, or in a segment surely deeper than another,
    is left unmeasured. The answer is the one measuring every depth would give."""
    near, _ = _candidates(p, v, mask)
    ks = np.asarray(near, dtype=np.int64)
    segs = np.ascontiguousarray(v.segments)
    dist, meets = _apart(kern, p, ks, segs)
    tol = table.contact_tolerance
    joints = _joints(p, near, segs, kern)
    extra = np.ascontiguousarray(np.where(joints.through, (tol - joints.gap)[:, None], -np.inf))
    wanted = np.ones(len(segs), dtype=np.bool_)
    if meets.any():
        approx = np.zeros(dist.shape)
        sure = np.zeros(dist.shape, dtype=np.bool_)
        kern.meet_depths(segs, ks, meets, p.eoff, p.eflat, approx, sure)
        box = p.bbox[ks]
        most = 0.5 * np.minimum(box[:, 2] - box[:, 0], box[:, 3] - box[:, 1])
        # a meeting's depth: within GUESS of the estimate, else between 0 and ``most``;
        # measured where its segment may be the least deep and it may be the deepest
        todo = np.zeros(dist.shape, dtype=np.bool_)
        valid = np.ascontiguousarray(p.valid[ks])
        kern.hidden_bounds(dist, meets, approx, sure, most, extra, valid, half, GUESS, wanted, todo)
        _meet(p, ks, segs, dist, todo)
    depth = np.empty(len(segs))
    row = np.empty(len(segs), dtype=np.int64)
    worst = int(kern.least_deep(dist, extra, wanted, half, depth, row))
    value = float(depth[worst]) - float(v.spacing) / 2.0 - p.error
    r = int(row[worst])
    if r >= len(ks):
        a, b = joints.ab[r - len(ks)].tolist()
        return Slack(max(0.0, value), f"contact {p.ids[a]}-{p.ids[b]}")
    return Slack(max(0.0, value), _who(p, near, r) or "beam")


def hidden_slacks(
    kern: Any,
    table: Table,
    p: Pieces,
    views: Sequence[View],
    masks: Sequence[np.ndarray],
    half: float,
    caps: Sequence[float] | None = None,
) -> list[Slack]:
    """:func:`hidden_slack` of each view and mask, in one kernel call for all of them
    (:func:`arbitre.kernels_mordheim.hidden_many`) and one for their answers, the GEOS
    depths each view would measure measured in one call for all (:func:`_meet_many`).

    ``caps``: a view whose margin is surely above its cap (the kernels' lower bound on
    its depths is, :data:`GUESS` allowed for) gets that lower bound, named ``beam``,
    without its GEOS depths: a caller passes as cap a slack the margin could not beat
    (:func:`arbitre.rules.mordheim.sight.measure`). Without caps, every answer is
    :func:`hidden_slack`'s."""
    if not views:
        return []
    tol = table.contact_tolerance
    near_ks, near_off, _ = _candidates_many(p, views, masks)
    nears = [near_ks[near_off[t] : near_off[t + 1]] for t in range(len(views))]
    segs = [np.ascontiguousarray(v.segments) for v in views]
    joints = [_joints(p, near, sg, kern) for near, sg in zip(nears, segs, strict=True)]
    extras = [np.where(j.through, (tol - j.gap)[:, None], -np.inf) for j in joints]
    ns = np.asarray([len(sg) for sg in segs], dtype=np.int64)
    nk = np.asarray([len(near) for near in nears], dtype=np.int64)
    soff = np.concatenate([[0], np.cumsum(ns)]).astype(np.int64)
    koff = np.concatenate([[0], np.cumsum(nk)]).astype(np.int64)
    doff = np.concatenate([[0], np.cumsum(nk * ns)]).astype(np.int64)
    xoff = np.concatenate([[0], np.cumsum([x.size for x in extras])]).astype(np.int64)
    flat_segs = np.ascontiguousarray(np.vstack(segs))
    flat_ks = np.concatenate([np.asarray(n, dtype=np.int64) for n in nears])
    flat_extra = np.concatenate([x.reshape(-1) for x in extras]).astype(np.float64)
    inside = np.vstack([_starts_inside(p, float(sg[0, 0]), float(sg[0, 1])) for sg in segs])
    target = np.asarray([(v.tx, v.ty, v.r) for v in views], dtype=np.float64).reshape(-1, 3)
    dist = np.empty(int(doff[-1]))
    meets = np.zeros(len(dist), dtype=np.bool_)
    todo = np.zeros(len(dist), dtype=np.bool_)
    wanted = np.ones(len(flat_segs), dtype=np.bool_)
    low = np.empty(len(views))
    kern.hidden_many(
        flat_segs, soff, flat_ks, koff, doff, flat_extra, xoff, p.discs, p.eoff, p.eflat,
        inside, p.bbox, target, p.valid, half, GUESS, dist, meets, wanted, todo, low,
    )  # fmt: skip
    bound: dict[int, Slack] = {}
    jobs = []
    for t, v in enumerate(views):
        if caps is not None and np.isfinite(low[t]):
            least = float(low[t]) - float(v.spacing) / 2.0 - p.error
            if max(0.0, least) > caps[t]:  # the margin is at least this: above its cap
                bound[t] = Slack(max(0.0, least), "beam")
                continue
        block = slice(int(doff[t]), int(doff[t + 1]))
        if todo[block].any():
            shape = (int(nk[t]), int(ns[t]))
            d = dist[block].reshape(shape)  # a view: the depths go into ``dist``
            jobs.append((flat_ks[koff[t] : koff[t + 1]], segs[t], d, todo[block].reshape(shape)))
    _meet_many(p, jobs)  # each view's depths as _meet measures them, in one GEOS call
    depth = np.empty(len(flat_segs))
    row = np.empty(len(flat_segs), dtype=np.int64)
    worst = np.zeros(len(views), dtype=np.int64)
    kern.least_deep_many(dist, doff, flat_extra, xoff, wanted, soff, koff, half, depth, row, worst)
    out = []
    for t, v in enumerate(views):
        if t in bound:
            out.append(bound[t])
            continue
        j = int(soff[t] + worst[t])
        value = float(depth[j]) - float(v.spacing) / 2.0 - p.error
        r = int(row[j])
        if r >= nk[t]:
            a, b = joints[t].ab[r - int(nk[t])].tolist()
            out.append(Slack(max(0.0, value), f"contact {p.ids[a]}-{p.ids[b]}"))
        else:
            out.append(Slack(max(0.0, value), _who(p, nears[t], r) or "beam"))
    return out


def hiding_slack(kern: Any, p: Pieces, v: View, hiders: Sequence[int], half: float) -> Slack:
    """M8, part of the target hidden: the deepest point of ``R`` hidden by one of the
    ``hiders`` (its depth in ``R`` and in the piece grown by the beam, the smaller),
    among points along the near segments where they cross the piece's box."""
    if v.point:
        best = Slack(0.0, "beam")
        signed = _signed(kern, p, np.asarray(hiders, dtype=np.int64), v.segments)[:, 0]
        for k, phi in zip(hiders, signed.tolist(), strict=True):
            h = half - phi - p.error
            if h > best.mm:
                best = Slack(h, f"beam {p.ids[k]}")
        return best
    every = np.asarray(hiders, dtype=np.int64)
    ks = every[np.isfinite(p.bbox[every, 0])]  # an empty shape's box is infinite
    segs = np.ascontiguousarray(v.segments[::3])
    size = (len(ks), len(segs) * ALONG)
    depth, phi, x, y = (np.zeros(size) for _ in range(4))
    valid = np.zeros((len(ks), len(segs)), dtype=np.bool_)
    kern.hiding_points(
        segs, ks, p.bbox, half, _STEPS, v.sides(), p.discs, p.eoff, p.eflat, valid, depth, phi, x, y
    )
    points = np.repeat(valid, ALONG, axis=1)
    polys = np.flatnonzero(p.discs[ks, 2] < 0.0)  # polygons: negative inside
    rows, cols = np.nonzero(points[polys])
    if len(rows):
        at = polys[rows]  # every point with its polygon, in one GEOS call
        inside = shapely.contains_xy(p.geoms[ks[at]], x[at, cols], y[at, cols])
        at, cols = at[inside], cols[inside]
        phi[at, cols] = -phi[at, cols]
    deep = np.where(points, np.minimum(depth, half - phi) - p.error, -np.inf)
    best = Slack(0.0, "beam")
    for k, top in zip(ks.tolist(), deep.max(axis=1, initial=-np.inf).tolist(), strict=True):
        if top > best.mm:
            best = Slack(top, f"beam {p.ids[k]}")
    return best


#: The points tried along a stretch of a near segment in a piece's box (M8).
_STEPS = np.linspace(0.0, 1.0, ALONG)


def clear_slack(p: Pieces, v: View, mask: np.ndarray, half: float) -> Slack:
    """M8, nothing hides: how far the nearest piece of ``mask`` is from coming within the
    beam of ``R``."""
    near, far = _candidates(p, v, mask)
    best = Slack(max(0.0, far - half - p.error), "beam")
    if len(near):
        centres = shapely.points(p.discs[near, :2])
        round_ = p.discs[near, 2] >= 0.0
        region = v.region
        gaps = np.where(
            round_,
            shapely.distance(region, centres) - p.discs[near, 2],
            shapely.distance(region, [p.shapes[int(k)] for k in near]),
        )
        k = int(np.argmin(gaps))
        slack = max(0.0, float(gaps[k]) - half - p.error)
        if slack < best.mm:
            best = Slack(slack, f"beam {p.ids[int(near[k])]}")
    return best


def clear_slacks(
    p: Pieces, views: Sequence[View], masks: Sequence[np.ndarray], half: float
) -> list[Slack]:
    """:func:`clear_slack` of each view and mask, bit for bit, with one GEOS distance
    call for every view's near pieces (each pair measured as the view alone measures it:
    a disc from its centre, a polygon from its shape)."""
    if not views:
        return []
    ks, koff, fars = _candidates_many(p, views, masks)
    t = np.repeat(np.arange(len(views)), np.diff(koff))
    round_ = p.discs[ks, 2] >= 0.0
    regions = np.empty(len(views), dtype=np.object_)  # drawn where a piece is near
    for i in np.flatnonzero(np.diff(koff) > 0).tolist():
        regions[i] = views[i].region
    gaps = np.empty(len(ks))
    if round_.any():
        centres = shapely.points(p.discs[ks[round_], :2])
        gaps[round_] = shapely.distance(regions[t[round_]], centres) - p.discs[ks[round_], 2]
    if (~round_).any():
        gaps[~round_] = shapely.distance(regions[t[~round_]], p.geoms[ks[~round_]])
    out = []
    for i in range(len(views)):
        best = Slack(max(0.0, float(fars[i]) - half - p.error), "beam")
        lo, hi = int(koff[i]), int(koff[i + 1])
        if hi > lo:
            k = lo + int(np.argmin(gaps[lo:hi]))
            slack = max(0.0, float(gaps[k]) - half - p.error)
            if slack < best.mm:
                best = Slack(slack, f"beam {p.ids[int(ks[k])]}")
        out.append(best)
    return out


@lru_cache(maxsize=1024)
def window_part(fp: WallFootprint, window: Window) -> BaseGeometry:
    """The part of the wall's footprint a window opens (``window_slice``), drawn once per
    wall and window (walls do not move when models do)."""
    return fp.window_slice(window)


@lru_cache(maxsize=1024)
def window_slack(table: Table, shooter: str, walls: tuple[str, ...]) -> Slack:
    """M12: how far the shooter's base is from touching, or from leaving, each window of
    ``walls`` (G4 contact with the window's part of the wall: its own windows open)."""
    m = table.model(shooter)
    centre = shapely.Point(m.at.x, m.at.y)
    best = Slack(math.inf, "")
    tol = table.contact_tolerance
    for piece in table.terrain:
        fp = piece.footprint
        if piece.id not in walls or not isinstance(fp, WallFootprint):
            continue
        for window in fp.windows:
            gap = float(shapely.distance(centre, window_part(fp, window))) - m.base.radius
            slack = abs(gap - tol)
            if slack < best.mm:
                best = Slack(slack, f"contact {shooter}-{piece.id}")
    return best


def kernels(p: Pieces, near: np.ndarray) -> Any:
    """The build of :mod:`arbitre.kernels_mordheim` for the margins of pairs whose
    ``near[pair, piece]`` pieces may come near their lines (:func:`arbitre.backend.kernels`:
    each near segment against each such piece, a disc one test, a polygon one per edge)."""
    sizes = np.where(p.discs[:, 2] >= 0.0, 1, np.maximum(np.diff(p.eoff), 1))
    work = DIRECTIONS * int((near @ sizes).sum()) if near.size else 0
    return backend.kernels(work, KERNELS)


#: The kernels module of the margins.
KERNELS = "arbitre.kernels_mordheim"


def index_pieces(table: Table, windows: str) -> Pieces:
    """The :class:`Pieces` matching the M rules' sight index (M12: every window open, or
    every wall whole)."""
    walls = sight.walls_with_windows(table) if windows == "open" else frozenset()
    return pieces(table, solid=walls)
