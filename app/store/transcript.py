"""Reading the transcript log: for the worker (entries) and for readers (pages)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from sqlalchemy import Row, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.run import (
    Approval,
    ApprovalStatus,
    CallStatus,
    ClientOutput,
    Entry,
    ToolCall,
)
from app.store.checkpoint import message_from_row
from app.store.tables import approvals, checkpoints, messages, tool_calls, tool_outputs


async def load_entries(
    conn: AsyncConnection,
    tenant_id: str,
    session_id: str,
    *,
    after_seq: int = 0,
    limit: int | None = None,
) -> list[Entry]:
    """Log entries of a session in seq order (messages and calls, settled or not)."""
    message_query = (
        select(messages.c.seq, messages.c.role, messages.c.content)
        .where(
            messages.c.tenant_id == tenant_id,
            messages.c.session_id == session_id,
            messages.c.seq > after_seq,
        )
        .order_by(messages.c.seq)
    )
    call_query = (
        select(
            tool_calls,
            approvals.c.status.label("approval_status"),
            approvals.c.decision.label("approval_decision"),
            tool_outputs.c.output.label("client_output"),
            tool_outputs.c.is_error.label("client_is_error"),
        )
        .outerjoin(approvals, approvals.c.id == tool_calls.c.approval_id)
        .outerjoin(
            tool_outputs,
            (tool_outputs.c.tenant_id == tool_calls.c.tenant_id)
            & (tool_outputs.c.session_id == tool_calls.c.session_id)
            & (tool_outputs.c.tool_call_id == tool_calls.c.tool_call_id),
        )
        .where(
            tool_calls.c.tenant_id == tenant_id,
            tool_calls.c.session_id == session_id,
            tool_calls.c.seq > after_seq,
        )
        .order_by(tool_calls.c.seq)
    )
    if limit is not None:
        message_query = message_query.limit(limit)
        call_query = call_query.limit(limit)
    entries: list[Entry] = [
        message_from_row(r.seq, r.role, r.content) for r in await conn.execute(message_query)
    ]
    entries.extend(call_from_row(r) for r in await conn.execute(call_query))
    entries.sort(key=lambda e: e.seq)
    return entries[:limit] if limit is not None else entries


def call_from_row(r: Row[Any] | SimpleNamespace) -> ToolCall:
    """A stored call, from a row of `tool_calls` (or the same names, aggregated)."""
    approval_status = getattr(r, "approval_status", None)
    return ToolCall(
        id=r.tool_call_id,
        seq=r.seq,
        message_seq=r.message_seq,
        idx=r.idx,
        name=r.name,
        arguments=r.arguments,
        status=CallStatus(r.status),
        result=r.result,
        approval=_approval(r.approval_id, approval_status, getattr(r, "approval_decision", None)),
        client_output=_client_output(r),
        provider_call_id=r.provider_call_id,
    )


def _client_output(r: Row[Any] | SimpleNamespace) -> ClientOutput | None:
    is_error = getattr(r, "client_is_error", None)
    if is_error is None:  # no output posted (or not loaded by this query)
        return None
    return ClientOutput(getattr(r, "client_output", None), bool(is_error))


def _approval(approval_id: Any, status: str | None, decision: Any) -> Approval | None:
    if approval_id is None or status is None:
        return None
    decision = decision or {}
    return Approval(
        str(approval_id), ApprovalStatus(status), decision.get("reason"), decision.get("arguments")
    )


async def last_checkpoint_seq(conn: AsyncConnection, tenant_id: str, session_id: str) -> int:
    value = (
        await conn.execute(
            select(func.coalesce(func.max(checkpoints.c.seq), 0)).where(
                checkpoints.c.tenant_id == tenant_id, checkpoints.c.session_id == session_id
            )
        )
    ).scalar_one()
    return int(value)


async def calls_of_turns(
    conn: AsyncConnection, tenant_id: str, session_id: str, message_seqs: list[int]
) -> dict[int, list[ToolCall]]:
    """The calls of the given assistant turns, in call order, keyed by the turn's seq."""
    out: dict[int, list[ToolCall]] = {seq: [] for seq in message_seqs}
    if not message_seqs:
        return out
    rows = await conn.execute(
        select(tool_calls)
        .where(
            tool_calls.c.tenant_id == tenant_id,
            tool_calls.c.session_id == session_id,
            tool_calls.c.message_seq.in_(message_seqs),
        )
        .order_by(tool_calls.c.seq)
    )
    for r in rows:
        out[r.message_seq].append(call_from_row(r))
    return out
