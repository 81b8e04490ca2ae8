"""`python` tools: `package.module:function`, sync or async, called as f(arguments, context).

Containment: nothing a tool does may stop its worker.

- Only modules the operator lists (`PERDURE_PYTHON_TOOLS`) are imported, checked before
  the import (importing runs the module) and again on the function found (it must be
  defined in an allowed module, not imported into one).
- Whatever the tool raises (`SystemExit`, `KeyboardInterrupt`, `GeneratorExit`, any
  BaseException, a `CancelledError` nobody asked for) becomes the call's error result.
  Left alone, asyncio re-raises `SystemExit` and `KeyboardInterrupt` out of the event
  loop, ending the worker and every run it drives. The worker's own cancellation of the
  call (a cancelled run, a shutdown) still propagates: it arrives while we wait for the
  tool, never from the tool, which runs in a task or thread of its own.
- `timeout_s` bounds a call. An async tool is cancelled; a sync one runs in a daemon
  thread of the tools' own (`app/tools/threads.py`), which Python cannot stop: it is
  abandoned (it may still finish, side effect included) and the result says `timeout`.
  Not the loop's default executor: abandoned threads must not use up the pool that DNS
  lookups and other `to_thread` work share.

Not contained: `os._exit`, signals, a tool that blocks the event loop (a sync call inside
an `async def`), or one that exhausts memory. Only deploy modules you trust.
"""

from __future__ import annotations

import asyncio
import contextvars
import importlib
import inspect
import sys
from collections.abc import Callable
from contextlib import suppress
from functools import lru_cache
from typing import Any

from app.capabilities import Capabilities
from app.domain.agent import PythonExecutor, ToolSpec
from app.tools.base import ToolContext, ToolOutcome
from app.tools.threads import ToolThreads

_THREADS = ToolThreads()

# What a tool produced: (True, its return value) or (False, what it raised).
Settled = tuple[bool, Any]


@lru_cache(maxsize=512)
def resolve(path: str) -> Callable[..., Any]:
    module_name, _, attribute = path.partition(":")
    function = getattr(importlib.import_module(module_name), attribute)
    if not callable(function):
        raise TypeError(f"{path} is not callable")
    return function  # type: ignore[no-any-return]


async def execute_python(
    tool: ToolSpec,
    arguments: dict[str, Any],
    context: ToolContext,
    capabilities: Capabilities | None = None,
) -> ToolOutcome:
    executor = tool.executor
    assert isinstance(executor, PythonExecutor)
    grants = capabilities or Capabilities()
    refusal = grants.python_refusal(executor.path)
    if refusal is not None:
        return ToolOutcome.error("tool_not_permitted", refusal)
    module = executor.path.partition(":")[0]
    loaded: Settled | None
    if module in sys.modules:  # already imported: a lookup
        loaded = _guarded(resolve, executor.path)
    else:  # the first import runs the module's code: contained like a call
        loaded = await _in_thread(resolve, (executor.path,), executor.timeout_s)
    if loaded is None:
        return _timeout(executor)
    ok, function = loaded
    if not ok:
        return ToolOutcome.error(
            "tool_unavailable", f"cannot load {executor.path}: {_describe(function)}"
        )
    refusal = grants.function_refusal(executor.path, function)
    if refusal is not None:
        return ToolOutcome.error("tool_not_permitted", refusal)
    if inspect.iscoroutinefunction(function):
        settled = await _in_task(function, (arguments, context), executor.timeout_s)
    else:
        settled = await _in_thread(function, (arguments, context), executor.timeout_s)
    if settled is None:
        return _timeout(executor)
    ok, value = settled
    if not ok:
        return ToolOutcome.error("tool_failed", _describe(value))
    return ToolOutcome(ok=True, result=value)


def _timeout(executor: PythonExecutor) -> ToolOutcome:
    return ToolOutcome.error(
        "timeout",
        f"the tool did not finish within {executor.timeout_s:g}s; it may or may not have "
        "taken effect",
    )


def _describe(raised: BaseException) -> str:
    return f"{type(raised).__name__}: {raised}" if str(raised) else type(raised).__name__


def _guarded(function: Callable[..., Any], *args: Any) -> Settled:
    try:
        return True, function(*args)
    except BaseException as exc:  # the tool's, whatever it is: a result, never a raise
        return False, exc


async def _in_task(
    function: Callable[..., Any], args: tuple[Any, ...], timeout_s: float
) -> Settled | None:
    """Run an async tool in a task of its own; None when it overran `timeout_s`."""

    async def guarded() -> Settled:
        try:
            return True, await function(*args)
        except BaseException as exc:  # incl. SystemExit: asyncio would re-raise it
            return False, exc

    task = asyncio.create_task(guarded())
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout_s)
    except asyncio.CancelledError:  # ours (a cancelled run, a shutdown): pass it on
        task.cancel()
        raise
    if not done:
        task.cancel()  # a tool that ignores it is abandoned: we stop waiting
        return None
    return task.result()


async def _in_thread(
    function: Callable[..., Any], args: tuple[Any, ...], timeout_s: float
) -> Settled | None:
    """Run a sync function in a daemon thread of the tools' own (one call at a time on
    it); None when it overran."""
    loop = asyncio.get_running_loop()
    settled: asyncio.Future[Settled] = loop.create_future()
    copied = contextvars.copy_context()

    def deliver(outcome: Settled) -> None:
        if not settled.done():
            settled.set_result(outcome)

    def work() -> None:
        outcome = copied.run(_guarded, function, *args)
        # RuntimeError: the loop closed while an abandoned call ran; nobody is waiting.
        with suppress(RuntimeError):
            loop.call_soon_threadsafe(deliver, outcome)

    _THREADS.run(work, name=f"perdure-tool:{getattr(function, '__qualname__', 'tool')}")
    try:
        return await asyncio.wait_for(asyncio.shield(settled), timeout=timeout_s)
    except TimeoutError:
        return None
