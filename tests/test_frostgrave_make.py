"""Values made without their ``__init__`` (:mod:`arbitre.rules.frostgrave_make`, issue
16) equal the values their class makes, field for field, and a class they cannot make
faithfully is refused."""

from __future__ import annotations

import dataclasses

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
