"""Tool input schemas: checked against the meta-schema once per distinct schema, and an
invalid one refused every time it comes back."""

from __future__ import annotations

from unittest import mock

import pytest
from jsonschema import Draft202012Validator

from app.domain import agent
from app.domain.agent import check_json_schema


def test_a_valid_schema_is_checked_once__however_often_definitions_load() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 7919}}}
    same_keys_reordered = {
        "properties": {"n": {"minimum": 7919, "type": "integer"}},
        "type": "object",
    }
    agent._check_schema_text.cache_clear()
    with mock.patch.object(
        Draft202012Validator, "check_schema", wraps=Draft202012Validator.check_schema
    ) as meta_check:
        for _ in range(3):
            assert check_json_schema(schema) is schema
        assert check_json_schema(same_keys_reordered) is same_keys_reordered
    assert meta_check.call_count == 1


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        (
            {"type": "object", "properties": {"n": {"type": "integr-7907"}}},
            "not a valid JSON Schema",
        ),
        ({"$ref": "https://example.invalid/s.json"}, "nothing is fetched"),
        ({"$ref": "#/$defs/missing-7901"}, "resolves to nothing"),
    ],
)
def test_an_invalid_schema_is_refused_every_time(schema: dict[str, object], says: str) -> None:
    for _ in range(2):
        with pytest.raises(ValueError, match=says):
            check_json_schema(schema)
