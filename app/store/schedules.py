"""Schedules as the API sees them: create, read, list, pause, resume, delete, and the list
of what fired. Firing is the workers' (app/store/firing.py).

Every statement names the tenant: another tenant's schedule is ScheduleNotFound.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.domain.schedule import Cadence, CatchUp, Outcome, Overlap, SkipReason, jittered
from app.store import agents as agent_store
from app.store.cursors import (
    decode_key_cursor,
    decode_time_cursor,
    encode_key_cursor,
    encode_time_cursor,
)
from app.store.tables import schedule_fires, schedules, sessions


@dataclass(frozen=True)
class ScheduleRecord:
    tenant_id: str
    id: str
    agent_id: str
    cron: str | None
    interval_s: int | None
    timezone: str
    input: list[dict[str, Any]]
    session_id: str | None  # None: a new session per fire
    overlap: Overlap
    catch_up: CatchUp
    jitter_s: int
    metadata: dict[str, Any]
    created_by: dict[str, Any] | None
    paused: bool
    anchor_at: datetime
    next_due_at: datetime
    next_fire_at: datetime
    last_run_id: UUID | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_row(cls, row: Any) -> ScheduleRecord:
        return cls(
            tenant_id=row.tenant_id,
            id=row.id,
            agent_id=row.agent_id,
            cron=row.cron,
            interval_s=row.interval_s,
            timezone=row.timezone,
            input=row.input,
            session_id=row.session_id,
            overlap=Overlap(row.overlap),
            catch_up=CatchUp(row.catch_up),
            jitter_s=row.jitter_s,
            metadata=row.metadata,
            created_by=row.created_by,
            paused=row.paused,
            anchor_at=row.anchor_at,
            next_due_at=row.next_due_at,
            next_fire_at=row.next_fire_at,
            last_run_id=row.last_run_id,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )

    def cadence(self) -> Cadence:
        return Cadence(self.cron, self.interval_s, self.timezone, self.anchor_at)


@dataclass(frozen=True)
class NewSchedule:
    tenant_id: str
    id: str
    agent_id: str
    cron: str | None
    interval_s: int | None
    timezone: str
    input: list[dict[str, Any]]
    session_id: str | None
    overlap: Overlap
    catch_up: CatchUp
    jitter_s: int
    metadata: dict[str, Any]
    created_by: dict[str, Any] | None


@dataclass(frozen=True)
class FireRecord:
    schedule_id: str
    due_at: datetime
    fired_at: datetime
    outcome: Outcome
    reason: SkipReason | None
    run_id: UUID | None
    session_id: str | None
    previous_run_id: UUID | None
    error: dict[str, Any] | None
    detail: dict[str, Any] | None


async def database_now(conn: AsyncConnection, *, whole_seconds: bool = False) -> datetime:
    """Postgres's clock, never this process's: every replica agrees on when things are due."""
    now = func.clock_timestamp()
    if whole_seconds:
        now = func.date_trunc("second", now)
    at: datetime = (await conn.execute(select(now))).scalar_one()
    return at


async def create(conn: AsyncConnection, new: NewSchedule) -> ScheduleRecord:
    """Make a schedule, due next after the database's now.

    Raises:
        AgentNotFound: no such agent (of this tenant).
        SessionAgentMismatch: the fixed session exists and belongs to another agent.
        ScheduleInvalid: a cadence that is never due, an unknown zone.
        ScheduleExists: the id is taken.
    """
    await agent_store.get_agent(conn, new.tenant_id, new.agent_id)
    if new.session_id is not None:
        owner = (
            await conn.execute(
                select(sessions.c.agent_id).where(
                    sessions.c.tenant_id == new.tenant_id, sessions.c.id == new.session_id
                )
            )
        ).scalar()
        if owner is not None and owner != new.agent_id:
            raise errors.SessionAgentMismatch(
                f"session {new.session_id!r} belongs to agent {owner!r}",
                session_id=new.session_id,
                agent_id=owner,
            )
    # Intervals count from a whole second, so their due times (and the session ids made
    # from them) are whole seconds, as cron's are.
    anchor = await database_now(conn, whole_seconds=True)
    cadence = Cadence.checked(new.cron, new.interval_s, new.timezone, anchor)
    next_due = cadence.next_after(await database_now(conn))
    row = (
        await conn.execute(
            pg_insert(schedules)
            .values(
                tenant_id=new.tenant_id,
                id=new.id,
                agent_id=new.agent_id,
                cron=new.cron,
                interval_s=new.interval_s,
                timezone=new.timezone,
                input=new.input,
                session_id=new.session_id,
                overlap=new.overlap.value,
                catch_up=new.catch_up.value,
                jitter_s=new.jitter_s,
                metadata=new.metadata,
                created_by=new.created_by,
                anchor_at=anchor,
                next_due_at=next_due,
                next_fire_at=jittered(next_due, new.jitter_s),
            )
            .on_conflict_do_nothing(index_elements=[schedules.c.tenant_id, schedules.c.id])
            .returning(schedules)
        )
    ).first()
    if row is None:
        raise errors.ScheduleExists(f"schedule {new.id!r} exists", schedule_id=new.id)
    return ScheduleRecord.from_row(row)


async def get(
    conn: AsyncConnection, tenant_id: str, schedule_id: str, *, lock: bool = False
) -> ScheduleRecord:
    query = select(schedules).where(
        schedules.c.tenant_id == tenant_id, schedules.c.id == schedule_id
    )
    if lock:
        query = query.with_for_update()
    row = (await conn.execute(query)).first()
    if row is None:
        raise errors.ScheduleNotFound(f"no schedule {schedule_id!r}", schedule_id=schedule_id)
    return ScheduleRecord.from_row(row)


async def list_schedules(
    conn: AsyncConnection, tenant_id: str, *, cursor: str | None, limit: int
) -> tuple[list[ScheduleRecord], str | None]:
    """The tenant's schedules by id, keyset-paginated on the id."""
    query = select(schedules).where(schedules.c.tenant_id == tenant_id)
    if cursor is not None:
        query = query.where(schedules.c.id > decode_key_cursor(cursor))
    query = query.order_by(schedules.c.id).limit(limit + 1)
    records = [ScheduleRecord.from_row(r) for r in await conn.execute(query)]
    if len(records) > limit:
        return records[:limit], encode_key_cursor(records[limit - 1].id)
    return records, None


async def pause(conn: AsyncConnection, tenant_id: str, schedule_id: str) -> ScheduleRecord:
    """Stop firing. Due times that pass while paused are not fired, nor recorded."""
    row = (
        await conn.execute(
            update(schedules)
            .where(schedules.c.tenant_id == tenant_id, schedules.c.id == schedule_id)
            .values(paused=True, updated_at=func.now())
            .returning(schedules)
        )
    ).first()
    if row is None:
        raise errors.ScheduleNotFound(f"no schedule {schedule_id!r}", schedule_id=schedule_id)
    return ScheduleRecord.from_row(row)


async def resume(conn: AsyncConnection, tenant_id: str, schedule_id: str) -> ScheduleRecord:
    """Fire again from the next due time after now (a running schedule is left as it is)."""
    record = await get(conn, tenant_id, schedule_id, lock=True)
    if not record.paused:
        return record
    next_due = record.cadence().next_after(await database_now(conn))
    row = (
        await conn.execute(
            update(schedules)
            .where(schedules.c.tenant_id == tenant_id, schedules.c.id == schedule_id)
            .values(
                paused=False,
                next_due_at=next_due,
                next_fire_at=jittered(next_due, record.jitter_s),
                updated_at=func.now(),
            )
            .returning(schedules)
        )
    ).one()
    return ScheduleRecord.from_row(row)


async def delete_schedule(conn: AsyncConnection, tenant_id: str, schedule_id: str) -> None:
    """Delete a schedule and its fire records; the runs it started are left alone."""
    gone = (
        await conn.execute(
            delete(schedules)
            .where(schedules.c.tenant_id == tenant_id, schedules.c.id == schedule_id)
            .returning(schedules.c.id)
        )
    ).first()
    if gone is None:
        raise errors.ScheduleNotFound(f"no schedule {schedule_id!r}", schedule_id=schedule_id)


async def list_fires(
    conn: AsyncConnection, tenant_id: str, schedule_id: str, *, cursor: str | None, limit: int
) -> tuple[list[FireRecord], str | None]:
    """What a schedule's due times came to, newest first, keyset-paginated on due_at."""
    await get(conn, tenant_id, schedule_id)
    query = select(schedule_fires).where(
        schedule_fires.c.tenant_id == tenant_id, schedule_fires.c.schedule_id == schedule_id
    )
    if cursor is not None:
        query = query.where(schedule_fires.c.due_at < decode_time_cursor(cursor))
    query = query.order_by(schedule_fires.c.due_at.desc()).limit(limit + 1)
    records = [
        FireRecord(
            schedule_id=r.schedule_id,
            due_at=r.due_at,
            fired_at=r.fired_at,
            outcome=Outcome(r.outcome),
            reason=SkipReason(r.reason) if r.reason else None,
            run_id=r.run_id,
            session_id=r.session_id,
            previous_run_id=r.previous_run_id,
            error=r.error,
            detail=r.detail,
        )
        for r in await conn.execute(query)
    ]
    if len(records) > limit:
        return records[:limit], encode_time_cursor(records[limit - 1].due_at)
    return records, None
