"""arbitre: a referee engine for skirmish miniature wargames.

Load a scenario (a table or a map of places), ask any question of any ruleset, read the
rulings and their reasons::

    table = arbitre.load("village.yaml")
    answer = arbitre.ask(table, "los", shooter="archer", target="ogre")
    answer.ruling.visible, answer.ruling.cover, answer.ruling.reasons
    answer.to_json()        # the JSON 2 envelope, as every command's --json prints it

The names below are imported when first used (PEP 562), so that ``import arbitre`` (and
``arbitre --help``) does not load numpy, shapely, pydantic and the rulesets; so is
``DEMO_SCENARIO``, the path of the bundled example table that ``arbitre demo`` rules
(finding it imports :mod:`importlib.resources`, tempfile and zipfile: ~15 ms).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

#: Where each public name lives: module, and its name there.
_PUBLIC: dict[str, tuple[str, str]] = {
    "ArbitreError": ("arbitre.errors", "ArbitreError"),
    "Problem": ("arbitre.errors", "Problem"),
    "RulesError": ("arbitre.errors", "RulesError"),
    "ScenarioError": ("arbitre.errors", "ScenarioError"),
    "UnknownRulesetError": ("arbitre.errors", "UnknownRulesetError"),
    "load": ("arbitre.files", "load"),
    "Disc": ("arbitre.geometry", "Disc"),
    "Point": ("arbitre.geometry", "Point"),
    "PlaceMap": ("arbitre.places", "PlaceMap"),
    "load_places": ("arbitre.places", "load_places"),
    "RULESETS": ("arbitre.rules", "RULESETS"),
    "Ruleset": ("arbitre.rules", "Ruleset"),
    "ask": ("arbitre.rules", "ask"),
    "find_ruleset": ("arbitre.rules", "find_ruleset"),
    "los": ("arbitre.rules", "los"),
    "Answer": ("arbitre.rules.ruling", "Answer"),
    "LosRuling": ("arbitre.rules.ruling", "LosRuling"),
    "Reason": ("arbitre.rules.ruling", "Reason"),
    "dump": ("arbitre.scenario", "dump"),
    "json_schema": ("arbitre.scenario", "json_schema"),
    "loads": ("arbitre.scenario", "loads"),
    "load_table": ("arbitre.scenario", "load"),
    "Model": ("arbitre.table", "Model"),
    "Table": ("arbitre.table", "Table"),
    "Terrain": ("arbitre.table", "Terrain"),
    "Weapon": ("arbitre.table", "Weapon"),
}

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


def _demo_scenario() -> str:
    from importlib import resources

    return str(resources.files("arbitre") / "data" / "frostgrave-demo.yaml")


def __getattr__(name: str) -> Any:
    if name == "DEMO_SCENARIO":
        globals()[name] = value = _demo_scenario()
        return value
    where = _PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module 'arbitre' has no attribute {name!r}")
    value = getattr(import_module(where[0]), where[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC) | {"DEMO_SCENARIO"})


if TYPE_CHECKING:
    #: The bundled example table that ``arbitre demo`` rules.
    DEMO_SCENARIO: str

    from arbitre.errors import (
        ArbitreError,
        Problem,
        RulesError,
        ScenarioError,
        UnknownRulesetError,
    )
    from arbitre.files import load
    from arbitre.geometry import Disc, Point
    from arbitre.places import PlaceMap, load_places
    from arbitre.rules import RULESETS, Ruleset, ask, find_ruleset, los
    from arbitre.rules.ruling import Answer, LosRuling, Reason
    from arbitre.scenario import dump, json_schema, loads
    from arbitre.scenario import load as load_table
    from arbitre.table import Model, Table, Terrain, Weapon
