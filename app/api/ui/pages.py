"""The dashboard's pages. Each reads through the API's own route functions, with the
cookie's principal: the same tenant filter, the same errors, the same shapes."""

from __future__ import annotations

import difflib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

from fastapi import Query, Request, Response
from fastapi.responses import RedirectResponse
from sse_starlette import EventSourceResponse, ServerSentEvent

from app import errors
from app.api.deps import EngineDep, EventHubDep, SettingsDep
from app.api.routes import agents, approvals, history, runs, sessions
from app.api.schemas import MAX_PAGE, AgentOut, RunOut
from app.api.streams import ResumeAfter, event_stream, follow_events
from app.api.ui.guard import AgentsReader, RunsReader
from app.api.ui.rendering import page, ui_router
from app.domain import metadata
from app.domain.run import RunStatus, SessionStatus
from app.store.listing import TimeRange

router = ui_router()
ANY_TIME = TimeRange(None, None)
# Shown first on the runs page, in this order: what needs an operator.
STUCK, FAILING = "stuck", "failing"


@router.get("")
async def home(_principal: RunsReader) -> Response:
    return RedirectResponse("/ui/runs", status_code=303)


def parse_run_id(value: str) -> UUID:
    try:
        return UUID(value)
    except ValueError:
        raise errors.RunNotFound("no such run", run_id=value) from None


def metadata_pairs(text: str) -> list[tuple[str, str]]:
    """`key=value` pairs, space- or comma-separated, checked as the API's
    `?metadata.<key>=<value>` filters are."""
    pairs = []
    for item in text.replace(",", " ").split():
        key, sep, value = item.partition("=")
        if not sep:
            raise errors.FilterInvalid(
                f"a metadata filter is key=value, not {item!r}", field=("metadata",)
            )
        pairs.append((metadata.FILTER_PREFIX + key, value))
    return metadata.filters(pairs)


def choice(value: str, allowed: type[RunStatus] | type[SessionStatus]) -> Any:
    """A status from a form's select: none when empty, a 422 page when unknown."""
    if not value:
        return None
    try:
        return [allowed(value)]
    except ValueError:
        raise errors.FilterInvalid(f"no status {value!r}", field=("status",)) from None


def failing(run: RunOut) -> bool:
    return run.status == RunStatus.FAILED or run.last_error is not None


@router.get("/runs")
async def runs_page(
    request: Request,
    engine: EngineDep,
    settings: SettingsDep,
    principal: RunsReader,
    status: Annotated[str, Query(max_length=40)] = "",
    agent: Annotated[str, Query(max_length=200)] = "",
    meta: Annotated[str, Query(max_length=2000)] = "",
) -> Response:
    """Runs: stuck ones first, then failing ones, then the rest, newest first."""
    where: dict[str, Any] = {
        "status": choice(status, RunStatus),
        "agent_id": agent or None,
        "limit": MAX_PAGE,
    }
    pairs = metadata_pairs(meta)
    stuck = await runs.list_runs(engine, principal, settings, ANY_TIME, pairs, stuck=True, **where)
    rest = await runs.list_runs(engine, principal, settings, ANY_TIME, pairs, stuck=False, **where)
    rows = [(STUCK, r) for r in stuck.items]
    rows += [(FAILING, r) for r in rest.items if failing(r)]
    rows += [("", r) for r in rest.items if not failing(r)]
    context = {
        "rows": rows,
        "statuses": list(RunStatus),
        "filters": {"status": status, "agent": agent, "meta": meta},
        "more": rest.next_cursor is not None,
    }
    return page(request, "runs.html", context)


@dataclass(frozen=True)
class Moment:
    """One line of a run's timeline: a checkpoint or an event."""

    at: datetime
    kind: str
    label: str
    detail: Any


@router.get("/runs/{run_id}")
async def run_page(
    request: Request, run_id: str, engine: EngineDep, principal: RunsReader
) -> Response:
    """A run: its state and lease, the timeline of its saves and events, its transcript."""
    uuid = parse_run_id(run_id)
    run = await runs.get_run(uuid, engine, principal)
    event_page = await runs.list_run_events(uuid, engine, principal, cursor=None, limit=MAX_PAGE)
    saves = await history.list_checkpoints(
        run.session_id, engine, principal, cursor=None, limit=MAX_PAGE
    )
    messages = await sessions.list_messages(
        run.session_id, engine, principal, cursor=None, limit=MAX_PAGE
    )
    timeline = [Moment(e.created_at, "event", e.type, e.data) for e in event_page.items] + [
        Moment(
            c.saved_at, "checkpoint", f"checkpoint {c.seq}", {"step": c.step, "status": c.status}
        )
        for c in saves.items
        if c.run_id == run.id
    ]
    timeline.sort(key=lambda m: (m.at, m.kind != "checkpoint"))
    context = {"run": run, "timeline": timeline, "messages": messages.items}
    return page(request, "run.html", context)


def without_event_names(
    source: AsyncIterator[ServerSentEvent],
) -> AsyncIterator[ServerSentEvent]:
    """The logged events as unnamed ones, so a page's `EventSource.onmessage` sees them
    all (their data names the type); token deltas are left out: a page redraws per
    event, not per token."""

    async def relabelled() -> AsyncIterator[ServerSentEvent]:
        async for event in source:
            if event.id is not None:
                yield ServerSentEvent(data=event.data, id=event.id)

    return relabelled()


@router.get("/runs/{run_id}/stream")
async def run_stream(
    run_id: str,
    engine: EngineDep,
    hub: EventHubDep,
    settings: SettingsDep,
    principal: RunsReader,
    after: ResumeAfter,
) -> EventSourceResponse:
    """`GET /v1/runs/{id}/stream` for the run page: a browser's `EventSource` sends no
    `Authorization` header, so this twin takes the cookie and reads the same log."""
    run = await runs.get_run(parse_run_id(run_id), engine, principal)
    source = follow_events(
        engine, hub, principal.tenant_id, run.session_id, after=after, run_id=UUID(run.id)
    )
    return event_stream(without_event_names(source), settings)


@router.get("/approvals")
async def approvals_page(request: Request, engine: EngineDep, principal: RunsReader) -> Response:
    """The inbox: pending approvals, oldest first."""
    return await inbox(request, engine, principal)


async def inbox(
    request: Request,
    engine: EngineDep,
    principal: Any,
    failures: dict[str, Any] | None = None,
    status_code: int = 200,
) -> Response:
    """The inbox page, with what went wrong with one decision shown at its approval."""
    pending = await approvals.list_approvals(
        engine,
        principal,
        status="pending",
        session_id=None,
        run_id=None,
        cursor=None,
        limit=MAX_PAGE,
    )
    failures = failures or {}
    listed = {a.id for a in pending.items}
    # A decision refused because the approval is no longer pending: said at the top.
    elsewhere = [f for approval_id, f in failures.items() if approval_id not in listed]
    context = {"approvals": pending.items, "failures": failures, "elsewhere": elsewhere}
    return page(request, "approvals.html", context, status_code)


@router.get("/sessions")
async def sessions_page(
    request: Request,
    engine: EngineDep,
    principal: RunsReader,
    status: Annotated[str, Query(max_length=40)] = "",
    agent: Annotated[str, Query(max_length=200)] = "",
    meta: Annotated[str, Query(max_length=2000)] = "",
) -> Response:
    listed = await sessions.list_sessions(
        engine,
        principal,
        ANY_TIME,
        ANY_TIME,
        metadata_pairs(meta),
        status=choice(status, SessionStatus),
        agent_id=agent or None,
        cursor=None,
        limit=MAX_PAGE,
    )
    context = {
        "sessions": listed.items,
        "statuses": list(SessionStatus),
        "filters": {"status": status, "agent": agent, "meta": meta},
    }
    return page(request, "sessions.html", context)


@router.get("/sessions/{session_id}")
async def session_page(
    request: Request,
    session_id: str,
    engine: EngineDep,
    settings: SettingsDep,
    principal: RunsReader,
) -> Response:
    """A session: its state, its runs, its transcript."""
    session = await sessions.get_session(session_id, engine, principal)
    session_runs = await runs.list_runs(
        engine, principal, settings, ANY_TIME, [], session_id=session.id, limit=MAX_PAGE
    )
    messages = await sessions.list_messages(
        session.id, engine, principal, cursor=None, limit=MAX_PAGE
    )
    context = {"session": session, "runs": session_runs.items, "messages": messages.items}
    return page(request, "session.html", context)


@router.get("/agents")
async def agents_page(request: Request, engine: EngineDep, principal: AgentsReader) -> Response:
    listed = await agents.list_agents(
        engine, principal, ANY_TIME, ANY_TIME, cursor=None, limit=MAX_PAGE
    )
    return page(request, "agents.html", {"agents": listed.items})


def definition_text(agent: AgentOut) -> list[str]:
    """An agent version's definition as stable, diffable lines."""
    shown = agent.model_dump(mode="json", exclude={"id", "version", "created_at", "fingerprint"})
    return json.dumps(shown, indent=2, sort_keys=True, ensure_ascii=False).splitlines()


@router.get("/agents/{agent_id}")
async def agent_page(
    request: Request,
    agent_id: str,
    engine: EngineDep,
    principal: AgentsReader,
    a: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
    b: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> Response:
    """An agent: its versions, the latest definition, and a diff between two versions
    (`?a=1&b=2`; an unknown version is a 404 page)."""
    latest = await agents.get_agent(agent_id, engine, principal, version=None)
    old = a or max(latest.version - 1, 1)
    new = b or latest.version
    before = await agents.get_agent(agent_id, engine, principal, version=old)
    after = await agents.get_agent(agent_id, engine, principal, version=new)
    diff = list(
        difflib.unified_diff(
            definition_text(before),
            definition_text(after),
            f"version {old}",
            f"version {new}",
            lineterm="",
        )
    )
    context = {
        "agent": latest,
        "versions": range(latest.version, 0, -1),
        "a": old,
        "b": new,
        "diff": diff,
        "definition": "\n".join(definition_text(latest)),
    }
    return page(request, "agent.html", context)
