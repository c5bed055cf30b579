"""The ``breath`` command of ``arbitre`` (B1-B10), a face: it parses, asks the registry
(the ``breath`` question, or ``blast`` with ``--blast``), and prints the ruling's fields.

:func:`register` adds it to a typer app; user mistakes are raised as
:class:`~arbitre.errors.ArbitreError` for the app's ``main`` to print as one line.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias

import typer

from arbitre import i18n
from arbitre.errors import RulesError
from arbitre.faces.cli.common import (
    IO_PANEL,
    MAX_BYTES,
    FileArg,
    JsonOpt,
    MaxBytesOpt,
    OptionOpt,
    QuietOpt,
    RulesOpt,
    ask_file,
    check_picture,
    command,
    esc,
    out,
    print_json,
    seed_line,
    warn,
    write_picture,
)
from arbitre.faces.cli.grid import Col, print_grid
from arbitre.i18n import N_, T_, TN_, Num, _, join
from arbitre.vocabulary import test_words

if TYPE_CHECKING:  # the engine is imported when a command runs, not for --help
    from fractions import Fraction

    from arbitre.dice import Distribution
    from arbitre.rules import Answer
    from arbitre.table import Unit

#: The breath ruleset's values, read by field (a face imports no ruleset).
BreathRuling: TypeAlias = Any
BreathRoll: TypeAlias = Any
Aim: TypeAlias = Any

PANEL = N_("Breath")

#: The word of an empty list of victims.
NONE = N_("none")


def _pct(p: Fraction) -> str:
    """A probability for people: exact 0 and 100%, never a rounded 0 or 100 otherwise (in
    French with a decimal comma and a space before %)."""
    f = float(p)
    if p in (0, 1):
        text = f"{f:.0%}"
    else:
        text = "<0.1%" if f < 0.001 else ">99.9%" if f > 0.999 else f"{f:.1%}"
    return text.replace(".", ",").replace("%", " %") if i18n.current() == "fr" else text


def _num(x: Fraction) -> str:
    from fractions import Fraction

    if 0 < x < Fraction(1, 100):
        return "<" + Num(0.01, ".2f").render()
    return Num(float(x), ".2f").render()


def _colon() -> str:
    """The colon after a label: French puts a space before it."""
    return " : " if i18n.current() == "fr" else ": "


def _law(d: Distribution[int]) -> str:
    return "  ".join(f"{o}{_colon()}{_pct(p)}" for o, p in d.probabilities().items())


def _blast(text: str) -> tuple[tuple[float, float], float]:
    parts = text.replace(";", ",").split(",")
    try:
        x, y, r = (float(p) for p in parts)
    except ValueError:
        raise RulesError(
            T_(
                "--blast {text}: expected X,Y,RADIUS in the scenario's unit, e.g. --blast "
                "300,200,3",
                text=repr(text),
            )
        ) from None
    return (x, y), r


def _weapon_line(r: BreathRuling) -> str:
    """The weapon's name, then its notation once: French, then (in English) the English
    in brackets."""
    w = r.weapon
    head = f"{w.name} - " if w.name != w.french else ""
    shown = w.english != w.french and i18n.current() == "en"
    english = f"  ({w.english})" if shown else ""
    return f"[bold]{esc(r.shooter)}[/]{_colon()}{esc(head)}{esc(w.french)}{esc(english)}"


def _template_line(unit: Unit, r: BreathRuling) -> str:
    from arbitre.templates import Cone, Degrees, UnitWord

    t, u = r.template, unit
    if isinstance(t, Cone):
        text = T_(
            "cone aimed at {angle}, apex {at} {unit}",
            angle=Degrees(t.angle),
            at=u.at(t.apex.x, t.apex.y),
            unit=UnitWord(u.name),
        )
        if t.rim is not None:
            text = text + T_(" at {rim} on the rim", rim=Degrees(t.rim))
        return str(text)
    return _("blast at {at}, radius {radius} {unit}").format(
        at=u.at(t.centre.x, t.centre.y).render(),
        radius=i18n.number(u.from_mm(t.radius)),
        unit=UnitWord(u.name).render(),
    )


def _victim_columns(rolled: bool) -> tuple[Col, ...]:
    """The columns of the victims' table, in the current language."""
    cols = (
        Col("#"),
        Col(_("model")),
        Col(_("side")),
        Col(_("dist"), right=True),
        Col(_("cover")),
        Col(_("prot"), right=True),
        Col("p", right=True),
    )
    if not rolled:
        return cols
    return (
        *cols,
        Col(_("mean"), right=True),
        Col("p>=1", right=True),
        Col(_("p out"), right=True),
    )


def _victims_grid(unit: Unit, r: BreathRuling) -> None:
    """The victims, nearest first: rank, distance, cover, Protection, odds."""
    from arbitre.templates import UnitWord

    rolled = r.weapon.notation.rolls
    rows = []
    for v in r.victims:
        num = (str(v.rank) + ("=" if v.tied_with else "")) if v.in_area else "B8"
        dist = Num(unit.from_mm(v.distance), ".2f").render() if v.distance is not None else "-"
        row = [
            num,
            esc(v.id),
            esc(v.side),
            dist,
            f"+{v.cover}" if v.cover else "-",
            str(v.protection),
            _pct(v.p_affected),
        ]
        if rolled:
            row += [_num(v.mean), _pct(v.p_wounded), "" if v.p_out is None else _pct(v.p_out)]
        rows.append(row)
    title = T_(
        "Victims, nearest first ({n} in the template; distances in {unit})",
        n=sum(v.in_area for v in r.victims),
        unit=UnitWord(unit.name),
    )
    print_grid(out, _victim_columns(rolled), rows, title=str(title), key=2, joiner=" ")


def print_ruling(unit: Unit, r: BreathRuling) -> None:
    """Victims in order with distance, cover, the exact law and mean of HP lost."""
    out.print(_weapon_line(r))
    out.print(esc(_template_line(unit, r)))
    if r.dice is not None:
        out.print(_("{dice} dice (Tir + 5) start the chain (B6)").format(dice=r.dice))
    _victims_grid(unit, r)
    rolled = r.weapon.notation.rolls
    if rolled:
        legend = _(
            "p: chance of being affected; mean: HP lost on average; p>=1: chance of losing "
            "some; p out: of losing all its hp"
        )
        out.print(f"[dim]{esc(legend)}[/]")
        out.print(esc(_("exact law of HP lost (HP: chance; fractions in --json):")))
        for v in r.victims:
            out.print(f"  {esc(v.id)}{_colon()}{_law(v.hp_lost)}")
    else:
        text = _("every model affected is {state}; nothing is rolled (B4)")
        out.print(text.format(state=f"[bold]{r.weapon.notation.state}[/]"))
    for v in r.victims:
        if not v.in_area:
            spill = T_(
                "{model}: reached by a melee spill from {via} ({p}, B8)",
                model=v.id,
                via=join(v.via),
                p=_pct(v.p_affected),
            )
            out.print(f"  {esc(spill)}")
    if r.shielded:
        out.print(esc(_("shielded by large terrain (B3): {ids}").format(ids=", ".join(r.shielded))))
    if rolled:
        expected = _("expected HP lost, enemies minus friends: {value} ({fraction})")
    else:
        expected = _("expected affected, enemies minus friends: {value} ({fraction})")
    value = f"[bold]{i18n.number(float(r.value))}[/]"
    out.print(expected.format(value=value, fraction=r.value))
    if r.margin.mm is not None:
        line = T_(
            "margin {margin} ({test}, G8)",
            margin=unit.measure(r.margin.mm),
            test=test_words(r.margin.test),
        )
        mark = ""
        if r.margin.close:
            close, care = esc(_("close call")), esc(_("measure with care"))
            mark = f" [bold red]{close}[/]{_colon()}{care}"
        out.print(f"{esc(line)}{mark}")
    for reason in r.reasons:
        out.print(f"  [dim]{esc(reason.rule):4}[/] {esc(reason.text)}")


#: The labels of the dice that pick (B7 ties, B8 opponents), as the log words them.
_TIE = re.compile(r"^(?P<head>.*) tie: which of (?P<ids>.*) first$")
_OPPONENT = ": which opponent"


def _label(label: str) -> str:
    """A die's label (B5 knight, B8 knight: which opponent, B7 tie: which of a, b first)
    in the current language; the log keeps it as it is."""
    if label.endswith(_OPPONENT):
        return label[: -len(_OPPONENT)] + _(": which opponent")
    tie = _TIE.match(label)
    if tie is not None:
        return _("{head} tie: which of {ids} first").format(head=tie["head"], ids=tie["ids"])
    return label


def print_roll(roll: BreathRoll) -> None:
    """The roll: what each model got, then every die of the log, grouped by label."""
    cols = (
        Col(_("step")),
        Col(_("model")),
        Col(_("dice"), right=True),
        Col(_("hits"), right=True),
        Col(_("HP lost"), right=True),
        Col(_("via")),
    )
    rows = [
        [
            str(k),
            esc(h.model),
            "-" if h.dice is None else str(h.dice),
            "-" if h.hits is None else str(h.hits),
            esc(h.state) if h.state else str(h.hp_lost),
            esc(h.via or ""),
        ]
        for k, h in enumerate(roll.hits, start=1)
    ]
    title = _("Roll (seed {seed}), in resolution order").format(seed=roll.log.seed)
    print_grid(out, cols, rows, title=title, key=2, joiner=" ")
    colon = _colon()
    for label, group in itertools.groupby(roll.log.dice, key=lambda d: d.label):
        dice = list(group)
        sides = f"  [dim](d{dice[0].sides})[/]" if dice[0].sides != 6 else ""
        values = " ".join(str(d.value) for d in dice)
        out.print(f"  {esc(_label(label))}{colon}{values}{sides}")
    out.print(seed_line(roll.log.seed))


def _aim_line(a: Aim) -> str:
    from arbitre.templates import Degrees

    ties = [g for g in a.ties if len(g) > 1]
    line = T_(
        "axis {angle} (any axis from {start} to {end} there, {width} wide): value {value}; "
        "victims {victims}",
        angle=Degrees(a.angle),
        start=float(a.start % 360),
        end=float(a.end % 360),
        width=Degrees(a.width, ".3g"),
        value=float(a.value),
        victims=join(a.victims, empty=NONE),
    )
    if a.apex is not None:
        line = T_("apex at {apex} on the rim, ", apex=Degrees(a.apex)) + line
    if ties:
        tied = "; ".join(", ".join(g) for g in ties)
        line = line + T_(" (tied: {tied})", tied=tied)
    return esc(str(line))


def print_best(r: BreathRuling) -> None:
    """The best aim found, its runner-up, and the size of the exact search."""
    if r.best is not None:
        best = esc(_("best aim"))
        out.print(f"[bold]{best}[/]{_colon()}{_aim_line(r.best)}")
    if r.runner_up is not None:
        runner_up = esc(_("runner-up"))
        out.print(f"{runner_up}{_colon()}{_aim_line(r.runner_up)}")
    if r.search is not None:
        found = T_(
            "searched exactly: {critical}, {slices}, {cells}",
            critical=TN_("{n} critical apex", "{n} critical apexes", "n", n=r.search.critical),
            slices=TN_("{n} slice", "{n} slices", "n", n=r.search.slices),
            cells=TN_(
                "{n} cell of constant victims",
                "{n} cells of constant victims",
                "n",
                n=r.search.arcs,
            ),
        )
        out.print(f"[dim]{esc(found)}[/]")


def _ask(
    file: Path,
    shooter: str,
    weapon: str | None,
    aim: dict[str, Any],
    blast: str | None,
    common: dict[str, Any],
) -> tuple[Any, Answer]:
    """Ask the ``blast`` question with ``--blast``, else ``breath`` with the aim given."""
    given = [f"--{k}" for k, v in aim.items() if v is not None and v is not False]
    given += ["--blast"] if blast is not None else []
    if len(given) != 1:
        if given:
            raise RulesError(
                T_(
                    "give exactly one of --angle DEG, --toward ID, --best, --blast X,Y,R "
                    "(got {given})",
                    given=join(given),
                )
            )
        raise RulesError(T_("give exactly one of --angle DEG, --toward ID, --best, --blast X,Y,R"))
    if blast is not None:
        if "apex" in common:
            raise RulesError(T_("--apex places a cone's apex on the rim (B2); a blast has none"))
        at, radius = _blast(blast)
        return ask_file(
            file, "blast", shooter=shooter, weapon=weapon, at=at, radius=radius, **common
        )
    return ask_file(file, "breath", shooter=shooter, weapon=weapon, **aim, **common)


#: Help panel of the aim options (one of them is given).
AIM_PANEL = N_("Aim (give one)")

ShooterArg = Annotated[
    str,
    typer.Argument(
        metavar="SHOOTER", help=N_("Id of the model that breathes."), show_default=False
    ),
]
WeaponOpt = Annotated[
    str | None,
    typer.Option(
        "--weapon",
        "-w",
        metavar="NAME",
        help=N_(
            "Breath weapon name, or a B4 notation such as "
            "'Souffle englobant (acide • puissance 5/2)' (default: the model's only one)."
        ),
        show_default=False,
    ),
]
AngleOpt = Annotated[
    float | None,
    typer.Option(
        "--angle",
        metavar="DEG",
        help=N_("Aim in degrees, counter-clockwise from +x."),
        rich_help_panel=AIM_PANEL,
    ),
]
TowardOpt = Annotated[
    str | None,
    typer.Option(
        "--toward",
        metavar="ID",
        help=N_("Aim the cone's axis at this model's centre."),
        rich_help_panel=AIM_PANEL,
    ),
]
ApexOpt = Annotated[
    float | None,
    typer.Option(
        "--apex",
        metavar="DEG",
        help=N_(
            "Where the apex sits on the shooter's rim, degrees from its centre "
            "(default: the aim direction); with --angle or --toward."
        ),
        rich_help_panel=AIM_PANEL,
    ),
]
BestOpt = Annotated[
    bool,
    typer.Option(
        "--best",
        help=N_(
            "Search every placement (apex and axis) for the most HP lost by enemies minus friends."
        ),
        rich_help_panel=AIM_PANEL,
    ),
]
BlastOpt = Annotated[
    str | None,
    typer.Option(
        "--blast",
        metavar="X,Y,R",
        help=N_("A B10 blast instead of a cone: X,Y,RADIUS in the scenario's unit."),
        rich_help_panel=AIM_PANEL,
    ),
]
BreathSeedOpt = Annotated[
    int | None,
    typer.Option(
        "--seed",
        metavar="N",
        help=N_("Roll with this seed (same seed, same roll)."),
        show_default=False,
    ),
]
RollOpt = Annotated[
    bool,
    typer.Option("--roll", help=N_("Roll it too, with a fresh seed (printed); --seed N rolls N.")),
]
OrderOpt = Annotated[
    str | None,
    typer.Option(
        "--order", metavar="ORDER", help=N_("The order given with the shot (B9: never Vae victis).")
    ),
]
SvgOpt = Annotated[
    Path | None,
    typer.Option(
        "--svg",
        metavar="FILE",
        help=N_("Also draw the table, the template and the victims (.svg, or .png)."),
        rich_help_panel=IO_PANEL,
    ),
]


def breath(
    file: FileArg,
    shooter: ShooterArg,
    weapon: WeaponOpt = None,
    angle: AngleOpt = None,
    toward: TowardOpt = None,
    apex: ApexOpt = None,
    best: BestOpt = False,
    blast: BlastOpt = None,
    roll: RollOpt = False,
    seed: BreathSeedOpt = None,
    order: OrderOpt = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
    svg: SvgOpt = None,
    as_json: JsonOpt = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    quiet: QuietOpt = False,
) -> None:
    """Rule a breath weapon (B1-B10): victims in order, exact odds of HP lost; rolled with
    --roll or --seed."""
    from arbitre.table import MM

    if svg is not None:
        check_picture(svg)
    if roll and seed is None:
        import secrets  # not for --help: it loads OpenSSL's hashes

        seed = secrets.randbelow(2**32)
    table, answer = _ask(
        file,
        shooter,
        weapon,
        {"angle": angle, "toward": toward, "best": best},
        blast,
        {
            "seed": seed,
            "order": order,
            "rules": rules,
            "option": option,
            "max_bytes": max_bytes,
            **({"apex": apex} if apex is not None else {}),
        },
    )
    warn(table, quiet)
    ruling = answer.ruling
    if svg is not None:
        from arbitre.faces.svg.breath import breath_overlay
        from arbitre.faces.svg.table import render_table

        what = _("{weapon} of {shooter}").format(weapon=ruling.weapon.name, shooter=shooter)
        title = f"{table.name}{_colon()}{what}" if table.name else what
        picture = render_table(table, title=title, overlays=[breath_overlay(table, ruling)])
        write_picture(svg, picture)
    if as_json:
        print_json(answer.to_json())
        return
    if ruling.best is not None:
        print_best(ruling)
    print_ruling(answer.unit or MM, ruling)
    if ruling.roll is not None:
        print_roll(ruling.roll)
    if svg is not None:
        out.print(esc(_("drawn: {path}").format(path=svg)))


def register(app: typer.Typer) -> None:
    """Add the ``breath`` command to ``app``."""
    command(
        app,
        breath,
        PANEL,
        N_(
            "Rule a breath weapon (B1-B10): victims in order, exact odds of HP lost; rolled with\n"
            "--roll or --seed."
        ),
        "breath",
    )


__all__ = ["breath", "print_best", "print_roll", "print_ruling", "register"]
