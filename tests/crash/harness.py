"""Real worker processes and a real HTTP tool server, for tests that kill things.

The tool server is the oracle for side effects: it counts every call it receives by its
`Idempotency-Key` (the tool_call_id) and records which lease token made it and when.
The scripted model's call log is the oracle for model turns.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tests.agents import GRANTS_ENV
from tests.fake_http import Reply, Seen, fake_server

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class ToolCallSeen:
    key: str
    run_id: str
    token: int
    arguments: dict[str, Any]
    attempt: int
    started: float
    ended: float | None = None


@dataclass
class ToolServer:
    """Answers every POST with {"attempt": n, "key": ...}; holds a call when asked to.

    A call whose arguments say `"hold": n` (or `true` for 1) is held on each of its
    first n attempts until that attempt is released (so a test can kill or stop the
    worker that made it, and choose who gets an answer first).
    """

    calls: list[ToolCallSeen] = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event)
    released_attempts: dict[int, threading.Event] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    def attempts(self, key: str) -> int:
        with self.lock:
            return sum(1 for c in self.calls if c.key == key)

    def counts(self) -> dict[str, int]:
        with self.lock:
            out: dict[str, int] = {}
            for call in self.calls:
                out[call.key] = out.get(call.key, 0) + 1
            return out

    def wait_for(
        self, predicate: Callable[[list[ToolCallSeen]], bool], timeout: float = 20
    ) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if predicate(self.calls):
                    return
            time.sleep(0.02)
        raise AssertionError(f"tool server: condition not met in {timeout}s: {self.calls}")

    def release(self, attempt: int | None = None) -> None:
        """Answer the held calls: all of them, or only those of one attempt number."""
        if attempt is None:
            self.released.set()
            for event in self.released_attempts.values():
                event.set()
        else:
            self._attempt_event(attempt).set()

    def _attempt_event(self, attempt: int) -> threading.Event:
        with self.lock:
            return self.released_attempts.setdefault(attempt, threading.Event())

    def handle(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        key = headers["idempotency-key"]
        arguments = body.get("arguments", {})
        with self.lock:
            attempt = sum(1 for c in self.calls if c.key == key) + 1
            seen = ToolCallSeen(
                key,
                body["run_id"],
                int(headers["perdure-lease-token"]),
                arguments,
                attempt,
                time.monotonic(),
            )
            self.calls.append(seen)
        if attempt <= int(arguments.get("hold", 0)):
            event = self._attempt_event(attempt)
            while not (event.is_set() or self.released.wait(timeout=0.05)):
                pass
        elif arguments.get("sleep"):
            time.sleep(float(arguments["sleep"]))
        seen.ended = time.monotonic()
        return {"attempt": attempt, "key": key, "label": arguments.get("label")}

    def respond(self, request: Seen) -> Reply | None:
        """For `FakeServer.respond`: the call's answer (a caller that was killed meanwhile
        is no error); none for a caller killed while sending (no complete request, no
        effect)."""
        try:
            body = request.body
        except ValueError:
            return None
        return Reply(body=self.handle(body, request.headers))


Served = TypeVar("Served", bound=ToolServer)


@contextmanager
def serving(state: Served) -> Iterator[Served]:
    """`state` answering POSTs to its `url` on a `tests.fake_http` server."""
    with fake_server("/tool") as http:
        http.respond = state.respond
        state.url = f"{http.url}/tool"
        try:
            yield state
        finally:
            state.release()


@contextmanager
def tool_server() -> Iterator[ToolServer]:
    with serving(ToolServer()) as state:
        yield state


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def signal(self, sig: signal.Signals) -> None:
        self.process.send_signal(sig)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)

    def wait(self, timeout: float = 20) -> int:
        return self.process.wait(timeout=timeout)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait(timeout=10)


def worker_env(database_url: str, call_log: Path, **overrides: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PYTHONPATH": str(ROOT),
        "PERDURE_LEASE_TTL_S": "3",
        "PERDURE_HEARTBEAT_S": "0.5",
        "PERDURE_LEASE_MARGIN_S": "0.5",
        "PERDURE_POLL_INTERVAL_S": "0.2",
        "PERDURE_SHUTDOWN_GRACE_S": "2",
        "PERDURE_RETRY_BASE_S": "0.05",
        "PERDURE_SCRIPTED_CALL_LOG": str(call_log),
        **GRANTS_ENV,
    }
    env.pop("PERDURE_FAULTS", None)
    env.update(overrides)
    return env


def spawn_worker(env: Mapping[str, str], log_path: Path) -> subprocess.Popen[bytes]:
    """A `perdure worker` process with exactly this environment, its output in `log_path`."""
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "app.cli", "worker"],
            cwd=ROOT,
            env=dict(env),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )


@contextmanager
def workers(tmp: Path, database_url: str, call_log: Path) -> Iterator[Callable[..., Worker]]:
    """A factory of `perdure worker` processes; every one is killed at the end."""
    started: list[Worker] = []

    def start(**overrides: str) -> Worker:
        log_path = tmp / f"worker-{len(started)}.log"
        process = spawn_worker(worker_env(database_url, call_log, **overrides), log_path)
        worker = Worker(process, log_path)
        started.append(worker)
        return worker

    try:
        yield start
    finally:
        for worker in started:
            worker.stop()


def model_calls(call_log: Path) -> list[dict[str, Any]]:
    if not call_log.exists():
        return []
    return [json.loads(line) for line in call_log.read_text().splitlines() if line]


def labelled(label: str) -> Callable[[list[ToolCallSeen]], bool]:
    """For ToolServer.wait_for: a call with this `label` argument has arrived."""
    return lambda seen: any(c.arguments.get("label") == label for c in seen)
