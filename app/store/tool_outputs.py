"""Outputs of client tools: what is awaited, and recording what the caller posts.

Posting records an output; it does not write the transcript. When the last awaited
output is in, the run is queued and a worker records every output as its call's result
through the fenced checkpoint, like any other result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.domain.run import CallStatus, RunStatus
from app.store import events
from app.store.runs import RunRecord, get_run
from app.store.tables import runs, tool_calls, tool_outputs


@dataclass(frozen=True)
class AwaitedCall:
    tool_call_id: str
    name: str
    arguments: Any


@dataclass(frozen=True)
class PostedOutput:
    tool_call_id: str
    output: Any
    is_error: bool = False


async def awaited(conn: AsyncConnection, run_ids: list[UUID]) -> dict[UUID, list[AwaitedCall]]:
    """Calls of these runs that have no result and no posted output, in call order."""
    out: dict[UUID, list[AwaitedCall]] = {run_id: [] for run_id in run_ids}
    if not run_ids:
        return out
    rows = await conn.execute(
        select(
            runs.c.id.label("awaiting_run"),
            tool_calls.c.tool_call_id,
            tool_calls.c.name,
            tool_calls.c.arguments,
        )
        .outerjoin(
            tool_outputs,
            (tool_outputs.c.tenant_id == tool_calls.c.tenant_id)
            & (tool_outputs.c.session_id == tool_calls.c.session_id)
            & (tool_outputs.c.tool_call_id == tool_calls.c.tool_call_id),
        )
        # By session, not by run: a call carried over from an earlier run (or a fork's
        # source) is this run's to settle too, and only one run of a session is active.
        .join(
            runs,
            (runs.c.tenant_id == tool_calls.c.tenant_id)
            & (runs.c.session_id == tool_calls.c.session_id),
        )
        .where(
            runs.c.id.in_(run_ids),
            tool_calls.c.status == CallStatus.PENDING,
            tool_outputs.c.tool_call_id.is_(None),
            runs.c.status == RunStatus.AWAITING_TOOL_RESULTS.value,
        )
        .order_by(tool_calls.c.seq)
    )
    for row in rows:
        out[row.awaiting_run].append(AwaitedCall(row.tool_call_id, row.name, row.arguments))
    return out


async def post(
    conn: AsyncConnection, tenant_id: str, run_id: UUID, posted: list[PostedOutput]
) -> RunRecord:
    """Record outputs of awaited client calls; queue the run once none is missing.

    Raises:
        RunNotFound; RunNotAwaitingToolResults; ToolResultAlreadyRecorded (a call takes one
        output); UnknownToolCall (an id this run does not await).
    """
    run = await get_run(conn, tenant_id, run_id, lock=True)
    if run.status is not RunStatus.AWAITING_TOOL_RESULTS:
        raise errors.RunNotAwaitingToolResults(
            f"run {run_id} is {run.status.value}, not awaiting_tool_results",
            run_id=str(run_id),
            run_status=run.status.value,
        )
    waiting = {c.tool_call_id for c in (await awaited(conn, [run_id]))[run_id]}
    ids = [p.tool_call_id for p in posted]
    recorded = set(
        (
            await conn.execute(
                select(tool_outputs.c.tool_call_id).where(
                    tool_outputs.c.tenant_id == tenant_id,
                    tool_outputs.c.session_id == run.session_id,
                    tool_outputs.c.tool_call_id.in_(ids),
                )
            )
        ).scalars()
    )
    for index, tool_call_id in enumerate(ids):
        if tool_call_id in recorded or tool_call_id in ids[:index]:
            raise errors.ToolResultAlreadyRecorded(
                f"call {tool_call_id} already has its output", tool_call_id=tool_call_id
            )
        if tool_call_id not in waiting:
            raise errors.UnknownToolCall(
                f"run {run_id} does not await a result for {tool_call_id!r}",
                field=("results", str(index), "tool_call_id"),
                tool_call_id=tool_call_id,
                awaited=sorted(waiting),
            )
    await conn.execute(
        pg_insert(tool_outputs).values(
            [
                {
                    "tenant_id": tenant_id,
                    "session_id": run.session_id,
                    "tool_call_id": p.tool_call_id,
                    "run_id": run_id,
                    "output": p.output,
                    "is_error": p.is_error,
                }
                for p in posted
            ]
        )
    )
    happened = [events.Event("tool_results.received", {"tool_call_ids": ids})]
    queued = waiting <= set(ids)
    if queued:
        await conn.execute(
            update(runs)
            .where(runs.c.id == run_id, runs.c.status == RunStatus.AWAITING_TOOL_RESULTS.value)
            .values(status=RunStatus.QUEUED.value, not_before=func.now(), updated_at=func.now())
        )
        happened.append(events.Event("run.queued", {"reason": "tool_results"}))
    await events.emit(conn, tenant_id, run.session_id, run_id, *happened, wake_workers=queued)
    return await get_run(conn, tenant_id, run_id)
