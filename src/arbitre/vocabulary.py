"""The rules' vocabulary, as the seeds word it (issue 12): the words rulings, tables and
pictures name things with. Each is an English message id marked for the catalogue
(:func:`arbitre.i18n.N_`); the French catalogue gives the seeds' own words ("ligne de
vue", "couvert", "décor petit", "socle", "gabarit de souffle"...).

:data:`SIZES` are the D4 size classes (Petit, Moyen, Large, Énorme in seed 004);
:data:`COUNTS` the counted nouns, worded by :func:`count`.
"""

from __future__ import annotations

from arbitre.i18n import N_, TN_, Lang, Text, Word

#: The seeds' terms, by a short key.
TERMS: dict[str, str] = {
    "los": N_("line of sight"),
    "cover": N_("cover"),
    "small_terrain": N_("small terrain"),
    "large_terrain": N_("large terrain"),
    "base": N_("base"),
    "window": N_("window"),
    "wall": N_("wall"),
    "template": N_("breath template"),
    "enveloping": N_("enveloping"),
    "impacting": N_("impacting"),
    "difficulty": N_("difficulty"),
    "power": N_("power"),
    "protection": N_("protection"),
    "exhaustion": N_("exhaustion"),
    "encumbrance": N_("encumbrance"),
    "obstruction": N_("obstruction"),
    "junction": N_("junction"),
    "action_points": N_("action points"),
    "size": N_("size"),
    "visible": N_("visible"),
    "blocked": N_("blocked"),
    "shooter": N_("shooter"),
    "target": N_("target"),
    "range": N_("range"),
    "long_range": N_("long range"),
    "close_call": N_("close call"),
}

#: The D4 size classes, smallest first.
SIZES: dict[str, str] = {
    "small": N_("Small"),
    "medium": N_("Medium"),
    "large": N_("Large"),
    "huge": N_("Huge"),
}


#: Counted nouns, plural by the language's rule (French: 0 and 1 take the singular).
COUNTS: dict[str, Text] = {
    "hits": TN_("{n} hit", "{n} hits", "n"),
    "dice": TN_("{n} die", "{n} dice", "n"),
    "points": TN_("{n} movement point", "{n} movement points", "n"),
    "action_points": TN_("{n} action point", "{n} action points", "n"),
    "exhaustion": TN_("{n} exhaustion point", "{n} exhaustion points", "n"),
}


def count(key: str, n: int, lang: Lang) -> str:
    """``n`` of the counted noun ``key`` of :data:`COUNTS` in ``lang`` ("0 touche")."""
    c = COUNTS[key]
    return Text(c.msgid, (("n", n),), c.plural, c.count).render(lang)


def term(key: str, lang: Lang) -> str:
    """The term ``key`` of :data:`TERMS` (or a size of :data:`SIZES`) in ``lang``."""
    msgid = TERMS.get(key) or SIZES[key]
    return Word(msgid).render(lang)
