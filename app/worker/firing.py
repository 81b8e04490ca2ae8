"""The workers' schedule firing: a loop of its own beside housekeeping, so that a long
prune never makes a schedule late.

Each pass claims due schedules one at a time, each in its own short transaction (the
claim, its fire rows and its runs commit together: app/store/firing.py), until none is
due or it has handled MAX_PER_PASS of them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from app import faults
from app.store import firing
from app.store.unavailable import DATABASE_UNAVAILABLE
from app.worker.connections import ConnectionGate

log = logging.getLogger("perdure.worker")

MAX_PER_PASS = 100
# A schedule whose firing raised a bug is looked at again only after this long.
POSTPONE_S = 60.0


def fire_schedules(
    gate: ConnectionGate, owner: str, catch_up_window_s: float
) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        for _ in range(MAX_PER_PASS):
            claimed: firing.Claimed | None = None
            try:
                async with gate.begin() as conn:
                    claimed = await firing.claim_due(conn)
                    if claimed is None:
                        return
                    faults.point("after_fire_claim")
                    fired = await firing.fire(
                        conn, claimed, owner=owner, catch_up_window_s=catch_up_window_s
                    )
            except DATABASE_UNAVAILABLE:
                raise
            except Exception:
                if claimed is None:
                    raise
                # One schedule's bug must not stop the others: it stays first in line
                # (soonest next_fire_at) unless it is put back.
                schedule = claimed.schedule
                log.exception("firing schedule %s/%s failed", schedule.tenant_id, schedule.id)
                async with gate.begin() as conn:
                    await firing.postpone(conn, schedule.tenant_id, schedule.id, POSTPONE_S)
                continue
            faults.point("after_fire_commit")
            if fired.started or fired.failed or fired.skipped:
                log.info(
                    "schedule %s/%s: %d started, %d skipped, %d failed",
                    fired.tenant_id,
                    fired.schedule_id,
                    fired.started,
                    fired.skipped,
                    fired.failed,
                )

    return run
