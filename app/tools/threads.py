"""Daemon threads for sync python tools, kept for the next call.

A call runs on a thread of the tools' own (never the loop's default executor: abandoned
calls must not use up the pool that DNS lookups and `to_thread` work share). Starting a
thread per call was a sixth of a worker's CPU in `benchmarks/loop_throughput.py`, so a
thread that finished its call waits for the next one for a while before it ends. A call
that overran its timeout keeps its thread (it is abandoned, not stopped), and the next
call gets another thread: containment is as with a thread per call. What a tool keeps
in `threading.local` may now be seen by a later call on the same thread; context
variables are not, since each call runs in a copy of its caller's context.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

# How long a thread with no call to make waits for one before it ends.
IDLE_S = 30.0


class ToolThreads:
    def __init__(self, idle_s: float = IDLE_S) -> None:
        self.idle_s = idle_s
        self._jobs: queue.SimpleQueue[tuple[Callable[[], None], str]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        # Threads waiting for a job that no job has been promised to yet.
        self._idle = 0

    def run(self, job: Callable[[], None], name: str) -> None:
        """Start `job` on a waiting thread, or else on a new daemon thread."""
        with self._lock:
            if self._idle:
                self._idle -= 1  # promised to this job: that thread will not end now
                self._jobs.put((job, name))
                return
        threading.Thread(target=self._serve, args=(job,), name=name, daemon=True).start()

    def _serve(self, job: Callable[[], None]) -> None:
        while True:
            job()
            # Not kept while waiting: it holds its call's arguments, context and result.
            del job
            with self._lock:
                self._idle += 1
            while True:
                try:
                    job, name = self._jobs.get(timeout=self.idle_s)
                    # Named for its tool, as a thread per call was (stack dumps, py-spy).
                    threading.current_thread().name = name
                    break
                except queue.Empty:
                    with self._lock:
                        if self._idle:  # no job was promised to a waiting thread: end one
                            self._idle -= 1
                            return
                    # A job was promised meanwhile and is on its way: wait for it.
