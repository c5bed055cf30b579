"""What a drag keeps of the M rules: each shooter-target pair's sight, by what it rests on.

The page re-rules the targets panel on every step of a drag, and a step moves one model:
most pairs have the same pieces around them as before, so the same S2 shares, hiding
pieces and M12 windows (:func:`arbitre.rules.mordheim.sight.measure_facts`), the same G8
margins and the same target facts and words (:func:`arbitre.rules.mordheim.target.
target_facts`). This module keeps them, each under a key holding everything its
measure reads:

- the *context* (:class:`Store`): the table's terrain (a table made by moving models keeps
  its terrain tuple), its conventions (unit, contact tolerance, beam, options, size
  classes), the M12 ``windows`` option and the models' ids in table order;
- the shooter and the target (the models themselves: their place, base, building...);
- every other base whose box comes within :func:`reach` of the box of the shooter's
  centre and the target's base: its index and ``x, y, r``. That reach is beyond every
  distance a measure looks at: the beam (S2's broad phase), the G4 joints and bridges
  (the contact tolerance, :data:`margins.JOINT`) and the margins' candidates
  (:data:`margins.FAR` from the region seen, which lies in that box);
- for the margins, the box distance of the nearest base beyond that reach, as the
  margins measure it (:func:`margins.box_gaps`: the lower bound of
  :func:`margins._candidates_many`), and the pair's cap (:func:`deciding.unseen_caps`);
- for the target's facts and words, the weapon, the BS, whether the game has more than
  two warbands, the options and the fights (:func:`fights_sign`, M4).

So a pair whose key is the same has the same facts, bit for bit: the measures of a batch
are made pair by pair (the oracle test asks a drag's every step with and without what
is kept). What is kept is bounded (:data:`KEPT` entries a kind and context,
:data:`CONTEXTS` contexts) and guarded by a lock (the page serves several connections
from threads). A new terrain, option or model list starts another context; the
benchmarks that time fresh tables of the same content call :func:`clear` first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arbitre import sight
from arbitre.rules.mordheim import margins
from arbitre.table import Table

#: Entries each kind keeps per context (a few drags' worth of a 200-model table's pairs).
KEPT = 8192
#: Contexts kept (tables of other terrain, conventions or options).
CONTEXTS = 4
#: mm beyond the contact tolerance and the half beam that a pair's key looks for bases.
SPARE = 1.0

_LOCK = threading.Lock()


@dataclass(eq=False)
class Store:
    """The pairs kept for one context: ``terrain`` (by identity, else equality) and
    ``settings`` (by equality)."""

    terrain: tuple[Any, ...]
    settings: tuple[Any, ...]
    kinds: dict[str, OrderedDict[Hashable, Any]] = field(default_factory=dict)

    def get(self, kind: str, key: Hashable) -> Any:
        with _LOCK:
            found = self.kinds.get(kind)
            if found is None or key not in found:
                return None
            found.move_to_end(key)
            return found[key]

    def put(self, kind: str, key: Hashable, value: Any) -> None:
        with _LOCK:
            found = self.kinds.setdefault(kind, OrderedDict())
            found[key] = value
            found.move_to_end(key)
            while len(found) > KEPT:
                found.popitem(last=False)


_STORES: list[Store] = []


def store(table: Table, windows: str) -> Store:
    """The :class:`Store` of ``table``'s context (made when none matches)."""
    settings = (
        windows,
        table.width,
        table.depth,
        table.unit,
        table.contact_tolerance,
        table.beam,
        table.options,
        table.size_classes,
        table.toise,
        tuple(m.id for m in table.models),
    )
    with _LOCK:
        for k, s in enumerate(_STORES):
            if (s.terrain is table.terrain or s.terrain == table.terrain) and (
                s.settings == settings
            ):
                _STORES.insert(0, _STORES.pop(k))
                return s
        made = Store(table.terrain, settings)
        _STORES.insert(0, made)
        del _STORES[CONTEXTS:]
        return made


def clear() -> None:
    """Forget every pair kept (the tests' fresh start)."""
    with _LOCK:
        _STORES.clear()


def reach(table: Table) -> float:
    """How far (mm) from a pair's box a base can change its measures: the margins'
    candidates and joints, the contact tolerance, the half beam, and :data:`SPARE`."""
    return margins.FAR + margins.JOINT + table.contact_tolerance + table.beam / 2 + SPARE


def pair_keys(table: Table, pairs: Sequence[tuple[str, str]]) -> list[Hashable]:
    """The key of each ``(shooter, target)`` pair (its context aside): the two models, the
    bases within :func:`reach` of their box (indices and ``x, y, r``) and the box distance
    of the nearest base beyond, as the margins measure it."""
    if not pairs:
        return []
    xy, r = sight.positions(table)
    s = np.asarray([table.model_index(a) for a, _ in pairs], dtype=np.int64)
    g = np.asarray([table.model_index(b) for _, b in pairs], dtype=np.int64)
    grow = reach(table)
    lo_x = np.minimum(xy[s, 0], xy[g, 0] - r[g]) - grow
    hi_x = np.maximum(xy[s, 0], xy[g, 0] + r[g]) + grow
    lo_y = np.minimum(xy[s, 1], xy[g, 1] - r[g]) - grow
    hi_y = np.maximum(xy[s, 1], xy[g, 1] + r[g]) + grow
    near = (
        (xy[None, :, 0] - r[None, :] <= hi_x[:, None])
        & (xy[None, :, 0] + r[None, :] >= lo_x[:, None])
        & (xy[None, :, 1] - r[None, :] <= hi_y[:, None])
        & (xy[None, :, 1] + r[None, :] >= lo_y[:, None])
    )
    rows = np.arange(len(pairs))
    near[rows, s] = near[rows, g] = False
    views = [
        margins.view(xy[a, 0], xy[a, 1], xy[b, 0], xy[b, 1], r[b])
        for a, b in zip(s.tolist(), g.tolist(), strict=True)
    ]
    box = np.asarray([v.bounds for v in views], dtype=np.float64).reshape(-1, 4)
    gap = margins.box_gaps(box, margins.base_boxes(table))
    gap[near] = np.inf
    gap[rows, s] = gap[rows, g] = np.inf
    far = gap.min(axis=1) if gap.shape[1] else np.full(len(pairs), np.inf)
    packed = np.column_stack([xy, r])
    keys: list[Hashable] = []
    for i, (a, b) in enumerate(zip(s.tolist(), g.tolist(), strict=True)):
        ks = np.flatnonzero(near[i])
        keys.append(
            (
                table.models[a],
                table.models[b],
                ks.tobytes(),
                packed[ks].tobytes(),
                float(far[i]),
            )
        )
    return keys


def fights_sign(table: Table) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """What M4 reads of the table beside a pair: every model engaged or named as engaged,
    with its side and whom it engages (the fights and who is in them)."""
    named = {k for m in table.models for k in m.engaged}
    return tuple((m.id, m.side, m.engaged) for m in table.models if m.engaged or m.id in named)
