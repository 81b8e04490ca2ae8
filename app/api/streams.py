"""Server-Sent Events over the event log (docs/design.md, "Events").

One LISTEN connection per process (`EventHub`) hears which sessions have new events and
wakes the streams that follow them; each stream then reads its new rows by id range on a
pooled connection, which it holds only for that read. So a process holds any number of
streams with one connection of its own, and a stream buffers nothing: it reads the next
rows only once the previous ones were sent. A client that stops reading is dropped after
`PERDURE_STREAM_SEND_TIMEOUT_S` (sse-starlette's `send_timeout`); its events stay in the
log, and it resumes with `Last-Event-ID`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import Annotated, Any
from uuid import UUID

from fastapi import Depends, Header, Query
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sse_starlette import EventSourceResponse, ServerSentEvent

from app.api.schemas import EventOut
from app.domain.run import TERMINAL
from app.settings import Settings
from app.store import events
from app.store import runs as run_store
from app.store.unavailable import DATABASE_UNAVAILABLE, describe
from app.store.wakeups import follow

log = logging.getLogger("perdure.streams")

# Rows a stream reads at a time: its catch-up after a reconnection comes in pages.
PAGE = 500

Key = tuple[str, str]  # (tenant_id, session_id)


class EventHub:
    """Wakes the streams of a session when its events change; started by the first one.

    Streams read through `reading()`, which lets half the pool's connections read at
    once: a thousand streams waking (or connecting) together then take turns, instead of
    timing out at the pool and starving the API's other requests.
    """

    def __init__(self, database_url: str, *, pool_size: int) -> None:
        self._url = database_url
        self._readers = asyncio.Semaphore(max(1, pool_size // 2))
        self._waiting: dict[Key, set[asyncio.Event]] = {}
        self._stopping = asyncio.Event()
        self._listener: asyncio.Task[None] | None = None

    @contextmanager
    def watching(self, tenant_id: str, session_id: str) -> Iterator[asyncio.Event]:
        """An event set whenever the session may have new events (and once at the start
        of listening, when anything may have been missed)."""
        if self._listener is None:
            self._listener = asyncio.create_task(
                follow(self._url, events.EVENT_CHANNEL, self._notified, self._stopping)
            )
        key = (tenant_id, session_id)
        wake = asyncio.Event()
        self._waiting.setdefault(key, set()).add(wake)
        try:
            yield wake
        finally:
            waiters = self._waiting.get(key)
            if waiters is not None:
                waiters.discard(wake)
                if not waiters:
                    del self._waiting[key]

    @asynccontextmanager
    async def reading(self, engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
        """A connection to read new events on, once it is this stream's turn."""
        async with self._readers, engine.connect() as conn:
            yield conn

    @property
    def streams(self) -> int:
        return sum(len(w) for w in self._waiting.values())

    def _notified(self, payload: str | None) -> None:
        if payload is None:
            for waiters in self._waiting.values():
                for wake in waiters:
                    wake.set()
            return
        try:
            tenant_id, session_id = json.loads(payload)
        except ValueError:
            log.warning("ignored a malformed event notification: %r", payload)
            return
        for wake in self._waiting.get((tenant_id, session_id), ()):
            wake.set()

    async def aclose(self) -> None:
        self._stopping.set()
        if self._listener is not None:
            self._listener.cancel()
            with suppress(asyncio.CancelledError):
                await self._listener


async def follow_events(
    engine: AsyncEngine,
    hub: EventHub,
    tenant_id: str,
    session_id: str,
    *,
    after: int,
    run_id: UUID | None = None,
) -> AsyncIterator[ServerSentEvent]:
    """A session's events after `after` as SSE, and then live; with `run_id`, only that
    run's, ending after its terminal event (at once, if the client saw it already)."""
    with hub.watching(tenant_id, session_id) as wake:
        last = after
        checked_end = run_id is None
        while True:
            wake.clear()  # before the read: a notification during it is not lost
            try:
                async with hub.reading(engine) as conn:
                    records = await events.list_events(
                        conn, tenant_id, session_id, after_id=last, limit=PAGE, run_id=run_id
                    )
                    if not records and run_id is not None and not checked_end:
                        checked_end = True
                        run = await run_store.get_run(conn, tenant_id, run_id)
                        if run.status in TERMINAL:
                            return
            except DATABASE_UNAVAILABLE as exc:
                # The response has started: no problem document can be sent now. End the
                # stream; the client reconnects with Last-Event-ID and misses nothing.
                log.warning("a stream of session %s ended: %s", session_id, describe(exc))
                return
            for record in records:
                last = record.id
                yield ServerSentEvent(
                    data=EventOut.of(record).model_dump_json(), event=record.type, id=str(last)
                )
                if run_id is not None and record.ends_run:
                    return
            if len(records) < PAGE:
                await wake.wait()


def event_stream(
    events_: AsyncIterator[ServerSentEvent], settings: Settings
) -> EventSourceResponse:
    """The response for a stream: keep-alive comments every `stream_ping_s`, and a client
    that does not take an event within `stream_send_timeout_s` is dropped."""
    return EventSourceResponse(
        events_,
        ping=settings.stream_ping_s,
        send_timeout=settings.stream_send_timeout_s,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def resume_after(
    last_event_id: Annotated[
        int | None,
        Header(
            alias="Last-Event-ID",
            ge=0,
            description="The last event id the client saw; the stream resumes after it.",
        ),
    ] = None,
    after: Annotated[
        int | None, Query(ge=0, description="As `Last-Event-ID`, for clients that cannot set it.")
    ] = None,
) -> int:
    """Where a stream starts: after `Last-Event-ID` (what a reconnecting EventSource
    sends), else after `?after=`, else at the first event."""
    if last_event_id is not None:
        return last_event_id
    return after or 0


ResumeAfter = Annotated[int, Depends(resume_after)]

# One event of a stream, as OpenAPI 3.2 describes SSE items: `data` is an `EventOut`.
SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "required": ["data"],
    "properties": {
        "id": {"type": "string", "description": "The event's id, for Last-Event-ID."},
        "event": {"type": "string", "description": "The event's type, e.g. `run.finished`."},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": "#/components/schemas/EventOut"},
        },
    },
}

# How the stream endpoints are documented: one SSE event per event row.
STREAM_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": (
            "`text/event-stream`: one event per event row (`id:` its id, `event:` its type, "
            "`data:` the event as JSON, as in `GET /v1/runs/{id}/events`), and a comment "
            "line as keep-alive."
        ),
        "content": {"text/event-stream": {"schema": SSE_EVENT}},
    }
}
