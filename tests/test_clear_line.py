"""S3, any clear line between two bases (D3), against brute-force oracles."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from g4_oracle import bf_between, bf_bridges
from shapely.geometry.base import BaseGeometry

from arbitre import sight
from arbitre.geometry import CircleFootprint, Disc, Point, PolygonFootprint, rect_points
from arbitre.table import Model, Table, Terrain
from arbitre.testing import random_table

BAND = 1e-6


def _shapes(
    table: Table, skip: set[str]
) -> list[tuple[str, BaseGeometry | None, tuple[float, float, float] | None]]:
    out = []
    for t in table.terrain:
        fp = t.footprint
        circle = (fp.centre.x, fp.centre.y, fp.radius) if isinstance(fp, CircleFootprint) else None
        out.append((t.id, fp.shape(), circle))
    for m in table.models:
        if m.id not in skip:
            out.append((m.id, None, (m.at.x, m.at.y, m.base.radius)))
    return out


def bf_segment_clear(
    seg: shapely.LineString, shapes, half: float, margin: float, bridges=()
) -> bool:
    """Clear by at least ``margin`` beyond the beam (margin < 0 tolerates a hair), and
    passing between no two touching blockers (G4, ``bridges``)."""
    for _, _, bridge in bridges:
        if bf_between(seg, bridge, half) is True:
            return False
    for _, shape, circle in shapes:
        if circle is not None:
            d = seg.distance(shapely.Point(circle[0], circle[1])) - circle[2]
        else:
            d = seg.distance(shape)
            if half == 0 and d == 0 and margin < 0:
                if seg.intersects(shape.buffer(-BAND)):
                    return False
                continue
        if d < half + margin:
            return False
    return True


def bf_any_clear(table: Table, a: Model, b: Model, n: int = 48) -> tuple[Point, Point] | None:
    """Dense sampling of segments between the two rims (and centres). Each blocker is
    measured against the segments still clear only (the same answer as measuring all)."""
    shapes = _shapes(table, {a.id, b.id})
    ang = np.linspace(0, 2 * math.pi, n, endpoint=False)
    pa = [(a.at.x + a.base.radius * math.cos(t), a.at.y + a.base.radius * math.sin(t)) for t in ang]
    pb = [(b.at.x + b.base.radius * math.cos(t), b.at.y + b.base.radius * math.sin(t)) for t in ang]
    pa.append((a.at.x, a.at.y))
    pb.append((b.at.x, b.at.y))
    ends_a, ends_b = np.array(pa), np.array(pb)
    coords = np.empty((len(pa) * len(pb), 2, 2))  # segment i * len(pb) + j: pa[i] to pb[j]
    coords[:, 0] = np.repeat(ends_a, len(pb), axis=0)
    coords[:, 1] = np.tile(ends_b, (len(pa), 1))
    segs = shapely.linestrings(coords)
    ok = np.ones(len(segs), dtype=bool)
    half = table.beam / 2

    # G4 bridges (not between touching ones), then every blocker, each with its radius
    bridges = bf_bridges(table, every=True, skip=frozenset({a.id, b.id}))
    blockers = [bridge for _, _, bridge in bridges]
    radii = [0.0] * len(blockers)
    for _, shape, circle in shapes:
        blockers.append(shape if circle is None else shapely.Point(circle[0], circle[1]))
        radii.append(0.0 if circle is None else circle[2])
    # Every segment lies in the hull of the two rims: a blocker farther than the beam from
    # that hull (grown past the polygon's inscribed arcs) removes none, and the order the
    # others are measured in changes nothing (a segment is kept if no blocker is too near),
    # so the nearest to the centre line go first and leave the fewest segments to measure.
    grow = [1.0 + 0.01 * m.base.radius for m in (a, b)]
    hull = shapely.convex_hull(
        shapely.union(
            shapely.Point(a.at.x, a.at.y).buffer(a.base.radius + grow[0]),
            shapely.Point(b.at.x, b.at.y).buffer(b.base.radius + grow[1]),
        )
    )
    geoms, rad = np.array(blockers, dtype=object), np.array(radii)
    near = shapely.distance(hull, geoms) - rad <= half + 1e-4
    centre = shapely.LineString([(a.at.x, a.at.y), (b.at.x, b.at.y)])
    order = np.flatnonzero(near)
    order = order[np.argsort(shapely.distance(centre, geoms[order]) - rad[order], kind="stable")]
    for k in order.tolist():
        alive = np.flatnonzero(ok)
        if not len(alive):
            break
        ok[alive] = shapely.distance(segs[alive], geoms[k]) - rad[k] > half + 1e-4
    if not ok.any():
        return None
    c = shapely.get_coordinates(segs[int(np.argmax(ok))])
    return Point(*c[0]), Point(*c[1])


def bf_any_clear_all(table: Table, a: Model, b: Model, n: int = 48) -> tuple[Point, Point] | None:
    """The former form of :func:`bf_any_clear` (every segment against every blocker), kept
    to check the pruned one against."""
    shapes = _shapes(table, {a.id, b.id})
    ang = np.linspace(0, 2 * math.pi, n, endpoint=False)
    pa = [(a.at.x + a.base.radius * math.cos(t), a.at.y + a.base.radius * math.sin(t)) for t in ang]
    pb = [(b.at.x + b.base.radius * math.cos(t), b.at.y + b.base.radius * math.sin(t)) for t in ang]
    pa.append((a.at.x, a.at.y))
    pb.append((b.at.x, b.at.y))
    segs = shapely.linestrings([[p, q] for p in pa for q in pb])
    ok = np.ones(len(segs), dtype=bool)
    half = table.beam / 2
    for _, _, bridge in bf_bridges(table, every=True, skip=frozenset({a.id, b.id})):
        ok &= shapely.distance(segs, bridge) > half + 1e-4
    for _, shape, circle in shapes:
        if circle is not None:
            d = shapely.distance(segs, shapely.Point(circle[0], circle[1])) - circle[2]
        else:
            d = shapely.distance(segs, shape)
        ok &= d > half + 1e-4
    if not ok.any():
        return None
    c = shapely.get_coordinates(segs[int(np.argmax(ok))])
    return Point(*c[0]), Point(*c[1])


@pytest.mark.parametrize(
    ("seeds", "beams"),
    [
        pytest.param(range(4), (1.0,), id="4"),
        pytest.param(range(4, 16), (1.0, 0.0), id="12x2", marks=pytest.mark.slow),
    ],
)
def test_the_pruned_sampling_is_the_full_one(seeds: range, beams: tuple[float, ...]) -> None:
    """The oracle's pruning (blockers far from the two bases skipped, the others nearest
    first, each against the segments still clear) changes nothing: the same witness (or
    none) on seeded tables, degenerate ones (touching, overlapping bases) among them."""
    seen = set()
    for seed, beam in ((s, b) for s in seeds for b in beams):
        table = random_table(
            seed, models=5, terrain=7, degenerate=seed % 2 == 0, beam=beam, width=450.0
        )
        with_base = [m for m in table.models if m.base.radius > 0]
        for a in with_base:
            for b in with_base:
                if a.id != b.id:
                    got = bf_any_clear(table, a, b)
                    assert got == bf_any_clear_all(table, a, b)
                    seen.add(got is None)
    assert seen == {True, False}


def check_against_sampling(table: Table, pairs: list[tuple[str, str]]) -> tuple[int, int]:
    """S3 on ``pairs`` against dense sampling: (a) sampling never finds a clear segment S3
    misses, (b) every witness is a real clear segment. Returns (clear, blocked and
    sampling agrees) counts."""
    found = missed = 0
    for line in sight.clear_lines(table, pairs):
        a, b = table.model(line.observer), table.model(line.target)
        sampled = bf_any_clear(table, a, b)
        if sampled is not None:  # (a) sampling never beats S3
            assert line.clear, (line.observer, line.target, sampled)
        if line.clear:  # (b) every witness is a real clear segment between the bases
            assert line.witness is not None
            p, q = line.witness
            assert p.distance(a.at) <= a.base.radius + 1e-6
            assert q.distance(b.at) <= b.base.radius + 1e-6
            seg = shapely.LineString([(p.x, p.y), (q.x, q.y)])
            shapes = _shapes(table, {a.id, b.id})
            bridges = bf_bridges(table, every=True, skip=frozenset({a.id, b.id}))
            assert bf_segment_clear(seg, shapes, table.beam / 2, -1e-6, bridges), line
            found += 1
        else:
            assert line.blockers
            missed += sampled is None
    return found, missed


@pytest.mark.parametrize("beam", [1.0, 0.0])
@pytest.mark.parametrize(
    "tables", [pytest.param(16, id="16"), pytest.param(200, id="200", marks=pytest.mark.slow)]
)
def test_s3_against_dense_sampling_on_random_tables(beam: float, tables: int) -> None:
    """16 tables in the everyday run (half of them degenerate: touching, overlapping,
    pressed to windows), all 200 under the ``slow`` marker (``.ci/run`` runs both)."""
    found = missed = 0
    for seed in range(tables):
        table = random_table(
            seed, models=9, terrain=7, degenerate=seed % 2 == 0, beam=beam, width=450.0
        )
        with_base = [m for m in table.models if m.base.radius > 0]
        pairs = [(a.id, b.id) for a in with_base for b in with_base if a.id != b.id][:24]
        f, m = check_against_sampling(table, pairs)
        found, missed = found + f, missed + m
    assert found > 5 * tables and missed > 1.5 * tables


def _star(rng: np.random.Generator, at: Point, size: float, corners: int) -> PolygonFootprint:
    """A jagged star-shaped polygon of many corners: most of them far from any window."""
    angles = np.sort(rng.uniform(0, 2 * math.pi, corners))
    radii = rng.uniform(0.6, 1.0, corners) * size
    return PolygonFootprint(
        tuple(
            Point(at.x + r * math.cos(t), at.y + r * math.sin(t))
            for t, r in zip(angles, radii, strict=True)
        )
    )


@pytest.mark.parametrize("beam", [1.0, 0.0])
@pytest.mark.parametrize(
    "stars", [pytest.param(3, id="3"), pytest.param(8, id="8", marks=pytest.mark.slow)]
)
def test_s3_against_dense_sampling_around_polygons_of_many_corners(beam: float, stars: int) -> None:
    """Only the corners near a window pin its lines (kernels.any_clear): the rest left
    out, S3 still finds every clear line that sampling finds (3 stars every day, 8 under
    the ``slow`` marker)."""
    found = missed = 0
    for seed in range(stars):
        rng = np.random.default_rng(seed)
        star = _star(
            rng, Point(500, 500), float(rng.uniform(120, 220)), int(rng.integers(150, 400))
        )
        ring = rng.uniform(0, 2 * math.pi, 7)
        models = tuple(
            Model(f"m{i}", "r", Point(500 + 300 * math.cos(t), 500 + 300 * math.sin(t)))
            for i, t in enumerate(ring)
        )
        table = Table(1000, 1000, terrain=(Terrain("star", star),), models=models, beam=beam)
        pairs = [(a.id, b.id) for a in models for b in models if a.id != b.id]
        f, m = check_against_sampling(table, pairs)
        found, missed = found + f, missed + m
    assert found > 6 * stars and missed > 6 * stars


def _gap_table(gap: float, beam: float, *, grazing: bool = False) -> Table:
    """Bases a and b face each other across a wall of two blocks with a gap between."""
    top = Terrain("top", PolygonFootprint(rect_points(Point(500, 500 + gap / 2 + 100), 20, 200, 0)))
    low = Terrain("low", PolygonFootprint(rect_points(Point(500, 500 - gap / 2 - 100), 20, 200, 0)))
    return Table(
        width=1000,
        depth=1000,
        terrain=(top, low),
        beam=beam,
        options=(("grazing_blocks", grazing),),
        models=(Model("a", "r", Point(100, 500)), Model("b", "b", Point(900, 500))),
    )


@pytest.mark.parametrize(
    ("gap", "beam", "grazing", "clear"),
    [
        (1.0 - 1e-4, 1.0, False, False),  # just narrower than the beam
        (1.0 + 1e-4, 1.0, False, True),  # just wider
        (1.0, 1.0, False, True),  # exactly the beam: it grazes both blocks (G5)
        (1.0, 1.0, True, False),  # ... which blocks with grazing_blocks
        (0.0, 1.0, False, False),  # blocks in contact are a wall
        (0.0, 0.0, False, False),  # G4: ... even for a mathematical line along the seam
        (0.0, 0.0, True, False),
        (1e-3, 0.0, False, False),  # G4: a gap within the contact tolerance is closed
        (0.3, 0.0, False, False),
        (0.5, 0.0, False, False),  # exactly the tolerance: still in contact
        (0.6, 0.0, False, True),  # beyond it a line threads the gap
        (0.3, 1.0, False, False),
        (0.5, 1.0, False, False),
        (0.6, 1.0, False, False),  # narrower than the beam (G5)
    ],
)
def test_s3_gap_exactly_at_the_beam_width(
    gap: float, beam: float, grazing: bool, clear: bool
) -> None:
    """G5 at the beam's edge, G4 within the contact tolerance: «les figurines et les
    éléments terrain de la même taille ou de plus grande taille que la cible bloquent»,
    and blocks that touch are one."""
    (line,) = sight.clear_lines(_gap_table(gap, beam, grazing=grazing), [("a", "b")])
    assert line.clear is clear, line
    if clear:
        p, q = line.witness  # type: ignore[misc]
        # the witness threads the gap: it crosses the wall inside it
        for x in (490.0, 500.0, 510.0):
            y = p.y + (x - p.x) / (q.x - p.x) * (q.y - p.y)
            assert abs(y - 500) <= gap / 2 - beam / 2 + 1e-6
    else:
        assert set(line.blockers) == {"top", "low"}


def test_s3_sees_past_a_base_the_centre_line_crosses() -> None:
    t = Table(
        width=1000,
        depth=1000,
        models=(
            Model("a", "r", Point(100, 500)),
            Model("b", "b", Point(900, 500)),
            Model("c", "g", Point(500, 505)),
        ),
    )
    (line,) = sight.clear_lines(t, [("a", "b")])
    assert line.clear and line.witness is not None
    (centre,) = sight.centre_lines(t, [("a", "b")])
    assert [c.piece for c in centre.crossings] == ["c"]


def test_s3_ranks_decide_who_blocks() -> None:
    t = Table(
        width=1000,
        depth=1000,
        models=(
            Model("a", "r", Point(100, 500)),
            Model("b", "b", Point(900, 500)),
            Model("wall", "g", Point(500, 500), Disc(200)),
        ),
    )
    ix = sight.sight_index(t)
    ranks = np.array([0, 0, 2])
    (blocked,) = sight.clear_lines(
        t, [("a", "b")], piece_rank=ranks, min_rank=np.array([1]), index=ix
    )
    (free,) = sight.clear_lines(t, [("a", "b")], piece_rank=ranks, min_rank=np.array([3]), index=ix)
    assert not blocked.clear and blocked.blockers == ("wall",)
    assert free.clear
