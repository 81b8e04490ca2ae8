"""The run pool's connections, handed out in turn: a full pool is back-pressure.

A worker drives far more runs than it has connections (PERDURE_WORKER_CONCURRENCY over
PERDURE_POOL_SIZE). When a burst of model replies lands at once, their saves must queue
for a connection for as long as it takes, not fail at a fixed checkout timeout: a save
that failed for want of a connection is a model call answered, then made again by the
next claimer. Everything the run pool does checks out through this gate, in arrival
order, so SQLAlchemy's pool behind it never makes anyone wait (its timeout then means a
connection leaked, not a queue), and long waits are reported instead of being fatal.

Batches (`app/worker/batches.py`) run in autocommit, one after another, thousands a
second: the gate keeps their connections between batches instead of handing them back.
SQLAlchemy's checkout, its reset on return and the switch into autocommit and out again
cost about 130 µs of CPU per batch here, as much as the batch's own round trip. Kept
newest first, so that a few backends do the work while their caches are warm.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from psycopg.pq import TransactionStatus
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.store.checkpoint import driver_of

log = logging.getLogger("perdure.worker")

# A kept connection idle this long goes back to the pool: a burst's connections are not
# held for ever after it, nor left idle at a proxy or a firewall that drops idle ones.
KEEP_IDLE_S = 30.0


class ConnectionGate:
    """At most `size` checkouts at a time from `engine`; the rest wait, first come first
    served (asyncio's semaphore is fair), however long."""

    def __init__(
        self,
        engine: AsyncEngine,
        size: int,
        *,
        slow_s: float = 1.0,
        report_every_s: float = 10.0,
        what: str = "the run pool's",
        hint: str = "A burst, or PERDURE_POOL_SIZE too small for PERDURE_WORKER_CONCURRENCY",
    ) -> None:
        self.engine = engine
        self.size = size
        # Whose connections these are, and the likely cause of a queue, for the log line.
        self.what = what
        self.hint = hint
        self._free = asyncio.Semaphore(size)
        # Autocommit connections between batches, still checked out of the pool, with
        # the time each was kept, newest last. Those kept plus those in use never exceed
        # `size`, so the pool never runs short.
        self._kept: list[tuple[AsyncConnection, float]] = []
        self._holders = 0  # checkouts through the gate now, each with a connection or soon
        self._closed = False
        # How long a wait is worth a log line, and how often at most one is written: a
        # burst makes thousands of slow waits, the operator needs one line about them.
        self.slow_s = slow_s
        self.report_every_s = report_every_s
        self.waiting = 0
        self._slow_since_report = 0
        self._longest_since_report = 0.0
        self._reported_at = -math.inf

    @asynccontextmanager
    async def connect(self, *, autocommit: bool = False) -> AsyncIterator[AsyncConnection]:
        """A connection of the pool, once one is free; `autocommit` for single statements
        (atomic on their own: no BEGIN/COMMIT round trips), kept for the next such use."""
        began = time.monotonic()
        self.waiting += 1
        try:
            await self._free.acquire()
        finally:
            self.waiting -= 1
        self._holders += 1
        try:
            self._waited(time.monotonic() - began)
            if autocommit:
                async with self._autocommit() as conn:
                    yield conn
            else:
                if len(self._kept) + self._holders > self.size:
                    # The pool has none left for this checkout: the oldest kept goes back.
                    await self._kept.pop(0)[0].close()
                async with self.engine.connect() as conn:
                    yield conn
        finally:
            self._holders -= 1
            self._free.release()

    @asynccontextmanager
    async def _autocommit(self) -> AsyncIterator[AsyncConnection]:
        now = time.monotonic()
        while self._kept and now - self._kept[0][1] > KEEP_IDLE_S:
            await self._kept.pop(0)[0].close()
        conn = self._kept.pop()[0] if self._kept else await self._open_autocommit()
        try:
            yield conn
            keep = not self._closed and await _reusable(conn)
        except BaseException:
            await self._discard(conn)
            raise
        if keep:
            self._kept.append((conn, time.monotonic()))
        else:
            await conn.close()

    async def _open_autocommit(self) -> AsyncConnection:
        conn = await self.engine.connect()
        try:
            return await conn.execution_options(isolation_level="AUTOCOMMIT")
        except BaseException:
            await conn.close()
            raise

    async def _discard(self, conn: AsyncConnection) -> None:
        """`conn` met an error: back to the pool. If it broke, the server may have gone
        away (a restart, a failover), and the kept ones with it, though nothing told them
        yet (saves and loads run on the driver, where SQLAlchemy sees no disconnect):
        all are invalidated, and connect anew at their next checkout."""
        try:
            if await _broken(conn):
                await conn.invalidate()
                while self._kept:
                    kept, _ = self._kept.pop()
                    await kept.invalidate()
                    await kept.close()
        finally:
            await conn.close()

    async def aclose(self) -> None:
        """Hand the connections kept between batches back to the pool, and keep none
        from now on (before disposing of the engine: it closes only what was handed
        back)."""
        self._closed = True
        while self._kept:
            await self._kept.pop()[0].close()

    @asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncConnection]:
        """A connection in a transaction, committed when the block ends without error."""
        async with self.connect() as conn, conn.begin():
            yield conn

    def _waited(self, seconds: float) -> None:
        if seconds < self.slow_s:
            return
        self._slow_since_report += 1
        self._longest_since_report = max(self._longest_since_report, seconds)
        now = time.monotonic()
        if now - self._reported_at < self.report_every_s:
            return
        log.warning(
            "no connection free: %d checkouts waited over %gs for one of %s %d "
            "connections (longest %.1fs, %d waiting now); they wait their turn, nothing "
            "is given up. %s",
            self._slow_since_report,
            self.slow_s,
            self.what,
            self.size,
            self._longest_since_report,
            self.waiting,
            self.hint,
        )
        self._reported_at = now
        self._slow_since_report = 0
        self._longest_since_report = 0.0


async def _broken(conn: AsyncConnection) -> bool:
    if conn.invalidated or conn.closed:
        return True
    driver = await driver_of(conn)
    return driver.broken or driver.closed


async def _reusable(conn: AsyncConnection) -> bool:
    """Fit for the next batch: not broken, and in no transaction of the driver's own
    (a batch's that did not end would hold its locks, and fail every later save)."""
    if conn.invalidated or conn.closed:
        return False
    driver = await driver_of(conn)
    if driver.broken or driver.closed:
        return False
    if driver.info.transaction_status is not TransactionStatus.IDLE:
        return False
    if conn.in_transaction():
        await conn.rollback()  # SQLAlchemy's own autobegin: nothing on the server
    return True
