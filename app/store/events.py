"""Run events: an audit trail of what happened to a run (drift warnings, for now)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from app.store.tables import run_events


@dataclass(frozen=True)
class EventRecord:
    id: int
    run_id: UUID
    type: str
    data: dict[str, Any]
    created_at: datetime


async def record(
    conn: AsyncConnection,
    run_id: UUID,
    tenant_id: str,
    session_id: str,
    kind: str,
    data: dict[str, Any],
) -> None:
    await conn.execute(
        insert(run_events).values(
            run_id=run_id, tenant_id=tenant_id, session_id=session_id, type=kind, data=data
        )
    )


async def list_events(
    conn: AsyncConnection, tenant_id: str, run_id: UUID, *, after_id: int, limit: int
) -> list[EventRecord]:
    rows = await conn.execute(
        select(run_events)
        .where(
            run_events.c.tenant_id == tenant_id,
            run_events.c.run_id == run_id,
            run_events.c.id > after_id,
        )
        .order_by(run_events.c.id)
        .limit(limit)
    )
    return [EventRecord(r.id, r.run_id, r.type, r.data, r.created_at) for r in rows]
