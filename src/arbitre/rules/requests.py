"""Requests shared by several rulesets: the line-of-sight question (``los``).

A request is a frozen dataclass; :func:`~arbitre.rules.ask` builds it from keywords. A
ruleset's own requests live beside its questions.
"""

from __future__ import annotations

from dataclasses import dataclass

from arbitre.table import Table


def ids(value: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    """One id or several, as a tuple (``None`` is none)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(value)


@dataclass(frozen=True, slots=True)
class LosRequest:
    """Which lines of sight to rule: ``pairs`` as given, else every ordered pair of the
    ``shooter`` ids (default every model) and ``target`` ids (default every model);
    pairs of the same side only with ``same_side`` or when targets are named."""

    shooter: tuple[str, ...] = ()
    target: tuple[str, ...] = ()
    same_side: bool = False
    pairs: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "shooter", ids(self.shooter))
        object.__setattr__(self, "target", ids(self.target))
        object.__setattr__(self, "pairs", tuple((a, b) for a, b in self.pairs))

    def pairs_on(self, table: Table) -> list[tuple[str, str]]:
        """The ordered pairs asked, every id checked against the table."""
        if self.pairs:
            for a, b in self.pairs:
                table.model(a)
                table.model(b)
            return list(self.pairs)
        for ident in (*self.shooter, *self.target):
            table.model(ident)
        s_ids = list(self.shooter) or [m.id for m in table.models]
        t_ids = list(self.target) or [m.id for m in table.models]
        keep_same = self.same_side or bool(self.target)
        return [
            (a, b)
            for a in s_ids
            for b in t_ids
            if a != b and (keep_same or table.model(a).side != table.model(b).side)
        ]
