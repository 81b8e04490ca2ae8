"""Saves from many runs, queued in order and written in batches (`app/worker/batches.py`).

A writer commits whatever saves queued while it waited for its connection together: one
transaction, one round trip, one WAL flush, each write still fenced on its own run's
token (`checkpoint.write_checkpoints`). What may end a save is its run's fence
(`LeaseLost`) or a database that does not answer, never the length of the queue.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.run import CheckpointWrite
from app.store import checkpoint
from app.store.checkpoint import FencedWrite
from app.telemetry import metrics
from app.worker.batches import MAX_BATCH, BatchQueue
from app.worker.connections import ConnectionGate


class SaveQueue:
    def __init__(self, gate: ConnectionGate, *, max_batch: int = MAX_BATCH) -> None:
        self._batches = BatchQueue(gate, _write, name="saves", max_batch=max_batch)

    async def save(self, run_id: UUID, token: int, write: CheckpointWrite) -> None:
        """Commit one fenced checkpoint once its turn comes.

        Raises:
            LeaseLost: the run is no longer this writer's.
            The database's error, when it could not be written.
        """
        await self._batches.submit(FencedWrite(run_id, token, write))


async def _write(conn: AsyncConnection, writes: list[FencedWrite]) -> Sequence[Exception | None]:
    started = time.perf_counter()
    outcomes = await checkpoint.write_checkpoints(conn, writes)
    metrics.CHECKPOINT_WRITE.observe(time.perf_counter() - started)
    return outcomes
