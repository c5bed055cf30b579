"""Problems in a document, worded for people: the path of a value (``models[2].base``), the
value itself shown short and bounded, and pydantic's errors turned into one line each.
Both loaders (tables and places) word their problems here.
"""

from __future__ import annotations

import difflib
import reprlib
from collections.abc import Sequence

from pydantic_core import ErrorDetails

from arbitre.errors import Problem

#: pydantic's error kinds in a few words.
MESSAGES = {
    "missing": "required",
    "finite_number": "must be a finite number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "list_type": "must be a list",
    "dict_type": "must be a mapping",
    "model_type": "must be a mapping",
    "model_attributes_type": "must be a mapping",
    "string_too_short": "must not be empty",
}


def kind(value: object) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", type(None): "nothing"}.get(
        type(value), f"a {type(value).__name__}"
    )


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


def problem(err: ErrorDetails, fields: Sequence[str] = ()) -> Problem:
    """One pydantic error as a Problem: path, short message, offending value."""
    kind, loc, ctx = err["type"], err["loc"], err.get("ctx", {})
    if kind == "invalid_key" or loc[-1:] == ("[key]",):
        keep = loc[:-1] if kind == "invalid_key" else loc[:-2]
        return Problem(path(keep), f"keys must be strings, got {show(err['input'])}")
    if kind == "extra_forbidden":
        near = difflib.get_close_matches(str(loc[-1]), list(fields), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        return Problem(path(loc), f"unknown field{hint}")
    bounds = {"greater_than": ">", "greater_than_equal": ">=", "less_than_equal": "<="}
    limits = {"too_short": "at least", "too_long": "at most"}
    if kind in bounds:
        bound = next(iter(ctx.values()))
        text = f"must be {bounds[kind]} {bound:g}"
    elif kind in limits:
        text = f"must have {limits[kind]} {ctx.get('min_length', ctx.get('max_length'))} items"
        if kind == "too_long" and "actual_length" in ctx:  # never write out a huge list
            return Problem(path(loc), f"{text}, got {ctx['actual_length']}")
    elif kind == "literal_error":
        text = f"must be {ctx['expected']}"
    else:
        text = MESSAGES.get(kind, err["msg"][:1].lower() + err["msg"][1:])
    return Problem(path(loc), text if kind == "missing" else f"{text}, got {show(err['input'])}")
