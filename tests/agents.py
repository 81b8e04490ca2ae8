"""Agent definitions the tests build on."""

from __future__ import annotations

from typing import Any

# What the operator grants the test suite (app/capabilities.py): the tests' own python
# tools (`tests.tools:*`) beside the demo ones, the scripted model, and the tests' keys
# (TEST_OPENAI_API_KEY, TEST_TOOL_API_KEY, ...) bound to the local fake servers on any
# port. As environment variables for worker and server processes; `make_settings` gives
# the same in-process.
GRANTS_ENV = {
    "PERDURE_PYTHON_TOOLS": "app.tools.demo,tests",
    "PERDURE_SCRIPTED_MODEL": "true",
    "PERDURE_SECRET_ENV": "TEST_*_API_KEY@127.0.0.1:*",
}

OBJECT = {"type": "object"}
ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
}


def python_tool(name: str, function: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "name": name,
        "input_schema": schema or OBJECT,
        "executor": {"type": "python", "path": f"tests.tools:{function}"},
    }


def http_tool(name: str, url: str, **executor: Any) -> dict[str, Any]:
    return {
        "name": name,
        "input_schema": OBJECT,
        "executor": {"type": "http", "url": url, "timeout_s": 30, **executor},
    }


def openai_model(base_url: str, *, timeout_s: float = 120) -> dict[str, Any]:
    """An OpenAI-compatible model at `base_url` (a local fake), no key needed."""
    return {
        "provider": "openai",
        "name": "gpt-test",
        "base_url": f"{base_url}/v1",
        "timeout_s": timeout_s,
    }


def calls(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": args} for name, args in pairs]}


def agent(
    agent_id: str, script: list[dict[str, Any]], tools: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    return {
        "id": agent_id,
        "model": {"provider": "scripted", "script": script},
        "tools": tools,
        **extra,
    }
