"""An enemy as a target, before priority: M6 range, M10 large target, M4 melee; and the
:class:`Draft` the priority rules (M3, M5, :mod:`arbitre.rules.mordheim.priority`) then
rule on.

:func:`target_facts` measures one enemy: how far it is and whether it is in range (M6),
what the shooter sees of it (M1) and whether it is in cover (M8, from
:mod:`arbitre.rules.mordheim.sight`), whether it is large (M10), the fight it is in (M4),
and the M7 score and exact odds (:mod:`arbitre.rules.mordheim.shot`).

Decisions beyond RULES.md:

- M4: a fight is every model linked to the target by a chain of engagements (``engaged``
  read both ways, :meth:`arbitre.table.Table.engagements`): q fights p, p fights f, and
  q, p and f are one fight, so a shooter of f's warband may shoot neither q nor p. In a
  game of more than two warbands a shot into a fight without the shooter's warband hits
  at random the target or one of the models engaged with the target itself (seed 002:
  «entre la cible du tir et toutes les figurines engagées au corps à corps contre
  elle»), not the whole chain. :func:`fights` groups the fights for pictures.
- M6 distances are on the table plane (G6); a target exactly at the weapon's range is in
  range, one exactly at half range is not at long range (lengths equal within 1e-6 mm).
- M10 "wide" is the base's diameter; "more than 2 in" is strict.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from arbitre.errors import RulesError
from arbitre.i18n import N_, T_, TN_, Join, Text, join
from arbitre.rules.frostgrave_make import replacer
from arbitre.rules.mordheim.deciding import own_slacks
from arbitre.rules.mordheim.margins import NO_SLACK
from arbitre.rules.mordheim.shot import (
    Score,
    ToHitFacts,
    modifiers,
    need_short,
    need_text,
    to_hit,
)
from arbitre.rules.mordheim.sight import PairSight, cover, seen_reason, window_reason

if TYPE_CHECKING:  # networkx is imported when a fight is ruled, not with the ruleset
    import networkx as nx
from arbitre.i18n import semicolons
from arbitre.rules.mordheim.values import (
    DIST_EPS,
    TWO_INCHES,
    MordheimOptions,
    TargetRuling,
    length,
)
from arbitre.rules.ruling import NO_MARGIN, Margin, Reason
from arbitre.table import Model, Table, Unit, Weapon

#: Who is in close combat with whom, read both ways (:meth:`Table.engagements`).
Engagements = dict[str, tuple[str, ...]]
#: Ids of terrain pieces and models.
Pieces = tuple[str, ...]


def missile_weapon(model: Model, name: str | None = None) -> Weapon | None:
    """The weapon ``name`` (case ignored), or the model's first missile weapon (one with
    a range), or None when it has none. A named weapon it lacks is an error."""
    missiles = [w for w in model.weapons if w.range is not None]
    if name is None:
        return missiles[0] if missiles else None
    for w in model.weapons:
        if w.name.casefold() == name.strip().casefold():
            if w.range is None:
                raise RulesError(
                    T_(
                        "{id}'s weapon {weapon} is not a missile weapon (it has no range)",
                        id=model.id,
                        weapon=repr(w.name),
                    )
                )
            return w
    known = join((repr(w.name) for w in missiles), empty=N_("none"))
    raise RulesError(
        T_(
            "{id} has no weapon {weapon} (missile weapons: {known})",
            id=model.id,
            weapon=repr(name),
            known=known,
        )
    )


def is_large(table: Table, model: Model) -> tuple[bool, Text | None]:
    """M10: the large-target rule, or more than 2" tall or wide (its base); and why (a
    reason's words: "... : a large target, +1 to hit")."""
    if model.large_target:
        return True, T_("{id} has the large target rule: a large target, +1 to hit", id=model.id)
    if model.height is not None and model.height > TWO_INCHES + DIST_EPS:
        return True, T_(
            "{id} is {height} tall, more than 2 in: a large target, +1 to hit",
            id=model.id,
            height=length(table, model.height),
        )
    if model.base.diameter > TWO_INCHES + DIST_EPS:
        return True, T_(
            "{id}'s base is {wide} wide, more than 2 in: a large target, +1 to hit",
            id=model.id,
            wide=length(table, model.base.diameter),
        )
    return False, None


def fights(table: Table, engaged: Engagements) -> tuple[tuple[str, ...], ...]:
    """M4: the groups of models in close combat together (linked by engagements), each in
    the order met from its first model in table order."""
    seen: set[str] = set()
    groups = []
    for m in table.models:
        if m.id in seen or not engaged[m.id]:
            continue
        group, todo = [], [m.id]
        while todo:
            k = todo.pop()
            if k not in seen:
                seen.add(k)
                group.append(k)
                todo.extend(engaged[k])
        groups.append(tuple(group))
    return tuple(groups)


def fight_of(target: str, engaged: Engagements) -> tuple[str, ...]:
    """M4: the target's whole fight, the target first, then by steps of engagement
    (those engaged with it, then those engaged with them...); empty outside a melee."""
    if not engaged[target]:
        return ()
    import networkx as nx

    rank = {k: i for i, k in enumerate(engaged)}  # table order
    tree = nx.bfs_tree(
        _graph(engaged), target, sort_neighbors=lambda ns: sorted(ns, key=rank.__getitem__)
    )
    return tuple(tree)


def _graph(engaged: Engagements) -> nx.Graph[str]:
    """The engagements as a graph: a node a model in close combat, an edge a contact."""
    import networkx as nx

    return nx.Graph([(a, b) for a, others in engaged.items() for b in others])


def _links(e: str, friends: list[str], engaged: Engagements) -> Join:
    """M4 in words: the chain of engagements from ``e`` to each of ``friends``."""
    import networkx as nx

    graph = _graph(engaged)
    steps: dict[tuple[str, str], None] = {}
    for f in friends:
        path = nx.shortest_path(graph, e, f)
        for a, b in itertools.pairwise(path):
            steps[(a, b)] = None
    return join(T_("{a} fights {b}", a=a, b=b) for a, b in steps)


def melee(
    s: Model,
    e: Model,
    fight: tuple[str, ...],
    table: Table,
    multiplayer: bool,
    engaged: Engagements,
) -> tuple[bool, Reason | None]:
    """M4: whether the target's fight (the whole chain) bars the shot, and why; None
    outside a fight."""
    if not fight:
        return False, None
    opponents = engaged[e.id]
    friends = [m for m in fight if table.model(m).side == s.side]
    direct = [m for m in friends if m in opponents]
    if friends and direct == friends:
        return True, Reason(
            "M4",
            (e.id, *friends),
            T_(
                "{target} is in close combat with {friends} of {shooter}'s warband: no "
                "shooting into that fight",
                target=e.id,
                friends=join(friends),
                shooter=s.id,
            ),
        )
    if friends:
        return True, Reason(
            "M4",
            (*fight,),
            T_(
                "{links}: one fight, with {friends} of {shooter}'s warband in it: no shooting "
                "into that fight",
                links=_links(e.id, friends, engaged),
                friends=join(friends),
                shooter=s.id,
            ),
        )
    if not multiplayer:
        return True, Reason(
            "M4",
            (e.id, *fight[1:]),
            T_(
                "{target} is in close combat with {others}: only a game of more than two "
                "warbands allows shooting into a fight",
                target=e.id,
                others=join(fight[1:]),
            ),
        )
    pool = (e.id, *opponents)
    rest = [m for m in fight if m not in pool]
    words = T_(
        "{target} is in a fight without {shooter}'s warband (more than two warbands): a hit "
        "goes at random to one of {pool} (1 in {n} each)",
        target=e.id,
        shooter=s.id,
        pool=join(pool),
        n=len(pool),
    )
    if rest:
        beyond = TN_(
            "{rest} is in the fight but not engaged with {target}: not hit",
            "{rest} are in the fight but not engaged with {target}: not hit",
            "n",
            rest=join(rest),
            target=e.id,
            n=len(rest),
        )
        words = semicolons((words, beyond))
    return False, Reason("M4", fight, words)


def in_range(
    table: Table, s: Model, e: Model, distance: float, w: Weapon | None, opts: MordheimOptions
) -> tuple[bool | None, bool | None, Reason]:
    """M6: whether ``e`` is in range of ``w`` and at long range (None without a weapon),
    measured as ``range_from`` says, and why. Kept by what the answer is made of (ids,
    distance, weapon, option and unit): a target that did not move is not worded again."""
    return _in_range(s.id, e.id, distance, w, opts.range_from, table.unit)


@lru_cache(maxsize=2048)
def _in_range(
    shooter: str, target: str, distance: float, w: Weapon | None, range_from: str, unit: Unit
) -> tuple[bool | None, bool | None, Reason]:
    """:func:`in_range` of these ids, distance, weapon, ``range_from`` and unit."""
    away = (
        T_(
            "{target} is {distance} away (closest base edges)",
            target=target,
            distance=unit.measure(distance),
        )
        if range_from == "edge"
        else T_(
            "{target} is {distance} away (centres)", target=target, distance=unit.measure(distance)
        )
    )
    if w is None or w.range is None:
        return None, None, Reason("M6", (shooter, target), away)
    within = distance <= w.range + DIST_EPS
    long_range = distance > w.range / 2 + DIST_EPS
    what = (
        T_("out of range: the shot misses automatically")
        if not within
        else T_("long range (beyond {half})", half=unit.measure(w.range / 2))
        if long_range
        else T_("in range, not long range")
    )
    words = T_(
        "{away}; {weapon} {range}: {what}",
        away=away,
        weapon=w.name,
        range=unit.measure(w.range),
        what=what,
    )
    return within, long_range, Reason("M6", (shooter, target), words)


class Draft:
    """A target being ruled: its facts, then its legality (M3-M5). Internal, mutable.

    ``deciding`` collects the reasons that decide ``legal`` (the refusals, and the M3/M5
    reasons that allow it); :meth:`done` freezes it into a :class:`TargetRuling`.
    """

    __slots__ = (
        "barred",
        "closest",
        "deciding",
        "facts",
        "large",
        "legal",
        "model",
        "note",
        "own",
        "reasons",
        "refusals",
        "ruling",
    )

    def __init__(
        self,
        model: Model,
        facts: PairSight,
        ruling: TargetRuling,
        barred: bool,
        note: Reason | None,
    ) -> None:
        self.model, self.facts, self.ruling = model, facts, ruling
        self.barred, self.large, self.note = barred, ruling.large, note
        self.legal = self.closest = False
        self.own = NO_SLACK  # G8: how far its own facts are from changing
        self.reasons: list[Reason] = list(ruling.reasons)
        self.refusals: list[Reason] = list(ruling.refusals)
        self.deciding: list[Reason] = list(ruling.refusals)

    @property
    def distance(self) -> float:
        return self.ruling.distance

    def ease(self) -> Fraction:
        """M3: how easy it is to hit: the exact chance, or minus its score's modifiers."""
        r = self.ruling
        return r.odds.hit if r.odds is not None else Fraction(-modifiers(r))

    def allow(self, reason: Reason, *, closest: bool = False) -> None:
        self.legal, self.closest = True, closest
        self.reasons.append(reason)
        self.deciding.append(reason)

    def refuse(self, reason: Reason) -> None:
        self.legal = self.closest = False
        self.reasons.append(reason)
        self.refusals.append(reason)
        self.deciding.append(reason)

    def done(self, margin: Margin = NO_MARGIN) -> TargetRuling:
        """The ruling; a legal target shot into a multiplayer fight also shows the M4
        reason that shares its hits among the fight."""
        deciding = list(self.deciding)
        if self.legal and self.note is not None and not self.barred:
            deciding.append(self.note)
        deciding.sort(key=_rank(self.reasons))
        return _done(
            self.ruling,
            self.legal,
            self.closest,
            tuple(self.reasons),
            tuple(self.refusals),
            _distinct(deciding),
            margin,
        )


#: ``replace(ruling, legal=..., closest=..., reasons=..., refusals=..., deciding=...,
#: margin=...)`` of a :class:`TargetRuling`, made faster
#: (:func:`arbitre.rules.frostgrave_make.replacer`).
_done = replacer(TargetRuling, ("legal", "closest", "reasons", "refusals", "deciding", "margin"))


def _rank(reasons: list[Reason]) -> Callable[[Reason], int]:
    """Where a reason comes among ``reasons``: ``{r: i for i, r in enumerate(reasons)}
    .get(r, len(that dict))``, the last equal one's place, without hashing the reasons'
    texts (a reason is mostly the very object listed: found by identity first, as a
    dict finds it)."""

    def rank(r: Reason) -> int:
        for i in range(len(reasons) - 1, -1, -1):
            q = reasons[i]
            if q is r or q == r:
                return i
        return len(_distinct(reasons))

    return rank


def _distinct(reasons: list[Reason]) -> tuple[Reason, ...]:
    """``tuple(dict.fromkeys(reasons))``: the first of equal reasons, in order, by
    identity then equality (as a dict compares keys), without hashing them."""
    out: list[Reason] = []
    for r in reasons:
        if not any(q is r or q == r for q in out):
            out.append(r)
    return tuple(out)


def _seen(table: Table, s: Model, e: Model, f: PairSight) -> tuple[list[Reason], bool, Pieces]:
    """M1, M8: what ``s`` sees of ``e``, whether it is in cover and by what pieces."""
    in_cover, pieces, cover_reason = cover(table, s, e, f)
    window = window_reason(f)
    after = [] if window is None else [window]
    if not f.visible:  # cover means nothing for a target not seen
        return [seen_reason(table, f), *after], False, pieces
    return [seen_reason(table, f), cover_reason, *after], in_cover, pieces


def _scored(score: Score | None, opts: MordheimOptions, within: bool | None) -> dict[str, Any]:
    """The M7 fields of a target's ruling: all None without a score."""
    if score is None:
        return dict.fromkeys(("score", "need", "need_text", "need_short", "odds", "shot")) | {
            "modifiers": ()
        }
    return {
        "score": score.score,
        "need": score.need,
        "need_text": need_text(score.score, opts, within),
        "need_short": need_short(score.score, opts, within),
        "odds": score.odds,
        "shot": score.shot,
        "modifiers": score.modifiers,
    }


def target_facts(
    table: Table,
    s: Model,
    e: Model,
    f: PairSight,
    w: Weapon | None,
    bs: int | None,
    engaged: Engagements,
    multiplayer: bool,
    opts: MordheimOptions,
) -> Draft:
    """The facts of one target (M1, M4, M6-M10), before M3/M5 say whether it is legal."""
    distance = f.edge_distance if opts.range_from == "edge" else f.centre_distance
    within, long_range, range_reason = in_range(table, s, e, distance, w, opts)
    seen, in_cover, cover_pieces = _seen(table, s, e, f)
    reasons = [range_reason, *seen]
    large, why = is_large(table, e)
    if why is not None:
        reasons.append(Reason("M10", (e.id,), why))
    fight = fight_of(e.id, engaged)
    barred, in_melee = melee(s, e, fight, table, multiplayer, engaged)
    facts = ToHitFacts(
        visible=f.visible,
        in_range=within,
        long_range=long_range,
        in_cover=in_cover,
        cover_pieces=cover_pieces,
        large=large,
        fight=(e.id, *engaged[e.id]) if fight and not barred else (),
    )
    score, m7 = to_hit(s, e.id, bs, w is not None and w.range is not None, facts, opts)
    reasons += m7
    if in_melee is not None:
        reasons.append(in_melee)
    ruling = TargetRuling(
        shooter=s.id,
        target=e.id,
        side=e.side,
        visible=f.visible,
        visible_fraction=f.seen,
        exposed_fraction=f.exposed,
        distance=distance,
        in_range=within,
        long_range=long_range,
        in_cover=in_cover,
        large=large,
        legal=False,
        closest=False,
        fight=fight,
        blockers=f.blockers,
        cover_pieces=cover_pieces if in_cover else (),
        reasons=tuple(reasons),
        refusals=(in_melee,) if barred and in_melee is not None else (),
        **_scored(score, opts, within),
    )
    draft = Draft(e, f, ruling, barred, in_melee)
    draft.own = own_slacks(f, distance, w)
    return draft
