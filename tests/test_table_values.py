"""The table's frozen values: models and pieces keep their hash once computed (a moved
table rehashes every other model otherwise), and it stays the hash of their fields."""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from arbitre.geometry import Point
from arbitre.table import Model, Terrain
from arbitre.testing import random_table

V = TypeVar("V", Model, Terrain)


def _fresh(value: V) -> V:
    """The same value built again from its fields (no hash kept yet)."""
    names = [f.name for f in dataclasses.fields(value) if f.init]
    return type(value)(**{n: getattr(value, n) for n in names})


def test_equal_values_hash_equal_and_a_changed_copy_rehashes() -> None:
    table = random_table(3, models=20, terrain=10)
    for model in table.models:
        first = hash(model)
        assert _fresh(model) == model and hash(_fresh(model)) == first == hash(model)
    for piece in table.terrain:
        first = hash(piece)
        assert _fresh(piece) == piece and hash(_fresh(piece)) == first == hash(piece)
    m = table.models[0]
    hash(m)
    moved = dataclasses.replace(m, at=Point(m.at.x + 1.0, m.at.y))
    assert moved != m
    assert hash(moved) == hash(_fresh(moved))
    assert {m: 1, moved: 2}[_fresh(moved)] == 2


def test_a_moved_table_equals_the_table_built_moved() -> None:
    table = random_table(5, models=30, terrain=12)
    hash(table)
    m = table.models[3]
    to = Point(m.at.x + 2.0, m.at.y - 1.0)
    moved = table.moved(m.id, to)
    built = dataclasses.replace(
        table,
        models=tuple(_fresh(x) for x in moved.models),
        terrain=tuple(map(_fresh, table.terrain)),
    )
    assert moved == built and hash(moved) == hash(built) and moved != table
