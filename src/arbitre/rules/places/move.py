"""P3-P4: moving on a map of places.

:func:`move` rules every place a unit can end its move on, with the best ways there:
fewest exhaustion, then most movement points left, and every way that trades one against
the other (the Pareto front over (exhaustion, points left)). Entering a place costs its
encumbrance plus that of the junctions crossed on the way (P4); leaving a place gains the
obstruction of every adversary on it (P3, Rue's +1 included, P6).
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from arbitre.errors import RulesError
from arbitre.i18n import T_, TN_
from arbitre.rules.places.common import (
    EFFECT,
    JUNCTION,
    Granted,
    JunctionRef,
    PlacesOptions,
    bleeding,
    effect_text,
    effects_of,
    granted,
    obstruction_bonus,
    placemap_of,
    refs,
    worded,
)
from arbitre.rules.ruling import NO_MARGIN, Margin, Reason, reasons_json
from arbitre.rules.schema import IDS, INT, REASONS, STR, array, obj

if TYPE_CHECKING:  # the places model is imported when a map is ruled, not with the ruleset
    from arbitre.places import Effect, PlaceMap, Unit


@dataclass(frozen=True, slots=True)
class MoveRequest:
    """Where ``unit`` can go with ``points`` movement points (default: its movement)."""

    unit: str
    points: int | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a move: into an adjacent place, across the junctions between (P3, P4)."""

    start: str
    end: str
    junctions: tuple[JunctionRef, ...]
    cost: int
    exhaustion: int
    adversaries: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.start,
            "to": self.end,
            "junctions": [j.to_json() for j in self.junctions],
            "cost": self.cost,
            "exhaustion": self.exhaustion,
            "adversaries": list(self.adversaries),
        }


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
    effects: tuple[Granted, ...]
    reasons: tuple[Reason, ...]

    @property
    def junctions(self) -> tuple[str, ...]:
        """The ids of the junctions crossed, in order."""
        return tuple(j.id for s in self.steps for j in s.junctions)

    def to_json(self) -> dict[str, Any]:
        return {
            "place": self.place,
            "path": list(self.path),
            "junctions": list(self.junctions),
            "spent": self.spent,
            "left": self.left,
            "exhaustion": self.exhaustion,
            "bleeding": self.bleeding,
            "effects": [e.to_json() for e in self.effects],
            "steps": [s.to_json() for s in self.steps],
            "reasons": reasons_json(self.reasons),
        }


@dataclass(frozen=True, slots=True)
class MoveRuling:
    """Every place ``unit`` can end its move on, with its best ways there (P3-P4).

    ``ways`` are grouped by place, places sorted by their best way (fewest exhaustion,
    then most points left, then file order), a place's ways by fewest exhaustion; a place
    has more than one way only when they trade exhaustion against points left.
    """

    kind: ClassVar[str] = "move"

    unit: str
    start: str
    points: int
    ways: tuple[Way, ...]
    unreachable: tuple[str, ...]
    reasons: tuple[Reason, ...]
    refusals: tuple[Reason, ...] = ()
    margin: Margin = NO_MARGIN

    def ways_to(self, place: str) -> tuple[Way, ...]:
        return tuple(w for w in self.ways if w.place == place)

    @property
    def places(self) -> tuple[str, ...]:
        """The places within reach, best first."""
        return tuple(dict.fromkeys(w.place for w in self.ways))

    def to_json(self, unit: object = None) -> dict[str, Any]:
        """The JSON form (no lengths: ``unit`` is not used)."""
        return {
            "kind": self.kind,
            "unit": self.unit,
            "start": self.start,
            "points": self.points,
            "ways": [w.to_json() for w in self.ways],
            "unreachable": list(self.unreachable),
            **self.margin.to_json(None),
            "reasons": reasons_json(self.reasons),
            "refusals": reasons_json(self.refusals),
        }


STEP = obj(
    {
        "from": STR,
        "to": STR,
        "junctions": array(JUNCTION),
        "cost": INT,
        "exhaustion": INT,
        "adversaries": IDS,
    }
)
WAY = obj(
    {
        "place": STR,
        "path": IDS,
        "junctions": IDS,
        "spent": INT,
        "left": INT,
        "exhaustion": INT,
        "bleeding": INT,
        "effects": array(EFFECT),
        "steps": array(STEP),
        "reasons": REASONS,
    }
)
#: JSON Schema of a move ruling beyond kind, reasons and refusals.
SCHEMA: dict[str, Any] = {
    "properties": {
        "unit": STR,
        "start": STR,
        "points": INT,
        "ways": array(WAY),
        "unreachable": IDS,
    },
    "required": ["unit", "start", "points", "ways", "unreachable"],
}


def leaving(
    placemap: PlaceMap, mover: Unit, place: str, options: PlacesOptions
) -> tuple[int, tuple[str, ...]]:
    """Exhaustion gained leaving ``place``: the obstruction of every adversary on it (P3),
    each raised by the place's obstruction effects (Rue, P6); and those adversaries."""
    bonus = obstruction_bonus(placemap.place(place), options)
    foes = [u for u in placemap.units_on(place) if u.side != mover.side and u.id != mover.id]
    return sum(u.obstruction + bonus for u in foes), tuple(u.id for u in foes)


def step_cost(placemap: PlaceMap, a: str, b: str) -> int:
    """Movement points to go from ``a`` into adjacent ``b``: b's encumbrance plus that of
    every junction between (P3, P4)."""
    return placemap.place(b).encumbrance + sum(
        j.encumbrance for j in placemap.junctions_between(a, b)
    )


def _arrival(
    placemap: PlaceMap, place: str, mover: str, options: PlacesOptions, *, final: bool
) -> list[Effect]:
    """The effects ``mover`` gets arriving on ``place`` now (P6): unconditional ones, the
    last arrived's (it is the last), the first arrived's when nobody else is there; passing
    through (``final`` false), only stats, resources and bleeding."""
    others = [u for u in placemap.units_on(place) if u.id != mover]
    keep = []
    for e in effects_of(placemap.place(place), options):
        if e.when == "first" and (others or not final):
            continue
        if e.when == "last" and not final:
            continue
        if not final and e.kind not in ("stat", "resource", "bleeding"):
            continue
        keep.append(e)
    return keep


#: A label of the search: (exhaustion, points spent, bleeding, steps, path).
_Label = tuple[int, int, int, int, tuple[str, ...]]


def _step_figures(
    placemap: PlaceMap, mover: Unit, here: str, there: str, options: PlacesOptions
) -> tuple[int, int]:
    """The points a step costs and the bleeding it gives (its junctions, and the arrival
    effects of ``there`` when they count on passing)."""
    cost, bleed = placemap.place(there).encumbrance, 0
    for j in placemap.junctions_between(here, there):
        cost, bleed = cost + j.encumbrance, bleed + j.bleeding
    if options.effects_on_passing:
        passing = _arrival(placemap, there, mover.id, options, final=False)
        bleed += sum(e.amount for e in passing if e.kind == "bleeding")
    return cost, bleed


def _fronts(
    placemap: PlaceMap, mover: Unit, budget: int, options: PlacesOptions
) -> dict[str, list[_Label]]:
    """The Pareto front of (exhaustion, points spent) of every place within reach (P3-P4):
    a label-setting search, exact; labels popped in order, so a label is kept only when
    no kept one spends as little or less."""
    occupied = dict.fromkeys(u.place for u in placemap.units)  # elsewhere leaving is free
    leave = {p: leaving(placemap, mover, p, options)[0] for p in occupied}
    heap: list[_Label] = [(0, 0, 0, 0, (mover.place,))]
    fronts: dict[str, list[_Label]] = {}
    steps: dict[tuple[str, str], tuple[int, int]] = {}  # cost and bleeding of each step
    while heap:
        label = heapq.heappop(heap)
        exhaustion, spent, bled, n, path = label
        here = path[-1]
        front = fronts.setdefault(here, [])
        if front and front[-1][1] <= spent:  # kept labels spend less and less
            continue
        front.append(label)
        for there in placemap.graph.neighbors(here):
            if (here, there) not in steps:
                steps[here, there] = _step_figures(placemap, mover, here, there, options)
            cost, bleed = steps[here, there]
            if there in path or spent + cost > budget:
                continue
            heapq.heappush(
                heap,
                (
                    exhaustion + leave.get(here, 0),
                    spent + cost,
                    bled + bleed,
                    n + 1,
                    (*path, there),
                ),
            )
    return fronts


def move(subject: object, request: MoveRequest, *, options: PlacesOptions) -> list[MoveRuling]:
    """Every place ``request.unit`` can end its move on with ``request.points`` (default:
    its movement), and the best ways there (P3-P4): every Pareto-optimal (exhaustion,
    points spent) pair; ties broken by fewest bleeding, then fewest steps, then place ids."""
    from arbitre.places import MAX_MOVEMENT

    placemap = placemap_of(subject, "move")
    mover = placemap.unit(request.unit)
    budget = mover.movement if request.points is None else request.points
    if budget is None:
        raise RulesError(
            T_("unit {unit} has no movement: give the points (--points N)", unit=repr(mover.id))
        )
    if budget < 0:
        raise RulesError(T_("movement points must be >= 0, got {points}", points=budget))
    if budget > MAX_MOVEMENT:
        raise RulesError(
            T_(
                "movement points must be <= {most} (far beyond any unit's movement; every way "
                "of the ruling is listed step by step), got {points}",
                most=MAX_MOVEMENT,
                points=budget,
            )
        )
    fronts = _fronts(placemap, mover, budget, options)
    order = {p.id: k for k, p in enumerate(placemap.places)}
    reached = sorted(
        (p for p in fronts if p != mover.place),
        key=lambda p: (fronts[p][0][0], fronts[p][0][1], order[p]),
    )
    cache: dict[tuple[str, str], tuple[Step, list[int], list[Reason]]] = {}
    ways = tuple(
        _way(placemap, mover, label[4], budget, options, cache)
        for p in reached
        for label in fronts[p]
    )
    unreachable = tuple(p.id for p in placemap.places if p.id != mover.place and p.id not in fronts)
    ruling = MoveRuling(
        unit=mover.id,
        start=mover.place,
        points=budget,
        ways=ways,
        unreachable=unreachable,
        reasons=_reasons(placemap, mover, budget, unreachable, options),
    )
    return [ruling]


def _reasons(
    placemap: PlaceMap,
    mover: Unit,
    budget: int,
    unreachable: tuple[str, ...],
    options: PlacesOptions,
) -> tuple[Reason, ...]:
    """Why a move goes where it goes: P1 adjacency, P3 costs and exhaustion, P4 junctions."""
    here, unit = mover.place, mover.id
    near = placemap.neighbours(here)
    reasons = [
        Reason(
            "P1",
            (here, *near),
            T_(
                "a move goes from place to adjacent place; next to {place}: {places}",
                place=here,
                places=worded(near),
            )
            if near
            else T_(
                "a move goes from place to adjacent place; next to {place}: nothing", place=here
            ),
        ),
        Reason(
            "P3",
            (unit, here),
            # the English has always said "points", even for 1: the same id for both forms
            TN_(
                "{unit} on {place} has {points} movement points; entering a place costs its "
                "encumbrance",
                "{unit} on {place} has {points} movement points; entering a place costs its "
                "encumbrance",
                "points",
                unit=unit,
                place=here,
                points=budget,
            ),
        ),
    ]
    gained, foes = leaving(placemap, mover, here, options)
    if foes:
        reasons.append(
            Reason(
                "P3",
                (unit, *foes),
                TN_(
                    "leaving {place} gains {n} exhaustion: the obstruction of {units}",
                    "leaving {place} gains {n} exhaustion: the obstruction of {units}",
                    "n",
                    place=here,
                    n=gained,
                    units=worded(foes),
                ),
            )
        )
    reasons.append(
        Reason(
            "P4",
            (unit,),
            T_(
                "a move ends on a place, never on a junction; junctions add their encumbrance "
                "to the step across them"
            ),
        )
    )
    if unreachable:
        reasons.append(
            Reason(
                "P3",
                unreachable,
                TN_(
                    "out of reach with {points} points: {places}",
                    "out of reach with {points} points: {places}",
                    "points",
                    points=budget,
                    places=worded(unreachable),
                ),
            )
        )
    return tuple(reasons)


def _step(
    placemap: PlaceMap, mover: Unit, a: str, b: str, options: PlacesOptions
) -> tuple[Step, list[int], list[Reason]]:
    """One step of a way, the bleeding its junctions give, and its reasons (P3, P4)."""
    junctions = placemap.junctions_between(a, b)
    exhaustion, foes = leaving(placemap, mover, a, options)
    step = Step(
        start=a,
        end=b,
        junctions=refs(junctions),
        cost=step_cost(placemap, a, b),
        exhaustion=exhaustion,
        adversaries=foes,
    )
    reasons, bled = [], []
    added = "".join(f", {j.kind} {j.id} +{j.encumbrance}" for j in junctions if j.encumbrance)
    for j in junctions:
        if j.bleeding:
            bled.append(j.bleeding)
            text = T_("crossing {kind} {id}: bleeding {n}", kind=j.kind, id=j.id, n=j.bleeding)
            reasons.append(Reason("P4", (mover.id, j.id), text))
    ids = tuple(j.id for j in junctions)
    cost = TN_(
        "{start} -> {end}: encumbrance {encumbrance}{junctions}: {cost} points",
        "{start} -> {end}: encumbrance {encumbrance}{junctions}: {cost} points",
        "cost",
        start=a,
        end=b,
        encumbrance=placemap.place(b).encumbrance,
        junctions=added,
        cost=step.cost,
    )
    reasons.append(Reason("P4" if junctions else "P3", (a, b, *ids), cost))
    if foes:
        leave = TN_(
            "leaving {place}: +{n} exhaustion ({units})",
            "leaving {place}: +{n} exhaustion ({units})",
            "n",
            place=a,
            n=exhaustion,
            units=worded(foes),
        )
        reasons.append(Reason("P3", (a, *foes), leave))
    return step, bled, reasons


def _way(
    placemap: PlaceMap,
    mover: Unit,
    path: tuple[str, ...],
    budget: int,
    options: PlacesOptions,
    cache: dict[tuple[str, str], tuple[Step, list[int], list[Reason]]],
) -> Way:
    """The costs, gains and reasons of one way (P3, P4, P6); ``cache`` keeps each step
    worked out once for all the ways of a ruling (a step depends only on its two ends)."""
    steps, reasons, gained, bled = [], [], [], []
    for a, b in itertools.pairwise(path):
        if (a, b) not in cache:
            cache[a, b] = _step(placemap, mover, a, b, options)
        step, step_bled, step_reasons = cache[a, b]
        steps.append(step)
        bled += step_bled
        reasons += step_reasons
        final = b == path[-1]
        if final or options.effects_on_passing:
            for e in _arrival(placemap, b, mover.id, options, final=final):
                gained.append(e)
                if e.kind == "bleeding" and e.per == "arrival":
                    bled.append(e.amount)
                text = T_("arriving on {place}: {effect}", place=b, effect=effect_text(e))
                reasons.append(Reason("P6", (mover.id, b), text))
    spent = sum(s.cost for s in steps)
    return Way(
        place=path[-1],
        path=path,
        steps=tuple(steps),
        spent=spent,
        left=budget - spent,
        exhaustion=sum(s.exhaustion for s in steps),
        bleeding=bleeding(bled, options),
        effects=granted(gained),
        reasons=tuple(reasons),
    )
