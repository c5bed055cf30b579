"""arbitre: a referee engine for skirmish miniature wargames.

Load a scenario (a table or a map of places), ask any question of any ruleset, read the
rulings and their reasons::

    table = arbitre.load("village.yaml")
    answer = arbitre.ask(table, "los", shooter="archer", target="ogre")
    answer.ruling.visible, answer.ruling.cover, answer.ruling.reasons
    answer.to_json()        # the JSON 2 envelope, as every command's --json prints it
"""

from importlib import resources

from arbitre.errors import ArbitreError, Problem, RulesError, ScenarioError, UnknownRulesetError
from arbitre.files import load
from arbitre.geometry import Disc, Point
from arbitre.places import PlaceMap, load_places
from arbitre.rules import RULESETS, Ruleset, ask, find_ruleset, los
from arbitre.rules.ruling import Answer, LosRuling, Reason
from arbitre.scenario import dump, json_schema, loads
from arbitre.scenario import load as load_table
from arbitre.table import Model, Table, Terrain, Weapon

#: The bundled example table that ``arbitre demo`` rules.
DEMO_SCENARIO = str(resources.files("arbitre") / "data" / "frostgrave-demo.yaml")

__all__ = [
    "DEMO_SCENARIO",
    "RULESETS",
    "Answer",
    "ArbitreError",
    "Disc",
    "LosRuling",
    "Model",
    "PlaceMap",
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
    "ask",
    "dump",
    "find_ruleset",
    "json_schema",
    "load",
    "load_places",
    "load_table",
    "loads",
    "los",
]
