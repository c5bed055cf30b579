"""Values made without their ``__init__`` (:mod:`arbitre.rules.frostgrave_make`, issue
16) equal the values their class makes, field for field, and a class they cannot make
faithfully is refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from arbitre.i18n import Join, Length, Text
from arbitre.rules import frostgrave_make as mk
from arbitre.rules.ruling import LosRuling, Margin, Reason


def test_made_values_equal_their_class_made_ones() -> None:
    text = mk.make_text("{a} sees {b}", (("a", "m1"), ("b", "m2")), None, None)
    assert text == Text("{a} sees {b}", (("a", "m1"), ("b", "m2")))
    assert str(text) == "m1 sees m2"
    reason = mk.make_reason("F1", ("m1", "m2"), text)
    assert reason == Reason("F1", ("m1", "m2"), text)
    assert mk.make_join(("x", "y"), ", ", "") == Join(("x", "y"))
    assert mk.make_length(2.5, "in", 25.4) == Length(2.5, "in", 25.4)
    margin = mk.make_margin(1.5, "beam h1", False)
    assert margin == Margin(1.5, "beam h1", False)
    made = mk.make_ruling(
        "m1", "m2", True, 1, (reason,), 0.5, (), ("h1",), None, (), "F3 h1", margin
    )
    want = LosRuling(
        shooter="m1", target="m2", visible=True, cover=1, reasons=(reason,),
        visible_fraction=0.5, cover_pieces=("h1",), because="F3 h1", margin=margin,
    )  # fmt: skip
    assert made == want
    assert made.to_json() == want.to_json()
    for f in dataclasses.fields(LosRuling):
        assert getattr(made, f.name) == getattr(want, f.name)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.cover = 2  # type: ignore[misc]


def test_a_class_it_cannot_make_faithfully_is_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        x: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            assert self.x > 0

    for cls in (Unslotted, Checked, int):
        with pytest.raises(TypeError):
            mk.maker(cls)


def test_a_field_named_like_the_makers_own_locals_is_made_right() -> None:
    """A field named ``x``, ``new``, ``cls`` or ``set_x`` does not shadow what the maker
    itself uses (``i18n.At`` has a field ``x``)."""

    @dataclasses.dataclass(frozen=True, slots=True)
    class Clash:
        x: float
        new: str
        cls: int
        set_x: tuple[int, ...]

    made = mk.maker(Clash)(1.5, "n", 3, (4,))
    assert made == Clash(1.5, "n", 3, (4,))
    assert made.x == 1.5 and made.set_x == (4,)


def test_a_replacer_makes_what_dataclasses_replace_makes() -> None:
    """The Mordheim answers' replacers on real values (every target of the example, its
    sights), then a class it cannot make and fields it does not have are refused."""
    from arbitre import ask
    from arbitre.rules.mordheim import sight
    from arbitre.rules.mordheim.margins import Slack
    from arbitre.rules.mordheim.target import _done
    from arbitre.rules.mordheim.values import TargetRuling
    from arbitre.scenario import load

    table = load(Path(__file__).resolve().parents[1] / "examples" / "mordheim-merchant-square.yaml")
    ruling = ask(table, "targets", shooter="captain").ruling
    assert ruling.targets
    for t in ruling.targets:
        changed = (
            not t.legal,
            not t.closest,
            t.reasons[::-1],
            t.refusals,
            (),
            Margin(2.0, "x", False),
        )
        made = _done(t, *changed)
        want = dataclasses.replace(
            t, legal=changed[0], closest=changed[1], reasons=changed[2], refusals=changed[3],
            deciding=changed[4], margin=changed[5],
        )  # fmt: skip
        assert type(made) is TargetRuling
        assert made == want
        assert all(getattr(made, f.name) is getattr(want, f.name) for f in dataclasses.fields(want))
    for f in sight.measure(table, [("captain", t.target) for t in ruling.targets]):
        by, cover_by = Slack(1.0, "beam a"), Slack(2.0, "beam b")
        assert sight._with_margins(f, by, cover_by) == dataclasses.replace(
            f, seen_margin=by, cover_margin=cover_by
        )
    with pytest.raises(TypeError):
        mk.replacer(TargetRuling, ("legal", "nothing"))
    with pytest.raises(TypeError):
        mk.replacer(TargetRuling, ("legal", "legal"))

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            pass

    with pytest.raises(TypeError):
        mk.replacer(Checked, ("x",))
