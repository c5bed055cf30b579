"""Rulings on a map of places (P3-P6, seed 003): moves, shots, what a place gives.

- :func:`move` (P3-P4): every place a unit can end its move on, with the best ways there:
  fewest exhaustion, then most movement points left, and every way that trades one
  against the other (the Pareto front over (exhaustion, points left)). Entering a place
  costs its encumbrance plus that of the junctions crossed on the way (P4); leaving a
  place gains the obstruction of every adversary on it (P3, Rue's +1 included, P6).
- :func:`shot` (P5): the places a projectile crosses, the cover of each and the total
  reduction of the attack score, or why the shot cannot be made (a door on the way, a
  target in Hautes herbes); mist adds its reduction; Tour abandonnée's first arrived
  counts only the final place, range +1 (P6).
- :func:`place_info` (P2, P6): a place's effective characteristics, who holds which of
  its effects, and what a unit arriving now would get.

Every ruling is a frozen value with ``reasons`` citing P1-P6 and a ``to_json()``;
:func:`document` wraps rulings as ``{"arbitre": 1, "rules": "places", ...}``.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import networkx as nx  # type: ignore[import-untyped, unused-ignore]

from arbitre.errors import RulesError
from arbitre.places import Effect, Place, PlaceMap, Unit
from arbitre.rules.options import read_options
from arbitre.rules.registry import Ruleset
from arbitre.rules.ruling import JSON_VERSION, Reason

RULES_NAME = "places"


@dataclass(frozen=True, slots=True)
class PlacesOptions:
    """Options of the P rules; the defaults are the readings listed in the report/README.

    - ``tower_counts``: what of the final place a Tour abandonnée shot counts (P6): the
      seed says its ``encumbrance``; ``cover`` is the reading that matches P5.
    - ``tower_over_doors``: whether such a shot also ignores doors on the way.
    - ``parent_effects``: ``missing``, a place inherits its parent's effects only when it
      states none (P2); ``merge``, it gets its own and every ancestor's.
    - ``effects_on_passing``: whether the arrival effects of places crossed during a move
      (not only the final one) are gained.
    - ``bleeding_stacks``: whether bleeding from several sources adds up (else the
      highest counts).
    """

    tower_counts: Literal["encumbrance", "cover"] = "encumbrance"
    tower_over_doors: bool = False
    parent_effects: Literal["missing", "merge"] = "missing"
    effects_on_passing: bool = False
    bleeding_stacks: bool = True


def options(placemap: PlaceMap, **given: object) -> PlacesOptions:
    """The map's options (its ``options``), overridden by ``given``; checked."""
    return read_options(PlacesOptions, dict(placemap.options) | given)


def effects_of(place: Place, opts: PlacesOptions) -> tuple[Effect, ...]:
    """The effects a place grants (P2 inheritance, P6), under the ``parent_effects`` option."""
    return place.lineage_effects if opts.parent_effects == "merge" else place.effects


def _bleed(amounts: Sequence[int], opts: PlacesOptions) -> int:
    return sum(amounts) if opts.bleeding_stacks else max(amounts, default=0)


def _effect_json(e: Effect) -> dict[str, Any]:
    return {"kind": e.kind, "name": e.name, "amount": e.amount, "when": e.when, "per": e.per,
            "source": e.source, "text": e.describe()}


def document(rulings: Sequence[Any], opts: PlacesOptions | None = None) -> dict[str, Any]:
    """The JSON document of some rulings: ``{"arbitre": 1, "rules": "places", ...}``."""
    doc: dict[str, Any] = {"arbitre": JSON_VERSION, "rules": RULES_NAME}
    if opts is not None:
        doc["options"] = {f: getattr(opts, f) for f in PlacesOptions.__dataclass_fields__}
    return doc | {"rulings": [r.to_json() for r in rulings]}


# -- P3-P4: moving -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a move: into an adjacent place, across the junctions between (P3, P4)."""

    start: str
    end: str
    junctions: tuple[str, ...]
    cost: int
    exhaustion: int
    adversaries: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"from": self.start, "to": self.end, "junctions": list(self.junctions),
                "cost": self.cost, "exhaustion": self.exhaustion,
                "adversaries": list(self.adversaries)}


@dataclass(frozen=True, slots=True)
class Way:
    """One best way to a place: what it costs, what it gains, step by step (P3-P6)."""

    place: str
    path: tuple[str, ...]
    steps: tuple[Step, ...]
    spent: int
    left: int
    exhaustion: int
    bleeding: int
    effects: tuple[Effect, ...]
    reasons: tuple[Reason, ...]

    @property
    def junctions(self) -> tuple[str, ...]:
        return tuple(j for s in self.steps for j in s.junctions)

    def to_json(self) -> dict[str, Any]:
        return {"place": self.place, "path": list(self.path), "junctions": list(self.junctions),
                "spent": self.spent, "left": self.left, "exhaustion": self.exhaustion,
                "bleeding": self.bleeding, "effects": [_effect_json(e) for e in self.effects],
                "steps": [s.to_json() for s in self.steps],
                "reasons": [r.to_json() for r in self.reasons]}


@dataclass(frozen=True, slots=True)
class MoveRuling:
    """Every place ``unit`` can end its move on, with its best ways there (P3-P4).

    ``ways`` are grouped by place, places sorted by their best way (fewest exhaustion,
    then most points left, then file order), a place's ways by fewest exhaustion; a place
    has more than one way only when they trade exhaustion against points left.
    """

    unit: str
    start: str
    points: int
    ways: tuple[Way, ...]
    unreachable: tuple[str, ...]
    reasons: tuple[Reason, ...]

    def ways_to(self, place: str) -> tuple[Way, ...]:
        return tuple(w for w in self.ways if w.place == place)

    @property
    def places(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(w.place for w in self.ways))

    def to_json(self) -> dict[str, Any]:
        return {"kind": "move", "unit": self.unit, "start": self.start, "points": self.points,
                "ways": [w.to_json() for w in self.ways],
                "unreachable": list(self.unreachable),
                "reasons": [r.to_json() for r in self.reasons]}


def _obstruction_bonus(place: Place, opts: PlacesOptions) -> int:
    return sum(e.amount for e in effects_of(place, opts) if e.kind == "obstruction")


def leaving(placemap: PlaceMap, mover: Unit, place: str,
            opts: PlacesOptions) -> tuple[int, tuple[str, ...]]:
    """Exhaustion gained leaving ``place``: the obstruction of every adversary on it (P3),
    each raised by the place's obstruction effects (Rue, P6); and those adversaries."""
    bonus = _obstruction_bonus(placemap.place(place), opts)
    foes = [u for u in placemap.units_on(place) if u.side != mover.side and u.id != mover.id]
    return sum(u.obstruction + bonus for u in foes), tuple(u.id for u in foes)


def step_cost(placemap: PlaceMap, a: str, b: str) -> int:
    """Movement points to go from ``a`` into adjacent ``b``: b's encumbrance plus that of
    every junction between (P3, P4)."""
    return placemap.place(b).encumbrance + sum(
        j.encumbrance for j in placemap.junctions_between(a, b))


def _arrival(placemap: PlaceMap, place: str, mover: str, opts: PlacesOptions,
             *, final: bool) -> list[Effect]:
    """The effects ``mover`` gets arriving on ``place`` now (P6): unconditional ones, the
    last arrived's (it is the last), the first arrived's when nobody else is there."""
    others = [u for u in placemap.units_on(place) if u.id != mover]
    keep = []
    for e in effects_of(placemap.place(place), opts):
        if e.when == "first" and (others or not final):
            continue
        if e.when == "last" and not final:
            continue
        if not final and e.kind not in ("stat", "resource", "bleeding"):
            continue
        keep.append(e)
    return keep


def move(placemap: PlaceMap, unit: str, *, points: int | None = None,
         opts: PlacesOptions | None = None) -> MoveRuling:
    """Every place ``unit`` can end its move on with ``points`` (default: its movement),
    and the best ways there (P3-P4): a label-setting search over (exhaustion, points
    spent), exact (every Pareto-optimal pair; ties broken by fewest bleeding, then fewest
    steps, then place ids)."""
    opts = opts or options(placemap)
    mover = placemap.unit(unit)
    budget = mover.movement if points is None else points
    if budget is None:
        raise RulesError(f"unit {unit!r} has no movement: give the points (--points N)")
    if budget < 0:
        raise RulesError(f"movement points must be >= 0, got {budget}")
    graph = placemap.graph
    leave = {p.id: leaving(placemap, mover, p.id, opts) for p in placemap.places}
    heap: list[tuple[int, int, int, int, tuple[str, ...]]] = [(0, 0, 0, 0, (mover.place,))]
    fronts: dict[str, list[tuple[int, int, int, int, tuple[str, ...]]]] = {}
    while heap:
        label = heapq.heappop(heap)
        exhaustion, spent, bleeding, n, path = label
        here = path[-1]
        front = fronts.setdefault(here, [])
        if any(s <= spent for _, s, *_ in front):  # popped in order: e <= exhaustion
            continue
        front.append(label)
        for there in graph.neighbors(here):
            if there in path:
                continue
            cost = step_cost(placemap, here, there)
            if spent + cost > budget:
                continue
            bleed = sum(j.bleeding for j in placemap.junctions_between(here, there))
            if opts.effects_on_passing:
                bleed += sum(e.amount for e in _arrival(placemap, there, unit, opts,
                                                        final=False) if e.kind == "bleeding")
            heapq.heappush(heap, (exhaustion + leave[here][0], spent + cost, bleeding + bleed,
                                  n + 1, (*path, there)))
    order = {p.id: k for k, p in enumerate(placemap.places)}
    reached = sorted((p for p in fronts if p != mover.place),
                     key=lambda p: (fronts[p][0][0], fronts[p][0][1], order[p]))
    ways = tuple(_way(placemap, mover, label[4], budget, opts)
                 for p in reached for label in fronts[p])
    unreachable = tuple(p.id for p in placemap.places
                        if p.id != mover.place and p.id not in fronts)
    start_foes = leave[mover.place]
    near = placemap.neighbours(mover.place)
    reasons = [Reason("P1", (mover.place, *near), f"a move goes from place to adjacent place; "
                      f"next to {mover.place}: {', '.join(near) or 'nothing'}"),
               Reason("P3", (unit, mover.place), f"{unit} on {mover.place} has {budget} "
                      "movement points; entering a place costs its encumbrance")]
    if start_foes[1]:
        reasons.append(Reason("P3", (unit, *start_foes[1]), f"leaving {mover.place} gains "
                              f"{start_foes[0]} exhaustion: the obstruction of "
                              f"{', '.join(start_foes[1])}"))
    reasons.append(Reason("P4", (unit,), "a move ends on a place, never on a junction; "
                          "junctions add their encumbrance to the step across them"))
    if unreachable:
        reasons.append(Reason("P3", unreachable, f"out of reach with {budget} points: "
                              f"{', '.join(unreachable)}"))
    return MoveRuling(unit, mover.place, budget, ways, unreachable, tuple(reasons))


def _way(placemap: PlaceMap, mover: Unit, path: tuple[str, ...], budget: int,
         opts: PlacesOptions) -> Way:
    """The costs, gains and reasons of one way (P3, P4, P6)."""
    steps, reasons, gained, bleeding = [], [], [], []
    for a, b in itertools.pairwise(path):
        junctions = placemap.junctions_between(a, b)
        exhaustion, foes = leaving(placemap, mover, a, opts)
        step = Step(a, b, tuple(j.id for j in junctions), step_cost(placemap, a, b),
                    exhaustion, foes)
        steps.append(step)
        enc = placemap.place(b).encumbrance
        text = f"{a} -> {b}: encumbrance {enc}"
        for j in junctions:
            text += f", {j.kind} {j.id} +{j.encumbrance}" if j.encumbrance else ""
            if j.bleeding:
                bleeding.append(j.bleeding)
                reasons.append(Reason("P4", (mover.id, j.id), f"crossing {j.kind} {j.id}: "
                                      f"bleeding {j.bleeding}"))
        reasons.append(Reason("P4" if junctions else "P3", (a, b, *step.junctions),
                              f"{text}: {step.cost} points"))
        if foes:
            reasons.append(Reason("P3", (a, *foes), f"leaving {a}: +{exhaustion} exhaustion "
                                  f"({', '.join(foes)})"))
        final = b == path[-1]
        if final or opts.effects_on_passing:
            for e in _arrival(placemap, b, mover.id, opts, final=final):
                gained.append(e)
                if e.kind == "bleeding" and e.per == "arrival":
                    bleeding.append(e.amount)
                reasons.append(Reason("P6", (mover.id, b), f"arriving on {b}: {e.describe()}"))
    spent = sum(s.cost for s in steps)
    return Way(path[-1], path, tuple(steps), spent, budget - spent,
               sum(s.exhaustion for s in steps), _bleed(bleeding, opts), tuple(gained),
               tuple(reasons))


# -- P5: shooting --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShotRuling:
    """Whether ``shooter`` can shoot ``target`` and by how much its attack score drops (P5).

    ``crossed`` are the places from the shooter's (first) to the target's (last);
    ``covers`` the cover of each; ``counted`` the places whose value makes ``reduction``
    (all but the first; only the last for a Tour abandonnée shot).
    """

    shooter: str
    target: str
    allowed: bool
    crossed: tuple[str, ...]
    covers: tuple[int, ...]
    junctions: tuple[str, ...]
    counted: tuple[str, ...]
    reduction: int
    range_bonus: int
    refusals: tuple[str, ...]
    reasons: tuple[Reason, ...]

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.rule for r in self.reasons))

    def to_json(self) -> dict[str, Any]:
        return {"kind": "shot", "shooter": self.shooter, "target": self.target,
                "allowed": self.allowed, "reduction": self.reduction,
                "range_bonus": self.range_bonus,
                "crossed": [{"place": p, "cover": c} for p, c in zip(self.crossed, self.covers,
                                                                     strict=True)],
                "junctions": list(self.junctions), "counted": list(self.counted),
                "refusals": list(self.refusals),
                "reasons": [r.to_json() for r in self.reasons]}


def _holds(placemap: PlaceMap, unit: Unit, e: Effect) -> bool:
    """Whether ``unit`` holds a place effect now: first/last arrived among those there."""
    there = placemap.units_on(unit.place)
    if e.when == "first":
        return there[0].id == unit.id
    if e.when == "last":
        return there[-1].id == unit.id
    return True


def _line(placemap: PlaceMap, a: str, b: str, *, tower: bool,
          opts: PlacesOptions) -> tuple[str, ...] | None:
    """The places a projectile crosses from ``a`` to ``b`` (P5 decision): a shortest path
    (fewest steps); among those, fewest doors, then least reduction, then ids."""
    graph = placemap.graph
    if a == b:
        return (a,)
    dist = nx.single_source_shortest_path_length(graph, a)
    if b not in dist:
        return None
    best: dict[str, tuple[int, int, tuple[str, ...]]] = {a: (0, 0, (a,))}
    for node in sorted((n for n in dist if n != a), key=lambda n: dist[n]):
        if dist[node] > dist[b]:
            break
        options_here = []
        for prev in graph.neighbors(node):
            if dist.get(prev) != dist[node] - 1:
                continue
            doors, red, path = best[prev]
            js = placemap.junctions_between(prev, node)
            doors += sum(j.blocks_ranged for j in js) if not (tower and opts.tower_over_doors) \
                else 0
            if not tower:
                red += placemap.place(node).cover + sum(j.ranged_reduction for j in js)
            options_here.append((doors, red, (*path, node)))
        best[node] = min(options_here)
    return best[b][2]


def shot(placemap: PlaceMap, shooter: str, target: str, *,
         opts: PlacesOptions | None = None) -> ShotRuling:
    """Rule a ranged attack of ``shooter`` at ``target`` (P5, P4 junctions, P6 effects)."""
    opts = opts or options(placemap)
    s, t = placemap.unit(shooter), placemap.unit(target)
    if s.id == t.id:
        raise RulesError(f"a unit cannot shoot itself ({shooter!r})")
    here = placemap.place(s.place)
    tower = next((e for e in effects_of(here, opts)
                  if e.kind == "final_place_only" and _holds(placemap, s, e)), None)
    reasons: list[Reason] = []
    refusals: list[str] = []
    for e in effects_of(placemap.place(t.place), opts):
        if e.kind == "untargetable" and _holds(placemap, t, e):
            refusals.append(f"{target} is on {t.place} ({e.source}): it cannot be targeted "
                            "by ranged weapons")
            reasons.append(Reason("P6", (target, t.place), refusals[-1]))
    found = _line(placemap, s.place, t.place, tower=tower is not None, opts=opts)
    line: tuple[str, ...] = () if found is None else found
    if found is None:
        refusals.append(f"no way between {s.place} and {t.place}: nothing to shoot across")
        reasons.append(Reason("P5", (s.place, t.place), refusals[-1]))
    junctions = [j for a, b in itertools.pairwise(line)
                 for j in placemap.junctions_between(a, b)]
    covers = tuple(placemap.place(p).cover for p in line)
    if line:
        reasons.append(Reason("P5", line, f"the projectile crosses {' -> '.join(line)} "
                              "(a shortest way between the shooter's place and the target's)"))
    for j in junctions:
        if j.blocks_ranged and not (tower and opts.tower_over_doors):
            refusals.append(f"{j.kind} {j.id} between {j.between[0]} and {j.between[1]}: "
                            "ranged attacks across it are impossible")
            reasons.append(Reason("P4", (j.id, *j.between), refusals[-1]))
    reduction, bonus = 0, 0
    counted: tuple[str, ...] = ()
    if tower is not None:
        bonus = tower.amount
        counted = line[-1:] if len(line) > 1 else ()
        value = opts.tower_counts
        reduction = sum(getattr(placemap.place(p), value) for p in counted)
        reasons.append(Reason("P6", (shooter, s.place), f"{shooter} arrived first on "
                              f"{s.place} ({tower.source}): only the final place counts, its "
                              f"{value} ({reduction}); range {bonus:+d}"))
    else:
        counted = line[1:]
        reduction = sum(covers[1:])
        parts = [f"{p} {c}" for p, c in zip(line[1:], covers[1:], strict=True)]
        for j in junctions:
            if j.ranged_reduction:
                reduction += j.ranged_reduction
                parts.append(f"{j.kind} {j.id} {j.ranged_reduction}")
                reasons.append(Reason("P4", (j.id,), f"{j.kind} {j.id} on the way: "
                                      f"+{j.ranged_reduction} for ranged attacks"))
        if line:
            reasons.append(Reason("P5", counted, "attack score reduced by the covers of the "
                                  "places crossed but the first: "
                                  f"{' + '.join(parts) or 'none'} = {reduction}"))
    return ShotRuling(shooter, target, not refusals, line, covers,
                      tuple(j.id for j in junctions), counted, reduction, bonus,
                      tuple(refusals), tuple(reasons))


# -- P2, P6: what a place gives ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Occupant:
    """A unit on a place, its arrival rank, and the place's effects it holds now (P6)."""

    unit: str
    side: str
    arrived: int
    first: bool
    last: bool
    obstruction: int
    effects: tuple[Effect, ...]

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "side": self.side, "arrived": self.arrived,
                "first": self.first, "last": self.last, "obstruction": self.obstruction,
                "effects": [_effect_json(e) for e in self.effects]}


@dataclass(frozen=True, slots=True)
class PlaceRuling:
    """A place's effective characteristics (P2), its neighbours and junctions (P1, P4),
    who holds which effect, and what a unit arriving now would get (P6)."""

    place: str
    name: str
    type: str | None
    parent: str | None
    lineage: tuple[str, ...]
    encumbrance: int
    cover: int
    sources: tuple[tuple[str, str], ...]
    effects: tuple[Effect, ...]
    neighbours: tuple[tuple[str, tuple[str, ...]], ...]
    occupants: tuple[Occupant, ...]
    arriving: tuple[Effect, ...]
    reasons: tuple[Reason, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": "place", "place": self.place, "name": self.name, "type": self.type,
                "parent": self.parent, "lineage": list(self.lineage),
                "encumbrance": self.encumbrance, "cover": self.cover,
                "sources": dict(self.sources),
                "effects": [_effect_json(e) for e in self.effects],
                "neighbours": [{"place": p, "junctions": list(js)} for p, js in self.neighbours],
                "units": [o.to_json() for o in self.occupants],
                "arriving": [_effect_json(e) for e in self.arriving],
                "reasons": [r.to_json() for r in self.reasons]}


def place_info(placemap: PlaceMap, place: str, *,
               opts: PlacesOptions | None = None) -> PlaceRuling:
    """What ``place`` is and gives (P2, P6); see :class:`PlaceRuling`."""
    opts = opts or options(placemap)
    p = placemap.place(place)
    effects = effects_of(p, opts)
    bonus = _obstruction_bonus(p, opts)
    there = placemap.units_on(place)
    occupants = tuple(
        Occupant(u.id, u.side, u.arrived, k == 0, k == len(there) - 1, u.obstruction + bonus,
                 tuple(e for e in effects if e.when == "always" or _holds(placemap, u, e)))
        for k, u in enumerate(there))
    arriving = tuple(e for e in effects if not (e.when == "first" and there))
    src = dict(p.sources)
    reasons = [
        Reason("P2", (place,), f"encumbrance {p.encumbrance} ({source_text(src['encumbrance'])}), "
                               f"cover {p.cover} ({source_text(src['cover'])})"),
    ]
    if p.lineage:
        reasons.append(Reason("P2", (place, *p.lineage), "inherits what it does not state "
                              f"from {' -> '.join(p.lineage)}"))
    for e in effects:
        reasons.append(Reason("P6", (place,), f"{e.describe()} ({e.source})"))
    if there:
        reasons.append(Reason("P6", tuple(u.id for u in there), "arrival order: " + ", ".join(
            u.id for u in there) + "; a unit arriving now is the last arrived"
            + ("" if not any(e.when == "first" for e in effects)
               else f", not the first ({there[0].id} is)")))
    neighbours = tuple((n, placemap.graph.edges[place, n]["junctions"])
                       for n in placemap.neighbours(place))
    reasons.append(Reason("P1", (place, *(n for n, _ in neighbours)), "adjacent places: "
                          + (", ".join(n for n, _ in neighbours) or "none")))
    return PlaceRuling(place, p.label, p.type, p.parent, p.lineage, p.encumbrance, p.cover,
                       p.sources, effects, neighbours, occupants, arriving, tuple(reasons))


def source_text(source: str) -> str:
    """Where a characteristic comes from, in words (P2)."""
    return {"stated": "stated", "default": "default"}.get(source, f"from {source}")


RULESET = Ruleset(
    name="places",
    title="A map of places instead of a gridded battlemap (P1-P6)",
    aliases=("placemap", "lieux", "zones"),
    options=PlacesOptions,
    questions={},
    geometric=False,
)
