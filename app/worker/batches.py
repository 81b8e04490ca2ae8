"""Requests from many runs, queued in order and served in batches.

Every run's request (a save, a load) joins its queue. Servers (at most one per
connection of the pool) take whatever is queued when they get a connection and serve it
together: one statement or one transaction, one round trip. Under a burst the queue grows
and so do the batches, which is what turns a burst into throughput; at a trickle every
batch is a single request, the hot path as it always was.

A request waits in the queue for as long as it takes: what may end it is its own outcome
or a database that does not answer, never the length of the queue.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection

from app.worker.connections import ConnectionGate

Request = TypeVar("Request")
Answer = TypeVar("Answer")

# Serves a batch on a connection in autocommit: for each request, its answer or what it
# alone met (raised to its caller). Raising fails the whole batch.
Serve = Callable[[AsyncConnection, list[Request]], Awaitable[Sequence[Answer | Exception]]]

# Enough to absorb a burst in few round trips; small enough that one transaction stays
# short (a 64-save batch is a few hundred kilobytes at most) and holds few row locks.
MAX_BATCH = 64


@dataclass(frozen=True)
class _Queued(Generic[Request, Answer]):
    request: Request
    done: asyncio.Future[Answer]


class BatchQueue(Generic[Request, Answer]):
    def __init__(
        self,
        gate: ConnectionGate,
        serve: Serve[Request, Answer],
        *,
        name: str,
        max_batch: int = MAX_BATCH,
    ) -> None:
        self.gate = gate
        self.serve = serve
        self.name = name
        self.max_batch = max_batch
        self._queue: deque[_Queued[Request, Answer]] = deque()
        # Servers at work (at most one per connection), and their tasks, kept referenced.
        self._serving = 0
        self._tasks: set[asyncio.Task[None]] = set()

    async def submit(self, request: Request) -> Answer:
        """The request's answer, once its turn came.

        Raises what the request alone met, or the database's error when its batch could
        not be served.
        """
        done: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._queue.append(_Queued(request, done))
        if self._serving < self.gate.size:
            self._serving += 1
            # A context of its own: a server answers many runs, so it must not log (or
            # trace) as the run whose request happened to start it.
            server = asyncio.create_task(
                self._serve_queued(), name=self.name, context=contextvars.Context()
            )
            self._tasks.add(server)
            server.add_done_callback(self._tasks.discard)
        return await done

    async def _serve_queued(self) -> None:
        try:
            while self._queue:
                await self._serve_next_batch()
        finally:
            # No await between the last look at the queue and this: a request queued
            # after it finds one server fewer, and starts its own.
            self._serving -= 1

    async def _serve_next_batch(self) -> None:
        batch: list[_Queued[Request, Answer]] = []
        try:
            async with self.gate.connect(autocommit=True) as conn:
                batch = self._take()  # what queued up while this server waited its turn
                if not batch:
                    return  # other servers took it all meanwhile
                answers = await self.serve(conn, [q.request for q in batch])
                for queued, answer in zip(batch, answers, strict=True):
                    _settle(queued.done, answer)
        except Exception as error:
            # No connection to be had (the database does not answer), or it broke
            # mid-batch: none of the batch can be said to have been served.
            for queued in batch or self._take():
                _settle(queued.done, error)

    def _take(self) -> list[_Queued[Request, Answer]]:
        batch: list[_Queued[Request, Answer]] = []
        while self._queue and len(batch) < self.max_batch:
            queued = self._queue.popleft()
            if not queued.done.cancelled():  # its run task was cancelled meanwhile
                batch.append(queued)
        return batch


def _settle(done: asyncio.Future[Answer], outcome: Answer | Exception) -> None:
    if done.done():
        return
    if isinstance(outcome, Exception):
        done.set_exception(outcome)
    else:
        done.set_result(outcome)
