"""P5: shooting on a map of places.

:func:`shot` rules the places a projectile crosses, the cover of each and the total
reduction of the attack score, or why the shot cannot be made (a door on the way, a
target in Hautes herbes); mist adds its reduction (P4); Tour abandonnée's first arrived
counts only the final place, range +1 (P6).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from arbitre.errors import RulesError
from arbitre.i18n import T_, Text
from arbitre.rules.places.common import PlacesOptions, effects_of, holds, placemap_of, worded
from arbitre.rules.ruling import NO_MARGIN, Margin, Reason, reasons_json
from arbitre.rules.schema import BOOL, IDS, INT, STR, array, nullable, obj

if TYPE_CHECKING:  # the places model is imported when a map is ruled, not with the ruleset
    from arbitre.places import Effect, Junction, PlaceMap, Unit


@dataclass(frozen=True, slots=True)
class ShotRequest:
    """Whether ``shooter`` can shoot ``target``, and at what reduction."""

    shooter: str
    target: str


@dataclass(frozen=True, slots=True)
class Crossing:
    """A place or a junction a projectile crosses, and what it adds to the reduction.

    ``cover`` is a place's cover, or what a junction adds to ranged attacks (P4);
    ``blocks`` whether a junction forbids them; ``adds`` what it adds to the attack
    score reduction (None when it is not counted: the shooter's place, or every place
    but the final one on a Tour abandonnée shot, P5, P6).
    """

    id: str
    kind: Literal["place", "junction"]
    name: str
    cover: int
    blocks: bool = False
    adds: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "name": self.name,
            "cover": self.cover,
            "blocks": self.blocks,
            "adds": self.adds,
        }


@dataclass(frozen=True, slots=True)
class ShotRuling:
    """Whether ``shooter`` can shoot ``target`` and by how much its attack score drops (P5).

    ``way`` is what the projectile crosses, in order: the shooter's place (first), the
    junctions and places between, the target's place (last), each with what it adds to
    ``reduction``; ``counting`` says what a counted place adds (its ``cover``, or what
    the ``tower_counts`` option says for a Tour abandonnée shot).
    """

    kind: ClassVar[str] = "shot"

    shooter: str
    target: str
    allowed: bool
    way: tuple[Crossing, ...]
    reduction: int
    range_bonus: int
    counting: Literal["cover", "encumbrance"]
    reasons: tuple[Reason, ...]
    refusals: tuple[Reason, ...] = ()
    margin: Margin = NO_MARGIN

    @property
    def crossed(self) -> tuple[str, ...]:
        """The places crossed, from the shooter's to the target's."""
        return tuple(c.id for c in self.way if c.kind == "place")

    @property
    def covers(self) -> tuple[int, ...]:
        """The cover of each place crossed."""
        return tuple(c.cover for c in self.way if c.kind == "place")

    @property
    def junctions(self) -> tuple[str, ...]:
        """The junctions crossed, in order."""
        return tuple(c.id for c in self.way if c.kind == "junction")

    @property
    def counted(self) -> tuple[str, ...]:
        """The places whose value makes the reduction."""
        return tuple(c.id for c in self.way if c.kind == "place" and c.adds is not None)

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.rule for r in (*self.reasons, *self.refusals)))

    def to_json(self, unit: object = None) -> dict[str, Any]:
        """The JSON form (no lengths: ``unit`` is not used)."""
        return {
            "kind": self.kind,
            "shooter": self.shooter,
            "target": self.target,
            "allowed": self.allowed,
            "reduction": self.reduction,
            "range_bonus": self.range_bonus,
            "counting": self.counting,
            "crossed": list(self.crossed),
            "junctions": list(self.junctions),
            "counted": list(self.counted),
            "way": [c.to_json() for c in self.way],
            **self.margin.to_json(None),
            "reasons": reasons_json(self.reasons),
            "refusals": reasons_json(self.refusals),
        }


CROSSING = obj(
    {
        "id": STR,
        "kind": {"enum": ["place", "junction"]},
        "name": STR,
        "cover": INT,
        "blocks": BOOL,
        "adds": nullable(INT),
    }
)
#: JSON Schema of a shot ruling beyond kind, reasons and refusals.
SCHEMA: dict[str, Any] = {
    "properties": {
        "shooter": STR,
        "target": STR,
        "allowed": BOOL,
        "reduction": INT,
        "range_bonus": INT,
        "counting": {"enum": ["cover", "encumbrance"]},
        "crossed": IDS,
        "junctions": IDS,
        "counted": IDS,
        "way": array(CROSSING),
    },
    "required": [
        "shooter",
        "target",
        "allowed",
        "reduction",
        "range_bonus",
        "counting",
        "crossed",
        "junctions",
        "counted",
        "way",
    ],
}


def _line(
    placemap: PlaceMap, a: str, b: str, *, tower: bool, options: PlacesOptions
) -> tuple[str, ...] | None:
    """The places a projectile crosses from ``a`` to ``b`` (P5 decision): a shortest path
    (fewest steps); among those, fewest doors, then least reduction, then ids.

    One pass over the breadth-first layers, linear in the map: each place keeps its best
    (doors, reduction) and the place before it, and each layer is ranked by the ids of
    its best ways (a way's ids compare as the rank of the way to the place before, then
    the place's own id), so ways are never copied."""
    graph = placemap.graph
    if a == b:
        return (a,)
    import networkx as nx  # type: ignore[import-untyped, unused-ignore]

    dist = nx.single_source_shortest_path_length(graph, a)
    if b not in dist:
        return None
    over_doors = tower and options.tower_over_doors
    layers: list[list[str]] = [[] for _ in range(dist[b] + 1)]
    for node, d in dist.items():
        if d <= dist[b]:
            layers[d].append(node)
    best: dict[str, tuple[int, int, int, str]] = {a: (0, 0, 0, a)}
    rank = {a: 0}
    for k in range(1, dist[b] + 1):
        for node in layers[k]:
            here = []
            for prev in graph.neighbors(node):
                if dist.get(prev) != k - 1:
                    continue
                doors, red, _, _ = best[prev]
                js = placemap.junctions_between(prev, node)
                doors += 0 if over_doors else sum(j.blocks_ranged for j in js)
                if not tower:
                    red += placemap.place(node).cover + sum(j.ranged_reduction for j in js)
                here.append((doors, red, rank[prev], prev))
            best[node] = min(here)
        ranked = sorted(layers[k], key=lambda n: (rank[best[n][3]], n))
        rank.update((n, r) for r, n in enumerate(ranked))
    line = [b]
    while line[-1] != a:
        line.append(best[line[-1]][3])
    return tuple(reversed(line))


def _tower(placemap: PlaceMap, shooter: Unit, options: PlacesOptions) -> Effect | None:
    """The Tour abandonnée effect the shooter holds on its place, if any (P6)."""
    here = placemap.place(shooter.place)
    return next(
        (
            e
            for e in effects_of(here, options)
            if e.kind == "final_place_only" and holds(placemap, shooter, e)
        ),
        None,
    )


def _target_refusals(placemap: PlaceMap, target: Unit, options: PlacesOptions) -> list[Reason]:
    """A target on a place that cannot be targeted by ranged weapons (Hautes herbes, P6)."""
    return [
        Reason(
            "P6",
            (target.id, target.place),
            T_(
                "{unit} is on {place} ({source}): it cannot be targeted by ranged weapons",
                unit=target.id,
                place=target.place,
                source=e.source,
            ),
        )
        for e in effects_of(placemap.place(target.place), options)
        if e.kind == "untargetable" and holds(placemap, target, e)
    ]


def _way(placemap: PlaceMap, line: tuple[str, ...], adds: dict[str, int]) -> tuple[Crossing, ...]:
    """The places and junctions crossed, in order, with what each adds."""
    way: list[Crossing] = []
    for k, p in enumerate(line):
        if k:
            for j in placemap.junctions_between(line[k - 1], p):
                way.append(
                    Crossing(
                        id=j.id,
                        kind="junction",
                        name=j.kind,
                        cover=j.ranged_reduction,
                        blocks=j.blocks_ranged,
                        adds=adds.get(j.id),
                    )
                )
        place = placemap.place(p)
        way.append(
            Crossing(id=p, kind="place", name=place.label, cover=place.cover, adds=adds.get(p))
        )
    return tuple(way)


def _cover_counts(
    placemap: PlaceMap, line: tuple[str, ...], junctions: list[Junction]
) -> tuple[dict[str, int], list[Reason]]:
    """P5: every place but the first counts its cover; P4: junctions their ranged
    reduction (mist); what each adds and the reasons."""
    adds = {p: placemap.place(p).cover for p in line[1:]}
    parts = [f"{p} {c}" for p, c in adds.items()]
    reasons = []
    for j in junctions:
        if j.ranged_reduction:
            adds[j.id] = j.ranged_reduction
            parts.append(f"{j.kind} {j.id} {j.ranged_reduction}")
            text = T_(
                "{kind} {id} on the way: +{n} for ranged attacks",
                kind=j.kind,
                id=j.id,
                n=j.ranged_reduction,
            )
            reasons.append(Reason("P4", (j.id,), text))
    if line:
        total = sum(adds.values())
        reasons.append(Reason("P5", line[1:], _reduced(worded(parts, " + "), total)))
    return adds, reasons


def _reduced(parts: Text | str, total: int) -> Text:
    """P5's reason: what each counted place (and mist) adds, and the sum."""
    if not parts:
        return T_(
            "attack score reduced by the covers of the places crossed but the first: "
            "none = {total}",
            total=total,
        )
    return T_(
        "attack score reduced by the covers of the places crossed but the first: {parts} = {total}",
        parts=parts,
        total=total,
    )


def _tower_counts(
    placemap: PlaceMap, shooter: Unit, tower: Effect, line: tuple[str, ...], counting: str
) -> tuple[dict[str, int], list[Reason]]:
    """P6, Tour abandonnée's first arrived: only the final place counts, its encumbrance
    (or what ``tower_counts`` says); what it adds and the reason."""
    final = line[-1:] if len(line) > 1 else ()
    adds = {p: getattr(placemap.place(p), counting) for p in final}
    figures = {
        "unit": shooter.id,
        "place": shooter.place,
        "source": tower.source,
        "n": sum(adds.values()),
        "range": f"{tower.amount:+d}",
    }
    if counting == "encumbrance":
        text = T_(
            "{unit} arrived first on {place} ({source}): only the final place counts, its "
            "encumbrance ({n}); range {range}",
            **figures,
        )
    else:
        text = T_(
            "{unit} arrived first on {place} ({source}): only the final place counts, its "
            "cover ({n}); range {range}",
            **figures,
        )
    return adds, [Reason("P6", (shooter.id, shooter.place), text)]


def _door_refusals(junctions: list[Junction]) -> list[Reason]:
    """P4: a door on the way forbids the shot."""
    return [
        Reason(
            "P4",
            (j.id, *j.between),
            T_(
                "{kind} {id} between {a} and {b}: ranged attacks across it are impossible",
                kind=j.kind,
                id=j.id,
                a=j.between[0],
                b=j.between[1],
            ),
        )
        for j in junctions
        if j.blocks_ranged
    ]


def shot(subject: object, request: ShotRequest, *, options: PlacesOptions) -> list[ShotRuling]:
    """Rule a ranged attack of ``request.shooter`` at ``request.target`` (P5, P4
    junctions, P6 effects)."""
    placemap = placemap_of(subject, "shot")
    s, t = placemap.unit(request.shooter), placemap.unit(request.target)
    if s.id == t.id:
        raise RulesError(T_("a unit cannot shoot itself ({unit})", unit=repr(s.id)))
    tower = _tower(placemap, s, options)
    refusals = _target_refusals(placemap, t, options)
    found = _line(placemap, s.place, t.place, tower=tower is not None, options=options)
    line: tuple[str, ...] = () if found is None else found
    reasons: list[Reason] = []
    if found is None:
        text = T_("no way between {a} and {b}: nothing to shoot across", a=s.place, b=t.place)
        refusals.append(Reason("P5", (s.place, t.place), text))
    else:
        text = T_(
            "the projectile crosses {places} (a shortest way between the shooter's place and "
            "the target's)",
            places=worded(line, " -> "),
        )
        reasons.append(Reason("P5", line, text))
    junctions = [j for a, b in itertools.pairwise(line) for j in placemap.junctions_between(a, b)]
    if tower is None or not options.tower_over_doors:
        refusals += _door_refusals(junctions)
    counting: Literal["cover", "encumbrance"] = "cover"
    if tower is None:
        adds, counts = _cover_counts(placemap, line, junctions)
    else:
        counting = options.tower_counts
        adds, counts = _tower_counts(placemap, s, tower, line, counting)
    ruling = ShotRuling(
        shooter=s.id,
        target=t.id,
        allowed=not refusals,
        way=_way(placemap, line, adds),
        reduction=sum(adds.values()),
        range_bonus=0 if tower is None else tower.amount,
        counting=counting,
        reasons=(*reasons, *counts),
        refusals=tuple(refusals),
    )
    return [ruling]
