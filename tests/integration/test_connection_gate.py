"""The run pool's gate keeps autocommit connections between batches: never more than its
size checked out, never one kept in autocommit for a transaction, and none kept once
something went wrong on one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from uuid import uuid4

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.db import create_engine
from app.store.checkpoint import driver_of
from app.worker import connections
from app.worker.connections import ConnectionGate
from app.worker.pool import WorkerPool
from tests import pg
from tests.conftest import make_settings


@pytest.fixture
async def small_engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    """Two connections and no overflow, with a short checkout timeout: a gate that took
    more than its size from the pool would fail, not wait."""
    eng = create_engine(database_url, make_settings(database_url, pool_timeout_s=0.5), pool_size=2)
    async with eng.begin() as conn:
        await conn.execute(text("CREATE TABLE probe (x int)"))
    yield eng
    await eng.dispose()


@pytest.fixture
async def gate(small_engine: AsyncEngine) -> AsyncIterator[ConnectionGate]:
    kept = ConnectionGate(small_engine, 2)
    yield kept
    await kept.aclose()


async def backend(conn: AsyncConnection) -> int:
    return int((await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def test_autocommit_connections_are_kept_for_the_next_batch(
    gate: ConnectionGate, small_engine: AsyncEngine, database_url: str
) -> None:
    async with gate.connect(autocommit=True) as conn:
        first = await backend(conn)
        await conn.execute(text("INSERT INTO probe VALUES (1)"))
        # Autocommit: another connection sees the row before the block ends.
        assert await pg.arows(database_url, "SELECT x FROM probe") == [(1,)]
    async with gate.connect(autocommit=True) as conn:
        assert await backend(conn) == first
        await conn.execute(text("INSERT INTO probe VALUES (2)"))  # still autocommit
        assert await pg.arows(database_url, "SELECT x FROM probe ORDER BY x") == [(1,), (2,)]
    assert small_engine.pool.checkedout() == 1  # type: ignore[attr-defined]
    await gate.aclose()
    assert small_engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    async with gate.connect(autocommit=True):  # a batch that ends after its pool stopped
        pass
    assert small_engine.pool.checkedout() == 0  # type: ignore[attr-defined]


async def test_a_transaction_gets_a_transactional_connection_within_the_size(
    gate: ConnectionGate, small_engine: AsyncEngine, database_url: str
) -> None:
    """Both connections kept from a burst of batches; then two transactions at once: each
    checks out within the pool's two (a kept one goes back for it), and each is atomic
    (a kept autocommit connection would commit the insert of the one that fails)."""
    both_in = asyncio.Barrier(2)

    async def batch() -> None:
        async with gate.connect(autocommit=True) as conn:
            await both_in.wait()
            await conn.execute(text("SELECT 1"))

    async def failing_transaction() -> None:
        async with gate.begin() as conn:
            await conn.execute(text("INSERT INTO probe VALUES (2)"))
            await both_in.wait()
            raise RuntimeError("rolled back")

    await asyncio.gather(batch(), batch())
    assert small_engine.pool.checkedout() == 2  # type: ignore[attr-defined]
    both_in = asyncio.Barrier(2)
    outcomes = await asyncio.gather(
        failing_transaction(), failing_transaction(), return_exceptions=True
    )
    assert [type(o) for o in outcomes] == [RuntimeError, RuntimeError]
    assert await pg.arows(database_url, "SELECT x FROM probe") == []
    assert small_engine.pool.checkedout() == 0  # type: ignore[attr-defined]


async def test_a_broken_connection_invalidates_every_kept_one(
    gate: ConnectionGate, database_url: str
) -> None:
    """The server dropped the kept connections (a restart, a failover): the batch that
    meets the first fails, as it would on a pooled one, and the next connects anew
    instead of meeting the other dead one. Through the driver, as saves and loads run,
    where SQLAlchemy sees no disconnect of its own."""
    both_in = asyncio.Barrier(2)
    pids: list[int] = []

    async def batch() -> None:
        async with gate.connect(autocommit=True) as conn:
            pids.append(await backend(conn))
            await both_in.wait()

    await asyncio.gather(batch(), batch())
    await pg.arows(
        database_url, "SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) pid", pids
    )
    with pytest.raises(psycopg.OperationalError):
        async with gate.connect(autocommit=True) as conn:
            await (await driver_of(conn)).execute("SELECT 1")
    async with gate.connect(autocommit=True) as conn:
        assert await backend(conn) not in pids


async def test_a_connection_left_in_a_transaction_is_not_kept(
    gate: ConnectionGate, database_url: str
) -> None:
    async with gate.connect(autocommit=True) as left:
        driver = await driver_of(left)
        await driver.execute("BEGIN")
        await driver.execute("INSERT INTO probe VALUES (3)")
    async with gate.connect(autocommit=True) as conn:
        assert conn is not left
        await conn.execute(text("INSERT INTO probe VALUES (4)"))
    # The one left open went back to the pool, which rolled it back.
    assert await pg.arows(database_url, "SELECT x FROM probe") == [(4,)]


async def test_a_connection_kept_idle_too_long_goes_back(
    gate: ConnectionGate, small_engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connections, "KEEP_IDLE_S", 0.2)
    async with gate.connect(autocommit=True) as first:
        pass
    async with gate.connect(autocommit=True) as conn:
        assert conn is first  # kept
    await asyncio.sleep(0.3)
    async with gate.connect(autocommit=True) as conn:
        assert conn is not first  # handed back, and a checkout of its own
    assert small_engine.pool.checkedout() == 1  # type: ignore[attr-defined]


async def test_a_stopped_pool_has_every_connection_back(database_url: str) -> None:
    """A worker keeps its batches' connections while it runs, and hands all back when it
    stops (the engine's dispose closes only those handed back)."""
    pool = WorkerPool(make_settings(database_url), concurrency=2)
    await pool.start()
    try:
        loaded = await asyncio.gather(pool.loads.submit(uuid4()), pool.loads.submit(uuid4()))
        assert list(loaded) == [None, None]  # no such runs; each load was a batch on the gate
        assert pool.engine.pool.checkedout() >= 1  # type: ignore[attr-defined]
    finally:
        run_pool = pool.engine.pool
        await pool.stop()
    assert run_pool.checkedout() == 0  # type: ignore[attr-defined]
