"""Demo tools that ship with Perdure, for the README's walk-through and quick trials.

Use them as `{"executor": {"type": "python", "path": "app.tools.demo:add"}}`.
"""

from __future__ import annotations

from typing import Any

from app.tools.base import ToolContext


def add(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    """Add two numbers: {"a": 2, "b": 3} -> {"result": 5}."""
    return {"result": arguments["a"] + arguments["b"]}


def echo(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    """Return the arguments and the call's id (handy to watch idempotency keys)."""
    return {"arguments": arguments, "tool_call_id": context.tool_call_id}
