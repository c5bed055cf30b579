"""Importing the scenes players already have: Universal VTT (``.dd2vtt``, ``.uvtt``,
``.df2vtt``) and Foundry VTT scene JSON, as tables (G1-G3) and scenario documents.

``import_scene("crypt.dd2vtt")`` gives the table, the scenario document and the summary
(:class:`Imported`); :func:`load_uvtt` and :func:`load_foundry` give the table alone.

A grid cell is 1 inch unless ``cell`` says otherwise (a length, ``"25mm"``, or
``"grid"``: the scene's own grid length when its units are a length); walls are
``wall_thickness`` thick (default 0.1 in). The scenario is written in inches.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from arbitre import reading, scenario
from arbitre.errors import Problem, RulesError, ScenarioError
from arbitre.imports import foundry, uvtt
from arbitre.imports.convert import Objects, Scale, document
from arbitre.imports.scale import inches, unit_inches
from arbitre.imports.scene import Dropped, Scene
from arbitre.imports.stream import read_json
from arbitre.imports.summary import Summary
from arbitre.table import Table

__all__ = [
    "Imported",
    "Summary",
    "detect",
    "import_scene",
    "load_foundry",
    "load_uvtt",
]

Format = Literal["uvtt", "foundry"]
#: Wall thickness when none is given, in inches: a drawn wall line.
DEFAULT_THICKNESS = 0.1
UVTT_SUFFIXES = (".dd2vtt", ".uvtt", ".df2vtt")


@dataclass(frozen=True, slots=True)
class Imported:
    """An imported scene: its table, the scenario document that loads as it, the summary."""

    table: Table
    document: dict[str, Any]
    summary: Summary


def detect(doc: object, path: str | os.PathLike[str] | None = None) -> Format:
    """Which format a parsed scene document is in: by its fields (``resolution`` and
    ``line_of_sight`` are Universal VTT; ``walls``, ``tokens`` or ``grid`` with ``width``
    are Foundry), else by the file's suffix; a ScenarioError when neither tells."""
    if isinstance(doc, dict):
        if "resolution" in doc and ("line_of_sight" in doc or "portals" in doc):
            return "uvtt"
        if ("walls" in doc or "tokens" in doc or "grid" in doc) and "width" in doc:
            return "foundry"
    if path is not None and Path(path).suffix.lower() in UVTT_SUFFIXES:
        return "uvtt"
    raise ScenarioError(
        [
            Problem(
                "",
                "neither a Universal VTT scene (resolution, line_of_sight) nor a Foundry VTT "
                "scene (width, walls, tokens): say which with --from",
            )
        ],
        source=None if path is None else str(path),
    )


def import_scene(
    path: str | os.PathLike[str],
    *,
    kind: Literal["auto", "uvtt", "foundry"] = "auto",
    cell: str | float = "1in",
    wall_thickness: str | float = DEFAULT_THICKNESS,
    objects: Objects = "cover",
    level: str | None = None,
    rules: str | None = "frostgrave",
    max_bytes: int = reading.MAX_BYTES,
) -> Imported:
    """Import the scene file ``path``: its table, scenario document and summary.

    ``kind`` is the format (``auto``: :func:`detect`); ``cell`` the length of a grid cell
    (``"1in"``, a number of inches, or ``"grid"``: the scene's grid length); ``objects``
    what Universal VTT objects become (``cover``: small, F3; ``blocks``: large, F2;
    ``skip``); ``level`` the Foundry v14 level imported (id or name); ``rules`` the
    ruleset the scenario names (None: none).
    """
    if kind not in ("auto", "uvtt", "foundry"):
        raise RulesError(f"--from {kind!r}: expected uvtt, foundry or auto")
    if objects not in ("cover", "blocks", "skip"):
        raise RulesError(f"--objects {objects!r}: expected cover, blocks or skip")
    thickness = _length(wall_thickness, "--wall-thickness")
    source = str(path)
    doc, skipped = read_json(path, source=source, max_bytes=max_bytes)
    fmt = detect(doc, path) if kind == "auto" else kind
    if fmt == "uvtt":
        if level is not None:
            raise RulesError(f"--level {level!r}: a Universal VTT scene has no levels")
        scene = uvtt.scene(doc, source=source)
    else:
        scene = foundry.scene(doc, source=source, level=level)
    pictures = [s for s in skipped if s.key in ("image", "thumb", "img", "src")]
    if pictures:
        total = sum(s.size for s in pictures)
        scene = _also_dropped(
            scene,
            Dropped("pictures", len(pictures), f"embedded ({total:,} bytes), never decoded"),
        )
    others = [s for s in skipped if s not in pictures]
    if others:
        names = ", ".join(sorted({s.key or "?" for s in others}))
        scene = _also_dropped(scene, Dropped("long strings", len(others), f"left unread ({names})"))
    written, summary = document(
        scene,
        scale=_scale(scene, cell),
        thickness=round(thickness, 6),
        objects=objects,
        source=Path(path).name,
        rules=rules,
    )
    table = scenario.from_dict(written, source=f"{source} (imported)")
    return Imported(table, written, summary)


def load_uvtt(path: str | os.PathLike[str], **options: Any) -> Table:
    """The table of a Universal VTT scene (options as :func:`import_scene`)."""
    return import_scene(path, kind="uvtt", **options).table


def load_foundry(path: str | os.PathLike[str], **options: Any) -> Table:
    """The table of a Foundry VTT scene (options as :func:`import_scene`)."""
    return import_scene(path, kind="foundry", **options).table


def _length(value: str | float, what: str) -> float:
    if isinstance(value, str):
        return inches(value, what)
    if isinstance(value, bool) or not (0 < float(value) <= 1e6):
        raise RulesError(f"{what} {value!r}: expected a positive length in inches")
    return float(value)


def _scale(scene: Scene, cell: str | float) -> Scale:
    """Inches per cell: ``cell``, or the scene's grid length (``"grid"``)."""
    stated = f"{scene.grid[0]:g} {scene.grid[1]}" if scene.grid else None
    if isinstance(cell, str) and cell.strip().lower() == "grid":
        per = unit_inches(scene.grid[1]) if scene.grid else None
        if scene.grid is None or per is None:
            said = f"its units are {stated!r}" if stated else "it states no grid length"
            raise RulesError(f"--cell grid: the scene's grid is not a length ({said}); give one")
        k = scene.grid[0] * per
        return Scale(k, f"{stated} = {k:g} in (the scene's grid, --cell grid)")
    k = _length(cell, "--cell")
    where = f"the scene's grid: {stated}" if stated else "the scene states no grid length"
    default = "the default" if cell == "1in" else "--cell"
    return Scale(k, f"{k:g} in ({default}; {where})")


def _also_dropped(scene: Scene, more: Dropped) -> Scene:
    return replace(scene, dropped=(*scene.dropped, more))
