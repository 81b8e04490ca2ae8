"""Responses assembled from more than one read: a run with what it waits for. (A response
made from what a route already holds is its schema's `.of()`.)"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncConnection

from app.api.schemas import RunOut
from app.store import approvals, tool_outputs
from app.store.runs import RunRecord


async def runs_out(conn: AsyncConnection, records: list[RunRecord]) -> list[RunOut]:
    """Runs as the API shows them; one query for all their pending approvals."""
    ids = [r.id for r in records]
    pending = await approvals.pending_for_runs(conn, ids)
    waiting = await tool_outputs.awaited(conn, ids)
    return [RunOut.of(r, pending[r.id], waiting[r.id]) for r in records]


async def run_out(conn: AsyncConnection, record: RunRecord) -> RunOut:
    return (await runs_out(conn, [record]))[0]
