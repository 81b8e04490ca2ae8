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


class ConcurrencyProbe:
    """Counts calls in flight at once (for the tool_concurrency bound)."""

    in_flight = 0
    peak = 0


async def probe(arguments: dict[str, Any], context: ToolContext) -> dict[str, int]:
    import asyncio

    ConcurrencyProbe.in_flight += 1
    ConcurrencyProbe.peak = max(ConcurrencyProbe.peak, ConcurrencyProbe.in_flight)
    try:
        await asyncio.sleep(float(arguments.get("sleep", 0.05)))
    finally:
        ConcurrencyProbe.in_flight -= 1
    return {"slept": arguments.get("sleep", 0.05)}


async def sleep(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    import asyncio

    await asyncio.sleep(float(arguments["seconds"]))
    return {"slept": arguments["seconds"], "label": arguments.get("label")}


# -- tools that misbehave: containment (nothing a tool does may stop a worker) -------------


def exit_now(arguments: dict[str, Any], context: ToolContext) -> None:
    raise SystemExit(3)


async def exit_now_async(arguments: dict[str, Any], context: ToolContext) -> None:
    raise SystemExit(4)


def interrupt(arguments: dict[str, Any], context: ToolContext) -> None:
    raise KeyboardInterrupt


async def generator_exit(arguments: dict[str, Any], context: ToolContext) -> None:
    raise GeneratorExit


class Strange(BaseException):
    """Neither an Exception nor one of the interpreter's own BaseExceptions."""


def strange(arguments: dict[str, Any], context: ToolContext) -> None:
    raise Strange("not an Exception")


async def own_cancel(arguments: dict[str, Any], context: ToolContext) -> None:
    """Raises CancelledError although nobody cancelled it."""
    import asyncio

    raise asyncio.CancelledError


def sleep_sync(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    import time

    time.sleep(float(arguments["seconds"]))
    return {"slept": arguments["seconds"]}


# -- a poison run: a tool that kills the worker running it ----------------------------------


def kill_worker(arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    """SIGKILLs the process running it (no cleanup, like an OOM kill or a segfault in a
    native library), unless the file `cured` names exists. Each call first appends a line
    (pid, session, token) to the file `log` names, so a test can count them."""
    import json
    import os
    import signal

    with open(arguments["log"], "a") as log:
        seen = {"pid": os.getpid(), "session": context.session_id, "token": context.lease_token}
        log.write(json.dumps(seen) + "\n")
    if os.path.exists(arguments["cured"]):
        return {"cured": True}
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable: the process is gone")
