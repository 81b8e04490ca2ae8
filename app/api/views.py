"""Responses that need more than one row: a run with what it waits for."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncConnection

from app.api.schemas import MessageOut, RunOut, ToolCallOut
from app.domain.run import Entry, Message, ToolCall
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


def render_messages(entries: list[Entry], calls: dict[str, ToolCall]) -> list[MessageOut]:
    """Entries as transcript messages: each turn with its calls, then their results.

    `calls` holds the calls of the turns in `entries` (which may lie past the page).
    A call without a result is listed on its turn but has no result message yet.
    """
    items: list[MessageOut] = []
    for entry in entries:
        if isinstance(entry, Message):
            turn_calls = (
                [
                    ToolCallOut(
                        id=calls[i].id,
                        provider_call_id=calls[i].provider_call_id,
                        name=calls[i].name,
                        arguments=calls[i].arguments,
                    )
                    for i in entry.tool_call_ids
                    if i in calls
                ]
                if entry.tool_call_ids
                else None
            )
            items.append(
                MessageOut(
                    seq=entry.seq,
                    role=entry.role,
                    content=entry.content,
                    tool_calls=turn_calls,
                )
            )
        elif entry.settled:
            items.append(
                MessageOut(
                    seq=entry.seq,
                    role="tool",
                    content=entry.result,
                    tool_call_id=entry.id,
                    name=entry.name,
                    status=entry.status.value,
                )
            )
    return items
