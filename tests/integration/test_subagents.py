"""Sub-agents: an agent tool's call starts a child run; the parent pauses holding no lease,
and the child's output (or failure) becomes the call's result."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests import pg
from tests.agents import agent, calls, python_tool
from tests.conftest import wait_status
from tests.support import define, get_json, queue, transcript

pytestmark = pytest.mark.timeout(60)


def agent_tool(name: str, agent_id: str, **executor: Any) -> dict[str, Any]:
    return {
        "name": name,
        "input_schema": {"type": "object"},
        "executor": {"type": "agent", "agent_id": agent_id, **executor},
    }


async def children_of(client: httpx.AsyncClient, run_id: str) -> list[dict[str, Any]]:
    page = await get_json(client, "/v1/runs?limit=100")
    return [r for r in page["items"] if r["parent_run_id"] == run_id]


async def events_of(client: httpx.AsyncClient, run_id: str) -> list[dict[str, Any]]:
    page = await get_json(client, f"/v1/runs/{run_id}/events?limit=500")
    items: list[dict[str, Any]] = page["items"]
    return items


async def test_agent_tool__child_output_is_the_result_and_usage_rolls_up(
    live: httpx.AsyncClient, database_url: str
) -> None:
    await define(live, agent("researcher", [{"text": "found 42", "output_tokens": 7}], []))
    await define(
        live,
        agent(
            "boss",
            [calls(("research", {"input": "find the answer"})), {"text": "it is 42"}],
            [agent_tool("research", "researcher")],
        ),
    )
    run_id = await queue(live, "boss-1", "boss")
    run = await wait_status(live, run_id, {"finished", "failed"})
    assert run["status"] == "finished", run
    assert run["output"] == "it is 42"

    [child] = await children_of(live, run_id)
    assert child["status"] == "finished"
    assert child["depth"] == 1
    assert child["input"] == [{"role": "user", "content": "find the answer"}]
    [call] = [m for m in await transcript(live, "boss-1") if m["role"] == "tool"]
    assert call["content"]["output"] == "found 42"
    assert call["content"]["run_id"] == child["id"]
    assert child["parent_tool_call_id"] == call["tool_call_id"]

    # The parent shows its own usage, and its tree's: its two model calls and the child's.
    assert run["usage"]["model_calls"] == 2
    assert run["usage_with_children"]["model_calls"] == 3
    assert run["usage_with_children"]["output_tokens"] == 7

    types = [e["type"] for e in await events_of(live, run_id)]
    assert types.index("child.started") < types.index("child.ended") < types.index("run.finished")
    assert [r[0] for r in pg.rows(database_url, "SELECT count(*) FROM runs")] == [2]


async def test_two_children__parent_resumes_once_both_ended(live: httpx.AsyncClient) -> None:
    await define(live, agent("fast", [{"text": "fast done"}], []))
    await define(live, agent("slow", [{"text": "slow done", "delay_s": 0.5}], []))
    await define(
        live,
        agent(
            "fanout",
            [calls(("a", {"input": "x"}), ("b", {"input": "y"})), {"text": "both back"}],
            [agent_tool("a", "fast"), agent_tool("b", "slow")],
        ),
    )
    run_id = await queue(live, "fan-1", "fanout")
    run = await wait_status(live, run_id, {"finished", "failed"})
    assert run["status"] == "finished", run
    results = [
        m["content"]["output"] for m in await transcript(live, "fan-1") if m["role"] == "tool"
    ]
    assert results == ["fast done", "slow done"]
    events = await events_of(live, run_id)
    woken = [
        e
        for e in events
        if e["type"] == "run.queued" and e["data"].get("reason") == "children_ended"
    ]
    assert len(woken) == 1


async def test_failed_child__its_failure_is_the_result_the_model_reads(
    live: httpx.AsyncClient,
) -> None:
    await define(
        live, agent("broken", [{"error": {"message": "upstream said no", "retryable": False}}], [])
    )
    await define(
        live,
        agent(
            "caller",
            [calls(("ask", {"q": 1})), {"text": "handled"}],
            [agent_tool("ask", "broken")],
        ),
    )
    run_id = await queue(live, "fail-1", "caller")
    run = await wait_status(live, run_id, {"finished", "failed"})
    assert run["status"] == "finished", run
    [result] = [m for m in await transcript(live, "fail-1") if m["role"] == "tool"]
    assert result["content"]["error"] == "child_failed"
    assert "upstream said no" in result["content"]["message"]
    [child] = await children_of(live, run_id)
    assert child["status"] == "failed"
    # Arguments other than {"input": text} reach the child as their JSON.
    assert child["input"] == [{"role": "user", "content": '{"q": 1}'}]


async def test_depth_bound__a_call_past_it_is_an_error_result(live: httpx.AsyncClient) -> None:
    await define(
        live,
        agent(
            "recursive",
            [calls(("again", {"input": "deeper"})), {"text": "bottom"}],
            [agent_tool("again", "recursive")],
            max_depth=1,
        ),
    )
    run_id = await queue(live, "deep-1", "recursive")
    run = await wait_status(live, run_id, {"finished", "failed"})
    assert run["status"] == "finished", run
    [child] = await children_of(live, run_id)
    assert child["depth"] == 1
    assert await children_of(live, child["id"]) == []
    [refused] = [m for m in await transcript(live, child["session_id"]) if m["role"] == "tool"]
    assert refused["content"]["error"] == "depth_exceeded"


async def test_child_approval__in_the_inbox_with_its_parent_chain_then_cancel_cascades(
    live: httpx.AsyncClient,
) -> None:
    gated = {**python_tool("wire", "echo"), "needs_approval": True}
    await define(live, agent("payer", [calls(("wire", {"to": "acme"})), {"text": "paid"}], [gated]))
    await define(
        live,
        agent(
            "manager",
            [calls(("pay", {"input": "pay acme"})), {"text": "ok"}],
            [agent_tool("pay", "payer")],
        ),
    )
    run_id = await queue(live, "mgr-1", "manager")
    parent = await wait_status(live, run_id, {"awaiting_children"})
    assert parent["pending_approvals"] == []
    [child] = await children_of(live, run_id)
    child = await wait_status(live, child["id"], {"awaiting_approval"})
    [approval] = (await get_json(live, "/v1/approvals?status=pending"))["items"]
    assert approval["run_id"] == child["id"]
    assert [(p["run_id"], p["agent_id"]) for p in approval["parent_chain"]] == [(run_id, "manager")]
    assert approval["parent_chain"][0]["tool_call_id"] == child["parent_tool_call_id"]

    response = await live.post(f"/v1/runs/{run_id}/cancel")
    assert response.status_code == 200, response.text
    assert (await wait_status(live, run_id, {"cancelled"}))["status"] == "cancelled"
    assert (await wait_status(live, child["id"], {"cancelled"}))["status"] == "cancelled"
    [result] = [m for m in await transcript(live, "mgr-1") if m["role"] == "tool"]
    assert result["content"]["error"] == "cancelled"


async def test_child_approval__decided_the_child_ends_and_wakes_its_parent(
    live: httpx.AsyncClient,
) -> None:
    gated = {**python_tool("wire", "echo"), "needs_approval": True}
    await define(live, agent("payer", [calls(("wire", {"to": "acme"})), {"text": "paid"}], [gated]))
    await define(
        live,
        agent(
            "manager",
            [calls(("pay", {"input": "pay"})), {"text": "ok"}],
            [agent_tool("pay", "payer")],
        ),
    )
    run_id = await queue(live, "mgr-2", "manager")
    await wait_status(live, run_id, {"awaiting_children"})
    [child] = await children_of(live, run_id)
    await wait_status(live, child["id"], {"awaiting_approval"})
    [approval] = (await get_json(live, "/v1/approvals?status=pending"))["items"]
    decided = await live.post(f"/v1/approvals/{approval['id']}/decision", json={"approved": True})
    assert decided.status_code == 200, decided.text
    run = await wait_status(live, run_id, {"finished", "failed"})
    assert run["status"] == "finished", run
    [result] = [m for m in await transcript(live, "mgr-2") if m["role"] == "tool"]
    assert result["content"]["output"] == "paid"


async def test_definition__an_unknown_sub_agent_is_refused(api: httpx.AsyncClient) -> None:
    response = await api.post(
        "/v1/agents", json=agent("lonely", [{"text": "x"}], [agent_tool("ask", "nobody")])
    )
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["loc"] == ["body", "tools", "0", "executor", "agent_id"]


async def test_children_count_toward_the_parents_budget(live: httpx.AsyncClient) -> None:
    """Two children started together share what is left of the parent's budget, and
    their spend counts when the parent checks its own: the tree stays within it."""
    helper = [calls(("noop", {})), {"text": "helped"}]  # two model calls if let
    await define(live, agent("helper", helper, [python_tool("noop", "noop")]))
    boss = agent(
        "frugal",
        [calls(("help", {"input": "a"}), ("help", {"input": "b"})), {"text": "done"}],
        [agent_tool("help", "helper")],
        budget={"max_model_calls": 4},
    )
    await define(live, boss)
    run_id = await queue(live, "frugal-1", "frugal")
    run = await wait_status(live, run_id, {"finished", "failed"})

    children = await children_of(live, run_id)
    # 4 - 1 (the parent's first call) = 3 left, for two: 1 model call each.
    assert [c["budget"]["max_model_calls"] for c in children] == [1, 1]
    assert [(c["status"], c["finish_reason"]) for c in children] == [
        ("finished", "budget_exceeded"),
        ("finished", "budget_exceeded"),
    ]
    assert (run["status"], run["finish_reason"]) == ("finished", "stop")
    # The parent's own 2 and its children's 1 each: within the parent's 4.
    assert run["usage_with_children"]["model_calls"] == 4


async def test_children_spend_stops_the_parent_at_its_budget(live: httpx.AsyncClient) -> None:
    """A child's spend counts when its parent checks its budget before its next call."""
    await define(live, agent("spender", [{"text": "spent", "input_tokens": 1000}], []))
    boss = agent(
        "watched",
        [calls(("spend", {"input": "x"})), {"text": "never said"}],
        [agent_tool("spend", "spender")],
        budget={"max_input_tokens": 1000},
    )
    await define(live, boss)
    run_id = await queue(live, "watched-1", "watched")
    run = await wait_status(live, run_id, {"finished", "failed"})
    assert (run["status"], run["finish_reason"]) == ("finished", "budget_exceeded")
    assert run["budget_exceeded"]["limit"] == "max_input_tokens"
