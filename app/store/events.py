"""The event log (docs/design.md, "Events"): every state change of a run, as a row.

An event is written by the statement, or in the transaction, that makes the change it
reports, so an event is never shown for a write that did not commit, and a fenced-out
save emits nothing. `APPEND` is the one way events are written: the fenced checkpoint
and the claim embed it, the API's writes call `emit`.

Ids are per session, gap-free and increasing in commit order: `event_heads` hands them
out under a row lock held until commit, and every writer takes that lock last (after the
run's), so it serialises a session's events without joining any lock cycle. A reader
that has seen id N therefore misses nothing by reading `id > N`. Each commit that writes
events NOTIFYs `EVENT_CHANNEL` with `[tenant_id, session_id]`, which the API's streams
listen on (a hint: they read the rows).

Each insert into `events` also fills the webhook outbox (`webhook_deliveries`), by a
statement trigger (migration 0013), in the same statement: see `store/webhooks.py`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import TextClause, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.run import PAUSED, CallStatus, CheckpointWrite, RunStatus
from app.store.notify import WAKE_CHANNEL
from app.store.tables import events

EVENT_CHANNEL = "perdure_events"

# A run's last event: a run stream ends after it.
TERMINAL_EVENTS = frozenset({"run.finished", "run.failed", "run.cancelled"})

# Every type an event may have: what a webhook may subscribe to (besides `*`).
EVENT_TYPES = frozenset(
    {
        "run.queued",
        "run.started",
        "run.taken_over",
        "run.retrying",
        "run.paused",
        "run.cancel_requested",
        "run.budget_exceeded",
        "run.finished",
        "run.failed",
        "run.cancelled",
        "turn.saved",
        "tool.started",
        "tool.settled",
        "tool_results.received",
        "approval.requested",
        "approval.decided",
        "agent.drift",
        "child.started",
        "child.ended",
    }
)

# A turn's text in its `turn.saved` event, at most: events carry small fields; the whole
# message is read by its `seq`.
TEXT_CLIP = 2000


_LOGGED_ROWS = "\n    RETURNING session_id, id, run_id, type, data, created_at"


def appending(source: str, *, returning: bool = False) -> str:
    """CTEs that append one event per row of the CTE `source`, whose columns are
    `tenant_id, session_id, run_id, type, data, ord` (the order within its session).

    Data-modifying CTEs run to completion whether or not the statement reads them, so
    these need no mention in its final SELECT. The heads are locked in key order. With
    `returning`, the CTE `logged` returns the rows written (the checkpoint, on the hot
    path, does without).
    """
    return f"""
heads AS (
    INSERT INTO event_heads AS h (tenant_id, session_id, last_id)
    SELECT tenant_id, session_id, count(*) FROM {source}
     GROUP BY tenant_id, session_id ORDER BY tenant_id, session_id
    ON CONFLICT (tenant_id, session_id) DO UPDATE SET last_id = h.last_id + EXCLUDED.last_id
    RETURNING h.tenant_id, h.session_id, h.last_id,
              pg_notify('{EVENT_CHANNEL}', json_build_array(h.tenant_id, h.session_id)::text)
), logged AS (
    INSERT INTO events (tenant_id, session_id, id, run_id, type, data, created_at)
    SELECT s.tenant_id, s.session_id,
           h.last_id - count(*) OVER p + row_number() OVER (p ORDER BY s.ord),
           s.run_id, s.type, s.data, clock_timestamp()
      FROM {source} s JOIN heads h USING (tenant_id, session_id)
    WINDOW p AS (PARTITION BY s.tenant_id, s.session_id){_LOGGED_ROWS if returning else ""}
)"""  # noqa: S608 (`source` is a CTE name of the caller's constant statement)


def appending_counted(source: str) -> str:
    """`appending` for a source whose rows carry their session's count, `n`, beside their
    `ord` (1 to n within the session): the fenced checkpoint's, on the loop's hot path,
    whose source is each saved run's events, one run per session. Each head moves by `n`
    at once and each row's id is its `ord` past the old head, so Postgres neither groups
    nor windows the source (a fifth of what the events cost a save). The heads are
    locked in key order, as `appending` locks them. No rows (fenced-out saves, or ones
    that change nothing) move no head and NOTIFY nobody.
    """
    return f"""
heads AS (
    INSERT INTO event_heads AS h (tenant_id, session_id, last_id)
    SELECT tenant_id, session_id, n FROM {source} WHERE ord = 1
     ORDER BY tenant_id, session_id
    ON CONFLICT (tenant_id, session_id) DO UPDATE SET last_id = h.last_id + EXCLUDED.last_id
    RETURNING h.tenant_id, h.session_id, h.last_id,
              pg_notify('{EVENT_CHANNEL}', json_build_array(h.tenant_id, h.session_id)::text)
), logged AS (
    INSERT INTO events (tenant_id, session_id, id, run_id, type, data, created_at)
    SELECT s.tenant_id, s.session_id, h.last_id - s.n + s.ord,
           s.run_id, s.type, s.data, clock_timestamp()
      FROM {source} s JOIN heads h USING (tenant_id, session_id)
)"""  # noqa: S608 (`source` is a CTE name of the caller's constant statement)


def _emit_statement(*, wake_workers: bool) -> TextClause:
    """Append the events, and return them as written (ids and times are Postgres's).

    With `wake_workers`, the statement also NOTIFYs the workers' wake-up channel, once: a
    write that queues a run announces it without a round trip of its own.
    """
    wake = f", wake AS MATERIALIZED (SELECT pg_notify('{WAKE_CHANNEL}', ''))"
    return text(f"""
WITH source AS (
    SELECT CAST(:tenant_id AS text) AS tenant_id, CAST(:session_id AS text) AS session_id,
           CAST(:run_id AS uuid) AS run_id, e.value ->> 'type' AS type,
           e.value -> 'data' AS data, e.ordinality AS ord
      FROM jsonb_array_elements(CAST(:events AS jsonb)) WITH ORDINALITY AS e
), {appending("source", returning=True)}{wake if wake_workers else ""}
SELECT l.id, l.session_id, l.run_id, l.type, l.data, l.created_at
  FROM logged l{", wake" if wake_workers else ""}
 ORDER BY l.id
""")  # noqa: S608 (composed of constants only)


EMIT = _emit_statement(wake_workers=False)
EMIT_AND_WAKE = _emit_statement(wake_workers=True)


@dataclass(frozen=True)
class Event:
    type: str
    data: dict[str, Any]

    def __post_init__(self) -> None:
        # Webhooks subscribe by type and the contract lists them: a new one is added there.
        assert self.type in EVENT_TYPES, f"{self.type!r} is not in EVENT_TYPES"


@dataclass(frozen=True)
class EventRecord:
    id: int
    session_id: str
    run_id: UUID
    type: str
    data: dict[str, Any]
    created_at: datetime

    @property
    def ends_run(self) -> bool:
        return self.type in TERMINAL_EVENTS


def encode(items: Iterable[Event]) -> str:
    """Events as the statements take them: a JSON array of `{type, data}`."""
    return json.dumps(
        [{"type": e.type, "data": e.data} for e in items],
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )


async def emit(
    conn: AsyncConnection,
    tenant_id: str,
    session_id: str,
    run_id: UUID,
    *items: Event,
    wake_workers: bool = False,
) -> list[EventRecord]:
    """Append events of one run in the caller's transaction, after its other writes (the
    session's head is the last lock a transaction may take); returns them as written.

    `wake_workers`: the transaction queued a run, so NOTIFY the workers too (at commit, as
    `store.notify.NOTIFY`), in this same statement.
    """
    if not items:
        return []
    rows = await conn.execute(
        EMIT_AND_WAKE if wake_workers else EMIT,
        {
            "tenant_id": tenant_id,
            "session_id": session_id,
            "run_id": str(run_id),
            "events": encode(items),
        },
    )
    return [EventRecord(r.id, r.session_id, r.run_id, r.type, r.data, r.created_at) for r in rows]


def of_checkpoint(write: CheckpointWrite) -> list[Event]:
    """What a fenced checkpoint changes, as events (in the order a reader should see them).

    A retry's `next_attempt_at` is Postgres's time, added by the statement itself.
    """
    out: list[Event] = []
    for message in write.messages:
        if message.role == "assistant":
            text_ = message.content if isinstance(message.content, str) else None
            turn: dict[str, Any] = {
                "step": write.steps,
                "seq": message.seq,
                "text": text_[:TEXT_CLIP] if text_ is not None else None,
                "calls": [{"tool_call_id": c.id, "name": c.name} for c in write.calls],
            }
            if text_ is not None and len(text_) > TEXT_CLIP:
                turn["text_clipped"] = True
            out.append(Event("turn.saved", turn))
    out.extend(Event("tool.started", {"tool_call_id": call_id}) for call_id in write.started)
    for s in write.settlements:
        if s.status is CallStatus.RUNNING:
            out.append(Event("tool.started", {"tool_call_id": s.tool_call_id}))
        else:
            size = len(json.dumps(s.result, separators=(",", ":"), default=str))
            settled = {"tool_call_id": s.tool_call_id, "status": s.status.value}
            out.append(Event("tool.settled", {**settled, "result_bytes": size}))
    out.extend(
        Event(
            "approval.requested",
            {"approval_id": a.id, "tool_call_id": a.tool_call_id, "tool": a.tool},
        )
        for a in write.approvals
    )
    out.extend(
        Event(
            "child.started",
            {
                "tool_call_id": c.tool_call_id,
                "child_run_id": str(c.run_id),
                "child_session_id": c.session_id,
                "agent_id": c.agent_id,
            },
        )
        for c in write.children
    )
    status = write.status
    if status in PAUSED:
        out.append(Event("run.paused", {"status": status.value}))
    elif status is RunStatus.QUEUED and write.last_error is not None:
        out.append(
            Event(
                "run.retrying",
                {"attempt": write.attempts, "error_code": write.last_error.get("code")},
            )
        )
    elif status is RunStatus.QUEUED:
        out.append(Event("run.queued", {"reason": "handed_back"}))
    elif status is RunStatus.FINISHED:
        if write.budget_exceeded is not None:
            out.append(Event("run.budget_exceeded", write.budget_exceeded.as_dict()))
        out.append(
            Event("run.finished", {"finish_reason": write.finish_reason, "steps": write.steps})
        )
    elif status is RunStatus.FAILED:
        error = write.last_error or {}
        out.append(
            Event("run.failed", {"error_code": error.get("code"), "message": error.get("message")})
        )
    elif status is RunStatus.CANCELLED:
        out.append(Event("run.cancelled", {}))
    return out


async def list_events(
    conn: AsyncConnection,
    tenant_id: str,
    session_id: str,
    *,
    after_id: int,
    limit: int,
    run_id: UUID | None = None,
) -> list[EventRecord]:
    """A session's events after `after_id`, oldest first (only `run_id`'s, if given)."""
    query = select(events).where(
        events.c.tenant_id == tenant_id,
        events.c.session_id == session_id,
        events.c.id > after_id,
    )
    if run_id is not None:
        query = query.where(events.c.run_id == run_id)
    rows = await conn.execute(query.order_by(events.c.id).limit(limit))
    return [EventRecord(r.id, r.session_id, r.run_id, r.type, r.data, r.created_at) for r in rows]
