"""Dark Age (seed 004): action points (D1), roll-offs (D2), the line-of-sight window with
size classes (D3-D5).

D3: the target is in line of sight when some unobstructed segment joins the observer's
base to the target's inside the window (the convex hull of the two bases, S3). D4: only
models and terrain of the target's size class or larger obstruct, so sight is not
symmetric. D1: an activation spends action points in any order and loses what is left.
D2: two opposing effects at once are ordered by the lower of two D20, ties rolled again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType

import numpy as np
import shapely

from arbitre import dice, sight
from arbitre.errors import RulesError
from arbitre.rules import schema
from arbitre.rules.options import read_options
from arbitre.rules.registry import Question, Ruleset, questions
from arbitre.rules.requests import LosRequest
from arbitre.rules.ruling import LosRuling, Reason
from arbitre.table import Table


@dataclass(frozen=True, slots=True)
class DarkAgeOptions:
    """Options of the D rules: none of its own yet (the G options are shared)."""


def options(table: Table) -> DarkAgeOptions:
    return read_options(DarkAgeOptions, table.options)


def _ranks(table: Table, ix: sight.SightIndex) -> np.ndarray:
    """The D4 rank of every piece of the sight index (terrain, then models)."""
    sizes = [t.size for t in table.terrain] + [m.size for m in table.models]
    ranks = []
    for ident, size in zip(ix.ids, sizes, strict=True):
        if size not in table.size_classes:
            known = ", ".join(table.size_classes)
            raise RulesError(f"{ident}: size {size!r} is not a size class ({known})")
        ranks.append(table.size_rank(size))
    return np.asarray(ranks, dtype=np.int64)


def rulings(table: Table, pairs: Sequence[tuple[str, str]]) -> list[LosRuling]:
    """D3-D4 for each ``(observer, target)`` pair: visible or not, a witness segment or
    the pieces that close the window, and the smaller pieces D4 lets the line pass."""
    options(table)
    for a, b in pairs:
        if table.model(a) == table.model(b):
            raise RulesError(f"a model does not look at itself: {a!r}")
    if not pairs:
        return []
    ix = sight.sight_index(table)
    ranks = _ranks(table, ix)
    need = np.asarray([table.size_rank(table.model(b).size) for _, b in pairs], np.int64)
    lines = sight.clear_lines(table, pairs, piece_rank=ranks, min_rank=need, index=ix)
    return [_rule(table, ix, ranks, line) for line in lines]


def _window_pieces(table: Table, ix: sight.SightIndex, a: str, b: str) -> list[int]:
    """The pieces reaching into the D3 window of a and b (the hull of their bases)."""
    ma, mb = table.model(a), table.model(b)
    hull = shapely.convex_hull(
        shapely.union(
            shapely.Point(ma.at.x, ma.at.y).buffer(max(ma.base.radius, 1e-9), 64),
            shapely.Point(mb.at.x, mb.at.y).buffer(max(mb.base.radius, 1e-9), 64),
        )
    )
    skip = {a, b}
    shapes = [t.footprint.shape() for t in table.terrain] + [
        shapely.Point(m.at.x, m.at.y).buffer(max(m.base.radius, 1e-9), 64) for m in table.models
    ]
    hits = shapely.intersects(hull, shapely.buffer(np.asarray(shapes, dtype=object), ix.half))
    return [int(p) for p in np.flatnonzero(hits) if ix.ids[p] not in skip]


def _rule(
    table: Table, ix: sight.SightIndex, ranks: np.ndarray, line: sight.ClearLine
) -> LosRuling:
    a, b = line.observer, line.target
    size = table.model(b).size
    inside = _window_pieces(table, ix, a, b)
    smaller = tuple(ix.ids[p] for p in inside if ranks[p] < table.size_rank(size))
    reasons = [Reason("D3", (a, b), f"the window joins the sides of {a}'s and {b}'s bases")]
    if smaller:
        reasons.append(
            Reason(
                "D4",
                smaller,
                (f"smaller than {b} ({size}), these do not obstruct: {', '.join(smaller)}"),
            )
        )
    if line.clear and line.witness is not None:
        p, q = line.witness
        reasons.append(
            Reason(
                "D3",
                (a, b),
                (
                    f"a clear line joins the bases, from {_fmt(table, p.x, p.y)} to "
                    f"{_fmt(table, q.x, q.y)}: {b} is in line of sight"
                ),
            )
        )
        witness = ((p.x, p.y), (q.x, q.y))
        return LosRuling(a, b, True, 0, tuple(reasons), witness=witness)
    reasons.append(
        Reason(
            "D4",
            line.blockers,
            (
                f"of {b}'s size ({size}) or larger, these close the window: "
                f"{', '.join(line.blockers) or 'nothing'}"
            ),
        )
    )
    reasons.append(Reason("D3", (a, b), f"no clear line joins the bases: {b} is not in sight"))
    return LosRuling(a, b, False, 0, tuple(reasons), blockers=line.blockers)


def _fmt(table: Table, x: float, y: float) -> str:
    u = table.unit
    return f"({u.from_mm(x):.4g}, {u.from_mm(y):.4g})"


# --- D1: action points ------------------------------------------------------------------

#: Default AP cost of each kind of action (D1 names them; the seed gives 1 AP each).
DEFAULT_COSTS: Mapping[str, int] = MappingProxyType(
    {"move": 1, "attack": 1, "skill": 1, "psychogenics": 1}
)


@dataclass(frozen=True, slots=True)
class Activation:
    """D1: one model's activation. Spend AP on actions in any order; it ends when the AP
    are spent or the player stops, and the AP left are lost. Each step gives a new value.

    >>> act = Activation("scout", ap=3).spend("move").spend("attack")
    >>> act.left, act.ended
    (1, False)
    >>> act.end().lost
    1
    """

    model: str
    ap: int
    costs: Mapping[str, int] = field(default_factory=lambda: DEFAULT_COSTS)
    spent: tuple[tuple[str, int], ...] = ()
    stopped: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.ap, bool) or not isinstance(self.ap, int) or self.ap < 0:
            raise RulesError(f"{self.model}: AP must be a whole number >= 0, got {self.ap!r}")
        for action, cost in self.costs.items():
            if isinstance(cost, bool) or not isinstance(cost, int) or cost < 0:
                raise RulesError(
                    f"action {action!r}: cost must be a whole number >= 0, got {cost!r}"
                )

    @property
    def left(self) -> int:
        return self.ap - sum(cost for _, cost in self.spent)

    @property
    def ended(self) -> bool:
        """Whether the activation is over: stopped, or no AP left (D1)."""
        return self.stopped or self.left == 0

    @property
    def lost(self) -> int:
        """The AP lost when the activation ends (0 while it goes on)."""
        return self.left if self.ended else 0

    def spend(self, action: str, *, cost: int | None = None) -> Activation:
        """The activation after ``action`` (its cost from ``costs`` unless given)."""
        if self.ended:
            raise RulesError(f"{self.model}'s activation is over: it cannot {action}")
        if cost is None:
            if action not in self.costs:
                known = ", ".join(self.costs)
                raise RulesError(f"unknown action {action!r} (actions: {known}); give its cost")
            cost = self.costs[action]
        if cost > self.left:
            raise RulesError(
                f"{self.model} cannot {action}: it costs {cost} AP and {self.left} are left"
            )
        return replace(self, spent=(*self.spent, (action, cost)))

    def end(self) -> Activation:
        """The player stops: the AP left are lost (D1)."""
        return replace(self, stopped=True)

    def reasons(self) -> tuple[Reason, ...]:
        steps = [Reason("D1", (self.model,), f"{action}: {cost} AP") for action, cost in self.spent]
        if self.ended:
            steps.append(Reason("D1", (self.model,), f"activation over, {self.lost} AP lost"))
        return tuple(steps)


# --- D2: roll-offs ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RollOffOdds:
    """D2 exactly: each player's chance to decide, one round's chance of a tie, and the
    mean number of rounds (ties are rolled again)."""

    first: Fraction
    second: Fraction
    tie: Fraction
    rounds: Fraction


def rolloff_odds(players: tuple[str, str] = ("A", "B"), *, sides: int = 20) -> RollOffOdds:
    """The exact D2 odds, from the very procedure that :func:`rolloff` rolls."""
    law = dice.enumerate_procedure(lambda d: dice.roll_off(d, players, sides=sides))
    die = dice.die(sides)
    tie = sum((die.probability(v) ** 2 for v in die.support), Fraction(0))
    return RollOffOdds(law.probability(players[0]), law.probability(players[1]), tie, 1 / (1 - tie))


@dataclass(frozen=True, slots=True)
class RollOff:
    """A seeded D2 roll-off: who decides the order, every die rolled, and why."""

    decides: str
    log: dice.RollLog
    reasons: tuple[Reason, ...]


def rolloff(players: tuple[str, str], *, seed: int, sides: int = 20) -> RollOff:
    """Roll off between two players (D2): the lower D20 decides, ties rolled again."""
    decides, log = dice.roll_procedure(lambda d: dice.roll_off(d, players, sides=sides), seed)
    rolls = [r.value for r in log.dice]
    rounds = [rolls[i : i + 2] for i in range(0, len(rolls), 2)]
    steps = [
        Reason(
            "D2",
            players,
            f"round {n}: {players[0]} {x}, {players[1]} {y}"
            + (" - a tie, rolled again" if x == y else ""),
        )
        for n, (x, y) in enumerate(rounds, 1)
    ]
    steps.append(Reason("D2", (decides,), f"{decides} rolled lower and decides the order"))
    return RollOff(decides, log, tuple(steps))


def _los(table: Table, request: LosRequest, *, options: DarkAgeOptions) -> list[LosRuling]:
    return rulings(table, request.pairs_on(table))


RULESET = Ruleset(
    name="darkage",
    title="Dark Age line-of-sight window with size classes (D3-D5)",
    aliases=("dark-age", "da"),
    options=DarkAgeOptions,
    questions=questions(
        Question("los", "Lines of sight through the window (D3-D5)", LosRequest, _los,
                 schema=schema.LOS),
    ),
    sight="S3",
)
