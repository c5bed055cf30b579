"""Reading a scenario document, bounded: the text is parsed once, within limits that no
real table comes near, so a hostile or broken file is refused at once with one clear
problem instead of exhausting time or memory.

- Size: at most :data:`MAX_BYTES` bytes (10 MB; ``max_bytes`` to change it).
- YAML aliases and anchors are refused: a scenario never needs them, and nine levels of
  ten aliases make a few lines of text into a billion values (an "alias bomb").
- Nesting: at most :data:`MAX_DEPTH` levels of mappings and lists, and at most
  :data:`MAX_VALUES` values in all, counted before any value is built.
- Numbers: YAML's ``1e3`` is the number 1000 (PyYAML alone reads it as a string);
  integers of more than 4,300 digits are refused (Python's own limit).
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from arbitre.constants import MAX_BYTES as MAX_BYTES
from arbitre.errors import Problem, ScenarioError
from arbitre.i18n import T_, Text
from arbitre.problems import Grouped

#: Deepest nesting of mappings and lists in a document.
MAX_DEPTH = 40
#: Most values (numbers, strings, lists, mappings) in a document: a table of 5,000 models
#: holds under 100,000; building a million values from YAML takes a dozen seconds.
MAX_VALUES = 500_000

_BASE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BASE):  # type: ignore[valid-type, misc]
    """PyYAML's safe loader (the C one when there is one), with ``1e3`` read as a float."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def check_size(size: int, source: str | None, max_bytes: int = MAX_BYTES) -> None:
    """Refuse a document of more than ``max_bytes``."""
    if size > max_bytes:
        raise ScenarioError(
            [
                Problem(
                    "",
                    T_(
                        "the file is more than {n} bytes, the most read (--max-bytes to allow more)",  # noqa: E501
                        n=Grouped(max_bytes),
                    ),
                )
            ],
            source=source,
        )


def _yaml_events_ok(text: str, source: str | None) -> None:
    """Walk the YAML events once (a fast pass, no values built): refuse aliases, anchors
    and nesting deeper than :data:`MAX_DEPTH`."""
    depth = values = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.NodeEvent):
            values += 1
            if values > MAX_VALUES:
                raise ScenarioError([_too_many(event)], source=source)
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise ScenarioError(
                [
                    Problem(
                        "",
                        _where(event)
                        + T_(
                            "YAML anchors and aliases (& and *) are not allowed in scenario files"
                        ),
                    )
                ],
                source=source,
            )
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise ScenarioError(
                    [Problem("", _where(event) + _too_deep())],
                    source=source,
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _where(event: Any) -> Text | str:
    mark = getattr(event, "start_mark", None)
    return _at(mark.line + 1, mark.column + 1) if mark else ""


def _at(line: int, column: int) -> Text:
    """Where in the text a problem is ("line 3, column 7: ")."""
    return T_("line {line}, column {column}: ", line=line, column=column)


def _too_deep() -> Text:
    return T_("nested more than {n} levels deep", n=MAX_DEPTH)


def _too_many(event: Any = None) -> Problem:
    return Problem(
        "",
        _where(event)
        + T_("more than {n} values: far more than any table holds", n=Grouped(MAX_VALUES)),
    )


def _depth_ok(doc: object, source: str | None) -> None:
    """Refuse a parsed document nested deeper than :data:`MAX_DEPTH` or holding more than
    :data:`MAX_VALUES` values (JSON, parsed fast in C before it is walked)."""
    level: list[tuple[object, int]] = [(doc, 1)]
    values = 1
    while level:
        value, depth = level.pop()
        if depth > MAX_DEPTH:
            raise ScenarioError([Problem("", _too_deep())], source=source)
        assert isinstance(value, dict | list)  # only containers are pushed
        items = value.values() if isinstance(value, dict) else value
        values += len(value)
        if values > MAX_VALUES:
            raise ScenarioError([_too_many()], source=source)
        level.extend((v, depth + 1) for v in items if isinstance(v, dict | list))


def parse(text: str, fmt: str | None, source: str | None) -> object:
    """The document in ``text``: JSON when said so or when it looks like it, else YAML.

    Text opening with ``{"`` is JSON only; other text opening with ``{`` or ``[`` that is
    not valid JSON may still be YAML in flow style.
    """
    check_size(len(text), source)
    json_error: Text | None = None
    if fmt is None and re.match(r'\s*\{\s*"', text):
        fmt = "json"
    # JSON is YAML too, and far faster to read: a .yaml file written as JSON is read so
    if fmt == "json" or text.lstrip().startswith(("{", "[")):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            json_error = _at(exc.lineno, exc.colno) + T_("invalid JSON: {why}", why=exc.msg)
        except (ValueError, RecursionError) as exc:
            json_error = T_("invalid JSON: {why}", why=_short(exc))
        else:
            _depth_ok(doc, source)
            return doc
        if fmt == "json":
            raise ScenarioError([Problem("", json_error)], source=source)
    try:
        _yaml_events_ok(text, source)
        return yaml.load(text, Loader=_Loader)  # a safe loader: builds plain values only
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = _at(mark.line + 1, mark.column + 1) if mark else ""
        why = exc.problem or exc.context
        message = json_error or where + T_("invalid YAML: {why}", why=why)
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        message = json_error or T_("invalid YAML: {why}", why=_short(exc))
    raise ScenarioError([Problem("", message)], source=source)


def _short(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) <= 120 else text[:117] + "..."


def is_places_document(doc: object) -> bool:
    """Whether a parsed scenario document is a places scenario (it has ``places``); here,
    not in :mod:`arbitre.places`, so that loading a table does not import the places
    model (:func:`arbitre.places.is_places_document` is this one)."""
    return isinstance(doc, dict) and "places" in doc
