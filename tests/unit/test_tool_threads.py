"""The python tools' threads: reused between calls, never shared with a call that hangs."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from app.tools.threads import ToolThreads


def run_and_wait(threads: ToolThreads, job_name: str = "t") -> int:
    """Run one job; the ident of the thread it ran on."""
    ran: list[int] = []
    done = threading.Event()

    def job() -> None:
        ran.append(threading.get_ident())
        done.set()

    threads.run(job, job_name)
    assert done.wait(5)
    return ran[0]


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_tool_threads__calls_one_after_another_reuse_one_thread() -> None:
    threads = ToolThreads(idle_s=5)
    first = run_and_wait(threads)
    ran_on = set()
    for i in range(20):
        wait_until(lambda: threads._idle == 1)  # it is waiting for the next call
        ran_on.add(run_and_wait(threads, f"t{i}"))
    assert ran_on == {first}


def test_tool_threads__a_call_that_hangs_keeps_its_thread_and_the_next_gets_another() -> None:
    threads = ToolThreads(idle_s=5)
    release = threading.Event()
    hung: list[int] = []

    def hangs() -> None:
        hung.append(threading.get_ident())
        release.wait(10)

    threads.run(hangs, "hangs")
    wait_until(lambda: bool(hung))
    try:
        assert run_and_wait(threads) != hung[0]
    finally:
        release.set()


def test_tool_threads__a_thread_with_nothing_to_do_ends() -> None:
    threads = ToolThreads(idle_s=0.1)
    ident = run_and_wait(threads)
    wait_until(lambda: all(t.ident != ident for t in threading.enumerate()))
    run_and_wait(threads)  # and the next call still runs, on a new thread
