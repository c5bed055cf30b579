"""P2's parent chains, resolved in linear time: each place inherits every characteristic
it does not state from its catalogue type, then from its parent element (a place of the
map or a catalogue type), and so on.

The parents of the places of a map form a graph where each place has at most one
successor, so one walk from each place not yet seen finds, in time linear in the number
of places overall, an order where every parent comes before its children, and every loop
(reported once, with its places, starting from the one first in the file). Each place's
chain is then one new :class:`~arbitre.places.graph.Lineage` link (two with its own type)
in front of its parent's chain, shared, never copied.

A catalogue type's parent is always a catalogue type (data/places.yaml), never a place of
the map that happens to share its name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

from arbitre.errors import Problem
from arbitre.i18n import T_, Text
from arbitre.places.catalogue import Effect, PlaceType, catalogue, places_by_key
from arbitre.places.graph import Lineage, short
from arbitre.text import fold

#: Places of a loop named in its problem before the rest are only counted.
MAX_LOOP_SHOWN = 12


@cache
def type_chains() -> dict[str, Lineage]:
    """The chain of every catalogue type (itself, its parent type, ...), by name."""
    chains: dict[str, Lineage] = {}
    for start in catalogue().places:
        walk: list[PlaceType] = []
        t: PlaceType | None = start
        while t is not None and t.name not in chains and t not in walk:
            walk.append(t)
            t = places_by_key().get(fold(t.parent)) if t.parent is not None else None
        rest = chains.get(t.name) if t is not None else None
        for item in reversed(walk):
            rest = Lineage(item.name, item.encumbrance, item.cover, item.effects, rest)
            chains[item.name] = rest
    return chains


def _loop_text(loop: Sequence[str]) -> Text | str:
    """``a -> b -> a``; past :data:`MAX_LOOP_SHOWN` places, the first ones and a count."""
    names = [short(n) for n in loop]
    if len(names) > MAX_LOOP_SHOWN:
        shown = [*names[: MAX_LOOP_SHOWN - 2], "...", names[-1]]
        return T_("{loop} ({n} places)", loop=" -> ".join([*shown, names[0]]), n=len(names))
    return " -> ".join([*names, names[0]])


def parent_order(
    index: Mapping[str, int], parent: Mapping[str, str], problems: list[Problem]
) -> list[str]:
    """The place ids (``index``: their position in the file) ordered so that each place's
    parent place (``parent``) comes before it; the places of a loop, or whose chain runs
    into one, are left out, and each loop is one problem. Linear in the number of places."""
    state: dict[str, int] = {}  # 1: on the current walk, 2: resolved, 3: loops
    order: list[str] = []
    for start in index:
        walk: list[str] = []
        node: str | None = start
        while node is not None and node not in state:
            state[node] = 1
            walk.append(node)
            node = parent.get(node)
        if node is None or state[node] == 2:
            order.extend(reversed(walk))
            state.update(dict.fromkeys(walk, 2))
            continue
        if state[node] == 1:  # this walk closed a loop
            loop = walk[walk.index(node) :]
            first = min(range(len(loop)), key=lambda k: index[loop[k]])
            loop = loop[first:] + loop[:first]
            problems.append(
                Problem(
                    f"places[{index[loop[0]]}].parent",
                    T_("the parent chain loops: {loop}", loop=_loop_text(loop)),
                )
            )
        state.update(dict.fromkeys(walk, 3))
    return order


def chain(
    ident: str,
    encumbrance: int | None,
    cover: int | None,
    effects: tuple[Effect, ...] | None,
    kind: PlaceType | None,
    parent: str | None,
    chains: Mapping[str, Lineage],
) -> Lineage:
    """A place's chain (P2): its own statement, its catalogue type ``kind``, then its
    parent's chain (``parent``: a place id of ``chains``, else a catalogue type); without
    a parent, its type's chain. ``chains`` holds the chains of the places already done."""
    above: Lineage | None = None
    if parent is None:
        above = type_chains()[kind.name] if kind is not None else None
    else:
        if parent in chains:
            above = chains[parent]
        elif fold(parent) in places_by_key():
            above = type_chains()[places_by_key()[fold(parent)].name]
        if kind is not None:
            above = Lineage(kind.name, kind.encumbrance, kind.cover, kind.effects, above)
    return Lineage(ident, encumbrance, cover, effects, above)
