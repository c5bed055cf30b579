"""Lengths given on the command line or by a scene (``1in``, ``25mm``, ``5 ft``), in
inches, the unit imported scenarios are written in (G1)."""

from __future__ import annotations

import math
import re

from arbitre.errors import RulesError
from arbitre.i18n import T_

#: Inches per length unit, by the names scenes and people write.
INCHES = {
    "in": 1.0,
    "inch": 1.0,
    "inches": 1.0,
    '"': 1.0,
    "mm": 1 / 25.4,
    "cm": 1 / 2.54,
    "m": 1000 / 25.4,
    "meter": 1000 / 25.4,
    "meters": 1000 / 25.4,
    "metre": 1000 / 25.4,
    "metres": 1000 / 25.4,
    "km": 1_000_000 / 25.4,
    "ft": 12.0,
    "ft.": 12.0,
    "feet": 12.0,
    "foot": 12.0,
    "yd": 36.0,
    "yard": 36.0,
    "yards": 36.0,
    "mi": 63_360.0,
    "mile": 63_360.0,
    "miles": 63_360.0,
}
_LENGTH = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([^\s0-9].*?)?\s*$")


def unit_inches(unit: str) -> float | None:
    """Inches per ``unit`` (``ft``, ``m``...), or None when it is not a length."""
    return INCHES.get(unit.strip().lower())


def inches(text: str, what: str) -> float:
    """The length ``text`` (``1in``, ``2.5 cm``; a bare number is in inches) in inches; a
    :class:`RulesError` naming ``what`` otherwise."""
    m = _LENGTH.match(text)
    per = unit_inches(m.group(2) or "in") if m else None
    value = float(m.group(1)) * per if m and per is not None else math.nan
    if not (math.isfinite(value) and 0 < value <= 1e6):
        units = ", ".join(sorted({"in", "mm", "cm", "m", "ft", "yd"}))
        raise RulesError(
            T_(
                "{what} {text}: expected a positive length such as 1in or 25mm ({units})",
                what=what,
                text=repr(text),
                units=units,
            )
        )
    return value
