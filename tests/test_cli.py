"""The command line: output forms, exit codes, and one clear line for every mistake."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from schema_support import validate_json

import arbitre
from arbitre.cli import app, main

DEMO = arbitre.DEMO_SCENARIO
ROOT = Path(__file__).parent.parent


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_los_json_has_the_documented_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "los", DEMO, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["arbitre"] == 2 and doc["kind"] == "los"
    assert doc["rules"] == "frostgrave" and doc["unit"] == "in"
    assert doc["options"] == {"close_call": 2.0, "grazing_blocks": False, "visible_fraction": True}
    table = arbitre.load_table(DEMO)
    sides = {m.id: m.side for m in table.models}
    pairs = {(r["shooter"], r["target"]) for r in doc["rulings"]}
    assert len(pairs) == sum(1 for a in sides for b in sides if sides[a] != sides[b])
    for r in doc["rulings"]:
        assert set(r) == {
            "kind",
            "shooter",
            "target",
            "visible",
            "cover",
            "visible_fraction",
            "blockers",
            "cover_pieces",
            "witness",
            "because",
            "reasons",
            "refusals",
            "margin",
            "margin_test",
            "close_call",
        }
        assert r["kind"] == "los" and r["refusals"] == [] and r["witness"] is None
        assert r["margin"] > 0 and r["margin_test"]  # G8, in the report unit (in)
        assert set(r["cover_pieces"]) <= {p["id"] for p in _pieces()}
        assert r["visible"] or not r["cover_pieces"]
        assert r["visible"] is not bool(r["blockers"])
        assert isinstance(r["visible_fraction"], float)
        assert r["visible"] or r["cover"] == 0
        for reason in r["reasons"]:
            assert set(reason) == {"rule", "ids", "text"}
            assert reason["rule"].startswith(("F", "G"))


def _pieces() -> list[dict[str, object]]:
    import yaml

    doc = yaml.safe_load(Path(DEMO).read_text(encoding="utf-8"))
    return list(doc["terrain"])


def test_los_takes_options_over_the_files(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "los", DEMO, "--shooter", "archer", "-O", "visible_fraction=false", "--json"
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["options"]["visible_fraction"] is False
    assert all(x["rule"] != "F9" for r in doc["rulings"] for x in r["reasons"])
    code, _, err = run(capsys, "los", DEMO, "-O", "visible_fraction=maybe")
    assert code == 2 and "visible_fraction" in err and "true or false" in err


def test_schema_output_describes_the_json(capsys: pytest.CaptureFixture[str]) -> None:

    code, out, _ = run(capsys, "schema", "--output")
    assert code == 0
    schema = json.loads(out)
    code, out, _ = run(capsys, "los", DEMO, "--json")
    validate_json(json.loads(out), schema)


def test_los_selects_pairs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "los",
        DEMO,
        "--shooter",
        "archer",
        "--target",
        "hunter",
        "--target",
        "thug",
        "--json",
    )
    assert code == 0
    assert [(r["shooter"], r["target"]) for r in json.loads(out)["rulings"]] == [
        ("archer", "hunter"),
        ("archer", "thug"),
    ]
    code, out, _ = run(capsys, "los", DEMO, "--shooter", "archer", "--all", "--json")
    assert code == 0
    assert len(json.loads(out)["rulings"]) == len(arbitre.load_table(DEMO).models) - 1


def test_los_human_table_names_rules_and_pieces(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "los", DEMO, "--shooter", "archer", "--explain")
    assert code == 0
    assert "F4 hunter hedge" in out.replace("\n", " ") or "F4 hedge" in out
    assert "hunter is behind small terrain hedge and touches it: +3" in out


def test_los_table_marks_close_calls(capsys: pytest.CaptureFixture[str]) -> None:
    # G8: t touches the hedge by 0.4 mm within the 0.5 mm tolerance (margin 0.1 mm, by
    # hand); a -> c runs far from everything
    golden = ROOT / "tests" / "golden" / "frostgrave" / "g8_close_call.yaml"
    code, out, _ = run(capsys, "los", str(golden), "--shooter", "a")
    assert code == 0
    rows = {line.split()[1]: line for line in out.splitlines() if line.startswith("a ")}
    assert "!" in rows["t"] and "!" not in rows["c"]
    assert "! close call: margin below 2 mm, measure with care (G8)" in out
    code, out, _ = run(capsys, "los", str(golden), "--shooter", "a", "--explain")
    assert code == 0
    assert "margin 0.1 mm (contact t-hedge) ! close call" in out
    code, out, _ = run(capsys, "los", str(golden), "--shooter", "a", "--target", "c")
    assert code == 0 and "close call" not in out


def test_explain_words_the_beam_graze_in_the_report_unit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # G5: the centre line misses the hedge by 0.3 mm, the 1 mm beam touches it
    golden = ROOT / "tests" / "golden" / "frostgrave" / "g5_beam_graze.yaml"
    code, out, _ = run(capsys, "los", str(golden), "--explain")
    assert code == 0
    assert "passes 0.3 mm from hedge: within the 1 mm beam" in out
    assert "margin 0.2 mm (beam hedge)" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["los", DEMO, "--shooter", "nobody"], "unknown model id 'nobody'"),
        (["los", DEMO, "--rules", "chess"], "unknown ruleset 'chess'"),
        (["los", "no-such-file.yaml"], "no-such-file.yaml"),
        (["render", DEMO, "-o", "/no/such/dir/x.svg"], "cannot write /no/such/dir/x.svg"),
        (["render", DEMO, "-o", "x.svg", "--shooter", "ghost"], "unknown model id 'ghost'"),
        (["los", DEMO, "--bogus"], "--bogus"),
    ],
)
def test_mistakes_get_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    needle: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *args)
    assert code == 2
    assert needle in err
    assert "Traceback" not in err
    assert not (tmp_path / "x.svg").exists()


def test_bad_scenario_lists_every_problem(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "arbitre: 1\ntable: [100, 100]\nmodels:\n"
        "  - {id: a, side: r, at: [10, 10], base: -5}\n"
        "  - {id: a, side: b, at: [20, 20]}\n"
    )
    code, _, err = run(capsys, "validate", str(bad))
    assert code == 2
    assert "models[0].base" in err and "-5" in err
    assert "models[1].id" in err
    code, _, err = run(capsys, "los", str(bad))
    assert code == 2 and "models[0].base" in err


def test_unknown_option_in_scenario(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "opt.yaml"
    f.write_text(
        "arbitre: 1\nrules: frostgrave\ntable: [100, 100]\noptions: {visibel_fraction: true}\n"
        "models:\n  - {id: a, side: r, at: [10, 10]}\n  - {id: b, side: s, at: [90, 90]}\n"
    )
    code, _, err = run(capsys, "los", str(f))
    assert code == 2
    assert "visibel_fraction" in err and "visible_fraction" in err


def test_validate_schema_render_demo(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "validate", DEMO)
    assert code == 0 and "12 models" in out
    code, out, _ = run(capsys, "schema")
    assert code == 0 and "properties" in json.loads(out)
    svg = tmp_path / "t.svg"
    code, out, _ = run(capsys, "render", DEMO, "-o", str(svg), "--shooter", "archer")
    assert code == 0 and svg.read_text().startswith("<svg")
    demo_svg = tmp_path / "demo.svg"
    code, out, _ = run(capsys, "demo", "-o", str(demo_svg))
    assert code == 0
    assert str(demo_svg) in out.replace("\n", "")
    assert "archer" in out and "F5" in out
    assert demo_svg.read_text().count("<line") > 5


def test_demo_table_exercises_every_f_rule() -> None:
    table = arbitre.load_table(DEMO)
    cited: set[str] = set()
    for m in table.models:
        for other in table.models:
            if m.side == table.sides()[0] and other.side != m.side:
                cited |= set(arbitre.los(table, m.id, other.id).rules)
    assert {f"F{i}" for i in range(1, 10)} <= cited


def test_examples_carry_the_demo_table() -> None:
    assert (ROOT / "examples" / "frostgrave-demo.yaml").read_text() == Path(DEMO).read_text()


def test_every_command_is_documented_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    names = [c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands]
    assert names
    for name in names:
        assert f"arbitre {name}" in readme, name


def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arbitre", "los", DEMO, "--shooter", "archer", "--target", "nobody"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "nobody" in done.stderr


# -- consistency: help, -O, --rules, --max-bytes, pictures ------------------------------------

SQUARE = str(ROOT / "examples" / "mordheim-merchant-square.yaml")
ACID = str(ROOT / "examples" / "breath-acid.yaml")
WALL = str(ROOT / "examples" / "darkage-wall.yaml")
#: Commands that read a scenario file, with arguments that make them answer.
READING = {
    "los": [DEMO],
    "render": [DEMO, "-o", "x.svg"],
    "validate": [DEMO],
    "targets": [SQUARE, "captain"],
    "shoot": [SQUARE, "captain", "night-runner", "--seed", "0"],
    "breath": [ACID, "wyrm", "-w", "Acid cloud", "--angle", "0"],
    "activation": [WALL, "L", "--ap", "3", "move"],
}
#: Commands where a ruleset option or the choice of a ruleset means something.
RULED = ["los", "render", "targets", "shoot", "breath", "rolloff", "activation"]


def _names() -> list[str]:
    return [c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands]


@pytest.mark.parametrize("command", ["", *_names()])
def test_help_has_no_type_placeholders(capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, _ = run(capsys, *([command] if command else []), "--help")
    assert code == 0 and "Usage" in out
    placeholder = re.compile(r"<(bool|str|int|float|path|list\[[^\]]*\]|[a-z]+,[a-z,]+)>")
    assert not placeholder.search(out), placeholder.findall(out)


@pytest.mark.parametrize("command", RULED)
def test_options_and_rules_on_every_command_they_mean_something(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    _, out, _ = run(capsys, command, "--help")
    assert "--option" in out and "-O" in out and "--rules" in out


def test_rules_and_options_are_used(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "rolloff", "--rules", "darkage", "--seed", "1", "--json")
    assert code == 0 and json.loads(out)["rules"] == "darkage"
    code, _, err = run(capsys, "rolloff", "--rules", "mordheim")
    assert code == 2 and "does not answer 'rolloff'" in err
    code, _, err = run(capsys, "breath", *READING["breath"], "--rules", "frostgrave")
    assert code == 2 and "does not answer 'breath'" in err
    code, _, err = run(capsys, "los", DEMO, "--rules", "")
    assert code == 2 and "unknown ruleset ''" in err
    code, _, err = run(capsys, "demo", "-o", str(tmp_path / "d.svg"), "-O", "bogus=1")
    assert code == 2 and "unknown option 'bogus'" in err and not list(tmp_path.iterdir())
    code, _, err = run(capsys, "demo", "-o", str(tmp_path / "d.svg"), "-O", "grazing_blocks=true")
    assert code == 0, err


@pytest.mark.parametrize("command", sorted(READING))
def test_max_bytes_on_every_command_that_reads_a_file(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    args = [command, *READING[command]]
    code, _, err = run(capsys, *args, "--max-bytes", "64")
    assert code == 2 and "more than 64 bytes" in err and "\n" not in err.strip()
    code, _, err = run(capsys, *args, "--max-bytes", "0")
    assert code == 2 and "--max-bytes 0" in err
    code, _, err = run(capsys, *args, "--max-bytes", "10000000")
    assert code == 0, err


def test_weapon_may_be_left_out_when_there_is_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "targets", SQUARE, "captain", "--json")
    assert code == 0 and json.loads(out)["rulings"][0]["weapon"] == "Crossbow"
    code, out, _ = run(capsys, "shoot", SQUARE, "captain", "night-runner", "-w", "crossbow")
    assert code == 0 and "with Crossbow" in out
    grape = str(ROOT / "examples" / "breath-grapeshot.yaml")
    code, out, _ = run(capsys, "breath", grape, "gunner", "--angle", "0", "--json")
    assert code == 0 and json.loads(out)["rulings"][0]["weapon"]["name"] == "Blunderbuss"


@pytest.mark.parametrize(
    "args",
    [
        ["render", DEMO, "-o", "{out}"],
        ["demo", "-o", "{out}"],
        ["breath", ACID, "wyrm", "-w", "Acid cloud", "--angle", "0", "--svg", "{out}"],
    ],
)
@pytest.mark.parametrize("name", ["x.pdf", "x.svg.txt", "noext"])
def test_pictures_refuse_an_extension_they_cannot_write(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], name: str
) -> None:
    out = tmp_path / name
    code, _, err = run(capsys, *(a.replace("{out}", str(out)) for a in args))
    assert code == 2 and "cannot write" in err and ".svg, or .png" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert not installed")
def test_render_writes_png_through_rsvg_convert(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    png = tmp_path / "t.png"
    code, _, err = run(capsys, "render", DEMO, "-o", str(png), "--shooter", "archer")
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.png"]  # no temporary file left


def test_png_without_rsvg_convert_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    code, _, err = run(capsys, "render", DEMO, "-o", str(tmp_path / "t.png"))
    assert code == 2 and "rsvg-convert" in err and "librsvg2-bin" in err
    assert list(tmp_path.iterdir()) == []


def test_ids_with_markup_or_control_characters_print_and_draw(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import xml.etree.ElementTree as ET

    odd = tmp_path / "odd.yaml"
    odd.write_text(
        "arbitre: 1\nrules: frostgrave\ntable: [100, 100]\nmodels:\n"
        '  - {id: "[/x]\\u0001a", side: "[bold]", at: [10, 10]}\n'
        "  - {id: b, side: s, at: [90, 90]}\n",
        encoding="utf-8",
    )
    code, out, err = run(capsys, "los", str(odd))
    assert code == 0, err
    assert "[/x]" in out
    svg = tmp_path / "odd.svg"
    code, _, err = run(capsys, "render", str(odd), "-o", str(svg), "--shooter", "b")
    assert code == 0, err
    ET.fromstring(svg.read_text(encoding="utf-8"))  # well-formed XML


WARNED = """arbitre: 1
rules: frostgrave
unit: in
table: [36, 36]
terrain:
  - {id: hedge, sight: cover, rect: {at: [20, 20], width: 6, depth: 0.5}}
models:
  - {id: a, side: r, at: [20, 20.8], base: 1}
  - {id: b, side: b, at: [5, 5], base: 25}
"""


def test_warnings_head_the_output_on_stderr_unless_quiet(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 11: plausible mistakes are said (stderr, one line each), never stop a command,
    never reach stdout or JSON; --quiet hides them."""
    f = tmp_path / "w.yaml"
    f.write_text(WARNED)
    code, out, err = run(capsys, "validate", str(f))
    assert code == 0 and "ok (2 models" in out
    lines = err.strip().splitlines()
    assert lines == [
        "arbitre: warning: models[1]: base 25 in (635 mm) is over the plausible 10-200 mm (a "
        "base in mm in an in file?)",
        "arbitre: warning: models[0]: a is 0.05 in from hedge: not touching it (G4 tolerance "
        "0.5 mm); meant to touch? (at: {touching: hedge, ...} places it exactly)",
    ]
    for command in (["los", str(f), "--json"], ["breath", str(f), "a", "-w", "x", "--best"]):
        code, out, err = run(capsys, *command)
        assert err.count("arbitre: warning:") == 2 or code == 2
    code, out, err = run(capsys, "los", str(f), "--json")
    assert code == 0 and json.loads(out)["rulings"] and "warning" not in out
    code, out, err = run(capsys, "los", str(f), "--quiet")
    assert code == 0 and err == ""


def test_a_huge_id_is_not_echoed_whole(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 17: a 100,000-character id gives one short line, not 100 kB of stderr."""
    code, _, err = run(capsys, "los", DEMO, "--shooter", "x" * 100_000)
    assert code == 2 and "unknown model id 'xxx" in err
    assert len(err) < 1_000 and err.count("\n") == 1
