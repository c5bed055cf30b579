"""The registry's values: a :class:`Ruleset` declares its names, its options and the
questions it answers; a :class:`Question` is one function ``(subject, request, *,
options) -> rulings`` with the request type it takes.

A :class:`Declared` is what the registry knows of a ruleset before importing it (its
names, its options dataclass, its questions' names, its module: see
:mod:`arbitre.rules.declared`); :class:`Rulesets` holds every ruleset by name and imports
a ruleset's module when that ruleset is first read. The registry itself (every ruleset,
:func:`~arbitre.rules.find_ruleset`, :func:`~arbitre.rules.ask`) is :mod:`arbitre.rules`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
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


@dataclass(frozen=True, slots=True)
class Declared:
    """A ruleset as the registry knows it before importing it: its ``name`` and
    ``aliases``, its ``options`` dataclass, the names of the ``questions`` it answers (in
    its order), and the ``module`` whose ``RULESET`` is the ruleset itself."""

    name: str
    aliases: tuple[str, ...]
    options: type[Any]
    questions: tuple[str, ...]
    module: str

    def load(self) -> Ruleset:
        """The ruleset itself: its module imported, its ``RULESET``."""
        ruleset = import_module(self.module).RULESET
        if not isinstance(ruleset, Ruleset) or ruleset.name != self.name:
            raise TypeError(f"{self.module}.RULESET is not the ruleset {self.name!r}")
        return ruleset


class Rulesets(Mapping[str, Ruleset]):
    """Every ruleset by name, in the order declared; a ruleset's module is imported when
    that ruleset is first read (``RULESETS["mordheim"]``, ``RULESETS.values()``), never
    to list the names."""

    def __init__(self, declared: Iterable[Declared]) -> None:
        self._declared = {d.name: d for d in declared}
        self._loaded: dict[str, Ruleset] = {}

    def declared(self) -> tuple[Declared, ...]:
        """The light declarations, in order: nothing imported."""
        return tuple(self._declared.values())

    def __getitem__(self, name: str) -> Ruleset:
        found = self._loaded.get(name)
        if found is None:
            # KeyError for a name not registered; threads that race here import the same
            # module and read the same RULESET (Python's import is thread-safe)
            found = self._loaded[name] = self._declared[name].load()
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._declared)

    def __len__(self) -> int:
        return len(self._declared)

    def __contains__(self, name: object) -> bool:
        return name in self._declared

    def __repr__(self) -> str:
        return f"Rulesets({', '.join(self._declared)})"
