"""`python` tools: `package.module:function`, sync or async, called as f(arguments, context).

A sync function runs in a thread so it cannot stall the worker's other runs.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from app.domain.agent import PythonExecutor, ToolSpec
from app.tools.base import ToolContext, ToolOutcome


@lru_cache(maxsize=512)
def resolve(path: str) -> Callable[..., Any]:
    module_name, _, attribute = path.partition(":")
    function = getattr(importlib.import_module(module_name), attribute)
    if not callable(function):
        raise TypeError(f"{path} is not callable")
    return function  # type: ignore[no-any-return]


async def execute_python(
    tool: ToolSpec, arguments: dict[str, Any], context: ToolContext
) -> ToolOutcome:
    assert isinstance(tool.executor, PythonExecutor)
    try:
        function = resolve(tool.executor.path)
    except (ImportError, AttributeError, TypeError, ValueError) as exc:
        return ToolOutcome.error("tool_unavailable", f"cannot load {tool.executor.path}: {exc}")
    if inspect.iscoroutinefunction(function):
        result = await function(arguments, context)
    else:
        result = await asyncio.to_thread(function, arguments, context)
    return ToolOutcome(ok=True, result=result)
