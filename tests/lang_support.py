"""What the language tests share (issue 12): running a command as a user does, checking
its output against a golden file in each language, and a JSON document with its worded
fields blanked. Golden files are rewritten with ``ARBITRE_WRITE_GOLDEN=1``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from arbitre.faces.cli import main

ROOT = Path(__file__).resolve().parents[1]
WRITE = os.environ.get("ARBITRE_WRITE_GOLDEN") == "1"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``arbitre ARGS``."""
    code = main([*args])
    out, err = capsys.readouterr()
    return code, out, err


def as_a_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 100-column terminal in the project's folder (the golden files' conditions)."""
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.chdir(ROOT)


def check_golden(path: Path, text: str) -> None:
    """``text`` is the stored golden file ``path`` (written instead when WRITE)."""
    if WRITE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path} (ARBITRE_WRITE_GOLDEN=1 rewrites)"


def without_texts(doc: Any) -> Any:
    """The document with every worded field (``text``) blanked."""
    if isinstance(doc, dict):
        return {k: "" if k == "text" else without_texts(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [without_texts(v) for v in doc]
    return doc


def check_case(
    capsys: pytest.CaptureFixture[str],
    golden: Path,
    case: str,
    lang: str,
    args: list[str] | tuple[str, ...],
    wanted: int = 0,
) -> None:
    """``arbitre ARGS --lang LANG`` exits ``wanted`` and prints the golden file
    ``golden/CASE.LANG.txt`` (stdout, then stderr if any)."""
    code, out, err = run(capsys, *args, "--lang", lang)
    assert code == wanted, err
    text = out + ("--- stderr ---\n" + err if err else "")
    check_golden(golden / f"{case}.{lang}.txt", text)
