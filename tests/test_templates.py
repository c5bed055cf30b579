"""Templates (B1-B3, B7, B10): placement, bases touched, order by distance, the exact sweep
of aims; each checked against a shapely (or dense-sampling) oracle on seeded tables."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from functools import partial

import numpy as np
import pytest
import shapely

from arbitre import cone_sweep as S
from arbitre import templates as T
from arbitre.dice import Roller, enumerate_procedure, roll_procedure
from arbitre.errors import RulesError
from arbitre.geometry import Disc, Point
from arbitre.table import Model, Table
from arbitre.testing import random_table

TOISE = 25.0
BAND = 1e-6  # mm: the oracle and the engine may disagree only this close to a threshold


def _table(seed: int, **kw: object) -> Table:
    table = random_table(seed, **kw)  # type: ignore[arg-type]
    return replace(table, toise=TOISE, contact_tolerance=[0.5, 0.0, 2.0][seed % 3])


def bf_gaps(table: Table, template: T.Template) -> dict[str, float]:
    """Shapely oracle: each base's signed gap to the template (negative inside)."""
    shape = template.shape() if isinstance(template, T.Cone) else None
    out = {}
    for m in table.models:
        p = shapely.Point(m.at.x, m.at.y)
        if shape is None:
            assert isinstance(template, T.Blast)
            sd = p.distance(shapely.Point(template.centre.x, template.centre.y)) - template.radius
        else:
            sd = -shape.exterior.distance(p) if shape.contains(p) else shape.distance(p)
        out[m.id] = sd - m.base.radius
    return out


def bf_victims(
    table: Table, template: T.Template, exclude: str | None, *, strict: bool = False
) -> tuple[set[str], set[str]]:
    """Shapely oracle: (touched, undecided within BAND of the threshold)."""
    tol = table.contact_tolerance
    inside, unsure = set(), set()
    for ident, gap in bf_gaps(table, template).items():
        if ident == exclude:
            continue
        limit = 0.0 if strict else tol
        if abs(gap - limit) < BAND:
            unsure.add(ident)
        elif gap < limit or (not strict and gap <= limit):
            inside.add(ident)
    return inside, unsure


# --- placement -----------------------------------------------------------------------------


def test_cone_is_six_by_two_toises_with_its_apex_on_the_base() -> None:
    table = Table(400, 400, models=(Model("d", "r", Point(100, 100), Disc(50)),), toise=TOISE)
    cone = T.place_cone(table, "d", 90)
    assert cone.apex.x == pytest.approx(100) and cone.apex.y == pytest.approx(125)  # B2
    _, left, right = cone.vertices
    assert (left.x, left.y) == pytest.approx((75, 275))  # left: counter-clockwise of the aim
    assert (right.x, right.y) == pytest.approx((125, 275))
    assert cone.shape().area == pytest.approx(150 * 50 / 2)  # B1: 6 x 2 toises
    assert T.place_cone(table, "d", -270).angle == pytest.approx(90)


def test_baseless_shooter_breathes_from_its_centre() -> None:  # F8
    table = Table(
        400,
        400,
        models=(Model("imp", "r", Point(100, 100), Disc(0)), Model("x", "b", Point(100, 50))),
        toise=TOISE,
    )
    cone = T.place_cone(table, "imp", T.aim_at(table, "imp", "x"))
    assert cone.apex == Point(100, 100)
    assert cone.angle == pytest.approx(270)


def test_placement_errors_name_what_is_wrong() -> None:
    table = Table(
        400, 400, models=(Model("d", "r", Point(100, 100)), Model("e", "b", Point(100, 100)))
    )
    with pytest.raises(RulesError, match="no toise"):
        T.place_cone(table, "d", 0)
    table = replace(table, toise=TOISE)
    with pytest.raises(RulesError, match="unknown model id 'zz'"):
        T.place_cone(table, "zz", 0)
    with pytest.raises(RulesError, match="finite angle"):
        T.place_cone(table, "d", math.nan)
    with pytest.raises(RulesError, match="at itself"):
        T.aim_at(table, "d", "d")
    with pytest.raises(RulesError, match="no direction"):
        T.aim_at(table, "d", "e")
    with pytest.raises(RulesError, match="positive radius"):
        T.check_blast(T.Blast(Point(0, 0), 0.0))


# --- bases touched (B3) against shapely ------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_touched_agrees_with_shapely(seed: int) -> None:
    table = _table(seed, models=60, terrain=0, width=400.0, degenerate=seed % 2 == 1)
    rng = np.random.default_rng(seed)
    for _ in range(6):
        shooter = table.models[int(rng.integers(len(table.models)))].id
        cone = T.place_cone(table, shooter, float(rng.uniform(0, 360)))
        for strict in (False, True):
            got = {t.model for t in T.touched(table, cone, strict=strict, exclude=[shooter])}
            want, unsure = bf_victims(table, cone, shooter, strict=strict)
            assert got - unsure == want - unsure, (seed, shooter, cone)
            assert shooter not in got
        blast = T.Blast(Point(*rng.uniform(0, 400, 2)), float(rng.uniform(10, 80)))
        got = {t.model for t in T.touched(table, blast)}
        want, unsure = bf_victims(table, blast, None)
        assert got - unsure == want - unsure


def test_contact_is_the_one_g4_test_of_sight(monkeypatch: pytest.MonkeyPatch) -> None:
    """B3 contact reading asks :func:`arbitre.sight.in_contact` (G4), the overlap reading
    does not; the sweep's arcs use the same thresholds."""
    from arbitre import sight

    table = _table(0, models=30, terrain=0, width=300.0)
    cone = T.place_cone(table, table.models[0].id, 30.0)
    asked: list[float] = []
    real = sight.in_contact

    def spy(gaps: np.ndarray | float, tolerance: float) -> np.ndarray:
        asked.append(tolerance)
        return real(gaps, tolerance)

    monkeypatch.setattr(sight, "in_contact", spy)
    contact = {t.model for t in T.touched(table, cone, tolerance=1.5)}
    assert asked == [1.5]
    T.touched(table, cone, strict=True)
    assert asked == [1.5]
    gaps = bf_gaps(table, cone)
    assert contact == {m for m, g in gaps.items() if real(g, 1.5)}


def _edge_points(cone: T.Cone) -> list[tuple[Point, tuple[float, float]]]:
    """Points of the cone's outline with their outward directions: the middle of each
    side (normal) and each corner (along the bisector of the outside angle)."""
    verts = cone.vertices
    cx = sum(v.x for v in verts) / 3
    cy = sum(v.y for v in verts) / 3
    out = []
    for i in range(3):
        p, q = verts[i], verts[(i + 1) % 3]
        mid = Point((p.x + q.x) / 2, (p.y + q.y) / 2)
        ex, ey = q.x - p.x, q.y - p.y
        n = math.hypot(ex, ey)
        sign = 1.0 if (mid.x - cx) * ey - (mid.y - cy) * ex > 0 else -1.0
        out.append((mid, (sign * ey / n, -sign * ex / n)))
    for v in verts:
        d = math.hypot(v.x - cx, v.y - cy)
        out.append((v, ((v.x - cx) / d, (v.y - cy) / d)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_bases_just_touching_the_edges(seed: int) -> None:
    """Bases placed at the contact tolerance from every side and corner, just inside and
    just outside it: G4 contact counts, 1e-3 mm farther does not (shapely agrees)."""
    rng = np.random.default_rng(seed)
    tol = [0.5, 0.0, 2.0][seed % 3]
    shooter = Model("s", "red", Point(200, 200), Disc(float(rng.choice([0.0, 25.0, 40.0]))))
    probe = Table(400, 400, models=(shooter,), toise=TOISE, contact_tolerance=tol)
    cone = T.place_cone(probe, "s", float(rng.uniform(0, 360)))
    models = [shooter]
    expect = {}
    for k, (p, (nx, ny)) in enumerate(_edge_points(cone)):
        for j, (extra, inside) in enumerate(((-1e-3, True), (0.0, True), (1e-3, False))):
            r = float(rng.choice([0.0, 12.5, 20.0]))
            if k == 0 and r == 0.0:  # the apex side: a point there would sit on the shooter
                r = 12.5
            gap = tol + extra
            at = Point(p.x + nx * (r + gap), p.y + ny * (r + gap))
            ident = f"e{k}-{j}"
            models.append(Model(ident, "blue", at, Disc(2 * r)))
            expect[ident] = inside
    table = replace(probe, models=tuple(models))
    got = {t.model for t in T.touched(table, cone, exclude=["s"])}
    for ident, inside in expect.items():
        assert (ident in got) is inside, (ident, bf_gaps(table, cone)[ident])
    want, _ = bf_victims(table, cone, "s")
    decided = {i for i in expect if not i.endswith("-1")}  # exactly at the tolerance: band
    assert got & decided == want & decided


# --- order by distance (B7) ------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_distances_are_from_the_apex_to_the_base(seed: int) -> None:
    table = _table(seed, models=50, terrain=0, width=300.0)
    shooter = table.models[0].id
    cone = T.place_cone(table, shooter, 45.0 * seed)
    touches = T.touched(table, cone, exclude=[shooter])
    apex = shapely.Point(cone.apex.x, cone.apex.y)
    for t in touches:
        m = table.model(t.model)
        want = max(0.0, apex.distance(shapely.Point(m.at.x, m.at.y)) - m.base.radius)
        assert t.distance == pytest.approx(want, abs=1e-9)
    assert [t.distance for t in touches] == sorted(t.distance for t in touches)


def test_tie_groups_chain_within_the_tolerance() -> None:
    touches = [
        T.Touch(i, 0.0, d)
        for i, d in (("a", 1.0), ("b", 1.4), ("c", 1.8), ("d", 3.0), ("e", 0.0), ("f", 0.0))
    ]
    assert T.tie_groups(touches, 0.5) == (("e", "f"), ("a", "b", "c"), ("d",))
    assert T.tie_groups(touches, 0.0) == (("e", "f"), ("a",), ("b",), ("c",), ("d",))


def test_draw_order_is_a_uniform_logged_shuffle() -> None:
    groups = (("a",), ("b", "c", "d"), ("e",))
    law = enumerate_procedure(partial(T.draw_order, groups))
    assert len(law) == 6 and set(law.probabilities().values()) == {Fraction(1, 6)}
    assert all(o[0] == "a" and o[-1] == "e" for o in law)
    order, log = roll_procedure(partial(T.draw_order, groups), 42)
    assert [d.sides for d in log.dice] == [3, 2]
    assert log.dice[0].label == "B7 tie: which of b, c, d first"
    assert roll_procedure(partial(T.draw_order, groups), Roller(42))[0] == order
    assert roll_procedure(partial(T.draw_order, (("a",), ("b",))), 1)[1].dice == ()


# --- the exact sweep ---------------------------------------------------------------------------


def test_trig_roots_find_every_sign_change() -> None:
    rng = np.random.default_rng(7)
    coef = rng.normal(size=(300, 5))
    coef[:40, 3:] = 0.0  # linear rows
    coef[40:60, 3] = 1e-14  # nearly so
    grid = np.linspace(0, 2 * math.pi, 20001)
    for row in coef:
        f = (
            row[0]
            + row[1] * np.cos(grid)
            + row[2] * np.sin(grid)
            + row[3] * np.cos(2 * grid)
            + row[4] * np.sin(2 * grid)
        )
        roots = S.trig_roots(row[None, :])
        for k in np.flatnonzero(np.sign(f[:-1]) != np.sign(f[1:])):
            near = np.abs((roots - grid[k] + math.pi) % (2 * math.pi) - math.pi)
            assert near.size and near.min() < 1e-3, (row, grid[k])
    assert S.trig_roots(np.array([[1.0, 0, 0, 0, 0]])).size == 0  # no dependence on t


def bf_arc(
    table: Table, shooter: str, angle: float, *, shield: bool
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], bool]:
    """Shapely oracle at one aim: the B7 groups, the shielded, and whether it is decided
    (nothing within BAND of a threshold)."""
    cone = T.place_cone(table, shooter, angle)
    inside, unsure = bf_victims(table, cone, shooter)
    apex = shapely.Point(cone.apex.x, cone.apex.y)
    half = table.beam / 2
    large = [t.footprint.shape() for t in table.terrain if t.blocks]
    shielded = set()
    decided = not unsure
    for ident in inside:
        m = table.model(ident)
        if shield:
            seg = shapely.LineString([(cone.apex.x, cone.apex.y), (m.at.x, m.at.y)])
            d = min((seg.distance(s) for s in large), default=math.inf)
            decided &= abs(d - half) > BAND
            if d < half:
                shielded.add(ident)
    dist = {
        i: max(
            0.0,
            apex.distance(shapely.Point(table.model(i).at.x, table.model(i).at.y))
            - table.model(i).base.radius,
        )
        for i in inside - shielded
    }
    groups: list[list[str]] = []
    last = None
    for i in sorted(dist, key=lambda i: (dist[i], i)):
        if last is not None and dist[i] - last <= table.contact_tolerance:
            decided &= abs(dist[i] - last - table.contact_tolerance) > BAND
            groups[-1].append(i)
        else:
            if last is not None:
                decided &= abs(dist[i] - last - table.contact_tolerance) > BAND
            groups.append([i])
        last = dist[i]
    return tuple(tuple(sorted(g)) for g in groups), tuple(sorted(shielded)), decided


def _arc_at(sweep: S.Sweep, angle: float) -> S.Arc:
    return next(a for a in sweep.arcs if any(a.start <= angle + k < a.end for k in (-360, 0, 360)))


@pytest.mark.parametrize("seed", range(10))
def test_sweep_agrees_with_dense_sampling(seed: int) -> None:
    """Inside every arc the victims (their B7 order and ties, and with the B3 option the
    shielded) are what a shapely oracle finds at random aims, away from a tiny band."""
    table = _table(seed, models=70, terrain=10, width=420.0, degenerate=seed % 2 == 1)
    shooter = table.models[seed % 7].id
    sweep = S.sweep(table, shooter, ordered=True, shield=seed % 3 != 2)
    assert sweep.arcs[0].start < sweep.arcs[-1].end
    assert sum(a.width for a in sweep.arcs) == pytest.approx(360.0)
    rng = np.random.default_rng(seed)
    checked = 0
    for angle in rng.uniform(0, 360, 400):
        arc = _arc_at(sweep, float(angle))
        if min(abs(angle - e) % 360 for e in (arc.start, arc.end)) < 1e-6:
            continue
        groups, shielded, decided = bf_arc(table, shooter, float(angle), shield=seed % 3 != 2)
        if not decided:
            continue
        checked += 1
        assert arc.ties == groups, (seed, angle, arc)
        assert arc.shielded == shielded, (seed, angle, arc)
    assert checked > 300


def test_sweep_of_a_lone_shooter_is_one_arc() -> None:
    table = Table(400, 400, models=(Model("d", "r", Point(100, 100)),), toise=TOISE)
    sweep = S.sweep(table, "d")
    assert len(sweep.arcs) == 1 and sweep.arcs[0].width == pytest.approx(360)
    assert sweep.arcs[0].victims == ()


def test_shielded_agrees_with_shapely() -> None:
    table = _table(4, models=40, terrain=14, width=400.0)
    large = [t.footprint.shape() for t in table.terrain if t.blocks]
    rng = np.random.default_rng(4)
    for _ in range(30):
        origin = Point(*rng.uniform(0, 400, 2))
        flags = T.shielded_from(table, origin, list(range(len(table.models))))
        for m, flag in zip(table.models, flags, strict=True):
            seg = shapely.LineString([(origin.x, origin.y), (m.at.x, m.at.y)])
            d = min((seg.distance(s) for s in large), default=math.inf)
            if abs(d - table.beam / 2) > BAND:
                assert bool(flag) is (d < table.beam / 2), (origin, m.id, d)
