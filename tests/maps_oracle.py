"""The maps' oracle (issue 14, item 3): a sight map's label at a point against the
``los`` question asked with the model moved there, one point at a time.

A point is *checked* when it lies at least :data:`OFF` mm from every boundary of the
map's faces (the arcs' tolerance and the tests' own rounding live there), outside the
cells the map rules point by point (those are checked at their centres,
:func:`cell_labels`), and where the model's base would overlap no other base and no
blocking piece (no table has that, and no rule says what it means). The label of a
checked point is the face holding it; the ruling is every enemy's ``los`` against the
model centred there: the enemies that see it and the cover each gives.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import shapely

import arbitre
from arbitre import maps
from arbitre.geometry import Point
from arbitre.maps import regions
from arbitre.rules.mordheim import sight as mordheim_sight
from arbitre.rules.mordheim.margins import NO_SLACK
from arbitre.rules.ruling import LosRuling
from arbitre.table import Table
from arbitre.testing import random_table

#: Points this near (mm) a face's boundary are not asked: the arcs' tolerance lives there.
OFF = 0.5

Label = dict[str, int]


@dataclass(frozen=True, slots=True)
class Checked:
    """What one table's check did: the points asked, each disagreement found as
    ``(x, y, map's label, los's label)``, and how many of the points asked some enemy
    sees only through windows (M12)."""

    asked: int
    wrong: tuple[tuple[float, float, Label, Label], ...]
    window_only: int = 0


def overlaps(m: maps.SightMap, xy: np.ndarray) -> np.ndarray:
    """Whether the subject's base centred at each point would overlap another base or a
    blocking piece (a base of radius 0: stand inside it)."""
    px, py = xy[:, 0], xy[:, 1]
    out = np.zeros(len(xy), dtype=bool)
    for o in m.table.models:
        if o.id != m.model:
            out |= np.hypot(o.at.x - px, o.at.y - py) < o.base.radius + m.radius
    points = shapely.points(xy)
    for t in m.table.terrain:
        if t.blocks:
            shape = t.footprint.shape()
            if m.radius > 0:
                out |= shapely.distance(shape, points) < m.radius
            else:
                out |= shapely.intersects(shape, points)
    return out


def face_labels(m: maps.SightMap, xy: np.ndarray) -> list[Label | None]:
    """The label of the face holding each point; None within :data:`OFF` mm of a face's
    boundary or of the cells ruled point by point. Off those, the faces must hold each
    point exactly once (they partition the table)."""
    points = shapely.points(xy)
    edges = shapely.union_all([f.shape.boundary for f in m.faces])
    shapely.prepare(edges)
    near = shapely.dwithin(edges, points, OFF)
    if not m.per_point.is_empty:
        near |= shapely.dwithin(m.per_point, points, OFF)
    tree = shapely.STRtree([f.shape for f in m.faces])
    where, face = tree.query(points, predicate="within")
    held: list[list[int]] = [[] for _ in range(len(xy))]
    for i, k in zip(where.tolist(), face.tolist(), strict=True):
        held[i].append(k)
    out: list[Label | None] = []
    for i, ks in enumerate(held):
        if near[i]:
            out.append(None)
            continue
        assert len(ks) == 1, ("faces holding", xy[i].tolist(), ks)
        out.append(dict(m.faces[ks[0]].seen_by))
    return out


def cell_labels(m: maps.SightMap, xy: np.ndarray) -> list[Label | None]:
    """The label the map's shooters' regions give each point (cell centres in the part
    ruled point by point): per shooter, the class holding it; None within :data:`OFF`
    mm of a boundary of a shooter's exact classes."""
    points = shapely.points(xy)
    out: list[Label | None] = [{} for _ in range(len(xy))]
    for reg in m.regions:
        doubt = shapely.contains_xy(reg.per_point, xy[:, 0], xy[:, 1])
        for _, shape in reg.classes:
            exact = (
                shapely.difference(shape, reg.per_point) if not reg.per_point.is_empty else shape
            )
            close = shapely.dwithin(exact.boundary, points, OFF) & ~doubt
            for i in np.flatnonzero(close):
                out[i] = None
        for value, shape in reg.labelled:  # the cells' stepped shapes too
            inside = shapely.contains_xy(shape, xy[:, 0], xy[:, 1])
            for i in np.flatnonzero(inside):
                lab = out[i]
                if lab is not None:
                    lab[reg.shooter] = value
    return out


def rulings(
    table: Table, model: str, shooters: tuple[str, ...], rules: str, x: float, y: float
) -> tuple[LosRuling, ...]:
    """Each enemy's ``los`` against ``model`` moved to ``(x, y)``."""
    moved = table.moved(model, Point(x, y))
    pairs = tuple((a, model) for a in shooters)
    return arbitre.ask(moved, "los", rules=rules, pairs=pairs).rulings


def label_of(found: tuple[LosRuling, ...]) -> Label:
    """Who sees the model, with what cover."""
    return {r.shooter: int(r.cover) for r in found if r.visible}


def asked(
    table: Table, model: str, shooters: tuple[str, ...], rules: str, x: float, y: float
) -> Label:
    """Each enemy's ``los`` against ``model`` moved to ``(x, y)``: who sees it, with what
    cover."""
    return label_of(rulings(table, model, shooters, rules, x, y))


#: M12 as ``los`` rules it: a target seen only through a window is in cover, however
#: much of its base shows through it. The maps draw that cover; the points so ruled are
#: checked like any other, and counted (``Checked.window_only``).
WINDOW_ONLY = (
    "{shooter} sees {target} only through a window of {walls}: a window is an opening "
    "(option windows: open), and a target seen only through a window is in cover"
)


def window_only(r: LosRuling) -> bool:
    """Whether ``los`` gave this pair its cover for being seen only through a window."""
    return any(
        reason.rule == "M12" and getattr(reason.message, "msgid", None) == WINDOW_ONLY
        for reason in r.reasons
    )


def _no_margins(*args: object, **kwargs: object) -> list[tuple[object, object]]:
    """Mordheim's G8 slacks, not measured (every pair NO_SLACK)."""
    pairs = args[2]
    assert isinstance(pairs, (list, tuple))
    return [(NO_SLACK, NO_SLACK)] * len(pairs)


@contextlib.contextmanager
def margins_off(rules: str) -> Iterator[None]:
    """Mordheim's ``los`` without its G8 margins, which are two thirds of its time and
    no part of its decisions (``visible`` and ``cover`` are read from the S2 shares;
    no option turns the margins off, so the measure is stubbed here). Frostgrave's
    margins cost little: its ``los`` runs whole."""
    if rules != "mordheim":
        yield
        return
    original = mordheim_sight._margins
    mordheim_sight._margins = _no_margins  # type: ignore[assignment]
    try:
        yield
    finally:
        mordheim_sight._margins = original


def check(
    m: maps.SightMap, xy: np.ndarray, *, whole_every: int = 0, cells: bool = False
) -> Checked:
    """Ask every checkable point of ``xy`` (see the module): the map's label against
    ``los``. ``whole_every``: every that many asked points, ``los`` is also asked with
    its margins on, and must rule the same. ``cells``: the points are cell centres of
    the part ruled point by point (labels from the shooters' regions)."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    xy = xy[~overlaps(m, xy)] if len(xy) else xy
    if not len(xy):
        return Checked(0, ())
    labels = cell_labels(m, xy) if cells else face_labels(m, xy)
    wrong = []
    n = excused = 0
    for (x, y), label in zip(xy.tolist(), labels, strict=True):
        if label is None:
            continue
        with margins_off(m.rules):
            found = rulings(m.table, m.model, m.shooters, m.rules, x, y)
        got = label_of(found)
        if whole_every and n % whole_every == 0:
            assert asked(m.table, m.model, m.shooters, m.rules, x, y) == got, (x, y)
        n += 1
        if any(window_only(r) for r in found):  # M12's cover beyond M8: counted too
            excused += 1
        if got != label:
            wrong.append((x, y, label, got))
    return Checked(n, tuple(wrong), excused)


def uniform(m: maps.SightMap, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` points drawn uniformly over the table."""
    return np.column_stack([rng.uniform(0.0, m.table.width, n), rng.uniform(0.0, m.table.depth, n)])


def near_edges(
    m: maps.SightMap, rng: np.random.Generator, n: int, width: float = 3.0
) -> np.ndarray:
    """``n`` points from :data:`OFF` to ``width`` mm away from the faces' boundaries, on
    either side (a point drawn uniformly along the boundaries, moved that far in a random
    direction): where a region drawn a little wrong gives a wrong label."""
    edges = shapely.line_merge(shapely.union_all([f.shape.boundary for f in m.faces]))
    lines = shapely.get_parts(edges)
    lengths = shapely.length(lines)
    if not len(lines) or lengths.sum() <= 0:
        return np.zeros((0, 2))
    pick = rng.choice(len(lines), size=n, p=lengths / lengths.sum())
    along = shapely.line_interpolate_point(lines[pick], rng.uniform(0.0, 1.0, n), normalized=True)
    at = shapely.get_coordinates(along)
    turn = rng.uniform(0.0, 2 * np.pi, n)
    away = rng.uniform(OFF, width, n)
    xy = at + np.column_stack([away * np.cos(turn), away * np.sin(turn)])
    inside = (
        (xy[:, 0] > 0) & (xy[:, 0] < m.table.width) & (xy[:, 1] > 0) & (xy[:, 1] < m.table.depth)
    )
    return xy[inside]


def grown_into(m: maps.SightMap, a: int, b: int, by: float) -> maps.SightMap:
    """The map with face ``a`` grown by ``by`` mm into its neighbour ``b`` (the faces
    still partition the table): a region drawn a little wrong, to see the oracle fail."""
    faces = list(m.faces)
    grown = shapely.intersection(faces[b].shape, faces[a].shape.buffer(by))
    faces[a] = dataclasses.replace(faces[a], shape=shapely.union(faces[a].shape, grown))
    faces[b] = dataclasses.replace(faces[b], shape=shapely.difference(faces[b].shape, grown))
    return dataclasses.replace(m, faces=tuple(faces))


def oracle_table(seed: int) -> Table:
    """Seeded random table ``seed``: 3 to 8 models, 3 to 11 pieces (walls with windows
    among them), 250 to 450 mm a side, every fourth table degenerate (lines through
    corners, along edges, tangent bases, bases in cover), the beam mostly 1 mm but
    sometimes 0 or 2."""
    rng = np.random.default_rng(10_000 + seed)
    return random_table(
        seed,
        models=int(rng.integers(3, 9)),
        terrain=int(rng.integers(3, 12)),
        width=float(rng.uniform(250.0, 450.0)),
        depth=float(rng.uniform(250.0, 450.0)),
        degenerate=seed % 4 == 0,
        beam=float(rng.choice([1.0, 1.0, 1.0, 1.0, 0.0, 2.0])),
    )


def oracle_map(seed: int, rules: str, **options: object) -> maps.SightMap:
    """The map of :func:`oracle_table` ``seed``: of model ``m0``, or every tenth table
    of a side's 40 mm base."""
    table = oracle_table(seed)
    if seed % 10 == 9:
        return maps.sight_map(table, side="blue", base=40.0, rules=rules, options=options)
    return maps.sight_map(table, model="m0", rules=rules, options=options)


def same_regions(a: regions.ShooterRegions, b: regions.ShooterRegions) -> None:
    """Two tracings of one shooter's regions are the same bit for bit: its classes, the
    region seen, the cells' region and the cells with their rulings."""
    assert a.shooter == b.shooter
    assert len(a.classes) == len(b.classes)
    for (v, g), (w, h) in zip(a.classes, b.classes, strict=True):
        assert v == w and shapely.equals_exact(g, h, tolerance=0.0)
    assert shapely.equals_exact(a.seen, b.seen, tolerance=0.0)
    assert shapely.equals_exact(a.per_point, b.per_point, tolerance=0.0)
    assert (a.cells is None) == (b.cells is None)
    if a.cells is not None and b.cells is not None:
        assert np.array_equal(a.cells.i, b.cells.i)
        assert np.array_equal(a.cells.j, b.cells.j)
        assert np.array_equal(a.cells.value, b.cells.value)
