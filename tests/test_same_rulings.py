"""Rulings do not change by accident: every line of sight of every table of
``examples/`` and ``tests/golden/`` (places maps aside) under Frostgrave, Dark Age and
Mordheim, and every Mordheim shooter's targets, as stored in
``data/rulings-snapshot.json.gz``; and the G8 margins of those rulings (value, named test,
close call), as stored in ``data/margins-snapshot.json.gz`` (generated from the code of
commit 8f38f74; margins compared to ``snapshot.MARGIN_TOLERANCE``).

The snapshot was rewritten after the fidelity work (issue 10: F5, F6, G4, G5, M4, M12
changed rulings on purpose; the commit that rewrote it lists what changed). When a ruling
changes on purpose, run ``python tests/snapshot.py --diff`` to see what moved, then
``--write``, and say which and why in the commit.
"""

from __future__ import annotations

import pytest
import snapshot  # tests/snapshot.py: pytest puts this folder on the path


def test_the_snapshot_covers_every_table() -> None:
    assert set(snapshot.files()) == set(snapshot.stored())
    assert set(snapshot.files()) == set(snapshot.stored_margins())


def test_margins_are_compared_to_a_tolerance_that_sees_a_move() -> None:
    entry = [1.25, "beam wall", False]
    assert snapshot.same_margin(entry, [1.25 + 1e-12, "beam wall", False])
    assert not snapshot.same_margin(entry, [1.25 + 1e-6, "beam wall", False])
    assert not snapshot.same_margin(entry, [1.25, "beam tree", False])
    assert not snapshot.same_margin(entry, [1.25, "beam wall", True])
    assert not snapshot.same_margin([None, None, False], [0.0, None, False])
    assert not snapshot.same_margin({"a": [1.0]}, {"a": [1.0], "b": [1.0]})


def test_the_margins_snapshot_holds_margins() -> None:
    """Not an empty shell: the stored margins name tests and include close calls."""
    rows = [
        row
        for entry in snapshot.stored_margins().values()
        for key, value in entry.items()
        if key.startswith("los/") and isinstance(value, list)
        for row in value
    ]
    assert len(rows) > 1000
    assert all((m is None) is (t == "") for _, _, m, t, _ in rows)  # no value, no test
    assert sum(isinstance(m, float | int) and t != "" for _, _, m, t, _ in rows) > 0.99 * len(rows)
    assert any(close for *_, close in rows) and not all(close for *_, close in rows)


@pytest.mark.parametrize("file", snapshot.files())
def test_rulings_are_as_stored(file: str) -> None:
    """The rulings, then their margins (one computation for both snapshots)."""
    was = snapshot.stored().get(file)
    now, margins = snapshot.entries_of(file)
    assert was is not None, f"{file} is not in the snapshot: python tests/snapshot.py --write"
    for key in sorted(set(was) | set(now)):
        old, new = was.get(key), now.get(key)
        if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            for a, b in zip(new, old, strict=True):
                assert a == b, (file, key)
        else:
            assert new == old, (file, key)
    stored = snapshot.stored_margins().get(file)
    assert stored is not None, f"{file} has no stored margins: python tests/snapshot.py --write"
    for key in sorted(set(stored) | set(margins)):
        old, new = stored.get(key), margins.get(key)
        if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            for a, b in zip(new, old, strict=True):
                assert snapshot.same_margin(a, b), (file, key, "margin now", a, "stored", b)
        elif isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
            for k in old:
                assert snapshot.same_margin(new[k], old[k]), (file, key, k)
        else:
            assert snapshot.same_margin(new, old), (file, key)
