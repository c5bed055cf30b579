"""Reading a file of either kind: a table scenario or a map of places (seed 003), parsed
once and told apart by its content."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from arbitre import reading, scenario
from arbitre.reading import is_places_document

if TYPE_CHECKING:  # a map of places is imported when one is read, not for a table
    from arbitre.places import PlaceMap
    from arbitre.table import Table


def load(
    path_or_text: str | os.PathLike[str],
    *,
    source: str | None = None,
    max_bytes: int = reading.MAX_BYTES,
) -> Table | PlaceMap:
    """The table or the places map of a scenario file (or text, as
    :func:`arbitre.scenario.load` takes it), at most ``max_bytes`` long;
    :class:`~arbitre.errors.ScenarioError` listing every problem when it is bad."""
    doc, source = scenario.read_document(path_or_text, source=source, max_bytes=max_bytes)
    if is_places_document(doc):
        from arbitre.places import places_from_dict

        return places_from_dict(doc, source=source)
    return scenario.from_dict(doc, source=source)
