"""The planner: a frozen plan over capabilities, nodes as child runs in dependency order,
a ledger saved as each node settles, re-plans within a budget."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.agents import agent
from tests.conftest import wait_status
from tests.support import define, get_json, queue

pytestmark = pytest.mark.timeout(60)


def capability(name: str, agent_id: str) -> dict[str, Any]:
    return {"name": name, "agent_id": agent_id, "description": f"runs {agent_id}"}


def plan(*nodes: tuple[str, str, Any, list[str]], answer: str | None = None) -> dict[str, Any]:
    """A scripted model reply holding a plan: (id, capability, input, depends_on)."""
    body = {
        "nodes": [{"id": i, "capability": c, "input": x, "depends_on": d} for i, c, x, d in nodes],
        "answer": answer,
    }
    return {"text": json.dumps(body)}


def planner(
    agent_id: str, script: list[dict[str, Any]], capabilities: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    return agent(agent_id, script, [], kind="planner", capabilities=capabilities, **extra)


async def children_of(client: httpx.AsyncClient, run_id: str) -> list[dict[str, Any]]:
    page = await get_json(client, "/v1/runs?limit=100")
    return [r for r in page["items"] if r["parent_run_id"] == run_id]


async def define_search_and_write(client: httpx.AsyncClient, *, search_fails: bool = False) -> None:
    search: dict[str, Any] = (
        {"error": {"message": "index offline", "retryable": False}}
        if search_fails
        else {"text": "three sources", "output_tokens": 5}
    )
    await define(client, agent("searcher", [search], []))
    await define(client, agent("writer", [{"text": "a report"}], []))


async def test_planner__runs_nodes_in_order_with_outputs_and_synthesises(
    live: httpx.AsyncClient,
) -> None:
    await define_search_and_write(live)
    await define(
        live,
        planner(
            "reporter",
            [
                plan(
                    ("search", "search", "find {{goal}}", []),
                    ("write", "write", "write from {{nodes.search.output}}", ["search"]),
                ),
                {"text": "final: a report"},
            ],
            [capability("search", "searcher"), capability("write", "writer")],
        ),
    )
    run_id = await queue(live, "plan-1", "reporter", "solar panels")
    run = await wait_status(live, run_id, {"finished", "failed"})
    assert run["status"] == "finished", run
    assert run["output"] == "final: a report"
    assert [n["id"] for n in run["plan"]["nodes"]] == ["search", "write"]
    assert run["frontier"] == []
    ledger = {e["node"]: e for e in run["ledger"]}
    assert ledger["search"]["status"] == "ok"
    assert ledger["search"]["output"] == "three sources"
    assert ledger["search"]["usage"]["output_tokens"] == 5
    children = {c["id"]: c for c in await children_of(live, run_id)}
    assert set(children) == {ledger["search"]["child_run_id"], ledger["write"]["child_run_id"]}
    # The template was filled with the goal and with the dependency's output.
    search_child = children[ledger["search"]["child_run_id"]]
    write_child = children[ledger["write"]["child_run_id"]]
    assert search_child["input"] == [{"role": "user", "content": "find solar panels"}]
    assert write_child["input"] == [{"role": "user", "content": "write from three sources"}]
    # The planner's own model calls: the plan and the synthesis.
    assert run["usage"]["model_calls"] == 2
    # The history shows each node settling in its own checkpoint.
    history = await get_json(live, "/v1/sessions/plan-1/checkpoints?limit=100")
    assert len(history["items"]) >= 5


async def test_planner__invalid_plan_is_retried_with_the_error(live: httpx.AsyncClient) -> None:
    await define_search_and_write(live)
    await define(
        live,
        planner(
            "retrier",
            [
                plan(("a", "nope", "x", [])),
                plan(("a", "search", "x", ["b"]), ("b", "search", "y", ["a"])),
                plan(("a", "search", "x", []), answer="a"),
            ],
            [capability("search", "searcher")],
        ),
    )
    run_id = await queue(live, "plan-2", "retrier")
    run = await wait_status(live, run_id, {"finished", "failed"})
    assert run["status"] == "finished", run
    assert run["output"] == "three sources"
    messages = (await get_json(live, "/v1/sessions/plan-2/messages?limit=100"))["items"]
    told = [m["content"] for m in messages if m["role"] == "user"][1:]
    assert "no capability 'nope'" in told[0]
    assert "cycle" in told[1]
    assert run["steps"] == 3


async def test_planner__failed_node_replans_keeping_completed_nodes(
    live: httpx.AsyncClient,
) -> None:
    await define_search_and_write(live)
    await define(live, agent("broken", [{"error": {"message": "down", "retryable": False}}], []))
    await define(
        live,
        planner(
            "replanner",
            [
                plan(
                    ("search", "search", "x", []),
                    ("draft", "flaky", "{{nodes.search.output}}", ["search"]),
                ),
                plan(("write", "write", "{{nodes.search.output}}", ["search"]), answer="write"),
            ],
            [
                capability("search", "searcher"),
                capability("write", "writer"),
                capability("flaky", "broken"),
            ],
        ),
    )
    run_id = await queue(live, "plan-3", "replanner")
    run = await wait_status(live, run_id, {"finished", "failed"})
    assert run["status"] == "finished", run
    assert run["output"] == "a report"
    assert run["replan_count"] == 1
    assert [(e["node"], e["status"]) for e in run["ledger"]] == [
        ("search", "ok"),
        ("draft", "error"),
        ("write", "ok"),
    ]
    # search was kept, never run twice: three children in all.
    assert len(await children_of(live, run_id)) == 3


async def test_planner__past_the_replan_budget_fails_naming_the_node(
    live: httpx.AsyncClient,
) -> None:
    await define_search_and_write(live, search_fails=True)
    await define(
        live,
        planner(
            "doomed",
            [plan(("lookup", "search", "x", []))],
            [capability("search", "searcher")],
            max_replans=0,
        ),
    )
    run_id = await queue(live, "plan-4", "doomed")
    run = await wait_status(live, run_id, {"finished", "failed"})
    assert run["status"] == "failed", run
    assert run["last_error"]["code"] == "node_failed"
    assert run["last_error"]["node"] == "lookup"
    assert "index offline" in run["last_error"]["message"]


async def test_planner__definition_rules(live: httpx.AsyncClient) -> None:
    no_capability = planner("p1", [{"text": "x"}], [])
    assert (await live.post("/v1/agents", json=no_capability)).status_code == 422
    unknown_agent = planner("p2", [{"text": "x"}], [capability("s", "ghost")])
    response = await live.post("/v1/agents", json=unknown_agent)
    assert response.status_code == 422, response.text
    assert "ghost" in response.text


async def test_planner__capability_order_is_its_signature_for_drift(
    live: httpx.AsyncClient,
) -> None:
    await define_search_and_write(live)
    script = [plan(("s", "search", "x", []), answer="s")]
    first = planner(
        "drifter", script, [capability("search", "searcher"), capability("write", "writer")]
    )
    await define(live, first)
    run_id = await queue(live, "plan-5", "drifter")
    assert (await wait_status(live, run_id, {"finished", "failed"}))["status"] == "finished"
    reordered = {k: v for k, v in first.items() if k != "id"}
    reordered["capabilities"] = list(reversed(reordered["capabilities"]))
    reordered["on_drift"] = "error"
    response = await live.put("/v1/agents/drifter", json=reordered)
    assert response.status_code in (200, 201), response.text
    response = await live.post(
        "/v1/sessions/plan-5/runs", json={"input": "again", "agent_version": "latest"}
    )
    assert response.status_code == 409, response.text
    assert response.json()["code"] == "AGENT_DRIFT"
    assert response.json()["changes"]["capabilities"] == {
        "from": ["search", "write"],
        "to": ["write", "search"],
    }


async def test_planner__compare_two_planner_sessions(live: httpx.AsyncClient) -> None:
    await define_search_and_write(live)
    await define(
        live,
        planner(
            "twin",
            [plan(("s", "search", "x", []), ("w", "write", "y", ["s"])), {"text": "done"}],
            [capability("search", "searcher"), capability("write", "writer")],
        ),
    )
    for session in ("twin-a", "twin-b"):
        run_id = await queue(live, session, "twin")
        assert (await wait_status(live, run_id, {"finished", "failed"}))["status"] == "finished"
    compared = await get_json(live, "/v1/sessions/twin-a/compare?with=twin-b")
    assert compared["diverged_at"] is None, compared
    steps = compared["a"]["steps"]
    # The plan, each node's turn, the answer.
    assert [s["tool_calls"] and s["tool_calls"][0]["name"] for s in steps][1:3] == [
        "search",
        "write",
    ]
