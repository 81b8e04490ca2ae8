"""What a worker stops driving for want of lease or of a connection, it hands back at once.

An in-process worker pool, a real tool server, and the database stalled or starved on
purpose: a run the worker gives up must be claimable again long before its lease expires.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable

import httpx
import psycopg
import pytest
import sqlalchemy.exc

from app.db import create_engine, libpq_url
from app.worker.pool import WorkerPool
from tests import pg
from tests.agents import agent, calls, http_tool
from tests.conftest import make_settings, wait_status
from tests.crash.harness import labelled, tool_server
from tests.support import define_and_send

pytestmark = pytest.mark.timeout(90)


async def until(check: Callable[[], Awaitable[bool]], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, f"condition not met in {timeout}s"
        await asyncio.sleep(0.05)


async def lock_waiters(database_url: str) -> int:
    ((count,),) = await pg.arows(
        database_url,
        "SELECT count(*) FROM pg_stat_activity "
        "WHERE datname = current_database() AND wait_event_type = 'Lock'",
    )
    return int(count)


async def test_too_little_lease_to_start_a_call__the_run_is_handed_back_at_once(
    api: httpx.AsyncClient, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Renewals stall (the run's row is locked, as a long transaction would) until the
    lease the worker knows of is below PERDURE_LEASE_MARGIN_S: it does not start the next
    call, says why (`lease_margin`, not `lease_lost`: the run is still its own), and hands
    the run back instead of leaving it leased to nobody for the rest of the TTL."""
    caplog.set_level(logging.INFO, logger="perdure.worker")
    settings = make_settings(database_url, lease_ttl_s=10.0, heartbeat_s=1.0, lease_margin_s=7.0)
    with tool_server() as tools:
        batch = calls(("fx", {"label": "a", "hold": True}), ("fx", {"label": "b"}))
        body = agent(
            "m", [batch, {"text": "done"}], [http_tool("fx", tools.url)], tool_concurrency=1
        )
        run_id = await define_and_send(api, body, "margin-1")
        pool = WorkerPool(settings, concurrency=1)
        await pool.start()
        try:
            await asyncio.to_thread(tools.wait_for, labelled("a"))
            locker = await psycopg.AsyncConnection.connect(libpq_url(database_url))
            async with locker:
                await locker.execute("SELECT 1 FROM runs WHERE id = %s FOR UPDATE", (run_id,))
                # Renewals now wait on the row lock; the lease left falls below the margin.
                await asyncio.sleep(settings.lease_ttl_s - settings.lease_margin_s + 0.5)
                assert await lock_waiters(database_url) >= 1, "no renewal is held up"
                tools.release()  # a ends; b must not start
                await asyncio.to_thread(
                    tools.wait_for, lambda seen: all(c.ended is not None for c in seen)
                )
                await asyncio.sleep(0.5)  # a's result reaches the worker, its save waits
                released = time.monotonic()
            # The lock is gone: the held-up renewal extended the lease by a whole TTL.
            await wait_status(api, run_id, {"finished"}, timeout=30)
            took = time.monotonic() - released
        finally:
            await pool.stop()

    assert "stopped: lease_margin" in caplog.text
    assert "lease_lost" not in caplog.text
    assert took < settings.lease_ttl_s / 2, f"took {took:.1f}s: the run was left to expire"
    assert Counter(c.arguments["label"] for c in tools.calls) == {"a": 1, "b": 1}
    assert (await pg.arun_row(database_url, run_id))["claims"] == 2


async def test_save_finds_no_free_connection__it_waits_its_turn_and_is_saved(
    api: httpx.AsyncClient, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The worker's pool has one connection and the test holds it (through the pool's
    gate, as the worker's own checkouts do) far past PERDURE_POOL_TIMEOUT_S: the tool
    result's save waits its turn and is written once the connection is free. A full pool
    is back-pressure: the run is not given up, the call does not run again, and the wait
    is logged as one."""
    caplog.set_level(logging.INFO, logger="perdure.worker")
    settings = make_settings(
        database_url, lease_ttl_s=4.0, heartbeat_s=1.0, pool_size=1, pool_timeout_s=0.3
    )
    with tool_server() as tools:
        body = agent(
            "p",
            [calls(("fx", {"label": "a", "hold": True})), {"text": "done"}],
            [http_tool("fx", tools.url)],
        )
        run_id = await define_and_send(api, body, "pool-1")
        pool = WorkerPool(settings, concurrency=1)
        await pool.start()
        try:
            await asyncio.to_thread(tools.wait_for, labelled("a"))
            async with pool.gate.connect():
                tools.release()  # a's result now waits for the connection the test holds
                # Longer than the pool timeout, the lease and the gate's slow threshold:
                # the heartbeat (on its own connection) keeps the lease meanwhile.
                await asyncio.sleep(settings.lease_ttl_s + 1)
                assert (await pg.arun_row(database_url, run_id))["status"] == "running"
            await wait_status(api, run_id, {"finished"}, timeout=20)
        finally:
            await pool.stop()

    assert "giving the run up" not in caplog.text
    assert "no connection free: 1 checkouts waited over 1s" in caplog.text
    assert Counter(c.arguments["label"] for c in tools.calls) == {"a": 1}
    assert (await pg.arun_row(database_url, run_id))["claims"] == 1


async def test_hand_back_fails_too__the_lease_lapses_unrenewed(
    api: httpx.AsyncClient, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The fallback: the save fails because the database does not answer the run pool,
    and the hand-back cannot be written either (its connection goes to a
    server that is not there): the worker stops renewing the run's lease, so it lapses
    within a TTL and the run is driven again."""
    caplog.set_level(logging.INFO, logger="perdure.worker")
    settings = make_settings(
        database_url, lease_ttl_s=4.0, heartbeat_s=1.0, pool_size=1, pool_timeout_s=0.3
    )
    with tool_server() as tools:
        body = agent(
            "q",
            [calls(("fx", {"label": "a", "hold": True})), {"text": "done"}],
            [http_tool("fx", tools.url)],
        )
        run_id = await define_and_send(api, body, "pool-2")
        pool = WorkerPool(settings, concurrency=1)
        await pool.release.engine.dispose()
        pool.release.engine = create_engine("postgresql://u@127.0.0.1:1/x", settings, pool_size=1)
        await pool.start()
        try:
            await asyncio.to_thread(tools.wait_for, labelled("a"))
            # From now on the run pool's connections go nowhere: the result's save fails.
            reachable = pool.gate.engine
            pool.gate.engine = create_engine("postgresql://u@127.0.0.1:1/x", settings)
            await pool.gate.aclose()  # and the connections it kept between batches
            tools.release()

            async def gave_up() -> bool:
                return "handing it back failed too" in caplog.text

            await until(gave_up, timeout=15)
            row = await pg.arun_row(database_url, run_id)

            async def lapsed() -> bool:
                async with await psycopg.AsyncConnection.connect(libpq_url(database_url)) as conn:
                    cursor = await conn.execute(
                        "SELECT lease_expires_at < clock_timestamp() FROM runs WHERE id = %s",
                        (run_id,),
                    )
                    answer = await cursor.fetchone()
                return bool(answer and answer[0])

            await until(lapsed, timeout=settings.lease_ttl_s + 2)
            await pool.gate.engine.dispose()
            pool.gate.engine = reachable
            await wait_status(api, run_id, {"finished"}, timeout=20)
        finally:
            await pool.stop()

    assert (row["status"], row["lease_owner"]) == ("running", pool.owner)
    assert "database unreachable" in caplog.text
    assert "handing it back failed too: database unreachable" in caplog.text


async def test_runs_given_up_together__their_hand_backs_wait_their_turn(
    api: httpx.AsyncClient, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Three runs' saves fail at once (the run pool's database is gone) and all three are
    handed back on the one hand-back connection. The first hand-back waits on a row lock
    the test holds far past PERDURE_POOL_TIMEOUT_S, so the other two wait for the
    connection as long: they wait their turn (as saves do at the gate) and every run is
    handed back, none left to lapse for want of a connection."""
    caplog.set_level(logging.INFO, logger="perdure.worker")
    settings = make_settings(database_url, lease_ttl_s=10.0, heartbeat_s=1.0, pool_timeout_s=0.3)
    labels = ("a", "b", "c")
    with tool_server() as tools:
        run_ids = []
        for label in labels:
            script = [calls(("fx", {"label": label, "hold": True})), {"text": "done"}]
            body = agent(f"h{label}", script, [http_tool("fx", tools.url)])
            run_ids.append(await define_and_send(api, body, f"h-{label}"))
        pool = WorkerPool(settings, concurrency=3)
        await pool.start()
        try:
            for label in labels:
                await asyncio.to_thread(tools.wait_for, labelled(label))
            locker = await psycopg.AsyncConnection.connect(libpq_url(database_url))
            async with locker:
                await locker.execute("SELECT 1 FROM runs WHERE id = ANY(%s) FOR UPDATE", (run_ids,))
                reachable = pool.gate.engine
                pool.gate.engine = create_engine("postgresql://u@127.0.0.1:1/x", settings)
                await pool.gate.aclose()  # and the connections it kept between batches
                tools.release()  # the three results' saves fail: the runs are given up

                async def all_given_up() -> bool:
                    return caplog.text.count("giving the run up") == len(labels)

                await until(all_given_up, timeout=15)
                await asyncio.sleep(1.0)  # > the pool timeout: the hand-backs queue
                await pool.gate.engine.dispose()
                pool.gate.engine = reachable
            # The lock is gone: the hand-backs are written, one after the other.
            for run_id in run_ids:
                await wait_status(api, run_id, {"finished"}, timeout=20)
        finally:
            await pool.stop()

    assert "handing it back failed" not in caplog.text
    assert caplog.text.count("handed back") == len(labels)
    assert Counter(c.arguments["label"] for c in tools.calls) == dict.fromkeys(labels, 2)


def test_unavailable_reason__pool_timeout_is_not_an_unreachable_database() -> None:
    from app.store.unavailable import unavailable_reason

    assert unavailable_reason(sqlalchemy.exc.TimeoutError("QueuePool limit")) == (
        "no connection free in the pool"
    )
    for exc in (
        psycopg.OperationalError("connection refused"),
        sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("server closed")),
        ConnectionResetError(),
    ):
        assert unavailable_reason(exc) == "database unreachable", exc
