"""What the fleet's metrics read from the database at scrape time: runs by status and
the pending approvals, with the age of the oldest waiting of each.

Two statements, each one pass over its table and no other (one grouped count for runs),
so a scrape every 15 s costs little next to the fleet's writes. Counts are over all
tenants: the scraper holds `metrics:read`, an operator's scope.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.run import RunStatus

# The oldest queued run counts from when it became claimable (`not_before`: at send, at
# a hand-back, or at the end of a retry's back-off), not from a back-off still running.
RUNS_BY_STATUS = text("""
SELECT status,
       count(*) AS runs,
       extract(epoch FROM clock_timestamp() - min(not_before)
                              FILTER (WHERE not_before <= clock_timestamp())) AS oldest_s
  FROM runs
 GROUP BY status
""")

PENDING_APPROVALS = text("""
SELECT count(*) AS pending,
       extract(epoch FROM clock_timestamp() - min(created_at)) AS oldest_s
  FROM approvals
 WHERE status = 'pending'
""")


@dataclass(frozen=True)
class Fleet:
    runs: dict[RunStatus, int]
    oldest_queued_s: float
    approvals_pending: int
    oldest_approval_s: float


async def read_fleet(conn: AsyncConnection) -> Fleet:
    runs = dict.fromkeys(RunStatus, 0)
    oldest_queued = 0.0
    for row in await conn.execute(RUNS_BY_STATUS):
        status = RunStatus(row.status)
        runs[status] = int(row.runs)
        if status is RunStatus.QUEUED and row.oldest_s is not None:
            oldest_queued = max(0.0, float(row.oldest_s))
    approvals = (await conn.execute(PENDING_APPROVALS)).one()
    return Fleet(
        runs=runs,
        oldest_queued_s=oldest_queued,
        approvals_pending=int(approvals.pending),
        oldest_approval_s=max(0.0, float(approvals.oldest_s or 0.0)),
    )
