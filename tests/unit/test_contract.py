"""The contract a client generator reads: every operation has a readable id, a tag, a
description, examples that fit its schemas, and its problem codes (app/api/contract.py).

A new route fails here until it has them; each message says what to add.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest

from app.api.contract import examples
from app.main import create_app
from app.settings import Settings

OPERATION_ID = re.compile(r"[a-z]+(?:[A-Z][a-z0-9]*)+|[a-z]+")


def spec() -> dict[str, Any]:
    return create_app(Settings(database_url=None)).openapi()


def operations() -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{method.upper()} {path}", op)
        for path, methods in spec()["paths"].items()
        for method, op in methods.items()
    ]


def fits(value: Any, schema: dict[str, Any], document: dict[str, Any]) -> list[str]:
    """What is wrong with `value` against `schema`, whose refs point into `document`."""
    validator = jsonschema.Draft202012Validator({**schema, "components": document["components"]})
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(value)
    ]


def success(op: dict[str, Any]) -> dict[str, Any]:
    """The content of the operation's first 2xx response with a body ({} if none)."""
    for status in sorted(op["responses"]):
        if status.startswith("2") and op["responses"][status].get("content"):
            content: dict[str, Any] = op["responses"][status]["content"]
            return content
    return {}


def test_contract__every_operation_has_a_readable_unique_id_a_tag_and_a_description() -> None:
    seen: dict[str, str] = {}
    for where, op in operations():
        op_id = op.get("operationId", "")
        assert OPERATION_ID.fullmatch(op_id), (
            f"{where}: operation id {op_id!r} is not camelCase; it is the route function's "
            "name camelCased, so name the function verb_noun (e.g. `list_widgets`)"
        )
        assert op_id not in seen, f"{where}: operation id {op_id!r} is also {seen[op_id]}'s"
        seen[op_id] = where
        assert op.get("tags"), f'{where}: no tag; give its APIRouter `tags=["<resource>"]`'
        assert (op.get("description") or "").strip(), (
            f"{where}: no description; give the route function a docstring"
        )


def test_contract__every_operation_has_examples_that_fit_its_schemas() -> None:
    document = spec()
    known = examples()
    ids = {op["operationId"] for _, op in operations()}
    assert not set(known) - ids, f"examples of no operation: {sorted(set(known) - ids)}"
    for where, op in operations():
        op_id = op["operationId"]
        assert op_id in known, (
            f'{where}: no example; add "{op_id}": {{"request": <its JSON body, if any>, '
            '"response": <its success body>} to app/api/examples.json'
        )
        body = op.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None:
            assert "example" in body, f'{where}: add a "request" to {op_id!r} in examples.json'
            wrong = fits(body["example"], body["schema"], document)
            assert not wrong, f"{where}: the request example does not fit: {wrong}"
        content = success(op)
        if "application/json" in content:
            json_body = content["application/json"]
            assert "example" in json_body, f'{where}: add a "response" to {op_id!r}'
            wrong = fits(json_body["example"], json_body["schema"], document)
            assert not wrong, f"{where}: the response example does not fit: {wrong}"
        elif "text/event-stream" in content:
            text = content["text/event-stream"].get("example", "")
            assert text.startswith("id: "), f'{where}: add the stream\'s text as "response"'


def test_contract__problem_responses_name_their_codes() -> None:
    document = spec()
    for where, op in operations():
        for status, response in op["responses"].items():
            if not re.fullmatch(r"[45]\d\d", status):
                continue
            content = response.get("content", {})
            assert list(content) == ["application/problem+json"], (where, status, list(content))
            schema = content["application/problem+json"]["schema"]
            codes = schema["allOf"][1]["properties"]["code"]["enum"]
            assert codes, (where, status)
            example = content["application/problem+json"]["example"]
            assert example["status"] == int(status)
            assert example["code"] in codes
            assert not fits(example, schema, document), (where, status)


@pytest.mark.parametrize(
    ("path", "method", "status", "code"),
    [
        ("/v1/sessions/{session_id}/runs", "post", "409", "SESSION_BUSY"),
        ("/v1/sessions/{session_id}/runs", "post", "422", "IDEMPOTENCY_KEY_REUSED"),
        ("/v1/approvals/{approval_id}/decision", "post", "409", "APPROVAL_ALREADY_DECIDED"),
        ("/v1/runs/{run_id}", "get", "404", "NOT_FOUND"),
        ("/readyz", "get", "503", "DATABASE_UNAVAILABLE"),
    ],
)
def test_contract__an_operation_lists_the_codes_its_route_declares(
    path: str, method: str, status: str, code: str
) -> None:
    response = spec()["paths"][path][method]["responses"][status]
    schema = response["content"]["application/problem+json"]["schema"]
    assert code in schema["allOf"][1]["properties"]["code"]["enum"]


def test_contract__bearer_scheme_pagination_and_idempotency_are_documented() -> None:
    document = spec()
    assert document["components"]["securitySchemes"]["ApiKey"] == {
        "type": "http",
        "scheme": "bearer",
        "description": document["components"]["securitySchemes"]["ApiKey"]["description"],
    }
    send = document["paths"]["/v1/sessions/{session_id}/runs"]["post"]
    header = next(p for p in send["parameters"] if p["in"] == "header")
    assert header["name"] == "Idempotency-Key"
    assert header["description"]
    assert send["security"] == [{"ApiKey": ["runs:write"]}]
    for where, op in operations():
        for parameter in op.get("parameters", ()):
            if parameter["in"] == "query" and parameter["name"] in {"cursor", "limit"}:
                assert parameter.get("description"), (where, parameter["name"])
    stream = document["paths"]["/v1/runs/{run_id}/stream"]["get"]
    item = stream["responses"]["200"]["content"]["text/event-stream"]["schema"]
    assert "run.finished" in item["properties"]["event"]["description"]
    assert any(p["name"] == "Last-Event-ID" for p in stream["parameters"])
