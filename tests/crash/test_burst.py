"""A burst of model replies: hundreds of runs' saves land at once on a pool of two.

Real `perdure worker` processes drive runs of an OpenAI-compatible model on a local
server that holds every reply until the test releases them together. A full pool is
back-pressure: each save waits its turn and is written, so no run is given up and no
answered model call is made a second time. When the database itself goes away during the
burst, runs may be given up, and the log says it was the database.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.embedded_pg import EmbeddedPostgres
from app.main import create_app
from tests import pg
from tests.agents import openai_model, python_tool
from tests.conftest import make_settings, started_client
from tests.crash.harness import Worker, workers
from tests.fake_http import FakeServer, fake_server
from tests.providers.fake_servers import OPENAI_PATH, conversation_position, tool_then_done
from tests.support import define, queue
from tests.torture.harness import say

pytestmark = pytest.mark.timeout(180)

WORKERS = 2
# Per worker: far more runs in flight than connections. The worker's HTTP client holds at
# most 100 connections per host, so up to 100 replies per worker land at once.
CONCURRENCY = 120
POOL = {"PERDURE_POOL_SIZE": "2", "PERDURE_POOL_TIMEOUT_S": "0.2"}
RUNS = 300
HELD = WORKERS * 100  # requests the server holds before it answers them all at once


def agent_body(server: FakeServer) -> dict[str, Any]:
    return {"id": "slow", "model": openai_model(server.url), "tools": [python_tool("noop", "noop")]}


async def send_all(api: httpx.AsyncClient, server: FakeServer) -> dict[str, str]:
    """Define the agent and queue RUNS runs, one per session; session -> run id."""
    await define(api, agent_body(server))
    runs: dict[str, str] = {}

    async def send(session: str) -> None:
        runs[session] = await queue(api, session, "slow", session)

    sessions = [f"burst-{i:03d}" for i in range(RUNS)]
    for start in range(0, RUNS, 25):
        await asyncio.gather(*(send(s) for s in sessions[start : start + 25]))
    return runs


async def wait_all_finished(api: httpx.AsyncClient, runs: dict[str, str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    waiting = set(runs.values())
    while waiting:
        assert time.monotonic() < deadline, f"{len(waiting)} runs not finished in {timeout}s"
        for run_id in list(waiting)[:50]:
            run = (await api.get(f"/v1/runs/{run_id}")).json()
            assert run["status"] not in ("failed", "cancelled"), run
            if run["status"] == "finished":
                waiting.discard(run_id)
        await asyncio.sleep(0.2)


@contextmanager
def burst(tmp_path: Path, database_url: str) -> Iterator[tuple[FakeServer, list[Worker]]]:
    """The held model server and the worker processes, started (not yet released)."""
    with fake_server(OPENAI_PATH) as server, workers(tmp_path, database_url, tmp_path / "m") as w:
        server.respond = tool_then_done
        server.answering.clear()
        started = [w(PERDURE_WORKER_CONCURRENCY=str(CONCURRENCY), **POOL) for _ in range(WORKERS)]
        yield server, started


def calls_per_position(server: FakeServer) -> Counter[tuple[str, int]]:
    return Counter(conversation_position(body) for body in server.bodies())


async def test_burst_of_replies__every_save_waits_its_turn__no_model_call_made_twice(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    with burst(tmp_path, database_url) as (server, started):
        runs = await send_all(api, server)
        await asyncio.to_thread(server.wait_requests, HELD, 60)
        server.answering.set()  # every held reply lands at once
        await wait_all_finished(api, runs, timeout=120)
        logs = "\n".join(worker.log() for worker in started)

    per_position = calls_per_position(server)
    assert set(per_position) == {(s, n) for s in runs for n in (1, 3)}
    twice = {p: n for p, n in per_position.items() if n > 1}
    assert twice == {}, f"model calls made more than once: {twice}"
    assert "giving the run up" not in logs
    # The burst was real: saves queued for a connection, and were written together.
    together = pg.scalar(
        database_url,
        "SELECT count(*) FROM (SELECT FROM checkpoints GROUP BY xmin::text HAVING count(*) > 1) b",
    )
    assert together > 0, "no two saves were ever written in one transaction"
    largest = pg.scalar(
        database_url,
        "SELECT max(n) FROM (SELECT count(*) n FROM checkpoints GROUP BY xmin::text) b",
    )
    say(
        f"{RUNS} runs, {sum(per_position.values())} model calls, each once; "
        f"{together} transactions held several saves, the largest {largest}"
    )


async def test_burst_while_the_database_restarts__runs_given_up_say_why(
    own_postgres: EmbeddedPostgres, tmp_path: Path
) -> None:
    database_url = pg.fresh_database(own_postgres)
    settings = make_settings(database_url)
    app = create_app(settings, pool_concurrency=0, open_when_keyless=True)
    async for api in started_client(app):
        with burst(tmp_path, database_url) as (server, started):
            runs = await send_all(api, server)
            await asyncio.to_thread(server.wait_requests, HELD, 60)
            server.answering.set()
            await asyncio.sleep(0.3)  # the replies are landing, their saves queueing
            await asyncio.to_thread(own_postgres.stop, "fast")
            await asyncio.sleep(1.0)
            await asyncio.to_thread(own_postgres.start)
            await wait_all_finished(api, runs, timeout=150)
            logs = "\n".join(worker.log() for worker in started)

    given_up = re.findall(r"run (\S+): (.*); giving the run up", logs)
    for _, why in given_up:
        assert why.startswith("database unreachable"), why
    assert "no connection free in the pool" not in logs
    # A model call made again is one whose run was given up (or lost its worker's
    # liveness, which the database going away also does): never a run the log is silent on.
    stopped = (
        {run_id for run_id, _ in given_up}
        | set(re.findall(r"run (\S+) stopped: lease_lost", logs))
        | set(re.findall(r"run (\S+): lease lost", logs))
    )
    per_position = calls_per_position(server)
    again = [p for p, n in per_position.items() if n > 1]
    say(
        f"database restarted during the burst: {len(given_up)} runs given up, "
        f"{len(stopped)} stopped in all; {len(again)} model calls made again"
    )
    assert {(s, n) for s in runs for n in (1, 3)} <= set(per_position)
    for (session, _), calls in per_position.items():
        if calls > 1:
            assert runs[session] in stopped, f"{session} called its model again, unexplained"
