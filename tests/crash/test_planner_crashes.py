"""The planner under SIGKILL: real worker processes die right after the plan is saved,
between two nodes, and while two nodes run at once. The planning turn is never generated
again (the scripted model's call log counts it), and no node's capability run is started
twice."""

from __future__ import annotations

import asyncio
import json
import signal
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import pg
from tests.agents import agent, calls, http_tool
from tests.conftest import wait_status
from tests.crash.harness import model_calls, tool_server, workers
from tests.support import define, queue

pytestmark = pytest.mark.timeout(90)


def planner(script: list[dict[str, Any]], capabilities: dict[str, str]) -> dict[str, Any]:
    return agent(
        "planner",
        script,
        [],
        kind="planner",
        capabilities=[{"name": n, "agent_id": a} for n, a in capabilities.items()],
    )


def plan_reply(*nodes: tuple[str, str, list[str]]) -> dict[str, Any]:
    body = {
        "nodes": [
            {"id": i, "capability": c, "input": f"do {i}", "depends_on": d} for i, c, d in nodes
        ]
    }
    return {"text": json.dumps(body)}


async def define_chain(api: httpx.AsyncClient) -> None:
    """search, then write (which depends on it), then the model's synthesis."""
    await define(api, agent("searcher", [{"text": "found"}], []))
    await define(api, agent("writer", [{"text": "written"}], []))
    await define(
        api,
        planner(
            [
                plan_reply(("search", "search", []), ("write", "write", ["search"])),
                {"text": "all done"},
            ],
            {"search": "searcher", "write": "writer"},
        ),
    )


def node_runs(database_url: str) -> list[tuple[Any, ...]]:
    return pg.rows(
        database_url,
        "SELECT parent_call_id, status FROM runs WHERE parent_session_id = 'plan-1'",
    )


async def finished_once(
    api: httpx.AsyncClient, database_url: str, run_id: str, call_log: Path, nodes: int
) -> dict[str, Any]:
    run = await wait_status(api, run_id, {"finished", "failed"}, timeout=40)
    assert run["status"] == "finished", run
    assert run["output"] == "all done"
    # One child run per node: none was started twice.
    children = node_runs(database_url)
    assert len(children) == nodes, children
    assert {s for _, s in children} == {"finished"}
    assert len({c for c, _ in children}) == nodes
    # Every model turn (the plan, the synthesis, each node's) was generated once.
    made = Counter((c["session_id"], c["position"]) for c in model_calls(call_log))
    assert set(made.values()) == {1}, made
    assert sorted(p for s, p in made if s == "plan-1") == [0, 1]
    return run


async def test_sigkill_after_the_plan_is_saved__the_plan_is_not_asked_for_again(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    call_log = tmp_path / "model.log"
    with workers(tmp_path, database_url, call_log) as start:
        await define_chain(api)
        run_id = await queue(api, "plan-1", "planner", "a report")
        first = start(PERDURE_FAULTS="after_message_commit")
        assert await asyncio.to_thread(first.wait) == -signal.SIGKILL
        # The plan is saved, no node started yet.
        assert node_runs(database_url) == []
        assert [c["position"] for c in model_calls(call_log)] == [0]
        start()
        run = await finished_once(api, database_url, run_id, call_log, nodes=2)
    assert [e["node"] for e in run["ledger"]] == ["search", "write"]


async def test_sigkill_between_nodes__the_finished_node_is_not_run_again(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    call_log = tmp_path / "model.log"
    with workers(tmp_path, database_url, call_log) as start:
        await define_chain(api)
        run_id = await queue(api, "plan-1", "planner", "a report")
        # The first node's result is saved in the planner's ledger; then the worker dies.
        first = start(PERDURE_FAULTS="after_result_commit")
        assert await asyncio.to_thread(first.wait) == -signal.SIGKILL
        assert node_runs(database_url) == [(node_runs(database_url)[0][0], "finished")]
        start()
        await finished_once(api, database_url, run_id, call_log, nodes=2)


async def test_sigkill_while_two_nodes_run__each_node_keeps_its_one_child(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    call_log = tmp_path / "model.log"
    with tool_server() as tools, workers(tmp_path, database_url, call_log) as start:
        holder = [calls(("fx", {"label": "node", "hold": 1})), {"text": "held"}]
        await define(api, agent("holder", holder, [http_tool("fx", tools.url)]))
        await define(
            api,
            planner(
                [plan_reply(("a", "hold", []), ("b", "hold", [])), {"text": "all done"}],
                {"hold": "holder"},
            ),
        )
        run_id = await queue(api, "plan-1", "planner", "both")
        first = start()
        # Both nodes' children are in their tool call at once: the nodes run in parallel.
        await asyncio.to_thread(tools.wait_for, lambda seen: len({c.key for c in seen}) == 2)
        first.kill()
        start()
        tools.release()
        await finished_once(api, database_url, run_id, call_log, nodes=2)
    # Each child's call ran again under its own id (at-least-once), in the same child.
    assert len({c.key for c in tools.calls}) == 2
