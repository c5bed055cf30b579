"""Rulings: the shared result values of every ruleset, and their JSON form (G7).

A ruling is never a bare bool: it carries its reasons, each citing a rule ID of
RULES.md and the ids of the pieces involved, so a player can check it on the table.

JSON 2 (:data:`JSON_VERSION`) is one envelope for every question (:class:`Answer`):
``{"arbitre": 2, "kind", "rules", "unit", "options", "rulings"}``. Each ruling's JSON has
its ``kind``, its ids, its decision fields, ``reasons`` and ``refusals`` (both lists of
``{"rule", "ids", "text"}``). Exact chances are :func:`chance` objects, laws :func:`law`
objects, lengths plain numbers in the report unit (:func:`length`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from arbitre.errors import RulesError
from arbitre.i18n import TN_, Lang, Text, speaking
from arbitre.table import MM, Unit

if TYPE_CHECKING:  # the dice are imported by the rulings that roll (start-up, issue 16)
    from arbitre.dice import Distribution

#: Version of the JSON form of rulings.
JSON_VERSION = 2

#: Every rule ID of RULES.md a reason may cite (a test checks it against RULES.md).
RULE_IDS: frozenset[str] = frozenset(
    [f"G{i}" for i in range(1, 9)]
    + [f"F{i}" for i in range(1, 10)]
    + [f"B{i}" for i in range(1, 11)]
    + [f"M{i}" for i in range(1, 13)]
    + [f"P{i}" for i in range(1, 7)]
    + [f"D{i}" for i in range(1, 6)]
    + ["S1", "S2", "S3"]
)


@dataclass(frozen=True, slots=True)
class Reason:
    """One step of a ruling: the rule applied, the pieces involved, in words.

    ``message`` is a :class:`~arbitre.i18n.Text` (a message id and its parameters), worded
    in a language only when read: :attr:`text` in the current language
    (:func:`arbitre.i18n.speaking`), :meth:`render` in a given one.
    """

    rule: str
    ids: tuple[str, ...]
    message: Text | str

    @property
    def text(self) -> str:
        """The words in the current language."""
        return str(self.message)

    def render(self, lang: Lang | None = None) -> str:
        """The words in ``lang`` (default: the current language)."""
        m = self.message
        return m if isinstance(m, str) else m.render(lang)

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "ids": list(self.ids), "text": self.text}


def reasons_json(reasons: Sequence[Reason]) -> list[dict[str, Any]]:
    """The JSON form of a sequence of reasons (or refusals)."""
    return [r.to_json() for r in reasons]


def chance(p: Fraction | int) -> dict[str, Any]:
    """The one JSON encoding of an exact chance: ``{"p": "7/36", "float": 0.1944...}``."""
    from arbitre.dice import chance_json

    return chance_json(p)


def law(dist: Distribution[Any]) -> dict[str, Any]:
    """The one JSON encoding of an exact law: outcomes in order, their chances exact and
    as floats, and the mean as a :func:`chance` object (None unless outcomes are numbers)."""
    return dist.to_json()


def length(unit: Unit | None, mm: float | None) -> float | None:
    """A length in the report unit for JSON (``None`` stays ``None``; without a unit, mm)."""
    if mm is None:
        return None
    return (unit or MM).from_mm(mm)


def point(unit: Unit | None, xy: tuple[float, float] | Any) -> list[float]:
    """A point ``[x, y]`` in the report unit for JSON."""
    u = unit or MM
    x, y = xy
    return [u.from_mm(float(x)), u.from_mm(float(y))]


@dataclass(frozen=True, slots=True)
class Margin:
    """G8: the smallest slack among the threshold tests a ruling rests on.

    ``mm`` is that slack in mm (``None`` when the ruling rests on no length threshold, as
    a roll-off or a places move); ``test`` names the test (``"beam hedge"``, ``"contact
    hunter-hedge"``, ``"range"``, ``"half range"``, ``"elevation"``, ``"template edge
    orc"``...); ``close`` says it is below the ``close_call`` option. Moving one model by
    less than ``mm`` never changes the ruling.
    """

    mm: float | None = None
    test: str = ""
    close: bool = False

    @classmethod
    def smallest(cls, tests: Iterable[tuple[float, str]], close_call: float) -> Margin:
        """The margin of a ruling resting on ``tests`` (slack in mm, name): the smallest
        slack (its absolute value), a close call below ``close_call`` mm."""
        best: tuple[float, str] | None = None
        for slack, name in tests:
            slack = abs(float(slack))
            if not math.isfinite(slack):
                continue
            if best is None or slack < best[0]:
                best = (slack, name)
        if best is None:
            return NO_MARGIN
        return cls(best[0], best[1], best[0] < close_call)

    def to_json(self, unit: Unit | None) -> dict[str, Any]:
        """The three G8 fields of every ruling's JSON (``margin`` in the report unit)."""
        return {
            "margin": length(unit, self.mm),
            "margin_test": self.test,
            "close_call": self.close,
        }


#: The margin of a ruling that rests on no length threshold.
NO_MARGIN = Margin()


@runtime_checkable
class Ruling(Protocol):
    """What every ruling of every question offers: its kind, its reasons and refusals, and
    its JSON form in a report unit (``None`` for questions without lengths)."""

    kind: ClassVar[str]

    @property
    def reasons(self) -> tuple[Reason, ...]: ...

    @property
    def refusals(self) -> tuple[Reason, ...]: ...

    def to_json(self, unit: Unit | None = None) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class LosRuling:
    """Whether ``shooter`` sees ``target``, the cover the target gets, and why.

    ``because`` is the short form of the deciding reasons (rule IDs and pieces), as the
    ruleset words it for tables and pictures.
    """

    kind: ClassVar[str] = "los"

    shooter: str
    target: str
    visible: bool
    cover: int
    reasons: tuple[Reason, ...]
    visible_fraction: float | None = None
    blockers: tuple[str, ...] = ()
    cover_pieces: tuple[str, ...] = ()
    witness: tuple[tuple[float, float], tuple[float, float]] | None = None
    refusals: tuple[Reason, ...] = ()
    because: str = ""
    margin: Margin = NO_MARGIN

    @property
    def rules(self) -> tuple[str, ...]:
        """The rule IDs cited, in order, without repeats."""
        return tuple(dict.fromkeys(r.rule for r in self.reasons))

    def to_json(self, unit: Unit | None = None) -> dict[str, Any]:
        """The JSON form; ``blockers`` lists what stops the line (empty when visible),
        ``cover_pieces`` what gives the cover, and ``witness``, when the ruleset finds one,
        is a clear segment in ``unit`` (S3)."""
        return {
            "kind": self.kind,
            "shooter": self.shooter,
            "target": self.target,
            "visible": self.visible,
            "cover": self.cover,
            "visible_fraction": self.visible_fraction,
            "blockers": list(self.blockers),
            "cover_pieces": list(self.cover_pieces),
            "witness": None if self.witness is None else [point(unit, p) for p in self.witness],
            "because": self.because,
            "reasons": reasons_json(self.reasons),
            "refusals": reasons_json(self.refusals),
            **self.margin.to_json(unit),
        }


@dataclass(frozen=True, slots=True)
class Answer:
    """The answer to one question: which question, under which ruleset and options, in
    which report unit, and its rulings. :meth:`to_json` is the JSON 2 envelope."""

    kind: str
    rules: str
    unit: Unit | None
    options: Mapping[str, object]
    rulings: tuple[Any, ...] = field(default=())

    @property
    def ruling(self) -> Any:
        """The one ruling of an answer that has exactly one."""
        if len(self.rulings) != 1:
            raise RulesError(
                TN_(
                    "{kind}: {n} ruling, not one",
                    "{kind}: {n} rulings, not one",
                    "n",
                    kind=self.kind,
                    n=len(self.rulings),
                )
            )
        return self.rulings[0]

    def to_json(self, lang: Lang | None = None) -> dict[str, Any]:
        """The JSON 2 envelope; its ``text`` fields in ``lang`` (default: the current
        language). Keys, ids and rule IDs never change with the language."""
        if lang is not None:
            with speaking(lang):
                return self.to_json()
        return {
            "arbitre": JSON_VERSION,
            "kind": self.kind,
            "rules": self.rules,
            "unit": None if self.unit is None else self.unit.name,
            "options": dict(self.options),
            "rulings": [r.to_json(self.unit) for r in self.rulings],
        }
