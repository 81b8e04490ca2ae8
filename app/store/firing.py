"""Firing schedules: the workers' claim of a due schedule, and what it writes.

Exactly once per due time, whatever the number of workers:
- `claim_due` locks one due schedule row, `FOR UPDATE SKIP LOCKED`, in the caller's
  transaction: two workers never hold one schedule, and neither waits on the other.
- `fire` then, in that same transaction, inserts one `schedule_fires` row per due time
  it handles (primary key: tenant, schedule, due time), starts each fire's run through
  the same `runs.send` a client's send uses, and moves `next_due_at` past them. One
  commit makes all of it true, or none: a worker killed before the commit leaves the
  due time to the next claimer; one killed after leaves nothing to redo. A claimer
  that read the row before that commit re-checks `next_fire_at` on the committed row
  (READ COMMITTED re-evaluates the WHERE of a locking read) and passes over it.
- Times are the database's (`clock_timestamp()`), never a worker's.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.domain.run import TERMINAL, RunStatus
from app.domain.schedule import Outcome, Overlap, SkipReason, jittered, plan
from app.store import runs as run_store
from app.store.runs import SendCommand
from app.store.schedules import ScheduleRecord
from app.store.tables import runs, schedule_fires, schedules, sessions

CLAIM = (
    select(schedules, func.clock_timestamp().label("db_now"))
    .where(~schedules.c.paused, schedules.c.next_fire_at <= func.clock_timestamp())
    .order_by(schedules.c.next_fire_at)
    .limit(1)
    .with_for_update(skip_locked=True)
)


# Every row of one multi-row insert names the same columns.
FIRE_COLUMNS = ("reason", "run_id", "session_id", "previous_run_id", "error", "detail")


@dataclass(frozen=True)
class Claimed:
    schedule: ScheduleRecord
    now: datetime  # the database's clock when the row was locked


@dataclass(frozen=True)
class Fired:
    """What one claim did, for the log."""

    tenant_id: str
    schedule_id: str
    started: int
    skipped: int
    failed: int


async def claim_due(conn: AsyncConnection) -> Claimed | None:
    """Lock the schedule due soonest that no other worker holds (any tenant's)."""
    row = (await conn.execute(CLAIM)).first()
    if row is None:
        return None
    return Claimed(ScheduleRecord.from_row(row), row.db_now)


async def fire(
    conn: AsyncConnection, claimed: Claimed, *, owner: str, catch_up_window_s: float
) -> Fired:
    """Handle the claimed schedule's due times up to now, in the claim's transaction."""
    schedule = claimed.schedule
    # The window counts from when a due time was meant to fire: its jitter is no lateness.
    todo = plan(
        schedule.cadence(),
        schedule.next_due_at,
        claimed.now,
        catch_up_window_s + schedule.jitter_s,
        schedule.catch_up,
    )
    rows: list[dict[str, Any]] = [
        {"due_at": due, "outcome": Outcome.SKIPPED.value, "reason": reason.value}
        for due, reason in todo.skip
    ]
    if todo.truncated:
        rows[0]["detail"] = {"earlier_not_listed": True}
    last_run_id = schedule.last_run_id
    for due in todo.fire:
        row, last_run_id = await _fire_one(conn, schedule, due, last_run_id)
        rows.append(row)
    if rows:
        await conn.execute(
            pg_insert(schedule_fires),
            [
                dict.fromkeys(FIRE_COLUMNS)
                | {"tenant_id": schedule.tenant_id, "schedule_id": schedule.id, "fired_by": owner}
                | r
                for r in rows
            ],
        )
    # Caught up: the next due time waits for its (jittered) moment. Not yet (the plan
    # stopped at its row limit): the rest is due at once, for the next claim.
    next_fire = (
        todo.next_due
        if todo.next_due <= claimed.now
        else jittered(todo.next_due, schedule.jitter_s)
    )
    await conn.execute(
        update(schedules)
        .where(schedules.c.tenant_id == schedule.tenant_id, schedules.c.id == schedule.id)
        .values(next_due_at=todo.next_due, next_fire_at=next_fire, last_run_id=last_run_id)
    )
    count = {o: sum(1 for r in rows if r["outcome"] == o.value) for o in Outcome}
    return Fired(
        schedule.tenant_id,
        schedule.id,
        count[Outcome.STARTED],
        count[Outcome.SKIPPED],
        count[Outcome.FAILED],
    )


async def postpone(conn: AsyncConnection, tenant_id: str, schedule_id: str, seconds: float) -> None:
    """Look at a schedule again only after `seconds` (its firing failed unexpectedly: it
    must not stay first in line and keep every worker from the schedules behind it)."""
    await conn.execute(
        update(schedules)
        .where(schedules.c.tenant_id == tenant_id, schedules.c.id == schedule_id)
        .values(next_fire_at=func.clock_timestamp() + timedelta(seconds=seconds))
    )


async def _fire_one(
    conn: AsyncConnection, schedule: ScheduleRecord, due: datetime, previous: UUID | None
) -> tuple[dict[str, Any], UUID | None]:
    """One due time: start its run, or skip it for overlap, or record why it failed.
    Returns its fire row and the schedule's latest run after it."""
    row: dict[str, Any] = {"due_at": due}
    cancel = False
    if previous is not None and await _still_going(conn, schedule.tenant_id, previous):
        row["previous_run_id"] = previous
        if schedule.overlap is Overlap.SKIP:
            skipped = {"outcome": Outcome.SKIPPED.value, "reason": SkipReason.OVERLAP.value}
            return row | skipped, previous
        cancel = schedule.overlap is Overlap.CANCEL_PREVIOUS
    session_id = schedule.session_id or f"{schedule.id}-{due.astimezone(UTC):%Y%m%dT%H%M%SZ}"
    row["session_id"] = session_id
    try:
        # A savepoint: a send refused (the session waits on an approval, the agent is
        # gone) leaves nothing behind, not even the cancel, and the fire is recorded as
        # failed.
        async with conn.begin_nested():
            if cancel:
                assert previous is not None
                # Ended meanwhile: nothing to cancel.
                with suppress(errors.RunNotCancellable):
                    await run_store.request_cancel(conn, schedule.tenant_id, previous)
            run = await _start(conn, schedule, session_id, due)
    except errors.AppError as exc:
        error = {"kind": type(exc).__name__, "message": exc.detail}
        return row | {"outcome": Outcome.FAILED.value, "error": error}, previous
    return row | {"outcome": Outcome.STARTED.value, "run_id": run}, run


async def _start(
    conn: AsyncConnection, schedule: ScheduleRecord, session_id: str, due: datetime
) -> UUID:
    """Queue the fire's run as an ordinary send would (so it is an ordinary run)."""
    fresh = schedule.session_id is None
    if fresh:
        taken = (
            await conn.execute(
                select(sessions.c.id).where(
                    sessions.c.tenant_id == schedule.tenant_id, sessions.c.id == session_id
                )
            )
        ).first()
        if taken is not None:
            raise errors.SessionExists(
                f"session {session_id!r} exists; a fire with session 'new' makes its own",
                session_id=session_id,
            )
    run = (
        await run_store.send(
            conn,
            SendCommand(
                tenant_id=schedule.tenant_id,
                session_id=session_id,
                input=schedule.input,
                agent_id=schedule.agent_id,
                if_busy="queue",
                created_by=schedule.created_by,
            ),
        )
    ).run
    if fresh:
        await conn.execute(
            update(sessions)
            .where(sessions.c.tenant_id == schedule.tenant_id, sessions.c.id == session_id)
            .values(metadata={"schedule_id": schedule.id, "due_at": due.isoformat()})
        )
    return run.id


async def _still_going(conn: AsyncConnection, tenant_id: str, run_id: UUID) -> bool:
    status = (
        await conn.execute(
            select(runs.c.status).where(runs.c.tenant_id == tenant_id, runs.c.id == run_id)
        )
    ).scalar()
    return status is not None and RunStatus(status) not in TERMINAL
