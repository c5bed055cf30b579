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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import shapely
import shapely.errors
from shapely.geometry.base import BaseGeometry

from arbitre import sight
from arbitre.geometry import CircleFootprint, WallFootprint
from arbitre.table import Table

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

    def shape(self, k: int) -> BaseGeometry:
        return self.shapes[k]


@lru_cache(maxsize=32)
def pieces(
    table: Table,
    solid: frozenset[str] = frozenset(),
    openings: frozenset[tuple[str, int]] = frozenset(),
) -> Pieces:
    """The shapes of :func:`arbitre.sight.sight_index` ``(table, solid, openings)``,
    prepared once (cached per table and windows)."""
    shapes: list[BaseGeometry] = []
    discs: list[tuple[float, float, float]] = []
    for piece in table.terrain:
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
    for m in table.models:
        shapes.append(_disc(m.at.x, m.at.y, m.base.radius))
        discs.append((m.at.x, m.at.y, m.base.radius))
    for s in shapes:
        shapely.prepare(s)
    disc_rows = np.asarray(discs, dtype=np.float64).reshape(-1, 3)
    bounds = np.asarray([s.bounds if not s.is_empty else (np.inf,) * 4 for s in shapes])
    return Pieces(
        ids=(*(t.id for t in table.terrain), *(m.id for m in table.models)),
        shapes=tuple(shapes),
        boundaries=tuple(s.boundary for s in shapes),
        bbox=bounds.reshape(-1, 4),
        error=1e-6,
        discs=disc_rows,
        bridges=_bridges(shapes, disc_rows, table.contact_tolerance),
        edges=tuple(
            np.zeros((0, 4)) if disc_rows[k, 2] >= 0.0 else _outline(g)
            for k, g in enumerate(shapes)
        ),
    )


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
    region ``R`` they sweep (a segment for a point target)."""

    segments: np.ndarray
    spacing: float
    region: BaseGeometry
    point: bool
    ox: float
    oy: float
    tx: float
    ty: float
    r: float

    def depth(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """A lower bound on how deep points lie inside ``R`` (0 outside, and for a point
        target, whose region has no inside)."""
        if self.point:
            return np.zeros(len(x))
        d = math.hypot(self.tx - self.ox, self.ty - self.oy)
        w = math.asin(min(1.0, self.r / d))
        phi = math.atan2(self.ty - self.oy, self.tx - self.ox)
        out = np.hypot(x - self.tx, y - self.ty) - self.r
        for side in (-1.0, 1.0):
            a = phi + side * w
            # distance to the tangent line, positive on the inner side
            nx, ny = -math.sin(a) * side, math.cos(a) * side
            out = np.minimum(out, -((x - self.ox) * nx + (y - self.oy) * ny))
        return np.maximum(out, 0.0)


def view(ox: float, oy: float, tx: float, ty: float, r: float, n: int = DIRECTIONS) -> View:
    """The near segments from ``(ox, oy)`` to the base ``(tx, ty, r)``: ``n`` spread evenly
    along the near arc (by length), both tangent points included."""
    d = math.hypot(tx - ox, ty - oy)
    if r <= 0.0 or d <= r or math.asin(r / d) < POINT_WIDTH:
        seg = np.asarray([[ox, oy, tx, ty]])
        return View(seg, 0.0, shapely.LineString([(ox, oy), (tx, ty)]), True, ox, oy, tx, ty, r)
    phi = math.atan2(ty - oy, tx - ox)
    # the near arc runs from one tangent point to the other through the nearest point:
    # angles on the base's circle, seen from its centre
    half_arc = math.acos(r / d)
    theta = phi + math.pi + np.linspace(-half_arc, half_arc, n)
    px, py = tx + r * np.cos(theta), ty + r * np.sin(theta)
    segs = np.column_stack([np.full(n, ox), np.full(n, oy), px, py])
    # R: the tangents and the near arc; its chords run a little into the base, so the
    # polygon holds R (a larger region: distances to it are never too large)
    region = shapely.polygons(np.vstack([[ox, oy], np.column_stack([px, py])]))
    spacing = 2.0 * r * math.sin(half_arc / max(n - 1, 1))  # chord between neighbours
    return View(segs, spacing, region, False, ox, oy, tx, ty, r)


def _lines(segs: np.ndarray) -> np.ndarray:
    return np.asarray(shapely.linestrings(segs.reshape(-1, 2, 2)))


def _candidates(p: Pieces, region: BaseGeometry, mask: np.ndarray) -> tuple[np.ndarray, float]:
    """The masked pieces whose box is within :data:`FAR` of the region's, and the box
    distance of the nearest one left out (a lower bound on its distance)."""
    x0, y0, x1, y1 = region.bounds
    b = p.bbox
    dx = np.maximum(0.0, np.maximum(b[:, 0] - x1, x0 - b[:, 2]))
    dy = np.maximum(0.0, np.maximum(b[:, 1] - y1, y0 - b[:, 3]))
    gap = np.hypot(dx, dy)
    gap[~mask] = np.inf
    near = np.flatnonzero(gap <= FAR)
    rest = gap.copy()
    rest[near] = np.inf
    return near, float(rest.min()) if len(rest) else math.inf


def _signed(p: Pieces, k: int, lines: np.ndarray, segs: np.ndarray) -> np.ndarray:
    """``min φ`` of piece ``k`` along each segment: its distance when apart, minus (a
    lower bound on) how deep the segment runs into it when it meets it."""
    cx, cy, r = p.discs[k]
    if r >= 0.0:  # a disc: the distance of its centre to the segment, less its radius
        return np.asarray(_seg_point(segs, cx, cy) - r)
    shape = p.shape(k)
    dist = _seg_edges(segs, p.edges[k])
    inside = shapely.contains_xy(shape, segs[:, 0], segs[:, 1])  # a segment wholly inside
    dist[inside] = 0.0
    meet = np.flatnonzero(dist <= 0.0)
    if len(meet):
        dist[meet] = -_depth(p, k, lines[meet], segs[meet])
    return np.asarray(dist, dtype=np.float64)


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


def _seg_edges(segs: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The distance of each segment to the nearest of ``edges`` (0 where they cross)."""
    if not len(edges):
        return np.full(len(segs), np.inf)
    a, b = segs[:, None, :2], segs[:, None, 2:]
    c, d = edges[None, :, :2], edges[None, :, 2:]

    def cross(o: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        return np.asarray(
            (p[..., 0] - o[..., 0]) * (q[..., 1] - o[..., 1])
            - (p[..., 1] - o[..., 1]) * (q[..., 0] - o[..., 0])
        )

    d1, d2 = cross(c, d, a), cross(c, d, b)
    d3, d4 = cross(a, b, c), cross(a, b, d)
    hit = (d1 * d2 <= 0) & (d3 * d4 <= 0) & ((d1 != 0) | (d2 != 0) | (d3 != 0) | (d4 != 0))

    def point_seg(pt: np.ndarray, s0: np.ndarray, s1: np.ndarray) -> np.ndarray:
        vx, vy = s1[..., 0] - s0[..., 0], s1[..., 1] - s0[..., 1]
        wx, wy = pt[..., 0] - s0[..., 0], pt[..., 1] - s0[..., 1]
        den = vx * vx + vy * vy
        t = np.clip((wx * vx + wy * vy) / np.where(den > 0, den, 1.0), 0.0, 1.0)
        return np.asarray(np.hypot(wx - t * vx, wy - t * vy))

    dist = np.minimum(
        np.minimum(point_seg(a, c, d), point_seg(b, c, d)),
        np.minimum(point_seg(c, a, b), point_seg(d, a, b)),
    )
    return np.asarray(np.where(hit, 0.0, dist).min(axis=1))


def _seg_point(segs: np.ndarray, px: float, py: float) -> np.ndarray:
    """The distance of point ``p`` to each segment (rows ``x0, y0, x1, y1``)."""
    ax, ay, bx, by = segs[:, 0], segs[:, 1], segs[:, 2], segs[:, 3]
    dx, dy = bx - ax, by - ay
    den = dx * dx + dy * dy
    t = np.clip(((px - ax) * dx + (py - ay) * dy) / np.where(den > 0, den, 1.0), 0.0, 1.0)
    return np.asarray(np.hypot(ax + t * dx - px, ay + t * dy - py))


def _phi(p: Pieces, k: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Piece ``k``'s signed distance at the points: negative inside (1-Lipschitz)."""
    cx, cy, r = p.discs[k]
    if r >= 0.0:
        return np.asarray(np.hypot(x - cx, y - cy) - r)
    e = p.edges[k]
    if not len(e):
        return np.full(len(x), np.inf)
    # the distance to the nearest edge, every point against every edge at once
    ax, ay, dx, dy = e[:, 0], e[:, 1], e[:, 2] - e[:, 0], e[:, 3] - e[:, 1]
    den = np.where(dx * dx + dy * dy > 0, dx * dx + dy * dy, 1.0)
    t = np.clip(((x[:, None] - ax) * dx + (y[:, None] - ay) * dy) / den, 0.0, 1.0)
    near = np.hypot(ax + t * dx - x[:, None], ay + t * dy - y[:, None]).min(axis=1)
    inside = shapely.contains_xy(p.shape(k), x, y)
    return np.asarray(np.where(inside, -near, near))


def _bridges(
    shapes: Sequence[BaseGeometry], discs: np.ndarray, tolerance: float
) -> tuple[tuple[int, int, float, BaseGeometry], ...]:
    """G4: the pairs of pieces whose gap is within ``tolerance`` plus :data:`JOINT` mm
    without overlapping: their indices, gap and the segment between their nearest points
    (a gap this close or closer makes, or would make, one obstacle)."""
    reach = tolerance + max(JOINT, 2.0 * tolerance)
    live = [k for k, g in enumerate(shapes) if not g.is_empty]
    if len(live) < 2:
        return ()
    tree = shapely.STRtree([shapes[k] for k in live])
    left, right = tree.query([shapes[k] for k in live], predicate="dwithin", distance=reach)
    out = []
    for i, j in zip(left.tolist(), right.tolist(), strict=True):
        a, b = live[i], live[j]
        if a >= b:
            continue
        (ax, ay, ar), (bx, by, br) = discs[a], discs[b]
        if ar >= 0.0 and br >= 0.0:  # two discs, exactly
            d = math.hypot(bx - ax, by - ay)
            gap = d - ar - br
            if d == 0.0 or not 0.0 < gap <= reach:
                continue
            ux, uy = (bx - ax) / d, (by - ay) / d
            line = shapely.LineString([(ax + ar * ux, ay + ar * uy), (bx - br * ux, by - br * uy)])
        else:
            gap = float(shapely.distance(shapes[a], shapes[b]))
            if not 0.0 < gap <= reach:
                continue
            line = shapely.shortest_line(shapes[a], shapes[b])
        out.append((a, b, gap, line))
    return tuple(out)


def _joints(
    p: Pieces, near: np.ndarray, lines: np.ndarray
) -> list[tuple[int, int, float, np.ndarray]]:
    """The G4 joints between ``near`` pieces, each with the lines passing through it."""
    keep = set(near.tolist())
    return [
        (a, b, gap, np.asarray(shapely.intersects(lines, line)))
        for a, b, gap, line in p.bridges
        if a in keep and b in keep
    ]


def seen_slack(
    table: Table, p: Pieces, v: View, mask: np.ndarray, half: float, *, refine: bool = True
) -> Slack:
    """M1, a target seen: the best clearance of a near segment from the pieces of
    ``mask`` (G5 beam) and from the G4 joints it would need to stay open: every other
    near segment tried, then more between the neighbours of the clearest."""
    near, far = _candidates(p, v.region, mask)
    coarse = v.segments if v.point else v.segments[::2]
    clear, who = _clearance(table, p, near, far, half, coarse)
    best = int(np.argmax(clear))
    if refine and not v.point:
        extra = _between(v, coarse, best)
        more, more_who = _clearance(table, p, near, far, half, extra)
        top = int(np.argmax(more))
        if more[top] > clear[best]:
            clear, who, best = more, more_who, top
    return Slack(max(0.0, float(clear[best])), str(who[best]) or "beam")  # float, not numpy


def _clearance(
    table: Table, p: Pieces, near: np.ndarray, far: float, half: float, segs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each segment's clearance from the ``near`` pieces (beyond the beam), from the G4
    joints it passes through, and from the pieces left out (``far``), and what limits it."""
    lines = _lines(segs)
    clear = np.full(len(segs), far - half - p.error)
    who = np.full(len(segs), "", dtype=object)
    for k in near:
        c = _signed(p, int(k), lines, segs) - half - p.error
        better = c < clear
        clear = np.where(better, c, clear)
        who[better] = f"beam {p.ids[int(k)]}"
    tol = table.contact_tolerance
    for a, b, gap, through in _joints(p, near, lines):
        open_by = gap - tol
        better = through & (open_by < clear)
        clear = np.where(better, open_by, clear)
        who[better] = f"contact {p.ids[a]}-{p.ids[b]}"
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


def hidden_slack(table: Table, p: Pieces, v: View, mask: np.ndarray, half: float) -> Slack:
    """M1, a target not seen: the least depth by which the near segments run into the
    pieces of ``mask`` grown by the beam (or cross a G4 joint), over the near arc."""
    near, _ = _candidates(p, v.region, mask)
    lines = _lines(v.segments)
    depth = np.full(len(v.segments), -np.inf)
    who = np.full(len(v.segments), "", dtype=object)
    for k in near:
        h = half - _signed(p, int(k), lines, v.segments)
        better = h > depth
        depth = np.where(better, h, depth)
        who[better] = f"beam {p.ids[int(k)]}"
    tol = table.contact_tolerance
    for a, b, gap, through in _joints(p, near, lines):
        closed_by = tol - gap
        better = through & (closed_by > depth)
        depth = np.where(better, closed_by, depth)
        who[better] = f"contact {p.ids[a]}-{p.ids[b]}"
    worst = int(np.argmin(depth))
    value = float(depth[worst]) - float(v.spacing) / 2.0 - p.error
    return Slack(max(0.0, value), str(who[worst]) or "beam")


def _in_box(segs: np.ndarray, box: np.ndarray, pad: float, n: int) -> tuple[np.ndarray, ...]:
    """``n`` points along each segment's stretch inside ``box`` grown by ``pad`` (slab
    clipping): their coordinates, for the segments that cross the box."""
    a, d = segs[:, :2], segs[:, 2:] - segs[:, :2]
    lo, hi = box[:2] - pad, box[2:] + pad
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (lo - a) / d
        t2 = (hi - a) / d
    near = np.where(d == 0.0, np.where((a >= lo) & (a <= hi), -np.inf, np.inf), np.minimum(t1, t2))
    far = np.where(d == 0.0, np.where((a >= lo) & (a <= hi), np.inf, -np.inf), np.maximum(t1, t2))
    t0 = np.clip(near.max(axis=1), 0.0, 1.0)
    t9 = np.clip(far.min(axis=1), 0.0, 1.0)
    cross = t9 >= t0
    t = t0[cross, None] + (t9 - t0)[cross, None] * np.linspace(0.0, 1.0, n)
    x = segs[cross, 0, None] + d[cross, 0, None] * t
    y = segs[cross, 1, None] + d[cross, 1, None] * t
    return x.ravel(), y.ravel()


def hiding_slack(p: Pieces, v: View, hiders: Sequence[int], half: float) -> Slack:
    """M8, part of the target hidden: the deepest point of ``R`` hidden by one of the
    ``hiders`` (its depth in ``R`` and in the piece grown by the beam, the smaller),
    among points along the near segments where they cross the piece's box."""
    if v.point:
        lines = _lines(v.segments)
        best = Slack(0.0, "beam")
        for k in hiders:
            h = half - float(_signed(p, k, lines, v.segments)[0]) - p.error
            if h > best.mm:
                best = Slack(h, f"beam {p.ids[k]}")
        return best
    best = Slack(0.0, "beam")
    for k in hiders:
        if p.shapes[k].is_empty:
            continue
        x, y = _in_box(v.segments[::3], p.bbox[k], half, ALONG)
        if not len(x):
            continue
        in_r = v.depth(x, y)
        keep = in_r > best.mm  # only points that could do better
        if not keep.any():
            continue
        deep = np.minimum(in_r[keep], half - _phi(p, k, x[keep], y[keep])) - p.error
        top = float(deep.max())  # a float, not numpy
        if top > best.mm:
            best = Slack(top, f"beam {p.ids[k]}")
    return best


def clear_slack(p: Pieces, v: View, mask: np.ndarray, half: float) -> Slack:
    """M8, nothing hides: how far the nearest piece of ``mask`` is from coming within the
    beam of ``R``."""
    near, far = _candidates(p, v.region, mask)
    best = Slack(max(0.0, far - half - p.error), "beam")
    if len(near):
        centres = shapely.points(p.discs[near, :2])
        round_ = p.discs[near, 2] >= 0.0
        gaps = np.where(
            round_,
            shapely.distance(v.region, centres) - p.discs[near, 2],
            shapely.distance(v.region, [p.shapes[int(k)] for k in near]),
        )
        k = int(np.argmin(gaps))
        slack = max(0.0, float(gaps[k]) - half - p.error)
        if slack < best.mm:
            best = Slack(slack, f"beam {p.ids[int(near[k])]}")
    return best


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
            gap = float(shapely.distance(centre, fp.window_slice(window))) - m.base.radius
            slack = abs(gap - tol)
            if slack < best.mm:
                best = Slack(slack, f"contact {shooter}-{piece.id}")
    return best


def index_pieces(table: Table, windows: str) -> Pieces:
    """The :class:`Pieces` matching the M rules' sight index (M12: every window open, or
    every wall whole)."""
    walls = sight.walls_with_windows(table) if windows == "open" else frozenset()
    return pieces(table, solid=walls)
