"""The registry of rulesets, found by name or alias (``find_ruleset("frostgrave")``)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arbitre.errors import UnknownRulesetError
from arbitre.rules import breath as _breath  # noqa: F401 - declares its options
from arbitre.rules import darkage, frostgrave, mordheim
from arbitre.rules.ruling import LosRuling, Reason
from arbitre.table import Table

__all__ = ["RULESETS", "LosRuling", "Reason", "Ruleset", "find_ruleset", "los"]


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A ruleset: its names, its options, and its line-of-sight question."""

    name: str
    title: str
    aliases: tuple[str, ...]
    los: Callable[[Table, Sequence[tuple[str, str]]], list[LosRuling]]


RULESETS: dict[str, Ruleset] = {
    "frostgrave": Ruleset(
        name="frostgrave",
        title="Frostgrave house rule for lines of sight and cover (F1-F9)",
        aliases=("fg", "frost"),
        los=frostgrave.rulings,
    ),
    "darkage": Ruleset(
        name="darkage",
        title="Dark Age line-of-sight window with size classes (D3-D5)",
        aliases=("dark-age", "da"),
        los=darkage.rulings,
    ),
    "mordheim": Ruleset(
        name="mordheim",
        title="Mordheim shooting phase (M1-M11)",
        aliases=("mh", "mordheim-shooting"),
        los=mordheim.rulings,
    ),
}


def _fold(name: str) -> str:
    text = unicodedata.normalize("NFKD", name.strip().lower())
    folded = "".join(c for c in text if not unicodedata.combining(c))
    return "-".join(folded.replace("_", " ").split())


def find_ruleset(name: str) -> Ruleset:
    """The ruleset of this name or alias (case and accents ignored)."""
    wanted = _fold(name)
    for ruleset in RULESETS.values():
        if wanted == ruleset.name or wanted in ruleset.aliases:
            return ruleset
    known = ", ".join(sorted(RULESETS))
    raise UnknownRulesetError(f"unknown ruleset {name!r} (known: {known})")


def los(table: Table, shooter: str, target: str, *, rules: str | None = None) -> LosRuling:
    """Whether ``shooter`` sees ``target`` under ``rules`` (default: the table's), and why."""
    name = rules or table.rules or "frostgrave"
    return find_ruleset(name).los(table, [(shooter, target)])[0]
