"""Python tools the tests' agents call (`tests.tools:NAME`)."""

from __future__ import annotations

from typing import Any

from app.tools.base import ToolContext


def add(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    return {"result": arguments["a"] + arguments["b"]}


async def echo(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    return {"echo": arguments, "tool_call_id": context.tool_call_id}


def boom(arguments: dict[str, Any], context: ToolContext) -> None:
    raise RuntimeError("the payment service is down")


def noop(arguments: dict[str, Any], context: ToolContext) -> str:
    return "x" * int(arguments.get("size", 0))
