"""The engine's bounded stores (:func:`arbitre.bounded.trim`): the newest entries kept,
in their order, whatever was dropped before."""

from __future__ import annotations

import random

from arbitre.bounded import trim


def test_trim_keeps_the_newest_entries_in_order() -> None:
    rng = random.Random(5)
    store: dict[int, int] = {}
    model: list[int] = []  # the keys, oldest first, as a plain list keeps them
    for step in range(3000):
        for _ in range(rng.randint(0, 40)):
            key = rng.randint(0, 500)
            if key in store:  # a key put again keeps its place, as a dict does
                store[key] = step
                continue
            store[key] = step
            model.append(key)
        keep = rng.choice([0, 1, 50, 200])
        trim(store, keep)
        model = model[max(0, len(model) - keep) :]
        assert list(store) == model


def test_trim_leaves_a_small_store_alone() -> None:
    store = {"a": 1, "b": 2}
    trim(store, 2)
    assert store == {"a": 1, "b": 2}
    trim(store, 5)
    assert list(store) == ["a", "b"]
    trim(store, 1)
    assert store == {"b": 2}
