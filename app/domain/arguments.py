"""Tool arguments against the tool's JSON Schema: where and why they do not fit.

One check for the engine (a model's call: the model hears what was wrong) and for an
approver's edited arguments (the API answers 422). Paths are inside the arguments; where
the arguments sit in a request is the API's business.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from app.errors import FieldError

# Enough to fix a call in one go, few enough to keep an answer small.
MAX_ERRORS = 10


class SchemaUnusable(Exception):
    """The tool's schema cannot be applied (an agent defined before references were
    checked): nothing can be said about the arguments."""


def argument_errors(
    schema: dict[str, Any] | Draft202012Validator, arguments: Any
) -> list[FieldError]:
    """What is wrong with `arguments` (none: they fit), in a stable order; each path is
    inside the arguments (("items", "0", "name"); () is the whole).

    Raises:
        SchemaUnusable: the schema cannot be applied.
    """
    try:
        validator = (
            schema if isinstance(schema, Draft202012Validator) else (Draft202012Validator(schema))
        )
        found = sorted(validator.iter_errors(arguments), key=str)
    except Exception as exc:
        raise SchemaUnusable(type(exc).__name__) from exc
    return [
        FieldError(tuple(str(part) for part in error.absolute_path), error.message, "json_schema")
        for error in found[:MAX_ERRORS]
    ]
