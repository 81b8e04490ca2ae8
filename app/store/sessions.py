"""Sessions: their summary, the list, their metadata, their deletion."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import delete, func, select, true, tuple_, update
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.domain import metadata
from app.domain.budget import Budget, Usage
from app.domain.run import SessionStatus
from app.store.agents import get_agent
from app.store.approvals import scrub_for_session, withdraw_for_session
from app.store.cursors import decode_text_cursor
from app.store.listing import TimeRange, metadata_contains, page
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
    metadata: dict[str, str]
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


async def set_metadata(
    conn: AsyncConnection, tenant_id: str, session_id: str, patch: dict[str, str | None]
) -> SessionRecord:
    """Set (or, with None, remove) keys of a session's metadata; other keys are kept.

    Raises:
        SessionNotFound: no such session.
        MetadataInvalid: the result would hold too many keys.
    """
    where = (sessions.c.tenant_id == tenant_id, sessions.c.id == session_id)
    row = (await conn.execute(select(sessions.c.metadata).where(*where).with_for_update())).first()
    if row is None:
        raise errors.SessionNotFound(f"no session {session_id!r}", session_id=session_id)
    await conn.execute(
        update(sessions)
        .where(*where)
        .values(metadata=metadata.merged(row.metadata, patch), updated_at=func.now())
    )
    return await get_session(conn, tenant_id, session_id)


@dataclass(frozen=True)
class SessionSummary:
    """A session as the list shows it: no usage or budget (each would cost reads per row)."""

    id: str
    agent_id: str
    agent_version: int
    status: SessionStatus
    last_run_id: str | None
    run_count: int
    metadata: dict[str, str]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class SessionFilter:
    """What the sessions list narrows to; every part given must hold (AND)."""

    statuses: list[SessionStatus] | None = None
    agent_id: str | None = None
    created: TimeRange = field(default_factory=TimeRange)
    updated: TimeRange = field(default_factory=TimeRange)
    metadata: Sequence[tuple[str, str]] = ()


async def list_sessions(
    conn: AsyncConnection,
    tenant_id: str,
    where: SessionFilter,
    *,
    cursor: str | None,
    limit: int,
) -> tuple[list[SessionSummary], str | None]:
    """Sessions newest first, keyset-paginated on (created_at, id).

    A session's status is its latest run's, or `idle`: one probe per row of the runs'
    unique (tenant, session, seq) index.
    """
    latest = (
        select(runs.c.id, runs.c.status)
        .where(runs.c.tenant_id == sessions.c.tenant_id, runs.c.session_id == sessions.c.id)
        .order_by(runs.c.seq.desc())
        .limit(1)
        .lateral("latest")
    )
    status = func.coalesce(latest.c.status, SessionStatus.IDLE.value)
    query = (
        select(sessions, latest.c.id.label("last_run_id"), status.label("status"))
        .select_from(sessions.outerjoin(latest, true()))
        .where(sessions.c.tenant_id == tenant_id)
    )
    if where.statuses:
        query = query.where(status.in_([s.value for s in where.statuses]))
    if where.agent_id is not None:
        query = query.where(sessions.c.agent_id == where.agent_id)
    query = query.where(*where.created.clauses(sessions.c.created_at))
    query = query.where(*where.updated.clauses(sessions.c.updated_at))
    query = query.where(*metadata_contains(sessions.c.metadata, where.metadata))
    if cursor is not None:
        created, last_id = decode_text_cursor(cursor)
        query = query.where(tuple_(sessions.c.created_at, sessions.c.id) < tuple_(created, last_id))
    query = query.order_by(sessions.c.created_at.desc(), sessions.c.id.desc()).limit(limit + 1)
    records = [
        SessionSummary(
            id=row.id,
            agent_id=row.agent_id,
            agent_version=row.agent_version,
            status=SessionStatus(row.status),
            last_run_id=str(row.last_run_id) if row.last_run_id else None,
            run_count=row.run_count,
            metadata=row.metadata,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )
        for row in await conn.execute(query)
    ]
    return page(records, limit, lambda r: (r.created_at, r.id))
