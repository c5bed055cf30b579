"""Exact regions of one shooter's sight over every place a model could stand.

For a shooter and a subject (the model the map is for, :class:`~arbitre.maps.pieces.Subject`),
the table is split into *classes*: the points where a model centred there would be seen
with a given cover, the rest being unseen.

- Frostgrave (:func:`frostgrave`): seen when the centre line (F1) crosses no large piece
  and no other base (F2): the table less the shadows of the blocking pieces grown by
  ``beam/2``. Cover: +1 for each small piece whose shadow holds the point (F3), +3 where
  the base also touches it (F4, G4: within the base's radius and the contact tolerance).
  A shooter at a window sees through that window's slice of the wall and gives its
  targets beyond +1 for it (F5). Where the model would touch a window and the line comes
  in through the window's side of the wall, it is seen with +3 when the shooter sees some
  point of the opening, whatever else lies on the line (F6), small pieces still adding.
- Mordheim (:func:`mordheim`): the points from which the shooter's clear lines reach
  (blocking terrain and other bases hiding, M1) grown by the base: some of the base is
  seen (S2 > 0); in cover where the shadows of every piece (M8), grown by the base,
  hold the point (some of the base hidden).

  Where the base would overlap a hiding piece (``per_point``, which also holds a band
  of :data:`NEAR_MARGIN` around those places and the places overlapping the shooter's
  own base, ruled the same way point by point), S2 looks only at the near side of the
  base: the base is in cover when the piece meets the cone from the
  shooter's centre to that near side. The edge of that region is not made of lines and
  arcs: besides lines at the base's radius from a line through the shooter and a
  corner, and arcs of the base's radius, it is traced by the cone's corner (the point
  where a line from the shooter grazes the base) sliding along a side of the piece,
  ``p = q + r n(q)`` for ``q`` on the side and ``n(q)`` the unit normal to ``q - c`` (a
  curve neither straight nor circular). So those points are ruled cell by cell at the
  cells' centres, and ``cover_at`` rules any other point there, both by the engine's
  own S2 share (:func:`engine_exposed`: the sight kernel ``los`` runs, rounded as its
  ruling rounds it), not a second reading of it: where its answer is sure without
  running it (a piece deep across a stretch of the rays to the base's near side, or
  every piece well clear of them: :func:`arbitre.kernels_maps.cover_decided`), that
  answer. The cells stay a grid beside the exact classes (:class:`Cells`): their
  stepped shapes are drawn only for the map's faces.

  M12 (windows open, the default): a target seen only through windows is in cover
  however much of its base shows. Those centres are exact: the region seen with every
  window open less the region seen with every wall shut but at the windows the shooter
  touches (its own, G4), which stay open as ``los`` leaves them. With ``windows:
  closed`` the windows are part of their walls and block.

Frostgrave's classes are put together at once (:func:`_arranged`): the boundaries of the
region seen, the windows' bands, the small pieces' shadows and touch regions noded into
one linework and polygonized, each face labelled by the shapes holding a point well
inside it, the faces of a cover merged edge to edge; the same shapes up to rounding as
the region seen split shade by shade (:func:`frostgrave_split`, kept as the tests'
reference).

Each shooter's shadows of every piece are found once (:class:`_Shades`, several sets of
parts in one pass: :func:`~arbitre.maps.shadows.shadows_of_sets`) and selected by
piece for each question; a union leaves out the shadows another holds
(:func:`~arbitre.maps.shadows.held`) and clips the others near the table first. What is
the same for every shooter (the pieces opened at their windows, where a base would
overlap a piece, the windows' sides) is found once a table. The map traces Mordheim's
shooters on two threads (:func:`each_shooter`: GEOS and the compiled kernels let go of
the interpreter's lock), each shooter's regions the same bit for bit.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
import shapely.errors
from shapely.geometry.base import BaseGeometry

from arbitre import backend, sight
from arbitre.geometry import CircleFootprint, WallFootprint
from arbitre.maps import scan
from arbitre.maps.pieces import (
    Pieces,
    Subject,
    box,
    box_shape,
    pieces,
    quad_segs,
    touch_region,
    window_slices,
)
from arbitre.maps.shadows import (
    ARC_TOLERANCE,
    NO_CONES,
    Cones,
    Parts,
    held,
    join,
    polygon_parts,
    seen_region,
    shadows_and_cones,
    shadows_of_sets,
)
from arbitre.rules.frostgrave_windows import beside_window
from arbitre.rules.mordheim import sight as mordheim_sight
from arbitre.table import Table

EMPTY = shapely.Polygon()
#: How far (mm) beyond the rectangle they matter in the shadows are clipped.
CLIP_MARGIN = 1.0
#: Less area than this (mm²) the walls shut take from the clear region is rounding (M12).
SLIVER = 1e-9


def _robust(op: Callable[..., Any], a: Any, b: Any) -> Any:
    """A shapely overlay, retried on a 1e-9 mm grid when GEOS fails on nearly touching
    edges (the result moves by at most that)."""
    try:
        return op(a, b)
    except shapely.errors.GEOSException:
        return op(shapely.make_valid(a), shapely.make_valid(b), grid_size=1e-9)


def union_all(shapes: Any) -> Any:
    """:func:`shapely.union_all`, retried on shapes made valid and a 1e-9 mm grid when
    GEOS fails (a side location conflict between nearly touching edges)."""
    try:
        return shapely.union_all(shapes)
    except shapely.errors.GEOSException:
        fixed = shapely.make_valid(np.asarray(shapes, dtype=object))
        return shapely.union_all(fixed, grid_size=1e-9)


def intersection(a: Any, b: Any) -> Any:
    return _robust(shapely.intersection, a, b)


def difference(a: Any, b: Any) -> Any:
    return _robust(shapely.difference, a, b)


@dataclass(frozen=True, eq=False)
class Cells:
    """M8 ruled cell by cell (:func:`mordheim`): the cells ``[i p, (i+1) p] x [j p, (j+1)
    p]`` of ``pitch`` mm whose centre lies in ``within`` (a shooter's ``per_point``), each
    with its cover ruled at that centre (``value``: 1 cover, 0 none). A grid, not shapes:
    the regions and the raster read it as it is; its stepped shapes (:attr:`classes`) are
    drawn only when asked (the map's faces)."""

    pitch: float
    i: np.ndarray
    j: np.ndarray
    value: np.ndarray
    within: BaseGeometry

    @functools.cached_property
    def classes(self) -> tuple[tuple[int, BaseGeometry], ...]:
        """The cells of each value as one shape cut to ``within``: ``(cover, shape)``."""
        p = self.pitch
        # corners as integers times the pitch: neighbours share their edges bit for bit,
        # so the cells of a value are a coverage, merged without an overlay
        boxes = shapely.box(self.i * p, self.j * p, (self.i + 1) * p, (self.j + 1) * p)
        out = []
        for value in (0, 1):
            chosen = boxes[self.value == value]
            if len(chosen):
                shape = intersection(shapely.coverage_union_all(chosen), self.within)
                if shape.area > 0:
                    out.append((value, shape))
        return tuple(out)


@dataclass(frozen=True, slots=True)
class ShooterRegions:
    """One shooter's classes: ``(cover, region)`` pairs, disjoint exact shapes (a cover
    may have more than one), whose union with the cells ruled one by one (``cells``,
    within ``per_point``) is where it sees the subject (``seen``)."""

    shooter: str
    classes: tuple[tuple[int, BaseGeometry], ...]
    seen: BaseGeometry
    per_point: BaseGeometry = EMPTY
    #: Within ``per_point``: the cover at points ``(xs, ys)``, ruled at each (M8).
    cover_at: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    #: The size (mm) of the cells of ``per_point``, each ruled at its centre ``((i +
    #: 1/2) pitch, (j + 1/2) pitch)``.
    pitch: float | None = None
    #: The cells of ``per_point``, ruled at their centres (None: no such part).
    cells: Cells | None = None

    @property
    def labelled(self) -> tuple[tuple[int, BaseGeometry], ...]:
        """The exact classes and the cells' stepped shapes, ``(cover, shape)``: every
        place the shooter sees the subject, as shapes."""
        return self.classes if self.cells is None else (*self.classes, *self.cells.classes)


def _blocked(
    origin: tuple[float, float], parts: Parts, where: tuple[float, float, float, float]
) -> BaseGeometry:
    """The union of the shadows of ``parts`` from ``origin`` within ``where`` (the whole of
    it when the origin stands in one)."""
    return _blocked_all(origin, parts, where)[0]


def _blocked_all(
    origin: tuple[float, float], parts: Parts, where: tuple[float, float, float, float]
) -> tuple[BaseGeometry, bool]:
    """:func:`_blocked`, and whether it is the whole of ``where`` (the origin in a part)."""
    if parts.count == 0:
        return EMPTY, False
    polys, inside, cones = shadows_and_cones(origin, parts, where)
    return _union_within(origin, polys, inside, cones, where), bool(inside.any())


def _union_within(
    origin: tuple[float, float],
    polys: np.ndarray,
    inside: np.ndarray,
    cones: Cones,
    where: tuple[float, float, float, float],
) -> BaseGeometry:
    """The union of convex shadows from ``origin`` over the rectangle ``where`` (all of
    it when the origin stands in one): the shadows another holds left out
    (:func:`~arbitre.maps.shadows.held`), each clipped first, which keeps the overlay
    small, to a rectangle :data:`CLIP_MARGIN` wider, so that no cut of the clip lies on
    the edge of ``where`` (vertices computed twice there, a hair apart, can make GEOS
    overlays wrong)."""
    if inside.any():
        return shapely.box(*where)
    if not len(polys):
        return EMPTY
    if len(polys) > 2:
        polys = polys[~held(origin, polys, cones)]
    x0, y0, x1, y1 = where
    c = CLIP_MARGIN
    cut = shapely.clip_by_rect(polys, x0 - c, y0 - c, x1 + c, y1 + c)
    return cut[0] if len(cut) == 1 else union_all(cut)  # one convex shadow: no overlay


def _far_box(
    parts: Parts, where: tuple[float, float, float, float]
) -> tuple[float, float, float, float]:
    """A box holding ``where`` and every part (the shadows are cut beyond it)."""
    g = parts.gens
    return (
        min(where[0], float(np.min(g[:, 0] - g[:, 2]))),
        min(where[1], float(np.min(g[:, 1] - g[:, 2]))),
        max(where[2], float(np.max(g[:, 0] + g[:, 2]))),
        max(where[3], float(np.max(g[:, 1] + g[:, 2]))),
    )


@dataclass(frozen=True, slots=True, eq=False)
class _Shades:
    """Shadows from one origin, one a convex part: the piece owning each, the polygon
    (cut beyond a box holding the table and every piece) and whether the origin is in it.
    Computed once for a shooter, selected by piece for each question."""

    owner: np.ndarray
    polys: np.ndarray
    inside: np.ndarray
    origin: tuple[float, float]
    cones: Cones
    #: The points of the near arcs, and the shadow each belongs to (sorted): the parts as
    #: drawn, for :meth:`seen`; the shadows numbered as they were when found, ``live``
    #: saying which of those these are, in order (None: all; chosen only when asked).
    arc: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 2)))
    arc_of: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, np.int64))
    live: np.ndarray | None = None

    @staticmethod
    def of(
        origin: tuple[float, float], parts: Parts, where: tuple[float, float, float, float]
    ) -> _Shades:
        """The shadows of ``parts``, long enough to cross ``where`` and the parts."""
        return _Shades.of_many(origin, [parts], where)[0]

    @staticmethod
    def of_many(
        origin: tuple[float, float], sets: Sequence[Parts], where: tuple[float, float, float, float]
    ) -> list[_Shades]:
        """:meth:`of` for each set of parts, found in one pass
        (:func:`~arbitre.maps.shadows.shadows_of_sets`, the same bit for bit)."""
        live = [parts for parts in sets if parts.count]
        found = iter(shadows_of_sets(origin, [(parts, _far_box(parts, where)) for parts in live]))
        out = []
        for parts in sets:
            if parts.count == 0:
                empty = np.empty(0, dtype=object)
                none = np.zeros(0, bool)
                out.append(_Shades(np.zeros(0, np.int64), empty, none, origin, NO_CONES))
                continue
            polys, inside, cones, (arc, arc_of) = next(found)
            out.append(_Shades(parts.owner, polys, inside, origin, cones, arc, arc_of))
        return out

    def select(self, pieces: np.ndarray) -> _Shades:
        """The shadows of the pieces flagged in ``pieces`` (a mask by piece index)."""
        return self.take(pieces[self.owner] if len(self.owner) else np.zeros(0, bool))

    def take(self, keep: np.ndarray) -> _Shades:
        """The shadows flagged in ``keep`` (a mask over them)."""
        live = np.arange(len(self.polys)) if self.live is None else self.live
        return _Shades(
            self.owner[keep],
            self.polys[keep],
            self.inside[keep],
            self.origin,
            self.cones.select(keep),
            self.arc,
            self.arc_of,
            live[keep],
        )

    def arcs(self) -> tuple[np.ndarray, np.ndarray]:
        """The points of the near arcs of these shadows, and which of them (in order)
        each belongs to."""
        if self.live is None:
            return self.arc, self.arc_of
        at = np.full(int(self.arc_of[-1]) + 1 if len(self.arc_of) else 0, -1, np.int64)
        at[self.live] = np.arange(len(self.live))  # ascending: a mask's choice, in order
        mine = at[self.arc_of] >= 0
        return self.arc[mine], at[self.arc_of[mine]]

    def plus(self, other: _Shades) -> _Shades:
        arc, arc_of = self.arcs()
        more, more_of = other.arcs()
        return _Shades(
            np.concatenate([self.owner, other.owner]),
            np.concatenate([self.polys, other.polys]),
            np.concatenate([self.inside, other.inside]),
            self.origin,
            Cones.join([self.cones, other.cones]),
            np.concatenate([arc, more]),
            np.concatenate([arc_of, more_of + len(self.polys)]),
        )

    def union(self, where: tuple[float, float, float, float]) -> BaseGeometry:
        return _union_within(self.origin, self.polys, self.inside, self.cones, where)

    def shadow(self, where: tuple[float, float, float, float]) -> BaseGeometry:
        """:meth:`union`; of more than two shadows, the rectangle :data:`CLIP_MARGIN`
        wider than ``where`` less what the origin sees there (:meth:`seen`, one overlay
        instead of a union), the same up to rounding."""
        if len(self.polys) > 2 and not self.inside.any():
            c = CLIP_MARGIN
            wider = (where[0] - c, where[1] - c, where[2] + c, where[3] + c)
            found = seen_region(self.origin, *self.arcs(), wider)
            if found is not None:
                return difference(shapely.box(*wider), found)
        return self.union(where)

    def seen(self, where: tuple[float, float, float, float]) -> BaseGeometry:
        """The rectangle ``where`` less the shadows' union: the nearest part along every
        ray (:func:`~arbitre.maps.shadows.seen_region`, the same up to rounding), or the
        union taken away when that cannot say."""
        found = None
        if not self.inside.any() and len(self.polys):
            found = seen_region(self.origin, *self.arcs(), where)
        return difference(shapely.box(*where), self.union(where)) if found is None else found


def _mask(pc: Pieces, subject: Subject, shooter: int, base: np.ndarray) -> np.ndarray:
    """``base`` (a mask over the pieces) less the bases of the shooter and the subject."""
    mask = base.copy()
    mask[pc.n_terrain + shooter] = False
    mask[pc.n_terrain + subject.index] = False
    return mask


def _window_walls(subject: Subject, shooter: str) -> list[tuple[int, int]]:
    """F5: the (wall, window) pairs the shooter's base touches (G4)."""
    table = subject.table
    m = table.model(shooter)
    centre = shapely.Point(m.at.x, m.at.y)
    found = []
    for k, w, piece in window_slices(table):
        gap = shapely.distance(centre, piece) - m.base.radius
        if bool(sight.in_contact(gap, table.contact_tolerance)):
            found.append((k, w))
    return found


@dataclass(frozen=True, slots=True)
class _Frost:
    """One shooter's Frostgrave pieces, before they are put together into classes: the
    region seen (F1, F2), the small pieces' shadows (F3), the shadows of the window
    slices the shooter sees out through (F5) and the windows' bands (F6): ``(region,
    (wall, window), whether the shooter sees the opening)``, disjoint, each cut from
    the others (a region whose opening is not seen is not seen at all)."""

    seen: BaseGeometry
    small: list[tuple[int, BaseGeometry]]
    out_through: list[tuple[tuple[int, int], BaseGeometry]]
    bands: list[tuple[BaseGeometry, tuple[int, int], bool]]


#: How many shooters' regions are traced at once, at most: GEOS's overlays and buffers
#: and the compiled kernels let go of the interpreter's lock, so the others run on the
#: machine's other cores (two at most: a page serves several players).
WORKERS = max(1, min(2, os.cpu_count() or 1))
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def each_shooter(
    trace: Callable[[str], ShooterRegions],
    shooters: Sequence[str],
    prepare: Callable[[], object] | None = None,
) -> list[ShooterRegions]:
    """``trace`` of each shooter, in order, on :data:`WORKERS` threads: this one traces
    the first (it finds what every shooter shares, kept a table: the pieces opened,
    where a base would overlap one) while the other runs ``prepare`` (some of that
    shared work, found ahead); then each takes the next shooter not taken yet, until
    none is left. Each shooter's regions are its own, whichever thread traced them; the
    first error, on either thread, comes up as it is."""
    global _pool
    if not shooters:
        return []
    if WORKERS < 2 or len(shooters) < 3:
        return [trace(a) for a in shooters]
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(WORKERS - 1, thread_name_prefix="arbitre-maps")
        pool = _pool
    found: list[ShooterRegions | None] = [None] * len(shooters)
    turns = iter(range(1, len(shooters)))
    lock = threading.Lock()
    failed = threading.Event()

    def traced(k: int) -> None:
        try:
            found[k] = trace(shooters[k])
        except BaseException:
            failed.set()
            raise

    def work() -> None:  # the next shooter not taken yet, until none is left
        while not failed.is_set():
            with lock:
                k = next(turns, None)
            if k is None:
                return
            traced(k)

    def helping() -> None:
        if prepare is not None:
            try:
                prepare()
            except BaseException:
                failed.set()
                raise
        work()

    helper = pool.submit(helping)
    try:
        traced(0)
        work()
    except BaseException:
        helper.exception()  # stopped before this one's error goes up
        raise
    helper.result()  # the helper's error, if it failed
    done = [f for f in found if f is not None]
    assert len(done) == len(shooters)
    return done


def frostgrave(subject: Subject, shooter: str) -> ShooterRegions:
    """F1-F6 for ``shooter`` against the subject standing anywhere on the table: the
    pieces (:func:`_frost_pieces`) put together at once (:func:`_arranged`)."""
    classes, seen = _arranged(subject, _frost_pieces(subject, shooter))
    return ShooterRegions(shooter, classes, seen)


def frostgrave_split(subject: Subject, shooter: str) -> ShooterRegions:
    """:func:`frostgrave` the old way (the reference of the tests): the region seen
    split by each small piece's shadow in turn, each band's own split the same way,
    equal covers merged by unions."""
    parts = _frost_pieces(subject, shooter)
    classes, seen = _split_classes(subject, parts)
    return _regions(shooter, classes, seen)


def _frost_pieces(subject: Subject, shooter: str) -> _Frost:
    """The pieces of :class:`_Frost` for ``shooter``."""
    table = subject.table
    half = table.beam / 2.0
    pc = pieces(table, half)
    at = table.model(shooter).at
    origin = (at.x, at.y)
    where = box(table)
    sides = _window_sides(table, subject.radius)
    # every piece's shadow, once; every window's side and every wall opened at one
    # window (F6), at once
    every = [_every_side(table, subject.radius), _every_opening(table)] if sides else []
    view, *more = _Shades.of_many(origin, [pc.parts, *every], where)
    mask = _mask(pc, subject, table.model_index(shooter), pc.blocks)
    windows = _window_walls(subject, shooter)
    opened = sorted({k for k, _ in windows})
    mask[opened] = False
    shades = view.select(mask)
    out_through: list[tuple[tuple[int, int], BaseGeometry]] = []
    for k in opened:
        fp = table.terrain[k].footprint
        assert isinstance(fp, WallFootprint)
        ws = [w for kk, w in windows if kk == k]
        opening = _opened_parts(table, k, tuple(ws))
        shades = shades.plus(_Shades.of(origin, opening, where))
        for w in ws:  # F5: +1 for the wall to the lines going out through its window
            out_through.append(((k, w), _blocked(origin, _slice_parts(table, k, w), where)))
    seen = shades.seen(where)
    small = _small_shades(subject, view)
    # F6: where the subject would stand at a window and the line comes in beside it
    taken: BaseGeometry = EMPTY
    bands: list[tuple[BaseGeometry, tuple[int, int], bool]] = []
    if sides:
        beside, through = more
    for n, (k, w, band, _) in enumerate(sides):
        if band.is_empty:
            continue
        # the side's shadow cut near the band, the points that matter
        shade = beside.take(beside.owner == n).union(band.bounds)
        region = difference(intersection(band, shade), taken)
        if region.is_empty:
            continue
        taken = shapely.union(taken, region)
        own = tuple(sorted({w, *(ww for kk, ww in windows if kk == k)}))
        wall = (
            through.take(through.owner == n)
            if own == (w,)
            else _Shades.of(origin, _opened_parts(table, k, own), where)
        )
        bands.append((region, (k, w), _sees_opening(subject, shades, wall, k, w)))
    return _Frost(seen, small, out_through, bands)


def _split_classes(
    subject: Subject, parts: _Frost
) -> tuple[list[tuple[BaseGeometry, int]], BaseGeometry]:
    """The classes of :func:`frostgrave_split` (unmerged) and the region seen."""
    seen, small, out_through = parts.seen, parts.small, parts.out_through
    classes = _small_cover(subject, small, [(seen, 0)])
    for _, shade in out_through:
        classes = _split(classes, shade, None)
    taken: BaseGeometry = EMPTY
    alt: list[tuple[BaseGeometry, int]] = []
    for region, key, sees in parts.bands:
        taken = shapely.union(taken, region)
        if not sees:
            continue
        inner = _small_cover(subject, small, [(region, 3)])
        for other, shade in out_through:
            if other != key:
                inner = _split(inner, shade, None)
        alt.extend(inner)
    if not taken.is_empty:  # the classes outside the bands, and the bands' own
        classes = [
            (difference(g, taken) if shapely.intersects(g, taken) else g, v) for g, v in classes
        ]
        seen = union_all([difference(seen, taken), *(g for g, _ in alt if not g.is_empty)])
        classes += alt
    return [(g, v) for g, v in classes if not g.is_empty], seen


def _arranged(
    subject: Subject, parts: _Frost
) -> tuple[tuple[tuple[int, BaseGeometry], ...], BaseGeometry]:
    """The classes of :func:`frostgrave_split` (merged, by cover) and the region seen,
    found at once: the boundaries of the region seen, the bands, the shadows and touch
    regions that meet them noded into one linework and polygonized, each face labelled
    by the shapes holding a point inside it (a band: +3 if its opening is seen, else
    unseen; else in the region seen: 0; then +1 in a small piece's shadow, +3 instead
    where the base touches the piece, +1 in a window slice's shadow but the band's
    own), the faces of a cover merged (a coverage union). The same shapes up to
    rounding (the floating noding's, as the overlays')."""
    table = subject.table
    seen = parts.seen
    # a band whose opening is not seen matters only where it takes from the region seen
    bands = [b for b in parts.bands if b[2] or shapely.intersects(b[0], seen)]
    if not bands and not parts.small and not parts.out_through:
        return ((0, seen),) if seen.area > 0 else (), seen
    # the shapes whose boundaries cut the faces: the region seen and the bands first
    shapes: list[BaseGeometry] = [seen, *(g for g, _, _ in bands)]
    lit = [seen, *(g for g, _, sees in bands if sees)]  # where a label is kept
    add: list[tuple[int, int, int]] = []  # (shape, value, the shape also needed or -1)
    if parts.small:
        shades = np.array([g for _, g in parts.small], dtype=object)
        meets = np.zeros(len(shades), dtype=bool)
        for g in lit:
            if not g.is_empty:
                meets |= shapely.intersects(shades, g)  # prepared shades
        for (k, shade), hit in zip(parts.small, meets, strict=True):
            if not hit:
                continue
            shapes.append(shade)
            add.append((len(shapes) - 1, 1, -1))
            touch = touch_region(table, k, subject.radius)
            if shapely.intersects(shade, touch):
                shapes.append(touch)
                add.append((len(shapes) - 1, 2, len(shapes) - 2))
    through: list[tuple[int, tuple[int, int]]] = []
    for key, shade in parts.out_through:
        if not shade.is_empty:
            shapes.append(shade)
            through.append((len(shapes) - 1, key))
    if len(shapes) == 1:
        return ((0, seen),) if seen.area > 0 else (), seen
    noded = union_all(shapely.boundary(np.array(shapes, dtype=object)))
    faces = shapely.get_parts(shapely.polygonize([noded]))
    faces = faces[shapely.area(faces) > 0]
    rx, ry = _inner_points(faces)
    held = [shapely.contains_xy(g, rx, ry) for g in shapes]
    value = np.zeros(len(faces), dtype=np.int64)
    for at, plus, need in add:
        value += plus * (held[at] & held[need] if need >= 0 else held[at])
    keep = held[0].copy()
    band = np.full(len(faces), -1, dtype=np.int64)
    for n, (_, _, sees) in enumerate(bands):
        inside = held[1 + n]
        band[inside] = n
        keep[inside] = sees
        value[inside & sees] += 3
    for at, key in through:
        value += held[at] & ~np.isin(band, [n for n, b in enumerate(bands) if b[1] == key])
    classes = []
    for v in np.unique(value[keep]).tolist():
        chosen = faces[keep & (value == v)]
        classes.append((int(v), chosen[0] if len(chosen) == 1 else coverage_union(chosen)))
    if bands:
        kept = faces[keep]
        seen = coverage_union(kept) if len(kept) else EMPTY
    return tuple((v, g) for v, g in classes if g.area > 0), seen


#: How far (mm) a face's point must lie from the face's edges to label it: the shapes
#: asked may be off the noded edges by rounding.
INNER = 1e-7


def _inner_points(faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A point inside each face, at least :data:`INNER` from its edges where the face
    is that wide: GEOS's point on the surface (the middle of the widest stretch of a
    line across the face's middle), or, where that stretch is thinner (a face narrow
    there, two edges crossing at a shallow angle), the centre of the face's widest
    inscribed circle."""
    rep = shapely.point_on_surface(faces)
    thin = shapely.distance(rep, shapely.boundary(faces)) < INNER
    if thin.any():
        rep[thin] = shapely.get_point(shapely.maximum_inscribed_circle(faces[thin]), 0)
    return shapely.get_x(rep), shapely.get_y(rep)


def coverage_union(shapes: np.ndarray) -> BaseGeometry:
    """The union of polygons that meet edge to edge (faces of one polygonized linework):
    :func:`shapely.coverage_union_all`, or a plain union when GEOS says otherwise."""
    try:
        return shapely.coverage_union_all(shapes)
    except shapely.errors.GEOSException:
        return union_all(shapes)


def _small_cover(
    subject: Subject,
    small: Sequence[tuple[int, BaseGeometry]],
    classes: list[tuple[BaseGeometry, int]],
) -> list[tuple[BaseGeometry, int]]:
    """The classes split by every small piece's shadow (``small``, from
    :func:`_small_shades`: +1, F3) and, within it, where the base touches the piece (+3,
    F4)."""
    table = subject.table
    for k, shade in small:
        if not classes:
            break
        classes = _split(classes, shade, touch_region(table, k, subject.radius))
    return classes


def _small_shades(subject: Subject, view: _Shades) -> list[tuple[int, BaseGeometry]]:
    """Each small piece's shadow over the table, the empty ones left out (F3): once a
    shooter, for every class it splits. A piece of one convex part not holding the
    shooter has one convex shadow, cut to the table as :meth:`_Shades.shadow` cuts it
    (all such at once); the others are found piece by piece."""
    table = subject.table
    where = box(table)
    small = [k for k, t in enumerate(table.terrain) if not t.blocks]
    count = np.bincount(view.owner, minlength=len(table.terrain))
    alone = np.zeros(len(count), dtype=bool)
    alone[[k for k in small if count[k] == 1]] = True
    one = np.flatnonzero(alone[view.owner] & ~view.inside)  # those parts, by piece
    c = CLIP_MARGIN
    cut = shapely.clip_by_rect(
        view.polys[one], where[0] - c, where[1] - c, where[2] + c, where[3] + c
    )
    found = dict(zip(view.owner[one].tolist(), cut, strict=True))
    out = []
    for k in small:
        shade = found.get(k)
        if shade is None:
            mine = np.zeros(len(table.terrain) + len(table.models), dtype=bool)
            mine[k] = True
            shade = view.select(mine).shadow(where)
        if not shade.is_empty:
            shapely.prepare(shade)  # every class asks whether it meets it (_split)
            out.append((k, shade))
    return out


def clear_caches() -> None:
    """Forget every table-level result the maps keep (for benchmarks: the packing and
    the windows are part of the work)."""
    cached = (pieces, touch_region, window_slices, _window_sides, _opened_parts, _slice_parts)
    near = (_near_all, _near_terrain, _near_disc, _opened_pieces)
    for f in (*cached, *near, _every_side, _every_opening, _opening, _probes):
        f.cache_clear()


@functools.lru_cache(maxsize=64)
def _window_sides(table: Table, radius: float) -> tuple[tuple[int, int, BaseGeometry, Parts], ...]:
    """F6, for each window: the wall's index, the window's, the centres at which a base
    of ``radius`` touches the window (G4), and the wall's side the window is in, as
    convex parts grown by ``beam/2`` (cached: the same for every shooter)."""
    grow = radius + table.contact_tolerance
    half = table.beam / 2.0
    out = []
    for k, w, piece in window_slices(table):
        fp = table.terrain[k].footprint
        assert isinstance(fp, WallFootprint)
        band = intersection(piece.buffer(grow, quad_segs=quad_segs(grow)), box_shape(table))
        out.append((k, w, band, polygon_parts(beside_window(fp, w), half, k)))
    return tuple(out)


@functools.lru_cache(maxsize=32)
def _every_side(table: Table, radius: float) -> Parts:
    """F6: the sides of :func:`_window_sides` as one set of parts, each owned by its
    window's place in that list (cached)."""
    sides = _window_sides(table, radius)
    return join([_owned(side, n) for n, (_, _, _, side) in enumerate(sides)])


@functools.lru_cache(maxsize=32)
def _every_opening(table: Table) -> Parts:
    """F6: each wall opened at one of its windows (:func:`_opened_parts`), as one set of
    parts, each owned by the window's place in :func:`~arbitre.maps.pieces.window_slices`
    (cached)."""
    every = window_slices(table)
    return join([_owned(_opened_parts(table, k, (w,)), n) for n, (k, w, _) in enumerate(every)])


def _owned(parts: Parts, owner: int) -> Parts:
    """``parts``, every one owned by ``owner``."""
    solids = tuple((owner, g) for _, g in parts.solids)
    return Parts(parts.gens, parts.part, np.full(parts.count, owner, dtype=np.int64), solids)


@functools.lru_cache(maxsize=256)
def _opening(table: Table, k: int, w: int) -> BaseGeometry:
    """The opening of window ``w`` of wall ``k`` (F6; cached)."""
    fp = table.terrain[k].footprint
    assert isinstance(fp, WallFootprint)
    return fp.window_opening(fp.windows[w])


@functools.lru_cache(maxsize=256)
def _probes(table: Table, k: int, w: int) -> tuple[tuple[float, float], ...]:
    """Points of the opening of window ``w`` of wall ``k`` tried first (F6; cached): at
    its middle, then a quarter and three quarters along."""
    opening = _opening(table, k, w)
    found = (opening.interpolate(f, normalized=True) for f in (0.5, 0.25, 0.75))
    return tuple((q.x, q.y) for q in found)


@functools.lru_cache(maxsize=256)
def _opened_parts(table: Table, k: int, windows: tuple[int, ...]) -> Parts:
    """Wall ``k`` opened at ``windows`` (F5, F6), as convex parts grown by ``beam/2``."""
    fp = table.terrain[k].footprint
    assert isinstance(fp, WallFootprint)
    return polygon_parts(fp.opened(windows), table.beam / 2.0, k)


@functools.lru_cache(maxsize=256)
def _slice_parts(table: Table, k: int, w: int) -> Parts:
    """The slice of wall ``k`` that window ``w`` opens, as convex parts grown by
    ``beam/2`` (F5)."""
    fp = table.terrain[k].footprint
    assert isinstance(fp, WallFootprint)
    return polygon_parts(fp.window_slice(fp.windows[w]), table.beam / 2.0, k)


def _sees_opening(subject: Subject, shades: _Shades, wall: _Shades, k: int, w: int) -> bool:
    """F6: whether a clear line from the shooter's centre reaches some point of window
    ``w`` of wall ``k``: large pieces and other bases block (F2), the wall opened at that
    window and at the shooter's own (F5). ``shades`` are the shadows of the blockers,
    ``wall`` those of the wall so opened."""
    table = subject.table
    mine = shades.owner != k  # every blocker but the wall, then the wall so opened
    if shades.inside[mine].any() or wall.inside.any():
        return False
    polys = np.concatenate([shades.polys[mine], wall.polys])
    opening = _opening(table, k, w)
    near = polys[shapely.intersects(polys, opening)] if len(polys) else []
    if not len(near):
        return bool(opening.length > 1e-9)
    # quick answers first: an inner point of the opening in no shadow (closed shapes: a
    # stretch around it is clear too), or one shadow over all of the opening
    for qx, qy in _probes(table, k, w):
        if not shapely.intersects_xy(near, qx, qy).any():
            return True
    if shapely.covers(near, opening).any():
        return False
    return bool(difference(opening, shapely.union_all(near)).length > 1e-9)


def _split(
    classes: list[tuple[BaseGeometry, int]], shade: BaseGeometry, touch: BaseGeometry | None
) -> list[tuple[BaseGeometry, int]]:
    """Each class split by a piece's shadow (+1, F3) and, within it, its touch region
    (+3 instead, F4)."""
    out = []
    for shape, value in classes:
        if not shapely.intersects(shape, shade):  # untouched: no overlay
            out.append((shape, value))
            continue
        inner = intersection(shape, shade)
        out.append((difference(shape, shade), value))
        if touch is None or not shapely.intersects(inner, touch):
            out.append((inner, value + 1))
        else:
            out.append((difference(inner, touch), value + 1))
            out.append((intersection(inner, touch), value + 3))
    return [(s, v) for s, v in out if not s.is_empty]


def _regions(
    shooter: str,
    classes: Sequence[tuple[BaseGeometry, int]],
    seen: BaseGeometry,
    *,
    per_point: BaseGeometry = EMPTY,
    cover_at: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    pitch: float | None = None,
    cells: Cells | None = None,
    apart: Sequence[tuple[BaseGeometry, int]] = (),
) -> ShooterRegions:
    """Classes of equal cover merged, by cover; those ``apart`` (disjoint from the
    others) kept as they are, after them."""
    by: dict[int, list[BaseGeometry]] = {}
    for shape, value in classes:
        by.setdefault(value, []).append(shape)
    merged = tuple(
        (v, union_all(shapes) if len(shapes) > 1 else shapes[0]) for v, shapes in sorted(by.items())
    )
    kept = tuple((v, s) for v, s in (*merged, *((v, g) for g, v in apart)) if s.area > 0)
    return ShooterRegions(shooter, kept, seen, per_point, cover_at, pitch, cells)


def mordheim(
    subject: Subject, shooter: str, *, windows_open: bool, pitch: float = 2.0
) -> ShooterRegions:
    """M1, M8 and M12 for ``shooter`` against the subject standing anywhere on the table:
    seen where some of the base is in the clear region (M1, S2 > 0), in cover where some
    of it is in the shadow of any piece or other base (M8), or where it is seen only
    through windows (M12, windows open: seen, but not with every wall shut save the
    windows the shooter touches)."""
    table = subject.table
    r = subject.radius
    walls = sight.walls_with_windows(table) if windows_open else frozenset()
    pc = _mordheim_pieces(subject, walls)
    i = table.model_index(shooter)
    me = table.model(shooter)
    origin = (me.at.x, me.at.y)
    x0, y0, x1, y1 = box(table)
    wide = (x0 - r - 1, y0 - r - 1, x1 + r + 1, y1 + r + 1)
    ignored = np.zeros(len(pc.blocks), dtype=bool)
    if me.inside is not None and me.inside in table:
        ignored[[t.id for t in table.terrain].index(me.inside)] = True
    m1 = _mask(pc, subject, i, pc.blocks & ~ignored)
    m8 = _mask(pc, subject, i, ~ignored)
    table_box = box_shape(table)
    # M1's shadows, M8's (every piece's: the blocking pieces' and what the others hide
    # too) and M12's (every wall shut but at the shooter's windows), found at once
    sets = [pc.parts.select(m1), pc.parts.select(m8)]
    if walls:
        shut = _shut_pieces(subject, shooter)
        mine = np.zeros(len(pc.blocks), dtype=bool)
        mine[[k for k, t in enumerate(table.terrain) if t.id in walls]] = True
        sets.append(join([sets[0], shut.parts.select(m1 & mine)]))
    clears = _clears(origin, sets, wide)
    clear, whole = clears[0]()
    seen = _seen(clear, r, table_box)
    # M8: in cover where some of the base is outside the region no piece hides (the
    # covered region is the hidden one grown by the base); on the table, whose every
    # point is more than r within ``wide``, those are the points the region shrunk by
    # the base leaves out (``bare``: its complement, one buffer instead of an overlay and
    # a buffer)
    bare = EMPTY
    if not whole:
        clear8, whole = clears[1]()
        if not whole:
            bare = clear8.buffer(-r, quad_segs=quad_segs(r)) if r > 0 else clear8
    # M12: seen only through windows, in cover whatever M8 says (a class of its own, cut
    # from the others once). The walls shut only grow the shadows: the clear region shut
    # is the open one less their shadows, and what the shooter sees with them shut (the
    # rest) lies within what it sees with them open.
    through = EMPTY
    rest = seen
    if walls:
        shut_clear, _ = clears[2]()
        if clear.area - shut_clear.area > SLIVER:
            rest = _seen(shut_clear, r, table_box)
            through = difference(seen, rest)
    # where the base would overlap a hiding piece, a piece behind its near side hides
    # nothing of it (S2 looks at the near side): those points are ruled one by one
    hidden = difference(rest, bare) if not bare.is_empty else rest
    near = _near(subject, pc, m8, walls) if r > 0 else EMPTY
    doubt = intersection(hidden, near)
    sure = difference(hidden, near)
    free = intersection(rest, bare) if not bare.is_empty else EMPTY
    cells = None
    at = None
    if not doubt.is_empty:
        at = functools.partial(_engine_cover, subject, i, ~ignored[: pc.n_terrain], walls)
        cells = _cells(doubt, pitch, at)
    return _regions(
        shooter,
        [(g, v) for g, v in [(free, 0), (sure, 1)] if not g.is_empty],
        seen,
        per_point=doubt,
        cover_at=at,
        pitch=pitch,
        cells=cells,
        apart=[(through, 1)] if not through.is_empty else [],
    )


def _clear(
    origin: tuple[float, float], parts: Parts, where: tuple[float, float, float, float]
) -> tuple[BaseGeometry, bool]:
    """The points of the rectangle ``where`` no shadow of ``parts`` from ``origin`` holds
    (:meth:`_Shades.seen`), and whether the origin stands in a part (then none)."""
    return _clears(origin, [parts], where)[0]()


def _clears(
    origin: tuple[float, float], sets: Sequence[Parts], where: tuple[float, float, float, float]
) -> list[Callable[[], tuple[BaseGeometry, bool]]]:
    """:func:`_clear` of each set of parts, their shadows found at once
    (:func:`~arbitre.maps.shadows.shadows_of_sets`, the same bit for bit), each region
    traced when asked."""
    live = [parts for parts in sets if parts.count]
    found = iter(shadows_of_sets(origin, [(parts, where) for parts in live]))
    out: list[Callable[[], tuple[BaseGeometry, bool]]] = []
    for parts in sets:
        shades = None
        if parts.count:
            polys, inside, cones, (arc, arc_of) = next(found)
            shades = _Shades(parts.owner, polys, inside, origin, cones, arc, arc_of)
        out.append(functools.partial(_clear_of, shades, where))
    return out


def _clear_of(
    shades: _Shades | None, where: tuple[float, float, float, float]
) -> tuple[BaseGeometry, bool]:
    """:func:`_clear` of shadows found (None: of no part)."""
    if shades is None:
        return shapely.box(*where), False
    if shades.inside.any():
        return EMPTY, True
    return shades.seen(where), False


def _seen(clear: BaseGeometry, r: float, table_box: BaseGeometry) -> BaseGeometry:
    """M1: the centres on the table at which some of a base of radius ``r`` lies in the
    clear region (the clear region grown by the base)."""
    grown = clear.buffer(r, quad_segs=quad_segs(r)) if r > 0 else clear
    # GEOS's rectangle clipper: fast, but not bound to leave a valid polygon (the
    # overlay then)
    cut = shapely.clip_by_rect(grown, *table_box.bounds)
    polygonal = cut.geom_type in ("Polygon", "MultiPolygon") and not cut.is_empty
    return cut if polygonal and cut.is_valid else intersection(grown, table_box)


def _shut_pieces(subject: Subject, shooter: str) -> Pieces:
    """M12, the other way: every wall whole but at the windows the shooter touches (G4),
    which stay open (the engine's share with the windows shut)."""
    table = subject.table
    pc = pieces(table, table.beam / 2.0)
    own = _window_walls(subject, shooter)
    opened = sorted({k for k, _ in own})
    if not opened:
        return pc
    keep = np.ones(len(pc.blocks), dtype=bool)
    keep[opened] = False
    extra = [_opened_parts(table, k, tuple(sorted(w for kk, w in own if kk == k))) for k in opened]
    return Pieces(join([pc.parts.select(keep), *extra]), pc.n_terrain, pc.blocks, pc.shapes)


def _engine_cover(
    subject: Subject,
    shooter: int,
    terrain: np.ndarray,
    walls: frozenset[str],
    px: np.ndarray,
    py: np.ndarray,
) -> np.ndarray:
    """M8 at each point, as ``los`` rules it: 1 (cover) where the engine's S2 share of the
    base centred there, every piece but ``terrain``'s unflagged ones hiding (the
    shooter's building), is below 1 (:func:`arbitre.rules.mordheim.sight.measure`'s
    reading, its rounding included), else 0. Where the answer is sure without the sight
    kernel (a piece surely hides a stretch of the base's near side, or every piece is
    surely clear of the rays to it: :func:`arbitre.kernels_maps.cover_decided`, when
    numba's build is at hand) it is that; the kernel rules the others
    (:func:`_engine_cover_each`, the same everywhere)."""
    px, py = np.asarray(px, dtype=np.float64).ravel(), np.asarray(py, dtype=np.float64).ravel()
    if not len(px):
        return np.zeros(0, dtype=np.int64)
    s2 = _S2(subject, shooter, terrain, walls)
    k = backend.kernels(len(px) * s2.work, KERNELS_MAPS)
    if k.__name__ != KERNELS_MAPS:  # the interpreted build: the sight kernel everywhere
        return (s2.exposed(px, py) < 1.0).astype(np.int64)
    found = np.asarray(s2.decided(k, px, py), dtype=np.int64)
    ask = np.flatnonzero(found < 0)
    if len(ask):
        found[ask] = s2.exposed(px[ask], py[ask]) < 1.0
    return found


def _engine_cover_each(
    subject: Subject,
    shooter: int,
    terrain: np.ndarray,
    walls: frozenset[str],
    px: np.ndarray,
    py: np.ndarray,
) -> np.ndarray:
    """:func:`_engine_cover` with the sight kernel at every point (the tests' reference)."""
    return (engine_exposed(subject, shooter, terrain, walls, px, py) < 1.0).astype(np.int64)


#: The kernels module of the maps (:mod:`arbitre.kernels_maps`).
KERNELS_MAPS = "arbitre.kernels_maps"


@dataclass(frozen=True, eq=False)
class _S2:
    """What the engine's S2 share of the subject's base from shooter ``shooter`` (a model
    index) asks of the sight kernel: the table's index with the walls in ``walls``
    opened at their windows, the pieces hiding (every piece but ``terrain``'s unflagged
    ones, extended to the bridges), the shooter's centre and the two pieces left out
    (the shooter's base and the subject's, as the engine leaves out a target's)."""

    subject: Subject
    shooter: int
    terrain: np.ndarray
    walls: frozenset[str]

    @functools.cached_property
    def index(self) -> sight.SightIndex:
        return sight.sight_index(self.subject.table, solid=self.walls)

    @functools.cached_property
    def hides(self) -> np.ndarray:
        hides = np.ones(self.index.n_pieces, dtype=np.bool_)
        hides[: self.index.n_terrain] = self.terrain
        return self.index.mask(hides)

    @property
    def at(self) -> tuple[float, float]:
        at = self.subject.table.models[self.shooter].at
        return (at.x, at.y)

    @property
    def skip(self) -> tuple[int, int]:
        n = self.index.n_terrain
        return n + self.shooter, n + self.subject.index

    @property
    def work(self) -> int:
        """The elementary tests of one point (:func:`arbitre.sight.share_work`)."""
        return self.index.work(each=sight.share_work)

    def targets(self, px: np.ndarray, py: np.ndarray) -> np.ndarray:
        """The subject's base centred at each ``(px, py)``: rows ``x, y, r``."""
        r = np.full(len(px), self.subject.radius)
        return np.ascontiguousarray(np.column_stack([px, py, r]))

    def decided(self, k: Any, px: np.ndarray, py: np.ndarray) -> np.ndarray:
        """:func:`arbitre.kernels_maps.cover_decided` at each ``(px, py)`` in the build
        ``k`` of :mod:`arbitre.kernels_maps` (1, 0, or -1: the sight kernel rules it)."""
        kind, disc, eoff, edges, _ = self.index.packed
        sa, sb = self.skip
        targets = self.targets(px, py)
        args = (kind, disc, eoff, edges, self.hides, self.index.half)
        return np.asarray(k.cover_decided(*self.at, targets, sa, sb, *args))

    def exposed(self, px: np.ndarray, py: np.ndarray) -> np.ndarray:
        """:func:`engine_exposed` at each ``(px, py)`` (flat arrays, some points)."""
        n = len(px)
        table = self.subject.table
        k = backend.kernels(n * self.work)
        ax, ay = self.at
        sa, sb = self.skip
        out = k.visible_fractions(
            np.full(n, ax),
            np.full(n, ay),
            self.targets(px, py),
            np.full(n, sa, dtype=np.int64),
            np.full(n, sb, dtype=np.int64),
            *self.index.packed,
            self.hides,
            self.index.half,
            bool(table.option("grazing_blocks", False)),
        )
        return clip_shares(np.asarray(out, dtype=np.float64))


def engine_exposed(
    subject: Subject,
    shooter: int,
    terrain: np.ndarray,
    walls: frozenset[str],
    px: np.ndarray,
    py: np.ndarray,
) -> np.ndarray:
    """The engine's M8 share (S2, rounded as the ruling rounds it) of the subject's base
    centred at each ``(px, py)``, from shooter ``shooter`` (a model index), the walls in
    ``walls`` opened at their windows: the sight kernel itself, the subject's base and its
    contacts left out as the engine leaves out a target's."""
    px, py = np.asarray(px, dtype=np.float64).ravel(), np.asarray(py, dtype=np.float64).ravel()
    if not len(px):
        return np.zeros(0)
    return _S2(subject, shooter, terrain, walls).exposed(px, py)


def clip_shares(share: np.ndarray) -> np.ndarray:
    """:func:`arbitre.rules.mordheim.sight._clip` of every share at once: 0 or 1 within
    its ``SHARE_EPS``, else rounded to 6 decimals as Python's ``round`` rounds (numpy's
    rounding of ``share * 1e6``, the shares within rounding of a half left to ``round``)."""
    eps = mordheim_sight.SHARE_EPS
    out = np.round(share, 6)
    scaled = share * 1e6
    for k in np.flatnonzero(np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6):
        out[k] = round(float(share[k]), 6)
    out[share <= eps] = 0.0
    out[share >= 1.0 - eps] = 1.0
    return out


#: How far (mm) beyond where the base would overlap a piece the cells are still ruled
#: point by point: more than the arcs' tolerance, so that the outline of ``near`` never
#: runs along the outline of the covered region (the same pieces grown by the same
#: base, traced by other code: GEOS nodes every near crossing of two such outlines);
#: the cells it adds are ruled by the engine, exactly.
NEAR_MARGIN = 2.5 * ARC_TOLERANCE


def mordheim_ahead(subject: Subject, *, windows_open: bool) -> None:
    """What :func:`mordheim` of every shooter outside a building shares and finds
    first in none of its steps, found ahead (on another thread, while the first
    shooter's regions are traced: :func:`each_shooter`): where a base would overlap a
    piece (:func:`_near` of every terrain piece)."""
    table = subject.table
    walls = sight.walls_with_windows(table) if windows_open else frozenset()
    if subject.radius > 0:
        _near_of(subject, tuple(range(len(table.terrain))), walls)


#: One union of :func:`_near_all` at a time: the thread that asks second finds the
#: first one's kept, instead of tracing it again.
_NEAR_LOCK = threading.Lock()


def _near(subject: Subject, pc: Pieces, mask: np.ndarray, walls: frozenset[str]) -> BaseGeometry:
    """Where a base of the subject's radius ``r`` would overlap a terrain piece flagged
    in ``mask`` grown by ``beam/2`` (the walls in ``walls`` opened at their windows), or
    another model's base grown so, with :data:`NEAR_MARGIN` more: the union found once a
    table (:func:`_near_all`). The shooter's base hides nothing of the subject, but its
    disc stays in: those centres are ruled point by point, by the engine, as every
    centre in ``near`` is (one union a table instead of one a shooter whose base meets
    the hidden region)."""
    return _near_of(subject, tuple(int(k) for k in np.flatnonzero(mask[: pc.n_terrain])), walls)


def _near_of(subject: Subject, terrain: tuple[int, ...], walls: frozenset[str]) -> BaseGeometry:
    """:func:`_near_all` of the subject's base and the terrain pieces ``terrain`` (every
    base but the subject's), one thread tracing it at a time."""
    with _NEAR_LOCK:
        return _near_all(subject.table, subject.radius, walls, terrain, (subject.index,))


@functools.lru_cache(maxsize=1024)
def _near_disc(table: Table, k: int, r: float) -> BaseGeometry:
    """The centres at which a base of radius ``r`` overlaps model ``k``'s base grown by
    ``beam/2`` (cached: every shooter asks)."""
    m = table.models[k]
    grow = m.base.radius + table.beam / 2.0
    if not grow > 0:
        return EMPTY
    g = grow + r + NEAR_MARGIN
    return shapely.Point(m.at.x, m.at.y).buffer(g, quad_segs=quad_segs(g))


@functools.lru_cache(maxsize=64)
def _near_all(
    table: Table, r: float, walls: frozenset[str], terrain: tuple[int, ...], but: tuple[int, ...]
) -> BaseGeometry:
    """The centres at which a base of radius ``r`` overlaps a terrain piece of
    ``terrain`` or a base but those of models ``but``, grown by ``beam/2`` (the walls in
    ``walls`` opened at their windows): the terrain's union grown by ``r``
    (:func:`_near_terrain`), with each base's disc (cached: the same for every shooter
    outside a building)."""
    solids = _near_terrain(table, r, walls, terrain)
    discs = [_near_disc(table, k, r) for k in range(len(table.models)) if k not in but]
    discs = [d for d in discs if not d.is_empty]
    if solids.is_empty or not discs:
        every = [*discs] if solids.is_empty else [solids]
        return union_all(every) if every else EMPTY
    # the terrain's parts that no disc meets are parts of the union as they are: only
    # the others are merged with the discs
    joined = union_all(discs)
    parts = shapely.get_parts(solids)
    meets = shapely.intersects(parts, joined)
    merged = union_all([*parts[meets], joined])
    return shapely.MultiPolygon([*parts[~meets], *shapely.get_parts(merged)])


@functools.lru_cache(maxsize=64)
def _near_terrain(
    table: Table, r: float, walls: frozenset[str], terrain: tuple[int, ...]
) -> BaseGeometry:
    """The centres at which a base of radius ``r`` overlaps a terrain piece of
    ``terrain`` grown by ``beam/2`` (the walls in ``walls`` opened at their windows):
    their union grown by ``r`` (cached: the same whichever bases :func:`_near_all`
    leaves out)."""
    half = table.beam / 2.0
    shapes = []
    for k in terrain:
        t = table.terrain[k]
        fp = t.footprint
        shape = fp.solid() if t.id in walls and isinstance(fp, WallFootprint) else None
        shapes.append(touch_like(table, k, half, shape))
    solids = union_all(shapes) if shapes else EMPTY
    g = r + NEAR_MARGIN
    return solids.buffer(g, quad_segs=quad_segs(g)) if not solids.is_empty else EMPTY


def touch_like(table: Table, k: int, grow: float, shape: BaseGeometry | None) -> BaseGeometry:
    """Terrain piece ``k`` (or ``shape``) grown by ``grow`` mm, arcs within tolerance."""
    fp = table.terrain[k].footprint
    if shape is None and isinstance(fp, CircleFootprint):
        g = fp.radius + grow
        return shapely.Point(fp.centre.x, fp.centre.y).buffer(g, quad_segs=quad_segs(g))
    base = fp.shape() if shape is None else shape
    return base.buffer(grow, quad_segs=quad_segs(grow)) if grow > 0 else base


def _cells(
    doubt: BaseGeometry, pitch: float, cover_at: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> Cells | None:
    """M8 point by point over the cells of ``pitch`` mm whose centre lies in ``doubt``,
    each ruled at its centre by ``cover_at`` (1: cover, 0: none). The centres in
    ``doubt`` are found by a scanline (:func:`~arbitre.maps.scan.inside_grid`), not point
    by point."""
    x0, y0, x1, y1 = doubt.bounds
    ix = np.arange(np.floor(x0 / pitch), np.ceil(x1 / pitch))
    iy = np.arange(np.floor(y0 / pitch), np.ceil(y1 / pitch))
    mi, mj = np.meshgrid(ix, iy)
    gi, gj = mi.ravel(), mj.ravel()
    keep = scan.inside_grid(doubt, (ix + 0.5) * pitch, (iy + 0.5) * pitch).ravel()
    gi, gj = gi[keep], gj[keep]
    px, py = (gi + 0.5) * pitch, (gj + 0.5) * pitch
    if not len(px):
        return None
    hit = np.asarray(cover_at(px, py), dtype=np.int64)
    return Cells(pitch, gi.astype(np.int64), gj.astype(np.int64), hit, doubt)


def _mordheim_pieces(subject: Subject, walls: frozenset[str]) -> Pieces:
    """The pieces with the walls in ``walls`` opened at every window (M12)."""
    return _opened_pieces(subject.table, walls)


@functools.lru_cache(maxsize=32)
def _opened_pieces(table: Table, walls: frozenset[str]) -> Pieces:
    """The pieces of ``table`` with the walls in ``walls`` opened at every window (M12;
    cached: the same for every shooter)."""
    half = table.beam / 2.0
    pc = pieces(table, half)
    if not walls:
        return pc
    keep = np.ones(len(pc.blocks), dtype=bool)
    extra = []
    for k, t in enumerate(table.terrain):
        if t.id in walls:
            keep[k] = False
            fp = t.footprint
            assert isinstance(fp, WallFootprint)
            extra.append(polygon_parts(fp.solid(), half, k))
    return Pieces(join([pc.parts.select(keep), *extra]), pc.n_terrain, pc.blocks, pc.shapes)
