"""The engine's bounded stores (:func:`arbitre.bounded.trim`): the newest entries kept,
in their order, whatever was dropped before."""

from __future__ import annotations

import random

from arbitre.bounded import entry, kept_by, trim


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


def test_entry_keeps_stores_by_key_the_most_recent_last() -> None:
    """:func:`entry` gives the same store for an equal key (found last without hashing,
    or among the others), a new empty one for a new key, and keeps at most ``most``."""
    stores: dict[tuple[tuple[int, ...], float], dict[str, int]] = {}
    terrain = (1, 2, 3)
    first = entry(stores, (terrain, 0.5), 2)
    first["a"] = 1
    assert entry(stores, (terrain, 0.5), 2) is first
    assert entry(stores, ((1, 2, 3), 0.5), 2) is first  # equal parts, other objects
    other = entry(stores, (terrain, 1.0), 2)
    assert other == {} and other is not first
    assert list(stores) == [(terrain, 0.5), (terrain, 1.0)]
    assert entry(stores, (terrain, 0.5), 2) is first  # found among the others, moved last
    assert list(stores) == [(terrain, 1.0), (terrain, 0.5)]
    entry(stores, ((4,), 0.5), 2)  # a third: the oldest dropped
    assert list(stores) == [(terrain, 0.5), ((4,), 0.5)]
    assert stores[(terrain, 0.5)] is first


def test_kept_by_keeps_answers_by_their_key() -> None:
    """A function kept by a key of its arguments answers an equal key from the store
    (another argument of the same key), makes a new key's answer, keeps the last
    ``most`` (the most recently used last), forgets all on ``cache_clear``."""
    made: list[str] = []

    @kept_by(lambda word, _note="": word.lower(), 2)
    def shout(word: str, _note: str = "") -> str:
        """Say it louder."""
        made.append(word)
        return word.upper() + "!"

    assert shout("Hey") == "HEY!"
    assert shout("HEY", _note="again") == "HEY!"  # the same key: found, not made
    assert made == ["Hey"]
    assert shout("ho") == "HO!"
    assert shout("hey") == "HEY!"  # used again: now the most recent
    assert shout("hi") == "HI!"  # a third key: "ho", the least recent, dropped
    assert shout("ho") == "HO!"
    assert made == ["Hey", "ho", "hi", "ho"]
    shout.cache_clear()
    assert shout("hey") == "HEY!"
    assert made[-1] == "hey"
    assert shout.__doc__ == "Say it louder."
    assert shout.__wrapped__("x") == "X!"
