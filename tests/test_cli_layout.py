"""Human tables readable at any width, piped or not: every value the JSON gives and the
table shows is printed whole (never cut, never folded inside a word), and a row's values
stay together (on its line, or in its stacked block)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arbitre.faces.cli import main
from arbitre.faces.cli.breath import _num, _pct
from arbitre.faces.cli.grid import Col, print_grid

ROOT = Path(__file__).parent.parent
EX = ROOT / "examples"
WIDTHS = (80, 120, 50)


def _whole(value: str) -> re.Pattern[str]:
    """``value`` as a whole token: not glued to more of a word, a number or a fraction."""
    return re.compile(r"(?<![\w/.%+-])" + re.escape(value) + r"(?![\w/.%-])")


def records(text: str) -> list[str]:
    """The output cut into records: a line starting at column 0 and the indented lines
    after it (a table row is one record; a stacked row, its block)."""
    found: list[list[str]] = []
    for line in text.splitlines():
        if line[:1].strip() or not found:
            found.append([line])
        else:
            found[-1].append(line)
    return ["\n".join(r) for r in found]


def assert_rows(text: str, rows: list[list[str]], where: str) -> None:
    """Each row's values appear whole, all in one record."""
    recs = records(text)
    for row in rows:
        pats = [_whole(v) for v in row if v]
        assert any(all(p.search(r) for p in pats) for r in recs), (
            f"{where}: no record holds {row} whole\n{text}"
        )


def assert_whole(text: str, values: list[str], where: str) -> None:
    for v in values:
        assert _whole(v).search(text), f"{where}: {v!r} is not printed whole\n{text}"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _los(doc: dict[str, Any]) -> list[list[str]]:
    rows = []
    for r in doc["rulings"]:
        cover = f"+{r['cover']}" if r["cover"] else ("0" if r["visible"] else "-")
        seen = "" if r["visible_fraction"] is None else f"{r['visible_fraction']:.0%}"
        rows.append(
            [
                r["shooter"],
                r["target"],
                "yes" if r["visible"] else "no",
                cover,
                seen,
                r["because"] or "clear",
            ]
        )
    return rows


def _targets(doc: dict[str, Any]) -> list[list[str]]:
    rows = []
    for t in doc["rulings"][0]["targets"]:
        odds = t["odds"]
        rows.append(
            [
                t["target"],
                f"{t['visible_fraction']:.0%}" if t["visible"] else "no",
                f"{t['distance']:.4g}",
                ", ".join(t["cover_pieces"]) if t["in_cover"] else "",
                t["need_text"] or "-",
                *((odds[k]["p"] for k in ("hit", "hit_cover", "miss")) if odds else ("-",) * 3),
            ]
        )
    return rows


def _breath(doc: dict[str, Any]) -> list[list[str]]:
    rows = []
    for v in doc["rulings"][0]["victims"]:
        rank = (str(v["rank"]) + ("=" if v["tied_with"] else "")) if v["in_area"] else "B8"
        dist = "-" if v["distance"] is None else f"{v['distance']:.2f}"
        row = [
            rank,
            v["id"],
            v["side"],
            dist,
            str(v["protection"]),
            _pct(Fraction(v["p_affected"]["p"])),
        ]
        if v["hp_lost"] is not None and "mean" in v["hp_lost"]:
            row += [_num(Fraction(v["hp_lost"]["mean"]["p"])), _pct(Fraction(v["p_wounded"]["p"]))]
        rows.append(row)
    roll = doc["rulings"][0]["roll"]
    for k, h in enumerate(roll["hits"] if roll else (), start=1):
        cells = [h["dice"], h["hits"], h["state"] or h["hp_lost"]]
        rows.append([str(k), h["id"], *("-" if c is None else str(c) for c in cells)])
    return rows


Extract = Callable[[dict[str, Any]], list[list[str]]]
TABLES: list[tuple[list[str], Extract]] = [
    (["los", str(EX / "frostgrave-demo.yaml")], _los),
    (["los", str(EX / "frostgrave-demo.yaml"), "--all", "--shooter", "crossbowman"], _los),
    (["los", str(EX / "darkage-wall.yaml"), "--rules", "darkage"], _los),
    (["los", str(EX / "darkage-huge-between.yaml"), "--rules", "darkage"], _los),
    (
        [
            "los",
            str(EX / "mordheim-merchant-square.yaml"),
            "--rules",
            "mordheim",
            "--shooter",
            "marksman",
        ],
        _los,
    ),
    (["targets", str(EX / "mordheim-merchant-square.yaml"), "captain"], _targets),
    (["targets", str(EX / "mordheim-merchant-square.yaml"), "marksman"], _targets),
    (["targets", str(EX / "mordheim-merchant-square.yaml"), "youngblood"], _targets),
    (
        ["breath", str(EX / "breath-grapeshot.yaml"), "gunner", "--angle", "0", "--seed", "7"],
        _breath,
    ),
    (
        [
            "breath",
            str(EX / "breath-acid.yaml"),
            "wyrm",
            "-w",
            "Acid cloud",
            "--best",
            "--seed",
            "1",
        ],
        _breath,
    ),
    (
        [
            "breath",
            str(EX / "breath-acid.yaml"),
            "wyrm",
            "-w",
            "Acid cloud",
            "--blast",
            "215,215,30",
        ],
        _breath,
    ),
]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(
    ("args", "extract"), TABLES, ids=[" ".join([a[0], Path(a[1]).stem, *a[2:]]) for a, _ in TABLES]
)
def test_tables_print_every_value_whole(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    width: int,
    args: list[str],
    extract: Extract,
) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    doc = json.loads(run(capsys, *args, "--json"))
    text = run(capsys, *args)
    rows = extract(doc)
    assert rows
    assert_rows(text, rows, f"{' '.join(args[:3])} at {width}")
    assert max(len(line) for line in text.splitlines() if not line.startswith(" ")) > 0


@pytest.mark.parametrize("width", WIDTHS)
def test_lines_print_every_value_whole(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    square = str(EX / "mordheim-merchant-square.yaml")
    args = ["shoot", square, "captain", "night-runner", "--seed", "0"]
    shot = json.loads(run(capsys, *args, "--json"))["rulings"][0]
    text = run(capsys, *args)
    odds = [shot["odds"][k]["p"] for k in ("hit", "hit_cover", "miss")]
    dice = [str(d["value"]) for d in shot["dice"]]
    assert_whole(
        text,
        [shot["shooter"], shot["target"], shot["weapon"], str(shot["seed"]), *odds, *dice],
        "shoot",
    )
    args = ["rolloff", "--seed", "7", "--players", "ann", "bob"]
    roll = json.loads(run(capsys, *args, "--json"))["rulings"][0]
    text = run(capsys, *args)
    assert_whole(
        text,
        [
            *roll["players"],
            roll["decides"],
            str(roll["seed"]),
            *(str(d["value"]) for d in roll["log"]["dice"]),
        ],
        "rolloff",
    )
    args = ["activation", str(EX / "darkage-wall.yaml"), "L", "--ap", "3", "move", "attack"]
    act = json.loads(run(capsys, *args, "--json"))["rulings"][0]
    text = run(capsys, *args)
    spent = [f"{s['action']} {s['cost']}" for s in act["spent"]]
    assert_whole(
        text, [act["model"], f"{act['ap']} AP", f"{act['left']} AP left", *spent], "activation"
    )


def test_the_seed_is_printed_to_replay_a_roll(capsys: pytest.CaptureFixture[str]) -> None:
    square = str(EX / "mordheim-merchant-square.yaml")
    for args in (
        ["shoot", square, "captain", "night-runner"],
        ["rolloff"],
        [
            "breath",
            str(EX / "breath-acid.yaml"),
            "wyrm",
            "-w",
            "Acid cloud",
            "--angle",
            "0",
            "--roll",
        ],
    ):
        text = run(capsys, *args)
        found = re.search(r"--seed (\d+) rolls it again", text)
        assert found, args
        again = run(capsys, *args[: -1 if args[-1] == "--roll" else None], "--seed", found[1])
        drop = re.compile(r"seed \d+.*")
        assert drop.sub("", again) == drop.sub("", text), args


# -- the layouts themselves --------------------------------------------------------------------


def _print(width: int, cols: list[Col], rows: list[list[str]]) -> tuple[str, str]:
    console = Console(width=width, file=open("/dev/null", "w"), record=True, highlight=False)  # noqa: SIM115
    layout = print_grid(console, cols, rows, title="t", key=1)
    return layout, console.export_text()


def test_grid_falls_back_to_short_headers_then_to_a_stacked_layout() -> None:
    cols = [Col("name"), Col("a long header", "ah"), Col("another one", "ao"), Col("words")]
    rows = [["militia-1", "2/3", "11/36", "fence, tavern"], ["x", "1", "2", ""]]
    for width, layout in ((80, "full"), (40, "short"), (22, "stacked")):
        used, text = _print(width, cols, rows)
        assert used == layout, (width, used)
        assert_rows(text, [[c for c in r if c] for r in rows], f"{width}")
        assert all(len(line) <= width for line in text.splitlines()), text
    _, text = _print(40, cols, rows)
    assert "ah: a long header" in text and "ao: another one" in text
    _, text = _print(22, cols, rows)
    assert "militia-1\n  a long header 2/3" in text  # a pair never split


def test_a_stacked_pair_longer_than_the_line_is_left_whole() -> None:
    long = "a-very-long-value-that-cannot-fit-anywhere"
    used, text = _print(20, [Col("k"), Col("v")], [["key", long]])
    assert used == "stacked" and _whole(long).search(text)
