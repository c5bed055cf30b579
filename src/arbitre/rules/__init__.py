"""The registry of rulesets, and :func:`ask`, the one way to put a question to any of them.

Every ruleset module declares a :class:`~arbitre.rules.registry.Ruleset` named
``RULESET``; :data:`RULESETS` holds them by name, :func:`find_ruleset` finds one by name or
alias (case and accents ignored). Faces ask through :func:`ask` and read the registry;
they never import a ruleset module by name.

The registry reads each ruleset's light declaration (:mod:`arbitre.rules.declared`: its
names, options and questions) and imports a ruleset's module only when that ruleset is
read or asked a question: a Frostgrave line of sight never loads the other four.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from arbitre import collector
from arbitre.errors import RulesError, UnknownRulesetError
from arbitre.i18n import N_, T_, join
from arbitre.rules.declared import DECLARED
from arbitre.rules.options import SharedOptions, as_dict, check_names, field_names, read_options
from arbitre.rules.registry import Declared, Question, Ruleset, Rulesets
from arbitre.rules.ruling import Answer, LosRuling, Reason
from arbitre.text import fold

__all__ = [
    "RULESETS",
    "Answer",
    "LosRuling",
    "Question",
    "Reason",
    "Ruleset",
    "ask",
    "find_ruleset",
    "los",
    "ruleset_for",
]

#: Every ruleset by name; a ruleset's module is imported when it is first read.
RULESETS: Mapping[str, Ruleset] = Rulesets(DECLARED)

#: The shared G options' owner name, as error messages and ``validate`` show it.
SHARED = N_("shared (G)")


def _declared(name: str) -> Declared:
    """The declaration of the ruleset of this name or alias (case and accents ignored)."""
    wanted = fold(name)
    if wanted:
        for declared in DECLARED:
            if wanted == fold(declared.name) or wanted in {fold(a) for a in declared.aliases}:
                return declared
    known = ", ".join(sorted(RULESETS))
    raise UnknownRulesetError(
        T_("unknown ruleset {name} (known: {known})", name=repr(name), known=known)
    )


def find_ruleset(name: str) -> Ruleset:
    """The ruleset of this name or alias (case and accents ignored)."""
    return RULESETS[_declared(name).name]


def declared_options() -> dict[str, tuple[str, ...]]:
    """Every option name by owner: the shared G options, then each ruleset's."""
    found = {SHARED: field_names(SharedOptions)}
    found.update({d.name: field_names(d.options) for d in DECLARED})
    return found


def check_options(given: Mapping[str, object]) -> None:
    """Refuse options no registered ruleset declares, and values of the wrong kind."""
    check_names(given, declared_options())
    read_options(SharedOptions, given)
    for declared in DECLARED:
        read_options(declared.options, given)


def ruleset_for(subject: Any, question: str, rules: str | None = None) -> Ruleset:
    """The ruleset that answers ``question`` about ``subject``: the one named by
    ``rules``; else the subject's own (its ``rules``) when it answers it; else the one
    registered ruleset that does."""
    if rules is not None:
        named = _declared(rules)
        if question not in named.questions:
            raise RulesError(
                T_(
                    "ruleset {name} does not answer {question} (it answers: {known})",
                    name=named.name,
                    question=repr(question),
                    known=", ".join(named.questions),
                )
            )
        return RULESETS[named.name]
    own = getattr(subject, "rules", None)
    if own:
        named = _declared(own)
        if question in named.questions:
            return RULESETS[named.name]
    answering = [d.name for d in DECLARED if question in d.questions]
    if len(answering) == 1:
        return RULESETS[answering[0]]
    if not answering:
        known = sorted({q for d in DECLARED for q in d.questions})
        raise RulesError(
            T_(
                "unknown question {question} (questions: {known})",
                question=repr(question),
                known=", ".join(known),
            )
        )
    names = ", ".join(answering)
    raise RulesError(
        T_(
            "{question} is asked of a ruleset: name one of {names} (--rules)",
            question=repr(question),
            names=names,
        )
    )


def _request(question: Question, given: Mapping[str, Any]) -> Any:
    fields = field_names(question.request)
    unknown = sorted(set(given) - set(fields))
    if unknown:
        raise RulesError(
            T_(
                "{question}: unknown request field {field} (fields: {known})",
                question=question.name,
                field=repr(unknown[0]),
                known=join(fields, empty=N_("none")),
            )
        )
    try:
        return question.request(**given)
    except TypeError as exc:
        raise RulesError(f"{question.name}: {exc}") from None


def ask(
    subject: Any,
    question: str,
    *,
    rules: str | None = None,
    options: Mapping[str, object] | None = None,
    **request: Any,
) -> Answer:
    """Ask ``question`` of ``subject`` (a :class:`~arbitre.table.Table`, a
    :class:`~arbitre.places.PlaceMap`, or ``None`` for a question about nothing, as a
    roll-off), under ``rules`` (default: the subject's, or the one ruleset answering it),
    with ``options`` over the subject's. The other keywords are the question's request
    fields (``ask(table, "targets", shooter="captain")``).

    Options of every registered ruleset are accepted; an unknown name, a bad value, an
    unknown question or request field is a :class:`RulesError`.
    """
    ruleset = ruleset_for(subject, question, rules)
    asked = ruleset.questions[question]
    merged = dict(getattr(subject, "options", ()) or ())
    merged.update(options or {})
    check_options(merged)
    if subject is not None and options:
        subject = dataclasses.replace(subject, options=tuple(sorted(merged.items())))
    opts = read_options(ruleset.options, merged)
    in_force = as_dict(read_options(SharedOptions, merged)) if ruleset.geometric else {}
    in_force.update(as_dict(opts))
    with collector.paused():  # many objects, no cycles: the collector's passes wasted
        rulings = asked.run(subject, _request(asked, request), options=opts)
    unit = getattr(subject, "unit", None) if asked.subject == "table" else None
    return Answer(
        kind=question,
        rules=ruleset.name,
        unit=unit,
        options=in_force,
        rulings=tuple(rulings),
    )


def los(table: Any, shooter: str, target: str, *, rules: str | None = None) -> LosRuling:
    """Whether ``shooter`` sees ``target`` under ``rules`` (default: the table's), and why."""
    ruling: LosRuling = ask(
        table, "los", rules=rules or table.rules or "frostgrave", shooter=shooter, target=target
    ).ruling
    return ruling
