"""Loading runs for the worker: one statement for many runs, each given its whole state.

`run_state.load_runs` reads a run, its transcript, its last checkpoint and its children in
one statement; these tests hold it to what the transcript's own readers
(`transcript.load_entries`, `last_checkpoint_seq`, `attach_children`) say, on runs paused
in the states that make a load interesting. The load queue serves what queued together
in one batch, and one run that cannot be loaded fails alone.
"""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID, uuid4

import httpx
import psycopg
import pytest
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.domain.principal import DEFAULT_TENANT
from app.domain.run import Entry, ToolCall
from app.store import agents, run_state, transcript
from app.store.runs import SendCommand, send
from app.worker.batches import BatchQueue
from app.worker.connections import ConnectionGate
from tests import pg
from tests.agents import agent, calls, python_tool
from tests.conftest import wait_status
from tests.integration.test_leases import DEFINITION, make_runs
from tests.integration.test_subagents import agent_tool
from tests.integration.test_tools import CLIENT
from tests.support import define, queue, run_to_rest

pytestmark = pytest.mark.timeout(60)


async def loaded_as_read(conn: AsyncConnection, run_id: UUID) -> run_state.LoadedRun:
    """A run's load, checked against the transcript as its readers read it."""
    [(found, loaded)] = (await run_state.load_runs(conn, [run_id])).items()
    assert found == run_id
    assert not isinstance(loaded, Exception), loaded
    state = loaded.state
    entries = await transcript.load_entries(conn, state.tenant_id, state.session_id)
    await run_state.attach_children(conn, state.tenant_id, state.session_id, _calls(entries))
    assert state.entries == entries
    last = await transcript.last_checkpoint_seq(conn, state.tenant_id, state.session_id)
    assert state.next_checkpoint_seq == last + 1
    assert state.next_seq == (entries[-1].seq + 1 if entries else 1)
    return loaded


def _calls(entries: list[Entry]) -> list[ToolCall]:
    return [e for e in entries if isinstance(e, ToolCall)]


async def test_load__a_paused_run_has_its_decided_approval_its_posted_output_and_the_rest(
    live: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    gated = {**python_tool("wire", "echo"), "needs_approval": True}
    await define(
        live,
        agent(
            "mix",
            [
                calls(("wire", {}), ("lookup", {"q": 1}), ("lookup", {"q": 2}), ("add", {})),
                {"text": "done"},
            ],
            [gated, CLIENT, python_tool("add", "add")],
        ),
    )
    run = await run_to_rest(live, "mix-1", {"agent_id": "mix", "input": "go"})
    [approval] = run["pending_approvals"]
    decision = {"approved": True, "reason": "fine"}
    await live.post(f"/v1/approvals/{approval['id']}/decision", json=decision)
    run = await wait_status(live, run["id"], {"awaiting_tool_results"})
    first, _ = run["pending_tool_calls"]
    posted = {"tool_call_id": first["tool_call_id"], "output": {"found": True}}
    response = await live.post(f"/v1/runs/{run['id']}/tool-results", json={"results": [posted]})
    assert response.status_code in (200, 202), response.text

    async with engine.connect() as conn:
        loaded = await loaded_as_read(conn, UUID(run["id"]))
    by_name: dict[str, list[ToolCall]] = {}
    for call in loaded.state.calls.values():
        by_name.setdefault(call.name, []).append(call)
    [wire] = by_name["wire"]
    assert wire.approval is not None
    assert wire.approval.reason == "fine"
    outputs = [c.client_output for c in by_name["lookup"]]
    assert [o.output if o else None for o in outputs] == [{"found": True}, None]
    assert loaded.state.input_appended
    assert loaded.agent.tools[0].name == "wire"


async def test_load__a_parent_waiting_on_its_child_has_the_child_on_its_call(
    live: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    await define(live, agent("helper", [calls(("lookup", {})), {"text": "x"}], [CLIENT]))
    ask = agent_tool("ask", "helper")
    await define(live, agent("boss", [calls(("ask", {"input": "q"})), {"text": "ok"}], [ask]))
    run_id = await queue(live, "boss-1", "boss")
    await wait_status(live, run_id, {"awaiting_children"})

    async with engine.connect() as conn:
        loaded = await loaded_as_read(conn, UUID(run_id))
    [call] = loaded.state.calls.values()
    assert call.child is not None
    assert call.child.session_id != "boss-1"

    # Once the child answered, the call is settled: the load attaches no child to it.
    child = await wait_status(live, str(call.child.run_id), {"awaiting_tool_results"})
    [pending] = child["pending_tool_calls"]
    posted = {"tool_call_id": pending["tool_call_id"], "output": "found"}
    await live.post(f"/v1/runs/{child['id']}/tool-results", json={"results": [posted]})
    await wait_status(live, run_id, {"finished"})
    async with engine.connect() as conn:
        finished = await loaded_as_read(conn, UUID(run_id))
    [settled] = finished.state.calls.values()
    assert settled.settled
    assert settled.child is None


async def test_load_queue__loads_queued_together_are_one_batch__a_run_that_cannot_load_fails_alone(
    engine: AsyncEngine, database_url: str
) -> None:
    ids = await make_runs(engine, sessions=19)
    async with engine.begin() as conn:
        await agents.create_agent(conn, DEFAULT_TENANT, "b", DEFINITION)
        command = SendCommand(
            DEFAULT_TENANT, "sb", [{"role": "user", "content": "x"}], agent_id="b"
        )
        broken = (await send(conn, command)).run.id
    # A definition that no longer parses (written past the API, which would refuse it).
    with pg.admin(database_url) as admin:
        admin.execute(
            "UPDATE agent_versions SET definition = '{\"model\": 1}' WHERE agent_id = 'b'"
        )
    gone = uuid4()
    asked = [*ids[:7], broken, *ids[7:], gone]
    batches: list[list[UUID]] = []

    async def serve(conn: AsyncConnection, run_ids: list[UUID]) -> list[Any]:
        batches.append(run_ids)
        loaded = await run_state.load_runs(conn, run_ids)
        return [loaded.get(r) for r in run_ids]

    gate = ConnectionGate(engine, 1)
    loads = BatchQueue(gate, serve, name="loads")
    try:
        outcomes = await asyncio.gather(*(loads.submit(r) for r in asked), return_exceptions=True)
    finally:
        await gate.aclose()

    assert batches == [asked]  # one statement for all, in the order they queued
    assert isinstance(outcomes[7], ValidationError)
    assert outcomes[-1] is None  # a run deleted since its claim
    loaded = [o for o in outcomes if isinstance(o, run_state.LoadedRun)]
    assert [o.state.run_id for o in loaded] == ids


async def test_load__a_statement_refused_for_the_batch_is_made_again_run_by_run(
    engine: AsyncEngine, database_url: str
) -> None:
    """The database refuses the batch's statement (here: a lock it may not wait for):
    each run gets that refusal as its own outcome, and the connection still serves."""
    ids = await make_runs(engine, sessions=3)
    with pg.admin(database_url) as blocker:
        blocker.execute("BEGIN")
        blocker.execute("LOCK TABLE checkpoints IN ACCESS EXCLUSIVE MODE")
        async with engine.connect() as raw:
            conn = await raw.execution_options(isolation_level="AUTOCOMMIT")
            await conn.exec_driver_sql("SET lock_timeout = '200ms'")
            refused = await run_state.load_runs(conn, ids)
            blocker.execute("ROLLBACK")
            loaded = await run_state.load_runs(conn, ids)
    assert list(refused) == ids
    assert all(isinstance(o, psycopg.errors.LockNotAvailable) for o in refused.values())
    assert sorted(loaded) == sorted(ids)
    assert all(isinstance(o, run_state.LoadedRun) for o in loaded.values())
