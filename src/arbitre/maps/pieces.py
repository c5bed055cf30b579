"""The table's pieces as convex parts for the maps (G3, G5), and the subject of a map.

:func:`pieces` packs once, for a table and a beam, every terrain piece and every base as
convex parts grown by ``beam/2`` (:mod:`arbitre.maps.shadows`): terrain owns indices
``0..T-1``, the bases ``T..T+N-1`` in table order. Round footprints and bases are exact
discs, as the sight kernels measure them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from arbitre import i18n
from arbitre.errors import RulesError
from arbitre.geometry import CircleFootprint, Disc, Point, WallFootprint
from arbitre.i18n import N_, T_, Num
from arbitre.maps.shadows import ARC_TOLERANCE, Parts, disc_parts, join, polygon_parts
from arbitre.table import Model, Table

#: The id of the model a side's map places (``--side``): not a model of the table.
PHANTOM = "(here)"


@dataclass(frozen=True, slots=True)
class Subject:
    """Who the map is for: the model (an id of the table, or :data:`PHANTOM` for a side's
    base), its side and base radius in mm, and the shooters: every model of another side."""

    model: str
    side: str
    radius: float
    shooters: tuple[str, ...]
    table: Table

    @property
    def index(self) -> int:
        return self.table.model_index(self.model)


def subject(
    table: Table, *, model: str | None = None, side: str | None = None, base: float | None = None
) -> Subject:
    """The subject of a map: ``model`` (its base unless ``base`` mm says otherwise), or a
    model of ``side`` with a ``base`` mm wide (25 mm by default, F8) added to the table
    at its first corner; the moved model stands on open ground (its ``inside`` cleared)."""
    if (model is None) == (side is None):
        raise RulesError(T_("map: give a model id or a side, not both and not neither"))
    if model is not None:
        m = table.model(model)
        radius = m.base.radius if base is None else base / 2.0
        mine = replace(m, inside=None, base=Disc(2.0 * radius))
        models = tuple(mine if x.id == model else x for x in table.models)
        placed = replace(table, models=models)
        who, where = model, m.side
    else:
        sides = table.sides()
        if side not in sides:
            known = i18n.join(sides, empty=N_("none"))  # outside T_: Babel skips nested calls
            raise RulesError(
                T_("map: unknown side {side} (sides: {sides})", side=repr(side), sides=known)
            )
        radius = (25.0 if base is None else base) / 2.0
        phantom = Model(PHANTOM, str(side), Point(0.0, 0.0), Disc(2.0 * radius))
        placed = replace(table, models=(*table.models, phantom))
        who, where = PHANTOM, str(side)
    if radius < 0:
        raise RulesError(T_("map: base {base} mm: must be at least 0", base=Num(2 * radius, "g")))
    shooters = tuple(m.id for m in placed.models if m.side != where)
    return Subject(who, where, radius, shooters, placed)


def box(table: Table) -> tuple[float, float, float, float]:
    """The table's rectangle, where a model's centre may stand."""
    return (0.0, 0.0, table.width, table.depth)


def box_shape(table: Table) -> BaseGeometry:
    return shapely.box(*box(table))


@dataclass(frozen=True, slots=True, eq=False)
class Pieces:
    """Every piece of a table as convex parts grown by ``half`` (terrain, then bases)."""

    parts: Parts
    n_terrain: int
    blocks: np.ndarray
    shapes: tuple[BaseGeometry, ...]


def terrain_parts(table: Table, k: int, half: float, shape: BaseGeometry | None = None) -> Parts:
    """Terrain piece ``k`` (or ``shape`` in its place) grown by ``half``, as convex parts."""
    fp = table.terrain[k].footprint
    if shape is None and isinstance(fp, CircleFootprint):
        return disc_parts(np.array([[fp.centre.x, fp.centre.y, fp.radius + half]]), np.array([k]))
    return polygon_parts(fp.shape() if shape is None else shape, half, k)


@lru_cache(maxsize=32)
def pieces(table: Table, half: float) -> Pieces:
    """The convex parts of every piece of ``table`` grown by ``half`` (cached)."""
    parts = [terrain_parts(table, k, half) for k in range(len(table.terrain))]
    xyr = np.array([[m.at.x, m.at.y, m.base.radius + half] for m in table.models]).reshape(-1, 3)
    owners = len(table.terrain) + np.arange(len(table.models))
    keep = xyr[:, 2] > 0  # a point with no beam blocks no area (F8, beam 0)
    parts.append(disc_parts(xyr[keep], owners[keep]))
    blocks = np.array([t.blocks for t in table.terrain] + [True] * len(table.models), dtype=bool)
    shapes = tuple(t.footprint.shape() for t in table.terrain)
    return Pieces(join(parts), len(table.terrain), blocks, shapes)


@lru_cache(maxsize=1024)
def touch_region(table: Table, k: int, radius: float) -> BaseGeometry:
    """G4: the centres at which a base of ``radius`` touches terrain piece ``k`` (gap at
    most the contact tolerance), arcs within the map's tolerance (cached: every shooter
    asks)."""
    fp = table.terrain[k].footprint
    grow = radius + table.contact_tolerance
    if isinstance(fp, CircleFootprint):
        return shapely.Point(fp.centre.x, fp.centre.y).buffer(
            fp.radius + grow, quad_segs=quad_segs(fp.radius + grow)
        )
    return fp.shape().buffer(grow, quad_segs=quad_segs(grow))


def quad_segs(radius: float, tol: float = ARC_TOLERANCE) -> int:
    """Segments a quarter circle needs so that the polyline stays within ``tol`` of the
    arc of ``radius`` (the chord's sagitta)."""
    if radius <= tol:
        return 1
    step = 2.0 * float(np.arccos(1.0 - tol / radius))
    return max(1, int(np.ceil((np.pi / 2) / step)))


@lru_cache(maxsize=32)
def window_slices(table: Table) -> tuple[tuple[int, int, BaseGeometry], ...]:
    """Every window of every blocking wall: (terrain index, window index, its slice)
    (cached by table)."""
    out = []
    for k, t in enumerate(table.terrain):
        fp = t.footprint
        if isinstance(fp, WallFootprint) and t.blocks:
            for w, window in enumerate(fp.windows):
                out.append((k, w, fp.window_slice(window)))
    return tuple(out)
