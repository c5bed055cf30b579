"""Saving the page's table as a scenario file in the file's own unit (G1).

:func:`arbitre.scenario.dump` writes every length in mm and keeps the unit as
``report_unit``; a player who opened an inches file wants inches back. :func:`in_unit`
rewrites such a document in its report unit (every length of SCENARIO.md divided by the
unit's mm), so that it loads back as the same table (within float rounding) and reads
like the file it came from. ``contact_tolerance`` and ``beam`` stay in mm (SCENARIO.md).
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

from arbitre import scenario
from arbitre.table import Table


def _points(points: list[list[float]], k: float) -> list[list[float]]:
    return [[_r(x, k), _r(y, k)] for x, y in points]


def _r(mm_value: float, k: float) -> float:
    """``mm_value`` in a unit of ``k`` mm, written with the fewest digits (10 to 17
    significant) that load back as the same millimetres, else exact."""
    value = mm_value / k
    for digits in range(10, 18):
        short = float(f"{value:.{digits}g}")
        if short * k == mm_value:
            return short
    return value


def in_unit(doc: dict[str, Any], unit: str, mm: float) -> dict[str, Any]:
    """The mm document ``doc`` (as :func:`arbitre.scenario.dump` writes) rewritten in
    ``unit`` of ``mm`` millimetres: table size, points, radii, thicknesses, windows,
    bases, heights, elevations and weapon ranges."""
    out = copy.deepcopy(doc)
    out.pop("report_unit", None)
    out["unit"] = unit
    out["table"] = [_r(v, mm) for v in out["table"]]
    for piece in out.get("terrain", []):
        if "polygon" in piece:
            piece["polygon"] = _points(piece["polygon"], mm)
        if "circle" in piece:
            c = piece["circle"]
            piece["circle"] = {"at": _points([c["at"]], mm)[0], "radius": _r(c["radius"], mm)}
        if "wall" in piece:
            w = piece["wall"]
            w["points"] = _points(w["points"], mm)
            w["thickness"] = _r(w["thickness"], mm)
            w["windows"] = [
                {"from": _r(x["from"], mm), "to": _r(x["to"], mm)} for x in w["windows"]
            ]
        if piece.get("height") is not None:
            piece["height"] = _r(piece["height"], mm)
    for model in out.get("models", []):
        model["at"] = _points([model["at"]], mm)[0]
        for key in ("base", "height", "elevation"):
            if model.get(key) is not None:
                model[key] = _r(model[key], mm)
        for weapon in model.get("weapons", []):
            if weapon.get("range") is not None:
                weapon["range"] = _r(weapon["range"], mm)
    return out


def document(table: Table) -> dict[str, Any]:
    """The scenario document of ``table`` in its report unit (mm when it has none that a
    scenario can state)."""
    doc = scenario.dump(table)
    unit = doc.get("report_unit")
    if unit is None:
        return doc
    return in_unit(doc, unit, table.unit.mm)


def to_yaml(table: Table) -> str:
    """The YAML text of ``table`` in its own unit, loadable by ``arbitre validate``."""
    text: str = yaml.safe_dump(document(table), sort_keys=False, allow_unicode=True, width=100)
    return "# saved by arbitre serve\n" + text
