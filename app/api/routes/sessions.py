"""Sessions: send input (which makes a run), read the status and the transcript, end."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated

from fastapi import APIRouter, Header, Query, Response
from sse_starlette import EventSourceResponse

from app import errors
from app.api.auth import RunsRead, RunsWrite
from app.api.deps import EngineDep, EventHubDep, SettingsDep
from app.api.filters import METADATA_FILTER_DOC, CreatedRange, MetadataFilters, UpdatedRange
from app.api.problems import responses
from app.api.schemas import (
    MAX_PAGE,
    AgentIdQuery,
    MessageOut,
    MessagePage,
    MetadataPatchIn,
    RunOut,
    SendRequest,
    SeqCursor,
    SessionIdPath,
    SessionOut,
    SessionPage,
    SessionSummaryOut,
    check_session_id,
)
from app.api.streams import SSE_EVENT, STREAM_RESPONSE, ResumeAfter, event_stream, follow_events
from app.api.views import run_out
from app.domain.principal import Scope
from app.domain.run import PAUSED, TERMINAL, Message, RunStatus, SessionStatus
from app.store import runs as run_store
from app.store import sessions as session_store
from app.store import transcript
from app.store.runs import SendCommand
from app.store.sessions import SessionFilter
from app.telemetry import tracing

router = APIRouter(prefix="/v1/sessions", tags=["sessions"])

# A run awaiting its children needs nobody outside: a wait goes on through it.
SETTLED_OR_PAUSED = TERMINAL | (PAUSED - {RunStatus.AWAITING_CHILDREN})


@router.post(
    "/{session_id}/runs",
    response_model=RunOut,
    status_code=202,
    responses={
        200: {
            "model": RunOut,
            "description": (
                "The run finished or paused within `wait`; with `stream=true`, the run's "
                "events as `text/event-stream` (as `GET /v1/runs/{id}/stream`)."
            ),
            "content": {"text/event-stream": {"schema": SSE_EVENT}},
        },
        **responses(
            errors.NotFound,
            errors.SessionIdInvalid,
            errors.SessionBusy,
            errors.SessionAwaitingApproval,
            errors.SessionAgentMismatch,
            errors.InputTooLarge,
            errors.IdempotencyKeyReused,
            errors.SessionBudgetExhausted,
            errors.MetadataInvalid,
        ),
    },
)
async def send_message(
    session_id: SessionIdPath,
    body: SendRequest,
    engine: EngineDep,
    principal: RunsWrite,
    settings: SettingsDep,
    response: Response,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            max_length=200,
            description="A redelivered request with the same key returns the first run "
            "(the same key with another body is 422 IDEMPOTENCY_KEY_REUSED).",
        ),
    ] = None,
    wait: Annotated[
        float,
        Query(
            ge=0, le=3600, description="Seconds to wait for a rest (capped by PERDURE_MAX_WAIT_S)."
        ),
    ] = 0,
    stream: Annotated[
        bool,
        Query(
            description="Answer with the run's events as `text/event-stream` (as `GET "
            "/v1/runs/{run_id}/stream`) instead of the run."
        ),
    ] = False,
    *,
    hub: EventHubDep,
) -> RunOut | EventSourceResponse:
    """Send input to a session (created on first use when `agent_id` is given).

    The run is durable when this answers. With `Idempotency-Key`, a redelivered request
    returns the first run instead of starting another. With `stream=true` the answer is
    the run's stream from its first event, so a chat client needs one request.
    """
    if (body.agent_version is not None or body.on_drift is not None) and (
        Scope.AGENTS_WRITE not in principal.scopes
    ):
        # Choosing the version (or loosening the drift policy) chooses what the tools do
        # and which of them need a human: an agent author's decision, not a sender's.
        raise errors.Forbidden(
            "agent_version and on_drift need the scope 'agents:write'",
            scope=Scope.AGENTS_WRITE.value,
        )
    command = SendCommand(
        tenant_id=principal.tenant_id,
        created_by=principal.as_actor(),
        trace_context=tracing.carrier(),
        session_id=check_session_id(session_id),
        input=body.input_messages(),
        agent_id=body.agent_id,
        max_steps=body.max_steps,
        if_busy=body.if_busy,
        idempotency_key=idempotency_key,
        agent_version=body.agent_version,
        on_drift=body.on_drift,
        budget=body.budget,
        session_budget=body.session_budget,
        # Raising a limit is a spending decision, the agent author's (as choosing a version).
        may_raise_budgets=Scope.AGENTS_WRITE in principal.scopes,
        metadata=body.metadata,
        session_metadata=body.session_metadata,
    )
    async with engine.begin() as conn:
        sent = await run_store.send(conn, command)
    run = sent.run
    if stream:
        source = follow_events(
            engine, hub, run.tenant_id, run.session_id, after=0, run_id=run.id, written=sent.events
        )
        return event_stream(source, settings)
    if wait:
        run = await wait_for_rest(engine, run, min(wait, settings.max_wait_s))
    response.status_code = 200 if run.status in SETTLED_OR_PAUSED else 202
    async with engine.connect() as conn:
        return await run_out(conn, run)


async def wait_for_rest(
    engine: EngineDep, run: run_store.RunRecord, wait_s: float
) -> run_store.RunRecord:
    """Poll until the run finishes or pauses, or the wait is over."""
    deadline = time.monotonic() + wait_s
    interval = 0.02
    while True:
        async with engine.connect() as conn:
            run = await run_store.get_run(conn, run.tenant_id, run.id)
        left = deadline - time.monotonic()
        if run.status in SETTLED_OR_PAUSED or left <= 0:
            return run
        await asyncio.sleep(min(interval, left))
        interval = min(interval * 1.5, 0.25)


@router.get(
    "",
    response_model=SessionPage,
    responses=responses(errors.InvalidCursor),
    description="Sessions newest first, with the status of their latest run (`idle`: "
    "none yet). " + METADATA_FILTER_DOC,
)
async def list_sessions(
    engine: EngineDep,
    principal: RunsRead,
    created: CreatedRange,
    updated: UpdatedRange,
    metadata: MetadataFilters,
    status: Annotated[list[SessionStatus] | None, Query(description="Repeat for several.")] = None,
    agent_id: AgentIdQuery = None,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
) -> SessionPage:
    where = SessionFilter(
        statuses=status,
        agent_id=agent_id,
        created=created,
        updated=updated,
        metadata=metadata,
    )
    async with engine.connect() as conn:
        records, next_cursor = await session_store.list_sessions(
            conn, principal.tenant_id, where, cursor=cursor, limit=limit
        )
    return SessionPage(items=[SessionSummaryOut.of(r) for r in records], next_cursor=next_cursor)


@router.patch(
    "/{session_id}",
    response_model=SessionOut,
    responses=responses(errors.NotFound, errors.SessionIdInvalid, errors.MetadataInvalid),
)
async def update_session(
    session_id: SessionIdPath, body: MetadataPatchIn, engine: EngineDep, principal: RunsWrite
) -> SessionOut:
    """Set or remove metadata keys (`null` removes one); keys not named are kept."""
    async with engine.begin() as conn:
        return SessionOut.of(
            await session_store.set_metadata(
                conn, principal.tenant_id, check_session_id(session_id), body.metadata
            )
        )


@router.get(
    "/{session_id}",
    response_model=SessionOut,
    responses=responses(errors.NotFound, errors.SessionIdInvalid),
)
async def get_session(
    session_id: SessionIdPath, engine: EngineDep, principal: RunsRead
) -> SessionOut:
    """A session: its status (its latest run's, or `idle`), usage, budget and metadata."""
    async with engine.connect() as conn:
        return SessionOut.of(
            await session_store.get_session(conn, principal.tenant_id, check_session_id(session_id))
        )


@router.delete(
    "/{session_id}", status_code=204, responses=responses(errors.NotFound, errors.SessionIdInvalid)
)
async def delete_session(
    session_id: SessionIdPath, engine: EngineDep, principal: RunsWrite
) -> Response:
    """End a session: its runs stop, its transcript and checkpoints are deleted."""
    async with engine.begin() as conn:
        await session_store.delete_session(conn, principal.tenant_id, check_session_id(session_id))
    return Response(status_code=204)


@router.get(
    "/{session_id}/messages",
    response_model=MessagePage,
    responses=responses(errors.NotFound, errors.SessionIdInvalid),
)
async def list_messages(
    session_id: SessionIdPath,
    engine: EngineDep,
    principal: RunsRead,
    cursor: SeqCursor = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> MessagePage:
    """The transcript in order: each assistant turn, then its calls' results in call order.

    A call without a result yet is not listed.
    """
    check_session_id(session_id)
    async with engine.connect() as conn:
        await session_store.get_session(conn, principal.tenant_id, session_id)
        entries = await transcript.load_entries(
            conn, principal.tenant_id, session_id, after_seq=cursor or 0, limit=limit
        )
        turns = [e.seq for e in entries if isinstance(e, Message) and e.tool_call_ids]
        calls = await transcript.calls_of_turns(conn, principal.tenant_id, session_id, turns)
    by_id = {c.id: c for turn in calls.values() for c in turn}
    items = MessageOut.transcript(entries, by_id)
    next_cursor = str(entries[-1].seq) if len(entries) == limit else None
    return MessagePage(items=items, next_cursor=next_cursor)


@router.get(
    "/{session_id}/stream",
    response_class=EventSourceResponse,
    responses={**STREAM_RESPONSE, **responses(errors.NotFound, errors.SessionIdInvalid)},
)
async def stream_session(
    session_id: SessionIdPath,
    engine: EngineDep,
    hub: EventHubDep,
    settings: SettingsDep,
    principal: RunsRead,
    after: ResumeAfter,
) -> EventSourceResponse:
    """The session's events (all its runs') as Server-Sent Events, live; the stream stays
    open. A reconnecting client sends `Last-Event-ID` (or `?after=`)."""
    async with engine.connect() as conn:
        session = await session_store.get_session(
            conn, principal.tenant_id, check_session_id(session_id)
        )
    return event_stream(
        follow_events(engine, hub, principal.tenant_id, session.id, after=after), settings
    )
