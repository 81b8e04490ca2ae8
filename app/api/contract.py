"""The OpenAPI contract as client generators read it (docs/design.md, "The contract").

FastAPI writes most of it from the routes; this module adds what a generator needs and
FastAPI does not derive:

- **operation ids** from the route function's name, camelCased (`send_message` →
  `sendMessage`), so a new route gets a readable, stable id with no extra line;
- **examples**: each operation's request and response example, from `examples.json`
  beside this module, keyed by operation id (one entry per new route);
- **the problem schema**: `ProblemBody`, which each route's problem responses refer to
  with the codes that operation can answer (`problems.responses`);
- **pagination**: a `cursor`/`limit` query parameter without a description gets the
  common one.

`tests/unit/test_contract.py` fails, naming what to add, when an operation lacks its id,
tag, description or example.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from app.api.problems import ProblemBody

EXAMPLES_FILE = Path(__file__).with_name("examples.json")
REF_PREFIX = "#/components/schemas/"

# What a pagination parameter means, wherever a route takes one without saying.
PAGINATION = {
    "cursor": "Where the page starts: the `next_cursor` of the previous page (omit it for "
    "the first page). The last page has `next_cursor: null`.",
    "limit": "The most items the page holds.",
}


def operation_id(route: APIRoute) -> str:
    """The route's operation id: its function's name in camelCase (`get_run` → `getRun`)."""
    first, *rest = route.name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


@cache
def examples() -> dict[str, dict[str, Any]]:
    """Each operation's examples, by operation id: `request` (its JSON body) and `response`
    (its success body: JSON, or the text of an event stream)."""
    loaded: dict[str, dict[str, Any]] = json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))
    return loaded


def openapi(app: FastAPI) -> dict[str, Any]:
    """The app's contract, made once and cached on the app (FastAPI's `app.openapi`)."""
    if app.openapi_schema is None:
        spec = get_openapi(
            title=app.title,
            version=app.version,
            summary=app.summary,
            description=app.description,
            routes=app.routes,
            tags=app.openapi_tags,
        )
        complete(spec)
        app.openapi_schema = spec
    return app.openapi_schema


def complete(spec: dict[str, Any]) -> None:
    """Add the problem schema, pagination descriptions and examples to `spec`."""
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    problem = ProblemBody.model_json_schema(ref_template=REF_PREFIX + "{model}")
    schemas.setdefault("ProblemBody", problem)
    known = examples()
    for operation in _operations(spec):
        for parameter in operation.get("parameters", ()):
            if parameter["in"] == "query" and parameter["name"] in PAGINATION:
                parameter.setdefault("description", PAGINATION[parameter["name"]])
        example = known.get(operation.get("operationId", ""), {})
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None and "request" in example:
            body["example"] = example["request"]
        if "response" in example:
            for media_type, content in _success_contents(operation):
                if isinstance(example["response"], str) == (media_type == "text/event-stream"):
                    content["example"] = example["response"]


def _operations(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [op for path in spec.get("paths", {}).values() for op in path.values()]


def _success_contents(operation: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The (media type, content) of the operation's first success response with a body."""
    for status in sorted(operation.get("responses", {})):
        content = operation["responses"][status].get("content")
        if re.fullmatch(r"2\d\d", status) and content:
            return list(content.items())
    return []
