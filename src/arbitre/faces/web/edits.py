"""Building a table from the page: add, change, delete, move, rotate and resize pieces and
models, as edits of the scenario document (in mm) loaded back through the one loader.

Every edit goes through :func:`arbitre.scenario.from_dict`, so a bad piece is refused with
the loader's own problems and paths (``terrain[3].circle.radius: ...``), and the table
stays as it was. Nothing here rules anything.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

import shapely
import shapely.affinity

from arbitre import scenario
from arbitre.faces.web.protocol import MessageError
from arbitre.i18n import T_, _
from arbitre.table import Table

KINDS = {"terrain": "terrain", "model": "models"}


def _points_of(item: Mapping[str, Any]) -> list[list[float]]:
    """Every point of a piece or model document, for its centre."""
    if "polygon" in item:
        return [list(p) for p in item["polygon"]]
    if "circle" in item:
        return [list(item["circle"]["at"])]
    if "wall" in item:
        return [list(p) for p in item["wall"]["points"]]
    if "at" in item and isinstance(item["at"], list):
        return [list(item["at"])]
    return []


def _transform(item: dict[str, Any], dx: float, dy: float, angle: float, scale: float) -> None:
    """Move ``item`` by ``(dx, dy)`` mm, rotate it ``angle`` degrees and scale it by
    ``scale`` about its centre, in place."""
    pts = _points_of(item)
    if not pts:
        return
    hull = shapely.MultiPoint(pts)
    c = hull.centroid if "polygon" not in item else shapely.Polygon(pts).centroid

    def move(p: list[float]) -> list[float]:
        g = shapely.Point(p)
        g = shapely.affinity.scale(g, scale, scale, origin=c)
        g = shapely.affinity.rotate(g, angle, origin=c)
        return [g.x + dx, g.y + dy]

    if "polygon" in item:
        item["polygon"] = [move(p) for p in item["polygon"]]
    elif "circle" in item:
        item["circle"] = {
            "at": move(item["circle"]["at"]),
            "radius": item["circle"]["radius"] * scale,
        }
    elif "wall" in item:
        w = item["wall"]
        w["points"] = [move(p) for p in w["points"]]
        w["windows"] = [{"from": x["from"] * scale, "to": x["to"] * scale} for x in w["windows"]]
    elif "at" in item:
        item["at"] = move(item["at"])
        if scale != 1 and item.get("base"):
            item["base"] = item["base"] * scale


def _find(items: list[dict[str, Any]], ident: str) -> int:
    for i, item in enumerate(items):
        if item.get("id") == ident:
            return i
    raise MessageError(T_("edit: no piece or model {id}", id=repr(ident)))


def _free_id(doc: Mapping[str, Any], stem: str) -> str:
    taken = {x.get("id") for key in ("terrain", "models") for x in doc.get(key, [])}
    n = 1
    while f"{stem}-{n}" in taken:
        n += 1
    return f"{stem}-{n}"


def apply(table: Table, edit: Mapping[str, Any]) -> Table:
    """The table after ``edit``: ``{"op": "add", "kind": "terrain"|"model", "item": {...}}``
    (a SCENARIO.md piece or model in mm; a missing id is made up), ``{"op": "update",
    "id", "item"}`` (fields replaced; ``inside: null`` takes a model out of its building,
    ``building: false`` takes everybody out of that piece), ``{"op": "delete", "id"}``,
    ``{"op": "transform", "id", "dx", "dy", "angle", "scale"}``, ``{"op": "table",
    "width", "depth"}``."""
    doc = scenario.dump(table)
    doc.setdefault("terrain", [])
    doc.setdefault("models", [])
    op = edit.get("op")
    if op == "add":
        key = KINDS.get(str(edit.get("kind")))
        item = edit.get("item")
        if key is None or not isinstance(item, dict):
            raise MessageError(T_("edit add: needs kind (terrain or model) and an item object"))
        item = copy.deepcopy(item)
        item.setdefault("id", _free_id(doc, "piece" if key == "terrain" else "model"))
        doc[key].append(item)
    elif op in ("update", "delete", "transform"):
        ident = edit.get("id")
        if not isinstance(ident, str):
            raise MessageError(T_("edit {op}: needs the id of a piece or model", op=op))
        key = "models" if ident in {m.id for m in table.models} else "terrain"
        i = _find(doc[key], ident)
        if op == "delete":
            del doc[key][i]
            for m in doc["models"]:  # who was engaged with it, or inside it, no longer is
                if "engaged" in m:
                    m["engaged"] = [e for e in m["engaged"] if e != ident]
                if m.get("inside") == ident:
                    del m["inside"]
        elif op == "update":
            item = edit.get("item")
            if not isinstance(item, dict):
                raise MessageError(T_("edit update: needs an item object"))
            shape_keys = {"polygon", "rect", "circle", "wall"}
            if shape_keys & set(item):
                for k in shape_keys:
                    doc[key][i].pop(k, None)
            doc[key][i].update(copy.deepcopy(item))
            if item.get("inside", "") is None:  # out of any building
                del doc[key][i]["inside"]
            if key == "terrain" and item.get("building") is False:
                for m in doc["models"]:  # a piece no longer a building has nobody inside
                    if m.get("inside") == ident:
                        del m["inside"]
        else:
            values = [edit.get(k, d) for k, d in (("dx", 0), ("dy", 0), ("angle", 0), ("scale", 1))]
            if not all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                for v in values
            ):
                raise MessageError(
                    T_(
                        "edit transform: dx, dy, angle, scale must be numbers: {values}",
                        values=values,
                    )
                )
            dx, dy, angle, scale = (float(v) for v in values)
            if not 0.01 <= scale <= 100:
                raise MessageError(
                    T_("edit transform: scale {scale} out of 0.01..100", scale=format(scale, "g"))
                )
            _transform(doc[key][i], dx, dy, angle, scale)
    elif op == "table":
        w, d = edit.get("width"), edit.get("depth")
        doc["table"] = [w, d]
    else:
        raise MessageError(
            T_(
                "edit: unknown op {op} (ops: add, update, delete, transform, table)",
                op=repr(str(op)[:40]),
            )
        )
    return scenario.from_dict(doc, source="edit")


def blank(width: float = 914.4, depth: float = 914.4, unit: str = "in") -> Table:
    """An empty table (3 feet square by default), for building from nothing."""
    mm = {"in": 25.4, "cm": 10.0, "mm": 1.0}[unit]
    return scenario.from_dict(
        {
            "arbitre": 1,
            "name": _("New table"),
            "rules": "frostgrave",
            "unit": unit,
            "table": [width / mm, depth / mm],
        },
        source="new table",
    )
