"""Checkpoint history, forks, compare, agent versions and drift, retention."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import httpx

from app.store.retention import prune
from tests import pg
from tests.agents import ADD_SCHEMA, agent, calls, python_tool
from tests.conftest import wait_status
from tests.crash.harness import ROOT
from tests.support import define, run_to_rest

ADD = python_tool("add", "add", ADD_SCHEMA)
TWO_STEPS = [calls(("add", {"a": 2, "b": 3})), {"text": "2 + 3 = 5"}, {"text": "more"}]


async def checkpoints(client: httpx.AsyncClient, session: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = (
        await client.get(f"/v1/sessions/{session}/checkpoints", params={"limit": 500})
    ).json()["items"]
    return items


# -- history -----------------------------------------------------------------------------


async def test_checkpoints__every_save_newest_first_each_rebuilt_exactly(
    live: httpx.AsyncClient,
) -> None:
    await define(live, agent("h", TWO_STEPS, [ADD], instructions="SYS"))
    await run_to_rest(live, "h-1", {"agent_id": "h", "input": "add"})
    saves = await checkpoints(live, "h-1")
    # input, turn 1 with its call, the call's result, the final turn
    assert [(c["seq"], c["step"], c["status"]) for c in saves] == [
        (4, 2, "finished"),
        (3, 1, "running"),
        (2, 1, "running"),
        (1, 0, "running"),
    ]
    assert [c["message_count"] for c in saves] == [5, 4, 3, 2]
    assert len({c["fingerprint"] for c in saves}) == 1

    turn = (await live.get("/v1/sessions/h-1/checkpoints/2")).json()
    assert [m["role"] for m in turn["messages"]] == ["system", "user", "assistant"]
    assert turn["messages"][2]["tool_calls"][0]["name"] == "add"  # pending: no result yet
    result = (await live.get("/v1/sessions/h-1/checkpoints/3")).json()
    assert [m["role"] for m in result["messages"]] == ["system", "user", "assistant", "tool"]
    assert result["messages"][3]["content"] == {"result": 5}

    page = (await live.get("/v1/sessions/h-1/checkpoints", params={"limit": 3})).json()
    rest = (
        await live.get(
            "/v1/sessions/h-1/checkpoints", params={"limit": 3, "cursor": page["next_cursor"]}
        )
    ).json()
    assert [c["seq"] for c in page["items"] + rest["items"]] == [4, 3, 2, 1]
    missing = await live.get("/v1/sessions/h-1/checkpoints/99")
    assert (missing.status_code, missing.json()["code"]) == (404, "CHECKPOINT_NOT_FOUND")


# -- forks and compare -------------------------------------------------------------------


async def test_fork__from_a_step_replays_and_leaves_the_source_untouched(
    live: httpx.AsyncClient, database_url: str
) -> None:
    await define(live, agent("f", TWO_STEPS, [ADD]))
    await run_to_rest(live, "trip", {"agent_id": "f", "input": "add"})
    source_saves = await checkpoints(live, "trip")

    made = await live.post("/v1/sessions/trip/forks", json={"from_step": 1})
    assert made.status_code == 201, made.text
    fork = made.json()
    assert fork["session_id"] == "trip.fork-1"
    assert fork["from_checkpoint_seq"] == 3  # the newest save of step 1
    assert fork["run"]["steps"] == 1  # the step count is kept
    done = await wait_status(live, fork["run"]["id"], {"finished"})
    assert done["output"] == "2 + 3 = 5"
    assert done["usage"]["model_calls"] == 2  # 1 kept + 1 new
    assert await checkpoints(live, "trip") == source_saves
    # The copied prefix was made by SQL in the database, not re-run: one add call only.
    assert pg.rows(database_url, "SELECT count(DISTINCT tool_call_id) FROM tool_calls") == [(1,)]

    second = await live.post("/v1/sessions/trip/forks", json={"from_step": 0})
    assert second.json()["session_id"] == "trip.fork-2"
    taken = await live.post(
        "/v1/sessions/trip/forks", json={"from_step": 0, "session_id": "trip.fork-1"}
    )
    assert (taken.status_code, taken.json()["code"]) == (409, "SESSION_EXISTS")
    unknown = await live.post("/v1/sessions/trip/forks", json={"from_step": 7})
    assert (unknown.status_code, unknown.json()["code"]) == (404, "CHECKPOINT_NOT_FOUND")
    assert unknown.json()["steps"] == [0, 1, 2]


async def test_fork__patched_tool_result_diverges_and_compare_says_where(
    live: httpx.AsyncClient,
) -> None:
    await define(
        live,
        agent(
            "w",
            [calls(("add", {"a": 2, "b": 3})), calls(("add", {"a": 1, "b": 1})), {"text": "done"}],
            [ADD],
        ),
    )
    await run_to_rest(live, "plan", {"agent_id": "w", "input": "plan"})
    call_id = next(
        m
        for m in (await live.get("/v1/sessions/plan/messages")).json()["items"]
        if m["role"] == "tool"
    )["tool_call_id"]

    fork = (
        await live.post(
            "/v1/sessions/plan/forks",
            json={
                "from_step": 1,
                "patch": {"tool_result": {"tool_call_id": call_id, "result": {"result": 99}}},
            },
        )
    ).json()
    await wait_status(live, fork["run"]["id"], {"finished"})
    items = (await live.get(f"/v1/sessions/{fork['session_id']}/messages")).json()["items"]
    assert [m["content"] for m in items if m["role"] == "tool"] == [{"result": 99}, {"result": 2}]

    same = (await live.get("/v1/sessions/plan/compare", params={"with": "plan"})).json()
    assert same["diverged_at"] is None
    compared = (
        await live.get("/v1/sessions/plan/compare", params={"with": fork["session_id"]})
    ).json()
    assert compared["diverged_at"] == 0  # the first step's result differs
    assert compared["drift"]["tool_order"] == []
    assert compared["drift"]["step_count"] is None
    assert len(compared["a"]["steps"]) == len(compared["b"]["steps"]) == 3

    longer = (
        await live.post(
            "/v1/sessions/plan/forks",
            json={"from_step": 3, "patch": {"append_input": "and again?"}},
        )
    ).json()
    await wait_status(live, longer["run"]["id"], {"finished"})
    extra = (
        await live.get("/v1/sessions/plan/compare", params={"with": longer["session_id"]})
    ).json()
    assert extra["diverged_at"] == 3
    assert extra["drift"]["step_count"] == {"a": 3, "b": 4}


async def test_fork__of_a_paused_run_asks_for_approval_again(live: httpx.AsyncClient) -> None:
    gated = {**python_tool("wire", "echo"), "needs_approval": True}
    await define(live, agent("p", [calls(("wire", {"to": "x"})), {"text": "sent"}], [gated]))
    paused = await run_to_rest(live, "pz", {"agent_id": "p", "input": "go"})
    assert paused["status"] == "awaiting_approval"

    fork = (await live.post("/v1/sessions/pz/forks", json={"from_step": 1})).json()
    again = await wait_status(live, fork["run"]["id"], {"awaiting_approval"})
    old_id = paused["pending_approvals"][0]["id"]
    new_id = again["pending_approvals"][0]["id"]
    assert new_id != old_id
    await live.post(f"/v1/approvals/{new_id}/decision", json={"approved": True})
    assert (await wait_status(live, fork["run"]["id"], {"finished"}))["output"] == "sent"
    source = (await live.get(f"/v1/runs/{paused['id']}")).json()
    assert source["status"] == "awaiting_approval"
    assert source["pending_approvals"][0]["id"] == old_id


async def test_fork__invalid_patches_are_422_and_create_nothing(live: httpx.AsyncClient) -> None:
    await define(live, agent("b", TWO_STEPS, [ADD]))
    await run_to_rest(live, "src", {"agent_id": "b", "input": "x"})
    bad_result = await live.post(
        "/v1/sessions/src/forks",
        json={"from_step": 1, "patch": {"tool_result": {"tool_call_id": "call_nope", "result": 1}}},
    )
    assert (bad_result.status_code, bad_result.json()["code"]) == (422, "VALIDATION_FAILED")
    assert "call_nope" in bad_result.json()["detail"]
    no_results = await live.post(
        "/v1/sessions/src/forks",
        json={
            "from_step": 1,
            "patch": {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [{"id": "c1", "name": "add", "arguments": {}}],
                    },
                ]
            },
        },
    )
    assert no_results.status_code == 422
    assert "no result" in no_results.json()["detail"]
    assert (await live.get("/v1/sessions/src.fork-1")).status_code == 404


async def test_fork__messages_patch_replaces_the_transcript(live: httpx.AsyncClient) -> None:
    await define(live, agent("m", [{"text": "first"}, {"text": "from the patch"}], []))
    await run_to_rest(live, "orig", {"agent_id": "m", "input": "x"})
    fork = (
        await live.post(
            "/v1/sessions/orig/forks",
            json={
                "from_step": 1,
                "patch": {
                    "messages": [
                        {"role": "user", "content": "rewritten"},
                        {
                            "role": "assistant",
                            "content": "",
                            "tool_calls": [
                                {"id": "c1", "name": "add", "arguments": {"a": 1, "b": 1}}
                            ],
                        },
                        {"role": "tool", "tool_call_id": "c1", "content": {"result": 2}},
                    ]
                },
            },
        )
    ).json()
    await wait_status(live, fork["run"]["id"], {"finished"})
    items = (await live.get(f"/v1/sessions/{fork['session_id']}/messages")).json()["items"]
    assert [(m["role"], m["content"]) for m in items] == [
        ("user", "rewritten"),
        ("assistant", ""),
        ("tool", {"result": 2}),
        ("assistant", "from the patch"),
    ]


async def test_fork__messages_patch_keeps_provider_ids_and_refuses_a_call_id_used_twice(
    live: httpx.AsyncClient,
) -> None:
    """Call ids are unique in a session (results, approvals and outputs name calls by
    them); the model's own ids need not be, and a patch may give them as they were."""
    await define(live, agent("p", [{"text": "first"}, {"text": "from the patch"}], [ADD]))
    await run_to_rest(live, "orig", {"agent_id": "p", "input": "x"})

    def turn(call_id: str, provider_id: str, result: int) -> list[dict[str, Any]]:
        call = {"id": call_id, "provider_call_id": provider_id, "name": "add", "arguments": {}}
        return [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call_id, "content": {"result": result}},
        ]

    reused = await live.post(
        "/v1/sessions/orig/forks",
        json={
            "from_step": 1,
            "patch": {
                "messages": [
                    {"role": "user", "content": "x"},
                    *turn("c1", "call_0", 1),
                    *turn("c1", "call_0", 2),
                ]
            },
        },
    )
    assert (reused.status_code, reused.json()["code"]) == (422, "VALIDATION_FAILED"), reused.text
    assert "'c1'" in reused.json()["detail"]
    assert (await live.get("/v1/sessions/orig.fork-1")).status_code == 404

    fork = await live.post(
        "/v1/sessions/orig/forks",
        json={
            "from_step": 1,
            "patch": {
                "messages": [
                    {"role": "user", "content": "x"},
                    *turn("c1", "call_0", 1),
                    *turn("c2", "call_0", 2),
                ]
            },
        },
    )
    assert fork.status_code == 201, fork.text
    await wait_status(live, fork.json()["run"]["id"], {"finished"})
    items = (await live.get("/v1/sessions/orig.fork-1/messages")).json()["items"]
    assert [(c["id"], c["provider_call_id"]) for m in items for c in m.get("tool_calls", [])] == [
        ("c1", "call_0"),
        ("c2", "call_0"),
    ]
    assert [m["tool_call_id"] for m in items if m["role"] == "tool"] == ["c1", "c2"]


# -- agent versions and drift ------------------------------------------------------------


async def test_drift__on_drift_error_warn_ignore(live: httpx.AsyncClient) -> None:
    v1 = agent("d", [{"text": "one"}, {"text": "two"}, {"text": "three"}], [ADD])
    await define(live, v1)
    await run_to_rest(live, "ds", {"agent_id": "d", "input": "x"})
    v2 = {k: v for k, v in v1.items() if k != "id"} | {
        "instructions": "changed",
        "tools": [python_tool("add", "add", {"type": "object"}), python_tool("echo", "echo")],
    }
    assert (await live.put("/v1/agents/d", json=v2)).status_code == 200

    refused = await live.post(
        "/v1/sessions/ds/runs", json={"input": "y", "agent_version": "latest", "on_drift": "error"}
    )
    assert (refused.status_code, refused.json()["code"]) == (409, "AGENT_DRIFT")
    assert refused.json()["changes"] == {
        "tools_added": ["echo"],
        "tools_changed": ["add"],
        "instructions": True,
    }
    session = (await live.get("/v1/sessions/ds")).json()
    assert (session["agent_version"], session["run_count"]) == (1, 1)

    pinned = await run_to_rest(live, "ds", {"input": "same version"})
    assert pinned["agent_version"] == 1  # a session keeps its version by default
    warned = await run_to_rest(live, "ds", {"input": "y", "agent_version": "latest"})
    assert warned["agent_version"] == 2
    events = (await live.get(f"/v1/runs/{warned['id']}/events")).json()["items"]
    assert [e["type"] for e in events][:2] == ["agent.drift", "run.queued"]
    assert events[0]["data"]["tools_added"] == ["echo"]
    pinned_events = (await live.get(f"/v1/runs/{pinned['id']}/events")).json()["items"]
    assert "agent.drift" not in [e["type"] for e in pinned_events]
    assert (await live.get("/v1/sessions/ds")).json()["agent_version"] == 2


async def test_drift__a_pending_call_whose_tool_is_gone_is_409_whatever_on_drift(
    live: httpx.AsyncClient,
) -> None:
    client_tool = {
        "name": "lookup",
        "input_schema": {"type": "object"},
        "executor": {"type": "client"},
    }
    v1 = agent("t", [calls(("lookup", {})), {"text": "x"}], [client_tool])
    await define(live, v1)
    paused = await run_to_rest(live, "ts", {"agent_id": "t", "input": "x"})
    assert paused["status"] == "awaiting_tool_results"
    v2 = {k: v for k, v in v1.items() if k != "id"} | {"tools": [ADD]}
    await live.put("/v1/agents/t", json=v2)
    response = await live.post(
        "/v1/sessions/ts/runs", json={"input": "y", "agent_version": "latest", "on_drift": "ignore"}
    )
    assert (response.status_code, response.json()["code"]) == (409, "RESUME_TOOL_MISSING")
    assert response.json()["tools"] == ["lookup"]


# -- retention ---------------------------------------------------------------------------


async def test_retention__prunes_only_finished_sessions(
    api: httpx.AsyncClient, live: httpx.AsyncClient, engine: Any, database_url: str
) -> None:
    await define(live, agent("r", [{"text": "x"}], []))
    await run_to_rest(live, "done", {"agent_id": "r", "input": "x"})
    client_tool = {"name": "lookup", "executor": {"type": "client"}}
    await define(live, agent("u", [calls(("lookup", {})), {"text": "x"}], [client_tool]))
    await run_to_rest(live, "waiting", {"agent_id": "u", "input": "x"})

    async with engine.begin() as conn:
        kept_recent = await prune(conn, older_than_s=3600)
    assert kept_recent.sessions == 0
    command = [
        sys.executable,
        "-m",
        "app.cli",
        "prune",
        "--older-than-days",
        "0",
        "--database-url",
        database_url,
    ]
    result = await asyncio.to_thread(
        subprocess.run, command, cwd=ROOT, capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "pruned the history of 1 finished sessions" in result.stdout
    assert pg.rows(database_url, "SELECT session_id, count(*) FROM checkpoints GROUP BY 1") == [
        ("waiting", 3)
    ]
    assert (await live.get("/v1/sessions/done/messages")).json()["items"]  # transcript stays


async def test_fork__of_a_run_awaiting_a_client_tool_takes_its_output(
    live: httpx.AsyncClient,
) -> None:
    """Review finding: the copied call belongs to the source run, and the fork's run must
    still list it as awaited and accept its output."""
    client_tool = {
        "name": "lookup",
        "input_schema": {"type": "object"},
        "executor": {"type": "client"},
    }
    await define(
        live, agent("cf", [calls(("lookup", {})), {"text": "from the fork"}], [client_tool])
    )
    paused = await run_to_rest(live, "cs", {"agent_id": "cf", "input": "x"})
    assert paused["status"] == "awaiting_tool_results"
    fork = (await live.post("/v1/sessions/cs/forks", json={"from_step": 1})).json()
    waiting = await wait_status(live, fork["run"]["id"], {"awaiting_tool_results"})
    call_id = paused["pending_tool_calls"][0]["tool_call_id"]
    assert [c["tool_call_id"] for c in waiting["pending_tool_calls"]] == [call_id]
    posted = await live.post(
        f"/v1/runs/{fork['run']['id']}/tool-results",
        json={"results": [{"tool_call_id": call_id, "output": "ok"}]},
    )
    assert posted.status_code == 200, posted.text
    done = await wait_status(live, fork["run"]["id"], {"finished"})
    assert done["output"] == "from the fork"
