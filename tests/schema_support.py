"""JSON Schema checks for the tests: :func:`validate_json` is ``jsonschema.validate`` with
each schema checked against its meta-schema once (``jsonschema.validate`` checks it at
every call: half a second for the output schema, most of the time of the tests that
validate many answers)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

#: One checked validator per schema (by its JSON).
_VALIDATORS: dict[str, Any] = {}


def validate_json(instance: object, schema: dict[str, Any]) -> None:
    """``jsonschema.validate(instance, schema)`` with the schema checked once: the same
    verdict and the same (best-matching) error."""
    key = json.dumps(schema, sort_keys=True)
    if key not in _VALIDATORS:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        _VALIDATORS[key] = cls(schema)
    error = jsonschema.exceptions.best_match(_VALIDATORS[key].iter_errors(instance))
    if error is not None:
        raise error
