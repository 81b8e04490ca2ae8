"""The event log and its streams, over a real HTTP server: every change of a run is an
event, in order, with gap-free ids; a stream resumes after `Last-Event-ID` with exactly
what it missed; a fenced-out writer emits nothing."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from app.domain.run import CheckpointWrite, NewMessage, RunStatus, Usage
from app.errors import LeaseLost
from app.main import create_app
from app.settings import Settings
from app.store import checkpoint
from tests import pg
from tests.agents import ADD_SCHEMA, agent, calls, python_tool
from tests.conftest import make_settings
from tests.serving import read_stream, serving, summary
from tests.support import define, queue, run_to_rest

CLIENT = {"name": "lookup", "input_schema": {"type": "object"}, "executor": {"type": "client"}}
SCRIPT = [calls(("add", {"a": 1, "b": 2})), {"text": "it is 3"}]
ADDER = agent("adder", SCRIPT, [python_tool("add", "add", ADD_SCHEMA)])
ONE_RUN = [
    "run.queued",
    "run.started",
    "turn.saved",
    "tool.started",
    "tool.settled",
    "turn.saved",
    "run.finished",
]


@pytest.fixture
async def server(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """A real server with an in-process worker pool, and a client of it."""
    app = create_app(settings, pool_concurrency=4, open_when_keyless=True)
    async with serving(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as client:
        yield client


async def test_send_with_stream__answers_the_runs_events_live_and_ends(
    server: httpx.AsyncClient,
) -> None:
    await define(server, ADDER)
    seen = await read_stream(
        server,
        "POST",
        "/v1/sessions/s1/runs",
        params={"stream": "true"},
        json={"agent_id": "adder", "input": "add 1 and 2"},
    )
    assert [t for _, t in summary(seen)] == ONE_RUN
    assert [i for i, _ in summary(seen)] == list(range(1, len(ONE_RUN) + 1))
    data = [json.loads(e.data)["data"] for e in seen]
    assert data[0] == {"seq": 1, "reason": "sent"}
    assert data[1]["lease_token"] == 1
    assert data[1]["worker"]
    call_id = data[2]["calls"][0]["tool_call_id"]
    assert data[2]["calls"] == [{"tool_call_id": call_id, "name": "add"}]
    assert data[3] == {"tool_call_id": call_id}
    assert data[4] == {"tool_call_id": call_id, "status": "ok", "result_bytes": len('{"result":3}')}
    assert data[5]["text"] == "it is 3"
    assert data[6] == {"finish_reason": "stop", "steps": 2}
    # The log a stream reads is the one the JSON page lists.
    run_id = json.loads(seen[0].data)["run_id"]
    page = (await server.get(f"/v1/runs/{run_id}/events")).json()["items"]
    assert [(e["id"], e["type"]) for e in page] == summary(seen)


async def test_send_with_stream__starts_with_every_event_the_send_wrote_for_its_run(
    server: httpx.AsyncClient,
) -> None:
    """A send that moves the session to a new version and interrupts a waiting run writes
    the interrupted run's event, then the new run's drift and queued events: the stream
    shows the new run's, in order, from the first (the send hands them over itself)."""
    waiting = agent("w", [calls(("lookup", {})), {"text": "x"}, {"text": "y"}], [CLIENT])
    await define(server, waiting)
    paused = await run_to_rest(server, "s5", {"agent_id": "w", "input": "go"})
    assert paused["status"] == "awaiting_tool_results", paused
    changed = {k: v for k, v in waiting.items() if k != "id"} | {"instructions": "changed"}
    assert (await server.put("/v1/agents/w", json=changed)).status_code == 200

    body = {"input": "again", "agent_version": "latest", "if_busy": "interrupt"}
    seen = await read_stream(
        server, "POST", "/v1/sessions/s5/runs", params={"stream": "true"}, json=body
    )
    types = [t for _, t in summary(seen)]
    assert types[:3] == ["agent.drift", "run.queued", "run.started"], types
    assert types[-1] == "run.finished"
    [run_id] = {json.loads(e.data)["run_id"] for e in seen}
    assert run_id != paused["id"]
    # Nothing of the new run's is missing: the stream is its whole log.
    log = (await server.get(f"/v1/runs/{run_id}/events")).json()["items"]
    assert summary(seen) == [(e["id"], e["type"]) for e in log]
    interrupted = (await server.get(f"/v1/runs/{paused['id']}/events")).json()["items"]
    [asked] = [e["id"] for e in interrupted if e["type"] == "run.cancel_requested"]
    assert asked < int(seen[0].id)  # the send wrote it first, and its stream leaves it out


async def test_reconnect__last_event_id_or_after_gets_exactly_what_was_missed(
    server: httpx.AsyncClient,
) -> None:
    await define(server, ADDER)
    run = await run_to_rest(server, "s2", {"agent_id": "adder", "input": "go"})
    path = f"/v1/runs/{run['id']}/stream"
    first = await read_stream(server, "GET", path, until=3)  # hangs up after three
    assert [t for _, t in summary(first)] == ONE_RUN[:3]
    rest = await read_stream(server, "GET", path, headers={"Last-Event-ID": first[-1].id})
    assert [t for _, t in summary(rest)] == ONE_RUN[3:]
    again = await read_stream(server, "GET", path, params={"after": 5})
    assert summary(again) == summary(rest)[2:]
    # Resuming after the run's last event ends at once, with nothing.
    assert await read_stream(server, "GET", path, headers={"Last-Event-ID": rest[-1].id}) == []


async def test_session_stream__stays_open_across_runs_and_sees_events_written_later(
    server: httpx.AsyncClient,
) -> None:
    # The scripted model's replies run on across the session's runs.
    await define(server, {**ADDER, "model": {"provider": "scripted", "script": SCRIPT * 2}})
    await run_to_rest(server, "s3", {"agent_id": "adder", "input": "once"})
    reading = asyncio.create_task(
        read_stream(server, "GET", "/v1/sessions/s3/stream", until=2 * len(ONE_RUN))
    )
    await asyncio.sleep(0.3)  # the stream has caught up and waits on the live log
    second = await run_to_rest(server, "s3", {"input": "twice"})
    seen = await asyncio.wait_for(reading, timeout=20)
    assert [t for _, t in summary(seen)] == ONE_RUN * 2
    assert [i for i, _ in summary(seen)] == list(range(1, 2 * len(ONE_RUN) + 1))
    assert {json.loads(e.data)["run_id"] for e in seen[len(ONE_RUN) :]} == {second["id"]}


async def test_keep_alive__an_idle_stream_gets_comments(database_url: str) -> None:
    app = create_app(
        make_settings(database_url, stream_ping_s=0.2), pool_concurrency=0, open_when_keyless=True
    )
    async with serving(app) as url, httpx.AsyncClient(base_url=url, timeout=10) as client:
        await define(client, ADDER)
        await queue(client, "idle", "adder")
        lines: list[str] = []
        async with client.stream("GET", "/v1/sessions/idle/stream") as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            async for line in response.aiter_lines():
                lines.append(line)
                pings = [x for x in lines if x.startswith(":")]
                if "event: run.queued" in lines and len(pings) >= 2:
                    break
    events = [x for x in lines if x and not x.startswith(":")]
    assert events[:2] == ["id: 1", "event: run.queued"]
    # The pings came while the stream was idle after its one event, and said nothing else.
    assert sum(1 for x in lines if x.startswith(":")) >= 2


async def test_approval__requested_paused_decided_queued_are_events(
    server: httpx.AsyncClient,
) -> None:
    gated = {**python_tool("add", "add", ADD_SCHEMA), "needs_approval": True}
    await define(server, agent("gate", [calls(("add", {"a": 2, "b": 2})), {"text": "4"}], [gated]))
    run = await run_to_rest(server, "s4", {"agent_id": "gate", "input": "go"})
    approval = run["pending_approvals"][0]
    decided = await server.post(
        f"/v1/approvals/{approval['id']}/decision", json={"approved": True, "reason": "fine"}
    )
    assert decided.status_code == 200, decided.text
    seen = await read_stream(server, "GET", f"/v1/runs/{run['id']}/stream")
    assert [t for _, t in summary(seen)] == [
        "run.queued",
        "run.started",
        "turn.saved",
        "approval.requested",
        "run.paused",
        "approval.decided",
        "run.queued",
        "run.started",
        "tool.started",  # its intent record, written before an approved call runs
        "tool.settled",
        "turn.saved",
        "run.finished",
    ]
    by_type = {e.event: json.loads(e.data)["data"] for e in seen}
    assert by_type["approval.requested"]["approval_id"] == approval["id"]
    assert by_type["approval.decided"]["status"] == "approved"
    assert by_type["approval.decided"]["decided_by"]["name"]
    assert by_type["run.paused"] == {"status": "awaiting_approval"}


async def test_stream_of_unknown_run_or_session__404_problem(server: httpx.AsyncClient) -> None:
    for path in (f"/v1/runs/{uuid.uuid4()}/stream", "/v1/sessions/nope/stream"):
        response = await server.get(path)
        assert response.status_code == 404, response.text
        assert response.headers["content-type"] == "application/problem+json"
    bad = await server.get("/v1/sessions/nope/stream", headers={"Last-Event-ID": "x"})
    assert bad.status_code == 422


async def test_fenced_out_save__writes_no_event(settings: Settings, database_url: str) -> None:
    """A writer whose token is stale emits nothing: the fence covers the events."""
    app = create_app(settings, pool_concurrency=0, open_when_keyless=True)
    async with serving(app) as url, httpx.AsyncClient(base_url=url) as client:
        await define(client, ADDER)
        run_id = await queue(client, "fenced", "adder")
    pg.rows(database_url, "UPDATE runs SET status = 'running', lease_token = 7 RETURNING id")
    before = pg.rows(database_url, "SELECT id, type FROM events ORDER BY id")
    from app.db import create_engine

    engine = create_engine(settings.database_url or "", settings)
    write = CheckpointWrite(
        checkpoint_seq=1,
        status=RunStatus.FINISHED,
        steps=1,
        usage=Usage(),
        message_count=0,
        output="stale",
        finish_reason="stop",
    )
    try:
        async with engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            with pytest.raises(LeaseLost):
                await checkpoint.write_checkpoint(
                    conn, run_id=uuid.UUID(run_id), token=6, write=write
                )
            await checkpoint.write_checkpoint(conn, run_id=uuid.UUID(run_id), token=7, write=write)
    finally:
        await engine.dispose()
    after = pg.rows(database_url, "SELECT id, type FROM events ORDER BY id")
    assert after == [*before, (before[-1][0] + 1, "run.finished")]


async def event_page(client: httpx.AsyncClient, run_id: str) -> list[dict[str, Any]]:
    page: list[dict[str, Any]] = (await client.get(f"/v1/runs/{run_id}/events")).json()["items"]
    return page


async def test_retry_client_tool_and_cancel__are_events(live: httpx.AsyncClient) -> None:
    """The changes the other tests do not make: a retry's back-off, a client tool's wait
    and its outputs, a cancel of a run that has started."""
    # Fails on its first attempt, then asks the caller's `ask` tool.
    flaky = {"error": {"message": "overloaded", "times": 1}, **calls(("ask", {}))}
    client_tool = {
        "name": "ask",
        "input_schema": {"type": "object"},
        "executor": {"type": "client"},
    }
    script = [flaky, {"text": "thanks"}, {"text": "again"}]
    await define(live, agent("mixed", script, [client_tool]))
    run = await run_to_rest(live, "s5", {"agent_id": "mixed", "input": "go"})
    assert run["status"] == "awaiting_tool_results", run
    call_id = run["pending_tool_calls"][0]["tool_call_id"]
    posted = await live.post(
        f"/v1/runs/{run['id']}/tool-results",
        json={"results": [{"tool_call_id": call_id, "output": "yes"}]},
    )
    assert posted.status_code == 200, posted.text
    await run_to_rest(live, "s5", {"input": "again", "if_busy": "queue"}, wait=20)
    events = await event_page(live, run["id"])
    types = [e["type"] for e in events]
    assert types == [
        "run.queued",
        "run.started",
        "run.retrying",
        "run.started",
        "turn.saved",
        "run.paused",
        "tool_results.received",
        "run.queued",
        "run.started",
        "tool.settled",
        "turn.saved",
        "run.finished",
    ]
    retrying = events[2]["data"]
    assert (retrying["attempt"], retrying["error_code"]) == (1, "scripted_error")
    assert retrying["next_attempt_at"]
    assert events[5]["data"] == {"status": "awaiting_tool_results"}
    assert events[6]["data"] == {"tool_call_ids": [call_id]}
    assert events[7]["data"] == {"reason": "tool_results"}


async def test_cancel_of_a_started_run__cancel_requested_then_cancelled(
    live: httpx.AsyncClient,
) -> None:
    slow = {**python_tool("probe", "probe"), "input_schema": {"type": "object"}}
    await define(live, agent("slow", [calls(("probe", {"sleep": 5})), {"text": "x"}], [slow]))
    run_id = await queue(live, "s6", "slow")
    for _ in range(200):
        if "tool.started" in [e["type"] for e in await event_page(live, run_id)]:
            break
        await asyncio.sleep(0.05)
    assert (await live.post(f"/v1/runs/{run_id}/cancel")).status_code == 200
    for _ in range(200):
        events = await event_page(live, run_id)
        if events[-1]["type"] == "run.cancelled":
            break
        await asyncio.sleep(0.05)
    types = [e["type"] for e in events]
    assert types[-2:] == ["run.cancel_requested", "run.cancelled"] or types[-3:] == [
        "run.cancel_requested",
        "tool.settled",
        "run.cancelled",
    ], types


async def test_a_save_never_waits_on_a_sends_session_lock(
    settings: Settings, database_url: str
) -> None:
    """A send holds its session's row lock until it commits, and takes the session's
    event head last; a checkpoint takes the head, then checks its rows' foreign keys to
    the session (a KEY SHARE lock, at the end of its statement). Were the send's lock
    FOR UPDATE, the save would wait on it while holding the head the send waits for: a
    deadlock (seen under load). The save must go through while the send's lock is held."""
    app = create_app(settings, pool_concurrency=0, open_when_keyless=True)
    async with serving(app) as url, httpx.AsyncClient(base_url=url) as client:
        await define(client, ADDER)
        run_id = await queue(client, "locked", "adder")
    pg.rows(database_url, "UPDATE runs SET status = 'running', lease_token = 1 RETURNING id")
    from app.db import create_engine
    from app.store.runs import lock_session

    engine = create_engine(settings.database_url or "", settings)
    write = CheckpointWrite(
        checkpoint_seq=1,
        status=RunStatus.RUNNING,
        steps=0,
        usage=Usage(),
        message_count=1,
        messages=[NewMessage(1, "user", "hello")],
        input_seq=1,
    )
    try:
        async with engine.connect() as sender, engine.connect() as saver:
            await sender.begin()
            await sender.execute(lock_session("default", "locked"))  # as a send holds it
            await saver.execution_options(isolation_level="AUTOCOMMIT")
            await asyncio.wait_for(
                checkpoint.write_checkpoint(saver, run_id=uuid.UUID(run_id), token=1, write=write),
                timeout=10,
            )
            await sender.rollback()
    finally:
        await engine.dispose()
    assert pg.scalar(database_url, "SELECT count(*) FROM messages") == 1
