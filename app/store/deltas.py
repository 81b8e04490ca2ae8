"""Token deltas: ephemeral text of a model reply as it streams in, for stream clients.

They are not rows: the saved turn is the durable truth (`turn.saved`). A worker sends
them as NOTIFY on `DELTA_CHANNEL`, which the API processes' streams listen on; one sent
while nobody listens is gone, as it should be. A payload is a JSON array
`[tenant_id, session_id, run_id, n, text]`, `n` counting the run's deltas (Postgres drops
a payload repeated within one transaction, and clients may order by it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

DELTA_CHANNEL = "perdure_deltas"

# NOTIFY payloads must stay under 8,000 bytes; a longer delta is sent in pieces.
MAX_PAYLOAD_BYTES = 7000

PUBLISH = text(
    f"SELECT pg_notify('{DELTA_CHANNEL}', payload) "  # noqa: S608 (constants only)
    "FROM unnest(CAST(:payloads AS text[])) WITH ORDINALITY AS p(payload, n) ORDER BY n"
)


def payloads(
    tenant_id: str, session_id: str, run_id: UUID, first_n: int, text_: str
) -> Iterator[str]:
    """The payloads of one delta, numbered from `first_n`, each within the size limit."""
    n, rest = first_n, text_
    budget = MAX_PAYLOAD_BYTES - len(json.dumps([tenant_id, session_id, str(run_id), 0, ""]))
    while rest:
        piece = rest[: max(1, budget // 6)]  # a character is at most 6 bytes as JSON
        rest = rest[len(piece) :]
        yield json.dumps([tenant_id, session_id, str(run_id), n, piece], ensure_ascii=False)
        n += 1


async def publish(conn: AsyncConnection, batch: list[str]) -> None:
    """Send payloads in order, in one statement."""
    if batch:
        await conn.execute(PUBLISH, {"payloads": batch})
