"""Runs: read one, the ops list across sessions, cancel, resume."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Query
from sse_starlette import EventSourceResponse

from app import errors
from app.api.auth import RunsRead, RunsWrite
from app.api.deps import EngineDep, EventHubDep, SettingsDep
from app.api.filters import METADATA_FILTER_DOC, CreatedRange, MetadataFilters
from app.api.problems import responses
from app.api.schemas import (
    MAX_PAGE,
    AgentIdQuery,
    EventOut,
    EventPage,
    MetadataPatchIn,
    RunOut,
    RunPage,
    SeqCursor,
    SessionIdQuery,
    ToolResultsIn,
    check_session_id,
)
from app.api.streams import STREAM_RESPONSE, ResumeAfter, event_stream, follow_events
from app.api.views import run_out, runs_out
from app.domain.run import RunStatus
from app.store import events, tool_outputs
from app.store import runs as store
from app.store.runs import RunFilter

router = APIRouter(prefix="/v1/runs", tags=["runs"])


@router.get(
    "",
    response_model=RunPage,
    responses=responses(errors.SessionIdInvalid),
    description="Runs across sessions, newest first: the ops view of pending, failing, "
    "paused and stuck runs. " + METADATA_FILTER_DOC,
)
async def list_runs(
    engine: EngineDep,
    principal: RunsRead,
    settings: SettingsDep,
    created: CreatedRange,
    metadata: MetadataFilters,
    status: Annotated[list[RunStatus] | None, Query(description="Repeat for several.")] = None,
    session_id: SessionIdQuery = None,
    agent_id: AgentIdQuery = None,
    stuck: Annotated[
        bool | None,
        Query(
            description="`true`: only runs that are `running` under an expired lease, or "
            "`queued` and claimable for longer than PERDURE_STUCK_QUEUED_S; `false`: none "
            "of those."
        ),
    ] = None,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
) -> RunPage:
    if session_id is not None:
        check_session_id(session_id)
    where = RunFilter(
        statuses=[s.value for s in status] if status else None,
        session_id=session_id,
        agent_id=agent_id,
        created=created,
        metadata=metadata,
        stuck=stuck,
        stuck_queued_after=timedelta(seconds=settings.stuck_queued_s),
    )
    async with engine.connect() as conn:
        records, next_cursor = await store.list_runs(
            conn, principal.tenant_id, where, cursor=cursor, limit=limit
        )
        items = await runs_out(conn, records)
    return RunPage(items=items, next_cursor=next_cursor)


@router.get("/{run_id}", response_model=RunOut, responses=responses(errors.NotFound))
async def get_run(run_id: UUID, engine: EngineDep, principal: RunsRead) -> RunOut:
    """A run: its status, steps, usage, output, and what it waits on when paused."""
    async with engine.connect() as conn:
        return await run_out(conn, await store.get_run(conn, principal.tenant_id, run_id))


@router.patch(
    "/{run_id}",
    response_model=RunOut,
    responses=responses(errors.NotFound, errors.MetadataInvalid),
)
async def update_run(
    run_id: UUID, body: MetadataPatchIn, engine: EngineDep, principal: RunsWrite
) -> RunOut:
    """Set or remove metadata keys (`null` removes one); keys not named are kept."""
    async with engine.begin() as conn:
        return await run_out(
            conn, await store.set_metadata(conn, principal.tenant_id, run_id, body.metadata)
        )


@router.post(
    "/{run_id}/cancel",
    response_model=RunOut,
    responses=responses(errors.NotFound, errors.RunNotCancellable),
)
async def cancel_run(run_id: UUID, engine: EngineDep, principal: RunsWrite) -> RunOut:
    """Cancel a run. A run that has started stops within a heartbeat: its unsettled calls
    get a `cancelled` result and it ends `cancelled`. The session can take new input."""
    async with engine.begin() as conn:
        return await run_out(conn, await store.request_cancel(conn, principal.tenant_id, run_id))


@router.post(
    "/{run_id}/resume",
    response_model=RunOut,
    responses=responses(errors.NotFound, errors.RunNotResumable),
)
async def resume_run(run_id: UUID, engine: EngineDep, principal: RunsWrite) -> RunOut:
    """Queue a failed run again. It continues from its checkpoint with what is left of its
    step budget; completed steps are not re-run."""
    async with engine.begin() as conn:
        return RunOut.of(await store.resume(conn, principal.tenant_id, run_id))


@router.post(
    "/{run_id}/tool-results",
    response_model=RunOut,
    responses=responses(
        errors.NotFound,
        errors.RunNotAwaitingToolResults,
        errors.ToolResultAlreadyRecorded,
        errors.UnknownToolCall,
    ),
)
async def post_tool_results(
    run_id: UUID, body: ToolResultsIn, engine: EngineDep, principal: RunsWrite
) -> RunOut:
    """Outputs of client tools, for some or all of the calls the run awaits.

    Each call takes one output (a second is 409). Once every awaited call has its output
    the run is queued and a worker continues it.
    """
    posted = [tool_outputs.PostedOutput(r.tool_call_id, r.output, r.is_error) for r in body.results]
    async with engine.begin() as conn:
        return await run_out(
            conn, await tool_outputs.post(conn, principal.tenant_id, run_id, posted)
        )


@router.get("/{run_id}/events", response_model=EventPage, responses=responses(errors.NotFound))
async def list_run_events(
    run_id: UUID,
    engine: EngineDep,
    principal: RunsRead,
    cursor: SeqCursor = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> EventPage:
    """The run's events, oldest first: every change of its state (docs/design.md,
    "Events"). Ids are its session's, so they skip the events of the session's other runs.
    `GET /v1/runs/{id}/stream` follows them live."""
    async with engine.connect() as conn:
        run = await store.get_run(conn, principal.tenant_id, run_id)
        records = await events.list_events(
            conn,
            principal.tenant_id,
            run.session_id,
            after_id=cursor or 0,
            limit=limit,
            run_id=run_id,
        )
    items = [EventOut.of(e) for e in records]
    return EventPage(items=items, next_cursor=str(items[-1].id) if len(items) == limit else None)


@router.get(
    "/{run_id}/stream",
    response_class=EventSourceResponse,
    responses={**STREAM_RESPONSE, **responses(errors.NotFound)},
)
async def stream_run(
    run_id: UUID,
    engine: EngineDep,
    hub: EventHubDep,
    settings: SettingsDep,
    principal: RunsRead,
    after: ResumeAfter,
) -> EventSourceResponse:
    """The run's events as Server-Sent Events, live, ending after its terminal event
    (`run.finished`, `run.failed`, `run.cancelled`). A reconnecting client sends
    `Last-Event-ID` (or `?after=`) and gets exactly the events it missed."""
    async with engine.connect() as conn:
        run = await store.get_run(conn, principal.tenant_id, run_id)
    return event_stream(
        follow_events(engine, hub, run.tenant_id, run.session_id, after=after, run_id=run.id),
        settings,
    )
