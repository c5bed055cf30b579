"""Exact shadows: where a segment from a point meets an inflated obstacle (S1, G5).

A sight line from a centre ``c`` to a point ``p`` crosses a piece when it comes nearer than
``beam/2`` to it (G5). The points ``p`` whose line from ``c`` crosses a piece form its
*shadow*: the piece grown by ``beam/2`` and everything behind it as seen from ``c``. Here
every piece is split into convex parts, each part given by its *generators*: discs
``(x, y, R)`` whose convex hull it is (a polygon's triangle is three discs of radius
``beam/2`` at its corners; a base or a round footprint is one disc of radius ``R +
beam/2``). The shadow of a convex part is convex: the hull of the near arcs of its
generators (polylines within :data:`ARC_TOLERANCE` mm), the exact tangent points, and
far points on rays inside the cone of the part. The tangent rays are exact: an arc's
tolerance stays where the arc is and is never carried along the ray.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from arbitre import backend

#: Largest gap, in mm, between a true arc and the polyline drawn for it (issue 14: 0.1).
ARC_TOLERANCE = 0.05
#: The compiled kernels of the maps (:func:`convex_hulls`).
KERNELS = "arbitre.kernels_maps"


@dataclass(frozen=True, slots=True, eq=False)
class Parts:
    """Convex parts of pieces: generator discs ``gens`` (G x 3: x, y, R) grouped by part
    (``part[g]``, sorted), and the piece each part belongs to (``owner[p]``)."""

    gens: np.ndarray
    part: np.ndarray
    owner: np.ndarray
    solids: tuple[tuple[int, BaseGeometry], ...] = ()

    @property
    def count(self) -> int:
        return len(self.owner)

    def select(self, pieces: np.ndarray) -> Parts:
        """The parts of the pieces flagged in ``pieces`` (a mask by piece index)."""
        keep_part = pieces[self.owner]
        keep_gen = keep_part[self.part]
        renum = np.cumsum(keep_part) - 1
        kept = set(np.flatnonzero(pieces).tolist())
        return Parts(
            self.gens[keep_gen],
            renum[self.part[keep_gen]],
            self.owner[keep_part],
            tuple((o, s) for o, s in self.solids if o in kept),
        )


def join(parts: list[Parts]) -> Parts:
    """Several sets of parts as one, in order (owners kept)."""
    gens, part, owner, n = [], [], [], 0
    solids: list[tuple[int, BaseGeometry]] = []
    for p in parts:
        gens.append(p.gens)
        part.append(p.part + n)
        owner.append(p.owner)
        solids.extend(p.solids)
        n += p.count
    if not gens:
        return Parts(np.zeros((0, 3)), np.zeros(0, np.int64), np.zeros(0, np.int64))
    return Parts(np.vstack(gens), np.concatenate(part), np.concatenate(owner), tuple(solids))


def disc_parts(xyr: np.ndarray, owners: np.ndarray) -> Parts:
    """One part per disc ``(x, y, R)`` (bases, round footprints), owned as given."""
    xyr = np.asarray(xyr, dtype=np.float64).reshape(-1, 3)
    return Parts(xyr, np.arange(len(xyr)), np.asarray(owners, dtype=np.int64))


def polygon_parts(shape: BaseGeometry, radius: float, owner: int) -> Parts:
    """A polygonal footprint grown by ``radius`` as convex parts: the whole polygon when
    it is convex, else each edge (two discs of ``radius``) with the polygon kept as a
    *solid*: a line from inside it crosses it whatever its direction."""
    polys = [g for g in getattr(shape, "geoms", [shape]) if not g.is_empty]
    rings: list[np.ndarray] = []
    solids: list[tuple[int, BaseGeometry]] = []
    for poly in polys:
        hull = poly.convex_hull
        if not poly.interiors and hull.area - poly.area <= 1e-9 * max(hull.area, 1.0):
            rings.append(np.asarray(hull.exterior.coords)[:-1])
            continue
        solids.append((owner, poly))
        for ring in (poly.exterior, *poly.interiors):
            xy = np.asarray(ring.coords)
            rings.extend(np.stack([xy[:-1], xy[1:]], axis=1))
    if not rings:
        return join([])
    sizes = np.array([len(r) for r in rings])
    xy = np.vstack(rings)
    gens = np.column_stack([xy, np.full(len(xy), radius)])
    part = np.repeat(np.arange(len(rings)), sizes)
    return Parts(gens, part, np.full(len(rings), owner, dtype=np.int64), tuple(solids))


def _arc_points(r: np.ndarray, beta: np.ndarray, tol: float) -> np.ndarray:
    """How many points the near arc of each generator gets (2 beta radians of radius r)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        step = 2.0 * np.arccos(np.clip(1.0 - tol / np.maximum(r, 1e-12), -1.0, 1.0))
        m = np.ceil(2.0 * beta / np.maximum(step, 1e-6)).astype(np.int64) + 1
    return np.where(r > 0, np.maximum(m, 2), 1)


@dataclass(frozen=True, slots=True, eq=False)
class Cones:
    """Each part's cone seen from an origin: the directions of the rays that meet it run
    from ``start`` (radians) over ``span``; ``reach`` is the farthest any of its
    generators reaches from the origin (distance plus radius)."""

    start: np.ndarray
    span: np.ndarray
    reach: np.ndarray

    def select(self, keep: np.ndarray) -> Cones:
        return Cones(self.start[keep], self.span[keep], self.reach[keep])

    @staticmethod
    def join(cones: list[Cones]) -> Cones:
        return Cones(
            np.concatenate([c.start for c in cones]),
            np.concatenate([c.span for c in cones]),
            np.concatenate([c.reach for c in cones]),
        )


NO_CONES = Cones(np.zeros(0), np.zeros(0), np.zeros(0))


def shadows(
    origin: tuple[float, float],
    parts: Parts,
    box: tuple[float, float, float, float],
    *,
    tol: float = ARC_TOLERANCE,
) -> tuple[np.ndarray, np.ndarray]:
    """The shadow of each convex part seen from ``origin``, cut beyond ``box`` (the points
    that matter) and beyond the part, and whether ``origin`` stands inside the part
    (everything is then in its shadow). Returns ``(polygons, inside)``, one entry a
    part."""
    polys, inside, _ = shadows_and_cones(origin, parts, box, tol=tol)
    return polys, inside


def held(origin: tuple[float, float], polys: np.ndarray, cones: Cones) -> np.ndarray:
    """Which shadows (of parts seen from ``origin``, none holding it) another of them
    holds within the box they were cut for, to be left out of a union: ``B`` is in
    ``A``'s shadow when ``B``'s cone lies in ``A``'s (a span under a half turn) and no
    point of ``B``'s shadow is nearer the origin than ``A``'s generators reach (every
    ray of ``A``'s cone has met ``A`` by then). Of shadows holding each other, the first
    is kept. Rounding (1e-12 radians) may drop a sliver of a nanometre."""
    n = len(polys)
    if n < 2:
        return np.zeros(n, dtype=np.bool_)
    near = shapely.distance(shapely.Point(origin), polys)
    rel = np.mod(cones.start[None, :] - cones.start[:, None] + math.pi, 2 * math.pi) - math.pi
    span = cones.span
    holds = (
        (rel >= -1e-12)
        & (rel + span[None, :] <= span[:, None] + 1e-12)
        & (span[:, None] < math.pi - 1e-9)
        & (near[None, :] >= cones.reach[:, None])
    )
    np.fill_diagonal(holds, False)
    earlier = np.triu(np.ones((n, n), dtype=np.bool_), 1)  # the holder (row) comes first
    holds &= ~(holds & holds.T) | earlier
    return np.asarray(holds.any(axis=0))


def shadows_and_cones(
    origin: tuple[float, float],
    parts: Parts,
    box: tuple[float, float, float, float],
    *,
    tol: float = ARC_TOLERANCE,
    arcs: list[tuple[np.ndarray, np.ndarray]] | None = None,
) -> tuple[np.ndarray, np.ndarray, Cones]:
    """:func:`shadows`, and the parts' cones (:class:`Cones`); given a list ``arcs``, adds
    to it the points of the near arcs and the part of each, sorted by part (their hull
    is the part as drawn, :func:`seen_region`)."""
    if parts.count == 0:
        return np.empty(0, dtype=object), np.zeros(0, dtype=np.bool_), NO_CONES
    ((polys, inside, cones, arc),) = shadows_of_sets(origin, [(parts, box)], tol=tol)
    if arcs is not None:
        arcs.append(arc)
    return polys, inside, cones


#: One set's answer of :func:`shadows_of_sets`: the shadows, whether the origin is in
#: each part, the cones, and the near arcs' points with the part of each.
Shadows = tuple[np.ndarray, np.ndarray, Cones, tuple[np.ndarray, np.ndarray]]


def shadows_of_sets(
    origin: tuple[float, float],
    sets: Sequence[tuple[Parts, tuple[float, float, float, float]]],
    *,
    tol: float = ARC_TOLERANCE,
) -> list[Shadows]:
    """:func:`shadows_and_cones` of several sets of parts from one origin, each with its
    box, found in one pass (one call's overhead, one call of the hulls' kernel): the
    same bit for bit as a call a set (each part computed alone, each set's far points as
    far as its own box and parts ask). Returns, for each set, ``(polygons, inside,
    cones, (arc, part))``."""
    counts = np.array([p.count for p, _ in sets], dtype=np.int64)
    sizes = np.array([len(p.gens) for p, _ in sets], dtype=np.int64)
    parts = join([p for p, _ in sets])
    n = parts.count
    if n == 0:
        none = np.empty(0, dtype=object), np.zeros(0, dtype=np.bool_), NO_CONES
        return [(*none, (np.zeros((0, 2)), np.zeros(0, np.int64))) for _ in sets]
    cx, cy = origin
    g = parts.gens
    dx, dy, r = g[:, 0] - cx, g[:, 1] - cy, g[:, 2]
    d = np.hypot(dx, dy)
    phi = np.arctan2(dy, dx)
    in_disc = d <= r + 1e-12
    ratio = np.clip(r / np.maximum(d, 1e-300), 0.0, 1.0)
    alpha = np.where(in_disc, 0.0, np.arcsin(ratio))
    beta = np.where(in_disc, 0.0, np.arccos(ratio))
    # the reference direction of each part: towards the mean of its generators
    cnt = np.bincount(parts.part, minlength=n).astype(np.float64)
    mx = np.bincount(parts.part, weights=g[:, 0], minlength=n) / cnt
    my = np.bincount(parts.part, weights=g[:, 1], minlength=n) / cnt
    psi = np.arctan2(my - cy, mx - cx)
    rel = np.angle(np.exp(1j * (phi - psi[parts.part])))
    first = np.searchsorted(parts.part, np.arange(n))  # each part's first generator
    lo = np.minimum.reduceat(rel - alpha, first)
    hi = np.maximum.reduceat(rel + alpha, first)
    inside = np.logical_or.reduceat(in_disc, first)
    inside |= (hi - lo) >= math.pi - 1e-12
    part_at = np.concatenate([[0], np.cumsum(counts)])
    gen_at = np.concatenate([[0], np.cumsum(sizes)])
    for k, (these, _) in enumerate(sets):  # a line from inside a solid crosses it
        if these.solids:
            owners = np.array([o for o, _ in these.solids], dtype=np.int64)
            solids = np.array([s for _, s in these.solids], dtype=object)
            hit = shapely.intersects_xy(solids, cx, cy)
            if hit.any():
                a, b = part_at[k], part_at[k + 1]
                inside[a:b] |= np.isin(parts.owner[a:b], owners[hit])
    # near arcs: m points from +beta to -beta around the direction back to the origin
    m = _arc_points(r, beta, tol)
    gi = np.repeat(np.arange(len(g)), m)
    start = np.concatenate([[0], np.cumsum(m)[:-1]])
    k = np.arange(int(m.sum())) - np.repeat(start, m)
    frac = np.where(m[gi] > 1, k / np.maximum(m[gi] - 1, 1), 0.5)
    ang = phi[gi] + math.pi + beta[gi] * (1.0 - 2.0 * frac)
    arc = np.column_stack([g[gi, 0] + r[gi] * np.cos(ang), g[gi, 1] + r[gi] * np.sin(ang)])
    # far points: five rays across each part's cone, beyond every point of its set's box
    # and beyond its set's parts too (a far point nearer than its part would pull the
    # hull in front)
    far_r = np.zeros(len(sets))
    for k, (_, (x0, y0, x1, y1)) in enumerate(sets):
        if counts[k]:
            reach = max(math.hypot(x - cx, y - cy) for x in (x0, x1) for y in (y0, y1))
            most = float(np.max((d + r)[gen_at[k] : gen_at[k + 1]]))
            far_r[k] = 1.1 * max(reach, most) + 1.0
    far_part = np.repeat(far_r, counts)[:, None]
    j = np.linspace(0.0, 1.0, 5)
    span = np.where(inside, 0.0, hi - lo)
    fa = psi[:, None] + lo[:, None] + span[:, None] * j[None, :]
    far = np.column_stack(
        [(cx + far_part * np.cos(fa)).ravel(), (cy + far_part * np.sin(fa)).ravel()]
    )
    # each part's points together, its near arcs then its far points (a hull a part)
    arcs_of = np.add.reduceat(m, first)
    size = arcs_of + 5
    at = np.concatenate([[0], np.cumsum(size)]).astype(np.int64)
    coords = np.empty((len(arc) + 5 * n, 2))
    coords[np.arange(len(arc)) + 5 * parts.part[gi]] = arc
    coords[((at[:-1] + arcs_of)[:, None] + np.arange(5)[None, :]).ravel()] = far
    far_reach = np.maximum.reduceat(d + r, first)
    polys = convex_hulls(coords, np.repeat(np.arange(n), size), n, at)
    arc_at = np.concatenate([[0], np.cumsum(m)])[gen_at]
    arc_part = parts.part[gi]
    out: list[Shadows] = []
    for k in range(len(sets)):
        a, b = part_at[k], part_at[k + 1]
        u, v = arc_at[k], arc_at[k + 1]
        cones = Cones(psi[a:b] + lo[a:b], span[a:b], far_reach[a:b])
        out.append((polys[a:b], inside[a:b], cones, (arc[u:v], arc_part[u:v] - a)))
    return out


def convex_hulls(
    xy: np.ndarray, group: np.ndarray, n: int, start: np.ndarray | None = None
) -> np.ndarray:
    """The convex hull of each of ``n`` groups of points (``group``: each point's, sorted;
    every group has some). GEOS's own hulls, or the same bit for bit from a compiled
    kernel (:func:`arbitre.kernels_maps.hulls`) when numba's build is at hand (already
    loaded, or ``ARBITRE_JIT=always``): loading it for this alone costs more than it
    saves. A group whose hull is no polygon (a point, a segment) is GEOS's still.
    ``start``: where each group starts in ``xy``, and its end (found when not given)."""
    k = backend.kernels(0, KERNELS)
    if k.__name__ != KERNELS:  # the interpreted build: slower here than GEOS
        multi = shapely.multipoints(shapely.points(xy), indices=group)
        return np.asarray(shapely.convex_hull(multi))
    if start is None:
        start = np.searchsorted(group, np.arange(n + 1)).astype(np.int64)
    coords, offsets, ok = k.hulls(np.ascontiguousarray(xy, dtype=np.float64), start)
    rings = np.concatenate([[0], offsets[1:][ok]]).astype(np.int64)  # the others add none
    polys = shapely.from_ragged_array(
        shapely.GeometryType.POLYGON, coords, (rings, np.arange(len(rings), dtype=np.int64))
    )
    out = np.empty(n, dtype=object)
    out[ok] = polys
    for g in np.flatnonzero(~ok):
        out[g] = shapely.convex_hull(shapely.multipoints(xy[start[g] : start[g + 1]]))
    return out


def seen_region(
    origin: tuple[float, float],
    arc: np.ndarray,
    part: np.ndarray,
    where: tuple[float, float, float, float],
) -> BaseGeometry | None:
    """The points of the rectangle ``where`` the origin sees past convex parts, each the
    hull of its near arcs (``arc``, points by ``part``, sorted; see
    :func:`shadows_and_cones`), none holding the origin: the rectangle less the parts'
    shadows, found at once as the nearest part along every ray from the origin (the
    compiled kernel :func:`arbitre.kernels_maps.seen_region`), turning the way GEOS
    writes a shell (a buffer of it then draws its arcs as of the shadows' union, bit for
    bit where the rings agree). None when the kernel
    cannot say (numba's build not at hand, the origin off the rectangle's inside, a
    degenerate ring): the shadows' union says then."""
    k = backend.kernels(0, KERNELS)
    if k.__name__ != KERNELS:
        return None
    n = int(part[-1]) + 1 if len(part) else 0
    start = np.searchsorted(part, np.arange(n + 1)).astype(np.int64)
    ring, ok = k.seen_region(
        float(origin[0]),
        float(origin[1]),
        np.ascontiguousarray(arc, dtype=np.float64),
        start,
        np.asarray(where, dtype=np.float64),
    )
    if not ok or len(ring) < 4:
        return None
    shape = shapely.Polygon(ring[::-1])  # clockwise, as GEOS's overlays write a shell
    return shape if shape.is_valid else None
