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
    for d in candidates:
        t = d.model.id
        if d.distance <= nearest + DIST_EPS:
            d.allow(
                Reason(
                    "M3",
                    (s.id, t),
                    f"{t} is the closest enemy {s.id} may target: "
                    "it must be targeted unless an exception allows another",
                ),
                closest=True,
            )
            continue
        if d.large:
            d.allow(
                Reason(
                    "M3",
                    (s.id, t),
                    f"{t} is farther than the closest enemy but a large target: it may be picked",
                )
            )
            continue
        closer = [c for c in candidates if c.distance < d.distance - DIST_EPS]
        passed, unmet = [], []
        for c in closer:
            status = [text for key, text in DISTRACTED.items() if key in c.model.status]
            if status:
                passed.append(f"{c.model.id} is {' and '.join(status)}")
            elif d.ease() > c.ease():
                passed.append(
                    f"{t} is easier to hit than {c.model.id} ({_ease_text(d)}; {_ease_text(c)})"
                )
            else:
                unmet.append(c)
        if not unmet:
            d.allow(
                Reason(
                    "M3",
                    (s.id, t, *(c.model.id for c in closer)),
                    f"{t} may be picked over closer enemies: {'; '.join(passed)}",
                )
            )
            continue
        d.refuse(_not_easier(s, d, unmet))


def _not_easier(s: Model, d: Draft, unmet: list[Draft]) -> Reason:
    """M3: why ``d`` may not be picked over the closer enemies ``unmet``."""
    t = d.model.id
    ids = ", ".join(c.model.id for c in unmet)
    verb, them = ("is", "it is") if len(unmet) == 1 else ("are", "they are")
    return Reason(
        "M3",
        (s.id, t, *(c.model.id for c in unmet)),
        f"{ids} {verb} "
        f"closer: {t} is not easier to hit ({_ease_text(d)}; "
        f"{'; '.join(_ease_text(c) for c in unmet)}), not a large target, "
        f"and {them} not stunned, knocked down or fleeing",
    )


def _ease_text(d: Draft) -> str:
    r = d.ruling
    if r.odds is None or r.need_text is None:
        return f"{r.target} modifiers {modifiers(r):+d}"
    return f"{r.target} {r.need_text}, p {r.odds.hit}"


def height(s: Model, candidates: list[Draft]) -> None:
    """M5: an elevated shooter picks any target it sees; enemies it sees inside its own
    building come first (it picks freely among them)."""
    same = [d for d in candidates if s.inside is not None and d.model.inside == s.inside]
    for d in candidates:
        t = d.model.id
        if not same:
            d.allow(Reason("M5", (s.id, t), f"{s.id} shoots from a height: {t} may be picked"))
        elif d in same:
            d.allow(
                Reason(
                    "M5",
                    (s.id, t, str(s.inside)),
                    f"{t} is inside {s.inside} with "
                    f"{s.id}: enemies in the same building must be targeted first",
                ),
                closest=True,
            )
        else:
            ids = ", ".join(x.model.id for x in same)
            d.refuse(
                Reason(
                    "M5",
                    (s.id, t, *(x.model.id for x in same)),
                    f"{ids} inside {s.inside} with {s.id} must be targeted first",
                )
            )
