"""The heartbeat judges only the runs its renewal asked about (no database: the renewal
statement is replaced, so the interleaving is exact)."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest

from app.engine.loop import StopReason
from app.settings import Settings
from app.store import leases
from app.worker.pool import RunControl, WorkerPool


async def close(pool: WorkerPool) -> None:
    """What `stop` releases, for a pool that never started."""
    await pool.http.aclose()
    for engine in (pool.engine, pool.heartbeat_engine, pool.claim_engine, pool.release.engine):
        await engine.dispose()


async def test_a_run_claimed_while_a_renewal_is_in_flight__is_not_stopped_as_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A claim sent just before a renewal commits just after it was sent: the renewal
    does not see the run (nor ask for it). The run was not taken from us; stopping it as
    `lease_lost` would let its lease lapse, and a takeover charge its worker's death to it
    (a stress run of tests/crash showed a run claimed three times that way)."""
    pool = WorkerPool(Settings(database_url="postgresql://nobody@127.0.0.1:1/none"))
    old = RunControl(uuid.uuid4(), 1, 30.0, 3.0, asyncio.Event())
    pool.active[old.run_id] = old
    claim_sent_at = time.monotonic()  # the claim goes out...
    fresh = RunControl(uuid.uuid4(), 1, 30.0, 3.0, asyncio.Event(), claim_sent_at)

    async def renew(conn: Any, *, owner: str, ttl_s: float, run_ids: list[uuid.UUID]) -> Any:
        assert run_ids == [old.run_id]
        pool.active[fresh.run_id] = fresh  # ...and commits while the renewal is in flight
        return [leases.Renewal(old.run_id, 1, False)]

    monkeypatch.setattr(leases, "renew_leases", renew)
    try:
        await pool._renew(conn=None)  # type: ignore[arg-type]
    finally:
        await close(pool)
    assert fresh.stop_reason() is None
    assert old.stop_reason() is None
    assert old.renewed_at > claim_sent_at


async def test_a_run_missing_from_the_renewal__is_stopped_as_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pool = WorkerPool(Settings(database_url="postgresql://nobody@127.0.0.1:1/none"))
    taken = RunControl(uuid.uuid4(), 1, 30.0, 3.0, asyncio.Event())
    pool.active[taken.run_id] = taken

    async def renew(conn: Any, *, owner: str, ttl_s: float, run_ids: list[uuid.UUID]) -> Any:
        return []

    monkeypatch.setattr(leases, "renew_leases", renew)
    try:
        await pool._renew(conn=None)  # type: ignore[arg-type]
    finally:
        await close(pool)
    assert taken.stop_reason() is StopReason.LEASE_LOST
