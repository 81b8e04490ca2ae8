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
from collections import deque
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, field
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
from app.store.deltas import DELTA_CHANNEL
from app.store.events import EVENT_CHANNEL
from app.store.unavailable import DATABASE_UNAVAILABLE, describe
from app.store.wakeups import follow

log = logging.getLogger("perdure.streams")

# Rows a stream reads at a time: its catch-up after a reconnection comes in pages.
PAGE = 500

Key = tuple[str, str]  # (tenant_id, session_id)

# Token deltas a stream holds for its client at most (they are small pieces of text).
MAX_DELTAS = 1000


@dataclass(eq=False)  # each is its own: kept in sets by identity
class Watch:
    """One stream's view of the hub: woken when its session may have new events, and the
    token deltas that arrived for it since it last looked (ephemeral, at most
    `MAX_DELTAS`: a stream that falls that far behind loses the oldest)."""

    wake: asyncio.Event = field(default_factory=asyncio.Event)
    deltas: deque[tuple[str, int, str]] = field(default_factory=lambda: deque(maxlen=MAX_DELTAS))


class EventHub:
    """Wakes the streams of a session when its events change, and hands them its token
    deltas; listens (on one connection) from the first stream on.

    Streams read through `reading()`, which lets half the pool's connections read at
    once: a thousand streams waking (or connecting) together then take turns, instead of
    timing out at the pool and starving the API's other requests.
    """

    def __init__(self, database_url: str, *, pool_size: int) -> None:
        self._url = database_url
        self._readers = asyncio.Semaphore(max(1, pool_size // 2))
        self._watches: dict[Key, set[Watch]] = {}
        self._stopping = asyncio.Event()
        self._listener: asyncio.Task[None] | None = None
        # Set once the listener's LISTEN is in place (deltas sent before are not seen).
        self.listening = False

    @contextmanager
    def watching(self, tenant_id: str, session_id: str) -> Iterator[Watch]:
        if self._listener is None:
            handlers = {EVENT_CHANNEL: self._on_event, DELTA_CHANNEL: self._on_delta}
            self._listener = asyncio.create_task(follow(self._url, handlers, self._stopping))
        key = (tenant_id, session_id)
        watch = Watch()
        self._watches.setdefault(key, set()).add(watch)
        try:
            yield watch
        finally:
            watches = self._watches.get(key)
            if watches is not None:
                watches.discard(watch)
                if not watches:
                    del self._watches[key]

    @asynccontextmanager
    async def reading(self, engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
        """A connection to read new events on, once it is this stream's turn.

        In autocommit: a stream's reads are single statements, which see what had
        committed when each began whether or not a transaction wraps them (READ
        COMMITTED), and without one a read costs no BEGIN and no ROLLBACK round trip.
        """
        async with self._readers, engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            yield conn

    @property
    def streams(self) -> int:
        return sum(len(w) for w in self._watches.values())

    def _on_event(self, payload: str | None) -> None:
        if payload is None:  # (re)connected: anything may have been missed
            self.listening = True
            for watches in self._watches.values():
                for watch in watches:
                    watch.wake.set()
            return
        parsed = _parsed(payload, fields=2)
        for watch in self._watches.get((parsed[0], parsed[1]), ()) if parsed else ():
            watch.wake.set()

    def _on_delta(self, payload: str | None) -> None:
        parsed = _parsed(payload, fields=5) if payload is not None else None
        if parsed is None:
            return
        tenant_id, session_id, run_id, n, text = parsed
        for watch in self._watches.get((tenant_id, session_id), ()):
            watch.deltas.append((run_id, n, text))
            watch.wake.set()

    async def aclose(self) -> None:
        self._stopping.set()
        if self._listener is not None:
            self._listener.cancel()
            with suppress(asyncio.CancelledError):
                await self._listener


def _parsed(payload: str, *, fields: int) -> list[Any] | None:
    """A notification's JSON array of `fields` items, or None (logged) if it is not one."""
    try:
        parsed = json.loads(payload)
    except ValueError:
        parsed = None
    if not isinstance(parsed, list) or len(parsed) != fields:
        log.warning("ignored a malformed notification: %r", payload[:200])
        return None
    return parsed


async def follow_events(
    engine: AsyncEngine,
    hub: EventHub,
    tenant_id: str,
    session_id: str,
    *,
    after: int,
    run_id: UUID | None = None,
    written: Sequence[events.EventRecord] = (),
) -> AsyncIterator[ServerSentEvent]:
    """A session's events after `after` as SSE, and then live, with token deltas as
    `message.delta` events (no id: they are not in the log, and not replayed). With
    `run_id`, only that run's, ending after its terminal event (at once, if the client
    saw it already).

    `written`: the first of those events, committed by the request itself (a send): sent
    as they are, before anything is read, so its client has them a read sooner.
    """
    run = str(run_id) if run_id is not None else None
    last = after
    # Watching first: token deltas sent while `written` goes out are kept for the client.
    with hub.watching(tenant_id, session_id) as watch:
        for record in written:
            if run_id is None or record.run_id == run_id:
                last = record.id
                yield sse_of(record)
        checked_end = run_id is None
        while True:
            watch.wake.clear()  # before the read: a notification during it is not lost
            while watch.deltas:
                delta_run, n, text = watch.deltas.popleft()
                if run is None or delta_run == run:
                    data = json.dumps({"run_id": delta_run, "n": n, "text": text})
                    yield ServerSentEvent(data=data, event="message.delta")
            try:
                async with hub.reading(engine) as conn:
                    ended = False
                    if not checked_end and run_id is not None:
                        # Read before the events, never after: a run seen ended then has
                        # its last event in the read below (one statement wrote both).
                        checked_end = True
                        state = await run_store.get_run(conn, tenant_id, run_id)
                        ended = state.status in TERMINAL
                    records = await events.list_events(
                        conn, tenant_id, session_id, after_id=last, limit=PAGE, run_id=run_id
                    )
                    if ended and not records:
                        return  # the client saw the run's end already
            except DATABASE_UNAVAILABLE as exc:
                # The response has started: no problem document can be sent now. End the
                # stream; the client reconnects with Last-Event-ID and misses nothing.
                log.warning("a stream of session %s ended: %s", session_id, describe(exc))
                return
            for record in records:
                last = record.id
                yield sse_of(record)
                if run_id is not None and record.ends_run:
                    return
            if len(records) < PAGE:
                await watch.wake.wait()


def sse_of(record: events.EventRecord) -> ServerSentEvent:
    return ServerSentEvent(
        data=EventOut.of(record).model_dump_json(), event=record.type, id=str(record.id)
    )


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

# A `message.delta` event's data: a piece of a reply's text as it streams (no id: it is
# not in the log, and not replayed after a reconnection).
MESSAGE_DELTA: dict[str, Any] = {
    "type": "object",
    "title": "MessageDelta",
    "required": ["run_id", "n", "text"],
    "properties": {
        "run_id": {"type": "string", "format": "uuid"},
        "n": {"type": "integer", "description": "The delta's place in its reply."},
        "text": {"type": "string"},
    },
}

# One event of a stream, as OpenAPI 3.2 describes SSE items: `data` is an `EventOut`
# (every logged event type), or a `MessageDelta` for `message.delta`.
SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "required": ["data"],
    "properties": {
        "id": {
            "type": "string",
            "description": "The event's id, for Last-Event-ID (none on `message.delta`).",
        },
        "event": {
            "type": "string",
            "description": "The event's type: "
            + ", ".join(f"`{t}`" for t in sorted(events.EVENT_TYPES))
            + " (data: `EventOut`), or `message.delta` (data: `MessageDelta`).",
        },
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {"oneOf": [{"$ref": "#/components/schemas/EventOut"}, MESSAGE_DELTA]},
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
