"""What a drag keeps of the M rules (:mod:`arbitre.rules.mordheim.kept`): a pair's sight,
margins and target facts kept by what they rest on are the very ones measured afresh.

The oracle: seeded random tables (walls with windows, buildings with models inside,
fights, large and elevated models, both ``windows`` options) dragged step by step (a
model moved, the shooter itself now and then, a base resized, a model taken into or out
of a building, a fight started); at every step the targets and the lines of sight are
ruled with what was kept from the steps before, then again with nothing kept: equal,
field for field (margins and words included).
"""

from __future__ import annotations

import dataclasses
import random

import pytest

import arbitre
from arbitre.geometry import Disc, Point
from arbitre.rules import mordheim
from arbitre.rules.mordheim import kept
from arbitre.rules.mordheim import sight as msight
from arbitre.table import Model, Table, Weapon
from arbitre.testing import random_table


def _dressed(seed: int, models: int = 40) -> Table:
    """A random table with bows for everyone, some buildings with a model inside, a fight
    or two, large targets and an elevated shooter."""
    rng = random.Random(seed)
    table = random_table(seed, models=models, terrain=16)
    terrain = tuple(
        dataclasses.replace(t, building=True) if k % 4 == 1 else t
        for k, t in enumerate(table.terrain)
    )
    buildings = [t.id for t in terrain if t.building]
    ids = [m.id for m in table.models]
    fights = {ids[3]: (ids[6],), ids[10]: (ids[13], ids[15])}
    out = []
    for k, m in enumerate(table.models):
        roll = rng.random()
        out.append(
            dataclasses.replace(
                m,
                stats=(("bs", 3 + k % 3),),
                weapons=(Weapon("bow", rng.choice([304.8, 609.6])),),
                large_target=roll < 0.1,
                elevation=80.0 if k == 5 else 0.0,
                inside=rng.choice(buildings) if buildings and roll > 0.9 else None,
                engaged=fights.get(m.id, ()),
            )
        )
    return dataclasses.replace(table, terrain=terrain, models=tuple(out))


def _step(rng: random.Random, table: Table, shooter: str) -> Table:
    """One change a page makes: mostly a model dragged (near the shooter's lines, or the
    shooter itself), sometimes a base resized, a building entered or left, a fight."""
    roll = rng.random()
    m = rng.choice(table.models)
    if roll < 0.15:
        m = table.model(shooter)
    if roll < 0.75:
        to = Point(m.at.x + rng.uniform(-40, 40), m.at.y + rng.uniform(-40, 40))
        return table.moved(m.id, to)
    models = list(table.models)
    i = table.model_index(m.id)
    if roll < 0.85:
        models[i] = dataclasses.replace(m, base=Disc(rng.choice([0.0, 20.0, 25.0, 40.0])))
    elif roll < 0.95:
        buildings = [t.id for t in table.terrain if t.building]
        inside = None if m.inside or not buildings else rng.choice(buildings)
        models[i] = dataclasses.replace(m, inside=inside)
    else:
        other = rng.choice([o for o in table.models if o.id != m.id])
        models[i] = dataclasses.replace(m, engaged=(other.id,))
    return dataclasses.replace(table, models=tuple(models))


def _fresh(table: Table, shooter: str, windows: str) -> object:
    mordheim.rule_targets.cache_clear()
    saved = list(kept._STORES)
    kept.clear()
    try:
        return _targets(table, shooter, windows)
    finally:
        kept._STORES[:] = saved
        mordheim.rule_targets.cache_clear()


def _targets(table: Table, shooter: str, windows: str) -> object:
    return arbitre.ask(
        table, "targets", rules="mordheim", shooter=shooter, options={"windows": windows}
    ).ruling


def _drag(seed: int, steps: int, models: int = 40) -> int:
    """Drag a dressed table ``steps`` times; at each step the kept rulings are the fresh
    ones. Returns how many pairs were kept (not measured again) over the drag."""
    rng = random.Random(seed)
    table = _dressed(seed, models)
    shooter = table.models[0].id
    windows = "open" if seed % 2 == 0 else "closed"
    kept.clear()
    spared = 0
    for _ in range(steps):
        table = _step(rng, table, shooter)
        mordheim.rule_targets.cache_clear()
        before = _measured_pairs[0]
        got = _targets(table, shooter, windows)
        enemies = sum(m.side != table.model(shooter).side for m in table.models)
        spared += enemies - (_measured_pairs[0] - before)
        assert got == _fresh(table, shooter, windows)
        pairs = [(shooter, m.id) for m in table.models[1:8]]
        with_kept = msight.measure(table, pairs, windows)  # type: ignore[arg-type]
        saved = list(kept._STORES)
        kept.clear()
        assert with_kept == msight.measure(table, pairs, windows)  # type: ignore[arg-type]
        kept._STORES[:] = saved
    return spared


_measured_pairs = [0]


@pytest.fixture(autouse=True)
def _count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Count the pairs measured afresh (:func:`msight._measure_batch`)."""
    real = msight._measure_batch

    def counting(table: Table, pairs: object, windows: msight.Windows = "open") -> object:
        _measured_pairs[0] += len(pairs)  # type: ignore[arg-type]
        return real(table, pairs, windows)  # type: ignore[arg-type]

    monkeypatch.setattr(msight, "_measure_batch", counting)


@pytest.mark.parametrize("seed", range(4))
def test_a_drag_kept_is_a_drag_measured_afresh(seed: int) -> None:
    spared = _drag(seed, steps=10)
    assert spared > 0  # the kept path was taken: some pairs were not measured again


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4, 24))
def test_a_drag_kept_is_a_drag_measured_afresh_on_more_tables(seed: int) -> None:
    _drag(seed, steps=14, models=30 + 10 * (seed % 5))


def _far_table() -> Table:
    """A shooter, two targets at right angles, bases ``c`` and ``d`` beyond reach of both
    lines (the nearest beyond the line s-b and s-a) and ``x`` far from everything."""
    models = (
        Model("s", "red", Point(100, 100)),
        Model("a", "blue", Point(400, 100)),
        Model("b", "blue", Point(100, 400)),
        Model("c", "red", Point(200, 400)),
        Model("d", "red", Point(250, 200)),
        Model("x", "red", Point(700, 700)),
    )
    return Table(1000, 1000, models=models)


def test_a_base_far_from_a_pair_leaves_its_key_as_it_was() -> None:
    table = _far_table()
    pairs = [("s", "a"), ("s", "b")]
    keys = kept.pair_keys(table, pairs)
    far = table.moved("x", Point(710, 690))  # still far from both lines' boxes
    assert kept.pair_keys(far, pairs) == keys
    near_a = table.moved("x", Point(250, 100 + 12.5 + kept.reach(table) - 1.0))
    assert kept.pair_keys(near_a, pairs) == [kept.pair_keys(near_a, pairs)[0], keys[1]]
    assert kept.pair_keys(near_a, pairs)[0] != keys[0]  # within reach of the line s-a
    # beyond reach of both, but nearer s-b than c: the margins' lower bound of s-b changes
    nearer = table.moved("x", Point(190, 250))
    assert kept.pair_keys(nearer, pairs) == [keys[0], kept.pair_keys(nearer, pairs)[1]]
    assert kept.pair_keys(nearer, pairs)[1] != keys[1]


def test_a_moved_shooter_or_target_changes_its_key() -> None:
    table = _far_table()
    pairs = [("s", "a"), ("s", "b")]
    keys = kept.pair_keys(table, pairs)
    assert kept.pair_keys(table.moved("a", Point(400, 101)), pairs)[0] != keys[0]
    assert kept.pair_keys(table.moved("s", Point(101, 100)), pairs) != keys


def test_only_the_pairs_a_move_reaches_are_measured_again() -> None:
    table = _far_table()
    kept.clear()
    _measured_pairs[0] = 0
    msight.measure(table, [("s", "a"), ("s", "b")])
    assert _measured_pairs[0] == 2
    msight.measure(table.moved("x", Point(720, 700)), [("s", "a"), ("s", "b")])
    assert _measured_pairs[0] == 2  # x stayed out of reach of both: nothing measured
    msight.measure(table.moved("x", Point(250, 110)), [("s", "a"), ("s", "b")])
    assert _measured_pairs[0] == 3  # x stands on the line s-a: that pair only


def test_contexts_and_entries_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept, "KEPT", 3)
    kept.clear()
    base = _far_table()
    for k in range(kept.CONTEXTS + 2):
        table = dataclasses.replace(base, beam=1.0 + k / 10)
        for step in range(5):
            msight.measure(table.moved("x", Point(100 + 60 * step, 130)), [("s", "a")])
    assert len(kept._STORES) == kept.CONTEXTS
    assert all(len(found) <= 3 for s in kept._STORES for found in s.kinds.values())


def test_a_table_of_other_terrain_or_conventions_is_another_context() -> None:
    table = _far_table()
    kept.clear()
    one = kept.store(table, "open")
    assert kept.store(table.moved("x", Point(1, 1)), "open") is one
    assert kept.store(table, "closed") is not one
    assert kept.store(dataclasses.replace(table, contact_tolerance=0.2), "open") is not one
    renamed = dataclasses.replace(
        table, models=(*table.models[:5], dataclasses.replace(table.models[5], id="y"))
    )
    assert kept.store(renamed, "open") is not one
