"""What the engine asks of a tool executor."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol
from uuid import UUID

from app.domain.agent import ToolSpec
from app.domain.principal import DEFAULT_TENANT


@dataclass(frozen=True)
class ToolContext:
    tool_call_id: str
    session_id: str
    run_id: UUID
    # The run's current fencing token: a tool server can refuse a caller that lost its lease.
    lease_token: int

    # Session ids are unique per tenant only.
    tenant_id: str = DEFAULT_TENANT

    @property
    def idempotency_key(self) -> str:
        return idempotency_key(self.tenant_id, self.session_id, self.tool_call_id)


def idempotency_key(tenant_id: str, session_id: str, tool_call_id: str) -> str:
    """What a tool server deduplicates a call on: stable across re-runs of the call, unique
    across sessions and tenants (call ids are the model's own and repeat between sessions,
    session ids repeat between tenants; `/` occurs in neither a tenant nor a session id)."""
    return f"{tenant_id}/{session_id}/{tool_call_id}"


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
