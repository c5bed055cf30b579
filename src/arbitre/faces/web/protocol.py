"""The page's messages: bounded JSON objects with a ``type``, checked before any work.

Every message the page sends over the WebSocket (and every body of the JSON POST
endpoints) is read here: at most :data:`MAX_MESSAGE` bytes, a JSON object whose ``type``
is one of :data:`TYPES`, numbers finite. Anything else is a :class:`MessageError`, which
the server answers with an ``error`` message shown in the page; it never ends the
connection.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from arbitre.errors import ArbitreError
from arbitre.i18n import T_, TN_, Count

#: The largest message or POST body read, in bytes (a scenario upload included).
MAX_MESSAGE = 2_000_000
#: The largest scenario text accepted from the page (upload or paste), in bytes.
MAX_UPLOAD = 2_000_000

#: Message types the page may send.
TYPES = frozenset(
    {
        "open",
        "view",
        "move",
        "edit",
        "undo",
        "redo",
        "measure",
        "ask",
        "svg",
        "save",
        "ping",
        "lang",
        "stand",
    }
)


class MessageError(ArbitreError):
    """A message the server cannot read: too long, not JSON, unknown type, bad field."""


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse(raw: str | bytes) -> dict[str, Any]:
    """The message in ``raw``: a JSON object with a known ``type``, at most
    :data:`MAX_MESSAGE` bytes; a :class:`MessageError` saying what is wrong otherwise."""
    size = len(raw.encode("utf-8") if isinstance(raw, str) else raw)
    if size > MAX_MESSAGE:
        raise MessageError(
            T_(
                "message of {size} bytes: at most {most}",
                size=Count(size),
                most=Count(MAX_MESSAGE),
            )
        )
    try:
        doc = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise MessageError(T_("message is not JSON: {why}", why=str(exc)[:120])) from None
    if not isinstance(doc, dict):
        raise MessageError(T_("message must be a JSON object, got {kind}", kind=type(doc).__name__))
    kind = doc.get("type")
    if kind not in TYPES:
        raise MessageError(
            T_(
                "unknown message type {kind} (types: {types})",
                kind=_short(kind),
                types=", ".join(sorted(TYPES)),
            )
        )
    return doc


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


def _field(doc: Mapping[str, Any], key: str) -> str:
    """Where a field is: ``move.x``."""
    return f"{doc.get('type')}.{key}"


def _missing(doc: Mapping[str, Any], key: str) -> MessageError:
    return MessageError(T_("{kind}: missing field {key}", kind=doc.get("type"), key=repr(key)))


def text(doc: Mapping[str, Any], key: str, *, default: str | None = None) -> str | None:
    """Field ``key`` as a string (or ``default`` when missing or null)."""
    value = doc.get(key)
    if value is None:
        return default
    if not isinstance(value, str):
        raise MessageError(
            T_("{field}: expected text, got {value}", field=_field(doc, key), value=_short(value))
        )
    if len(value) > 1000:
        raise MessageError(
            T_("{field}: text of {n} characters", field=_field(doc, key), n=len(value))
        )
    return value


def required_text(doc: Mapping[str, Any], key: str) -> str:
    value = text(doc, key)
    if value is None:
        raise _missing(doc, key)
    return value


def number(doc: Mapping[str, Any], key: str, *, default: float | None = None) -> float | None:
    """Field ``key`` as a finite number (or ``default`` when missing or null)."""
    value = doc.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MessageError(
            T_(
                "{field}: expected a number, got {value}",
                field=_field(doc, key),
                value=_short(value),
            )
        )
    if not math.isfinite(value) or abs(value) > 1e9:
        raise MessageError(
            T_("{field}: {value} is out of bounds", field=_field(doc, key), value=repr(value))
        )
    return float(value)


def required_number(doc: Mapping[str, Any], key: str) -> float:
    value = number(doc, key)
    if value is None:
        raise _missing(doc, key)
    return value


def mapping(doc: Mapping[str, Any], key: str) -> dict[str, Any]:
    """Field ``key`` as a JSON object (empty when missing or null)."""
    value = doc.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MessageError(
            T_(
                "{field}: expected an object, got {value}",
                field=_field(doc, key),
                value=_short(value),
            )
        )
    return value


#: The most lines an error shows (a file's problems, one a line) and characters in all.
ERROR_LINES, ERROR_CHARS = 8, 600


def error(message: str, *, seq: object = None) -> dict[str, Any]:
    """The message the page shows for an error: its lines (a file's problems, one a
    line, as the command line prints them) each on one line, bounded in count and
    length; the lines left out are counted."""
    lines = [" ".join(line.split()) for line in message.splitlines()]
    lines = [line for line in lines if line] or [""]
    if len(lines) > ERROR_LINES:
        more = len(lines) - ERROR_LINES + 1
        lines = [
            *lines[: ERROR_LINES - 1],
            str(TN_("... and {n} more", "... and {n} more", "n", n=more)),
        ]
    text = "\n".join(lines)
    if len(text) > ERROR_CHARS:
        text = text[: ERROR_CHARS - 3] + "..."
    return {"type": "error", "message": text, "seq": seq, "last": True}
