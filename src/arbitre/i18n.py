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
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from babel.messages import mofile, pofile
from babel.numbers import format_decimal

from arbitre.errors import ArbitreError

Lang = Literal["en", "fr"]
LANGS: tuple[Lang, ...] = ("en", "fr")
_LOCALES: dict[Lang, str] = {"en": "en_GB", "fr": "fr_FR"}
DOMAIN = "arbitre"


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
    return resources.files("arbitre") / "locale" / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(lang: Lang) -> gettext.NullTranslations:
    """The translations of ``lang``, its ``.po`` compiled in memory once (English, the
    source language, translates nothing but still follows English plural rules)."""
    if lang == "en":
        return gettext.NullTranslations()
    with catalogue_path(lang).open("rb") as f:
        catalog = pofile.read_po(f, locale=_LOCALES[lang], domain=DOMAIN)
    buf = io.BytesIO()
    mofile.write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def tr(msgid: str, lang: Lang) -> str:
    """``msgid`` in ``lang`` (the id itself when the catalogue lacks it)."""
    return translations(lang).gettext(msgid)


def trn(singular: str, plural: str, n: int, lang: Lang) -> str:
    """The singular or plural message for ``n`` by ``lang``'s plural rule (French: 0 and
    1 take the singular)."""
    return translations(lang).ngettext(singular, plural, n)


def number(value: float, lang: Lang, digits: int = 4) -> str:
    """``value`` to ``digits`` significant digits, in ``lang``'s way ("2.5", "2,5")."""
    rounded = float(f"{value:.{digits}g}")
    text = format_decimal(rounded, format="#,##0.##########", locale=_LOCALES[lang])
    return str(text)


#: Unit names per language: (singular, plural). Units not listed keep their own name.
UNIT_NAMES: dict[str, dict[Lang, tuple[str, str]]] = {
    "in": {"en": ("in", "in"), "fr": ("po", "po")},
    "mm": {"en": ("mm", "mm"), "fr": ("mm", "mm")},
    "cm": {"en": ("cm", "cm"), "fr": ("cm", "cm")},
    "toise": {"en": ("toise", "toises"), "fr": ("toise", "toises")},
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

    def render(self, lang: Lang) -> str:
        value = self.mm / self.unit_mm
        return f"{number(value, lang)} {unit_name(self.unit, lang, float(f'{value:.4g}'))}"


@dataclass(frozen=True, slots=True)
class Word:
    """A word of the rules' vocabulary, translated when rendered (``Word("cover")`` is
    "couvert" in French)."""

    msgid: str

    def render(self, lang: Lang) -> str:
        return tr(self.msgid, lang)


@dataclass(frozen=True, slots=True)
class Text:
    """A message: its id (the English text with ``{named}`` placeholders), its
    parameters, and for a message with a plural form, the plural id and the name of
    the count parameter."""

    msgid: str
    params: tuple[tuple[str, Any], ...] = ()
    plural: str | None = None
    count: str | None = None

    def render(self, lang: Lang = "en") -> str:
        """The message in ``lang``, its parameters worded in ``lang`` too."""
        values = dict(self.params)
        if self.plural is not None and self.count is not None:
            template = trn(self.msgid, self.plural, int(values[self.count]), lang)
        else:
            template = tr(self.msgid, lang)
        return template.format(**{k: param(v, lang) for k, v in values.items()})

    def __str__(self) -> str:
        return self.render("en")


def T_(msgid: str, **params: Any) -> Text:
    """A :class:`Text` of ``msgid`` with these parameters (extracted as ``-k T_``)."""
    return Text(msgid, tuple(params.items()))


def TN_(singular: str, plural: str, count: str, **params: Any) -> Text:
    """A :class:`Text` with a plural form chosen by the parameter named ``count``
    (extracted as ``-k TN_:1,2``)."""
    return Text(singular, tuple(params.items()), plural, count)


def param(value: Any, lang: Lang) -> str:
    """One parameter worded in ``lang``."""
    if isinstance(value, (Length, Word, Text)):
        return value.render(lang)
    if isinstance(value, float):
        return number(value, lang)
    return str(value)


def placeholders(template: str) -> frozenset[str]:
    """The named placeholders of a message (``{shooter}`` -> ``shooter``)."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)
