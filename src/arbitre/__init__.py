"""arbitre: a referee engine for skirmish miniature wargames.

Load a scenario, ask a ruling, read its reasons::

    table = arbitre.load("village.yaml")
    ruling = arbitre.los(table, "archer", "ogre")
    ruling.visible, ruling.cover, ruling.reasons
"""

from importlib import resources

from arbitre.errors import ArbitreError, Problem, RulesError, ScenarioError, UnknownRulesetError
from arbitre.geometry import Disc, Point
from arbitre.rules import RULESETS, Ruleset, find_ruleset, los
from arbitre.rules.ruling import LosRuling, Reason
from arbitre.scenario import dump, json_schema, load, loads
from arbitre.table import Model, Table, Terrain, Weapon

#: The bundled example table that ``arbitre demo`` rules.
DEMO_SCENARIO = str(resources.files("arbitre") / "data" / "frostgrave-demo.yaml")

__all__ = [
    "DEMO_SCENARIO",
    "RULESETS",
    "ArbitreError",
    "Disc",
    "LosRuling",
    "Model",
    "Point",
    "Problem",
    "Reason",
    "RulesError",
    "Ruleset",
    "ScenarioError",
    "Table",
    "Terrain",
    "UnknownRulesetError",
    "Weapon",
    "dump",
    "find_ruleset",
    "json_schema",
    "load",
    "loads",
    "los",
]
