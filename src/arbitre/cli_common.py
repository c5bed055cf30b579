"""What every command module shares (a face): JSON output and ``-O NAME=VALUE`` options."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

import yaml

from arbitre.errors import RulesError


def print_json(doc: object) -> None:
    """Machine output: plain JSON on stdout, no colours."""
    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def option_pairs(given: Sequence[str] | None) -> dict[str, object]:
    """``NAME=VALUE`` strings from the command line, values read as YAML (``true``, ``2``)."""
    values: dict[str, object] = {}
    for item in given or []:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            raise RulesError(f"option {item!r}: expected NAME=VALUE")
        try:
            values[name.strip()] = yaml.safe_load(text)
        except yaml.YAMLError:
            values[name.strip()] = text
    return values
