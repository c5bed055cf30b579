"""The command line: output forms, exit codes, and one clear line for every mistake."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
    assert doc["options"] == {"grazing_blocks": False, "visible_fraction": True}
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
        }
        assert r["kind"] == "los" and r["refusals"] == [] and r["witness"] is None
        assert set(r["cover_pieces"]) <= {p["id"] for p in _pieces()}
        assert r["visible"] or not r["cover_pieces"]
        assert r["visible"] is not bool(r["blockers"])
        assert isinstance(r["visible_fraction"], float)
        assert r["visible"] or r["cover"] == 0
        for reason in r["reasons"]:
            assert set(reason) == {"rule", "ids", "text"}
            assert reason["rule"].startswith("F")


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
    import jsonschema

    code, out, _ = run(capsys, "schema", "--output")
    assert code == 0
    schema = json.loads(out)
    code, out, _ = run(capsys, "los", DEMO, "--json")
    jsonschema.validate(json.loads(out), schema)


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
