"""What the engine asks of a tool executor."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol
from uuid import UUID

from app.domain.agent import ToolSpec


@dataclass(frozen=True)
class ToolContext:
    tool_call_id: str
    session_id: str
    run_id: UUID
    # The run's current fencing token: a tool server can refuse a caller that lost its lease.
    lease_token: int

    @property
    def idempotency_key(self) -> str:
        """Stable across re-runs of this call, unique across sessions: call ids are the
        model's own and repeat between sessions (`/` cannot occur in a session id)."""
        return f"{self.session_id}/{self.tool_call_id}"


@dataclass(frozen=True)
class ToolOutcome:
    ok: bool
    result: Any

    @classmethod
    def error(cls, kind: str, message: str, **extra: Any) -> ToolOutcome:
        return cls(ok=False, result={"error": kind, "message": message, **extra})


class ToolExecutor(Protocol):
    async def execute(
        self, tool: ToolSpec, arguments: dict[str, Any], context: ToolContext
    ) -> ToolOutcome:
        """Run one call. Must not raise for the tool's own failures: return an error outcome."""
        ...
