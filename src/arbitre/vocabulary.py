"""The rules' vocabulary, as the seeds word it (issue 12): the words rulings, tables and
pictures name things with. Each is an English message id marked for the catalogue
(:func:`arbitre.i18n.N_`); the French catalogue gives the seeds' own words ("ligne de
vue", "couvert", "décor petit", "socle", "gabarit de souffle"...).

:data:`SIZES` are the D4 size classes (Petit, Moyen, Large, Énorme in seed 004);
:data:`COUNTS` the counted nouns, worded by :func:`count`.
"""

from __future__ import annotations

from arbitre.i18n import N_, TN_, Lang, Text, Word, tr

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


#: The words of G8 margin test names (``Margin.test``: "beam hedge", "contact a-b",
#: "template edge orc"...). The name stays as it is in JSON (``margin_test``, a label like
#: the ids); :func:`test_words` words it for people.
MARGIN_WORDS: dict[str, str] = {
    "template edge": N_("template edge"),
    "half range": N_("half range"),
    "window view": N_("window view"),
    "window contact": N_("window contact"),
    "beside window": N_("beside window"),
    "beam": N_("beam"),
    "contact": N_("contact"),
    "range": N_("range"),
    "elevation": N_("elevation"),
    "order": N_("order"),
    "closest": N_("closest"),
    "clear line past": N_("clear line past"),
    "clear line": N_("clear line"),
    "closed window": N_("closed window"),
    "window": N_("window"),
}


def test_words(test: str, lang: Lang | None = None) -> str:
    """A margin test's name in ``lang`` (default: the current language): its known words
    translated, the ids between them kept ("beam hedge" -> "faisceau hedge")."""
    words = test.split(" ")
    out: list[str] = []
    k = 0
    while k < len(words):
        for size in (3, 2, 1):  # the longest known phrase first
            phrase = " ".join(words[k : k + size])
            if k + size <= len(words) and phrase in MARGIN_WORDS:
                out.append(tr(MARGIN_WORDS[phrase], lang))
                k += size
                break
        else:
            out.append(words[k])
            k += 1
    return " ".join(out)
