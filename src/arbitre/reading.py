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

from arbitre.errors import Problem, ScenarioError

#: Largest file read, in bytes.
MAX_BYTES = 10_000_000
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
                    f"the file is more than {max_bytes:,} bytes, the most read "
                    "(--max-bytes to allow more)",
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
                        f"{_where(event)}YAML anchors and aliases (& and *) are not "
                        "allowed in scenario files",
                    )
                ],
                source=source,
            )
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise ScenarioError(
                    [Problem("", f"{_where(event)}nested more than {MAX_DEPTH} levels deep")],
                    source=source,
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _where(event: Any) -> str:
    mark = getattr(event, "start_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""


def _too_many(event: Any = None) -> Problem:
    return Problem(
        "", f"{_where(event)}more than {MAX_VALUES:,} values: far more than any table holds"
    )


def _depth_ok(doc: object, source: str | None) -> None:
    """Refuse a parsed document nested deeper than :data:`MAX_DEPTH` or holding more than
    :data:`MAX_VALUES` values (JSON, parsed fast in C before it is walked)."""
    level: list[tuple[object, int]] = [(doc, 1)]
    values = 1
    while level:
        value, depth = level.pop()
        if depth > MAX_DEPTH:
            raise ScenarioError(
                [Problem("", f"nested more than {MAX_DEPTH} levels deep")], source=source
            )
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
    json_error = None
    if fmt is None and re.match(r'\s*\{\s*"', text):
        fmt = "json"
    # JSON is YAML too, and far faster to read: a .yaml file written as JSON is read so
    if fmt == "json" or text.lstrip().startswith(("{", "[")):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            json_error = f"line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}"
        except (ValueError, RecursionError) as exc:
            json_error = f"invalid JSON: {_short(exc)}"
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
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        message = json_error or f"{where}invalid YAML: {exc.problem or exc.context}"
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        message = json_error or f"invalid YAML: {_short(exc)}"
    raise ScenarioError([Problem("", message)], source=source)


def _short(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) <= 120 else text[:117] + "..."
