"""Reading a scene file, bounded: the JSON text is streamed once and every string longer
than :data:`LONG_STRING` bytes (the base64 picture of a Universal VTT file, a Foundry
``thumb`` data URL) is left out as it streams: never held whole, never decoded. What is
kept is at most ``max_bytes`` long and is parsed by the project's bounded reader
(:func:`arbitre.reading.parse`: depth and value counts).
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from arbitre import reading
from arbitre.errors import Problem, ScenarioError
from arbitre.i18n import T_, Text
from arbitre.problems import Grouped

#: A JSON string longer than this (bytes, escapes counted) is skipped: no name or id
#: comes near it, a picture always passes it.
LONG_STRING = 65_536
#: The most bytes of a file streamed at all (pictures included): 2 GB.
MAX_FILE_BYTES = 2_000_000_000
_CHUNK = 1 << 20
_SPECIAL = re.compile(rb'["\\]')


@functools.cache
def _plain(longest: int) -> re.Pattern[bytes]:
    """Text outside strings and whole strings of at most ``longest`` bytes (escapes
    counted as one), matched in one step and copied as they are."""
    return re.compile(rb'(?:[^"]+|"(?:[^"\\]|\\.){0,%d}")*' % longest)


_KEY = re.compile(rb'"((?:[^"\\]|\\.){0,200})"\s*:\s*$')


@dataclass(frozen=True, slots=True)
class Skipped:
    """A string left out while reading: the key it was the value of, and its size."""

    key: str
    size: int


def read_json(
    path: str | os.PathLike[str],
    *,
    source: str | None = None,
    max_bytes: int = reading.MAX_BYTES,
) -> tuple[object, tuple[Skipped, ...]]:
    """The parsed JSON document of ``path`` with its long strings replaced by ``""``,
    and what was left out; a :class:`ScenarioError` when the file cannot be read, is
    not JSON, or keeps more than ``max_bytes`` bytes once its long strings are out."""
    where = source or str(path)
    kept = _Filter(where, max_bytes)
    try:
        with Path(path).open("rb") as f:
            total = 0
            while chunk := f.read(_CHUNK):
                total += len(chunk)
                if total > MAX_FILE_BYTES:
                    raise _refuse(
                        where, T_("the file is more than {n} bytes", n=Grouped(MAX_FILE_BYTES))
                    )
                kept.feed(chunk)
    except OSError as exc:
        raise _refuse(
            where, T_("cannot read the file: {reason}", reason=exc.strerror or exc)
        ) from None
    try:
        text = kept.text()
    except UnicodeDecodeError as exc:
        raise _refuse(where, T_("not UTF-8 text (byte {n})", n=exc.start)) from None
    if not text.lstrip().startswith("{"):
        raise _refuse(where, T_("not a scene file: expected a JSON object ({{...}})"))
    return reading.parse(text, "json", where), tuple(kept.skipped)


def _refuse(where: str, message: Text) -> ScenarioError:
    return ScenarioError([Problem("", message)], source=where)


class _Filter:
    """JSON bytes in, the same bytes out with long strings emptied, at most ``max_bytes``."""

    def __init__(self, where: str, max_bytes: int) -> None:
        self.where, self.max_bytes = where, max_bytes
        self.out = bytearray()
        self.skipped: list[Skipped] = []
        self.in_string = self.escape = self.skipping = False
        self.current = bytearray()
        self.size = 0

    def text(self) -> str:
        if self.in_string:
            raise _refuse(self.where, T_("invalid JSON: {why}", why=T_("a string is never closed")))
        return self.out.decode("utf-8")

    def feed(self, chunk: bytes) -> None:
        pos, n = 0, len(chunk)
        while pos < n:
            if not self.in_string:  # whole short strings at once; a long one string by string
                m = _plain(min(4096, LONG_STRING // 2)).match(chunk, pos)
                end = m.end() if m else pos
                self.out += chunk[pos:end]
                self._bounded()
                if end >= n:
                    return
                self.in_string, self.skipping, self.size = True, False, 0
                self.current = bytearray()
                pos = end + 1
                continue
            if self.escape:  # the chunk before ended inside an escape
                self._take(chunk[pos : pos + 1])
                self.escape, pos = False, pos + 1
                continue
            m = _SPECIAL.search(chunk, pos)
            end = n if m is None else m.start()
            self._take(chunk[pos:end])
            if m is None:
                return
            if chunk[end] == 0x5C:  # a backslash: it and the next byte are one escape
                self._take(chunk[end : end + 2])
                self.escape = end + 1 >= n
                pos = end + 2
            else:
                self._close()
                pos = end + 1

    def _take(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.skipping:
            return
        self.current += piece
        if self.size > LONG_STRING:
            self.skipping, self.current = True, bytearray()

    def _close(self) -> None:
        if self.skipping:
            key = _KEY.search(bytes(self.out[-300:]))
            name = key.group(1).decode("utf-8", "replace") if key else ""
            self.skipped.append(Skipped(name, self.size))
            self.out += b'""'
        else:
            self.out += b'"' + self.current + b'"'
        self.in_string = False
        self.current = bytearray()
        self._bounded()

    def _bounded(self) -> None:
        if len(self.out) > self.max_bytes:
            raise _refuse(
                self.where,
                T_(
                    "more than {n} bytes besides the embedded pictures, the most read "
                    "(--max-bytes to allow more)",
                    n=Grouped(self.max_bytes),
                ),
            )
