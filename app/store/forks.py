"""Forks: a new session from a save of another, in one transaction.

The transcript prefix is copied by `INSERT … SELECT` inside Postgres (one statement per
table, never a round trip per message). Calls whose result came after the save are copied
without it, so the fork runs them first, and without their approval: gated calls ask again.
Rows are copied whole: call ids (unique in the source, so in the fork), the model's own
ids, and each turn's provider-specific parts, so the fork's model calls send what the
source's did.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.domain.fork import ForkPatch, InvalidPatch, transcript_from_messages
from app.domain.run import CallStatus, Message, RunStatus, ToolCall
from app.store import events, history
from app.store.checkpoint import stored_content
from app.store.notify import NOTIFY
from app.store.tables import checkpoints, messages, runs, sessions, tool_calls

COPY_MESSAGES = text("""
INSERT INTO messages (tenant_id, session_id, seq, run_id, role, content, checkpoint_seq)
SELECT tenant_id, :fork, seq, run_id, role, content, checkpoint_seq
  FROM messages
 WHERE tenant_id = :tenant AND session_id = :source AND checkpoint_seq <= :upto
""")

COPY_CALLS = text("""
INSERT INTO tool_calls (tenant_id, session_id, tool_call_id, seq, run_id, message_seq, idx,
                        name, arguments, status, result, checkpoint_seq,
                        result_checkpoint_seq, provider_call_id)
SELECT tenant_id, :fork, tool_call_id, seq, run_id, message_seq, idx, name, arguments,
       CASE WHEN result_checkpoint_seq <= :upto THEN status ELSE 'pending' END,
       CASE WHEN result_checkpoint_seq <= :upto THEN result END,
       checkpoint_seq,
       CASE WHEN result_checkpoint_seq <= :upto THEN result_checkpoint_seq END,
       provider_call_id
  FROM tool_calls
 WHERE tenant_id = :tenant AND session_id = :source AND checkpoint_seq <= :upto
""")

COPY_CHECKPOINTS = text("""
INSERT INTO checkpoints (tenant_id, session_id, seq, run_id, step, status, usage,
                         message_count, saved_at, fingerprint)
SELECT tenant_id, :fork, seq, run_id, step, status, usage, message_count, saved_at, fingerprint
  FROM checkpoints
 WHERE tenant_id = :tenant AND session_id = :source AND seq <= :upto
""")


@dataclass(frozen=True)
class Fork:
    session_id: str
    run_id: uuid.UUID
    from_seq: int
    checkpoint_seq: int


async def fork(
    conn: AsyncConnection,
    tenant_id: str,
    source_id: str,
    from_step: int,
    patch: ForkPatch,
    new_id: str | None,
    created_by: dict[str, Any] | None = None,
) -> Fork:
    """Create the fork and its (queued) run.

    Raises:
        SessionNotFound, CheckpointNotFound, SessionExists, InvalidForkPatch.
    """
    source = (
        await conn.execute(
            select(sessions).where(sessions.c.tenant_id == tenant_id, sessions.c.id == source_id)
        )
    ).first()
    if source is None:
        raise errors.SessionNotFound(f"no session {source_id!r}", session_id=source_id)
    saved = await history.newest_of_step(conn, tenant_id, source_id, from_step)
    fork_id = new_id or await _free_fork_id(conn, tenant_id, source_id)
    # ON CONFLICT: two concurrent forks to one id cannot both create it.
    created = (
        await conn.execute(
            pg_insert(sessions)
            .values(
                tenant_id=tenant_id,
                id=fork_id,
                agent_id=source.agent_id,
                agent_version=source.agent_version,
                run_count=1,
                parent_session_id=source_id,
                parent_checkpoint_seq=saved.seq,
                budget=source.budget,
            )
            .on_conflict_do_nothing(index_elements=[sessions.c.tenant_id, sessions.c.id])
            .returning(sessions.c.id)
        )
    ).first()
    if created is None:
        raise errors.SessionExists(f"session {fork_id!r} exists", session_id=fork_id)
    params = {"tenant": tenant_id, "fork": fork_id, "source": source_id, "upto": saved.seq}
    for statement in (COPY_MESSAGES, COPY_CALLS, COPY_CHECKPOINTS):
        await conn.execute(statement, params)

    checkpoint_seq = saved.seq
    if patch.messages is not None or patch.tool_result is not None:
        checkpoint_seq = saved.seq + 1
        await _apply_patch(conn, tenant_id, fork_id, saved, patch, checkpoint_seq)
    source_run = (
        await conn.execute(
            select(runs.c.max_steps, runs.c.budget).where(
                runs.c.tenant_id == tenant_id, runs.c.id == saved.run_id
            )
        )
    ).first()
    run_id = uuid.uuid4()
    await conn.execute(
        insert(runs).values(
            id=run_id,
            tenant_id=tenant_id,
            session_id=fork_id,
            seq=1,
            status=RunStatus.QUEUED.value,
            input=patch.append_input,
            agent_version=source.agent_version,
            steps=saved.step,
            max_steps=source_run.max_steps if source_run else 20,
            # The source run's usage at the save and its budget: a fork continues both, so
            # forking is no way around a limit.
            usage=saved.usage,
            budget=source_run.budget if source_run else None,
            created_by=created_by,
        )
    )
    forked = {"reason": "forked", "from_session_id": source_id, "from_checkpoint": saved.seq}
    await events.emit(conn, tenant_id, fork_id, run_id, events.Event("run.queued", forked))
    await conn.execute(NOTIFY)
    return Fork(fork_id, run_id, saved.seq, checkpoint_seq)


async def _free_fork_id(conn: AsyncConnection, tenant_id: str, source_id: str) -> str:
    """`<source>.fork-<n>`, the first n not in use."""
    prefix = f"{source_id}.fork-"
    taken = set(
        (
            await conn.execute(
                select(sessions.c.id).where(
                    sessions.c.tenant_id == tenant_id, func.starts_with(sessions.c.id, prefix)
                )
            )
        ).scalars()
    )
    n = 1
    while f"{prefix}{n}" in taken:
        n += 1
    fork_id = f"{prefix}{n}"
    if len(fork_id) > 200:
        raise errors.InvalidForkPatch(
            "the default fork id would be over 200 characters; pass session_id"
        )
    return fork_id


async def _apply_patch(
    conn: AsyncConnection,
    tenant_id: str,
    fork_id: str,
    saved: history.CheckpointRecord,
    patch: ForkPatch,
    checkpoint_seq: int,
) -> None:
    """`messages` (replace the transcript), then `tool_result` (in place, or recorded)."""
    if patch.messages is not None:
        try:
            entries = transcript_from_messages(patch.messages)
        except InvalidPatch as exc:
            raise errors.InvalidForkPatch(str(exc)) from exc
        await conn.execute(
            messages.delete().where(
                messages.c.tenant_id == tenant_id, messages.c.session_id == fork_id
            )
        )
        await conn.execute(
            tool_calls.delete().where(
                tool_calls.c.tenant_id == tenant_id, tool_calls.c.session_id == fork_id
            )
        )
        await _insert_entries(conn, tenant_id, fork_id, saved.run_id, entries, checkpoint_seq)
    if patch.tool_result is not None:
        call_id, result = patch.tool_result
        updated = (
            await conn.execute(
                tool_calls.update()
                .where(
                    tool_calls.c.tenant_id == tenant_id,
                    tool_calls.c.session_id == fork_id,
                    tool_calls.c.tool_call_id == call_id,
                )
                .values(status=CallStatus.OK, result=result, result_checkpoint_seq=checkpoint_seq)
                .returning(tool_calls.c.tool_call_id)
            )
        ).first()
        if updated is None:
            raise errors.InvalidForkPatch(
                f"patch.tool_result.tool_call_id: the transcript has no tool call {call_id!r}"
            )
    count = await _visible_count(conn, tenant_id, fork_id)
    await conn.execute(
        insert(checkpoints).values(
            tenant_id=tenant_id,
            session_id=fork_id,
            seq=checkpoint_seq,
            run_id=saved.run_id,
            step=saved.step,
            status=RunStatus.QUEUED.value,
            usage=saved.usage,
            message_count=count,
            saved_at=func.clock_timestamp(),
            fingerprint=saved.fingerprint,
        )
    )


async def _insert_entries(
    conn: AsyncConnection,
    tenant_id: str,
    session_id: str,
    run_id: uuid.UUID,
    entries: list[Any],
    checkpoint_seq: int,
) -> None:
    message_rows = [
        {
            "tenant_id": tenant_id,
            "session_id": session_id,
            "seq": e.seq,
            "run_id": run_id,
            "role": e.role,
            "content": stored_content(e.role, e.content, e.tool_call_ids, e.provider_data),
            "checkpoint_seq": checkpoint_seq,
        }
        for e in entries
        if isinstance(e, Message)
    ]
    call_rows = [
        {
            "tenant_id": tenant_id,
            "session_id": session_id,
            "tool_call_id": e.id,
            "seq": e.seq,
            "run_id": run_id,
            "message_seq": e.message_seq,
            "idx": e.idx,
            "name": e.name,
            "arguments": e.arguments,
            "status": e.status.value,
            "result": e.result,
            "checkpoint_seq": checkpoint_seq,
            "result_checkpoint_seq": checkpoint_seq,
            "provider_call_id": e.provider_call_id,
        }
        for e in entries
        if isinstance(e, ToolCall)
    ]
    if message_rows:
        await conn.execute(insert(messages), message_rows)
    if call_rows:
        await conn.execute(insert(tool_calls), call_rows)


async def _visible_count(conn: AsyncConnection, tenant_id: str, session_id: str) -> int:
    n_messages = (
        await conn.execute(
            select(func.count()).where(
                messages.c.tenant_id == tenant_id, messages.c.session_id == session_id
            )
        )
    ).scalar_one()
    n_results = (
        await conn.execute(
            select(func.count()).where(
                tool_calls.c.tenant_id == tenant_id,
                tool_calls.c.session_id == session_id,
                tool_calls.c.result_checkpoint_seq.is_not(None),
            )
        )
    ).scalar_one()
    return int(n_messages) + int(n_results)
