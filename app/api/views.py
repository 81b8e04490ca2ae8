"""Responses assembled from more than one read: a run with what it waits for. (A response
made from what a route already holds is its schema's `.of()`.)"""

from __future__ import annotations

from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection

from app.api.schemas import ApprovalOut, RunOut
from app.domain.budget import Usage
from app.store import approvals, children, planner, tool_outputs
from app.store.approvals import ApprovalRecord
from app.store.runs import RunRecord


async def runs_out(conn: AsyncConnection, records: list[RunRecord]) -> list[RunOut]:
    """Runs as the API shows them; one query for all their pending approvals, one for
    what their trees of sub-agents spent."""
    ids = [r.id for r in records]
    pending = await approvals.pending_for_runs(conn, ids)
    waiting = await tool_outputs.awaited(conn, ids)
    spent: dict[UUID, Usage] = {}
    for tenant_id in {r.tenant_id for r in records}:
        tenant_ids = [r.id for r in records if r.tenant_id == tenant_id]
        spent.update(await children.tree_usage(conn, tenant_id, tenant_ids))
    return [RunOut.of(r, pending[r.id], waiting[r.id], spent.get(r.id)) for r in records]


async def approvals_out(
    conn: AsyncConnection, tenant_id: str, records: list[ApprovalRecord]
) -> list[ApprovalOut]:
    """Approvals with their runs' parent chains (a sub-agent's approval names its tree)."""
    chains = await children.parent_chains(conn, tenant_id, list({r.run_id for r in records}))
    return [ApprovalOut.of(r, chains.get(r.run_id)) for r in records]


async def run_out(conn: AsyncConnection, record: RunRecord) -> RunOut:
    """One run as the API shows it; a planner's with its plan, ledger and frontier."""
    out = (await runs_out(conn, [record]))[0]
    view = await planner.view_of(
        conn, record.tenant_id, record.id, record.session_id, record.agent_version
    )
    return out.with_plan(view) if view is not None else out
