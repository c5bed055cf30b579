"""JSON Schema of the output documents (JSON 2): the envelope, the fragments rulings are
made of (reasons, exact chances, laws, lengths, points), and each question's ruling as its
ruleset declares it (:attr:`~arbitre.rules.registry.Question.schema`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

STR: dict[str, Any] = {"type": "string"}
BOOL: dict[str, Any] = {"type": "boolean"}
INT: dict[str, Any] = {"type": "integer"}
NUMBER: dict[str, Any] = {"type": "number"}
IDS: dict[str, Any] = {"type": "array", "items": STR}
#: A length in the report unit.
LENGTH: dict[str, Any] = NUMBER
POINT: dict[str, Any] = {"type": "array", "items": NUMBER, "minItems": 2, "maxItems": 2}
REASON: dict[str, Any] = {
    "type": "object",
    "properties": {"rule": STR, "ids": IDS, "text": STR},
    "required": ["rule", "ids", "text"],
    "additionalProperties": False,
}
REASONS: dict[str, Any] = {"type": "array", "items": {"$ref": "#/$defs/reason"}}
#: An exact chance: ``{"p": "7/36", "float": 0.194}``.
CHANCE: dict[str, Any] = {"$ref": "#/$defs/chance"}
#: An exact law: ``{"outcomes", "p", "float", "mean"}``.
LAW: dict[str, Any] = {"$ref": "#/$defs/law"}


#: The G8 fields every ruling carries (:class:`~arbitre.rules.ruling.Margin`).
MARGIN: dict[str, Any] = {
    "margin": {"anyOf": [NUMBER, {"type": "null"}]},
    "margin_test": STR,
    "close_call": BOOL,
}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null."""
    return {"anyOf": [schema, {"type": "null"}]}


def array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def obj(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    """An object with these required (and optional) properties, no others."""
    return {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
        "additionalProperties": False,
    }


#: The ruling of the ``los`` question (every ruleset that answers it).
LOS: dict[str, Any] = {
    "properties": {
        "shooter": STR,
        "target": STR,
        "visible": BOOL,
        "cover": INT,
        "visible_fraction": nullable(NUMBER),
        "blockers": IDS,
        "cover_pieces": IDS,
        "witness": nullable(array(POINT)),
        "because": STR,
    },
    "required": [
        "shooter",
        "target",
        "visible",
        "cover",
        "visible_fraction",
        "blockers",
        "cover_pieces",
        "witness",
        "because",
    ],
}

_DEFS: dict[str, Any] = {
    "reason": REASON,
    "chance": {
        "type": "object",
        "properties": {"p": {"type": "string", "pattern": r"^-?\d+(/\d+)?$"}, "float": NUMBER},
        "required": ["p", "float"],
        "additionalProperties": False,
    },
    "law": {
        "type": "object",
        "properties": {
            "outcomes": {"type": "array"},
            "p": array({"type": "string", "pattern": r"^\d+(/\d+)?$"}),
            "float": array(NUMBER),
            "mean": nullable({"$ref": "#/$defs/chance"}),
        },
        "required": ["outcomes", "p", "float", "mean"],
        "additionalProperties": False,
    },
}


def ruling_schema(kind: str, declared: dict[str, Any]) -> dict[str, Any]:
    """One ruling of ``kind``: the common fields and the question's own."""
    props = {"kind": {"const": kind}, "reasons": REASONS, "refusals": REASONS, **MARGIN}
    props.update(declared.get("properties", {}))
    return {
        "type": "object",
        "properties": props,
        "required": ["kind", "reasons", "refusals", *MARGIN, *declared.get("required", [])],
        "additionalProperties": False,
    }


def merged(schemas: list[Mapping[str, Any]]) -> dict[str, Any]:
    """One ruling schema for a question several rulesets answer: every property any of
    them declares (the first declaration of a name wins), required when all require it."""
    props: dict[str, Any] = {}
    for s in schemas:
        for name, prop in s.get("properties", {}).items():
            props.setdefault(name, prop)
    required = [n for n in props if all(n in s.get("required", ()) for s in schemas)]
    return {"properties": props, "required": required}


def output_schema() -> dict[str, Any]:
    """The JSON Schema of every ``--json`` document: one envelope per question asked."""
    from arbitre.rules import RULESETS

    declared: dict[str, list[Mapping[str, Any]]] = {}
    rules_by_kind: dict[str, list[str]] = {}
    for ruleset in RULESETS.values():
        for q in ruleset.questions.values():
            declared.setdefault(q.name, []).append(q.schema)
            rules_by_kind.setdefault(q.name, []).append(ruleset.name)
    kinds = {kind: ruling_schema(kind, merged(found)) for kind, found in declared.items()}
    envelopes = [
        {
            "type": "object",
            "properties": {
                "arbitre": {"const": 2},
                "kind": {"const": kind},
                "rules": {"enum": rules_by_kind[kind]},
                "unit": nullable(STR),
                "options": {"type": "object"},
                "rulings": array({"$ref": f"#/$defs/ruling_{kind}"}),
            },
            "required": ["arbitre", "kind", "rules", "unit", "options", "rulings"],
            "additionalProperties": False,
        }
        for kind in kinds
    ]
    defs = dict(_DEFS)
    defs.update({f"ruling_{k}": v for k, v in kinds.items()})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "arbitre output, JSON 2",
        "oneOf": envelopes,
        "$defs": defs,
    }
