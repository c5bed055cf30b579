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
from arbitre.i18n import T_, Num, Text, current, unit_name
from arbitre.table import Table, Unit

#: Plausible base diameters, in mm (F8 recommends 25 mm; the largest monsters ~ 160 mm).
BASE_MM = (10.0, 200.0)
#: A model this close to a piece or a window without touching it was likely meant to.
NEAR_MM = 2.0


@dataclass(frozen=True, slots=True)
class Caution:
    """One plausible mistake: what it is about (a path-like place), the ids, in words."""

    where: str
    ids: tuple[str, ...]
    text: Text | str  # worded when printed

    def __str__(self) -> str:
        return str(T_("{path}: {message}", path=self.where, message=self.text))


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
            _implausible(u, m.base.diameter, lo, hi),
        )
        for m in table.models
        if m.base.diameter > 0 and not lo <= m.base.diameter <= hi
    ]


def _implausible(u: Unit, d: float, lo: float, hi: float) -> Text:
    """A base of diameter ``d`` mm outside the plausible ``lo``-``hi`` mm, in words."""
    words = {
        "base": u.measure(d),
        "mm": d,
        "lo": Num(lo, "g"),
        "hi": Num(hi, "g"),
        "unit": UnitName(u.name),
    }
    if d < lo:
        return T_(
            "base {base} ({mm} mm) is under the plausible {lo}-{hi} mm "
            "(a base in mm in an {unit} file?)",
            **words,
        )
    return T_(
        "base {base} ({mm} mm) is over the plausible {lo}-{hi} mm "
        "(a base in mm in an {unit} file?)",
        **words,
    )


@dataclass(frozen=True, slots=True)
class UnitName:
    """A unit's name in the current language ("in" / "po"), worded when printed."""

    name: str

    def __str__(self) -> str:
        return unit_name(self.name, current())


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
                    T_(
                        "the bases of {a} and {b} overlap by {depth}",
                        a=m.id,
                        b=n.id,
                        depth=table.unit.measure(float(d)),
                    ),
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
                    T_(
                        "{model} stands inside blocking terrain {piece} "
                        "(in that building? say `inside: {piece}`, and `building: true` on it)",
                        model=m.id,
                        piece=t.id,
                    ),
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
            what: Text | str = t.id
            fp = t.footprint
            if isinstance(fp, WallFootprint):
                for k, window in enumerate(fp.windows):
                    g = float(shapely.distance(points[i], fp.window_slice(window))) - r[i]
                    if g <= NEAR_MM + 1e-9:
                        what = T_("window {k} of {piece}", k=k, piece=t.id)
                        break
            out.append(
                Caution(
                    _where(table, m.id),
                    (m.id, t.id),
                    T_(
                        "{model} is {gap} from {what}: not touching it (G4 tolerance "
                        "{tolerance} mm); meant to touch? (at: {{touching: {piece}, ...}} "
                        "places it exactly)",
                        model=m.id,
                        gap=table.unit.measure(gap),
                        what=what,
                        tolerance=Num(table.contact_tolerance, "g"),
                        piece=t.id,
                    ),
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
                            T_(
                                "window {k} of {piece} lies inside {other}: no base can "
                                "touch it (F5, F6)",
                                k=w,
                                piece=t.id,
                                other=other.id,
                            ),
                        )
                    )
                    break
    return out
