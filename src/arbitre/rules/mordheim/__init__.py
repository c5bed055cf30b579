"""Mordheim shooting phase (M1-M11, seed 002).

:func:`targets` rules a shooter: whether it may shoot (M1, M2), and for every enemy what
it sees of it (M1, M8), how far it is (M6), the score needed and its exact odds (M7, M9,
M10), and whether it is a legal target (M3 priority, M4 melee, M5 height).
:func:`shoot` refuses an illegal shot or rolls it, seeded and logged (M4, M6, M7, M9,
M11). :func:`rulings` answers the line-of-sight question of ``arbitre los``.

Decisions beyond RULES.md, each documented where it is taken:

- M1/M8 buildings: see :mod:`arbitre.rules.mordheim.sight`; a target inside a building
  other than the shooter's is in cover (M8: the building hides part of it).
- M3 "easier to hit" compares the exact chance of a hit (a lower score needed, except
  that scores with the same odds, such as two scores the dice cannot reach, count as
  equal); a farther target is legal when every closer candidate is passed over for a
  reason: the target is large, or easier to hit than that one, or that one is stunned,
  knocked down or fleeing. Enemies at the same distance (within 1e-6 mm) tie.
- M4: a fight is the target and the models engaged with it (``engaged`` read both ways).
- M5: an elevated shooter with visible enemies in its building picks freely among them.
- M6 distances are on the table plane (G6); a target exactly at the weapon's range is in
  range, one exactly at half range is not at long range (lengths equal within 1e-6 mm).
- M7: a shooter without BS, with BS 0, or without a missile weapon may not shoot (a reason,
  not an error); a BS that is not a whole number from 0 to 10 is an error. The seed bars
  no other status (stunned, knocked down, fleeing shooters are left to the full rules).
- M10 "wide" is the base's diameter; "more than 2 in" is strict.
"""

from __future__ import annotations

from collections.abc import Sequence

from arbitre.dice import Roller
from arbitre.errors import RulesError
from arbitre.rules import schema
from arbitre.rules.mordheim import sight as msight
from arbitre.rules.mordheim.facts import (
    Draft,
    ballistic_skill,
    check_buildings,
    cover,
    engagements,
    is_large,
    missile_weapon,
    modifiers,
    seen_reason,
    target_facts,
)
from arbitre.rules.mordheim.shot import Odds, Shot, roll
from arbitre.rules.mordheim.values import (
    BARRED,
    DIST_EPS,
    DISTRACTED,
    TWO_INCHES,
    MordheimOptions,
    ShotResult,
    TargetRuling,
    TargetsRuling,
    document,
    length,
    need_text,
    options,
)
from arbitre.rules.registry import Question, Ruleset, questions
from arbitre.rules.requests import LosRequest
from arbitre.rules.ruling import LosRuling, Reason
from arbitre.table import Model, Table, Weapon

__all__ = ["MordheimOptions", "Odds", "Shot", "ShotResult", "TargetRuling", "TargetsRuling",
           "ballistic_skill", "document", "engagements", "is_large", "length", "missile_weapon",
           "need_text", "options", "rulings", "shoot", "targets"]


def targets(table: Table, shooter: str, *, weapon: str | None = None,
            opts: MordheimOptions | None = None) -> TargetsRuling:
    """Rule ``shooter``'s shooting phase: may it shoot (M1), and every enemy as a target
    (M1, M3-M10), nearest first. ``weapon`` names a missile weapon (default: its first)."""
    opts = opts or options(table)
    s = table.model(shooter)
    check_buildings(table)
    engaged = engagements(table)
    w, bs = missile_weapon(s, weapon), ballistic_skill(s)
    enemies = [m for m in table.models if m.side != s.side]
    facts = msight.measure(table, [(s.id, e.id) for e in enemies])
    multiplayer = len(table.sides()) > 2
    drafts = sorted(
        (target_facts(table, s, e, f, w, bs, engaged, multiplayer, opts)
         for e, f in zip(enemies, facts, strict=True)),
        key=lambda d: d.distance)
    elevated = s.elevation > TWO_INCHES + DIST_EPS
    candidates = [d for d in drafts if d.facts.visible and not d.barred]
    for d in drafts:
        if not d.facts.visible:
            d.refuse(Reason("M1", (s.id, d.model.id), f"{s.id} cannot target {d.model.id}: "
                            "it does not see it"))
    if elevated:
        _height(s, candidates)
    else:
        _priority(s, candidates, opts)
    reasons, refusals = _shooter(table, s, w, bs, weapon, engaged, drafts, elevated,
                                 multiplayer)
    legal = any(d.legal for d in drafts)
    if not refusals and not legal:
        why = "M4" if any(d.facts.visible for d in drafts) else "M1"
        refusals.append(Reason(why, (s.id,), f"{s.id} has no legal target"))
        reasons.append(refusals[-1])
    if not refusals:
        reasons.append(Reason("M1", (s.id,), f"{s.id} may shoot: it sees a target and has "
                              "a missile weapon"))
    return TargetsRuling(s.id, w, bs, not refusals, elevated, multiplayer, tuple(reasons),
                         tuple(d.done() for d in drafts), opts, tuple(refusals))


def _shooter(table: Table, s: Model, w: Weapon | None, bs: int | None, named: str | None,
             engaged: dict[str, tuple[str, ...]], drafts: list[Draft], elevated: bool,
             multiplayer: bool) -> tuple[list[Reason], list[Reason]]:
    """M1, M2, M5, M7: the shooter's own reasons, and those that forbid it to shoot."""
    refusals = []
    if engaged[s.id]:
        refusals.append(Reason("M1", (s.id, *engaged[s.id]), f"{s.id} is engaged in close "
                               f"combat with {', '.join(engaged[s.id])}: it cannot shoot"))
    for status, text in BARRED.items():
        if status in s.status:
            refusals.append(Reason("M1", (s.id,), f"{s.id} {text}: it cannot shoot this turn"))
    if w is None:
        refusals.append(Reason("M1", (s.id,), f"{s.id} has no missile weapon"))
    if bs is None:
        refusals.append(Reason("M7", (s.id,), f"{s.id} has no BS (stats.bs): no score to hit"))
    elif bs == 0:
        refusals.append(Reason("M7", (s.id,), f"{s.id} has BS 0: the M7 table has no score "
                               "for it"))
    if not any(d.facts.visible for d in drafts):
        refusals.append(Reason("M1", (s.id,), f"{s.id} sees no enemy"))
    reasons = list(refusals)
    reasons.append(Reason("M2", (s.id,), f"{s.id} sees all around and pivots for free before "
                          "shooting (pivoting is not moving)"))
    if w is not None and w.range is not None:
        how = "" if named else ", its first missile weapon"
        reasons.append(Reason("M6", (s.id,), f"{s.id} shoots with {w.name} (range "
                              f"{length(table, w.range)}{how})"))
    if bs:
        reasons.append(Reason("M7", (s.id,), f"{s.id} has BS {bs}: {7 - bs}+ to hit before "
                              "modifiers"))
    if "moved" in s.status:
        reasons.append(Reason("M7", (s.id,), f"{s.id} moved this turn: -1 to hit"))
    if elevated:
        reasons.append(Reason("M5", (s.id,), f"{s.id} stands {length(table, s.elevation)} "
                              "above the table (more than 2 in): it may pick any target it "
                              "sees, enemies inside its building first"))
    if multiplayer:
        reasons.append(Reason("M4", (s.id,), f"{len(table.sides())} warbands: {s.id} may fire "
                              "into a fight none of whose models is of its warband"))
    return reasons, refusals


def _priority(s: Model, candidates: list[Draft], opts: MordheimOptions) -> None:
    """M3: the closest enemy, or a farther one that is large, or easier to hit than each
    closer one, or whose closer ones are stunned, knocked down or fleeing (or a mix)."""
    if not candidates:
        return
    nearest = candidates[0].distance
    for d in candidates:
        t = d.model.id
        if d.distance <= nearest + DIST_EPS:
            d.allow(Reason("M3", (s.id, t), f"{t} is the closest enemy {s.id} may target: "
                           "it must be targeted unless an exception allows another"),
                    closest=True)
            continue
        if d.large:
            d.allow(Reason("M3", (s.id, t), f"{t} is farther than the closest enemy but a "
                           "large target: it may be picked"))
            continue
        closer = [c for c in candidates if c.distance < d.distance - DIST_EPS]
        passed, unmet = [], []
        for c in closer:
            status = [text for key, text in DISTRACTED.items() if key in c.model.status]
            if status:
                passed.append(f"{c.model.id} is {' and '.join(status)}")
            elif d.ease() > c.ease():
                passed.append(f"{t} is easier to hit than {c.model.id} "
                              f"({_ease_text(d, opts)}; {_ease_text(c, opts)})")
            else:
                unmet.append(c)
        if not unmet:
            d.allow(Reason("M3", (s.id, t, *(c.model.id for c in closer)), f"{t} may be "
                           f"picked over closer enemies: {'; '.join(passed)}"))
            continue
        ids = ", ".join(c.model.id for c in unmet)
        verb, them = ("is", "it is") if len(unmet) == 1 else ("are", "they are")
        d.refuse(Reason("M3", (s.id, t, *(c.model.id for c in unmet)), f"{ids} {verb} "
                        f"closer: {t} is not easier to hit ({_ease_text(d, opts)}; "
                        f"{'; '.join(_ease_text(c, opts) for c in unmet)}), not a large target, "
                        f"and {them} not stunned, knocked down or fleeing"))


def _ease_text(d: Draft, opts: MordheimOptions) -> str:
    r = d.ruling
    if r.odds is None or r.score is None:
        return f"{r.target} modifiers {modifiers(r):+d}"
    return f"{r.target} {need_text(r.score, opts, r.in_range)}, p {r.odds.hit}"


def _height(s: Model, candidates: list[Draft]) -> None:
    """M5: an elevated shooter picks any target it sees; enemies it sees inside its own
    building come first (it picks freely among them)."""
    same = [d for d in candidates if s.inside is not None and d.model.inside == s.inside]
    for d in candidates:
        t = d.model.id
        if not same:
            d.allow(Reason("M5", (s.id, t), f"{s.id} shoots from a height: {t} may be picked"))
        elif d in same:
            d.allow(Reason("M5", (s.id, t, str(s.inside)), f"{t} is inside {s.inside} with "
                           f"{s.id}: enemies in the same building must be targeted first"),
                    closest=True)
        else:
            ids = ", ".join(x.model.id for x in same)
            d.refuse(Reason("M5", (s.id, t, *(x.model.id for x in same)), f"{ids} inside "
                            f"{s.inside} with {s.id} must be targeted first"))


# -- a shot, and the line-of-sight question ------------------------------------------------


def shoot(table: Table, shooter: str, target: str, *, seed: int | Roller,
          weapon: str | None = None, opts: MordheimOptions | None = None) -> ShotResult:
    """Roll ``shooter``'s shot at ``target`` (M6, M7, M9, M4, M11), seeded and logged.

    A shot the rules forbid (M1, M3-M5) raises :class:`RulesError` with its reasons.
    The same seed gives the same dice and the same result.
    """
    ruling = targets(table, shooter, weapon=weapon, opts=opts)
    s, t = table.model(shooter), table.model(target)
    if t.side == s.side:
        raise RulesError(f"{shooter} may not shoot {target}: {target} is of its own warband "
                         f"({s.side}), not an enemy (M3)")
    if ruling.refusals:
        raise RulesError(f"{shooter} may not shoot: {_why(ruling.refusals)}")
    tr = ruling.target(target)
    if not tr.legal or tr.shot is None or tr.odds is None:
        raise RulesError(f"{shooter} may not shoot {target}: {_why(tr.refusals)}")
    (kind, hit), log = roll(tr.shot, seed)
    reasons = list(tr.reasons)
    assert ruling.weapon is not None
    if not tr.shot.in_range:
        reasons.append(Reason("M6", (shooter, target), "out of range: the shot misses "
                              "automatically, no dice rolled"))
    else:
        die = log.dice[0].value
        after = f" then {log.dice[1].value}" if len(log.dice) > 1 and tr.shot.need > 6 else ""
        text = {"hit": "hits", "miss": "misses",
                "hit_cover": "misses by exactly 1: the shot hits the cover"}[kind]
        reasons.append(Reason("M9" if kind == "hit_cover" else "M7", (shooter, target),
                              f"rolled {die}{after} needing "
                              f"{need_text(tr.shot.need, ruling.options)}: {text}"))
    if kind == "hit" and len(tr.shot.fight) > 1:
        reasons.append(Reason("M4", tr.shot.fight, f"rolled {log.dice[-1].value} on a "
                              f"d{len(tr.shot.fight)}: the hit goes to {hit}"))
    if kind == "hit" and hit is not None:
        reasons.append(Reason("M11", (str(hit),), f"{hit} is hit: go on to the wound step"))
    return ShotResult(shooter, target, ruling.weapon.name, tr.shot, kind, hit,
                      not tr.shot.in_range, log, tr.odds, tuple(reasons))


def _why(reasons: Sequence[Reason]) -> str:
    return "; ".join(f"{r.text} ({r.rule})" for r in reasons) or "no reason given"


def rulings(table: Table, pairs: Sequence[tuple[str, str]]) -> list[LosRuling]:
    """M1 and M8 for each ``(shooter, target)`` pair: visible when the shooter sees some of
    the target's base, and ``cover`` 1 when the target is in cover (the M7 -1), else 0."""
    options(table)
    check_buildings(table)
    for a, b in pairs:
        table.model(a)
        table.model(b)
        if a == b:
            raise RulesError(f"a model does not shoot itself: {a!r}")
    out = []
    for f in msight.measure(table, list(pairs)):
        s, t = table.model(f.shooter), table.model(f.target)
        reasons = [seen_reason(table, f)]
        in_cover, pieces, reason = cover(table, s, t, f)
        if f.visible:
            reasons.append(reason)
        out.append(LosRuling(f.shooter, f.target, f.visible, int(f.visible and in_cover),
                             tuple(reasons), f.seen, f.blockers,
                             pieces if f.visible and in_cover else ()))
    return out


def _los(table: Table, request: LosRequest, *, options: MordheimOptions) -> list[LosRuling]:
    return rulings(table, request.pairs_on(table))


RULESET = Ruleset(
    name="mordheim",
    title="Mordheim shooting phase (M1-M12)",
    aliases=("mh", "mordheim-shooting"),
    options=MordheimOptions,
    questions=questions(
        Question("los", "Lines of sight (M1, M8)", LosRequest, _los, schema=schema.LOS),
    ),
    sight="S2",
)
