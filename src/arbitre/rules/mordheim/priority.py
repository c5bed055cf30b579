"""M3 target priority and M5 shooting from a height: which seen enemies are legal targets,
and which one the shooter must take.

Both rule on the :class:`~arbitre.rules.mordheim.target.Draft` of every candidate (an
enemy seen and not barred by its fight, M4), nearest first.

Decisions beyond RULES.md:

- M3 "easier to hit" compares the exact chance of a hit (a lower score needed, except
  that scores with the same odds, such as two scores the dice cannot reach, count as
  equal); a farther target is legal when every closer candidate is passed over for a
  reason: the target is large, or easier to hit than that one, or that one is stunned,
  knocked down or fleeing. Enemies at the same distance (within 1e-6 mm) tie.
- M5: an elevated shooter with visible enemies in its building picks freely among them.
"""

from __future__ import annotations

from collections.abc import Callable

from arbitre.i18n import T_, TN_, Text, Word, join, semicolons
from arbitre.rules.mordheim.shot import modifiers
from arbitre.rules.mordheim.target import Draft
from arbitre.rules.mordheim.values import DIST_EPS, DISTRACTED
from arbitre.rules.ruling import Reason
from arbitre.table import Model


def priority(s: Model, candidates: list[Draft]) -> None:
    """M3: the closest enemy, or a farther one that is large, or easier to hit than each
    closer one, or whose closer ones are stunned, knocked down or fleeing (or a mix)."""
    if not candidates:
        return
    nearest = candidates[0].distance
    # each closer enemy is compared with every farther one: its facts read once, its
    # ease (an exact chance) as its rank among the distinct eases (the same order)
    eases = {c: c.ease() for c in candidates}
    ranks = {e: i for i, e in enumerate(sorted(set(eases.values())))}
    rank = {c: ranks[e] for c, e in eases.items()}
    distracted = {c: bool(_distracted(c)) for c in candidates}
    texts: dict[Draft, Text] = {}

    def ease_text(c: Draft) -> Text:
        if c not in texts:
            texts[c] = _ease_text(c)
        return texts[c]

    for d in candidates:
        t = d.model.id
        if d.distance <= nearest + DIST_EPS:
            d.allow(
                Reason(
                    "M3",
                    (s.id, t),
                    T_(
                        "{target} is the closest enemy {shooter} may target: it must be "
                        "targeted unless an exception allows another",
                        target=t,
                        shooter=s.id,
                    ),
                ),
                closest=True,
            )
            continue
        if d.large:
            d.allow(
                Reason(
                    "M3",
                    (s.id, t),
                    T_(
                        "{target} is farther than the closest enemy but a large target: it may "
                        "be picked",
                        target=t,
                    ),
                )
            )
            continue
        closer = [c for c in candidates if c.distance < d.distance - DIST_EPS]
        mine = rank[d]
        unmet = [c for c in closer if not distracted[c] and not mine > rank[c]]
        if not unmet:
            d.allow(
                Reason(
                    "M3",
                    (s.id, t, *(c.model.id for c in closer)),
                    T_(
                        "{target} may be picked over closer enemies: {passed}",
                        target=t,
                        passed=semicolons(_passed(d, c, ease_text) for c in closer),
                    ),
                )
            )
            continue
        d.refuse(_not_easier(s, d, unmet, ease_text))


def _distracted(c: Draft) -> list[Word]:
    """The M3 statuses (stunned, knocked down, fleeing) of a closer enemy, in words."""
    return [Word(text) for key, text in DISTRACTED.items() if key in c.model.status]


def _passed(d: Draft, c: Draft, ease_text: Callable[[Draft], Text]) -> Text:
    """M3: why ``d`` may be picked over the closer ``c`` (it is passed over)."""
    status = _distracted(c)
    if status:
        return T_("{id} is {status}", id=c.model.id, status=_and(status))
    return T_(
        "{target} is easier to hit than {other} ({ease}; {other_ease})",
        target=d.model.id,
        other=c.model.id,
        ease=ease_text(d),
        other_ease=ease_text(c),
    )


def _not_easier(
    s: Model, d: Draft, unmet: list[Draft], ease_text: Callable[[Draft], Text]
) -> Reason:
    """M3: why ``d`` may not be picked over the closer enemies ``unmet``."""
    t = d.model.id
    return Reason(
        "M3",
        (s.id, t, *(c.model.id for c in unmet)),
        TN_(
            "{ids} is closer: {target} is not easier to hit ({ease}; {others}), not a large "
            "target, and it is not stunned, knocked down or fleeing",
            "{ids} are closer: {target} is not easier to hit ({ease}; {others}), not a large "
            "target, and they are not stunned, knocked down or fleeing",
            "n",
            ids=join(c.model.id for c in unmet),
            target=t,
            ease=ease_text(d),
            others=semicolons(ease_text(c) for c in unmet),
            n=len(unmet),
        ),
    )


def _and(words: list[Word]) -> Text | Word:
    """Words joined by "and": ``stunned and fleeing``."""
    if len(words) == 1:
        return words[0]
    return T_("{a} and {b}", a=_and(words[:-1]), b=words[-1])


def _ease_text(d: Draft) -> Text:
    """How easy a target is to hit, in words: ``orc 5+, p 1/3``."""
    r = d.ruling
    if r.odds is None or r.need_text is None:
        return T_("{target} modifiers {mods}", target=r.target, mods=f"{modifiers(r):+d}")
    return T_("{target} {need}, p {p}", target=r.target, need=r.need_text, p=r.odds.hit)


def height(s: Model, candidates: list[Draft]) -> None:
    """M5: an elevated shooter picks any target it sees; enemies it sees inside its own
    building come first (it picks freely among them)."""
    same = [d for d in candidates if s.inside is not None and d.model.inside == s.inside]
    for d in candidates:
        t = d.model.id
        if not same:
            d.allow(
                Reason(
                    "M5",
                    (s.id, t),
                    T_(
                        "{shooter} shoots from a height: {target} may be picked",
                        shooter=s.id,
                        target=t,
                    ),
                )
            )
        elif d in same:
            d.allow(
                Reason(
                    "M5",
                    (s.id, t, str(s.inside)),
                    T_(
                        "{target} is inside {building} with {shooter}: enemies in the same "
                        "building must be targeted first",
                        target=t,
                        building=s.inside,
                        shooter=s.id,
                    ),
                ),
                closest=True,
            )
        else:
            d.refuse(
                Reason(
                    "M5",
                    (s.id, t, *(x.model.id for x in same)),
                    T_(
                        "{ids} inside {building} with {shooter} must be targeted first",
                        ids=join(x.model.id for x in same),
                        building=s.inside,
                        shooter=s.id,
                    ),
                )
            )
