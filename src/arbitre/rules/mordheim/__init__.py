"""Mordheim shooting phase (M1-M11, seed 002): the questions and :data:`RULESET`.

The rules live in modules named for them:

- :mod:`~arbitre.rules.mordheim.sight`: M1 who is seen, M8 cover (S2), the ``los`` rulings;
- :mod:`~arbitre.rules.mordheim.target`: M4 melee and fights, M6 range, M10 large targets;
- :mod:`~arbitre.rules.mordheim.priority`: M3 target priority, M5 shooting from a height;
- :mod:`~arbitre.rules.mordheim.shot`: M7 the score, M9 hitting the cover, the exact odds
  and the roll (one dice procedure for both);
- :mod:`~arbitre.rules.mordheim.values`: options, requests, rulings and their JSON.

Questions (:data:`RULESET`, asked through :func:`arbitre.rules.ask`):

- ``los`` (:class:`~arbitre.rules.requests.LosRequest`): M1 and M8 for pairs of models;
- ``targets`` (:class:`TargetsRequest`): may the shooter shoot (M1, M2), and every enemy
  as a target, nearest first: what it sees of it, how far (M6), the score and exact odds
  (M7, M9, M10), whether it is legal and must be taken (M3 priority, M4 melee, M5 height);
- ``shoot`` (:class:`ShootRequest`): an illegal shot is a :class:`RulesError` carrying
  its reasons; a legal one is rolled, seeded and logged (M4, M6, M7, M9, M11).

Decisions beyond RULES.md are documented in the module that takes them; here: a shooter
that may not shoot (M1, M7) has no legal target, each row refused for the shooter's own
reasons; the seed bars no other status (stunned, knocked down, fleeing shooters are left
to the full rules).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from functools import lru_cache

from arbitre.errors import RulesError
from arbitre.i18n import N_, T_, Text, join, semicolons
from arbitre.rules import schema
from arbitre.rules.mordheim import kept
from arbitre.rules.mordheim.deciding import (
    Enemy,
    elevation_slack,
    legal_slacks,
    own_slacks,
    smallest,
    unseen_caps,
)
from arbitre.rules.mordheim.priority import height, priority
from arbitre.rules.mordheim.shot import Odds, Shot, ballistic_skill, need_text, rolled
from arbitre.rules.mordheim.sight import (
    Measured,
    building_problems,
    check_buildings,
    los_rulings,
    measure_facts,
)
from arbitre.rules.mordheim.target import (
    Draft,
    Engagements,
    fights,
    is_large,
    missile_weapon,
    target_facts,
)
from arbitre.rules.mordheim.values import (
    BARRED,
    DIST_EPS,
    SHOOT_SCHEMA,
    TARGETS_SCHEMA,
    TWO_INCHES,
    MordheimOptions,
    ShootRequest,
    ShootRuling,
    TargetRuling,
    TargetsRequest,
    TargetsRuling,
    length,
)
from arbitre.rules.options import shared_options
from arbitre.rules.registry import Question, Ruleset, questions
from arbitre.rules.requests import LosRequest
from arbitre.rules.ruling import LosRuling, Margin, Reason
from arbitre.table import Model, Table, Weapon

__all__ = [
    "RULESET",
    "MordheimOptions",
    "Odds",
    "ShootRequest",
    "ShootRuling",
    "Shot",
    "TargetRuling",
    "TargetsRequest",
    "TargetsRuling",
    "ballistic_skill",
    "is_large",
    "missile_weapon",
    "need_text",
    "rule_targets",
]


def _table(subject: object, question: str) -> Table:
    if not isinstance(subject, Table):
        raise RulesError(
            T_("{question} rules a table; this file is a map of places", question=question)
        )
    return subject


@lru_cache(maxsize=256)
def rule_targets(
    table: Table, shooter: str, weapon: str | None, options: MordheimOptions
) -> TargetsRuling:
    """Rule ``shooter``'s shooting phase: may it shoot (M1), and every enemy as a target
    (M1, M3-M10), nearest first. ``weapon`` names a missile weapon (default: its first).
    Cached: tables and options are frozen values, and ``shoot`` rules the phase again for
    every roll."""
    s = table.model(shooter)
    check_buildings(table)
    engaged = table.engagements()
    w, bs = missile_weapon(s, weapon), ballistic_skill(s)
    multiplayer = len(table.sides()) > 2
    drafts, measured = _drafts(table, s, w, bs, engaged, multiplayer, options)
    elevated = s.elevation > TWO_INCHES + DIST_EPS
    refusals = _refusals(s, w, bs, engaged, drafts)
    candidates = [d for d in drafts if d.facts.visible and not d.barred]
    if refusals:  # a shooter that may not shoot has no legal target
        for d in drafts:
            for r in refusals:
                d.refuse(r)
    elif elevated:
        height(s, candidates)
    else:
        priority(s, candidates)
    reasons = [*refusals, *_reasons(table, s, w, bs, weapon, elevated, multiplayer)]
    if not refusals and not any(d.legal for d in drafts):
        why = "M4" if any(d.facts.visible for d in drafts) else "M1"
        refusals.append(Reason(why, (s.id,), T_("{id} has no legal target", id=s.id)))
        reasons.append(refusals[-1])
    if not refusals:
        reasons.append(
            Reason(
                "M1",
                (s.id,),
                T_("{id} may shoot: it sees a target and has a missile weapon", id=s.id),
            )
        )
    # M1, M7: refusals no move undoes (statuses, engagements, no weapon or BS)
    static = bool(engaged[s.id]) or any(k in s.status for k in BARRED) or w is None or not bs
    _measured(s, w, drafts, measured, refusals, static, elevated)
    margins = _margins(table, s, drafts, refusals, static, elevated)
    pad = s.base.radius if options.range_from == "edge" else 0.0
    reach = None if w is None or w.range is None else w.range
    return TargetsRuling(
        shooter=s.id,
        side=s.side,
        weapon=w,
        bs=bs,
        may_shoot=not refusals,
        elevated=elevated,
        multiplayer=multiplayer,
        range_ring=None if reach is None else reach + pad,
        half_range_ring=None if reach is None else reach / 2 + pad,
        fights=fights(table, engaged),
        targets=tuple(d.done(m) for d, m in zip(drafts, margins[1:], strict=True)),
        reasons=tuple(reasons),
        refusals=tuple(refusals),
        margin=margins[0],
    )


def _enemies(s: Model, drafts: list[Draft]) -> list[Enemy]:
    """What :mod:`.deciding` needs of each draft."""
    return [
        Enemy(
            d.model.id,
            d.distance,
            d.facts.visible,
            d.barred,
            s.inside is not None and d.model.inside == s.inside,
            d.facts.seen_margin,
            d.own,
            large=d.large,
            legal=d.legal,
        )
        for d in drafts
    ]


def _measured(
    s: Model,
    w: Weapon | None,
    drafts: list[Draft],
    measured: Measured,
    refusals: list[Reason],
    static: bool,
    elevated: bool,
) -> None:
    """G8: the drafts' sight margins, measured now that their legality is known: an
    unseen enemy's M1 margin only as far as it may decide (:func:`unseen_caps`)."""
    enemies = {e.ident: e for e in _enemies(s, drafts)}
    caps = unseen_caps(
        [enemies[f.target] for f in measured.sights],
        None if w is None else w.range,
        elevation_slack(s),
        static_refusal=static,
        sees_none=bool(refusals) and not static,
        up=elevated,
    )
    final = {f.target: f for f in measured.with_margins(caps)}
    for d in drafts:
        d.facts = final[d.model.id]
        d.own = own_slacks(d.facts, d.distance, w)


def _margins(
    table: Table,
    s: Model,
    drafts: list[Draft],
    refusals: list[Reason],
    static: bool,
    elevated: bool,
) -> list[Margin]:
    """G8: the margin of the whole ruling, then of each target (:mod:`.deciding`)."""
    close = shared_options(table).close_call
    enemies = _enemies(s, drafts)
    sees_none = bool(refusals) and not static
    height = elevation_slack(s)
    legal = legal_slacks(enemies, static_refusal=static, sees_none=sees_none, up=elevated)
    each = [smallest((by, e.own, height)) for by, e in zip(legal, enemies, strict=True)]
    every = smallest((*each, height))
    return [Margin.smallest([(t.mm, t.test)], close) for t in (every, *each)]


def _drafts(
    table: Table,
    s: Model,
    w: Weapon | None,
    bs: int | None,
    engaged: Engagements,
    multiplayer: bool,
    options: MordheimOptions,
) -> tuple[list[Draft], Measured]:
    """Every enemy of ``s`` as a target, nearest first (M6); those it does not see are
    refused (M1). Their sight margins are still to measure (:func:`_measured`)."""
    enemies = [m for m in table.models if m.side != s.side]
    measured = measure_facts(table, [(s.id, e.id) for e in enemies], options.windows)
    box = measured.store or kept.store(table, options.windows)
    fights = kept.fights_sign(table)
    made = []
    for e, f, key in zip(enemies, measured.sights, measured.keys, strict=True):
        # a target's facts and words rest on its pair's key, the weapon and the fights
        asked = (key, w, bs, multiplayer, options, fights)
        found = box.get("target", asked)
        if found is None:
            d = target_facts(table, s, e, f, w, bs, engaged, multiplayer, options)
            box.put("target", asked, (d.ruling, d.barred, d.note))
        else:
            d = Draft(e, f, *found)
            d.own = own_slacks(f, d.distance, w)
        made.append(d)
    drafts = sorted(made, key=lambda d: d.distance)
    for d in drafts:
        if not d.facts.visible:
            t = d.model.id
            d.refuse(
                Reason(
                    "M1",
                    (s.id, t),
                    T_(
                        "{shooter} cannot target {target}: it does not see it",
                        shooter=s.id,
                        target=t,
                    ),
                )
            )
    return drafts, measured


def _refusals(
    s: Model, w: Weapon | None, bs: int | None, engaged: Engagements, drafts: list[Draft]
) -> list[Reason]:
    """M1, M7: the reasons that forbid ``s`` to shoot this phase, whatever the target."""
    refusals = []
    if engaged[s.id]:
        refusals.append(
            Reason(
                "M1",
                (s.id, *engaged[s.id]),
                T_(
                    "{id} is engaged in close combat with {others}: it cannot shoot",
                    id=s.id,
                    others=join(engaged[s.id]),
                ),
            )
        )
    for status, msgid in BARRED.items():
        if status in s.status:
            refusals.append(Reason("M1", (s.id,), Text(msgid, (("id", s.id),))))
    if w is None:
        refusals.append(Reason("M1", (s.id,), T_("{id} has no missile weapon", id=s.id)))
    if bs is None:
        refusals.append(
            Reason("M7", (s.id,), T_("{id} has no BS (stats.bs): no score to hit", id=s.id))
        )
    elif bs == 0:
        refusals.append(
            Reason("M7", (s.id,), T_("{id} has BS 0: the M7 table has no score for it", id=s.id))
        )
    if not any(d.facts.visible for d in drafts):
        refusals.append(Reason("M1", (s.id,), T_("{id} sees no enemy", id=s.id)))
    return refusals


def _reasons(
    table: Table,
    s: Model,
    w: Weapon | None,
    bs: int | None,
    named: str | None,
    elevated: bool,
    multiplayer: bool,
) -> list[Reason]:
    """M2, M4-M7: the shooter's own reasons beside its refusals."""
    reasons = [
        Reason(
            "M2",
            (s.id,),
            T_(
                "{id} sees all around and pivots for free before shooting (pivoting is not moving)",
                id=s.id,
            ),
        )
    ]
    if w is not None and w.range is not None:
        reach = length(table, w.range)
        words = (
            T_("{id} shoots with {weapon} (range {range})", id=s.id, weapon=w.name, range=reach)
            if named
            else T_(
                "{id} shoots with {weapon} (range {range}, its first missile weapon)",
                id=s.id,
                weapon=w.name,
                range=reach,
            )
        )
        reasons.append(Reason("M6", (s.id,), words))
    if bs:
        reasons.append(
            Reason(
                "M7",
                (s.id,),
                T_(
                    "{id} has BS {bs}: {need}+ to hit before modifiers", id=s.id, bs=bs, need=7 - bs
                ),
            )
        )
    if "moved" in s.status:
        reasons.append(Reason("M7", (s.id,), T_("{id} moved this turn: -1 to hit", id=s.id)))
    if elevated:
        reasons.append(
            Reason(
                "M5",
                (s.id,),
                T_(
                    "{id} stands {height} above the table (more than 2 in): it may pick any "
                    "target it sees, enemies inside its building first",
                    id=s.id,
                    height=length(table, s.elevation),
                ),
            )
        )
    if multiplayer:
        reasons.append(
            Reason(
                "M4",
                (s.id,),
                T_(
                    "{n} warbands: {id} may fire into a fight none of whose models is of its "
                    "warband",
                    n=len(table.sides()),
                    id=s.id,
                ),
            )
        )
    return reasons


# -- the questions -------------------------------------------------------------------------


def _targets(
    subject: object, request: TargetsRequest, *, options: MordheimOptions
) -> list[TargetsRuling]:
    table = _table(subject, "targets")
    return [rule_targets(table, request.shooter, request.weapon, options)]


def _shoot(
    subject: object, request: ShootRequest, *, options: MordheimOptions
) -> list[ShootRuling]:
    """Roll ``shooter``'s shot at ``target``; a shot the rules forbid (M1, M3-M5) is a
    :class:`RulesError` with its reasons. The same seed gives the same dice and result."""
    table = _table(subject, "shoot")
    shooter, target = request.shooter, request.target
    ruling = rule_targets(table, shooter, request.weapon, options)
    s, t = table.model(shooter), table.model(target)
    if t.side == s.side:
        raise RulesError(
            T_(
                "{shooter} may not shoot {target}: {target} is of its own warband "
                "({side}), not an enemy (M3)",
                shooter=shooter,
                target=target,
                side=s.side,
            )
        )
    if ruling.refusals:
        raise RulesError(
            T_("{shooter} may not shoot: {why}", shooter=shooter, why=_why(ruling.refusals))
        )
    tr = ruling.target(target)
    if not tr.legal or tr.shot is None or tr.odds is None or ruling.weapon is None:
        raise RulesError(
            T_(
                "{shooter} may not shoot {target}: {why}",
                shooter=shooter,
                target=target,
                why=_why(tr.refusals),
            )
        )
    seed = secrets.randbelow(2**32) if request.seed is None else request.seed
    return [rolled(tr, ruling.weapon.name, options, seed)]


def _why(reasons: Sequence[Reason]) -> Text:
    """The refusals in words, each with its rule: ``a (M1); b (M3)``."""
    return semicolons((r.message + f" ({r.rule})" for r in reasons), N_("no reason given"))


def _los(subject: object, request: LosRequest, *, options: MordheimOptions) -> list[LosRuling]:
    table = _table(subject, "los")
    return los_rulings(table, request.pairs_on(table), options)


def _check(subject: object) -> list[str]:
    """What Mordheim's questions would refuse in a table: buildings (M5), BS values (M7)."""
    if not isinstance(subject, Table):
        return []
    found = [str(p) for p in building_problems(subject)]
    for m in subject.models:
        try:
            ballistic_skill(m)
        except RulesError as exc:
            found.append(str(exc))
    return found


RULESET = Ruleset(
    name="mordheim",
    title="Mordheim shooting phase (M1-M12)",
    aliases=("mh", "mordheim-shooting"),
    options=MordheimOptions,
    questions=questions(
        Question("los", "Lines of sight (M1, M8)", LosRequest, _los, schema=schema.LOS),
        Question(
            "targets",
            "Whom a shooter may shoot, the score and exact odds (M1-M10)",
            TargetsRequest,
            _targets,
            schema=TARGETS_SCHEMA,
        ),
        Question(
            "shoot",
            "A shot rolled, seeded and logged (M4, M6, M7, M9, M11)",
            ShootRequest,
            _shoot,
            schema=SHOOT_SCHEMA,
        ),
    ),
    sight="S2",
    check=_check,
)
