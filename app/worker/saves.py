"""Saves from many runs, queued in order and written in batches.

Every run's save joins one queue. Writers (at most one per connection of the pool) take
whatever is queued when they get a connection and commit it together: one transaction,
one round trip, one WAL flush, each write still fenced on its own run's token
(`checkpoint.write_checkpoints`). Under a burst the queue grows and so do the batches, which
is what turns a burst into throughput; at a trickle every batch is a single statement,
the hot path as it always was.

A save waits in the queue for as long as it takes: what may end it is its run's fence
(`LeaseLost`) or a database that does not answer, never the length of the queue.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections import deque
from dataclasses import dataclass
from uuid import UUID

from app.domain.run import CheckpointWrite
from app.store import checkpoint
from app.store.checkpoint import FencedWrite
from app.telemetry import metrics
from app.worker.connections import ConnectionGate

# Enough to absorb a burst in few round trips; small enough that one transaction stays
# short (a 64-save batch is a few hundred kilobytes at most) and holds few row locks.
MAX_BATCH = 64


@dataclass(frozen=True)
class _Queued:
    fenced: FencedWrite
    done: asyncio.Future[None]


class SaveQueue:
    def __init__(self, gate: ConnectionGate, *, max_batch: int = MAX_BATCH) -> None:
        self.gate = gate
        self.max_batch = max_batch
        self._queue: deque[_Queued] = deque()
        # Writers at work (at most one per connection), and their tasks, kept referenced.
        self._writing = 0
        self._tasks: set[asyncio.Task[None]] = set()

    async def save(self, run_id: UUID, token: int, write: CheckpointWrite) -> None:
        """Commit one fenced checkpoint once its turn comes.

        Raises:
            LeaseLost: the run is no longer this writer's.
            The database's error, when it could not be written.
        """
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(_Queued(FencedWrite(run_id, token, write), done))
        if self._writing < self.gate.size:
            self._writing += 1
            # A context of its own: a writer commits many runs' saves, so it must not log
            # (or trace) as the run whose save happened to start it.
            writer = asyncio.create_task(
                self._write_queued(), name="saves", context=contextvars.Context()
            )
            self._tasks.add(writer)
            writer.add_done_callback(self._tasks.discard)
        await done

    async def _write_queued(self) -> None:
        try:
            while self._queue:
                await self._write_next_batch()
        finally:
            # No await between the last look at the queue and this: a save queued after
            # it finds one writer fewer, and starts its own.
            self._writing -= 1

    async def _write_next_batch(self) -> None:
        batch: list[_Queued] = []
        try:
            async with self.gate.connect(autocommit=True) as conn:
                batch = self._take()  # what queued up while this writer waited its turn
                if not batch:
                    return  # other writers took it all meanwhile
                started = time.perf_counter()
                outcomes = await checkpoint.write_checkpoints(conn, [q.fenced for q in batch])
                metrics.CHECKPOINT_WRITE.observe(time.perf_counter() - started)
                for queued, outcome in zip(batch, outcomes, strict=True):
                    _settle(queued.done, outcome)
        except Exception as error:
            # No connection to be had (the database does not answer), or it broke
            # mid-batch: none of the batch can be said to have committed.
            for queued in batch or self._take():
                _settle(queued.done, error)

    def _take(self) -> list[_Queued]:
        batch: list[_Queued] = []
        while self._queue and len(batch) < self.max_batch:
            queued = self._queue.popleft()
            if not queued.done.cancelled():  # its run task was cancelled meanwhile
                batch.append(queued)
        return batch


def _settle(done: asyncio.Future[None], outcome: BaseException | None) -> None:
    if done.done():
        return
    if outcome is None:
        done.set_result(None)
    else:
        done.set_exception(outcome)
