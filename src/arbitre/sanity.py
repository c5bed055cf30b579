"""Warnings: plausible mistakes in a table that loads (a face prints them; nothing stops).

A scenario can be valid and still not be the table its author meant: 25-inch bases
written as ``base: 25`` in an inches file, two bases overlapping, a model standing inside
a blocking ruin, a model 1 mm short of the hedge it was meant to touch (G4 would then say
it does not touch it). :func:`warnings` finds these, with the ids involved, so that
``arbitre validate`` and the commands that rule can say so before ruling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from arbitre import sight
from arbitre.geometry import WallFootprint
from arbitre.table import Table

#: Plausible base diameters, in mm (F8 recommends 25 mm; the largest monsters ~ 160 mm).
BASE_MM = (10.0, 200.0)
#: A model this close to a piece or a window without touching it was likely meant to.
NEAR_MM = 2.0


@dataclass(frozen=True, slots=True)
class Caution:
    """One plausible mistake: what it is about (a path-like place), the ids, in words."""

    where: str
    ids: tuple[str, ...]
    text: str

    def __str__(self) -> str:
        return f"{self.where}: {self.text}"


def warnings(table: Table) -> list[Caution]:
    """Every plausible mistake of ``table``, models first, in table order."""
    shapes = [t.footprint.shape() for t in table.terrain]
    found = _bases(table) + _overlaps(table)
    found += _inside_blocking(table, shapes) + _near_misses(table, shapes)
    return found + _untouchable_windows(table, shapes)


def _where(table: Table, ident: str) -> str:
    return f"models[{table.model_index(ident)}]"


def _bases(table: Table) -> list[Caution]:
    lo, hi = BASE_MM
    u = table.unit
    return [
        Caution(
            _where(table, m.id),
            (m.id,),
            f"base {u.length(m.base.diameter)} ({m.base.diameter:.4g} mm) is "
            f"{'under' if m.base.diameter < lo else 'over'} the plausible "
            f"{lo:g}-{hi:g} mm (a base in mm in an {u.name} file?)",
        )
        for m in table.models
        if m.base.diameter > 0 and not lo <= m.base.diameter <= hi
    ]


def _overlaps(table: Table) -> list[Caution]:
    """Pairs of bases overlapping by more than the contact tolerance."""
    if len(table.models) < 2:
        return []
    xy, r = sight.positions(table)
    points = shapely.points(xy)
    tree = shapely.STRtree(points)
    a, b = tree.query(points, predicate="dwithin", distance=2 * float(r.max()))
    keep = a < b
    a, b = a[keep], b[keep]
    depth = r[a] + r[b] - np.hypot(*(xy[a] - xy[b]).T)
    out = []
    for i, j, d in zip(a, b, depth, strict=True):
        if d > table.contact_tolerance and r[i] > 0 and r[j] > 0:
            m, n = table.models[i], table.models[j]
            out.append(
                Caution(
                    _where(table, m.id),
                    (m.id, n.id),
                    f"the bases of {m.id} and {n.id} overlap by {table.unit.length(float(d))}",
                )
            )
    return out


def _inside_blocking(table: Table, shapes: list[BaseGeometry]) -> list[Caution]:
    """Models whose centre stands inside a blocking piece they are not said to be in."""
    if not table.terrain or not table.models:
        return []
    xy, _ = sight.positions(table)
    tree = shapely.STRtree(shapes)
    mi, ti = tree.query(shapely.points(xy), predicate="within")
    out = []
    for i, j in zip(mi, ti, strict=True):
        m, t = table.models[i], table.terrain[j]
        if t.blocks and m.inside != t.id and not isinstance(t.footprint, WallFootprint):
            out.append(
                Caution(
                    _where(table, m.id),
                    (m.id, t.id),
                    f"{m.id} stands inside blocking terrain {t.id} "
                    f"(in that building? say `inside: {t.id}`, and `building: true` on it)",
                )
            )
    return out


def _near_misses(table: Table, shapes: list[BaseGeometry]) -> list[Caution]:
    """Models within :data:`NEAR_MM` of a piece (or a window) without touching it."""
    if not table.terrain or not table.models:
        return []
    xy, r = sight.positions(table)
    points = shapely.points(xy)
    tree = shapely.STRtree(shapes)
    reach = float(r.max()) + NEAR_MM + table.contact_tolerance
    mi, ti = tree.query(points, predicate="dwithin", distance=reach)
    out = []
    for i, j in zip(mi, ti, strict=True):
        m, t = table.models[i], table.terrain[j]
        gap = float(shapely.distance(points[i], shapes[j])) - r[i]
        if table.contact_tolerance < gap <= NEAR_MM:
            what = f"{t.id}"
            fp = t.footprint
            if isinstance(fp, WallFootprint):
                for k, window in enumerate(fp.windows):
                    g = float(shapely.distance(points[i], fp.window_slice(window))) - r[i]
                    if g <= NEAR_MM + 1e-9:
                        what = f"window {k} of {t.id}"
                        break
            out.append(
                Caution(
                    _where(table, m.id),
                    (m.id, t.id),
                    f"{m.id} is {table.unit.length(gap)} from {what}: not touching it "
                    f"(G4 tolerance {table.contact_tolerance:g} mm); meant to touch? "
                    f"(at: {{touching: {t.id}, ...}} places it exactly)",
                )
            )
    return out


def _untouchable_windows(table: Table, shapes: list[BaseGeometry]) -> list[Caution]:
    """Windows no base can touch: their opening lies inside another blocking piece."""
    out = []
    others = [(t, s) for t, s in zip(table.terrain, shapes, strict=True) if t.blocks]
    for k, t in enumerate(table.terrain):
        fp = t.footprint
        if not isinstance(fp, WallFootprint):
            continue
        for w, window in enumerate(fp.windows):
            opening = fp.window_opening(window)
            for other, shape in others:
                if other.id != t.id and shape.buffer(1e-6).covers(opening):
                    out.append(
                        Caution(
                            f"terrain[{k}].wall.windows[{w}]",
                            (t.id, other.id),
                            f"window {w} of {t.id} lies inside {other.id}: no base can "
                            "touch it (F5, F6)",
                        )
                    )
                    break
    return out
