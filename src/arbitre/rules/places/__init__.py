"""The places ruleset (P1-P6, seed 003): questions asked of a map of places.

- ``move`` (:mod:`~arbitre.rules.places.move`, P3-P4): every place a unit can end its
  move on, with the best ways there (the Pareto front over exhaustion and points left).
- ``shot`` (:mod:`~arbitre.rules.places.shot`, P5, P4, P6): the places and junctions a
  projectile crosses, what each adds to the attack score reduction, or why it cannot be
  made.
- ``place`` (:mod:`~arbitre.rules.places.place`, P2, P6): a place's effective
  characteristics, who holds which of its effects, what a unit arriving now would get,
  and the effects' words (the pictures show those).

Ask them through :func:`arbitre.rules.ask` (``ask(placemap, "move", unit="john")``); every
ruling has ``reasons`` and ``refusals`` citing P1-P6 and a JSON form (JSON 2, ``unit``
null: a map of places has no lengths).
"""

from __future__ import annotations

from arbitre.i18n import N_
from arbitre.rules.places import move, place, shot
from arbitre.rules.places.common import (
    Granted,
    JunctionRef,
    PlacesOptions,
    describe,
    effect_text,
    effects_of,
)
from arbitre.rules.places.move import MoveRequest, MoveRuling, Step, Way, leaving, step_cost
from arbitre.rules.places.place import Neighbour, Occupant, PlaceRequest, PlaceRuling
from arbitre.rules.places.shot import Crossing, ShotRequest, ShotRuling
from arbitre.rules.registry import Question, Ruleset, questions

__all__ = [
    "RULESET",
    "Crossing",
    "Granted",
    "JunctionRef",
    "MoveRequest",
    "MoveRuling",
    "Neighbour",
    "Occupant",
    "PlaceRequest",
    "PlaceRuling",
    "PlacesOptions",
    "ShotRequest",
    "ShotRuling",
    "Step",
    "Way",
    "describe",
    "effect_text",
    "effects_of",
    "leaving",
    "step_cost",
]

RULESET = Ruleset(
    name="places",
    title=N_("A map of places instead of a gridded battlemap (P1-P6)"),
    aliases=("placemap", "lieux", "zones"),
    options=PlacesOptions,
    questions=questions(
        Question(
            "move",
            N_("Where a unit can end its move, and the best ways there (P3-P4)"),
            MoveRequest,
            move.move,
            subject="places",
            schema=move.SCHEMA,
        ),
        Question(
            "shot",
            N_("The places a shot crosses and the attack score reduction (P5)"),
            ShotRequest,
            shot.shot,
            subject="places",
            schema=shot.SCHEMA,
        ),
        Question(
            "place",
            N_("What a place is and gives (P2, P6)"),
            PlaceRequest,
            place.place,
            subject="places",
            schema=place.SCHEMA,
        ),
    ),
    geometric=False,
)
