"""One executor for every kind of tool: picks the implementation by `executor.type`."""

from __future__ import annotations

from typing import Any

from app.capabilities import Capabilities
from app.domain.agent import HttpExecutor, PythonExecutor, ToolSpec
from app.tools.base import ToolContext, ToolOutcome
from app.tools.http_tool import HttpTools
from app.tools.python_tool import execute_python


class ToolDispatcher:
    def __init__(self, http: HttpTools, capabilities: Capabilities | None = None) -> None:
        self.http = http
        # The operator's grants, checked again at each call (the API checked them when
        # the definition arrived, perhaps under looser settings).
        self.capabilities = capabilities or Capabilities()

    async def execute(
        self, tool: ToolSpec, arguments: dict[str, Any], context: ToolContext
    ) -> ToolOutcome:
        if isinstance(tool.executor, HttpExecutor):
            return await self.http.execute(tool, arguments, context)
        if isinstance(tool.executor, PythonExecutor):
            return await execute_python(tool, arguments, context, self.capabilities)
        return ToolOutcome.error("unsupported_tool", f"no executor for {tool.executor!r}")
