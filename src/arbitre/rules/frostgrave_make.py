"""Frozen values made without their ``__init__`` (issue 16): thousands of rulings a second.

A frozen dataclass sets each field through ``object.__setattr__`` (its own ``__setattr__``
refuses): a :class:`~arbitre.rules.ruling.LosRuling` of twelve fields takes several
microseconds to make, more than the rest of a plain pair's ruling. :func:`maker` gives a
function that makes the same value from every field in order, writing each slot through
its descriptor: equal to ``cls(*fields)`` in every field, for a slotted frozen dataclass
without ``__post_init__`` (checked when the maker is made).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from arbitre.i18n import Join, Length, Text
from arbitre.rules.ruling import LosRuling, Margin, Reason

T = TypeVar("T")


def maker(cls: type[T]) -> Callable[..., T]:
    """A function of every field of ``cls`` (a frozen, slotted dataclass with no
    ``__post_init__``), positional in field order, that makes ``cls(*fields)``."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: not a plain dataclass")
    names = [f.name for f in dataclasses.fields(cls)]
    if set(names) != set(getattr(cls, "__slots__", ())):
        raise TypeError(f"{cls.__name__}: its fields are not its slots")
    if any(n.startswith("__m_") for n in names):
        raise TypeError(f"{cls.__name__}: a field's name clashes with the maker's own")
    # the maker's own names start with __m_ so that no field (``x``, ``cls``...) shadows them
    scope: dict[str, Any] = {"__m_new": object.__new__, "__m_cls": cls}
    scope.update({f"__m_set_{n}": getattr(cls, n).__set__ for n in names})
    body = "".join(f"    __m_set_{n}(__m_made, {n})\n" for n in names)
    head = f"def make({', '.join(names)}):\n    __m_made = __m_new(__m_cls)\n"
    exec(f"{head}{body}    return __m_made\n", scope)
    made: Callable[..., T] = scope["make"]
    return made


def replacer(cls: type[T], changed: tuple[str, ...]) -> Callable[..., T]:
    """A function ``(old, *values)`` that makes ``dataclasses.replace(old, **dict(zip(
    changed, values)))`` for ``old`` a ``cls`` (as :func:`maker`: a frozen, slotted
    dataclass with no ``__post_init__``), the other fields read from ``old``."""
    make = maker(cls)
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    if not set(changed) <= set(names) or len(set(changed)) != len(changed):
        raise TypeError(f"{cls.__name__}: {changed} are not distinct fields")
    args = ", ".join(n if n in changed else f"__m_old.{n}" for n in names)
    scope: dict[str, Any] = {"__m_make": make}
    exec(f"def put(__m_old, {', '.join(changed)}):\n    return __m_make({args})\n", scope)
    made: Callable[..., T] = scope["put"]
    return made


#: The makers of the values every plain pair's ruling is made of.
make_ruling = maker(LosRuling)
make_reason = maker(Reason)
make_text = maker(Text)
make_margin = maker(Margin)
make_join = maker(Join)
make_length = maker(Length)
