"""The small exception hierarchy of arbitre.

Every error a user can cause is an :class:`ArbitreError`; the CLI prints its message as
one line and exits with code 2. Anything else is a bug.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class ArbitreError(Exception):
    """A mistake in what the user asked for: bad file, unknown id, bad option."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem in a scenario: where it is (``models[2].base``) and what is wrong."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


#: Problems shown in a message; the rest are counted ("... and 12 more").
MAX_SHOWN = 50


class ScenarioError(ArbitreError):
    """A scenario file that cannot be loaded; lists every problem with its path."""

    def __init__(self, problems: Sequence[Problem], *, source: str | None = None) -> None:
        self.problems = tuple(problems)
        self.source = source
        super().__init__(self._text())

    def _text(self) -> str:
        head = f"{self.source}: " if self.source else ""
        if len(self.problems) == 1:
            return f"{head}{self.problems[0]}"
        lines = "\n".join(f"  {p}" for p in self.problems[:MAX_SHOWN])
        if len(self.problems) > MAX_SHOWN:
            lines += f"\n  ... and {len(self.problems) - MAX_SHOWN} more"
        return f"{head}{len(self.problems)} problems\n{lines}"


class RulesError(ArbitreError):
    """A question a ruleset cannot answer as asked: unknown option, unknown model id."""


class UnknownRulesetError(RulesError):
    """A ruleset name that is not registered."""
