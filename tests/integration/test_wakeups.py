"""A write that queues a run wakes the workers: one NOTIFY on the wake channel, sent by the
write's own transaction (at its commit). A write that queues nothing wakes nobody.

Workers also poll, so a missing wake-up shows in no other test: only as a run that waits
a poll interval (`PERDURE_POLL_INTERVAL_S`, a second by default) before it starts. Here no
worker runs while the writes are made, so every notification heard is the write's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import psycopg
import pytest

from app.main import create_app
from app.settings import Settings
from app.store.notify import WAKE_CHANNEL
from tests import pg
from tests.agents import agent, calls, python_tool
from tests.conftest import started_client
from tests.support import define, queue, run_to_rest

GATED = {**python_tool("wire", "echo"), "needs_approval": True}
CLIENT = {"name": "lookup", "input_schema": {"type": "object"}, "executor": {"type": "client"}}


@pytest.fixture
async def wakeups(database_url: str) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """A connection listening on the workers' wake-up channel."""
    conn = await psycopg.AsyncConnection.connect(pg.libpq_url(database_url), autocommit=True)
    await conn.execute(f"LISTEN {WAKE_CHANNEL}")
    yield conn
    await conn.close()


async def heard(conn: psycopg.AsyncConnection[Any]) -> int:
    """How many wake-ups arrived (waiting half a second for any still on their way)."""
    return len([n async for n in conn.notifies(timeout=0.5)])


async def paused(settings: Settings, session: str, body: dict[str, Any]) -> dict[str, Any]:
    """A run brought to rest by a worker pool that is stopped again before this returns."""
    app = create_app(settings, pool_concurrency=2, open_when_keyless=True)
    async for client in started_client(app):
        await define(client, body)
        return await run_to_rest(client, session, {"agent_id": body["id"], "input": "go"})
    raise AssertionError("the app did not start")


async def test_send__wakes_the_workers_once_and_a_read_wakes_nobody(
    api: httpx.AsyncClient, wakeups: psycopg.AsyncConnection[Any]
) -> None:
    await define(api, agent("a", [{"text": "hi"}], []))
    run_id = await queue(api, "s-1", "a")
    assert await heard(wakeups) == 1
    assert (await api.get(f"/v1/runs/{run_id}")).status_code == 200
    await queue(api, "s-1", "a")  # a second send to the same (now existing) session
    assert await heard(wakeups) == 1


async def test_decisions__the_last_one_wakes_the_workers_and_only_it(
    api: httpx.AsyncClient, settings: Settings, wakeups: psycopg.AsyncConnection[Any]
) -> None:
    body = agent("g", [calls(("wire", {"to": "a"}), ("wire", {"to": "b"})), {"text": "x"}], [GATED])
    run = await paused(settings, "g-1", body)
    assert run["status"] == "awaiting_approval", run
    first, second = (a["id"] for a in run["pending_approvals"])
    await heard(wakeups)  # whatever the pool sent while it ran

    one = await api.post(f"/v1/approvals/{first}/decision", json={"approved": True})
    assert one.status_code == 200, one.text
    assert await heard(wakeups) == 0  # the run still waits on the other
    two = await api.post(f"/v1/approvals/{second}/decision", json={"approved": False})
    assert two.status_code == 200, two.text
    assert await heard(wakeups) == 1
    assert (await api.get(f"/v1/runs/{run['id']}")).json()["status"] == "queued"


async def test_tool_results__the_post_that_completes_them_wakes_the_workers(
    api: httpx.AsyncClient, settings: Settings, wakeups: psycopg.AsyncConnection[Any]
) -> None:
    body = agent("c", [calls(("lookup", {"q": 1}), ("lookup", {"q": 2})), {"text": "x"}], [CLIENT])
    run = await paused(settings, "c-1", body)
    assert run["status"] == "awaiting_tool_results", run
    first, second = (c["tool_call_id"] for c in run["pending_tool_calls"])
    await heard(wakeups)

    path = f"/v1/runs/{run['id']}/tool-results"
    part = await api.post(path, json={"results": [{"tool_call_id": first, "output": 1}]})
    assert part.status_code == 200, part.text
    assert await heard(wakeups) == 0
    rest = await api.post(path, json={"results": [{"tool_call_id": second, "output": 2}]})
    assert rest.status_code == 200, rest.text
    assert await heard(wakeups) == 1
    assert rest.json()["status"] == "queued"
