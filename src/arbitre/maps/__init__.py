"""Where can I stand? Exact sight and cover maps of a whole table (issue 14).

:func:`sight_map` splits the table into *faces*: the places where a model centred there
would be seen by the same enemies with the same cover from each. Frostgrave (F1-F5) and
Mordheim (M1, M8) faces are exact shapes (:mod:`arbitre.maps.regions`), arcs drawn as
polylines within :data:`~arbitre.maps.shadows.ARC_TOLERANCE` mm; where a rule looks at
a point in a way no such shape gives (a Mordheim base over a piece that may hide nothing
of it, M8: see :mod:`arbitre.maps.regions` for the curve) the map rules cells point by
point, says so in its method and gives them faces of their own (``per_point``,
``SightMap.cells``, not exact), and the raster rules those centres one by one. Those
cells stay a grid beside each shooter's exact classes
(:class:`~arbitre.maps.regions.Cells`): the faces outside ``per_point`` are overlaid
from the exact classes alone, the cells' faces from their stepped shapes too, and a
raster of the cells' own pitch reads the grid as it is. The
faces are one polygonized overlay of every shooter's classes (:func:`arrange`); the
raster (:func:`raster`) is read from the classes by a scanline
(:mod:`arbitre.maps.scan`), not from the faces. Dark Age (D3-D4) maps are a grid of
exact per-point rulings. :mod:`arbitre.maps.reach` limits a map to
the places a model reaches; :mod:`arbitre.maps.geojson` writes GeoJSON.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from arbitre import collector, sight
from arbitre.errors import RulesError
from arbitre.geometry import Point
from arbitre.i18n import T_, TN_, Num, Text, join
from arbitre.maps import regions, scan
from arbitre.maps.pieces import PHANTOM, Subject, box_shape, subject
from arbitre.maps.reach import Reach, best_spot
from arbitre.maps.regions import EMPTY, ShooterRegions
from arbitre.maps.shadows import ARC_TOLERANCE
from arbitre.rules import ask, check_options, ruleset_for
from arbitre.rules.options import read_options
from arbitre.rules.ruling import Reason
from arbitre.table import Table

__all__ = [
    "ARC_TOLERANCE",
    "PHANTOM",
    "Face",
    "SightMap",
    "raster",
    "raster_from_faces",
    "rule_points",
    "sight_map",
]

#: Faces smaller than this (mm²) are slivers of floating-point overlay, dropped.
SLIVER = 1e-6
#: The grid (mm) of the snap-rounded overlay that redoes a floating one gone wrong.
GRID = 1e-9


@dataclass(frozen=True, slots=True)
class Face:
    """A region of the table where a model centred there is seen by the same enemies:
    ``seen_by`` pairs each shooter that sees it with the cover it gives (F3-F6 bonus, or
    1 for Mordheim's M8 cover); ``exact`` is False for cells ruled point by point."""

    shape: BaseGeometry
    seen_by: tuple[tuple[str, int], ...]
    exact: bool = True

    @property
    def least_cover(self) -> int | None:
        """The smallest cover any shooter that sees the face gives (None: unseen)."""
        return min((c for _, c in self.seen_by), default=None)


@dataclass(frozen=True, slots=True)
class SightMap:
    """A map of where a model could stand: the ruleset, the subject, each shooter's
    regions, the faces, how they were found (``method``) and why (``reasons``)."""

    rules: str
    table: Table
    model: str
    side: str
    radius: float
    shooters: tuple[str, ...]
    regions: tuple[ShooterRegions, ...]
    faces: tuple[Face, ...]
    method: Text | str
    reasons: tuple[Reason, ...]
    per_point: BaseGeometry = EMPTY
    reach: Reach | None = None
    #: The faces of ``per_point``, from the cells ruled one by one (``exact`` False):
    #: with ``faces``, they cover the table.
    cells: tuple[Face, ...] = ()

    def key(self, face: Face) -> tuple[int, int]:
        """How good a face is to stand in, smaller better: the enemies that see it, then
        the least cover among them, the more the better (issue 14's best spot)."""
        return (len(face.seen_by), -(face.least_cover or 0))


#: A map maker: the subject and the options' table -> (per-shooter regions, cells ruled
#: point by point as faces, where those cells lie, method in words).
Made = tuple[list[ShooterRegions], list[Face], BaseGeometry, Text]
Maker = Callable[[Subject, float], Made]


def _windows_open(table: Table, rules: str) -> bool:
    """M12: whether the ruleset opens windows (its option ``windows``, when it has one)."""
    opts = read_options(ruleset_for(table, "los", rules).options, table.options)
    return getattr(opts, "windows", "closed") == "open"


def _frostgrave(s: Subject, pitch: float) -> Made:
    # one thread: the classes are put together mostly in Python (threads cost more CPU
    # and save no time)
    regs = [regions.frostgrave(s, a) for a in s.shooters]
    return regs, [], EMPTY, T_("exact regions (F1-F7)")


def _mordheim(s: Subject, pitch: float) -> Made:
    opened = _windows_open(s.table, "mordheim")
    trace = functools.partial(regions.mordheim, s, windows_open=opened, pitch=pitch)
    ahead = functools.partial(regions.mordheim_ahead, s, windows_open=opened)
    regs = regions.each_shooter(trace, s.shooters, ahead)
    doubt = shapely.union_all([r.per_point for r in regs])
    method = T_("exact regions (M1, M8)")
    if not doubt.is_empty:
        method = T_(
            "exact regions (M1, M8); where the base would overlap a piece, M8 ruled in cells "
            "of {pitch} mm at their centres: there the edge of the cover is traced by the "
            "point where a line from the shooter grazes the base, sliding along a side of "
            "the piece, a curve neither straight nor circular",
            pitch=Num(pitch, "g"),
        )
    if opened and sight.walls_with_windows(s.table):
        method = T_(
            "{method}; M12: a target seen only through windows is in cover (windows: open)",
            method=method,
        )
    return regs, [], doubt, method


def _darkage(s: Subject, pitch: float) -> Made:
    where = box_shape(s.table)
    cells = _point_cells(s, "darkage", where, pitch)
    method = T_(
        "a grid of cells of {pitch} mm, each ruled at its centre (D3-D4)", pitch=Num(pitch, "g")
    )
    return [], cells, where, method


#: The map of each ruleset, by name; the default cell size of its point-by-point part.
MAKERS: Mapping[str, tuple[Maker, float]] = {
    "frostgrave": (_frostgrave, 2.0),
    "mordheim": (_mordheim, 5.0),
    "darkage": (_darkage, 20.0),
}


def sight_map(
    table: Table,
    *,
    model: str | None = None,
    side: str | None = None,
    rules: str | None = None,
    base: float | None = None,
    options: Mapping[str, object] | None = None,
    pitch: float | None = None,
    reach: float | None = None,
    faces: bool = True,
) -> SightMap:
    """Where ``model`` (or a model of ``side`` with a ``base`` mm wide) could stand, under
    ``rules`` (default: the table's): every face of the table with the enemies that would
    see it there and the cover each gives. ``pitch`` (mm) sizes the cells ruled one by
    one (default: the ruleset's). ``reach`` (mm) adds the places the model reaches with
    that much movement and the best spot there (:mod:`arbitre.maps.reach`). With
    ``faces=False`` (and no reach) the overlay into faces is skipped: the regions alone,
    enough for :func:`raster`."""
    if options:
        merged = dict(table.options)
        merged.update(options)
        check_options(merged)
        table = dataclasses.replace(table, options=tuple(sorted(merged.items())))
    name = ruleset_for(table, "los", rules).name
    if name not in MAKERS:
        raise RulesError(
            T_("map: no map for ruleset {name} (maps: {maps})", name=repr(name), maps=join(MAKERS))
        )
    maker, default_pitch = MAKERS[name]
    step = default_pitch if pitch is None else pitch
    if not step > 0:
        raise RulesError(T_("map: cell size {step} mm: must be more than 0", step=Num(step, "g")))
    s = subject(table, model=model, side=side, base=base)
    if reach is not None and s.model == PHANTOM:  # refused before any work
        raise RulesError(T_("map: --reach needs a model (--model ID): a side has no start"))
    regs, cells, per_point, method = maker(s, step)
    overlay = faces or reach is not None
    found_faces = arrange(box_shape(s.table), regs, per_point) if overlay else []
    found_faces += cells
    ruled: list[Face] = []
    if overlay and regs and not per_point.is_empty:  # Mordheim's cells, overlaid the same way
        ruled = [
            dataclasses.replace(f, exact=False)
            for f in arrange(per_point, regs, EMPTY, stepped=True)
        ]
    reasons = _reasons(name, s, method)
    found = None
    if reach is not None:
        keyed = [(f.shape, (len(f.seen_by), -(f.least_cover or 0))) for f in found_faces]
        found = best_spot(s.table, s.model, s.radius, reach, keyed)
    return SightMap(
        rules=name,
        table=s.table,
        model=s.model,
        side=s.side,
        radius=s.radius,
        shooters=s.shooters,
        regions=tuple(regs),
        faces=tuple(found_faces),
        method=method,
        reasons=reasons,
        per_point=per_point,
        reach=found,
        cells=tuple(ruled),
    )


def _reasons(rules: str, s: Subject, method: Text | str) -> tuple[Reason, ...]:
    """What the map rests on, with rule IDs."""
    words = {
        "frostgrave": (
            "F2",
            T_("seen where the centre line crosses no large piece and no other base"),
        ),
        "mordheim": ("M1", T_("seen where some of the base is visible (S2 > 0); M8 cover")),
        "darkage": ("D3", T_("seen where some clear segment joins the bases (D3, D4 sizes)")),
    }
    rule, text = words[rules]
    who: Text | str = s.model
    if s.model == PHANTOM:
        who = T_("a {base} mm base of side {side}", base=Num(2 * s.radius, "g"), side=s.side)
    against = TN_(
        "{who} against {n} enemies: {text}",
        "{who} against {n} enemies: {text}",
        "n",
        who=who,
        n=len(s.shooters),
        text=text,
    )
    arcs = T_("{method}; arcs within {tol} mm", method=method, tol=Num(ARC_TOLERANCE, "g"))
    return (Reason(rule, (s.model, *s.shooters), against), Reason("G5", (), arcs))


def arrange_overlay(
    domain: BaseGeometry, regs: Sequence[ShooterRegions], per_point: BaseGeometry
) -> list[Face]:
    """The overlay of every shooter's classes over ``domain`` (less ``per_point``): one
    face for each combination of shooters and covers that occurs, cut shooter after
    shooter (slow: the faces multiply; :func:`arrange` finds the same at once)."""
    start = regions.difference(domain, per_point) if not per_point.is_empty else domain
    shapes = np.array([start], dtype=object)
    labels: list[tuple[tuple[str, int], ...]] = [()]
    for reg in regs:
        cuts = _cut(shapes, reg)
        new_shapes: list[BaseGeometry] = []
        new_labels: list[tuple[tuple[str, int], ...]] = []
        for value, inter in cuts:
            for k in np.flatnonzero(shapely.area(inter) > SLIVER):
                new_shapes.append(inter[k])
                new_labels.append(
                    labels[k] if value is None else (*labels[k], (reg.shooter, value))
                )
        shapes = np.array(new_shapes, dtype=object)
        labels = new_labels
    return [
        Face(polygonal(g), lab)
        for g, lab in zip(shapes, labels, strict=True)
        if shapely.area(g) > SLIVER
    ]


def arrange(
    domain: BaseGeometry,
    regs: Sequence[ShooterRegions],
    per_point: BaseGeometry,
    *,
    stepped: bool = False,
) -> list[Face]:
    """The overlay of every shooter's classes over ``domain`` (less ``per_point``): one
    face for each combination of shooters and covers that occurs (``stepped``: the cells
    ruled one by one too, as their stepped shapes, for a domain within them). Found at
    once: every class's boundary noded into one linework (snap-rounded on a
    :data:`GRID` mm grid, which GEOS nodes robustly), polygonized into the arrangement's
    cells (:func:`_arranged_cells`, part of the domain by part), each cell labelled by
    the classes holding a point inside it, and the cells of a label merged (they tile
    the table edge to edge: a coverage union). Same faces as :func:`arrange_overlay` up
    to the grid."""
    with collector.paused():  # tens of thousands of geometries, none in a cycle
        return _arrange(domain, regs, per_point, stepped=stepped)


def _arrange(
    domain: BaseGeometry, regs: Sequence[ShooterRegions], per_point: BaseGeometry, *, stepped: bool
) -> list[Face]:
    classes = [reg.labelled if stepped else reg.classes for reg in regs]
    bounds = [shapely.boundary(polygonal(g)) for these in classes for _, g in these]
    if not per_point.is_empty:
        bounds.append(shapely.boundary(polygonal(per_point)))
    cells, rx, ry = _arranged_cells(domain, shapely.get_parts(np.array(bounds, dtype=object)))
    if not per_point.is_empty:
        keep = ~shapely.contains_xy(per_point, rx, ry)
        cells, rx, ry = cells[keep], rx[keep], ry[keep]
    cover = np.full((len(regs), len(cells)), -1, dtype=np.int64)
    for i, these in enumerate(classes):
        for value, region in these:
            shapely.prepare(region)
            cover[i, shapely.contains_xy(region, rx, ry)] = value
    if not len(cells):
        return []
    cols, first, group = np.unique(cover, axis=1, return_index=True, return_inverse=True)
    seen = np.argsort(first)  # the labels in the order their first cell comes
    rank = np.empty_like(seen)
    rank[seen] = np.arange(len(seen))
    group = rank[group.ravel()]
    sizes = np.bincount(group, minlength=len(seen))
    members = cells[np.argsort(group, kind="stable")]
    merged = members[np.cumsum(sizes) - sizes]  # a label of one cell: that cell
    several = np.flatnonzero(sizes > 1)
    if len(several):
        of = np.repeat(np.arange(len(seen)), sizes)
        many = np.isin(of, several)
        bags = shapely.geometrycollections(
            members[many], indices=np.searchsorted(several, of[many])
        )
        merged[several] = _coverage_union(bags)
    pairs = [
        [(reg.shooter, v) for v in range(int(cover[i].max(initial=-1)) + 1)]
        for i, reg in enumerate(regs)
    ]
    faces = []
    for col, shape in zip(cols[:, seen].T.tolist(), merged, strict=True):
        if shapely.area(shape) > SLIVER:
            label = tuple([pairs[i][v] for i, v in enumerate(col) if v >= 0])
            faces.append(Face(polygonal(shape), label))
    return faces


def _coverage_union(bags: np.ndarray) -> np.ndarray:
    """Each collection of polygons that tile edge to edge merged into one: the ufunc
    :func:`shapely.coverage_union_all` calls on its one collection
    (``shapely.lib.coverage_union``), called on every collection at once (the tests
    check it against ``coverage_union_all`` a collection)."""
    union: Callable[[np.ndarray], np.ndarray] = shapely.lib.coverage_union
    return union(bags)


#: How near (mm) a part of the domain the lines that arrange it are kept.
_MARGIN = 1.0


def _arranged_cells(
    domain: BaseGeometry, lines: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells larger than :data:`SLIVER` of the arrangement of ``lines`` and the
    boundary of ``domain`` (snap-rounded on :data:`GRID`) that lie in ``domain``, with a
    point inside each (x, y). A domain of several parts (Mordheim's cells) is arranged
    part by part, each from the runs of the lines' segments that come within
    :data:`_MARGIN` of it (:func:`_lines_near`): the cells within a part are the same (a
    segment farther off bounds none of them and moves none of their edges by more than
    the grid), and far fewer lines are noded, most lying away from the parts."""
    parts = shapely.get_parts(domain)
    if len(parts) <= 1:
        chunks = [(domain, lines)]
    else:
        chunks = list(zip(parts, _lines_near(lines, parts), strict=True))
    found, xs, ys = [], [], []
    for part, near in chunks:
        edge = shapely.get_parts(shapely.boundary(part))
        noded = shapely.union_all(np.concatenate([edge, near]), grid_size=GRID)
        cells = shapely.get_parts(shapely.polygonize([noded]))
        cells = cells[shapely.area(cells) > SLIVER]
        rep = shapely.point_on_surface(cells)
        rx, ry = shapely.get_x(rep), shapely.get_y(rep)
        keep = shapely.contains_xy(part, rx, ry)
        found.append(cells[keep])
        xs.append(rx[keep])
        ys.append(ry[keep])
    return np.concatenate(found), np.concatenate(xs), np.concatenate(ys)


def _lines_near(lines: np.ndarray, parts: np.ndarray) -> list[np.ndarray]:
    """For each of ``parts``, the segments of ``lines`` within :data:`_MARGIN` of it, as
    linestrings of the runs of consecutive segments (their points as they were)."""
    xy, of_line = shapely.get_coordinates(lines, return_index=True)
    seg = np.flatnonzero(of_line[1:] == of_line[:-1])  # segment k: points k and k + 1
    tree = shapely.STRtree(shapely.linestrings(np.stack([xy[seg], xy[seg + 1]], axis=1)))
    which, hit = tree.query(parts, predicate="dwithin", distance=_MARGIN)
    out = []
    for k in range(len(parts)):
        first = np.sort(seg[hit[which == k]])
        if not len(first):
            out.append(np.empty(0, dtype=object))
            continue
        new_run = np.ones(len(first), dtype=bool)
        new_run[1:] = first[1:] != first[:-1] + 1
        starts = np.flatnonzero(new_run)
        ends = np.append(starts[1:], len(first)) - 1
        size = first[ends] - first[starts] + 2  # points in each run
        run = np.repeat(np.arange(len(starts)), size)
        at = np.arange(len(run)) - np.repeat(np.cumsum(size) - size, size)
        out.append(shapely.linestrings(xy[np.repeat(first[starts], size) + at], indices=run))
    return out


def _cut(shapes: np.ndarray, reg: ShooterRegions) -> list[tuple[int | None, np.ndarray]]:
    """Each of ``shapes`` cut by a shooter's classes (``(cover, pieces)``) and the rest
    (``(None, pieces)``). The classes are disjoint and make up ``seen``, so the pieces of
    a shape add up to its area; where they do not (GEOS's floating overlay can go wrong
    on nearly coincident edges), that shape is cut again on a 1e-9 mm grid."""
    by: dict[int, list[BaseGeometry]] = {}
    for v, g in reg.classes:  # a cover may have several classes
        by.setdefault(v, []).append(g)
    classes = {v: g[0] if len(g) == 1 else regions.union_all(g) for v, g in sorted(by.items())}
    cuts: list[tuple[int | None, np.ndarray]] = [
        (v, regions.intersection(shapes, g)) for v, g in classes.items()
    ]
    cuts.append((None, regions.difference(shapes, reg.seen)))
    total = sum(shapely.area(c) for _, c in cuts)
    area = shapely.area(shapes)
    wrong = np.flatnonzero(np.abs(total - area) > 1e-9 * area + SLIVER)
    for k in wrong:
        a = shapely.make_valid(shapes[k])
        for value, cut in cuts:
            region = reg.seen if value is None else classes[value]
            op = shapely.difference if value is None else shapely.intersection
            cut[k] = op(a, shapely.make_valid(region), grid_size=GRID)
    return cuts


def polygonal(shape: BaseGeometry) -> BaseGeometry:
    """The areas of a shape (an overlay may leave lines and points of its cuts)."""
    if shape.geom_type in ("Polygon", "MultiPolygon"):
        return shape
    parts = [g for g in shapely.get_parts(shape) if g.geom_type in ("Polygon", "MultiPolygon")]
    polys = [p for g in parts for p in shapely.get_parts(g)]
    return shapely.MultiPolygon(polys) if len(polys) != 1 else polys[0]


def rule_points(s: Subject, rules: str, xy: np.ndarray) -> list[tuple[tuple[str, int], ...]]:
    """Each point ruled one by one by the ``los`` question of ``rules`` with the subject
    moved there: the shooters that see it, with their cover."""
    out = []
    pairs = tuple((a, s.model) for a in s.shooters)
    for x, y in np.asarray(xy, dtype=np.float64).reshape(-1, 2):
        moved = s.table.moved(s.model, Point(float(x), float(y)))
        answer = ask(moved, "los", rules=rules, pairs=pairs) if pairs else None
        rulings = answer.rulings if answer is not None else ()
        out.append(tuple((r.shooter, int(r.cover)) for r in rulings if r.visible))
    return out


def _point_cells(s: Subject, rules: str, where: BaseGeometry, pitch: float) -> list[Face]:
    """The cells of ``pitch`` mm whose centres lie in ``where``, ruled one by one, merged
    by label and cut to ``where``."""
    px, py = grid_centres(where.bounds, pitch)
    keep = shapely.contains_xy(where, px, py)
    px, py = px[keep], py[keep]
    labels = rule_points(s, rules, np.column_stack([px, py]))
    by: dict[tuple[tuple[str, int], ...], list[int]] = {}
    for i, lab in enumerate(labels):
        by.setdefault(lab, []).append(i)
    faces = []
    for lab, idx in by.items():
        k = np.asarray(idx)
        cells = shapely.box(
            px[k] - pitch / 2, py[k] - pitch / 2, px[k] + pitch / 2, py[k] + pitch / 2
        )
        shape = shapely.intersection(shapely.coverage_union_all(cells), where)
        if shape.area > SLIVER:
            faces.append(Face(polygonal(shape), lab, exact=False))
    return faces


def grid_centres(
    bounds: tuple[float, float, float, float], pitch: float
) -> tuple[np.ndarray, np.ndarray]:
    """The centres of the cells of a grid of ``pitch`` mm aligned on the origin that
    meet ``bounds``, flattened."""
    x0, y0, x1, y1 = bounds
    xs = (np.arange(np.floor(x0 / pitch), np.ceil(x1 / pitch)) + 0.5) * pitch
    ys = (np.arange(np.floor(y0 / pitch), np.ceil(y1 / pitch)) + 0.5) * pitch
    gx, gy = np.meshgrid(xs, ys)
    return gx.ravel(), gy.ravel()


@dataclass(frozen=True, slots=True)
class Raster:
    """A grid of ``pitch`` mm over the table: per cell centre, how many enemies see it
    (``seen``), the least and the most cover among them (-1 where none sees it)."""

    pitch: float
    xs: np.ndarray
    ys: np.ndarray
    seen: np.ndarray
    least_cover: np.ndarray
    most_cover: np.ndarray


def _axes(table: Table, pitch: float) -> tuple[np.ndarray, np.ndarray]:
    """The raster's column and row centres: ``(k + 1/2) pitch`` inside the table."""
    if not pitch > 0:
        raise RulesError(T_("map: grid {pitch} mm: must be more than 0", pitch=Num(pitch, "g")))
    w, d = table.width, table.depth
    xs = (np.arange(int(np.ceil(w / pitch))) + 0.5) * pitch
    ys = (np.arange(int(np.ceil(d / pitch))) + 0.5) * pitch
    return xs[xs < w], ys[ys < d]


def raster(m: SightMap, pitch: float) -> Raster:
    """The map read at the centres of a regular grid of ``pitch`` mm, exact per point:
    each centre is labelled by the class of each shooter's regions that holds it (a
    scanline over the classes' edges, :mod:`arbitre.maps.scan`, not one test a point);
    where a Mordheim shooter's M8 is ruled point by point (``per_point``), by that rule
    at the centre itself (a grid of the map's own cell size has its centres at the
    cells', already ruled there). A map without regions (Dark Age's cells) is read from its faces
    (:func:`raster_from_faces`)."""
    xs, ys = _axes(m.table, pitch)
    if not m.regions:
        return raster_from_faces(m, pitch)
    shape = (len(ys), len(xs))
    seen = np.zeros(shape, dtype=np.int64)
    least = np.full(shape, np.iinfo(np.int64).max, dtype=np.int64)
    most = np.full(shape, -1, dtype=np.int64)
    for reg in m.regions:
        cover = scan.label_grid(reg.classes, xs, ys)
        if reg.cells is not None and reg.pitch == pitch:  # the cells' centres are the grid's
            cover[reg.cells.j, reg.cells.i] = reg.cells.value
        elif reg.cover_at is not None and not reg.per_point.is_empty:
            rows, cols = np.nonzero(scan.inside_grid(reg.per_point, xs, ys))
            if len(rows):
                cover[rows, cols] = reg.cover_at(xs[cols], ys[rows])
        hit = cover >= 0
        seen += hit
        least = np.where(hit, np.minimum(least, cover), least)
        most = np.maximum(most, cover)
    least[seen == 0] = -1
    return Raster(pitch, xs, ys, seen, least, most)


def raster_from_faces(m: SightMap, pitch: float) -> Raster:
    """The map read at the centres of a regular grid of ``pitch`` mm from its faces:
    each centre labelled by the face that holds it (a point in no face: seen by none)."""
    xs, ys = _axes(m.table, pitch)
    gx, gy = np.meshgrid(xs, ys)
    px, py = gx.ravel(), gy.ravel()
    seen = np.zeros(len(px), dtype=np.int64)
    least = np.full(len(px), -1, dtype=np.int64)
    most = np.full(len(px), -1, dtype=np.int64)
    for face in m.faces:
        if not face.seen_by:
            continue
        x0, y0, x1, y1 = face.shape.bounds
        box = (px >= x0) & (px <= x1) & (py >= y0) & (py <= y1)
        idx = np.flatnonzero(box)
        hit = idx[shapely.contains_xy(face.shape, px[idx], py[idx])]
        covers = [c for _, c in face.seen_by]
        seen[hit] = len(covers)
        least[hit] = min(covers)
        most[hit] = max(covers)
    shape = (len(ys), len(xs))
    return Raster(pitch, xs, ys, seen.reshape(shape), least.reshape(shape), most.reshape(shape))
