"""Ruleset options: frozen dataclasses with the defaults of RULES.md.

Every decision a group of players could take differently is an option. Options belong
to rulesets: each ruleset declares its dataclass in the registry and reads only its own
(:func:`read_options`); the shared G options (:class:`SharedOptions`) are read once, by
the sight measures. A scenario may carry the options of any registered ruleset; a name
no ruleset declares, or a value of the wrong kind, is a :class:`RulesError` that lists
what is valid (:func:`check_names`, called by the registry).
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, get_args, get_origin

from arbitre.errors import RulesError
from arbitre.i18n import N_, T_, Text, current

Opts = TypeVar("Opts")


@dataclass(frozen=True, slots=True)
class SharedOptions:
    """The G options every geometric ruleset shares: ``grazing_blocks`` (G5) and
    ``close_call``, the margin in mm below which a ruling is a close call (G8)."""

    grazing_blocks: bool = False
    close_call: float = 2.0


def field_names(cls: type[Any]) -> tuple[str, ...]:
    """The option names an options dataclass declares, in order."""
    return tuple(f.name for f in dataclasses.fields(cls))


def _check(name: str, value: object, kind: Any) -> object:
    if get_origin(kind) is Literal:
        choices = get_args(kind)
        if value not in choices:
            valid = ", ".join(repr(c) for c in choices)
            raise RulesError(
                T_(
                    "option {name}: got {value}, expected one of {valid}",
                    name=name,
                    value=repr(value),
                    valid=valid,
                )
            )
        return value
    if kind is bool:
        if not isinstance(value, bool):
            raise RulesError(
                T_(
                    "option {name}: got {value}, expected true or false",
                    name=name,
                    value=repr(value),
                )
            )
        return value
    if kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RulesError(
                T_("option {name}: got {value}, expected a number", name=name, value=repr(value))
            )
        return kind(value)
    return value


def read_options(
    cls: type[Opts], given: Mapping[str, object] | Iterable[tuple[str, object]]
) -> Opts:
    """Build ``cls`` from the options given, taking only the names it declares (each
    value checked against its type); the others are left to their rulesets."""
    items = dict(given)
    hints = _hints(cls)  # type: ignore[arg-type]  # classes are hashable
    values = {k: _check(k, v, hints[k]) for k, v in items.items() if k in field_names(cls)}
    return cls(**values)


@functools.cache
def _hints(cls: type[Any]) -> dict[str, Any]:
    """An options dataclass's field types (read once: ``get_type_hints`` is slow)."""
    return typing.get_type_hints(cls)


@dataclass(frozen=True, slots=True)
class Listed:
    """Texts joined by semicolons, worded when printed (French sets a space before
    each: " ; ")."""

    items: tuple[Text, ...]

    def __str__(self) -> str:
        return (" ; " if current() == "fr" else "; ").join(str(i) for i in self.items)


#: Owners of options that are words, not ruleset names (the shared G options).
OWNERS = (N_("shared (G)"),)


def check_names(given: Iterable[str], declared: Mapping[str, tuple[str, ...]]) -> None:
    """Refuse an option name that none of ``declared`` (owner -> names) knows, naming the
    valid options of each owner."""
    known = {n for names in declared.values() for n in names}
    unknown = sorted(set(given) - known)
    if unknown:
        valid = Listed(
            tuple(
                T_(
                    "{path}: {message}",
                    path=T_(owner) if owner in OWNERS else owner,
                    message=", ".join(names),
                )
                for owner, names in declared.items()
            )
        )
        raise RulesError(
            T_("unknown option {name} (valid options: {valid})", name=repr(unknown[0]), valid=valid)
        )


def as_dict(opts: object) -> dict[str, object]:
    """An options value as a plain mapping (for the JSON envelope)."""
    return {f.name: getattr(opts, f.name) for f in dataclasses.fields(opts)}  # type: ignore[arg-type]


def shared_options(table: Any) -> SharedOptions:
    """The shared G options of a table (or anything with ``options`` pairs)."""
    return read_options(SharedOptions, table.options)
