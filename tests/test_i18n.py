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
