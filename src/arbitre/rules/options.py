"""Ruleset options: frozen dataclasses with the defaults of RULES.md, read from a table.

Every decision a group of players could take differently is an option. An unknown
option, or a value of the wrong kind, is a :class:`RulesError` that lists what is valid.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeVar, get_args, get_origin

from arbitre.errors import RulesError

Opts = TypeVar("Opts")

#: Every option name some ruleset declares; a scenario may carry options of any of them.
DECLARED: set[str] = {"grazing_blocks"}


def declare(cls: type[Opts]) -> type[Opts]:
    """Class decorator: record a ruleset's option names as known to every ruleset."""
    DECLARED.update(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    return cls


def _check(name: str, value: object, kind: Any) -> object:
    if get_origin(kind) is Literal:
        choices = get_args(kind)
        if value not in choices:
            valid = ", ".join(repr(c) for c in choices)
            raise RulesError(f"option {name}: got {value!r}, expected one of {valid}")
        return value
    if kind is bool:
        if not isinstance(value, bool):
            raise RulesError(f"option {name}: got {value!r}, expected true or false")
        return value
    if kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RulesError(f"option {name}: got {value!r}, expected a number")
        return kind(value)
    return value


def read_options(
    cls: type[Opts], given: Mapping[str, object] | Iterable[tuple[str, object]]
) -> Opts:
    """Build ``cls`` from the options given, keeping the ones it declares.

    Options that other rulesets declare are allowed and ignored; any other name is an
    error listing the valid names.
    """
    known = DECLARED
    items = dict(given)
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(items) - fields - set(known))
    if unknown:
        valid = ", ".join(sorted(fields | set(known)))
        raise RulesError(f"unknown option {unknown[0]!r} (valid options: {valid})")
    values = {k: _check(k, v, hints[k]) for k, v in items.items() if k in fields}
    return cls(**values)
