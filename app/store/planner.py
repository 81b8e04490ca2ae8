"""A planner run's plan, ledger and frontier for reads (`GET /v1/runs/{id}`).

Nothing here is stored apart from the transcript: the view is read from the session's
log (`app/domain/plan.py`), with the child runs of the nodes still running.
"""

from __future__ import annotations

from uuid import UUID

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.plan import PlannerView, planner_view
from app.domain.run import ToolCall
from app.store.run_state import attach_children
from app.store.tables import agent_versions, sessions
from app.store.transcript import load_entries


async def is_planner(
    conn: AsyncConnection, tenant_id: str, session_id: str, agent_version: int
) -> bool:
    """Whether the run's agent version is a planner's."""
    kind = (
        await conn.execute(
            select(agent_versions.c.definition["kind"].astext)
            .join(
                sessions,
                (sessions.c.tenant_id == agent_versions.c.tenant_id)
                & (sessions.c.agent_id == agent_versions.c.agent_id),
            )
            .where(
                sessions.c.tenant_id == tenant_id,
                sessions.c.id == session_id,
                agent_versions.c.version == agent_version,
            )
        )
    ).scalar_one_or_none()
    return kind == "planner"


async def view_of(
    conn: AsyncConnection, tenant_id: str, run_id: UUID, session_id: str, agent_version: int
) -> PlannerView | None:
    """A planner run's view; None when the run is not a planner's."""
    if not await is_planner(conn, tenant_id, session_id, agent_version):
        return None
    entries = await load_entries(conn, tenant_id, session_id)
    calls = [e for e in entries if isinstance(e, ToolCall)]
    await attach_children(conn, tenant_id, session_id, calls)
    return planner_view(entries, str(run_id))
