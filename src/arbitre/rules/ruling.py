"""Rulings: the shared result values of every ruleset, and their JSON form (G7).

A ruling is never a bare bool: it carries its reasons, each citing a rule ID of
RULES.md and the ids of the pieces involved, so a player can check it on the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arbitre.table import MM, Unit

#: Version of the JSON form of rulings.
JSON_VERSION = 1


@dataclass(frozen=True, slots=True)
class Reason:
    """One step of a ruling: the rule applied, the pieces involved, in words."""

    rule: str
    ids: tuple[str, ...]
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "ids": list(self.ids), "text": self.text}


@dataclass(frozen=True, slots=True)
class LosRuling:
    """Whether ``shooter`` sees ``target``, the cover the target gets, and why."""

    shooter: str
    target: str
    visible: bool
    cover: int
    reasons: tuple[Reason, ...]
    visible_fraction: float | None = None
    blockers: tuple[str, ...] = ()
    cover_pieces: tuple[str, ...] = ()
    witness: tuple[tuple[float, float], tuple[float, float]] | None = None

    @property
    def rules(self) -> tuple[str, ...]:
        """The rule IDs cited, in order, without repeats."""
        return tuple(dict.fromkeys(r.rule for r in self.reasons))

    def to_json(self, unit: Unit = MM) -> dict[str, Any]:
        """The JSON form; ``blockers`` lists what stops the line (empty when visible) and
        ``witness``, when the ruleset finds one, is a clear segment in ``unit`` (S3)."""
        doc: dict[str, Any] = {
            "shooter": self.shooter,
            "target": self.target,
            "visible": self.visible,
            "cover": self.cover,
            "visible_fraction": self.visible_fraction,
            "blockers": list(self.blockers),
            "reasons": [r.to_json() for r in self.reasons],
        }
        if self.witness is not None:
            doc["witness"] = [[unit.from_mm(c) for c in p] for p in self.witness]
        return doc
