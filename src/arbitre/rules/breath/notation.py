"""The B4 notation of breath weapons, in French (the seed's) or in English.

``Souffle englobant (acide • puissance 5/2)`` reads: nature *englobant* (enveloping, B5;
*percutant* is impacting, B6), damage type *acide*, Difficulty 5 (a die hits on 5+), Power
2 (each hit deals 2). The values X/Y may be replaced by a state (``Souffle englobant (gaz
• étourdi)``, or ``... • puissance étourdi``): every victim gets it and nothing is rolled.
The English form is ``Enveloping breath (acid • power 5/2)`` / ``Impacting breath (...)``.

Keywords are read whatever their case and accents; the separator may be ``•``, ``·``,
``|`` or ``;``. A notation that cannot be read is a :class:`RulesError` saying which part
is wrong and showing a correct example.

:func:`breath_weapon` finds a model's breath weapon (by name, or a notation given
directly); :func:`weapon_problems` lists the notations of a table that cannot be read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, NoReturn

from arbitre.dice import MAX_CHAIN_DICE
from arbitre.errors import RulesError
from arbitre.i18n import N_, T_, TN_, Num, Text, Word, join
from arbitre.table import Table
from arbitre.text import fold

Nature = Literal["enveloping", "impacting"]

#: Nature keywords, folded (lower case, no accents), French then English.
NATURES: dict[str, Nature] = {
    "englobant": "enveloping",
    "percutant": "impacting",
    "enveloping": "enveloping",
    "impacting": "impacting",
}
#: The vocabulary word of each nature (B4).
NATURE_WORDS: dict[Nature, str] = {"enveloping": N_("enveloping"), "impacting": N_("impacting")}
EXAMPLES = N_(
    "'Souffle englobant (acide • puissance 5/2)' or 'Enveloping breath (acid • power 5/2)'"
)

_SEPARATORS = "•·∙|;"
_FRENCH = re.compile(
    r"^\s*souffle\s+(?P<nature>[^\s(]+)\s*(?P<rest>.*)$", re.IGNORECASE | re.DOTALL
)
_ENGLISH = re.compile(r"^\s*(?P<nature>\S+)\s+breath\s*(?P<rest>.*)$", re.IGNORECASE | re.DOTALL)
_VALUES = re.compile(
    r"^(?:(?:puissance|power)\s*)?(?P<x>[+-]?\d+)\s*/\s*(?P<y>[+-]?\d+)$", re.IGNORECASE
)
_KEYWORD = re.compile(r"^(?:puissance|power)\b\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class BreathNotation:
    """A parsed B4 notation: nature, damage type, and either Difficulty/Power or a state."""

    nature: Nature
    damage_type: str
    difficulty: int | None = None
    power: int | None = None
    state: str | None = None
    text: str = ""

    @property
    def rolls(self) -> bool:
        """False for a state breath (B4): nothing is rolled, every victim gets the state."""
        return self.state is None

    def french(self) -> str:
        """The notation as the seed writes it."""
        nature = "englobant" if self.nature == "enveloping" else "percutant"
        return f"Souffle {nature} ({self.damage_type} • {self._effect('puissance')})"

    def english(self) -> str:
        """The English equivalent."""
        nature = "Enveloping" if self.nature == "enveloping" else "Impacting"
        return f"{nature} breath ({self.damage_type} • {self._effect('power')})"

    def _effect(self, word: str) -> str:
        return self.state if self.state is not None else f"{word} {self.difficulty}/{self.power}"

    def describe(self) -> Text:
        """One line for reports: what the breath does."""
        rule = "B5" if self.nature == "enveloping" else "B6"
        nature = Word(NATURE_WORDS[self.nature])
        if self.state is not None:
            return T_(
                "{nature} ({rule}), {damage}: every victim is {state} (B4)",
                nature=nature,
                rule=rule,
                damage=self.damage_type,
                state=self.state,
            )
        return T_(
            "{nature} ({rule}), {damage}: each die showing {difficulty}+ hits for {power}",
            nature=nature,
            rule=rule,
            damage=self.damage_type,
            difficulty=self.difficulty,
            power=self.power,
        )


def parse(text: object, *, where: str | Text = "") -> BreathNotation:
    """Read a B4 notation; ``where`` (e.g. ``weapon 'Acid' of dragon``) heads any error."""
    if not isinstance(text, str) or not text.strip():
        _fail(where, text, T_("it is empty"))
    match = _FRENCH.match(text) or _ENGLISH.match(text)
    if match is None:
        _fail(where, text, T_("it must start with 'Souffle <nature>' or '<Nature> breath'"))
    word = match["nature"]
    nature = NATURES.get(fold(word))
    if nature is None:
        _fail(
            where,
            text,
            T_(
                "unknown nature {word} (expected englobant or percutant; in English "
                "enveloping or impacting)",
                word=repr(word),
            ),
        )
    rest = match["rest"].strip()
    if not (rest.startswith("(") and rest.endswith(")")):
        _fail(
            where,
            text,
            T_("the damage type and values must follow in brackets: '(type • puissance X/Y)'"),
        )
    inner = rest[1:-1].strip()
    parts = re.split(f"[{_SEPARATORS}]", inner)
    if len(parts) != 2:
        found = TN_("{n} separator", "{n} separators", "n", n=len(parts) - 1)
        if len(parts) == 1:
            found = T_("no separator")
        _fail(
            where,
            text,
            T_(
                "inside the brackets expected 'type • puissance X/Y' with one '•', found {found}",
                found=found,
            ),
        )
    damage_type, effect = parts[0].strip(), parts[1].strip()
    if not damage_type:
        _fail(where, text, T_("the damage type before '•' is missing"))
    if not effect:
        _fail(where, text, T_("the values 'puissance X/Y' (or a state) after '•' are missing"))
    values = _VALUES.match(effect)
    if values is None:
        state = _KEYWORD.sub("", effect).strip()
        if not state or re.search(r"\d", state):
            _fail(
                where,
                text,
                T_(
                    "{effect} is neither 'puissance X/Y' (two whole numbers, Difficulty/Power) "
                    "nor a state such as 'étourdi'",
                    effect=repr(effect),
                ),
            )
        return BreathNotation(nature, damage_type, state=state, text=text.strip())
    difficulty, power = int(values["x"]), int(values["y"])
    if not 1 <= difficulty <= 6:
        _fail(
            where,
            text,
            T_(
                "Difficulty {difficulty} is not 1 to 6 (a die hits on Difficulty or more on a d6)",
                difficulty=difficulty,
            ),
        )
    if power < 1:
        _fail(where, text, T_("Power {power} must be at least 1 (damage per hit)", power=power))
    return BreathNotation(nature, damage_type, difficulty, power, text=text.strip())


def _fail(where: str | Text, text: object, problem: Text) -> NoReturn:
    message = T_(
        "bad breath notation {text}: {problem}; write e.g. {examples} (B4)",
        text=repr(text),
        problem=problem,
        examples=Word(EXAMPLES),
    )
    raise RulesError(T_("{where}: {message}", where=where, message=message) if where else message)


@dataclass(frozen=True, slots=True)
class BreathWeapon:
    """A breath weapon: its name (the notation itself when given as one) and its B4
    notation, read."""

    name: str
    notation: BreathNotation

    @property
    def french(self) -> str:
        return self.notation.french()

    @property
    def english(self) -> str:
        return self.notation.english()

    def to_json(self) -> dict[str, object]:
        n = self.notation
        return {
            "name": self.name,
            "notation": n.text or n.french(),
            "french": n.french(),
            "english": n.english(),
            "nature": n.nature,
            "damage_type": n.damage_type,
            "difficulty": n.difficulty,
            "power": n.power,
            "state": n.state,
        }


def breath_weapon(table: Table, shooter: str, weapon: str | None = None) -> BreathWeapon:
    """The shooter's breath weapon named ``weapon`` (case and accents ignored), or
    ``weapon`` itself read as a B4 notation; ``None``: the shooter's only breath weapon."""
    model = table.model(shooter)
    own = [w for w in model.weapons if w.breath is not None]
    if weapon is None:
        if len(own) == 1:
            return _read(own[0].name, own[0].breath, shooter)
        known = join(repr(w.name) for w in own)
        if own:
            raise RulesError(
                T_(
                    "{shooter} has {n} breath weapons ({known}): name one, or give a B4 "
                    "notation, e.g. 'Souffle englobant (acide • puissance 5/2)'",
                    shooter=repr(shooter),
                    n=len(own),
                    known=known,
                )
            )
        raise RulesError(
            T_(
                "{shooter} has no breath weapons: name one, or give a B4 notation, e.g. "
                "'Souffle englobant (acide • puissance 5/2)'",
                shooter=repr(shooter),
            )
        )
    for w in model.weapons:
        if fold(w.name) == fold(weapon):
            if w.breath is None:
                raise RulesError(
                    T_(
                        "weapon {weapon} of {shooter} is not a breath weapon (it has no "
                        "`breath` notation, B4)",
                        weapon=repr(w.name),
                        shooter=repr(shooter),
                    )
                )
            return _read(w.name, w.breath, shooter)
    if "(" in weapon:
        notation = parse(weapon, where=T_("the weapon given"))
        return BreathWeapon(notation.french(), notation)
    if not own:
        raise RulesError(
            T_(
                "{shooter} has no breath weapon {weapon} (its breath weapons: none); a B4 "
                "notation works too, e.g. 'Souffle englobant (acide • puissance 5/2)'",
                shooter=repr(shooter),
                weapon=repr(weapon),
            )
        )
    raise RulesError(
        T_(
            "{shooter} has no breath weapon {weapon} (its breath weapons: {known}); a B4 "
            "notation works too, e.g. 'Souffle englobant (acide • puissance 5/2)'",
            shooter=repr(shooter),
            weapon=repr(weapon),
            known=join(repr(w.name) for w in own),
        )
    )


def _read(name: str, text: str | None, shooter: str) -> BreathWeapon:
    where = T_("weapon {weapon} of {shooter}", weapon=repr(name), shooter=repr(shooter))
    return BreathWeapon(name, parse(text, where=where))


def weapon_problems(table: Table) -> list[str]:
    """Every breath notation of the table's weapons that cannot be read (B4), with where;
    and the models whose Tir is too high for their impacting breath to be ruled (B6)."""
    problems = []
    for i, m in enumerate(table.models):
        impacting = False
        for k, w in enumerate(m.weapons):
            if w.breath is not None:
                try:
                    note = parse(w.breath, where=f"models[{i}].weapons[{k}].breath")
                except RulesError as exc:
                    problems.append(str(exc))
                else:
                    impacting |= note.nature == "impacting" and note.rolls
        tir = m.stat("tir")
        if impacting and tir is not None and tir + 5 > MAX_CHAIN_DICE:
            problems.append(
                str(
                    T_(
                        "models[{i}].stats.tir: {tir} gives its impacting breath {dice} dice "
                        "(Tir + 5), at most {most} are ruled (B6)",
                        i=i,
                        tir=Num(tir, ",.0f"),
                        dice=Num(tir + 5, ",.0f"),
                        most=Num(MAX_CHAIN_DICE, ","),
                    )
                )
            )
    return problems
