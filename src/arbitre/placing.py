"""Models placed relative to the table (SCENARIO.md): ``at`` may say where a model stands
by what it touches or where it is from another model, and the loader resolves it to the
exact point, so hand-written tables stop missing a contact (G4) by 0.05 inch.

- ``{touching: hedge, side: south}``: the base against that piece (or model), on that
  side (north, south, east, west), centred on the piece's extent that way;
- ``{touching: chapel, window: 0}``: against the wall, centred on its first window, on
  the wall's left (the side to the left walking its points in order) unless ``side``
  says ``right`` or a compass side;
- ``{from: archer, distance: 3, angle: 90}``: that far from the other model's centre, at
  that angle (degrees counter-clockwise from +x).

Everything is in the scenario's own unit. A base placed against something touches it
with a gap of zero (to a billionth of the unit).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import shapely

from arbitre.errors import Problem
from arbitre.geometry import CircleFootprint, Footprint, WallFootprint
from arbitre.i18n import T_, TN_
from arbitre.problems import got

#: Compass sides as directions from the piece to the model (y up).
COMPASS: Mapping[str, tuple[float, float]] = {
    "north": (0.0, 1.0),
    "south": (0.0, -1.0),
    "east": (1.0, 0.0),
    "west": (-1.0, 0.0),
}


@dataclass(frozen=True, slots=True)
class Spec:
    """One model's ``at`` as written: a point, or relative to a piece or another model."""

    path: str
    radius: float
    point: tuple[float, float] | None = None
    touching: str | None = None
    side: str | None = None
    window: int | None = None
    origin: str | None = None
    distance: float = 0.0
    angle: float = 0.0


class _Unplaced(Exception):
    """A model that cannot be placed: the problem that says why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


def resolve(
    specs: Mapping[str, Spec], pieces: Mapping[str, Footprint]
) -> tuple[dict[str, tuple[float, float]], list[Problem]]:
    """The centre of every model (by id) whose ``at`` can be resolved, and the problems of
    those that cannot (unknown ids, missing windows, a cycle of relative placements)."""
    placed: dict[str, tuple[float, float]] = {}
    problems: list[Problem] = []
    for ident in specs:
        try:
            _place(ident, specs, pieces, placed, ())
        except _Unplaced as exc:
            if exc.problem not in problems:
                problems.append(exc.problem)
    return placed, problems


def _place(
    ident: str,
    specs: Mapping[str, Spec],
    pieces: Mapping[str, Footprint],
    placed: dict[str, tuple[float, float]],
    chain: tuple[str, ...],
) -> tuple[float, float]:
    if ident in placed:
        return placed[ident]
    spec = specs[ident]
    if ident in chain:
        loop = " -> ".join((*chain[chain.index(ident) :], ident))
        raise _Unplaced(
            Problem(f"{spec.path}.at", T_("placed relative to itself: {loop}", loop=loop))
        )

    def centre_of(other: str, key: str) -> tuple[float, float]:
        if other not in specs:
            raise _Unplaced(
                Problem(f"{spec.path}.at.{key}", T_("unknown model id {id}", id=repr(other)))
            )
        return _place(other, specs, pieces, placed, (*chain, ident))

    placed[ident] = _where(spec, specs, pieces, centre_of)
    return placed[ident]


def _where(
    spec: Spec,
    specs: Mapping[str, Spec],
    pieces: Mapping[str, Footprint],
    centre_of: Callable[[str, str], tuple[float, float]],
) -> tuple[float, float]:
    if spec.point is not None:
        return spec.point
    if spec.origin is not None:
        ox, oy = centre_of(spec.origin, "from")
        a = math.radians(spec.angle)
        return ox + spec.distance * math.cos(a), oy + spec.distance * math.sin(a)
    assert spec.touching is not None
    if spec.touching in specs:
        if spec.window is not None:
            raise _Unplaced(Problem(f"{spec.path}.at.window", T_("a model has no windows")))
        cx, cy = centre_of(spec.touching, "touching")
        dx, dy = _compass(spec, default="south")
        reach = specs[spec.touching].radius + spec.radius
        return cx + dx * reach, cy + dy * reach
    footprint = pieces.get(spec.touching)
    if footprint is None:
        raise _Unplaced(
            Problem(
                f"{spec.path}.at.touching",
                T_("unknown terrain or model id {id}", id=repr(spec.touching)),
            )
        )
    if spec.window is not None:
        return _at_window(spec, footprint)
    return _against(footprint, _compass(spec, default="south"), spec.radius)


def _compass(spec: Spec, *, default: str) -> tuple[float, float]:
    side = spec.side or default
    if side not in COMPASS:
        text = T_("must be one of {known}", known=", ".join(COMPASS))
        raise _Unplaced(Problem(f"{spec.path}.at.side", got(text, repr(side))))
    return COMPASS[side]


def _against(fp: Footprint, d: tuple[float, float], r: float) -> tuple[float, float]:
    """The centre of a base of radius ``r`` touching ``fp`` from direction ``d``, centred
    on the piece's extent across that direction."""
    if isinstance(fp, CircleFootprint):
        reach = fp.radius + r
        return fp.centre.x + d[0] * reach, fp.centre.y + d[1] * reach
    shape = fp.shape()
    x0, y0, x1, y1 = shape.bounds
    size = math.hypot(x1 - x0, y1 - y0)
    # the middle of the piece across d, pushed out past its far edge in d, then back in
    # until the base touches: a bisection on the distance to the footprint
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    probe = shapely.LineString([(mx, my), (mx + d[0] * 2 * size, my + d[1] * 2 * size)])
    hit = probe.intersection(shape)
    far = max(
        (d[0] * (x - mx) + d[1] * (y - my) for x, y in _coords(hit)),
        default=0.0,
    )
    lo, hi = far, far + r + size + 1.0

    def gap(t: float) -> float:
        return float(shape.distance(shapely.Point(mx + d[0] * t, my + d[1] * t))) - r

    for _ in range(200):
        mid = (lo + hi) / 2
        if gap(mid) < 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(1.0, abs(hi)):
            break
    return mx + d[0] * hi, my + d[1] * hi


def _at_window(spec: Spec, fp: Footprint) -> tuple[float, float]:
    if not isinstance(fp, WallFootprint):
        raise _Unplaced(
            Problem(f"{spec.path}.at.window", T_("{id} is not a wall", id=spec.touching))
        )
    if not 0 <= spec.window < len(fp.windows):  # type: ignore[operator]
        count = len(fp.windows)
        raise _Unplaced(
            Problem(
                f"{spec.path}.at.window",
                TN_(
                    "{id} has {n} window, got {window}",
                    "{id} has {n} windows, got {window}",
                    "n",
                    id=spec.touching,
                    n=count,
                    window=spec.window,
                ),
            )
        )
    window = fp.windows[spec.window]  # type: ignore[index]
    line = fp.line()
    s = (window.start + window.end) / 2
    p, q = line.interpolate(max(0.0, s - 1e-6)), line.interpolate(min(line.length, s + 1e-6))
    n = math.hypot(q.x - p.x, q.y - p.y) or 1.0
    tx, ty = (q.x - p.x) / n, (q.y - p.y) / n
    left = (-ty, tx)
    side = spec.side or "left"
    if side == "left":
        normal = left
    elif side == "right":
        normal = (ty, -tx)
    else:
        want = _compass(spec, default="south")
        normal = left if left[0] * want[0] + left[1] * want[1] >= 0 else (ty, -tx)
    mid = line.interpolate(s)
    reach = fp.thickness / 2 + spec.radius
    return mid.x + normal[0] * reach, mid.y + normal[1] * reach


def _coords(geom: object) -> list[tuple[float, float]]:
    parts = shapely.get_parts(geom)
    return [(x, y) for part in parts for x, y in shapely.get_coordinates(part)]
