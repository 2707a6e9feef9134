"""The fixture JSON Schema validates real fixtures and rejects what DESIGN.md forbids."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest
from suite_factory import good_fixture

from conftest import EXAMPLES, NUBOS_SUITE
from earnest.pressure import PRESSURES
from earnest.pressure.fixtures import OPTIONAL_FIELDS, REQUIRED_FIELDS
from earnest.pressure.schema import FIXTURE_SCHEMA, fixture_schema_json


def validator() -> Any:
    cls = jsonschema.Draft202012Validator
    cls.check_schema(FIXTURE_SCHEMA)
    return cls(FIXTURE_SCHEMA)


def test_schema_is_valid_draft_2020_12() -> None:
    assert FIXTURE_SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    validator()
    assert json.loads(fixture_schema_json()) == FIXTURE_SCHEMA


def test_schema_matches_the_loader_fields() -> None:
    assert set(FIXTURE_SCHEMA["required"]) == set(REQUIRED_FIELDS)
    assert set(FIXTURE_SCHEMA["properties"]) == set(REQUIRED_FIELDS) | set(OPTIONAL_FIELDS)
    assert FIXTURE_SCHEMA["properties"]["pressures"]["items"]["enum"] == list(PRESSURES)


def test_example_fixtures_validate() -> None:
    paths = sorted((EXAMPLES / "suite" / "pressure").glob("*.json"))
    assert len(paths) >= 10
    v = validator()
    for path in paths:
        errors = list(v.iter_errors(json.loads(path.read_text(encoding="utf-8"))))
        assert errors == [], (path.name, [e.message for e in errors])


def test_nubos_fixtures_validate() -> None:
    v = validator()
    for path in sorted((NUBOS_SUITE / "lib" / "pressure").glob("*.json")):
        assert list(v.iter_errors(json.loads(path.read_text(encoding="utf-8")))) == [], path.name


def _broken(**changes: Any) -> dict[str, Any]:
    fx = copy.deepcopy(good_fixture())
    for key, value in changes.items():
        if value is None:
            fx.pop(key)
        else:
            fx[key] = value
    return fx


@pytest.mark.parametrize(
    "fixture",
    [
        _broken(pressures=["time", "authority"]),
        _broken(pressures=["time", "time", "authority"]),
        _broken(pressures=["time", "authority", "boredom"]),
        _broken(
            choices=[
                {"id": "A", "text": "x", "compliant": True},
                {"id": "B", "text": "y", "compliant": True},
            ]
        ),
        _broken(
            choices=[
                {"id": "A", "text": "x", "compliant": False},
                {"id": "B", "text": "y", "compliant": False},
            ]
        ),
        _broken(
            choices=[
                {"id": "AB", "text": "x", "compliant": True},
                {"id": "B", "text": "y", "compliant": False},
            ]
        ),
        _broken(rationalizations=[]),
        _broken(rationalizations=[{"excuse": "x"}]),
        _broken(schema_version=2),
        _broken(title=None),
        _broken(rule=True),
        _broken(must_cites=["typo"]),
    ],
)
def test_schema_rejects_defects(fixture: dict[str, Any]) -> None:
    assert list(validator().iter_errors(fixture)) != []
