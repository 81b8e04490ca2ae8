"""The run pool's gate keeps autocommit connections between batches: never more than its
size checked out, never one kept in autocommit for a transaction, and none kept once
something went wrong on one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.db import create_engine
from app.worker.connections import ConnectionGate
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


async def backend(conn: AsyncConnection) -> int:
    return int((await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def test_autocommit_connections_are_kept_for_the_next_batch(
    small_engine: AsyncEngine, database_url: str
) -> None:
    gate = ConnectionGate(small_engine, 2)
    try:
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
    finally:
        await gate.aclose()
    assert small_engine.pool.checkedout() == 0  # type: ignore[attr-defined]


async def test_a_transaction_gets_a_transactional_connection_within_the_size(
    small_engine: AsyncEngine, database_url: str
) -> None:
    """Both connections kept from a burst of batches; then two transactions at once: each
    checks out within the pool's two (a kept one goes back for it), and each is atomic
    (a kept autocommit connection would commit the insert of the one that fails)."""
    gate = ConnectionGate(small_engine, 2)
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

    try:
        await asyncio.gather(batch(), batch())
        assert small_engine.pool.checkedout() == 2  # type: ignore[attr-defined]
        both_in = asyncio.Barrier(2)
        outcomes = await asyncio.gather(
            failing_transaction(), failing_transaction(), return_exceptions=True
        )
        assert [type(o) for o in outcomes] == [RuntimeError, RuntimeError]
        assert await pg.arows(database_url, "SELECT x FROM probe") == []
        assert small_engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    finally:
        await gate.aclose()


async def test_a_failed_batch_hands_back_every_kept_connection(
    small_engine: AsyncEngine, database_url: str
) -> None:
    """The server dropped the kept connections (a restart, a failover): the batch that
    meets the first fails, as it would on a pooled one, and the next gets a new one
    instead of meeting the other dead connection."""
    gate = ConnectionGate(small_engine, 2)
    both_in = asyncio.Barrier(2)
    pids: list[int] = []

    async def batch() -> None:
        async with gate.connect(autocommit=True) as conn:
            pids.append(await backend(conn))
            await both_in.wait()

    try:
        await asyncio.gather(batch(), batch())
        await pg.arows(
            database_url, "SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) pid", pids
        )
        with pytest.raises(DBAPIError) as failed:
            async with gate.connect(autocommit=True) as conn:
                await conn.execute(text("SELECT 1"))
        assert isinstance(failed.value.orig, psycopg.OperationalError)  # the server went away
        async with gate.connect(autocommit=True) as conn:
            assert await backend(conn) not in pids
    finally:
        await gate.aclose()
