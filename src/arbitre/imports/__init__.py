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
from arbitre.constants import DEFAULT_THICKNESS as DEFAULT_THICKNESS
from arbitre.errors import Problem, RulesError, ScenarioError
from arbitre.i18n import T_, Num, join
from arbitre.imports import foundry, uvtt
from arbitre.imports.convert import Objects, Scale, document
from arbitre.imports.scale import inches, unit_inches
from arbitre.imports.scene import Dropped, Scene
from arbitre.imports.stream import read_json
from arbitre.imports.summary import Summary
from arbitre.problems import Grouped
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
                T_(
                    "neither a Universal VTT scene (resolution, line_of_sight) nor a Foundry VTT "
                    "scene (width, walls, tokens): say which with --from"
                ),
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
        raise RulesError(T_("--from {value}: expected uvtt, foundry or auto", value=repr(kind)))
    if objects not in ("cover", "blocks", "skip"):
        raise RulesError(
            T_("--objects {value}: expected cover, blocks or skip", value=repr(objects))
        )
    thickness = _length(wall_thickness, "--wall-thickness")
    source = str(path)
    doc, skipped = read_json(path, source=source, max_bytes=max_bytes)
    fmt = detect(doc, path) if kind == "auto" else kind
    if fmt == "uvtt":
        if level is not None:
            raise RulesError(
                T_("--level {value}: a Universal VTT scene has no levels", value=repr(level))
            )
        scene = uvtt.scene(doc, source=source)
    else:
        scene = foundry.scene(doc, source=source, level=level)
    pictures = [s for s in skipped if s.key in ("image", "thumb", "img", "src")]
    if pictures:
        total = sum(s.size for s in pictures)
        scene = _also_dropped(
            scene,
            Dropped(
                "pictures",
                len(pictures),
                T_("embedded ({n} bytes), never decoded", n=Grouped(total)),
            ),
        )
    others = [s for s in skipped if s not in pictures]
    if others:
        names = ", ".join(sorted({s.key or "?" for s in others}))
        unread = T_("left unread ({names})", names=names)
        scene = _also_dropped(scene, Dropped("long strings", len(others), unread))
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
        raise RulesError(
            T_("{what} {value}: expected a positive length in inches", what=what, value=repr(value))
        )
    return float(value)


def _scale(scene: Scene, cell: str | float) -> Scale:
    """Inches per cell: ``cell``, or the scene's grid length (``"grid"``)."""
    stated = f"{scene.grid[0]:g} {scene.grid[1]}" if scene.grid else None
    if isinstance(cell, str) and cell.strip().lower() == "grid":
        per = unit_inches(scene.grid[1]) if scene.grid else None
        if scene.grid is None or per is None:
            said = (
                T_("its units are {units}", units=repr(stated))
                if stated
                else T_("it states no grid length")
            )
            raise RulesError(
                T_("--cell grid: the scene's grid is not a length ({said}); give one", said=said)
            )
        k = scene.grid[0] * per
        return Scale(
            k,
            T_(
                "{stated} = {length} (the scene's grid, --cell grid)",
                stated=join((Num(scene.grid[0], "g"), scene.grid[1]), sep=" "),
                length=T_("{value} in", value=Num(k, "g")),
            ),
        )
    k = _length(cell, "--cell")
    where = (
        T_(
            "the scene's grid: {stated}",
            stated=join((Num(scene.grid[0], "g"), scene.grid[1]), sep=" "),
        )
        if scene.grid
        else T_("the scene states no grid length")
    )
    default = T_("the default") if cell == "1in" else "--cell"
    return Scale(
        k,
        T_(
            "{length} ({default}; {where})",
            length=T_("{value} in", value=Num(k, "g")),
            default=default,
            where=where,
        ),
    )


def _also_dropped(scene: Scene, more: Dropped) -> Scene:
    return replace(scene, dropped=(*scene.dropped, more))
