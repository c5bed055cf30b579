"""The help of the command line in the language spoken: French with ``--lang fr``
anywhere on the command line or a French environment, English otherwise and exactly as
it was."""

from __future__ import annotations

import hashlib
import inspect
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from babel.messages import pofile

from arbitre import i18n
from arbitre.faces.cli import app, main
from arbitre.faces.cli.common import HELP_OPTION, TYPER_WORDS, USAGE, early_lang, spoken

#: Every command of ``arbitre``.
COMMANDS: list[str] = list(typer.main.get_command(app).commands)  # type: ignore[attr-defined]

#: Words of the French help, and English help phrases it never shows.
FRENCH_LOS = (
    "Utilisation",
    "Arbitre chaque ligne de vue demandée",
    "Fichier de scénario (YAML ou JSON).",
    "[obligatoire]",
    "Id du tireur (répétable).",
    "Entrée et sortie",
    "Affiche ce message et quitte.",
    "Langue de la sortie",
)
FRENCH_ROOT = (
    "Utilisation",
    "Un moteur d'arbitrage pour les jeux de figurines d'escarmouche.",
    "Affiche la version.",
    "Arbitre une arme de souffle",
    "points d'action",
    "Lieux",
    "Toutes les tables",
)
ENGLISH = (
    "Usage:",
    "Rule every line of sight",
    "Scenario file",
    "[required]",
    "Shooter id",
    "Input and output",
    "Show this message and exit.",
    "Language of the output",
    "A referee engine",
    "Print the version.",
    "Every table",
    "action points",
)

#: The English help of ``arbitre`` and ``arbitre los`` at 80 columns, as it was before the
#: help spoke French: each line without its trailing spaces, and the SHA-256 of the whole.
ROOT_EN = """
 Usage: arbitre [OPTIONS] COMMAND [ARGS]...

 A referee engine for skirmish miniature wargames.

╭─ Options ────────────────────────────────────────────────────────────────────╮
│ --version          Print the version.                                        │
│ --debug            Show the traceback of an unexpected error.                │
│ --help             Show this message and exit.                               │
╰──────────────────────────────────────────────────────────────────────────────╯
╭─ Tables ─────────────────────────────────────────────────────────────────────╮
│ los         Rule every line of sight asked: visible or not, the cover, and   │
│             why.                                                             │
│ render      Draw the table (or the map of places) to scale, a shooter's      │
│             lines if asked.                                                  │
│ validate    Check a scenario file: every problem any command would refuse,   │
│             with its path (exit                                              │
│             2 if any); then the warnings, plausible mistakes that stop       │
│             nothing.                                                         │
│ schema      Print the JSON Schema of scenario files (or, with --output, of   │
│             JSON output).                                                    │
│ demo        Rule the bundled example table: one side's lines of sight        │
│             against the other's.                                             │
│ serve       Open a page where a table is built and played by hand, every     │
│             ruling live.                                                     │
╰──────────────────────────────────────────────────────────────────────────────╯
╭─ Mordheim ───────────────────────────────────────────────────────────────────╮
│ targets     Whom a Mordheim shooter may shoot, the score it needs and its    │
│             exact odds (M1-M10).                                             │
│ shoot       Roll a Mordheim shot, every die logged (no --seed: a fresh one); │
│             refused if illegal.                                              │
╰──────────────────────────────────────────────────────────────────────────────╯
╭─ Breath ─────────────────────────────────────────────────────────────────────╮
│ breath      Rule a breath weapon (B1-B10): victims in order, exact odds of   │
│             HP lost; rolled with                                             │
│             --roll or --seed.                                                │
╰──────────────────────────────────────────────────────────────────────────────╯
╭─ Dark Age ───────────────────────────────────────────────────────────────────╮
│ rolloff     Roll off between two players (D2): D20 each, the lower decides,  │
│             ties again.                                                      │
│ activation  Spend a model's action points (D1): what each action cost, what  │
│             is left or lost.                                                 │
╰──────────────────────────────────────────────────────────────────────────────╯
╭─ Places ─────────────────────────────────────────────────────────────────────╮
│ move        Every place a unit can end its move on: points left, exhaustion, │
│             the way (P3-P4).                                                 │
│ shot        The places a shot crosses, what each counts, the attack score    │
│             reduction (P5).                                                  │
│ place       A place's effective characteristics and what a unit arriving now │
│             gets (P2, P6).                                                   │
╰──────────────────────────────────────────────────────────────────────────────╯
╭─ Import ─────────────────────────────────────────────────────────────────────╮
│ import      Make a scenario of a virtual tabletop scene: walls, doors,       │
│             windows, tokens.                                                 │
╰──────────────────────────────────────────────────────────────────────────────╯
╭─ Every table ────────────────────────────────────────────────────────────────╮
│ map         Where can a model stand: every region of the table where a model │
│             centred there is                                                 │
│             seen by the same enemies, with the cover each gives (exact       │
│             shapes; GeoJSON with                                             │
│             --json).                                                         │
╰──────────────────────────────────────────────────────────────────────────────╯

"""
ROOT_EN_SHA256 = "53ab28dd38a5b9ec0f64a98780e19b80156bf54dc4b609ca6a1b110c3b5eccb8"

LOS_EN = """
 Usage: arbitre los [OPTIONS] {FILE}

 Rule every line of sight asked: visible or not, the cover, and why.

╭─ Arguments ──────────────────────────────────────────────────────────────────╮
│ *    FILE        Scenario file (YAML or JSON). [required]                    │
╰──────────────────────────────────────────────────────────────────────────────╯
╭─ Options ────────────────────────────────────────────────────────────────────╮
│ --rules            NAME        Ruleset that answers (default: the scenario's │
│                                `rules`).                                     │
│ --shooter          ID          Shooter id (repeatable).                      │
│ --target           ID          Target id (repeatable).                       │
│ --all                          Same-side pairs too.                          │
│ --option   -O      NAME=VALUE  Ruleset option over the file's (repeatable).  │
│ --help                         Show this message and exit.                   │
╰──────────────────────────────────────────────────────────────────────────────╯
╭─ Input and output ───────────────────────────────────────────────────────────╮
│ --explain                   Every reason in full.                            │
│ --json                      Print JSON 2 instead of tables.                  │
│ --max-bytes          N      Largest file read, in bytes (default             │
│                             10,000,000).                                     │
│ --quiet      -q             Do not print the warnings (plausible mistakes of │
│                             the table) on stderr.                            │
│ --lang               fr|en  Language of the output (default: the scenario's  │
│                             `lang`, else LANG/LC_ALL, else English).         │
╰──────────────────────────────────────────────────────────────────────────────╯

"""
LOS_EN_SHA256 = "98549f7fca24f87b4789fabac566e31a4f36bec13a80bffb1442a3c2243edc3a"


def _env(lang: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES")}
    env.update({"LANG": lang, "COLUMNS": "80"})
    return env


def _arbitre(*args: str, lang: str = "C.UTF-8") -> str:
    """The output of ``arbitre ARGS`` run as a user runs it (its own process)."""
    code = "import sys; from arbitre.faces.cli import run; sys.argv[0] = 'arbitre'; run()"
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=_env(lang),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(autouse=True)
def _english_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("COLUMNS", "80")


def _help(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _french(text: str, words: tuple[str, ...]) -> None:
    for w in words:
        assert w in text, f"{w!r} missing from the French help\n{text}"
    for w in ENGLISH:
        assert w not in text, f"English {w!r} in the French help\n{text}"


@pytest.mark.parametrize(
    "args",
    [
        ["los", "--help", "--lang", "fr"],
        ["los", "--lang=fr", "--help"],
        ["los", "--help", "--lang=fr"],
        ["--lang", "fr", "los", "--help"],
    ],
)
def test_the_help_of_a_command_is_french_with_lang_fr_anywhere(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    _french(_help(capsys, *args), FRENCH_LOS)


@pytest.mark.parametrize("args", [["--help", "--lang", "fr"], ["--lang=fr", "--help"]])
def test_the_help_of_arbitre_is_french_with_lang_fr(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    _french(_help(capsys, *args), FRENCH_ROOT)


def test_the_help_is_french_in_a_french_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _french(_arbitre("--help", lang="fr_FR.UTF-8"), FRENCH_ROOT)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    _french(_help(capsys, "los", "--help"), FRENCH_LOS)
    assert "Rule every line of sight" in _help(capsys, "los", "--help", "--lang", "en")


def test_a_french_help_keeps_numbers_and_punctuation_on_their_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for width in ("80", "120"):
        monkeypatch.setenv("COLUMNS", width)
        text = _help(capsys, "los", "--help", "--lang", "fr")
        assert "10\u00a0000\u00a0000" in text
        for line in text.splitlines():
            assert not line.strip(" │").startswith((":", ";")), line


def _check_golden(text: str, golden: str, sha256: str) -> None:
    assert [line.rstrip() for line in text.splitlines()] == golden.splitlines()
    assert hashlib.sha256(text.encode()).hexdigest() == sha256


def test_the_english_help_is_as_it_was() -> None:
    _check_golden(_arbitre("--help"), ROOT_EN, ROOT_EN_SHA256)
    _check_golden(_arbitre("los", "--help"), LOS_EN, LOS_EN_SHA256)


def test_french_help_leaves_the_english_help_whole(capsys: pytest.CaptureFixture[str]) -> None:
    """Showing French help in a process (typer's words and the commands' help swapped in
    for the time it is printed) leaves every English help as it was."""
    calls = [[], *([c] for c in COMMANDS)]
    before = [_help(capsys, *c, "--help") for c in calls]
    french = [_help(capsys, *c, "--help", "--lang", "fr") for c in calls]
    assert [_help(capsys, *c, "--help") for c in calls] == before
    assert [_help(capsys, *c, "--help", "--lang", "en") for c in calls[1:]] == before[1:]
    for english, words in zip(before, french, strict=True):
        assert english != words
        assert "Utilisation" in words and "Usage:" not in words
    assert i18n.current() == "en"


def _fr_catalogue() -> set[str]:
    with i18n.catalogue_path("fr").open("rb") as f:
        return {m.id for m in pofile.read_po(f) if m.id and isinstance(m.id, str) and m.string}


def _help_texts() -> Iterator[tuple[str, str]]:
    """Every help text of the command line: (where, text)."""
    group: Any = typer.main.get_command(app)
    yield "arbitre", group.help
    for p in group.params:
        if p.help:
            yield f"arbitre {p.name}", p.help
    for name, cmd in group.commands.items():
        for attr in ("help", "short_help", "rich_help_panel"):
            if getattr(cmd, attr, None):
                yield f"{name} {attr}", getattr(cmd, attr)
        for p in cmd.params:
            for attr in ("help", "rich_help_panel"):
                if getattr(p, attr, None):
                    yield f"{name} {p.name} {attr}", getattr(p, attr)


def test_every_help_text_has_french() -> None:
    fr = _fr_catalogue()
    for msgid in (HELP_OPTION, USAGE, *TYPER_WORDS.values()):
        assert msgid in fr, msgid
    with i18n.speaking("fr"):
        for where, text in _help_texts():
            french = spoken(text)
            assert text in fr or (french and french != text), f"{where}: no French for {text!r}"


def test_a_command_s_help_is_its_docstring() -> None:
    """The help id given to each command (N_, for extraction) is worded as its docstring."""
    for info in app.registered_commands:
        assert info.callback is not None
        assert info.help == inspect.getdoc(info.callback), info.name


@pytest.mark.parametrize(
    ("args", "lang"),
    [
        (["los", "--help", "--lang", "fr"], "fr"),
        (["--lang=fr", "los"], "fr"),
        (["--lang", "fr", "los", "--lang", "en"], "en"),
        (["los", "--lang", "xx"], None),
        (["los", "--lang"], None),
        (["los", "--", "--lang", "fr"], None),
        (["los", "f.yaml"], None),
    ],
)
def test_the_language_is_read_from_the_command_line_before_it_is_parsed(
    args: list[str], lang: str | None
) -> None:
    assert early_lang(args) == lang
