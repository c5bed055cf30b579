"""The facts of one Mordheim shooter and of each target, before priority (M1, M4, M6-M10).

:func:`target_facts` measures an enemy as a target: distance and range (M6), what the
shooter sees of it (M1) and whether it is in cover (M8), whether it is large (M10), the
fight it is in (M4), the M7 score and the exact odds of the :class:`Shot` (M9). The
priority rules (M3, M5) then decide on the :class:`Draft` in :mod:`arbitre.rules.mordheim`.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from arbitre.errors import RulesError
from arbitre.rules.mordheim import sight as msight
from arbitre.rules.mordheim.shot import Shot
from arbitre.rules.mordheim.values import (
    DIST_EPS,
    TWO_INCHES,
    MordheimOptions,
    TargetRuling,
    length,
    need_text,
    reachable,
)
from arbitre.rules.ruling import Reason
from arbitre.table import Model, Table, Weapon


def missile_weapon(model: Model, name: str | None = None) -> Weapon | None:
    """The weapon ``name`` (case ignored), or the model's first missile weapon (one with
    a range), or None when it has none. A named weapon it lacks is an error."""
    missiles = [w for w in model.weapons if w.range is not None]
    if name is None:
        return missiles[0] if missiles else None
    for w in model.weapons:
        if w.name.casefold() == name.strip().casefold():
            if w.range is None:
                raise RulesError(f"{model.id}'s weapon {w.name!r} is not a missile weapon "
                                 "(it has no range)")
            return w
    known = ", ".join(repr(w.name) for w in missiles) or "none"
    raise RulesError(f"{model.id} has no weapon {name!r} (missile weapons: {known})")


def ballistic_skill(model: Model) -> int | None:
    """The model's BS (``stats.bs``), a whole number from 0 to 10 (M7), or None."""
    value = model.stat("bs")
    if value is None:
        return None
    if isinstance(value, bool) or not float(value).is_integer() or not 0 <= value <= 10:
        raise RulesError(f"model {model.id!r} stats.bs: must be a whole number from 0 to 10 "
                         f"(the M7 table), got {value!r}")
    return int(value)


def engagements(table: Table) -> dict[str, tuple[str, ...]]:
    """Who is in close combat with whom (M1, M4), read both ways, in table order."""
    found: dict[str, set[str]] = {m.id: set() for m in table.models}
    for m in table.models:
        for other in m.engaged:
            if other not in found:
                raise RulesError(f"model {m.id!r} engaged: unknown model id {other!r}")
            found[m.id].add(other)
            found[other].add(m.id)
    order = {m.id: i for i, m in enumerate(table.models)}
    return {k: tuple(sorted(v, key=order.__getitem__)) for k, v in found.items()}


def is_large(table: Table, model: Model) -> tuple[bool, str]:
    """M10: the large-target rule, or more than 2" tall or wide (its base); and why."""
    if model.large_target:
        return True, f"{model.id} has the large target rule"
    if model.height is not None and model.height > TWO_INCHES + DIST_EPS:
        return True, f"{model.id} is {length(table, model.height)} tall, more than 2 in"
    if model.base.diameter > TWO_INCHES + DIST_EPS:
        wide = length(table, model.base.diameter)
        return True, f"{model.id}'s base is {wide} wide, more than 2 in"
    return False, ""


def check_buildings(table: Table) -> None:
    """M5: a model's ``inside`` must name a building of the table (an error otherwise)."""
    pieces = {t.id: t for t in table.terrain}
    for m in table.models:
        if m.inside is None:
            continue
        if m.inside not in pieces:
            known = ", ".join(t.id for t in table.terrain if t.building) or "none"
            raise RulesError(f"model {m.id!r} inside: unknown terrain id {m.inside!r} "
                             f"(buildings: {known})")
        if not pieces[m.inside].building:
            raise RulesError(f"model {m.id!r} inside: terrain {m.inside!r} is not a building "
                             "(give it building: true)")


class Draft:
    """A target being ruled: its facts, then its legality (M3-M5). Internal, mutable."""

    __slots__ = ("barred", "closest", "facts", "fight", "large", "legal", "model", "reasons",
                 "refusals", "ruling")

    def __init__(self, model: Model, facts: msight.PairSight, ruling: TargetRuling,
                 barred: bool, fight: tuple[str, ...]) -> None:
        self.model, self.facts, self.ruling = model, facts, ruling
        self.barred, self.fight, self.large = barred, fight, ruling.large
        self.legal = self.closest = False
        self.reasons: list[Reason] = list(ruling.reasons)
        self.refusals: list[Reason] = list(ruling.refusals)

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

    def refuse(self, reason: Reason) -> None:
        self.reasons.append(reason)
        self.refusals.append(reason)

    def done(self) -> TargetRuling:
        return replace(self.ruling, legal=self.legal, closest=self.closest,
                       reasons=tuple(self.reasons), refusals=tuple(self.refusals))


def modifiers(r: TargetRuling) -> int:
    """The M7 modifiers that differ from target to target (moving counts for all alike),
    as points added to the score needed."""
    return int(r.in_cover) + int(bool(r.long_range and r.in_range)) - int(r.large)


def target_facts(table: Table, s: Model, e: Model, f: msight.PairSight, w: Weapon | None,
                 bs: int | None, engaged: dict[str, tuple[str, ...]], multiplayer: bool,
                 opts: MordheimOptions) -> Draft:
    """The facts of one target (M1, M4, M6-M10), before M3/M5 say whether it is legal."""
    reasons: list[Reason] = []
    distance = f.edge_distance if opts.range_from == "edge" else f.centre_distance
    in_range = long_range = None
    how = "closest base edges" if opts.range_from == "edge" else "centres"
    if w is not None and w.range is not None:
        in_range = distance <= w.range + DIST_EPS
        long_range = distance > w.range / 2 + DIST_EPS
        what = ("out of range: the shot misses automatically" if not in_range else
                f"long range (beyond {length(table, w.range / 2)})" if long_range else
                "in range, not long range")
        reasons.append(Reason("M6", (s.id, e.id), f"{e.id} is {length(table, distance)} away "
                              f"({how}); {w.name} {length(table, w.range)}: {what}"))
    else:
        reasons.append(Reason("M6", (s.id, e.id), f"{e.id} is {length(table, distance)} away "
                              f"({how})"))
    reasons.append(seen_reason(table, f))
    in_cover, cover_pieces, cover_reason = cover(table, s, e, f)
    in_cover = in_cover and f.visible  # cover means nothing for a target not seen
    if f.visible:
        reasons.append(cover_reason)
    large, why = is_large(table, e)
    if large:
        reasons.append(Reason("M10", (e.id,), f"{why}: a large target, +1 to hit"))
    fight = (e.id, *engaged[e.id]) if engaged[e.id] else ()
    barred, in_melee = melee(s, e, fight, table, multiplayer)
    score = need = odds = shot = None
    if bs and w is not None and w.range is not None and f.visible:
        mods = [(int(in_cover), "cover"), (int(bool(long_range and in_range)), "long range"),
                (int("moved" in s.status), "moved and shot"), (-int(large), "large target")]
        score = 7 - bs + sum(m for m, _ in mods)
        need = score if in_range and reachable(score, opts) else None
        shot = Shot(s.id, e.id, score, bool(in_range), in_cover,
                    fight if fight and not barred else (), opts.natural_one_misses,
                    opts.need_over_six)
        odds = shot.odds()
        parts = "".join(f", {name} {-m:+d}" for m, name in mods if m)
        total = f" = {need_text(score, opts)}" if parts else ""
        range_text = "" if in_range else "; out of range"
        reasons.append(Reason("M7", (s.id, e.id), f"BS {bs}: {7 - bs}+{parts}{total}"
                              f"{range_text}; p(hit) {odds.hit}"))
        if in_cover and in_range and odds.hit_cover:
            reasons.append(Reason("M9", (e.id, *cover_pieces), f"a miss by exactly 1 hits the "
                                  f"cover instead: p {odds.hit_cover}"))
    refusals = []
    if in_melee is not None:
        reasons.append(in_melee)
        if barred:
            refusals.append(in_melee)
    ruling = TargetRuling(s.id, e.id, e.side, f.visible, f.seen, f.exposed, distance, in_range,
                          long_range, in_cover, large, score, need, odds, False, False,
                          fight, f.blockers, cover_pieces if in_cover else (), tuple(reasons),
                          tuple(refusals), shot)
    return Draft(e, f, ruling, barred, fight)


def seen_reason(table: Table, f: msight.PairSight) -> Reason:
    """M1: whether the shooter sees some of the target (S2 > 0, blocking pieces hiding)."""
    a, b = f.shooter, f.target
    inside = "".join(f"; {b} does not hide: {a if table.model(a).inside == b else f.target} "
                     "stands in it" for b in f.ignored)
    if f.visible:
        return Reason("M1", (a, b), f"{a} sees {f.seen:.0%} of {b}'s base past blocking "
                      f"terrain and other models{inside}")
    by = ", ".join(f.blockers) or "blocking terrain and models"
    return Reason("M1", (a, b, *f.blockers), f"{b} is not visible to {a}: hidden by {by}")


def cover(table: Table, s: Model, t: Model, f: msight.PairSight
          ) -> tuple[bool, tuple[str, ...], Reason]:
    """M8: in cover when terrain (any piece) or another model hides part of the target;
    by decision, a target inside a building other than the shooter's is in cover."""
    building = t.inside if t.inside is not None and t.inside != s.inside else None
    pieces = (*f.hiders, *((building,) if building and building not in f.hiders else ()))
    parts = []
    if f.partly_hidden:
        parts.append(f"{1 - f.exposed:.0%} of {t.id}'s base is hidden by "
                     f"{', '.join(f.hiders)}")
    if building:
        parts.append(f"{t.id} stands inside building {building}")
    if not parts:
        return False, (), Reason("M8", (t.id,), f"nothing hides any part of {t.id}: no cover")
    return True, pieces, Reason("M8", (t.id, *pieces), f"in cover: {'; '.join(parts)}")


def melee(s: Model, e: Model, fight: tuple[str, ...], table: Table,
          multiplayer: bool) -> tuple[bool, Reason | None]:
    """M4: whether the target's fight bars the shot, and why; None outside a fight."""
    if not fight:
        return False, None
    opponents = fight[1:]
    friends = [m for m in fight if table.model(m).side == s.side]
    if friends:
        return True, Reason("M4", (e.id, *friends), f"{e.id} is in close combat with "
                            f"{', '.join(friends)} of {s.id}'s warband: no shooting into "
                            "that fight")
    if not multiplayer:
        return True, Reason("M4", (e.id, *opponents), f"{e.id} is in close combat with "
                            f"{', '.join(opponents)}: only a game of more than two warbands "
                            "allows shooting into a fight")
    return False, Reason("M4", fight, f"{e.id} is in a fight without {s.id}'s warband "
                         f"(more than two warbands): a hit goes at random to one of "
                         f"{', '.join(fight)} (1 in {len(fight)} each)")
