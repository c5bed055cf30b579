"""Rulings do not change by accident: every line of sight of every table of
``examples/`` and ``tests/golden/`` (places maps aside) under Frostgrave, Dark Age and
Mordheim, and every Mordheim shooter's targets, as stored in
``data/rulings-snapshot.json.gz``.

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


@pytest.mark.parametrize("file", snapshot.files())
def test_rulings_are_as_stored(file: str) -> None:
    was = snapshot.stored().get(file)
    now = snapshot.rulings_of(file)
    assert was is not None, f"{file} is not in the snapshot: python tests/snapshot.py --write"
    for key in sorted(set(was) | set(now)):
        old, new = was.get(key), now.get(key)
        if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            for a, b in zip(new, old, strict=True):
                assert a == b, (file, key)
        else:
            assert new == old, (file, key)
