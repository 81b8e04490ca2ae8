"""Sessions: their summary, their deletion."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.domain.budget import Budget, Usage
from app.store.agents import get_agent
from app.store.approvals import scrub_for_session, withdraw_for_session
from app.store.run_state import session_override
from app.store.tables import events, runs, sessions
from app.store.transcript import last_checkpoint_seq
from app.store.usage import session_usage


@dataclass(frozen=True)
class SessionRecord:
    id: str
    agent_id: str
    agent_version: int
    status: str
    last_run_id: str | None
    run_count: int
    checkpoint_seq: int
    usage: Usage
    # The agent's session budget under what sends set for this session.
    budget: Budget
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime


async def get_session(conn: AsyncConnection, tenant_id: str, session_id: str) -> SessionRecord:
    """A session with its status (that of its latest run, or idle), summed usage and budget.

    Raises:
        SessionNotFound: no such session.
    """
    row = (
        await conn.execute(
            select(sessions).where(sessions.c.tenant_id == tenant_id, sessions.c.id == session_id)
        )
    ).first()
    if row is None:
        raise errors.SessionNotFound(f"no session {session_id!r}", session_id=session_id)
    latest = (
        await conn.execute(
            select(runs.c.id, runs.c.status)
            .where(runs.c.tenant_id == tenant_id, runs.c.session_id == session_id)
            .order_by(runs.c.seq.desc())
            .limit(1)
        )
    ).first()
    agent = await get_agent(conn, tenant_id, row.agent_id, row.agent_version)
    return SessionRecord(
        id=row.id,
        agent_id=row.agent_id,
        agent_version=row.agent_version,
        status=latest.status if latest else "idle",
        last_run_id=str(latest.id) if latest else None,
        run_count=row.run_count,
        checkpoint_seq=await last_checkpoint_seq(conn, tenant_id, session_id),
        usage=await session_usage(conn, tenant_id, session_id),
        budget=agent.definition.session_budget.merged(session_override(row.budget)),
        metadata=row.metadata,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


async def delete_session(conn: AsyncConnection, tenant_id: str, session_id: str) -> None:
    """End a session: its runs, transcript and checkpoints go with it.

    A worker still driving one of its runs finds its fenced write matching nothing and
    stops. Raises SessionNotFound if there is no such session.
    """
    # Runs first, then approvals: the lock order of decide and cancel, so none deadlock.
    await conn.execute(
        select(runs.c.id)
        .where(runs.c.tenant_id == tenant_id, runs.c.session_id == session_id)
        .with_for_update()
    )
    await withdraw_for_session(conn, tenant_id, session_id)
    # Approvals outlive their session (a late decision must find APPROVAL_ORPHANED), but
    # not what the session held: the call's arguments go with the transcript.
    await scrub_for_session(conn, tenant_id, session_id)
    # Events have no foreign key (each insert would pay for its check): deleted here.
    await conn.execute(
        delete(events).where(events.c.tenant_id == tenant_id, events.c.session_id == session_id)
    )
    deleted = (
        await conn.execute(
            delete(sessions)
            .where(sessions.c.tenant_id == tenant_id, sessions.c.id == session_id)
            .returning(sessions.c.id)
        )
    ).first()
    if deleted is None:
        raise errors.SessionNotFound(f"no session {session_id!r}", session_id=session_id)
