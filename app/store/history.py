"""Checkpoint history: every save of a session, and its transcript exactly as it was then.

Nothing is kept per save but one small `checkpoints` row: the transcript is an append-only
log whose rows carry the save that wrote them (and, for a call, the save that recorded its
result), so the transcript at save k is simply the rows written at or before k.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import Row, select
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.domain.run import CallStatus, Entry, ToolCall
from app.store.checkpoint import message_from_row
from app.store.tables import checkpoints, messages, tool_calls


@dataclass(frozen=True)
class CheckpointRecord:
    session_id: str
    seq: int
    run_id: UUID
    step: int
    status: str
    usage: dict[str, Any]
    message_count: int
    saved_at: datetime
    fingerprint: str | None

    @classmethod
    def from_row(cls, row: Row[Any]) -> CheckpointRecord:
        return cls(
            row.session_id,
            row.seq,
            row.run_id,
            row.step,
            row.status,
            row.usage,
            row.message_count,
            row.saved_at,
            row.fingerprint,
        )


async def list_checkpoints(
    conn: AsyncConnection, tenant_id: str, session_id: str, *, before_seq: int | None, limit: int
) -> tuple[list[CheckpointRecord], int | None]:
    """Saves newest first; the cursor is the seq to continue below."""
    query = select(checkpoints).where(
        checkpoints.c.tenant_id == tenant_id, checkpoints.c.session_id == session_id
    )
    if before_seq is not None:
        query = query.where(checkpoints.c.seq < before_seq)
    query = query.order_by(checkpoints.c.seq.desc()).limit(limit + 1)
    records = [CheckpointRecord.from_row(r) for r in await conn.execute(query)]
    if len(records) > limit:
        return records[:limit], records[limit - 1].seq
    return records, None


async def get_checkpoint(
    conn: AsyncConnection, tenant_id: str, session_id: str, seq: int
) -> CheckpointRecord:
    row = (
        await conn.execute(
            select(checkpoints).where(
                checkpoints.c.tenant_id == tenant_id,
                checkpoints.c.session_id == session_id,
                checkpoints.c.seq == seq,
            )
        )
    ).first()
    if row is None:
        raise errors.CheckpointNotFound(
            f"session {session_id!r} has no checkpoint {seq}", session_id=session_id, seq=seq
        )
    return CheckpointRecord.from_row(row)


async def newest_of_step(
    conn: AsyncConnection, tenant_id: str, session_id: str, step: int
) -> CheckpointRecord:
    """The last save made at `step`.

    Raises:
        CheckpointNotFound: listing the steps the session has saves for.
    """
    row = (
        await conn.execute(
            select(checkpoints)
            .where(
                checkpoints.c.tenant_id == tenant_id,
                checkpoints.c.session_id == session_id,
                checkpoints.c.step == step,
            )
            .order_by(checkpoints.c.seq.desc())
            .limit(1)
        )
    ).first()
    if row is not None:
        return CheckpointRecord.from_row(row)
    steps = sorted(
        set(
            (
                await conn.execute(
                    select(checkpoints.c.step).where(
                        checkpoints.c.tenant_id == tenant_id,
                        checkpoints.c.session_id == session_id,
                    )
                )
            ).scalars()
        )
    )
    raise errors.CheckpointNotFound(
        f"session {session_id!r} has no checkpoint at step {step}; steps saved: {steps}",
        session_id=session_id,
        step=step,
        steps=steps,
    )


async def entries_at(
    conn: AsyncConnection, tenant_id: str, session_id: str, seq: int
) -> list[Entry]:
    """The transcript exactly as save `seq` left it (calls without a result yet: pending)."""
    entries: list[Entry] = [
        message_from_row(r.seq, r.role, r.content)
        for r in await conn.execute(
            select(messages.c.seq, messages.c.role, messages.c.content).where(
                messages.c.tenant_id == tenant_id,
                messages.c.session_id == session_id,
                messages.c.checkpoint_seq <= seq,
            )
        )
    ]
    for r in await conn.execute(
        select(tool_calls).where(
            tool_calls.c.tenant_id == tenant_id,
            tool_calls.c.session_id == session_id,
            tool_calls.c.checkpoint_seq <= seq,
        )
    ):
        settled = r.result_checkpoint_seq is not None and r.result_checkpoint_seq <= seq
        entries.append(
            ToolCall(
                id=r.tool_call_id,
                seq=r.seq,
                message_seq=r.message_seq,
                idx=r.idx,
                name=r.name,
                arguments=r.arguments,
                status=CallStatus(r.status) if settled else CallStatus.PENDING,
                result=r.result if settled else None,
                provider_call_id=r.provider_call_id,
            )
        )
    entries.sort(key=lambda e: e.seq)
    return entries
