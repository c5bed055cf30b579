"""S1 and S2 against brute-force shapely oracles on seeded random tables (G4, G5, S1, S2).

The oracles count G4 too: a line passing between two touching blockers (the bridges of
:mod:`g4_oracle`, computed by plain shapely) crosses them both."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest
import shapely
from g4_oracle import bf_between, bf_bridges
from shapely.geometry.base import BaseGeometry

from arbitre import sight
from arbitre.geometry import CircleFootprint, Disc, Point, PolygonFootprint, rect_points
from arbitre.table import Model, Table, Terrain
from arbitre.testing import random_table

BAND = 1e-6  # oracle and kernel may disagree only this close to a boundary


def piece_shapes(
    table: Table,
) -> tuple[list[str], list[BaseGeometry], list[tuple[float, float, float] | None]]:
    """Every piece as an id, a shapely shape, and for discs their exact circle."""
    ids, shapes, circles = [], [], []
    for t in table.terrain:
        ids.append(t.id)
        shapes.append(t.footprint.shape())
        fp = t.footprint
        circles.append(
            (fp.centre.x, fp.centre.y, fp.radius) if isinstance(fp, CircleFootprint) else None
        )
    for m in table.models:
        ids.append(m.id)
        shapes.append(shapely.Point(m.at.x, m.at.y).buffer(max(m.base.radius, 1e-9), 64))
        circles.append((m.at.x, m.at.y, m.base.radius))
    return ids, shapes, circles


def bf_crosses(
    line: shapely.LineString,
    shape: BaseGeometry,
    circle: tuple[float, float, float] | None,
    half: float,
) -> bool | None:
    """Brute force G5: True, False, or None inside the ambiguous band."""
    if circle is not None:
        d = line.distance(shapely.Point(circle[0], circle[1])) - circle[2]
    else:
        d = line.distance(shape)
        if half == 0 and d == 0:
            inner = shape.buffer(-BAND)
            if line.intersects(inner):
                return True
            return False if not line.relate_pattern(shape, "T********") else None
    if d < half - BAND:
        return True
    if d > half + BAND:
        return False
    return None


@pytest.mark.parametrize("beam", [1.0, 0.0])
@pytest.mark.parametrize(
    "tables", [pytest.param(50, id="50"), pytest.param(200, id="200", marks=pytest.mark.slow)]
)
def test_s1_centre_lines_match_shapely_on_random_tables(beam: float, tables: int) -> None:
    """50 tables in the everyday run, all 200 under the ``slow`` marker."""
    ambiguous = checked = 0
    for seed in range(tables):
        table = random_table(
            seed, models=12, terrain=8, degenerate=seed % 2 == 0, beam=beam, width=500.0
        )
        half = beam / 2
        ids, shapes, circles = piece_shapes(table)
        bridges = bf_bridges(table)
        pairs = [(a.id, b.id) for a in table.models for b in table.models if a.id != b.id]
        for line_ruling in sight.centre_lines(table, pairs):
            a = table.model(line_ruling.shooter).at
            b = table.model(line_ruling.target).at
            line = shapely.LineString([(a.x, a.y), (b.x, b.y)])
            got = [c.piece for c in line_ruling.crossings]
            ends = (line_ruling.shooter, line_ruling.target)
            between: dict[str, bool | None] = {}  # G4: passes between pid and a touching one
            for x, y, bridge in bridges:
                if x in ends or y in ends:
                    continue
                verdict = bf_between(line, bridge, half)
                for pid in (x, y):
                    if verdict or between.get(pid) is True:
                        between[pid] = True
                    elif verdict is None or between.get(pid, False) is None:
                        between[pid] = None
                    else:
                        between[pid] = False
            for pid, shape, circle in zip(ids, shapes, circles, strict=True):
                if pid in ends:
                    assert pid not in got
                    continue
                want = bf_crosses(line, shape, circle, half)
                via = between.get(pid, False)
                if want is not True and via is not False:
                    want = via if want is False else (True if via else None)
                if want is None:
                    ambiguous += 1
                    continue
                checked += 1
                assert (pid in got) == want, (seed, line_ruling.shooter, line_ruling.target, pid)
            # ordered along the line by where each piece is first met
            firsts = []
            for c in line_ruling.crossings:
                shape = shapes[ids.index(c.piece)]
                inter = line.intersection(shape.buffer(max(half, 1e-9), 64))
                coords = shapely.get_coordinates(inter)
                firsts.append(
                    min(line.project(shapely.Point(p)) for p in coords) / max(line.length, 1e-12)
                    if len(coords)
                    else c.t
                )
            for i in range(1, len(firsts)):
                assert firsts[i - 1] <= firsts[i] + 2e-3, (seed, line_ruling.crossings)
    assert checked > 500 * tables
    assert ambiguous < checked / 1000


def bf_visible_fraction(
    table: Table, shooter: str, target: str, rays: int = 1500, prune: bool = True
) -> tuple[float, int]:
    """Dense sampling: the share of rays across the target's base reaching it clear,
    and how many times the answer changed between neighbouring rays. With ``prune``, the
    pieces (and G4 bridges) farther than the beam from the hull of the shooter's centre
    and the target's base, which every ray lies in, are not measured: they block none
    (the same answer, tested against ``prune=False``)."""
    s, t = table.model(shooter), table.model(target)
    half = table.beam / 2
    c = np.array([s.at.x, s.at.y])
    v = np.array([t.at.x, t.at.y]) - c
    d = float(np.hypot(*v))
    phi = math.atan2(v[1], v[0])
    alpha = math.asin(t.base.radius / d)
    psi = -alpha + (np.arange(rays) + 0.5) * (2 * alpha / rays)
    s_near = d * np.cos(psi) - np.sqrt(np.maximum(0.0, t.base.radius**2 - (d * np.sin(psi)) ** 2))
    ends = c + s_near[:, None] * np.stack([np.cos(phi + psi), np.sin(phi + psi)], axis=1)
    lines = shapely.linestrings(np.stack([np.broadcast_to(c, ends.shape), ends], axis=1))
    blocked = np.zeros(rays, dtype=bool)
    # the rays' hull, grown past the polygonal arcs of the target's base
    reach = shapely.convex_hull(
        shapely.union(
            shapely.Point(*c).buffer(1.0),
            shapely.Point(t.at.x, t.at.y).buffer(t.base.radius * 1.01 + 1.0),
        )
    )

    def far(geom: BaseGeometry, radius: float = 0.0) -> bool:
        return prune and float(shapely.distance(reach, geom)) - radius > half + 1e-6

    for _, _, bridge in bf_bridges(table, skip=frozenset({shooter, target})):
        if far(bridge):
            continue
        # G4: a ray passing between two touching blockers is hidden
        if half > 0:
            blocked |= shapely.distance(lines, bridge) < half
        else:
            blocked |= shapely.distance(lines, bridge) <= 1e-9
    ids, shapes, circles = piece_shapes(table)
    for pid, shape, circle in zip(ids, shapes, circles, strict=True):
        if pid in (shooter, target):
            continue
        if pid in table and pid not in {m.id for m in table.models} and not table.piece(pid).blocks:
            continue
        if far(*((shape,) if circle is None else (shapely.Point(*circle[:2]), circle[2]))):
            continue
        if circle is not None:
            dist = shapely.distance(lines, shapely.Point(circle[0], circle[1])) - circle[2]
        else:
            dist = shapely.distance(lines, shape)
        blocked |= dist < half if half > 0 else shapely.intersects(lines, shape.buffer(-BAND))
    changes = int(np.count_nonzero(blocked[1:] != blocked[:-1]))
    return float(np.mean(~blocked)), changes


@pytest.mark.parametrize("beam", [1.0, 0.0])
def test_the_pruned_ray_sampling_is_the_full_one(beam: float) -> None:
    """Skipping the pieces far from the rays changes neither the share nor the changes."""
    rng = np.random.default_rng(11)
    compared = skipped = 0
    for seed in range(6):
        table = random_table(
            seed, models=14, terrain=8, degenerate=seed % 3 == 0, beam=beam, width=450.0
        )
        with_base = [m for m in table.models if m.base.radius > 0]
        for _ in range(4):
            s, t = rng.choice(len(with_base), 2, replace=False)
            a, b = with_base[s], with_base[t]
            if a.at.distance(b.at) <= a.base.radius + b.base.radius:
                continue
            full = bf_visible_fraction(table, a.id, b.id, rays=300, prune=False)
            assert bf_visible_fraction(table, a.id, b.id, rays=300) == full, (seed, a.id, b.id)
            compared += 1
            skipped += full[0] < 1.0
    assert compared > 15 and 0 < skipped < compared  # hidden and clear pairs both


@pytest.mark.parametrize(
    "tables", [pytest.param(80, id="80"), pytest.param(200, id="200", marks=pytest.mark.slow)]
)
def test_s2_visible_fraction_matches_dense_sampling(tables: int) -> None:
    """80 tables in the everyday run, all 200 under the ``slow`` marker."""
    rng = np.random.default_rng(7)
    compared = 0
    for seed in range(tables):
        table = random_table(seed, models=14, terrain=8, degenerate=seed % 3 == 0, width=450.0)
        with_base = [m for m in table.models if m.base.radius > 0]
        for _ in range(3):
            s, t = rng.choice(len(with_base), 2, replace=False)
            a, b = with_base[s], with_base[t]
            if a.at.distance(b.at) <= a.base.radius + b.base.radius:
                continue
            exact = sight.visible_fraction(table, a.id, b.id)
            sampled, changes = bf_visible_fraction(table, a.id, b.id)
            assert abs(exact - sampled) <= (changes + 2) / 1500, (seed, a.id, b.id, exact, sampled)
            compared += 1
    assert compared > 2 * tables


def _row(*models: Model, terrain: tuple[Terrain, ...] = (), beam: float = 1.0) -> Table:
    return Table(width=1000, depth=1000, models=models, terrain=terrain, beam=beam)


def test_s2_half_hidden_target_is_exactly_half() -> None:
    # a blocker whose edge lies exactly on the centre line hides exactly half the target
    wall = Terrain("w", PolygonFootprint(rect_points(Point(500, 480), 40, 40, 0)))
    t = _row(
        Model("a", "r", Point(100, 500)),
        Model("b", "b", Point(900, 500)),
        terrain=(wall,),
        beam=0.0,
    )
    assert sight.visible_fraction(t, "a", "b") == pytest.approx(0.5, abs=1e-9)


@pytest.mark.parametrize(
    ("gap", "beam", "blocked"),
    [
        (0.0, 1.0, True),  # G5: bases in contact are a wall
        (0.9, 1.0, True),  # a gap narrower than the beam
        (1.1, 1.0, False),  # a gap wider than the beam
        (0.0, 0.0, True),  # G4: touching bases are one obstacle, even for a line
        (0.3, 0.0, True),  # G4: a gap within the contact tolerance (0.5 mm) is closed
        (0.5, 0.0, True),  # G4: exactly the tolerance still touches
        (0.6, 0.0, False),  # beyond the tolerance a mathematical line passes
        (0.3, 1.0, True),
        (0.5, 1.0, True),
        (0.6, 1.0, True),  # narrower than the beam (G5)
    ],
)
def test_s1_line_between_two_bases(gap: float, beam: float, blocked: bool) -> None:
    """G4: «trois figurines rouges ... qui obstruent la ligne de vue»: bases in contact
    (gap up to the tolerance) close the gap between them whatever the beam; each is
    listed, joined with the other."""
    r = 12.5
    t = _row(
        Model("a", "r", Point(100, 500)),
        Model("b", "b", Point(900, 500)),
        Model("u", "g", Point(500, 500 + r + gap / 2)),
        Model("d", "g", Point(500, 500 - r - gap / 2)),
        beam=beam,
    )
    (line,) = sight.centre_lines(t, [("a", "b")])
    assert bool(line.crossings) is blocked
    assert {c.piece for c in line.crossings} == ({"u", "d"} if blocked else set())
    if blocked and beam == 0:
        assert {(c.piece, c.joined) for c in line.crossings} == {("u", "d"), ("d", "u")}
    # S2 and S3 agree: the target behind the pair is hidden, no clear line passes
    share = sight.visible_fraction(t, "a", "b")
    (clear,) = sight.clear_lines(t, [("a", "b")])
    assert (share == 0.0) is blocked
    if beam == 0:
        assert clear.clear is not blocked
        if blocked:
            assert set(clear.blockers) == {"u", "d"} and clear.joined == (("u", "d"),)
    stop, _ = sight.all_pairs(t, stops=sight.sight_index(t).blocks, weights=np.zeros((4, 4)))
    assert bool(stop[0, 1] >= 0) is blocked


@pytest.mark.parametrize(
    ("beam", "grazing", "expected"),
    [
        (0.0, False, False),
        (0.0, True, True),
        (1.0, False, True),
    ],
)
def test_s1_line_along_an_edge(beam: float, grazing: bool, expected: bool) -> None:
    box = Terrain("box", PolygonFootprint(rect_points(Point(500, 550), 100, 100, 0)))
    t = Table(
        width=1000,
        depth=1000,
        terrain=(box,),
        beam=beam,
        models=(
            Model("a", "r", Point(100, 500), Disc(0)),
            Model("b", "b", Point(900, 500), Disc(0)),
        ),
        options=(("grazing_blocks", grazing),),
    )
    (line,) = sight.centre_lines(t, [("a", "b")])
    assert bool(line.crossings) is expected


def test_s1_crossings_in_order_and_own_bases_ignored() -> None:
    pieces = tuple(
        Terrain(
            f"h{i}",
            PolygonFootprint(rect_points(Point(200 + 150 * i, 500), 20, 60, 0)),
            sight="cover",
            size="small",
        )
        for i in range(4)
    )
    t = _row(
        Model("a", "r", Point(100, 500)),
        Model("b", "b", Point(900, 500)),
        Model("c", "b", Point(600, 500)),
        terrain=pieces[::-1],
    )
    (line,) = sight.centre_lines(t, [("a", "b")])
    assert [c.piece for c in line.crossings] == ["h0", "h1", "h2", "c", "h3"]
    (back,) = sight.centre_lines(t, [("b", "a")])
    assert [c.piece for c in back.crossings] == ["h3", "c", "h2", "h1", "h0"]


def test_s1_batch_early_exit_agrees_with_full_lists() -> None:
    table = random_table(3, models=60, terrain=20)
    n = len(table.models)
    s, g = np.divmod(np.arange(n * n), n)
    keep = s != g
    s, g = s[keep], g[keep]
    full = sight.centre_line_batch(table, s, g)
    fast = sight.centre_line_batch(table, s, g, early_exit=True)
    blocked_full = full.first_stop >= 0
    assert np.array_equal(blocked_full, fast.first_stop >= 0)
    assert blocked_full.any() and not blocked_full.all()


@pytest.mark.parametrize("seed", range(20))
def test_g4_touching_matches_shapely_and_restricts_to_the_rows_asked(seed: int) -> None:
    table = random_table(seed, models=14, terrain=10, degenerate=seed % 2 == 1, width=400.0)
    full = sight.touching(table)
    assert full.shape == (len(table.models), len(table.terrain))
    tol = table.contact_tolerance
    for i, m in enumerate(table.models):
        centre = shapely.Point(m.at.x, m.at.y)
        for k, t in enumerate(table.terrain):
            fp = t.footprint
            if isinstance(fp, CircleFootprint):  # exact, not the polygon of its shape
                gap = math.hypot(m.at.x - fp.centre.x, m.at.y - fp.centre.y) - fp.radius
            else:
                shape = fp.shape()
                gap = -1.0 if shape.contains(centre) else shapely.distance(centre, shape)
            gap -= m.base.radius
            if abs(gap - tol) > BAND:
                assert bool(full[i, k]) is bool(gap <= tol), (m.id, t.id, gap)
    rng = np.random.default_rng(seed)
    rows = [int(r) for r in rng.choice(len(table.models), 5, replace=False)]
    cols = [int(c) for c in rng.choice(len(table.terrain), 4, replace=False)]
    sub = sight.touching(table, models=rows, pieces=cols)
    assert np.array_equal(sub, full[np.ix_(rows, cols)])
    assert np.array_equal(sight.touching(table, models=rows), full[rows])
    assert np.array_equal(sight.touching(table, pieces=cols), full[:, cols])
    assert sight.touching(table, models=[], pieces=cols).shape == (0, 4)
    assert sight.touching(table, models=rows, pieces=[]).shape == (5, 0)


def test_distinct_is_numpys_unique_for_integer_arrays() -> None:
    """:func:`sight.distinct` (np.unique without importing numpy.ma) gives np.unique's
    answer on seeded integer arrays, empty and one-valued ones included."""
    rng = np.random.default_rng(5)
    for n in [0, 1, 2, 3, 10, 1000]:
        for hi in [1, 3, 50, 10**12]:
            a = rng.integers(-hi, hi, size=n, dtype=np.int64)
            got = sight.distinct(a)
            assert got.dtype == np.unique(a).dtype
            assert np.array_equal(got, np.unique(a))


def test_a_frostgrave_los_does_not_import_numpy_ma() -> None:
    """The demo's lines of sight, as the command rules them (kernels interpreted: numba
    itself imports numpy.ma), import no numpy.ma (np.unique's first call does, ~25 ms)."""
    code = (
        "import sys, arbitre; from arbitre import scenario; "
        "t = scenario.load('examples/frostgrave-demo.yaml'); arbitre.ask(t, 'los'); "
        "print('numpy.ma' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        env={**os.environ, "ARBITRE_JIT": "auto"},
    )
    assert out.stdout.strip() == "False"
