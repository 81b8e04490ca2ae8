"""The worker's periodic jobs, apart from its claim loop: one small scheduler for them.

Each job runs every `every_s` seconds, one job at a time, each in its own transactions on
the run pool's gate (waiting its turn like a save). A job that fails because the database
does not answer logs one line and runs again next time; any other failure is a bug,
logged with its traceback, and does not stop the other jobs either.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from uuid import UUID

from app.store import approvals, leases, retention, webhooks
from app.store.unavailable import DATABASE_UNAVAILABLE, describe
from app.worker.connections import ConnectionGate

log = logging.getLogger("perdure.worker")


@dataclass
class Job:
    name: str
    every_s: float
    run: Callable[[], Awaitable[None]]
    due_at: float = 0.0  # monotonic; 0: at once


async def run_jobs(jobs: list[Job], stopping: asyncio.Event) -> None:
    """Run each job when it is due until `stopping` is set."""
    while not stopping.is_set():
        now = time.monotonic()
        for job in jobs:
            if job.due_at > now:
                continue
            # Up to half a period sooner, never later: replicas polling at one period keep
            # their phases, so whichever comes first after a due time may win every time
            # (one of three workers fired all of a schedule's runs for 30 s in
            # tests/crash/test_schedules.py), and their load arrives together.
            job.due_at = now + job.every_s * random.uniform(0.5, 1.0)
            try:
                await job.run()
            except DATABASE_UNAVAILABLE as exc:
                log.warning("%s failed: %s", job.name, describe(exc))
            except Exception:
                log.exception("%s failed", job.name)
        wait = min(job.due_at for job in jobs) - time.monotonic()
        if wait > 0:
            with suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), timeout=wait)


def expire_approvals(gate: ConnectionGate) -> Callable[[], Awaitable[None]]:
    """Reject approvals past their deadline, each run in its own transaction."""

    async def run() -> None:
        async with gate.begin() as conn:
            due: list[UUID] = await approvals.runs_with_expired_approvals(conn)
        for run_id in due:
            async with gate.begin() as conn:
                await approvals.expire_for_run(conn, run_id)

    return run


def release_lapsed(gate: ConnectionGate, ttl_s: float) -> Callable[[], Awaitable[None]]:
    """Queue again the runs whose lease a live worker let lapse (it gave them up and could
    not hand them back); claims take over only from dead or late workers."""

    async def run() -> None:
        async with gate.begin() as conn:
            released = await leases.release_lapsed(conn, ttl_s=ttl_s)
        if released:
            log.warning("released %d runs whose lease ran out under a live worker", released)

    return run


def prune_history(gate: ConnectionGate, days: float) -> Callable[[], Awaitable[None]]:
    """Drop the history of sessions finished more than `days` ago (PERDURE_RETENTION_DAYS)."""

    async def run() -> None:
        async with gate.begin() as conn:
            pruned = await retention.prune(conn, older_than_s=days * 86400)
        if pruned.sessions:
            log.info("pruned the history of %d finished sessions", pruned.sessions)

    return run


def prune_deliveries(gate: ConnectionGate, days: float) -> Callable[[], Awaitable[None]]:
    """Drop webhook deliveries delivered or failed more than `days` ago
    (PERDURE_WEBHOOK_KEEP_DAYS), a batch at a time until none is left."""

    async def run() -> None:
        while True:
            async with gate.begin() as conn:
                pruned = await webhooks.prune(conn, older_than_s=days * 86400)
            if not pruned:
                return
            log.info("pruned %d finished webhook deliveries", pruned)

    return run
