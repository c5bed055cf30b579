"""The registry's values: a :class:`Ruleset` declares its names, its options and the
questions it answers; a :class:`Question` is one function ``(subject, request, *,
options) -> rulings`` with the request type it takes.

The registry itself (every ruleset, :func:`~arbitre.rules.find_ruleset`,
:func:`~arbitre.rules.ask`) is :mod:`arbitre.rules`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Subject = Literal["table", "places", "none"]


@dataclass(frozen=True, slots=True)
class Question:
    """One question a ruleset answers.

    ``run(subject, request, options=opts)`` returns the rulings (values following the
    :class:`~arbitre.rules.ruling.Ruling` protocol); ``request`` is the frozen dataclass
    it takes, built from keywords by :func:`~arbitre.rules.ask`; ``subject`` says what it
    is asked of (a table, a places map, or nothing, as a roll-off); ``schema`` is the JSON
    Schema of one ruling's JSON beyond the common fields (``kind``, ``reasons``,
    ``refusals``): ``{"properties": {...}, "required": [...]}``.
    """

    name: str
    title: str
    request: type[Any]
    run: Callable[..., Sequence[Any]]
    subject: Subject = "table"
    schema: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A ruleset: its name and aliases, its title, its options dataclass (the defaults of
    RULES.md), and its questions by name. ``geometric`` rulesets also read the shared G
    options; ``sight`` names the sight measure its lines of sight rest on (S1, S2, S3),
    which pictures draw; ``check`` lists the problems of a scenario this ruleset would
    refuse (``arbitre validate`` runs every ruleset's)."""

    name: str
    title: str
    aliases: tuple[str, ...]
    options: type[Any]
    questions: Mapping[str, Question]
    geometric: bool = True
    sight: str | None = None
    check: Callable[[Any], list[str]] | None = None


def questions(*items: Question) -> dict[str, Question]:
    """Questions by name, in the order given."""
    return {q.name: q for q in items}
