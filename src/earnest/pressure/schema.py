"""The fixture JSON Schema (draft 2020-12), so editors can validate fixtures as they are written.

It states the schema in DESIGN.md. What a JSON Schema cannot say (``correct_choice`` is the
id of the compliant choice, choice ids are unique, the agent and rule exist, counters answer
their excuses, nothing leaks the citation) is checked by ``earnest lint``.

Example:
    >>> FIXTURE_SCHEMA["properties"]["pressures"]["minItems"]
    3
    >>> fixture_schema_json().startswith("{")
    True
"""

from __future__ import annotations

import json
from typing import Any

from earnest.pressure.evidence import GLOB_FIELDS
from earnest.pressure.evidence_shapes import ALL_OF_FIELDS
from earnest.pressure.fixtures import MODES, REQUIRED_FIELDS
from earnest.pressure.models import PRESSURES

_NON_EMPTY = {"type": "string", "minLength": 1, "pattern": r"\S"}
_GLOBS = {"type": "array", "items": _NON_EMPTY}
_STEP = {
    "type": "string",
    "pattern": r"^(ran|ran_ok|changed|deleted) +\S",
    "description": 'a step: "ran GLOB", "ran_ok GLOB", "changed GLOB" or "deleted GLOB"',
}
_ORDER = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "additionalProperties": False,
        "properties": {"before": _STEP, "after_last": _STEP, "then": _STEP},
        "required": ["then"],
        "oneOf": [{"required": ["before"]}, {"required": ["after_last"]}],
    },
}
_CONTENT = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "text": _NON_EMPTY,
            "file": _NON_EMPTY,
            "commits": {"type": "boolean"},
            "after": _NON_EMPTY,
            "before": _NON_EMPTY,
        },
        "required": ["text"],
    },
}
_EVIDENCE = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        **{name: _GLOBS for name in GLOB_FIELDS},
        "all_of": {
            "type": "object",
            "additionalProperties": False,
            "minProperties": 1,
            "properties": {name: _GLOBS for name in ALL_OF_FIELDS},
        },
        "order": _ORDER,
        "contains": _CONTENT,
        "lacks": _CONTENT,
    },
    "description": "what taking this option leaves in the workspace (docs/suites.md)",
}

FIXTURE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "earnest pressure fixture",
    "description": (
        "One pressure scenario (the ADR-0024 schema): a realistic work situation with three or "
        "more stacked pressures and a forced choice with exactly one compliant option."
    ),
    "type": "object",
    "required": list(REQUIRED_FIELDS),
    "additionalProperties": False,
    "properties": {
        "schema_version": {"const": 1},
        "id": {**_NON_EMPTY, "description": "unique across the suite"},
        "agent": {**_NON_EMPTY, "description": "an agent doc's front-matter name or file stem"},
        "rule": {
            "description": "a rule id in the doctrine, claimed by the agent",
            "oneOf": [{"type": "integer"}, _NON_EMPTY],
        },
        "title": {**_NON_EMPTY, "description": "short human title (never shown to the agent)"},
        "scenario": {**_NON_EMPTY, "description": "the situation, written as real work"},
        "pressures": {
            "type": "array",
            "items": {"enum": list(PRESSURES)},
            "minItems": 3,
            "uniqueItems": True,
        },
        "choices": {
            "type": "array",
            "minItems": 2,
            "maxItems": 26,
            "items": {
                "type": "object",
                "required": ["id", "text", "compliant"],
                "additionalProperties": False,
                "properties": {
                    "id": {"type": "string", "pattern": "^[A-Za-z]$"},
                    "text": _NON_EMPTY,
                    "compliant": {"type": "boolean"},
                    "evidence": _EVIDENCE,
                },
            },
            "contains": {"type": "object", "properties": {"compliant": {"const": True}}},
            "minContains": 1,
            "maxContains": 1,
        },
        "correct_choice": {
            "type": "string",
            "pattern": "^[A-Za-z]$",
            "description": "the id of the one compliant choice",
        },
        "rationalizations": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["excuse", "counter"],
                "additionalProperties": False,
                "properties": {"excuse": _NON_EMPTY, "counter": _NON_EMPTY},
            },
        },
        "must_cite": {
            "type": "array",
            "items": _NON_EMPTY,
            "description": "strings a passing reply must also contain",
        },
        "workspace": {
            **_NON_EMPTY,
            "description": "a folder of the suite, copied fresh per acted sample",
        },
        "mode": {
            "enum": list(MODES),
            "description": "act: live runs act the fixture out in its workspace",
        },
    },
}
"""The fixture schema as a Python mapping (JSON-serialisable)."""


def fixture_schema_json() -> str:
    """The fixture schema as indented JSON text."""
    return json.dumps(FIXTURE_SCHEMA, indent=2) + "\n"


SCHEMAS: dict[str, dict[str, Any]] = {"fixture": FIXTURE_SCHEMA}
"""Schemas by name, for ``earnest schema NAME``."""

__all__ = ["FIXTURE_SCHEMA", "SCHEMAS", "fixture_schema_json"]
