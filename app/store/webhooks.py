"""Webhooks: a tenant's subscriptions, and the outbox of their deliveries.

The outbox (`webhook_deliveries`) is filled by a trigger on `events` (migration 0013) in
the statement that writes each event, so an event that committed has its deliveries,
whatever happens to its writer. Workers claim due deliveries (`claim_due`: `FOR UPDATE
SKIP LOCKED`, committed at once, so no lock is held while sending), which pushes their
`next_attempt_at` past the attempt: a worker that dies sending leaves them due again
(at least once). `settle` records how the attempt went.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import delete, insert, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.store.tables import events, webhook_deliveries, webhooks


@dataclass(frozen=True)
class Webhook:
    id: UUID
    url: str
    events: list[str]
    created_at: datetime


@dataclass(frozen=True)
class Delivery:
    session_id: str
    event_id: int
    type: str | None  # None once its event was pruned or its session deleted
    status: str
    attempts: int
    last_status: int | None
    last_error: str | None
    next_attempt_at: datetime | None  # None unless pending
    created_at: datetime
    finished_at: datetime | None


def _webhook(row: Any) -> Webhook:
    return Webhook(row.id, row.url, list(row.events), row.created_at)


COLUMNS = (webhooks.c.id, webhooks.c.url, webhooks.c.events, webhooks.c.created_at)


async def create(
    conn: AsyncConnection, tenant_id: str, *, url: str, types: list[str], secret: str
) -> Webhook:
    row = (
        await conn.execute(
            insert(webhooks)
            .values(id=uuid.uuid4(), tenant_id=tenant_id, url=url, events=types, secret=secret)
            .returning(*COLUMNS)
        )
    ).one()
    return _webhook(row)


async def list_webhooks(conn: AsyncConnection, tenant_id: str) -> list[Webhook]:
    rows = await conn.execute(
        select(*COLUMNS)
        .where(webhooks.c.tenant_id == tenant_id)
        .order_by(webhooks.c.created_at.desc(), webhooks.c.id)
    )
    return [_webhook(r) for r in rows]


async def get(conn: AsyncConnection, tenant_id: str, webhook_id: UUID) -> Webhook:
    row = (
        await conn.execute(
            select(*COLUMNS).where(webhooks.c.tenant_id == tenant_id, webhooks.c.id == webhook_id)
        )
    ).first()
    if row is None:
        raise errors.WebhookNotFound(f"no webhook {webhook_id}", webhook_id=str(webhook_id))
    return _webhook(row)


async def remove(conn: AsyncConnection, tenant_id: str, webhook_id: UUID) -> None:
    """Delete a webhook and its deliveries (pending ones are not sent)."""
    deleted = await conn.execute(
        delete(webhooks)
        .where(webhooks.c.tenant_id == tenant_id, webhooks.c.id == webhook_id)
        .returning(webhooks.c.id)
    )
    if deleted.first() is None:
        raise errors.WebhookNotFound(f"no webhook {webhook_id}", webhook_id=str(webhook_id))


async def list_deliveries(
    conn: AsyncConnection, tenant_id: str, webhook_id: UUID, *, status: str | None, limit: int
) -> list[Delivery]:
    """A webhook's deliveries, newest event first."""
    await get(conn, tenant_id, webhook_id)  # another tenant's webhook is a 404
    d, e = webhook_deliveries, events
    query = (
        select(d, e.c.type)
        .outerjoin(
            e,
            (e.c.tenant_id == d.c.tenant_id)
            & (e.c.session_id == d.c.session_id)
            & (e.c.id == d.c.event_id),
        )
        .where(d.c.tenant_id == tenant_id, d.c.webhook_id == webhook_id)
        .order_by(d.c.created_at.desc(), d.c.session_id, d.c.event_id.desc())
        .limit(limit)
    )
    if status is not None:
        query = query.where(d.c.status == status)
    return [
        Delivery(
            r.session_id,
            r.event_id,
            r.type,
            r.status,
            r.attempts,
            r.last_status,
            r.last_error,
            r.next_attempt_at if r.status == "pending" else None,
            r.created_at,
            r.finished_at,
        )
        for r in await conn.execute(query)
    ]


# -- the workers' side ---------------------------------------------------------------------


@dataclass(frozen=True)
class Due:
    """A claimed delivery: where to send what, and what the claim knew."""

    tenant_id: str
    webhook_id: UUID
    session_id: str
    event_id: int
    attempts: int  # this attempt's number
    url: str
    secret: str
    # The event; None when it is gone (pruned, or its session deleted).
    event: dict[str, Any] | None
    # Postgres's clock at the claim, and whether the delivery has been retried long
    # enough that a failure now is final.
    claimed_at: datetime
    expired: bool


CLAIM_DUE = text("""
WITH due AS (
    SELECT webhook_id, session_id, event_id
      FROM webhook_deliveries
     WHERE status = 'pending' AND next_attempt_at <= clock_timestamp()
     ORDER BY next_attempt_at
     LIMIT :limit
       FOR UPDATE SKIP LOCKED
), claimed AS (
    -- Past the attempt: if its worker dies, the delivery is due again after `hold_s`.
    UPDATE webhook_deliveries d
       SET attempts = d.attempts + 1,
           next_attempt_at = clock_timestamp() + make_interval(secs => :hold_s)
      FROM due
     WHERE d.webhook_id = due.webhook_id AND d.session_id = due.session_id
       AND d.event_id = due.event_id
    RETURNING d.*
)
SELECT c.tenant_id, c.webhook_id, c.session_id, c.event_id, c.attempts, w.url, w.secret,
       e.id AS found, e.run_id, e.type, e.data, e.created_at AS event_created_at,
       clock_timestamp() AS claimed_at,
       c.created_at + make_interval(secs => :retry_for_s) <= clock_timestamp() AS expired
  FROM claimed c
  JOIN webhooks w ON w.id = c.webhook_id
  LEFT JOIN events e
    ON e.tenant_id = c.tenant_id AND e.session_id = c.session_id AND e.id = c.event_id
""")


async def claim_due(
    conn: AsyncConnection, *, limit: int, hold_s: float, retry_for_s: float
) -> list[Due]:
    """Claim up to `limit` due deliveries, oldest due first, skipping those another
    worker holds; commit at once (the caller's transaction should hold nothing else)."""
    rows = await conn.execute(
        CLAIM_DUE, {"limit": limit, "hold_s": hold_s, "retry_for_s": retry_for_s}
    )
    return [
        Due(
            r.tenant_id,
            r.webhook_id,
            r.session_id,
            r.event_id,
            r.attempts,
            r.url,
            r.secret,
            None
            if r.found is None
            else {
                "id": r.event_id,
                "type": r.type,
                "session_id": r.session_id,
                "run_id": str(r.run_id),
                "data": r.data,
                "created_at": r.event_created_at.isoformat(),
            },
            r.claimed_at,
            bool(r.expired),
        )
        for r in rows
    ]


SETTLE = text("""
UPDATE webhook_deliveries
   SET status = :status,
       last_status = :http_status,
       last_error = :error,
       next_attempt_at = CASE WHEN :status = 'pending'
                              THEN clock_timestamp() + make_interval(secs => :delay_s)
                              ELSE next_attempt_at END,
       finished_at = CASE WHEN :status = 'pending' THEN NULL ELSE clock_timestamp() END
 WHERE webhook_id = :webhook_id AND session_id = :session_id AND event_id = :event_id
   -- Only the claim's own attempt: a later claim (this one's hold ran out) decides.
   AND attempts = :attempts AND status = 'pending'
""")


async def settle(
    conn: AsyncConnection,
    due: Due,
    *,
    status: str,
    http_status: int | None,
    error: str | None,
    delay_s: float = 0.0,
) -> None:
    """Record an attempt: `delivered`, `failed`, or `pending` again after `delay_s`."""
    await conn.execute(
        SETTLE,
        {
            "status": status,
            "http_status": http_status,
            "error": error[:1000] if error else None,
            "delay_s": delay_s,
            "webhook_id": due.webhook_id,
            "session_id": due.session_id,
            "event_id": due.event_id,
            "attempts": due.attempts,
        },
    )


PRUNE = text("""
WITH old AS (
    SELECT webhook_id, session_id, event_id FROM webhook_deliveries
     WHERE status <> 'pending' AND finished_at < clock_timestamp() - make_interval(secs => :age_s)
     LIMIT :batch
)
DELETE FROM webhook_deliveries d USING old
 WHERE d.webhook_id = old.webhook_id AND d.session_id = old.session_id
   AND d.event_id = old.event_id
""")


async def prune(conn: AsyncConnection, *, older_than_s: float, batch: int = 10_000) -> int:
    """Delete one batch of deliveries delivered or failed more than `older_than_s` ago."""
    result = await conn.execute(PRUNE, {"age_s": older_than_s, "batch": batch})
    return int(result.rowcount)
