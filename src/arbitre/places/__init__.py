"""A map of places instead of a gridded battlemap (P1-P6, seed 003): values and loading.

A :class:`PlaceMap` is a set of places (tiles or cards) joined where they are side by side
(P1), with junctions on some of those ways (P4) and units standing on places. A place has
an encumbrance (default 3, never below 1) and a cover (default 0, never below 0), an
optional parent element it inherits every unstated characteristic from, and effects
granted on arrival (P2, P6). The seed's places and junction kinds are shipped as data
(``data/places.yaml``, :mod:`arbitre.places.catalogue`) and found by French name, accents
optional, or English alias.

Places scenarios (SCENARIO.md, "A places scenario") load with :func:`load_places` or
:func:`loads_places` (:mod:`arbitre.places.loader`); a bad file raises one
:class:`~arbitre.errors.ScenarioError` listing every problem with its path. Additions to
SCENARIO.md: a place may state ``name``, ``parent`` (a place id of the map or a catalogue
type), ``effects`` (the structured form of data/places.yaml) and ``at: [x, y]`` (its
position when drawn); a unit may state ``name``; the third item of an adjacency may state
junction ``id`` and several kinds (``junction: [Porte, Brume]``); ``name``,
``rules: places``, ``options``, and the golden-test keys ``cites`` and ``expect``
(ignored) are accepted at the top.

Bounds (issue: hostile files): at most :data:`MAX_PLACES` places, :data:`MAX_ADJACENT`
adjacencies, :data:`MAX_UNITS` units and :data:`MAX_MOVEMENT` movement points; ids and
texts hold no control characters. Parent chains are resolved in linear time and shared
(:mod:`arbitre.places.chains`, :class:`~arbitre.places.graph.Lineage`): a chain of 5,000
places loads in a fraction of a second and a loop of parents is one problem naming it.

This is core: it knows the data and the graph, never a ruling (those are in
:mod:`arbitre.rules.places`).
"""

from __future__ import annotations

from arbitre.places.catalogue import (
    Catalogue,
    Effect,
    JunctionKind,
    Named,
    PlaceType,
    catalogue,
    find_junction_kind,
    find_place_type,
    stat_label,
    stat_name,
)
from arbitre.places.graph import Junction, Lineage, Place, PlaceMap, Unit
from arbitre.places.loader import (
    MAX_ADJACENT,
    MAX_MOVEMENT,
    MAX_PLACES,
    MAX_UNITS,
    is_places_document,
    load_places,
    loads_places,
    places_from_dict,
)

__all__ = [
    "MAX_ADJACENT",
    "MAX_MOVEMENT",
    "MAX_PLACES",
    "MAX_UNITS",
    "Catalogue",
    "Effect",
    "Junction",
    "JunctionKind",
    "Lineage",
    "Named",
    "Place",
    "PlaceMap",
    "PlaceType",
    "Unit",
    "catalogue",
    "find_junction_kind",
    "find_place_type",
    "is_places_document",
    "load_places",
    "loads_places",
    "places_from_dict",
    "stat_label",
    "stat_name",
]
