"""The Mordheim commands of ``arbitre`` (M1-M11): ``targets`` and ``shoot`` (a face).

They parse, ask the registry (:func:`~arbitre.faces.cli.common.ask_file`), print the
rulings' fields; no rule lives here. :func:`register` adds them to a typer app; user
mistakes are raised as :class:`~arbitre.errors.ArbitreError` for the app's ``main`` to
print as one line with exit code 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from arbitre.faces.cli.common import (
    MAX_BYTES,
    ExplainOpt,
    FileArg,
    JsonOpt,
    MaxBytesOpt,
    OptionOpt,
    QuietOpt,
    RulesOpt,
    SeedOpt,
    ask_file,
    command,
    esc,
    out,
    print_reasons,
    seed_line,
    show,
    warn,
)
from arbitre.faces.cli.grid import Col, print_grid
from arbitre.i18n import N_, T_, Num, Text, _, current, number, unit_name
from arbitre.vocabulary import test_words

if TYPE_CHECKING:  # the engine is imported when a command runs, not for --help
    from fractions import Fraction

    from arbitre.rules import Answer
    from arbitre.rules.ruling import Margin
    from arbitre.table import Unit

PANEL = N_("Mordheim")
#: The mark of a close call (G8) beside a target's legality.
CLOSE_MARK = "!"

ShooterArg = Annotated[
    str, typer.Argument(metavar="SHOOTER", help=N_("The model that shoots."), show_default=False)
]
TargetArg = Annotated[
    str, typer.Argument(metavar="TARGET", help=N_("The model shot at."), show_default=False)
]
WeaponOpt = Annotated[
    str | None,
    typer.Option(
        "--weapon",
        "-w",
        metavar="NAME",
        help=N_("Missile weapon by name (default: the shooter's only or first one)."),
        show_default=False,
    ),
]


def _colon() -> str:
    """The colon after a label: French puts a space before it."""
    return " : " if current() == "fr" else ": "


def _pct(share: float) -> str:
    """A share as a percentage, per language ("33%", "33 %")."""
    return str(T_("{pct}%", pct=Num(share * 100, ".0f")))


def _p(p: Fraction) -> str:
    return f"{p} ({_pct(float(p))})" if p not in (0, 1) else str(p)


def columns() -> tuple[Col, ...]:
    """The columns of the targets table, headed in the current language."""
    return (
        Col(_("target")),
        Col(_("seen"), right=True),
        Col(_("dist"), right=True),
        Col(_("range")),
        Col(_("cover")),
        Col(_("large"), _("lg"), _("large target (M10)")),
        Col(_("need")),
        Col(_("hit"), right=True),
        Col(_("on cover"), _("cov"), _("hit on the cover (M9)"), right=True),
        Col(_("miss"), right=True),
        Col(_("legal")),
    )


def _range_cell(t: Any) -> str:
    """M6 in a word: ``out``, ``long``, ``short``; ``-`` without a weapon."""
    if t.in_range is None:
        return "-"
    if not t.in_range:
        return _("out")
    return _("long") if t.long_range else _("short")


def _row(t: Any, unit: Unit) -> list[str]:
    """One target's cells: seen, distance, range, cover, large, need, odds, legality."""
    odds = (
        ("-", "-", "-")
        if t.odds is None
        else (str(t.odds.hit), str(t.odds.hit_cover), str(t.odds.miss))
    )
    yes, no, closest = _("yes"), _("no"), _("closest")
    legal = (
        (f"[bold magenta]{closest}[/]" if t.closest else f"[green]{yes}[/]")
        if t.legal
        else f"[red]{no}[/]"
    ) + (f" [yellow]{CLOSE_MARK}[/]" if t.margin.close else "")
    return [
        esc(t.target),
        _pct(t.visible_fraction) if t.visible else f"[red]{no}[/]",
        number(unit.from_mm(t.distance)),
        _range_cell(t),
        esc(", ".join(t.cover_pieces) or yes) if t.in_cover else "",
        yes if t.large else "",
        esc(t.need_text or "-"),
        *odds,
        legal,
    ]


def print_targets(answer: Answer, *, explain: bool) -> None:
    """The shooter's verdict (M1), then one row a target: facts, score, odds, legality;
    under it each target's deciding reasons (every reason with ``explain``)."""
    from arbitre.table import MM

    ruling, unit = answer.ruling, answer.unit or MM
    w = ruling.weapon
    arms = (
        f"{esc(w.name)} {esc(unit.measure(w.range).render())}"
        if w and w.range
        else _("no missile weapon")
    )
    verdict = (
        "[green]" + _("may shoot") + "[/]"
        if ruling.may_shoot
        else "[red]" + _("may not shoot") + "[/]"
    )
    bs = "-" if ruling.bs is None else ruling.bs
    head = T_(
        "{shooter} ({side}), {arms}, BS {bs}: {verdict}",
        shooter=f"[bold]{esc(ruling.shooter)}[/]",
        side=esc(ruling.side),
        arms=arms,
        bs=bs,
        verdict=verdict,
    )
    out.print(str(head))
    print_reasons(ruling.reasons)
    title = T_(
        "Targets of {shooter}, nearest first (unit: {unit}; hit, on cover, miss: exact odds)",
        shooter=esc(ruling.shooter),
        unit=unit_name(unit.name, current()),
    )
    print_grid(out, columns(), [_row(t, unit) for t in ruling.targets], title=str(title))
    if any(t.margin.close for t in ruling.targets):
        note = T_(
            "close call: a move shorter than {length} may change it, measure with care (G8)",
            length=esc(unit.measure(_threshold(answer)).render()),
        )
        out.print(f"[yellow]{CLOSE_MARK}[/] {note}", soft_wrap=True)
    if explain:
        print_margin(ruling.margin, unit, "")
    for t in ruling.targets:
        verdict = "[green]" + _("legal") + "[/]" if t.legal else "[red]" + _("not legal") + "[/]"
        out.print(f"[bold]{esc(t.target)}[/]{_colon()}{verdict}")
        print_reasons(t.reasons if explain else t.deciding, "    ")
        if explain:
            print_margin(t.margin, unit, "    ")


def _threshold(answer: Answer) -> float:
    """The close-call threshold of the answer's options, in mm (G8)."""
    given = answer.options.get("close_call", 2.0)
    return float(given) if isinstance(given, int | float) else 2.0


def print_margin(margin: Margin, unit: Unit, indent: str) -> None:
    """G8: the margin of a ruling, the test it names, and a mark on a close call."""
    if margin.mm is None:
        return
    test = f" ({esc(test_words(margin.test))})" if margin.test else ""
    close = f" [yellow]{CLOSE_MARK} " + _("close call") + "[/]" if margin.close else ""
    words = T_("margin {length}", length=esc(unit.measure(margin.mm).render()))
    out.print(f"{indent}  [dim]G8 [/] {words}{test}{close}")


def print_shot(answer: Answer) -> None:
    """The dice rolled, the outcome, the odds it had, and why (M4, M6, M7, M9, M11)."""
    from arbitre.i18n import semicolons
    from arbitre.table import MM

    result = answer.ruling
    head = T_(
        "{shooter} shoots {target} with {weapon}",
        shooter=f"[bold]{esc(result.shooter)}[/]",
        target=f"[bold]{esc(result.target)}[/]",
        weapon=esc(result.weapon),
    )
    out.print(str(head))
    die, colon = _("die"), _colon()
    d_ = "D" if current() == "fr" else "d"  # French writes dice D6 (seed 002: 1D6)
    for d in result.log.dice:
        label = esc(die_words(d.label))
        out.print(f"  {die}{colon}{label}{colon}{d_}{d.sides} = [bold]{d.value}[/]")
    if not result.log.dice:
        out.print("  " + _("no dice: out of range"))
    word = {
        "hit": "[green]" + _("HIT") + f"[/] {esc(result.hit)}",
        "miss": "[red]" + _("MISS") + "[/]",
        "hit_cover": "[yellow]" + _("HIT THE COVER") + "[/]",
    }[result.outcome]
    automatic = " (" + _("automatic: out of range") + ")" if result.automatic else ""
    out.print("  " + _("result") + f"{colon}{word}{automatic}")
    odds = result.odds
    shares = odds.allocation if len(odds.allocation) > 1 else ()
    line = T_(
        "odds: hit {hit}, cover {cover}, miss {miss}",
        hit=_p(odds.hit),
        cover=_p(odds.hit_cover),
        miss=_p(odds.miss),
    )
    out.print(f"  {semicolons([line, *(f'{esc(m)} {_p(p)}' for m, p in shares)])}")
    out.print(f"  {seed_line(result.seed)}")
    print_reasons(result.reasons)
    print_margin(result.margin, answer.unit or MM, "")


#: The roll log's die labels (English labels, kept as they are in JSON), for people.
DIE_LABELS = {"M7 to-hit ": N_("M7 to-hit {who}"), "M4 hit goes to ": N_("M4 hit goes to {faces}")}


def die_words(label: str) -> str:
    """A die's label in the current language ("M7 to-hit a->b": "M7 pour toucher a->b")."""
    for prefix, msgid in DIE_LABELS.items():
        if label.startswith(prefix):
            key = "who" if "{who}" in msgid else "faces"
            return str(Text(msgid, ((key, label[len(prefix) :]),)))
    return label


def targets(
    file: FileArg,
    shooter: ShooterArg,
    weapon: WeaponOpt = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
    explain: ExplainOpt = False,
    as_json: JsonOpt = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
    quiet: QuietOpt = False,
) -> None:
    """Whom a Mordheim shooter may shoot, the score it needs and its exact odds (M1-M10)."""
    table, answer = ask_file(
        file,
        "targets",
        rules=rules,
        option=option,
        max_bytes=max_bytes,
        shooter=shooter,
        weapon=weapon,
    )
    warn(table, quiet)
    show(answer, as_json, lambda a: print_targets(a, explain=explain))


def shoot(
    file: FileArg,
    shooter: ShooterArg,
    target: TargetArg,
    seed: SeedOpt = None,
    weapon: WeaponOpt = None,
    rules: RulesOpt = None,
    option: OptionOpt = None,
    as_json: JsonOpt = False,
    max_bytes: MaxBytesOpt = MAX_BYTES,
) -> None:
    """Roll a Mordheim shot, every die logged (no --seed: a fresh one); refused if illegal."""
    _, answer = ask_file(
        file,
        "shoot",
        rules=rules,
        option=option,
        max_bytes=max_bytes,
        shooter=shooter,
        target=target,
        weapon=weapon,
        seed=seed,
    )
    show(answer, as_json, print_shot)


def register(app: typer.Typer) -> None:
    """Add the Mordheim commands ``targets`` and ``shoot`` to ``app``."""
    command(
        app,
        targets,
        PANEL,
        N_("Whom a Mordheim shooter may shoot, the score it needs and its exact odds (M1-M10)."),
    )
    command(
        app,
        shoot,
        PANEL,
        N_("Roll a Mordheim shot, every die logged (no --seed: a fresh one); refused if illegal."),
    )
