"""Turning an imported :class:`~arbitre.imports.scene.Scene` into a scenario document
(SCENARIO.md, format 1, ``unit: in``): cells scaled to inches, segments merged into wall
pieces (:mod:`arbitre.imports.walls`), objects made cover, blockers or nothing, tokens
made models (G2: a round base as wide as the token).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import shapely

from arbitre.i18n import N_, T_, Text
from arbitre.imports.scene import XY, Dropped, Scene
from arbitre.imports.summary import Summary
from arbitre.imports.walls import merge

Objects = Literal["cover", "blocks", "skip"]
#: Ends of segments closer than this, in cells, are one point.
#: What Universal VTT objects became (--objects), in words (message ids).
OBJECTS_AS = {"cover": N_("small cover, F3"), "blocks": N_("block, F2"), "skip": ""}
TOLERANCE = 1e-4
#: Decimals of inches written (1e-6 in is 25 nm).
DECIMALS = 6


@dataclass(frozen=True, slots=True)
class Scale:
    """Inches per grid cell and the words that say where that comes from."""

    inches: float
    said: Text


def document(
    scene: Scene,
    *,
    scale: Scale,
    thickness: float,
    objects: Objects,
    source: str,
    rules: str | None = None,
) -> tuple[dict[str, Any], Summary]:
    """The scenario document of ``scene`` (inches) and the summary of what it made."""
    k = scale.inches
    dropped = list(scene.dropped)
    table = shapely.box(0.0, 0.0, scene.width, scene.depth)
    ends = np.array([(s.a, s.b) for s in scene.segments], dtype=float).reshape(-1, 2, 2)
    near = shapely.distance(shapely.linestrings(ends), table) <= TOLERANCE
    inside = [s for s, ok in zip(scene.segments, near.tolist(), strict=True) if ok]
    if len(inside) < len(scene.segments):
        n = len(scene.segments) - len(inside)
        dropped.append(Dropped("walls", n, T_("outside the scene (in its padding)")))
    merged = merge(inside, tolerance=TOLERANCE)
    if merged.degenerate:
        dropped.append(Dropped("walls", merged.degenerate, T_("zero length")))
    terrain: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    windows = 0
    for piece in merged.pieces:
        counts[piece.kind] += 1
        points = [_xy(p, k) for p in piece.points]
        length = float(shapely.LineString(points).length)
        openings = [
            {"from": min(_r(a * k), length), "to": min(_r(b * k), length)} for a, b in piece.windows
        ]
        openings = [w for w in openings if w["to"] > w["from"]]
        windows += len(openings)
        wall: dict[str, Any] = {"points": points, "thickness": thickness}
        if openings:
            wall["windows"] = openings
        sight = "cover" if piece.kind == "cover" else "blocks"
        terrain.append({"id": f"{piece.kind}-{counts[piece.kind]}", "sight": sight, "wall": wall})
    made = len(terrain)
    if objects == "skip":
        if scene.outlines:
            dropped.append(Dropped("objects", len(scene.outlines), "--objects skip"))
    else:
        for i, outline in enumerate(scene.outlines):
            terrain.append(_object(f"object-{i + 1}", outline.points, k, thickness, objects))
    models = _models(scene, k, {t["id"] for t in terrain})
    doc: dict[str, Any] = {
        "arbitre": 1,
        "name": scene.name or source,
        "unit": "in",
        "table": [_r(scene.width * k), _r(scene.depth * k)],
    }
    if rules:
        doc["rules"] = rules
    doc["terrain"] = terrain
    doc["models"] = models
    sides = Counter(m["side"] for m in models)
    summary = Summary(
        source=source,
        format=scene.format,
        scale=scale.said,
        table=(doc["table"][0], doc["table"][1]),
        walls=counts["wall"] + counts["window"],
        cover=counts["cover"],
        windows=windows,
        doors_closed=scene.doors_closed,
        doors_open=scene.doors_open,
        tokens=tuple(sorted(sides.items())),
        objects=0 if objects == "skip" else len(scene.outlines),
        objects_as=OBJECTS_AS[objects],
        segments=merged.segments - merged.degenerate,
        pieces=made,
        dropped=tuple(dropped),
    )
    return doc, summary


def _r(v: float) -> float:
    return round(float(v), DECIMALS) + 0.0  # + 0.0: no -0.0 in the file


def _xy(p: XY, k: float) -> list[float]:
    return [_r(p[0] * k), _r(p[1] * k)]


def _object(
    ident: str, points: tuple[XY, ...], k: float, thickness: float, objects: Objects
) -> dict[str, Any]:
    """An object's outline: a polygon when it closes on itself simply, else a wall."""
    pts: list[list[float]] = []
    for p in points:
        q = _xy(p, k)
        if not pts or q != pts[-1]:
            pts.append(q)
    sight = "cover" if objects == "cover" else "blocks"
    ring = pts[:-1] if len(pts) > 3 and _near(pts[0], pts[-1], TOLERANCE * k) else None
    if ring and len({tuple(p) for p in ring}) >= 3 and shapely.Polygon(ring).is_valid:
        return {"id": ident, "sight": sight, "polygon": ring}
    if len(pts) < 2:
        pts = [pts[0], [pts[0][0] + TOLERANCE * k, pts[0][1]]]
    return {"id": ident, "sight": sight, "wall": {"points": pts, "thickness": thickness}}


def _near(p: list[float], q: list[float], tol: float) -> bool:
    return abs(p[0] - q[0]) <= tol and abs(p[1] - q[1]) <= tol


def _size(width: float) -> str:
    """The D4 size class of a token ``width`` cells wide."""
    return "small" if width < 1 else "medium" if width < 2 else "large" if width < 3 else "huge"


def _models(scene: Scene, k: float, taken: set[str]) -> list[dict[str, Any]]:
    """The tokens as models: ids from their names (``goblin-2``), unique."""
    models = []
    used = set(taken)
    for t in scene.tokens:
        base = re.sub(r"[^a-z0-9]+", "-", t.name.lower()).strip("-")[:40] or "token"
        ident, n = base, 1
        while ident in used:
            n += 1
            ident = f"{base}-{n}"
        used.add(ident)
        model: dict[str, Any] = {"id": ident, "side": t.side, "at": _xy(t.at, k)}
        if t.name:
            model["name"] = t.name
        model["base"] = _r(t.width * k)
        model["size"] = _size(t.width)
        if t.elevation > 0:
            model["elevation"] = _r(t.elevation * k)
        models.append(model)
    return models
