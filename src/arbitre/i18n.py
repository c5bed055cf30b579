"""Texts in French and in English: the language chosen, the catalogues, numbers and
lengths worded per language (issue 12).

English is the source language: a message id *is* its English text, with named
``{placeholders}``. French comes from the gettext catalogue
``arbitre/locale/fr/LC_MESSAGES/arbitre.po``, maintained with Babel (``pybabel extract``
then ``pybabel update``, see the README) and compiled in memory at first use, so a fresh
``pip install -e .`` speaks French with no build step.

Rulings stay language-free: what they say is a :class:`Text` (a message id and its
parameters) that :meth:`Text.render` words in a language. Parameters are worded by
kind: a :class:`Length` in the report unit with the language's decimal sign and unit
name ("2,5 po"), a float with the language's decimal sign, a :class:`Word` translated,
a nested :class:`Text` rendered, anything else as ``str``. :func:`T_` and :func:`TN_`
build texts; :func:`N_` marks a bare message id for extraction without translating it.
"""

from __future__ import annotations

import gettext
import io
import os
import string
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from arbitre.errors import ArbitreError

Lang = Literal["en", "fr"]
LANGS: tuple[Lang, ...] = ("en", "fr")
_LOCALES: dict[Lang, str] = {"en": "en_GB", "fr": "fr_FR"}
DOMAIN = "arbitre"


#: The language texts are rendered in where no language is passed (:func:`speaking`).
_CURRENT: ContextVar[Lang] = ContextVar("arbitre_lang", default="en")


def current() -> Lang:
    """The language texts render in now (English unless :func:`speaking` or :func:`use`
    chose another)."""
    return _CURRENT.get()


@contextmanager
def speaking(lang: Lang) -> Iterator[None]:
    """Render every text in ``lang`` within the block (a face: one CLI command, one page
    request)."""
    token = _CURRENT.set(check(lang))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def use(lang: Lang) -> None:
    """Render every text in ``lang`` from now on in this context (the CLI process)."""
    _CURRENT.set(check(lang))


def check(lang: str) -> Lang:
    """``lang`` if it is a language arbitre speaks; else an error naming it."""
    if lang not in LANGS:
        raise ArbitreError(f"language {lang!r}: expected one of en, fr")
    return lang


def N_(msgid: str) -> str:
    """Mark ``msgid`` for extraction (``pybabel extract -k N_``); it is translated later,
    when a :class:`Text` is rendered."""
    return msgid


def choose(
    lang: str | None = None,
    scenario: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Lang:
    """The language to speak: ``lang`` (``--lang``) if given, else the scenario's
    ``lang:`` field, else the environment (the first of ``LC_ALL``, ``LC_MESSAGES``,
    ``LANG`` that is set: French when it starts with ``fr``), else English."""
    for given, where in ((lang, "--lang"), (scenario, "lang")):
        if given is not None:
            if given not in LANGS:
                raise ArbitreError(f"{where}: got {given!r}, expected one of en, fr")
            return given
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "fr" if value.lower().startswith("fr") else "en"
    return "en"


def catalogue_path(lang: Lang) -> Any:
    """The ``.po`` catalogue of ``lang`` inside the package (a Traversable)."""
    from importlib import resources  # read when French is first spoken, not at start

    return resources.files("arbitre") / "locale" / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(lang: Lang) -> gettext.NullTranslations:
    """The translations of ``lang``, its ``.po`` compiled in memory once (English, the
    source language, translates nothing but still follows English plural rules)."""
    if lang == "en":
        return gettext.NullTranslations()
    from babel.messages import mofile, pofile  # only when French is spoken

    with catalogue_path(lang).open("rb") as f:
        catalog = pofile.read_po(f, locale=_LOCALES[lang], domain=DOMAIN)
    buf = io.BytesIO()
    mofile.write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def tr(msgid: str, lang: Lang | None = None) -> str:
    """``msgid`` in ``lang`` (default: :func:`current`; the id itself when the catalogue
    lacks it). English, the source language, is the id itself."""
    lang = lang or current()
    if lang == "en":
        return msgid
    return translations(lang).gettext(msgid)


def trn(singular: str, plural: str, n: int, lang: Lang | None = None) -> str:
    """The singular or plural message for ``n`` by ``lang``'s plural rule (French: 0 and
    1 take the singular)."""
    return translations(lang or current()).ngettext(singular, plural, n)


def number(value: float, lang: Lang | None = None, digits: int = 4) -> str:
    """``value`` to ``digits`` significant digits, in ``lang``'s way ("2.5", "2,5"): the
    English form is Python's ``g`` format, the French one the same with a decimal comma
    (no digit grouping, as the rulings have always printed numbers)."""
    text = f"{float(value):.{digits}g}"
    return text.replace(".", ",") if (lang or current()) == "fr" else text


#: Unit names per language: (singular, plural). Units not listed keep their own name.
UNIT_NAMES: dict[str, dict[Lang, tuple[str, str]]] = {
    "in": {"en": ("in", "in"), "fr": ("po", "po")},
    "mm": {"en": ("mm", "mm"), "fr": ("mm", "mm")},
    "cm": {"en": ("cm", "cm"), "fr": ("cm", "cm")},
    "toise": {"en": ("toise", "toise"), "fr": ("toise", "toises")},  # English: as ever
}


def unit_name(name: str, lang: Lang, value: float = 1.0) -> str:
    """The name of a length unit in ``lang``, plural by the language's rule for
    ``value`` (French: below 2 is singular; English: 1 is)."""
    names = UNIT_NAMES.get(name)
    if names is None:
        return name
    singular, plural = names[lang]
    one = abs(value) < 2 if lang == "fr" else abs(value) == 1
    return singular if one else plural


@dataclass(frozen=True, slots=True)
class Length:
    """A length parameter: ``mm`` worded in the report unit ``unit`` (a name and its
    length in mm), per language."""

    mm: float
    unit: str = "mm"
    unit_mm: float = 1.0

    def render(self, lang: Lang | None = None) -> str:
        lang = lang or current()
        value = self.mm / self.unit_mm
        return f"{number(value, lang)} {unit_name(self.unit, lang, float(f'{value:.4g}'))}"


@dataclass(frozen=True, slots=True)
class Word:
    """A word of the rules' vocabulary, translated when rendered (``Word("cover")`` is
    "couvert" in French)."""

    msgid: str

    def render(self, lang: Lang | None = None) -> str:
        return tr(self.msgid, lang or current())

    def __str__(self) -> str:
        return self.render()


#: The words of the texts worded lately, by ``(id(text), lang)``; each entry holds its
#: text, so that an id is not reused while its words are kept.
_WORDED: dict[tuple[int, str], tuple[Any, str]] = {}
_WORDED_AT_MOST = 20_000


@dataclass(frozen=True, slots=True)
class Text:
    """A message: its id (the English text with ``{named}`` placeholders), its
    parameters, and for a message with a plural form, the plural id and the name of
    the count parameter."""

    msgid: str
    params: tuple[tuple[str, Any], ...] = ()
    plural: str | None = None
    count: str | None = None

    def render(self, lang: Lang | None = None) -> str:
        """The message in ``lang`` (default: :func:`current`), its parameters worded in
        ``lang`` too. The words of this very object are kept (by identity, the object
        held with them, bounded): a reason shared by many rulings, or kept from the last
        ask, and the long chains :func:`join` builds are worded once a language."""
        lang = lang or current()
        kept = _WORDED.get((id(self), lang))
        if kept is not None and kept[0] is self:
            return kept[1]
        words = self._render(lang)
        if len(_WORDED) >= _WORDED_AT_MOST:
            _WORDED.clear()
        _WORDED[(id(self), lang)] = (self, words)
        return words

    def _render(self, lang: Lang) -> str:
        params = self.params
        if self.plural is not None and self.count is not None:
            template = trn(self.msgid, self.plural, int(dict(params)[self.count]), lang)
        else:
            template = tr(self.msgid, lang)
        return template.format_map({k: param(v, lang) for k, v in params})

    def __str__(self) -> str:
        return self.render()

    def __format__(self, spec: str) -> str:
        return format(self.render(), spec)

    def __add__(self, other: object) -> Text:
        """A text followed by another (or by a plain string, used as it is)."""
        return Text("{a}{b}", (("a", self), ("b", other)))

    def __radd__(self, other: object) -> Text:
        return Text("{a}{b}", (("a", other), ("b", self)))


def _(msgid: str) -> str:
    """``msgid`` in the current language, now (a face's fixed words: a column header, a
    legend's label; extracted by Babel's default ``_`` keyword)."""
    return tr(msgid)


def T_(msgid: str, **params: Any) -> Text:
    """A :class:`Text` of ``msgid`` with these parameters (extracted as ``-k T_``)."""
    return Text(msgid, tuple(params.items()))


def TN_(singular: str, plural: str, count: str, **params: Any) -> Text:
    """A :class:`Text` with a plural form chosen by the parameter named ``count``
    (extracted as ``-k TN_:1,2``)."""
    return Text(singular, tuple(params.items()), plural, count)


@dataclass(frozen=True, slots=True)
class At:
    """A point parameter: ``(x, y)`` in mm worded in the report unit ("(2.5, 3)"; French
    "(2,5 ; 3)")."""

    x: float
    y: float
    unit_mm: float = 1.0

    def render(self, lang: Lang | None = None) -> str:
        lang = lang or current()
        x, y = (number(v / self.unit_mm, lang) for v in (self.x, self.y))
        return f"({x} ; {y})" if lang == "fr" else f"({x}, {y})"

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True, slots=True)
class Join:
    """A list parameter: its items worded one by one, joined by ``sep`` (", " by default);
    ``empty`` (a message id) when there are none."""

    items: tuple[Any, ...]
    sep: str = ", "
    empty: str = ""

    def render(self, lang: Lang | None = None) -> str:
        lang = lang or current()
        if not self.items:
            return tr(self.empty, lang) if self.empty else ""
        return self.sep.join(param(i, lang) for i in self.items)

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True, slots=True)
class Num:
    """A number parameter in a given format spec (``Num(0.25, ".0%")`` is "25%"), the
    decimal sign per language ("2.50" / "2,50")."""

    value: float
    spec: str = ".4g"

    def render(self, lang: Lang | None = None) -> str:
        text = format(self.value, self.spec)
        return text.replace(".", ",") if (lang or current()) == "fr" else text

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True, slots=True)
class Count:
    """A whole number as a message parameter, its digits grouped per language
    ("2,000,000"; French "2 000 000")."""

    n: int

    def render(self, lang: Lang | None = None) -> str:
        text = f"{self.n:,}"
        return text.replace(",", "\u00a0") if (lang or current()) == "fr" else text

    def __str__(self) -> str:
        return self.render()


def join(items: Iterable[Any], sep: str = ", ", empty: str = "") -> Join:
    """A :class:`Join` of ``items`` (``empty``: a message id marked with :func:`N_`)."""
    return Join(tuple(items), sep, empty)


#: The message joining two parts of a sentence (French sets a space before ";").
SEMICOLON = N_("{a}; {b}")


@dataclass(frozen=True, slots=True)
class Chain:
    """A list parameter joined link by link with a two-part message: each link is
    ``msgid`` worded with ``a`` the words so far and ``b`` the next item's (the words
    of the texts ``T_(msgid, a=T_(msgid, a=x, b=y), b=z)`` nest, made in one pass)."""

    items: tuple[Any, ...]
    msgid: str = SEMICOLON

    def render(self, lang: Lang | None = None) -> str:
        lang = lang or current()
        if not self.items:
            return ""
        template = tr(self.msgid, lang)
        sep = _between(template)
        if sep is not None:  # "{a}<sep>{b}": the links are the words joined by sep
            return sep.join([param(item, lang) for item in self.items])
        words = param(self.items[0], lang)
        for item in self.items[1:]:
            words = template.format_map({"a": words, "b": param(item, lang)})
        return words

    def __str__(self) -> str:
        return self.render()


@cache
def _between(template: str) -> str | None:
    """The text between ``{a}`` and ``{b}`` when ``template`` is exactly ``{a}``, that
    text, ``{b}`` (no other text, field, conversion or format spec); else None."""
    fields = list(string.Formatter().parse(template))
    if len(fields) != 2:
        return None
    (before, a, a_spec, a_conv), (sep, b, b_spec, b_conv) = fields
    if before or (a, a_spec, a_conv, b, b_spec, b_conv) != ("a", "", None, "b", "", None):
        return None
    return sep


def semicolons(items: Iterable[object], empty: str = "") -> Text:
    """Parts of a sentence joined by semicolons ("a; b", French "a ; b"); ``empty`` (a
    message id marked with ``N_``) when there are none."""
    parts = tuple(items)
    if not parts:
        return Text(empty)
    return Text("{a}", (("a", Chain(parts)),))


def param(value: Any, lang: Lang | None = None) -> str:
    """One parameter worded in ``lang`` (default: :func:`current`)."""
    if type(value) is str:  # an id, the commonest parameter: itself
        return value
    lang = lang or current()
    if isinstance(value, _WORDY):
        return value.render(lang)
    if isinstance(value, float):
        return number(value, lang)
    return str(value)


#: The parameter types worded per language (each has ``render(lang)``).
_WORDY = (Text, Length, Word, At, Join, Num, Count, Chain)


def placeholders(template: str) -> frozenset[str]:
    """The named placeholders of a message (``{shooter}`` -> ``shooter``)."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)
