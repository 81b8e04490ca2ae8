"""Retention: drop the history (checkpoints, events) of sessions long finished.

A session qualifies only when none of its runs is active and its last activity is older
than the cutoff; its transcript stays readable, only its history goes. Nothing
unfinished is ever pruned.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.run import TERMINAL
from app.store.tables import sql_list

PRUNE = text(f"""
WITH finished AS (
    -- Every tenant's: retention is the operator's. Ids are unique per tenant only, so
    -- every match below names the tenant too.
    SELECT s.tenant_id, s.id
      FROM sessions s
     WHERE s.updated_at < clock_timestamp() - make_interval(secs => :age_s)
       AND NOT EXISTS (
            SELECT 1 FROM runs r
             WHERE r.tenant_id = s.tenant_id AND r.session_id = s.id
               AND (r.status NOT IN {sql_list(TERMINAL)}
                    OR r.updated_at >= clock_timestamp() - make_interval(secs => :age_s)))
       -- Only sessions with history left: a pruned one must not be found again.
       AND (EXISTS (SELECT 1 FROM checkpoints c
                     WHERE c.tenant_id = s.tenant_id AND c.session_id = s.id)
            OR EXISTS (SELECT 1 FROM events e
                        WHERE e.tenant_id = s.tenant_id AND e.session_id = s.id))
     LIMIT :batch
), dropped_checkpoints AS (
    DELETE FROM checkpoints c USING finished f
     WHERE c.tenant_id = f.tenant_id AND c.session_id = f.id RETURNING 1
), dropped_events AS (
    DELETE FROM events e USING finished f
     WHERE e.tenant_id = f.tenant_id AND e.session_id = f.id RETURNING 1
)
SELECT (SELECT count(*) FROM finished) AS sessions,
       (SELECT count(*) FROM dropped_checkpoints) AS checkpoints,
       (SELECT count(*) FROM dropped_events) AS events
""")  # noqa: S608 (composed of constants only)


@dataclass(frozen=True)
class Pruned:
    sessions: int
    checkpoints: int
    events: int


async def prune(conn: AsyncConnection, *, older_than_s: float, batch: int = 1000) -> Pruned:
    """Prune one batch of sessions finished more than `older_than_s` ago."""
    row = (await conn.execute(PRUNE, {"age_s": older_than_s, "batch": batch})).one()
    return Pruned(int(row.sessions), int(row.checkpoints), int(row.events))
