"""The small exception hierarchy of arbitre.

Every error a user can cause is an :class:`ArbitreError`; the CLI prints its message as
one line and exits with code 2. Anything else is a bug.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class ArbitreError(Exception):
    """A mistake in what the user asked for: bad file, unknown id, bad option.

    Its message may be a :class:`arbitre.i18n.Text`: ``str(error)`` words it in the
    current language, when it is printed.
    """

    def __str__(self) -> str:
        return " ".join(str(a) for a in self.args) if self.args else ""


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem in a scenario: where it is (``models[2].base``) and what is wrong."""

    path: str
    message: object  # a str, or an arbitre.i18n.Text worded when printed

    def __str__(self) -> str:
        if not self.path:
            return str(self.message)
        from arbitre.i18n import T_  # the language machinery imports this module

        return str(T_("{path}: {message}", path=self.path, message=self.message))


#: Problems shown in a message; the rest are counted ("... and 12 more").
MAX_SHOWN = 50


class ScenarioError(ArbitreError):
    """A scenario file that cannot be loaded; lists every problem with its path."""

    def __init__(self, problems: Sequence[Problem], *, source: str | None = None) -> None:
        self.problems = tuple(problems)
        self.source = source
        super().__init__()

    def __str__(self) -> str:
        return self._text()

    def _text(self) -> str:
        from arbitre.i18n import T_, TN_  # the language machinery imports this module

        head = str(T_("{path}: {message}", path=self.source, message="")) if self.source else ""
        if len(self.problems) == 1:
            return f"{head}{self.problems[0]}"
        lines = "\n".join(f"  {p}" for p in self.problems[:MAX_SHOWN])
        if len(self.problems) > MAX_SHOWN:
            more = TN_(
                "... and {n} more", "... and {n} more", "n", n=len(self.problems) - MAX_SHOWN
            )
            lines += f"\n  {more}"
        count = TN_("{n} problem", "{n} problems", "n", n=len(self.problems))
        return f"{head}{count}\n{lines}"


class RulesError(ArbitreError):
    """A question a ruleset cannot answer as asked: unknown option, unknown model id."""


class UnknownRulesetError(RulesError):
    """A ruleset name that is not registered."""
