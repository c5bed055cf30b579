"""Test-only helpers (never used by the engine): seeded random tables for the tests'
oracles and the benchmarks, and brute-force baselines.

``random_table(seed, models=..., terrain=...)`` gives the same table for the same
arguments. With ``degenerate=True`` it also places models so that centre lines pass
exactly through polygon vertices, run along edges, are tangent to bases, and bases
touch each other or stand inside cover: the placements where sight code goes wrong.

:func:`best_by_sampling` is the brute-force baseline of the exact best aim of a breath
cone (:func:`arbitre.rules.breath.best`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from arbitre.geometry import (
    CircleFootprint,
    Disc,
    Footprint,
    Point,
    PolygonFootprint,
    WallFootprint,
    Window,
    rect_points,
)
from arbitre.table import Model, Sight, Table, Terrain

if TYPE_CHECKING:
    from arbitre.rules.breath import BreathWeapon


def _polygon(rng: np.random.Generator, at: Point, size: float) -> tuple[Point, ...]:
    """A random star-shaped (so simple) polygon around ``at``."""
    n = int(rng.integers(3, 9))
    angles = np.sort(rng.uniform(0, 2 * math.pi, n))
    radii = rng.uniform(0.4, 1.0, n) * size
    return tuple(
        Point(at.x + r * math.cos(a), at.y + r * math.sin(a))
        for a, r in zip(angles, radii, strict=True)
    )


def _terrain(rng: np.random.Generator, i: int, width: float, depth: float) -> Terrain:
    at = Point(float(rng.uniform(0, width)), float(rng.uniform(0, depth)))
    shape = rng.choice(["rect", "polygon", "circle", "wall"], p=[0.4, 0.3, 0.15, 0.15])
    sight: Sight = "blocks" if rng.random() < 0.5 else "cover"
    fp: Footprint
    if shape == "rect":
        fp = PolygonFootprint(
            rect_points(
                at,
                float(rng.uniform(20, 120)),
                float(rng.uniform(8, 80)),
                float(rng.choice([0.0, 45.0, float(rng.uniform(0, 180))])),
            )
        )
    elif shape == "polygon":
        fp = PolygonFootprint(_polygon(rng, at, float(rng.uniform(20, 70))))
    elif shape == "circle":
        fp = CircleFootprint(at, float(rng.uniform(8, 40)))
    else:
        a = float(rng.uniform(0, 2 * math.pi))
        ln = float(rng.uniform(80, 250))
        pts = [at, Point(at.x + ln * math.cos(a), at.y + ln * math.sin(a))]
        if rng.random() < 0.5:
            b = a + float(rng.choice([-1.0, 1.0])) * math.pi / 2
            pts.append(Point(pts[1].x + 0.6 * ln * math.cos(b), pts[1].y + 0.6 * ln * math.sin(b)))
        total = ln * (1.6 if len(pts) == 3 else 1.0)
        start = float(rng.uniform(10, total - 50))
        fp = WallFootprint(tuple(pts), 8.0, (Window(start, start + 30.0),))
        sight = "blocks"
    size = "huge" if sight == "blocks" else "small"
    return Terrain(f"t{i}", fp, sight=sight, size=size)


def random_table(
    seed: int,
    *,
    models: int = 20,
    terrain: int = 8,
    width: float | None = None,
    depth: float | None = None,
    degenerate: bool = False,
    beam: float = 1.0,
    base: float = 25.0,
) -> Table:
    """A seeded random table: ``terrain`` pieces and ``models`` bases of two sides.

    The table grows with the number of models so that it stays about as crowded as a
    real game (about 25 models a square metre by default).
    """
    rng = np.random.default_rng(seed)
    if width is None:
        width = depth = max(400.0, math.sqrt(models / 25e-6 / 1.0) * 0.9)
    depth = depth or width
    pieces = [_terrain(rng, i, width, depth) for i in range(terrain)]
    placed: list[Model] = []
    for i in range(models):
        at = Point(float(rng.uniform(0, width)), float(rng.uniform(0, depth)))
        diameter = 0.0 if rng.random() < 0.05 else base
        placed.append(Model(f"m{i}", "red" if i % 2 == 0 else "blue", at, Disc(diameter)))
    if degenerate:
        placed = _degenerate(rng, placed, pieces, base)
    return Table(width=width, depth=depth, terrain=tuple(pieces), models=tuple(placed), beam=beam)


def _degenerate(
    rng: np.random.Generator, placed: list[Model], pieces: list[Terrain], base: float
) -> list[Model]:
    """Replace some models by placements on the edge of every sight test."""
    out = list(placed)
    n = len(out)
    verts = [
        (p.x, p.y)
        for t in pieces
        if isinstance(t.footprint, PolygonFootprint)
        for p in t.footprint.points
    ]
    r = base / 2
    for j in range(0, n - 1, 2):
        a = out[j].at
        mode = int(rng.integers(0, 5))
        if mode == 0 and verts:
            # the line a-b passes exactly through a polygon vertex
            vx, vy = verts[int(rng.integers(len(verts)))]
            b = Point(2 * vx - a.x, 2 * vy - a.y)
        elif mode == 1 and pieces:
            # the line runs along a polygon edge (both centres on its line)
            t = pieces[int(rng.integers(len(pieces)))].footprint
            if isinstance(t, PolygonFootprint):
                p, q = t.points[0], t.points[1]
                a = Point(2 * p.x - q.x, 2 * p.y - q.y)
                b = Point(2 * q.x - p.x, 2 * q.y - p.y)
            else:
                b = Point(a.x + 100, a.y)
        elif mode == 2 and j + 2 < n:
            # the line is tangent to a third base (at distance 0 or exactly at the beam's edge)
            c = out[j + 2].at
            ang = float(rng.uniform(0, 2 * math.pi))
            off = r + float(rng.choice([0.0, 0.5]))
            ux, uy = math.cos(ang), math.sin(ang)
            foot = Point(c.x - uy * off, c.y + ux * off)
            a = Point(foot.x - 80 * ux, foot.y - 80 * uy)
            b = Point(foot.x + 80 * ux, foot.y + 80 * uy)
        elif mode == 3:
            # two bases in contact
            ang = float(rng.uniform(0, 2 * math.pi))
            b = Point(a.x + 2 * r * math.cos(ang), a.y + 2 * r * math.sin(ang))
        else:
            # standing inside a piece of terrain
            if pieces:
                inner = pieces[int(rng.integers(len(pieces)))].footprint.shape()
                c = inner.representative_point()
                b = Point(float(c.x), float(c.y))
            else:
                b = Point(a.x + 50, a.y)
        out[j] = Model(out[j].id, out[j].side, a, out[j].base)
        out[j + 1] = Model(out[j + 1].id, out[j + 1].side, b, out[j + 1].base)
    return out


def best_by_sampling(
    table: Table,
    shooter: str,
    weapon: str | BreathWeapon | None,
    samples: int,
    axes: int | None = None,
    *,
    extra: int = 0,
    seed: int = 0,
) -> tuple[float, float, Fraction]:
    """The brute-force baseline of :func:`arbitre.rules.breath.best` over both degrees of
    freedom (B2): ``samples`` apexes evenly spaced on the rim times ``axes`` (default
    ``samples``) axes evenly spaced in the allowed range (within 90 - atan(1/6) degrees
    of the outward radius, or all round with ``cone_over_base``), plus ``extra`` seeded
    random placements. Which bases each placement touches is computed for every
    placement at once (numpy); each distinct outcome is then ruled in full
    (:func:`arbitre.rules.breath.rule`). Returns the best apex and axis (degrees) and
    its value."""
    from arbitre import templates
    from arbitre.rules import breath
    from arbitre.rules.options import read_options, shared_options

    bw = (
        weapon
        if isinstance(weapon, breath.BreathWeapon)
        else breath.breath_weapon(table, shooter, weapon)
    )
    opts = read_options(breath.BreathOptions, table.options)
    model = table.model(shooter)
    length, width = templates.cone_size(table)
    r = model.base.radius
    limit = math.pi if opts.cone_over_base or r <= 0 else templates.over_base_limit(length, width)
    axes = samples if axes is None else axes
    rng = np.random.default_rng(seed)
    theta = np.linspace(0.0, 2 * math.pi, samples, endpoint=False)
    phi = np.linspace(-limit, limit, axes + 2)[1:-1]
    th, ph = (a.ravel() for a in np.meshgrid(theta, phi, indexing="ij"))
    th = np.concatenate([th, rng.uniform(0, 2 * math.pi, extra)])
    ph = np.concatenate([ph, rng.uniform(-limit, limit, extra)])
    xy, radii = templates.centres(table)
    me = table.model_index(shooter)
    ax, ay = model.at.x + r * np.cos(th), model.at.y + r * np.sin(th)
    psi = th + ph
    wx, wy = xy[None, :, 0] - ax[:, None], xy[None, :, 1] - ay[:, None]
    cu, su = np.cos(psi)[:, None], np.sin(psi)[:, None]
    gap = templates.cone_sd(wx * cu + wy * su, -wx * su + wy * cu, length, width / 2.0)
    hit = templates.is_touched(
        gap - radii[None, :], table.contact_tolerance, opts.template_touch == "overlap"
    )
    hit[:, me] = False
    keys = np.packbits(hit, axis=1)
    if opts.template_blocked:
        rows, cols = np.nonzero(hit)
        flags = np.zeros_like(hit)
        flags[rows, cols] = templates.shielded_at(
            table, ax[rows], ay[rows], cols, grazing=shared_options(table).grazing_blocks
        )
        keys = np.hstack([keys, np.packbits(flags, axis=1)])
    if opts.order_from == "apex" and bw.notation.nature == "impacting":
        # the B7 order from the apex changes with it: the victims' order and tie links
        dist = np.where(hit, np.maximum(0.0, np.hypot(wx, wy) - radii[None, :]), np.inf)
        order = np.argsort(dist, axis=1, kind="stable")
        srt = np.take_along_axis(dist, order, axis=1)
        with np.errstate(invalid="ignore"):
            close = srt[:, 1:] - srt[:, :-1] <= table.contact_tolerance + 1e-9
        order = np.where(np.isfinite(srt), order, -1)
        keys = np.hstack([keys, order.astype(np.int64).view(np.uint8), np.packbits(close, axis=1)])
    _, first = np.unique(keys, axis=0, return_index=True)
    top: tuple[float, float, Fraction] | None = None
    for k in sorted(first.tolist()):
        apex, angle = math.degrees(th[k]) % 360.0, math.degrees(psi[k]) % 360.0
        cone = templates.place_cone(table, shooter, angle, apex)
        value = breath.rule(table, shooter, bw, cone).value
        if top is None or value > top[2]:
            top = (apex, angle, value)
    assert top is not None
    return top
