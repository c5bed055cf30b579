"""The language machinery (issue 12): choosing the language, the French catalogue kept in
step with the source, plural rules, numbers and units per language."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages import pofile
from babel.messages.extract import extract_from_dir

from arbitre import i18n
from arbitre.errors import ArbitreError
from arbitre.vocabulary import COUNTS, SIZES, TERMS, count, term

ROOT = Path(__file__).resolve().parents[1]
#: The keywords of babel.cfg's extract command.
KEYWORDS = {"_": None, "N_": None, "T_": None, "TN_": (1, 2), "Word": None}


def source_ids() -> set[str | tuple[str, str]]:
    """Every message id the source marks, as ``pybabel extract -F babel.cfg`` finds them."""
    found: set[str | tuple[str, str]] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT / "src" / "arbitre"), method_map=[("**.py", "python")], keywords=KEYWORDS
    ):
        found.add(message if isinstance(message, str) else (message[0], message[1]))
    return found


def french() -> dict[str | tuple[str, str], str | tuple[str, ...]]:
    with i18n.catalogue_path("fr").open("rb") as f:
        cat = pofile.read_po(f)
    found: dict[str | tuple[str, str], str | tuple[str, ...]] = {}
    for m in cat:
        if m.id:
            key = m.id if isinstance(m.id, str) else (m.id[0], m.id[1])
            found[key] = m.string if isinstance(m.string, str) else tuple(m.string or ())
    return found


def test_every_message_of_the_source_has_a_french_text_with_the_same_placeholders() -> None:
    ids = source_ids()
    fr = french()
    assert ids, "nothing extracted: the keywords do not match the source"
    missing = sorted(str(i) for i in ids - set(fr))
    assert not missing, f"run pybabel extract + update (README, Languages): {missing}"
    for msgid in ids:
        english = [msgid] if isinstance(msgid, str) else list(msgid)
        translated = fr[msgid]
        forms = [translated] if isinstance(translated, str) else list(translated)
        assert all(forms), f"no French text for {msgid!r}"
        wanted = set().union(*(i18n.placeholders(e) for e in english))
        for form in forms:
            assert i18n.placeholders(form) == wanted, (msgid, form)


def test_the_catalogue_holds_no_message_the_source_dropped() -> None:
    assert set(french()) <= source_ids()


def test_the_catalogue_needs_no_build_step() -> None:
    assert not list((ROOT / "src" / "arbitre" / "locale").rglob("*.mo"))
    assert i18n.translations("fr").gettext("line of sight") == "ligne de vue"


@pytest.mark.parametrize(
    ("n", "fr", "en"),
    [(0, "0 touche", "0 hits"), (1, "1 touche", "1 hit"), (2, "2 touches", "2 hits")],
)
def test_plurals_follow_each_language(n: int, fr: str, en: str) -> None:
    assert count("hits", n, "fr") == fr
    assert count("hits", n, "en") == en


def test_the_seeds_vocabulary() -> None:
    assert [term(k, "fr") for k in ("los", "cover", "base", "window", "template")] == [
        "ligne de vue",
        "couvert",
        "socle",
        "fenêtre",
        "gabarit de souffle",
    ]
    assert [term(k, "fr") for k in SIZES] == ["Petit", "Moyen", "Large", "Énorme"]
    assert [term(k, "en") for k in SIZES] == ["Small", "Medium", "Large", "Huge"]
    assert all(term(k, "en") == TERMS[k] for k in TERMS)
    assert {"hits", "dice"} <= set(COUNTS)


def test_numbers_and_lengths_per_language() -> None:
    half_inch_more = i18n.Length(63.5, "in", 25.4)
    assert half_inch_more.render("fr") == "2,5 po"
    assert half_inch_more.render("en") == "2.5 in"
    assert i18n.Length(50.0, "toise", 25.0).render("fr") == "2 toises"
    assert i18n.Length(25.0, "toise", 25.0).render("en") == "1 toise"
    assert i18n.Length(37.5, "toise", 25.0).render("fr") == "1,5 toise"  # below 2: singular
    assert i18n.number(0.3, "fr") == "0,3"
    assert i18n.number(1 / 3, "en") == "0.3333"


def test_a_text_words_its_parameters_in_the_language() -> None:
    t = i18n.T_("{piece} gives {cover}", piece="hedge-1", cover=i18n.Word("cover"))
    assert t.render("en") == "hedge-1 gives cover"
    assert t.render("fr") == "hedge-1 gives couvert"  # the id has no French yet: English kept
    assert str(t) == "hedge-1 gives cover"
    assert i18n.placeholders("{a} and {b}") == {"a", "b"}


@pytest.mark.parametrize(
    ("lang", "scenario", "env", "chosen"),
    [
        ("fr", "en", {"LANG": "en_GB.UTF-8"}, "fr"),
        (None, "fr", {"LANG": "en_GB.UTF-8"}, "fr"),
        (None, None, {"LANG": "fr_FR.UTF-8"}, "fr"),
        (None, None, {"LC_ALL": "en_US.UTF-8", "LANG": "fr_FR.UTF-8"}, "en"),
        (None, None, {"LC_MESSAGES": "fr_BE", "LANG": "en_GB"}, "fr"),
        (None, None, {}, "en"),
        (None, None, {"LANG": "de_DE.UTF-8"}, "en"),
    ],
)
def test_the_language_is_chosen_by_flag_then_file_then_environment(
    lang: str | None, scenario: str | None, env: dict[str, str], chosen: str
) -> None:
    assert i18n.choose(lang, scenario, env) == chosen


def test_an_unknown_language_is_refused_by_name() -> None:
    with pytest.raises(ArbitreError, match=r"--lang: got 'de'"):
        i18n.choose("de", None, {})
    with pytest.raises(ArbitreError, match=r"lang: got 'es'"):
        i18n.choose(None, "es", {})


def test_a_text_worded_again_gives_the_same_words_in_each_language() -> None:
    """Texts keep their words by identity and language: the same object worded again in
    English and French gives each language's words, equal to a fresh copy's; a text made
    anew with the same id slot after the first is gone is worded afresh."""
    names = [f"m{k}" for k in range(30)]
    made = i18n.T_(
        "of {b}'s size ({size}) or larger, these close the window: {names}",
        b="x",
        size=2.5,
        names=i18n.join(names),
    )
    for lang in ("en", "fr", "en", "fr"):
        fresh = i18n.Text(made.msgid, made.params, made.plural, made.count)
        assert made.render(lang) == fresh._render(lang)
    assert made.render("en") != made.render("fr")
    held = len(i18n._WORDED)
    for k in range(2 * i18n._WORDED_AT_MOST // 3):
        assert i18n.Text("{a}", (("a", k),)).render("en") == str(k)
    assert len(i18n._WORDED) <= i18n._WORDED_AT_MOST and held > 0


def _plain(value: object, lang: i18n.Lang) -> str:
    """The wording of a parameter as the first version of i18n did it: the oracle of the
    faster :func:`i18n.param` and :meth:`i18n.Text._render`."""
    if isinstance(value, i18n.Text):
        values = dict(value.params)
        if value.plural is not None and value.count is not None:
            template = i18n.translations(lang).ngettext(
                value.msgid, value.plural, int(values[value.count])
            )
        else:
            template = i18n.translations(lang).gettext(value.msgid)
        return template.format(**{k: _plain(v, lang) for k, v in values.items()})
    if isinstance(value, i18n.Chain):  # as the nested texts semicolons first built
        if not value.items:
            return ""
        nested: object = i18n.Text("{a}", (("a", value.items[0]),))
        for item in value.items[1:]:
            nested = i18n.Text(value.msgid, (("a", nested), ("b", item)))
        return _plain(nested, lang)
    if isinstance(value, i18n.Join):
        if not value.items:
            return i18n.translations(lang).gettext(value.empty) if value.empty else ""
        return value.sep.join(_plain(v, lang) for v in value.items)
    if isinstance(value, (i18n.Length, i18n.Word, i18n.At, i18n.Num, i18n.Count)):
        return value.render(lang)
    if isinstance(value, float):
        return i18n.number(value, lang)
    return str(value)


class Shout(str):
    """A str subclass with words of its own: worded by its ``__str__``."""

    def __str__(self) -> str:
        return self.upper()


def test_texts_are_worded_as_the_plain_wording_does() -> None:
    """Random nests of texts, joins, semicolons, plurals and every parameter kind, in both
    languages: the words equal the plain recursive wording's (the fast paths: English
    ids as themselves, str parameters as they are, format_map)."""
    import random

    rng = random.Random(12)
    ids = [m for m in french() if isinstance(m, str) and "{" in m and "{}" not in m][:200]
    plurals = [m for m in french() if isinstance(m, tuple)][:50]

    def leaf() -> object:
        return rng.choice(
            [
                f"id{rng.randint(0, 99)}",
                Shout("loud"),
                rng.uniform(-100, 100),
                rng.randint(-5, 5),
                i18n.Length(rng.uniform(0, 80), "in", 25.4),
                i18n.Word("cover"),
                i18n.At(rng.uniform(0, 99), rng.uniform(0, 99)),
                i18n.Num(rng.random(), ".0%"),
                i18n.Count(rng.randint(0, 10**7)),
            ]
        )

    def text(depth: int) -> object:
        if depth == 0 or rng.random() < 0.3:
            return leaf()
        kind = rng.random()
        if kind < 0.2:
            return i18n.join([text(depth - 1) for _ in range(rng.randint(0, 4))])
        if kind < 0.35:
            return i18n.semicolons([text(depth - 1) for _ in range(rng.randint(0, 5))])
        if kind < 0.4:  # chains joined by a separator, and by templates folded link by link
            links = rng.choice(["{a}; {b}", "{a} and {b}", "<{a}|{b}>", "{a}{b}", "{b}, {a}"])
            return i18n.Chain(tuple(text(depth - 1) for _ in range(rng.randint(0, 5))), links)
        if kind < 0.5 and plurals:
            one, many = rng.choice(plurals)
            names = sorted(i18n.placeholders(one) | i18n.placeholders(many))
            count = "n" if "n" in names else names[0] if names else "n"
            params = {k: text(depth - 1) for k in names}
            params[count] = rng.randint(0, 3)
            return i18n.TN_(one, many, count, **params)
        msgid = rng.choice(ids)
        return i18n.T_(msgid, **{k: text(depth - 1) for k in i18n.placeholders(msgid)})

    for _ in range(400):
        made = text(4)
        for lang in i18n.LANGS:
            assert i18n.param(made, lang) == _plain(made, lang)
