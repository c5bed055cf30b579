"""A map as GeoJSON (RFC 7946) that is also a JSON 2 envelope (issue 14).

The document is a ``FeatureCollection`` in the table's report unit (x, y on the table,
origin at its lower-left corner: plane coordinates, not longitude and latitude). Each
face is a ``Feature`` whose properties name the shooters that see it (``seen_by``), the
cover each gives (``cover``), their count (``seen``), the least cover among them, and
whether the face is an exact shape or cells ruled one by one (``exact``; Mordheim's
cells, :attr:`~arbitre.maps.SightMap.cells`, follow the faces). With a reach,
the faces are cut to the reachable region, which is a feature of its own, and the best
spot a ``Point`` feature with its path.

The JSON 2 envelope's members (``arbitre``, ``kind: "map"``, ``rules``, ``unit``,
``options``, ``rulings``) ride along as foreign members, which GeoJSON allows: GIS tools
read the features, arbitre's readers the envelope. The one ruling carries the map's
reasons and its method, without the geometry.
"""

from __future__ import annotations

from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from arbitre.maps import SightMap
from arbitre.maps.pieces import PHANTOM
from arbitre.rules.options import as_dict, shared_options
from arbitre.rules.ruling import JSON_VERSION, NO_MARGIN, length, point, reasons_json
from arbitre.table import Unit


def _geometry(shape: BaseGeometry, unit: Unit) -> dict[str, Any]:
    """A shape's GeoJSON geometry, coordinates in ``unit`` (6 decimals of it)."""
    scaled = shapely.transform(shape, lambda xy: xy / unit.mm)
    rounded = shapely.set_precision(scaled, 1e-6)
    doc: dict[str, Any] = _plain(shapely.geometry.mapping(rounded))
    return doc


def _plain(doc: Any) -> Any:
    """Tuples as lists, all the way down (JSON arrays)."""
    if isinstance(doc, dict):
        return {k: _plain(v) for k, v in doc.items()}
    if isinstance(doc, (list, tuple)):
        return [_plain(v) for v in doc]
    return doc


def document(m: SightMap, options: dict[str, object] | None = None) -> dict[str, Any]:
    """The GeoJSON FeatureCollection of ``m``, with the JSON 2 envelope's members."""
    unit = m.table.unit
    region = m.reach.region if m.reach is not None else None
    features = []
    for i, face in enumerate((*m.faces, *m.cells)):
        shape = face.shape if region is None else shapely.intersection(face.shape, region)
        if shape.is_empty or shape.area <= 0:
            continue
        features.append(
            {
                "type": "Feature",
                "id": i,
                "geometry": _geometry(shape, unit),
                "properties": {
                    "seen": len(face.seen_by),
                    "seen_by": [a for a, _ in face.seen_by],
                    "cover": {a: c for a, c in face.seen_by},
                    "least_cover": face.least_cover,
                    "exact": face.exact,
                },
            }
        )
    if m.reach is not None:
        features.append(
            {
                "type": "Feature",
                "id": "reach",
                "geometry": _geometry(m.reach.region, unit),
                "properties": {"reach": length(unit, m.reach.length)},
            }
        )
        if m.reach.best is not None:
            features.append(
                {
                    "type": "Feature",
                    "id": "best",
                    "geometry": {"type": "Point", "coordinates": point(unit, m.reach.best)},
                    "properties": {
                        "best": True,
                        "face": m.reach.face,
                        "distance": length(unit, m.reach.distance),
                        "path": [point(unit, p) for p in m.reach.path],
                    },
                }
            )
    opts = as_dict(shared_options(m.table)) | dict(options or {})
    return {
        "type": "FeatureCollection",
        "arbitre": JSON_VERSION,
        "kind": "map",
        "rules": m.rules,
        "unit": unit.name,
        "options": opts,
        "rulings": [ruling(m)],
        "features": features,
    }


def ruling(m: SightMap) -> dict[str, Any]:
    """The map's one ruling for the envelope: who, against whom, how, and why."""
    unit = m.table.unit
    best = m.reach.best if m.reach is not None else None
    return {
        "kind": "map",
        "model": None if m.model == PHANTOM else m.model,
        "side": m.side,
        "base": length(unit, 2 * m.radius),
        "shooters": list(m.shooters),
        "method": str(m.method),
        "faces": len(m.faces),
        "reach": None if m.reach is None else length(unit, m.reach.length),
        "best": None if best is None else point(unit, best),
        "reasons": reasons_json(m.reasons),
        "refusals": [],
        **NO_MARGIN.to_json(unit),
    }


def raster_json(r: Any, unit: Unit) -> dict[str, Any]:
    """A raster (:class:`arbitre.maps.Raster`) for JSON: the cell size and the first
    cell's centre in ``unit``, rows from the bottom of the table, -1 where no enemy sees."""
    return {
        "pitch": length(unit, r.pitch),
        "first_centre": point(unit, (float(r.xs[0]), float(r.ys[0]))) if r.xs.size else None,
        "columns": int(r.xs.size),
        "rows": int(r.ys.size),
        "seen": r.seen.tolist(),
        "least_cover": r.least_cover.tolist(),
        "most_cover": r.most_cover.tolist(),
    }
