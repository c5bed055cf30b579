"""Frostgrave windows (F5, F6, F7): who stands at a window, and what the window opens.

F5: a shooter touching a wall at a window sees from the window: for its lines that one
window is opened (:func:`arbitre.sight.sight_index` with ``openings``), every other
crossing of a wall blocks (F7), the same wall piece included. F6: a target touching a
wall at a window is seen by whoever has a clear line to some point of the window
opening, when the shot comes in through the wall there: the centre line crosses the
window's side of the wall (:func:`beside_window`, the same region whether a room is drawn
as one closed wall or as one wall a side).
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from arbitre import sight
from arbitre.bounded import entry, trim
from arbitre.geometry import EPS, Point, WallFootprint, Window
from arbitre.table import Table, Terrain

#: A window of a wall: ``(wall id, window index)``, as :func:`arbitre.sight.sight_index`
#: takes it in ``openings``.
WindowKey = tuple[str, int]


@dataclass(frozen=True, slots=True)
class WindowContact:
    """A model touching a wall exactly where a window is (F5, F6): the wall, the window's
    index among the wall's windows, the window, and the gap (mm) of the base to it."""

    model: str
    wall: str
    index: int
    window: Window
    gap: float

    @property
    def key(self) -> WindowKey:
        return (self.wall, self.index)


@dataclass(frozen=True, slots=True)
class WindowGap:
    """The gap (mm) of one model's base to one window's part of a wall (G4 against the
    contact tolerance decides whether the model stands at the window)."""

    model: str
    wall: str
    index: int
    gap: float


def walls_windows(table: Table) -> list[tuple[str, int, WallFootprint]]:
    """Every window of every blocking wall: ``(wall id, window index, footprint)``."""
    out: list[tuple[str, int, WallFootprint]] = []
    for piece in table.terrain:
        fp = piece.footprint
        if isinstance(fp, WallFootprint) and piece.blocks:
            out.extend((piece.id, k, fp) for k in range(len(fp.windows)))
    return out


def window_gaps(
    table: Table, models: Sequence[int] | None = None, within: float = math.inf
) -> list[WindowGap]:
    """The gap of each model's base (all, or those of these indices) to each window's
    part of each wall, measured at once (one vectorised shapely call for every window);
    only the gaps of at most ``within`` mm."""
    xy, radii = sight.positions(table)
    rows = np.arange(len(xy)) if models is None else np.asarray(models, dtype=np.int64)
    if not len(rows):
        return []
    windows, which, near, gaps = _window_gaps(table, xy, radii, rows, within)
    keep = gaps <= within
    held = table.models
    return [
        WindowGap(held[i].id, windows[w][0], windows[w][1], gap)
        for w, i, gap in zip(
            which[keep].tolist(), near[keep].tolist(), gaps[keep].tolist(), strict=True
        )
    ]


def _window_gaps(
    table: Table, xy: np.ndarray, radii: np.ndarray, rows: np.ndarray, within: float
) -> tuple[list[tuple[str, int, WallFootprint]], np.ndarray, np.ndarray, np.ndarray]:
    """Every window of every blocking wall (:func:`walls_windows`), and the gaps (mm) of
    the bases ``rows`` that may come within ``within`` of each, by window then model:
    the windows' positions, the models' indices, the gaps. A base may come that near
    when its centre lies within its radius and ``within`` (and a mm) of the window's
    bounding box (a farther centre is farther from the window too)."""
    windows, shapes, bounds = _windows_of(table)
    if not windows or not len(rows):
        z = np.zeros(0, np.int64)
        return windows, z, z, np.zeros(0)
    which, j = np.nonzero(_near_boxes(bounds, xy[rows], radii[rows], within))
    near = rows[j]
    gaps = np.asarray(shapely.distance(shapely.points(xy[near]), shapes[which])) - radii[near]
    return windows, which, near, gaps


def _near_boxes(bounds: np.ndarray, xy: np.ndarray, radii: np.ndarray, within: float) -> np.ndarray:
    """Window by base: whether the base's centre lies within its radius and ``within``
    (and a mm) of the window's bounding box (a farther base is farther from the window)."""
    reach = radii + within + 1.0
    x, y = xy[:, 0], xy[:, 1]
    dx = np.maximum(np.maximum(bounds[:, None, 0] - x, x - bounds[:, None, 2]), 0.0)
    dy = np.maximum(np.maximum(bounds[:, None, 1] - y, y - bounds[:, None, 3]), 0.0)
    near: np.ndarray = (dx <= reach) & (dy <= reach)
    return near


#: Each terrain tuple's windows (:func:`walls_windows`), their parts of the walls and
#: those parts' bounding boxes, by identity (the pieces do not move when models do).
_WINDOWS: dict[
    int, tuple[tuple[Terrain, ...], list[tuple[str, int, WallFootprint]], np.ndarray, np.ndarray]
] = {}


def _windows_of(
    table: Table,
) -> tuple[list[tuple[str, int, WallFootprint]], np.ndarray, np.ndarray]:
    """:func:`walls_windows`, each window's part of its wall (:func:`window_slice`) and
    the bounding boxes of those parts, made once per terrain."""
    terrain = table.terrain
    hit = _WINDOWS.get(id(terrain))
    if hit is not None and hit[0] is terrain:
        return hit[1], hit[2], hit[3]
    windows = walls_windows(table)
    shapes = np.asarray([window_slice(fp, k) for _, k, fp in windows], dtype=object)
    bounds = shapely.bounds(shapes) if len(shapes) else np.zeros((0, 4))
    if len(_WINDOWS) >= 16:
        _WINDOWS.pop(next(iter(_WINDOWS)))
    _WINDOWS[id(terrain)] = (terrain, windows, shapes, bounds)  # the tuple held: its id unique
    return windows, shapes, bounds


#: The window contacts of the bases seen lately, by terrain and contact tolerance, then
#: by base (centre and radius): a base's contacts depend on nothing else, so a dragged
#: model's are measured again and the others' found here. Few terrains, many bases.
_CONTACTS: dict[
    tuple[tuple[Terrain, ...], float],
    dict[tuple[float, float, float], tuple[tuple[str, int, Window, float], ...]],
] = {}
_CONTACTS_TERRAINS = 4
_CONTACTS_BASES = 10_000
_CONTACTS_LOCK = threading.Lock()


def window_contacts(table: Table) -> dict[str, tuple[WindowContact, ...]]:
    """For each model touching a wall at a window (G4 contact with the window's part of
    the wall, :func:`arbitre.sight.in_contact`), the windows it stands at. The bases
    measured lately are not measured again (:data:`_CONTACTS`)."""
    xy, radii = sight.positions(table)
    if not len(xy):
        return {}
    tol = table.contact_tolerance
    windows, _, bounds = _windows_of(table)
    if not windows:
        return {}
    # only a base near some window's box may touch it (the measure's own first test)
    close = np.flatnonzero(_near_boxes(bounds, xy, radii, tol).any(axis=0))
    if not len(close):
        return {}
    xy, radii = xy[close], radii[close]
    models = [table.models[i] for i in close.tolist()]
    bases = [(x, y, r) for (x, y), r in zip(xy.tolist(), radii.tolist(), strict=True)]
    with _CONTACTS_LOCK:
        known = entry(_CONTACTS, (table.terrain, tol), _CONTACTS_TERRAINS)
        found = [known.get(b) for b in bases]
    missing = [i for i, f in enumerate(found) if f is None]
    if missing:
        rows = close[missing]
        measured = _measure_contacts(table, *sight.positions(table), rows, tol)
        with _CONTACTS_LOCK:
            for i, row in zip(missing, rows.tolist(), strict=True):
                found[i] = known[bases[i]] = measured.get(row, ())
            trim(known, _CONTACTS_BASES)
    out: dict[str, tuple[WindowContact, ...]] = {}
    for model, at in zip(models, found, strict=True):
        if at:
            out[model.id] = tuple(WindowContact(model.id, *c) for c in at)
    return out


def _measure_contacts(
    table: Table, xy: np.ndarray, radii: np.ndarray, rows: np.ndarray, tol: float
) -> dict[int, tuple[tuple[str, int, Window, float], ...]]:
    """The window contacts of the bases ``rows`` (model indices), each in window order:
    ``(wall, window index, window, gap)``."""
    windows, which, near, gaps = _window_gaps(table, xy, radii, rows, tol)
    hit = np.flatnonzero(sight.in_contact(gaps, tol)).tolist()
    found: dict[int, list[tuple[str, int, Window, float]]] = {}
    for w, i, gap in zip(which[hit].tolist(), near[hit].tolist(), gaps[hit].tolist(), strict=True):
        wall, k, fp = windows[w]
        found.setdefault(i, []).append((wall, k, fp.windows[k], gap))
    return {i: tuple(cs) for i, cs in found.items()}


def window_slice(fp: WallFootprint, k: int) -> BaseGeometry:
    """The part of the wall that window ``k`` opens (F5, F6)."""
    return _slice(fp, k)


@lru_cache(maxsize=1024)
def _slice(fp: WallFootprint, k: int) -> BaseGeometry:
    return fp.window_slice(fp.windows[k])


def beside_window(fp: WallFootprint, k: int) -> BaseGeometry:
    """F6: the side of the wall window ``k`` is in: the wall's footprint where it runs
    along the polyline segments that carry the window (their corners included). The same
    region for a room drawn as one closed wall and drawn as one wall a side (each side
    drawn corner to corner, its ends reaching over the corners)."""
    return _beside(fp, k)


@lru_cache(maxsize=1024)
def _beside(fp: WallFootprint, k: int) -> BaseGeometry:
    window = fp.windows[k]
    half = max(fp.thickness / 2.0, 1e-9)
    parts = []
    run = 0.0
    for p, q in itertools.pairwise(fp.points):
        n = p.distance(q)
        if n > 0 and run - EPS < window.end and run + n + EPS > window.start:
            seg = shapely.LineString([(p.x, p.y), (q.x, q.y)])
            parts.append(seg.buffer(half, cap_style="square", join_style="mitre"))
        run += n
    if not parts:
        return fp.window_slice(window)
    shape = shapely.make_valid(fp.shape())
    return shapely.intersection(shape, shapely.make_valid(shapely.union_all(parts)))


def opening_segments(fp: WallFootprint, k: int) -> list[tuple[Point, Point]]:
    """The window opening (its stretch of the wall's centre line) as segments."""
    return list(_opening(fp, k))


@lru_cache(maxsize=1024)
def _opening(fp: WallFootprint, k: int) -> tuple[tuple[Point, Point], ...]:
    coords = list(fp.window_opening(fp.windows[k]).coords)
    return tuple((Point(*p), Point(*q)) for p, q in itertools.pairwise(coords))


def wall_of(table: Table, wall: str) -> WallFootprint:
    fp = table.piece(wall).footprint
    assert isinstance(fp, WallFootprint)
    return fp


@dataclass(frozen=True, slots=True)
class WindowView:
    """F6: whether the shooter's centre sees some point of a window opening, that point,
    and how robust that is (mm: the beam may widen, or narrow, by twice this and the
    answer stays; G8)."""

    seen: bool
    point: Point | None
    margin: float


def sees_window(
    table: Table,
    shooter: str,
    target: str,
    window: WindowKey,
    openings: Iterable[WindowKey] = (),
    *,
    margin_cap: float = 0.0,
) -> WindowView:
    """F6: a point of the window opening that the shooter's centre reaches by a clear
    line (F2: large terrain and other models' bases block; the wall ignored at that
    opening, and at the shooter's own windows, ``openings``, F5), or none.

    With ``margin_cap`` > 0 the margin is measured (G8) by bisection on the beam: a seen
    window stays seen while the beam widens by twice the margin (up to the cap), an unseen
    one unseen while it narrows (to no beam at all at most)."""
    opened = frozenset({window, *openings})
    view = _view(table, shooter, target, window, opened, table.beam)
    seen = view.point is not None
    margin = 0.0
    if margin_cap > 0:

        def keeps(delta: float) -> bool:
            probe = _view(table, shooter, target, window, opened, _beam(table, delta, seen))
            return (probe.point is not None) == seen

        margin = _largest(keeps, margin_cap if seen else table.beam / 2.0)
    return WindowView(seen, view.point, margin)


def _largest(keeps: Callable[[float], bool], cap: float) -> float:
    """The largest slack up to ``cap`` that ``keeps`` the answer, found coarse to fine:
    slacks falling by about 3 at a time, then two halvings between the last two."""
    hi = cap
    lo = 0.0
    probe = cap
    while probe > 0.02:
        if keeps(probe):
            lo = probe
            break
        hi, probe = probe, probe / 3.0
    if lo == cap:
        return lo
    for _ in range(2):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if keeps(mid) else (lo, mid)
    return lo


def _beam(table: Table, delta: float, seen: bool) -> float:
    return max(0.0, table.beam + 2.0 * delta if seen else table.beam - 2.0 * delta)


def _view(
    table: Table,
    shooter: str,
    target: str,
    window: WindowKey,
    opened: frozenset[WindowKey],
    beam: float,
) -> WindowView:
    # the beam enters the packing only as its half width: the table's own index serves
    # every probed beam (a table of another beam would be packed anew, bridges and all)
    ix = sight.sight_index(table, openings=opened)
    if beam != table.beam:
        ix = replace(ix, half=beam / 2.0)
    fp = wall_of(table, window[0])
    origin = table.model(shooter).at
    for seg in _opening(fp, window[1]):
        view = sight.view_of_segment(table, origin, seg, skip=(shooter, target), index=ix)
        if view.share > 0 and view.witness is not None:
            return WindowView(True, view.witness, 0.0)
    return WindowView(False, None, 0.0)
