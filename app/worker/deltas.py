"""Sends the token deltas of streaming model calls to stream clients (`store/deltas.py`).

Deltas arrive from the providers one small piece at a time; sending each as its own
NOTIFY would cost a round trip per token. They are gathered for `INTERVAL_S` and sent in
one statement on a connection of their own (saves never wait behind them). A delta that
cannot be sent is dropped: they are a preview, and the saved turn follows.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncEngine

from app.store import deltas
from app.store.unavailable import DATABASE_UNAVAILABLE, describe

log = logging.getLogger("perdure.worker.deltas")

INTERVAL_S = 0.05
# Payloads waiting at most: past it, new deltas are dropped until the next send.
MAX_WAITING = 10_000


class DeltaSender:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._waiting: list[str] = []
        self._counts: dict[UUID, int] = {}
        self._task: asyncio.Task[None] | None = None

    def sender(self, tenant_id: str, session_id: str, run_id: UUID) -> _RunDeltas:
        """The `on_delta` callback of one run's model calls."""
        return _RunDeltas(self, tenant_id, session_id, run_id)

    def add(self, tenant_id: str, session_id: str, run_id: UUID, text: str) -> None:
        if len(self._waiting) >= MAX_WAITING:
            return
        n = self._counts.get(run_id, 0)
        pieces = list(deltas.payloads(tenant_id, session_id, run_id, n, text))
        self._counts[run_id] = n + len(pieces)
        self._waiting.extend(pieces)
        if self._task is None or self._task.done():
            # Its own context: it sends every run's deltas, not only the one that started it.
            self._task = asyncio.create_task(self._send_soon(), context=contextvars.Context())

    def forget(self, run_id: UUID) -> None:
        self._counts.pop(run_id, None)

    async def _send_soon(self) -> None:
        while self._waiting:  # what arrived during a send goes with the next one
            await asyncio.sleep(INTERVAL_S)
            batch, self._waiting = self._waiting, []
            try:
                async with self._engine.connect() as conn:
                    await deltas.publish(conn, batch)
                    await conn.commit()
            except DATABASE_UNAVAILABLE as exc:
                log.warning("dropped %d token deltas: %s", len(batch), describe(exc))

    async def flush(self) -> None:
        """Wait until what waits now has been sent (at once when nothing does)."""
        if self._task is not None and not self._task.done():
            await asyncio.gather(self._task, return_exceptions=True)

    async def aclose(self) -> None:
        await self.flush()


class _RunDeltas:
    """Calls back with one run's text deltas; `n` counts on across its model calls."""

    def __init__(self, sender: DeltaSender, tenant_id: str, session_id: str, run_id: UUID) -> None:
        self._sender = sender
        self._where = (tenant_id, session_id, run_id)

    def __call__(self, text: str) -> None:
        self._sender.add(*self._where, text)
