"""Problems in a document, worded for people: the path of a value (``models[2].base``), the
value itself shown short and bounded, and pydantic's errors turned into one line each.
Both loaders (tables and places) word their problems here.
"""

from __future__ import annotations

import difflib
import reprlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

from arbitre.errors import Problem
from arbitre.i18n import N_, T_, TN_, Num, Text, current

#: pydantic's error kinds in a few words (message ids, worded when printed).
MESSAGES = {
    "missing": N_("required"),
    "finite_number": N_("must be a finite number"),
    "float_type": N_("must be a number"),
    "float_parsing": N_("must be a number"),
    "int_type": N_("must be a whole number"),
    "int_parsing": N_("must be a whole number"),
    "int_from_float": N_("must be a whole number"),
    "string_type": N_("must be a string"),
    "bool_type": N_("must be true or false"),
    "bool_parsing": N_("must be true or false"),
    "list_type": N_("must be a list"),
    "tuple_type": N_("must be a list"),
    "dict_type": N_("must be a mapping"),
    "model_type": N_("must be a mapping"),
    "model_attributes_type": N_("must be a mapping"),
    "string_too_short": N_("must not be empty"),
}

#: The kinds of value a problem names ("got a list").
KINDS = {dict: N_("a mapping"), list: N_("a list"), str: N_("a string"), type(None): N_("nothing")}


def kind(value: object) -> Text:
    """The kind of ``value`` in words ("a mapping"), worded when printed."""
    known = KINDS.get(type(value))
    return T_(known) if known else T_("a {type}", type=type(value).__name__)


@dataclass(frozen=True, slots=True)
class Grouped:
    """A whole number with its thousands grouped per language ("10,000,000" /
    "10 000 000"), worded when printed."""

    n: int

    def __str__(self) -> str:
        text = f"{self.n:,}"
        return text.replace(",", " ") if current() == "fr" else text


SHOW = reprlib.Repr()
SHOW.maxlevel, SHOW.maxdict, SHOW.maxlist, SHOW.maxtuple, SHOW.maxset = 2, 3, 3, 3, 3
SHOW.maxstring, SHOW.maxlong, SHOW.maxother = 50, 40, 50


def show(value: object) -> str:
    """A user value as a problem shows it: bounded in length and in the work it takes
    (:mod:`reprlib`: a list of 100,000 models is not written out)."""
    try:
        text = SHOW.repr(value)
    except (ValueError, RecursionError):
        return "a value too long to show"
    return text if len(text) <= 60 else text[:57] + "..."


def path(loc: tuple[int | str, ...]) -> str:
    """``('models', 2, 'base')`` -> ``models[2].base``."""
    out = ""
    for part in loc:
        name = str(part) if len(str(part)) <= 60 else str(part)[:57] + "..."
        out += f"[{part}]" if isinstance(part, int) else (f".{name}" if out else name)
    return out


def got(text: Text | str, value: object) -> Text:
    """``text`` followed by the value it got ("must be a number, got 'wide'")."""
    return T_("{text}, got {value}", text=text, value=value)


def problem(err: ErrorDetails, fields: Sequence[str] = ()) -> Problem:
    """One pydantic error as a Problem: path, short message, offending value (the message
    worded per language by the error's type; pydantic's own English for a type not
    listed)."""
    kind, loc, ctx = err["type"], err["loc"], err.get("ctx", {})
    if kind == "invalid_key" or loc[-1:] == ("[key]",):
        keep = loc[:-1] if kind == "invalid_key" else loc[:-2]
        return Problem(path(keep), got(T_("keys must be strings"), show(err["input"])))
    if kind == "extra_forbidden":
        near = difflib.get_close_matches(str(loc[-1]), list(fields), n=1)
        if near:
            return Problem(
                path(loc), T_("unknown field (did you mean {name}?)", name=repr(near[0]))
            )
        return Problem(path(loc), T_("unknown field"))
    text = _message(kind, ctx, err["msg"])
    if kind == "too_long" and "actual_length" in ctx:  # never write out a huge list
        return Problem(path(loc), got(text, ctx["actual_length"]))
    return Problem(path(loc), text if kind == "missing" else got(text, show(err["input"])))


def _message(kind: str, ctx: dict[str, Any], msg: str) -> Text | str:
    """The few words of a pydantic error of type ``kind`` (``ctx``: its context)."""
    if kind in ("greater_than", "greater_than_equal", "less_than_equal"):
        bound = Num(float(next(iter(ctx.values()))), "g")
        if kind == "greater_than":
            return T_("must be > {bound}", bound=bound)
        if kind == "greater_than_equal":
            return T_("must be >= {bound}", bound=bound)
        return T_("must be <= {bound}", bound=bound)
    if kind == "too_short":
        # the English has always said "items", even for 1: the same id for both forms
        return TN_(
            "must have at least {n} items", "must have at least {n} items", "n", n=ctx["min_length"]
        )
    if kind == "too_long":
        return TN_(
            "must have at most {n} items", "must have at most {n} items", "n", n=ctx["max_length"]
        )
    if kind == "literal_error":
        return T_("must be {expected}", expected=_choices(str(ctx["expected"])))
    if kind in MESSAGES:
        return T_(MESSAGES[kind])
    return msg[:1].lower() + msg[1:]  # pydantic's own English: a type no table gives


def _choices(expected: str) -> Text | str:
    """pydantic's ``'a', 'b' or 'c'`` with its "or" worded per language."""
    head, sep, last = expected.rpartition(" or ")
    return T_("{items} or {last}", items=head, last=last) if sep else expected
