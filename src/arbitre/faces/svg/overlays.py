"""The overlays each ruleset draws over a shooter's table, found by ruleset name.

Each ruleset's picture module registers one function with :func:`overlay_for`; it asks
the registry what it needs (:func:`arbitre.rules.ask`) and reads the rulings' fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from arbitre.faces.svg.table import Overlay
from arbitre.table import Table

#: ``(table, shooter, options=...) -> overlays`` by ruleset name.
OverlayMaker = Callable[..., list[Overlay]]
_MAKERS: dict[str, OverlayMaker] = {}


def overlay_for(rules: str) -> Callable[[OverlayMaker], OverlayMaker]:
    """Decorator: ``maker`` draws the overlays of ruleset ``rules``."""

    def register(maker: OverlayMaker) -> OverlayMaker:
        _MAKERS[rules] = maker
        return maker

    return register


def overlays(
    table: Table, rules: str, shooter: str, *, options: Mapping[str, Any] | None = None
) -> list[Overlay]:
    """What ruleset ``rules`` draws for ``shooter`` beyond the lines of sight (none when
    it draws nothing of its own)."""
    _load()
    maker = _MAKERS.get(rules)
    return [] if maker is None else maker(table, shooter, options=dict(options or {}))


def _load() -> None:
    """Import the picture modules that register overlays."""
    from arbitre.faces.svg import darkage, mordheim  # noqa: F401
