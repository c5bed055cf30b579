"""Text helpers shared by the loaders and the rulesets: one accent and case folding."""

from __future__ import annotations

import unicodedata


def fold(name: str) -> str:
    """A name for lookups: lower case, no accents, runs of other characters one space
    (``"Tour  abandonnée"``, ``"tour-abandonnee"`` and ``"TOUR_ABANDONNÉE"`` fold alike)."""
    text = unicodedata.normalize("NFKD", name.strip().lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join("".join(c if c.isalnum() else " " for c in text).split())
