"""Schedules: runs started by the workers on a cron or an interval, once per due time."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from app import errors
from app.api.auth import RunsRead, RunsWrite
from app.api.deps import EngineDep
from app.api.problems import responses
from app.api.schedule_schemas import (
    SCHEDULE_ID_MAX,
    SCHEDULE_ID_RULE,
    FireOut,
    FirePage,
    ScheduleCreate,
    ScheduleOut,
    SchedulePage,
)
from app.api.schemas import MAX_PAGE
from app.domain.agent import ID_PATTERN
from app.domain.schedule import CatchUp, Overlap
from app.store import schedules as store

router = APIRouter(prefix="/v1/schedules", tags=["schedules"])

ScheduleIdPath = Annotated[
    str, Path(pattern=ID_PATTERN, max_length=SCHEDULE_ID_MAX, description=SCHEDULE_ID_RULE)
]
Cursor = Annotated[str | None, Query(max_length=500, description="`next_cursor` of a page.")]
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE)]


@router.post(
    "",
    status_code=201,
    response_model=ScheduleOut,
    responses=responses(
        errors.NotFound,
        errors.ScheduleExists,
        errors.SessionIdInvalid,
        errors.SessionAgentMismatch,
        errors.InputTooLarge,
    ),
)
async def create_schedule(
    body: ScheduleCreate, engine: EngineDep, principal: RunsWrite
) -> ScheduleOut:
    """Start runs of an agent on a cron expression or an interval.

    Workers fire each due time once, however many run. The first due time is the next
    one after now (on the database's clock).
    """
    new = store.NewSchedule(
        tenant_id=principal.tenant_id,
        id=body.id,
        agent_id=body.agent_id,
        cron=body.cron,
        interval_s=body.interval_s,
        timezone=body.timezone,
        input=body.input_messages(),
        session_id=body.fixed_session(),
        overlap=Overlap(body.overlap),
        catch_up=CatchUp(body.catch_up),
        jitter_s=body.jitter_s,
        metadata=body.metadata,
        created_by=principal.as_actor(),
    )
    async with engine.begin() as conn:
        return ScheduleOut.of(await store.create(conn, new))


@router.get("", response_model=SchedulePage, responses=responses())
async def list_schedules(
    engine: EngineDep, principal: RunsRead, cursor: Cursor = None, limit: Limit = 50
) -> SchedulePage:
    """The tenant's schedules, by id."""
    async with engine.connect() as conn:
        records, next_cursor = await store.list_schedules(
            conn, principal.tenant_id, cursor=cursor, limit=limit
        )
    return SchedulePage(items=[ScheduleOut.of(r) for r in records], next_cursor=next_cursor)


@router.get("/{schedule_id}", response_model=ScheduleOut, responses=responses(errors.NotFound))
async def get_schedule(
    schedule_id: ScheduleIdPath, engine: EngineDep, principal: RunsRead
) -> ScheduleOut:
    """A schedule: its timing, what it sends, its status and when it is due next."""
    async with engine.connect() as conn:
        return ScheduleOut.of(await store.get(conn, principal.tenant_id, schedule_id))


@router.post(
    "/{schedule_id}/pause", response_model=ScheduleOut, responses=responses(errors.NotFound)
)
async def pause_schedule(
    schedule_id: ScheduleIdPath, engine: EngineDep, principal: RunsWrite
) -> ScheduleOut:
    """Stop firing. Due times that pass while paused are neither fired nor recorded;
    runs already started go on."""
    async with engine.begin() as conn:
        return ScheduleOut.of(await store.pause(conn, principal.tenant_id, schedule_id))


@router.post(
    "/{schedule_id}/resume", response_model=ScheduleOut, responses=responses(errors.NotFound)
)
async def resume_schedule(
    schedule_id: ScheduleIdPath, engine: EngineDep, principal: RunsWrite
) -> ScheduleOut:
    """Fire again, from the next due time after now."""
    async with engine.begin() as conn:
        return ScheduleOut.of(await store.resume(conn, principal.tenant_id, schedule_id))


@router.delete("/{schedule_id}", status_code=204, responses=responses(errors.NotFound))
async def delete_schedule(
    schedule_id: ScheduleIdPath, engine: EngineDep, principal: RunsWrite
) -> Response:
    """Delete a schedule and its fire records. The runs it started are not touched."""
    async with engine.begin() as conn:
        await store.delete_schedule(conn, principal.tenant_id, schedule_id)
    return Response(status_code=204)


@router.get("/{schedule_id}/fires", response_model=FirePage, responses=responses(errors.NotFound))
async def list_schedule_fires(
    schedule_id: ScheduleIdPath,
    engine: EngineDep,
    principal: RunsRead,
    cursor: Cursor = None,
    limit: Limit = 50,
) -> FirePage:
    """What each due time came to, newest first: the run it started, or why none."""
    async with engine.connect() as conn:
        records, next_cursor = await store.list_fires(
            conn, principal.tenant_id, schedule_id, cursor=cursor, limit=limit
        )
    return FirePage(items=[FireOut.of(r) for r in records], next_cursor=next_cursor)
