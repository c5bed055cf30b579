"""What the registry knows of each ruleset without importing it (issue 16): its names, its
options dataclass, the questions it answers and the module that answers them.

:mod:`arbitre.rules` reads these light declarations to find a ruleset by name or alias,
to choose the ruleset that answers a question and to check every ruleset's options, and
imports a ruleset's module (numpy, shapely, its kernels) only when a question is asked
of it: ``arbitre los`` on a Frostgrave table never reads the breath, Dark Age, Mordheim
or places modules.

The options dataclasses live here, with the defaults of RULES.md, so that checking the
options of every ruleset imports none of them; each ruleset module imports its own from
here (``tests/test_contract.py`` checks that every declaration here is what its module's
``RULESET`` declares).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from arbitre.rules.registry import Declared

__all__ = [
    "DECLARED",
    "BreathOptions",
    "DarkAgeOptions",
    "FrostgraveOptions",
    "MordheimOptions",
    "PlacesOptions",
]


@dataclass(frozen=True, slots=True)
class FrostgraveOptions:
    """Options of the F rules (RULES.md): F9 visible fraction."""

    visible_fraction: bool = False


@dataclass(frozen=True, slots=True)
class DarkAgeOptions:
    """Options of the D rules (the G options are shared): ``windows``, M12: a wall's
    windows are openings lines pass through (``open``, the default) or wall (``closed``)."""

    windows: Literal["open", "closed"] = "open"


@dataclass(frozen=True, slots=True)
class MordheimOptions:
    """Options of the M rules (RULES.md): M7 natural ones and scores over 6, M6 measuring
    between base edges or centres, M12 windows open (openings) or closed (wall)."""

    natural_one_misses: bool = False
    need_over_six: Literal["impossible", "6-then-4+"] = "impossible"
    range_from: Literal["edge", "centre"] = "edge"
    windows: Literal["open", "closed"] = "open"


@dataclass(frozen=True, slots=True)
class BreathOptions:
    """Options of the B rules (RULES.md): B2 ``cone_over_base`` (may the cone lie over the
    shooter's own base), B3 ``template_blocked``, B6 ``cover_effect``, B7 ``order_from``
    (where victims' distances are measured from: the shooter's ``base`` edge, its
    ``centre``, or the cone's ``apex``), B8 ``spill_to_shooter`` (the shooter in contact
    with a victim is one of the opponents a spill can reach); the B3 reading of "touched"
    ``template_touch``. The shared G5 ``grazing_blocks`` (B3 shielding) and G8
    ``close_call`` are read with :func:`~arbitre.rules.options.shared_options`."""

    template_blocked: bool = False
    cover_effect: Literal["protection", "none"] = "protection"
    template_touch: Literal["contact", "overlap"] = "contact"
    cone_over_base: bool = False
    order_from: Literal["base", "centre", "apex"] = "base"
    spill_to_shooter: bool = True


@dataclass(frozen=True, slots=True)
class PlacesOptions:
    """Options of the P rules; the defaults are the readings listed in RULES.md.

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


#: Every ruleset, in the registry's order.
DECLARED = (
    Declared(
        name="frostgrave",
        aliases=("fg", "frost"),
        options=FrostgraveOptions,
        questions=("los",),
        module="arbitre.rules.frostgrave",
    ),
    Declared(
        name="darkage",
        aliases=("dark-age", "da"),
        options=DarkAgeOptions,
        questions=("los", "rolloff", "activation"),
        module="arbitre.rules.darkage",
    ),
    Declared(
        name="mordheim",
        aliases=("mh", "mordheim-shooting"),
        options=MordheimOptions,
        questions=("los", "targets", "shoot"),
        module="arbitre.rules.mordheim",
    ),
    Declared(
        name="breath",
        aliases=("souffle", "breath-weapons"),
        options=BreathOptions,
        questions=("breath", "blast"),
        module="arbitre.rules.breath",
    ),
    Declared(
        name="places",
        aliases=("placemap", "lieux", "zones"),
        options=PlacesOptions,
        questions=("move", "shot", "place"),
        module="arbitre.rules.places",
    ),
)
