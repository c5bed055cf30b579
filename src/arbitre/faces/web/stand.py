""" "Where can I stand?" for the page (issue 14 item 5): the sight map of the selected
model read on a coarse grid (:func:`arbitre.maps.sight_map`, :func:`arbitre.maps.raster`),
sent as a compact message the page draws under the table.

The map is asked off the drag's critical path: the server computes it after a drop (or
any other change), in the background, and drops a result that a newer table has made
stale (:class:`Job` carries the key it was asked for). Results are kept per key, so
undoing a move shows its map again at once. Nothing is ruled here: every cell is the
engine's (exact per point at the cell's centre).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from arbitre import i18n, maps
from arbitre.errors import ArbitreError
from arbitre.i18n import N_, tr
from arbitre.rules import ruleset_for
from arbitre.table import Table

#: Cells across the longer side of the table (the pitch is rounded to whole mm, >= 10).
CELLS = 60
#: The rulesets that draw a map, and the one used for any other (the table's own first).
RULES = tuple(maps.MAKERS)
#: Results kept per session (undo and redo show theirs at once).
KEPT = 8
#: Rulesets whose map is a grid of per-point rulings, too slow to follow the page's
#: moves (Dark Age: one ``los`` per cell, minutes for the demo): said, not drawn.
SLOW = {
    "darkage": N_(
        "Dark Age maps rule every cell one by one (D3-D4), minutes for a table: run "
        "arbitre map FILE --model ID --rules darkage"
    ),
}


def pitch_for(table: Table) -> float:
    """The cell size in mm: about :data:`CELLS` cells across, at least 10 mm."""
    return float(max(10, round(max(table.width, table.depth) / CELLS)))


def rules_for(table: Table, rules: str | None) -> str:
    """The ruleset whose map is drawn: the view's when it has a map, else the table's,
    else Frostgrave."""
    for name in (rules, table.rules):
        if name is None:
            continue
        try:
            found = ruleset_for(table, "los", name).name
        except ArbitreError:
            continue
        if found in RULES:
            return found
    return "frostgrave"


Key = tuple[int, str, str, float, tuple[tuple[str, Any], ...]]


@dataclass(frozen=True, slots=True)
class Job:
    """One map to compute: the table as it was, the model, the ruleset and pitch."""

    key: Key
    table: Table
    model: str
    rules: str
    pitch: float
    options: tuple[tuple[str, Any], ...]

    def run(self) -> dict[str, Any]:
        """The ``stand`` message: per cell, how many enemies see its centre (``seen``)
        and the least cover among them (-1 where none), rows from the bottom."""
        start = time.perf_counter()
        options = {k: v for k, v in self.options if k != "(lang)"}
        with i18n.speaking(dict(self.options).get("(lang)", "en")):
            return self._run(options, start)

    def _run(self, options: dict[str, Any], start: float) -> dict[str, Any]:
        m = maps.sight_map(
            self.table,
            model=self.model,
            rules=self.rules,
            options=options or None,
            pitch=self.pitch,
        )
        r = maps.raster(m, self.pitch)
        ms = (time.perf_counter() - start) * 1000
        return {
            "type": "stand",
            "model": self.model,
            "rules": self.rules,
            "pitch": self.pitch,
            "x0": float(r.xs[0]) if r.xs.size else 0.0,
            "y0": float(r.ys[0]) if r.ys.size else 0.0,
            "columns": int(r.xs.size),
            "rows": int(r.ys.size),
            "shooters": list(m.shooters),
            "seen": r.seen.ravel().tolist(),
            "cover": r.least_cover.ravel().tolist(),
            "method": str(m.method),  # worded in the session's language
            "compute_ms": round(ms, 1),
        }


class Maps:
    """A session's overlay: on or off, the results kept by key, the latest key asked."""

    def __init__(self) -> None:
        self.on = False
        # each result with the table it is of (an id may be reused once a table is gone)
        self.kept: OrderedDict[Key, tuple[Table, dict[str, Any]]] = OrderedDict()
        self.latest: Key | None = None

    def job(
        self, table: Table, model: str | None, rules: str | None, options: tuple[Any, ...]
    ) -> Job | dict[str, Any] | None:
        """What the overlay needs now: nothing (off, no model, or the map sent is
        current), a kept result (a dict), or a :class:`Job` to run in the background."""
        if not self.on or model is None or model not in table:
            self.latest = None
            return None
        name = rules_for(table, rules)
        pitch = pitch_for(table)
        key: Key = (id(table), model, name, pitch, tuple(options))
        if key == self.latest:
            return None
        self.latest = key
        if name in SLOW:
            return {
                "type": "stand",
                "model": model,
                "rules": name,
                "unavailable": tr(SLOW[name]),
            }
        kept = self.kept.get(key)
        if kept is not None and kept[0] is table:
            self.kept.move_to_end(key)
            return kept[1]
        return Job(key, table, model, name, pitch, tuple(options))

    def done(self, job: Job, reply: dict[str, Any]) -> bool:
        """Keep a result; whether it is still the one wanted (else it is not sent)."""
        self.kept[job.key] = (job.table, reply)
        while len(self.kept) > KEPT:
            self.kept.popitem(last=False)
        return job.key == self.latest
