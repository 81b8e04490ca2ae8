"""Budgets through the API, a real worker pool and Postgres: each limit ends its run
`finished`/`budget_exceeded` saying which, and holds across a hand-back, a resume and a
fork; a session's budget covers all its runs; bad budgets are 422s that change nothing.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from app.domain.principal import ALL_SCOPES, Scope
from app.settings import Settings
from app.worker.pool import WorkerPool
from tests.agents import agent, calls, python_tool
from tests.conftest import wait_status
from tests.integration.test_tenancy import bearer, make_key
from tests.support import define, get_json, run_to_rest, transcript

pytestmark = pytest.mark.timeout(90)

# 1 $/Mtok in, 2 $/Mtok out: a reply of 100 in and 50 out costs 0.0002 $.
PRICE = {"input_per_mtok": 1.0, "output_per_mtok": 2.0}
ECHO = python_tool("echo", "echo")
SLEEP = python_tool("sleep", "sleep")


def looping(tool: str = "echo", arguments: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """A script that asks for a call at every turn, for longer than any budget here."""
    turn = {**calls((tool, arguments or {})), "input_tokens": 100, "output_tokens": 50}
    return [turn] * 12 + [{"text": "done"}]


def budgeted_agent(agent_id: str, budget: dict[str, Any], **extra: Any) -> dict[str, Any]:
    body = agent(agent_id, looping(), [ECHO, SLEEP], budget=budget, max_steps=12, **extra)
    body["model"]["price"] = PRICE
    return body


def results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m["role"] == "tool"]


async def events(client: httpx.AsyncClient, run_id: str) -> list[dict[str, Any]]:
    """The run's budget events, and that the run's last event says it finished."""
    items: list[dict[str, Any]] = (await get_json(client, f"/v1/runs/{run_id}/events"))["items"]
    assert items[-1]["type"] == "run.finished"
    return [e for e in items if e["type"] == "run.budget_exceeded"]


def assert_ended_by(run: dict[str, Any], limit: str, scope: str = "run") -> dict[str, Any]:
    assert run["status"] == "finished", run
    assert run["finish_reason"] == "budget_exceeded", run
    exceeded: dict[str, Any] = run["budget_exceeded"]
    assert (exceeded["scope"], exceeded["limit"]) == (scope, limit), exceeded
    assert exceeded["used"] >= exceeded["max"]
    return exceeded


@pytest.mark.parametrize(
    ("budget", "model_calls", "tool_calls"),
    [
        ({"max_model_calls": 2}, 2, 2),
        ({"max_tool_calls": 3}, 3, 3),
        # Reached by the second reply: its call does not start.
        ({"max_input_tokens": 200}, 2, 1),
        ({"max_output_tokens": 100}, 2, 1),
        ({"max_cost_usd": 0.0004}, 2, 1),
    ],
)
async def test_budget__each_limit_ends_the_run_saying_which__with_an_event(
    live: httpx.AsyncClient, budget: dict[str, Any], model_calls: int, tool_calls: int
) -> None:
    (limit,) = budget
    await define(live, budgeted_agent("b", budget))

    run = await run_to_rest(live, "s", {"agent_id": "b", "input": "go"})

    exceeded = assert_ended_by(run, limit)
    assert exceeded["max"] == budget[limit]
    assert run["budget"][limit] == budget[limit]
    assert run["usage"]["model_calls"] == model_calls
    assert run["usage"]["tool_calls"] == tool_calls
    assert run["usage"]["cost_usd"] == pytest.approx(0.0002 * model_calls)
    assert len(results(await transcript(live, "s"))) == tool_calls
    assert [(e["type"], e["data"]) for e in await events(live, run["id"])] == [
        ("run.budget_exceeded", exceeded)
    ]


async def test_budget__wall_time_ends_the_run(live: httpx.AsyncClient) -> None:
    body = agent(
        "w",
        looping("sleep", {"seconds": 0.4}),
        [SLEEP],
        budget={"max_wall_time_s": 0.6},
        max_steps=12,
    )
    await define(live, body)

    run = await run_to_rest(live, "s", {"agent_id": "w", "input": "go"})

    # 0.4 s after the first call, under 0.6: a second model call; past 0.6 after its call.
    assert_ended_by(run, "max_wall_time_s")
    assert run["usage"]["model_calls"] == 2
    assert run["usage"]["wall_time_s"] >= 0.6


async def test_budget__wall_time_excludes_time_paused_for_a_client_tool(
    live: httpx.AsyncClient,
) -> None:
    """Paused for 1.5 s (past the 1 s budget) awaiting a client tool's output: the run
    goes on once it arrives, since nobody drove it meanwhile."""
    client_tool = {"name": "ask", "executor": {"type": "client"}}
    script = [calls(("ask", {})), calls(("sleep", {"seconds": 0.2})), {"text": "done"}]
    await define(live, agent("p", script, [client_tool, SLEEP], budget={"max_wall_time_s": 1}))
    run = await run_to_rest(live, "s", {"agent_id": "p", "input": "go"})
    assert run["status"] == "awaiting_tool_results"
    await asyncio.sleep(1.5)

    call_id = run["pending_tool_calls"][0]["tool_call_id"]
    response = await live.post(
        f"/v1/runs/{run['id']}/tool-results",
        json={"results": [{"tool_call_id": call_id, "output": "yes"}]},
    )
    assert response.status_code == 200, response.text
    run = await wait_status(live, run["id"], {"finished"})

    assert run["finish_reason"] == "stop", run
    assert 0.2 <= run["usage"]["wall_time_s"] < 1


async def test_budget__a_send_overrides_the_agents__a_raise_needs_agents_write(
    live: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    admin = bearer(await make_key(engine, "t1", ALL_SCOPES))
    sender = bearer(await make_key(engine, "t1", frozenset({Scope.RUNS_READ, Scope.RUNS_WRITE})))
    response = await live.post(
        "/v1/agents", json=budgeted_agent("b", {"max_model_calls": 2}), headers=admin
    )
    assert response.status_code == 201, response.text

    async def send(session: str, body: dict[str, Any], key: dict[str, str]) -> httpx.Response:
        return await live.post(
            f"/v1/sessions/{session}/runs",
            params={"wait": 20},
            json={"agent_id": "b", "input": "go", **body},
            headers=key,
        )

    raised = await send("s1", {"budget": {"max_model_calls": 4}}, sender)
    assert raised.status_code == 403, raised.text
    assert raised.json()["code"] == "FORBIDDEN"
    assert raised.json()["limits"] == ["max_model_calls"]
    assert (await live.get("/v1/sessions/s1", headers=admin)).status_code == 404

    lowered = await send("s2", {"budget": {"max_model_calls": 1}}, sender)
    assert lowered.status_code == 200, lowered.text
    assert_ended_by(lowered.json(), "max_model_calls")
    assert lowered.json()["usage"]["model_calls"] == 1

    raised = await send("s3", {"budget": {"max_model_calls": 4, "max_tool_calls": 9}}, admin)
    assert raised.status_code == 200, raised.text
    assert raised.json()["budget"]["max_model_calls"] == 4
    assert raised.json()["usage"]["model_calls"] == 4


async def test_session_budget__covers_all_runs__then_409_until_raised(
    live: httpx.AsyncClient,
) -> None:
    body = budgeted_agent("b", {"max_model_calls": 2}, session_budget={"max_tool_calls": 3})
    await define(live, body)

    first = await run_to_rest(live, "s", {"agent_id": "b", "input": "go"})
    assert_ended_by(first, "max_model_calls")  # its own budget: 2 calls, 2 tools
    second = await run_to_rest(live, "s", {"input": "more"})
    # The session's third tool call ran; the next model call would pass the session's.
    exceeded = assert_ended_by(second, "max_tool_calls", scope="session")
    assert exceeded == {"scope": "session", "limit": "max_tool_calls", "max": 3, "used": 3}
    assert second["usage"]["tool_calls"] == 1

    refused = await live.post("/v1/sessions/s/runs", json={"input": "again"})
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "SESSION_BUDGET_EXHAUSTED"
    assert refused.json()["budget_exceeded"] == exceeded
    session = await get_json(live, "/v1/sessions/s")
    assert session["run_count"] == 2
    assert session["usage"]["tool_calls"] == 3
    assert session["budget"]["max_tool_calls"] == 3

    # A raised session budget (kept for later sends) lets the session go on.
    third = await run_to_rest(
        live, "s", {"input": "go on", "session_budget": {"max_tool_calls": 4}}
    )
    assert_ended_by(third, "max_tool_calls", scope="session")
    assert third["usage"]["tool_calls"] == 1
    session = await get_json(live, "/v1/sessions/s")
    assert (session["budget"]["max_tool_calls"], session["usage"]["tool_calls"]) == (4, 4)
    assert len(results(await transcript(live, "s"))) == 4

    usage = await get_json(live, "/v1/agents/b/usage")
    assert (usage["sessions"], usage["runs"]) == (1, 3)
    assert usage["usage"] == session["usage"]


async def test_budget__a_handed_back_run_continues_from_its_saved_usage(
    api: httpx.AsyncClient, settings: Settings
) -> None:
    """Its worker stops mid-run and hands it back; another worker resumes it. Had the
    second started from no usage it would run three more calls, not what was left."""
    body = agent(
        "h",
        looping("sleep", {"seconds": 0.3}),
        [SLEEP],
        budget={"max_tool_calls": 3},
        max_steps=12,
    )
    await define(api, body)
    response = await api.post("/v1/sessions/s/runs", json={"agent_id": "h", "input": "go"})
    run_id = response.json()["id"]

    first = WorkerPool(settings, concurrency=1)
    await first.start()
    deadline = time.monotonic() + 20
    while (await get_json(api, f"/v1/runs/{run_id}"))["usage"]["tool_calls"] < 1:
        assert time.monotonic() < deadline, "the first worker saved no tool call"
        await asyncio.sleep(0.05)
    await first.stop()
    handed_back = await get_json(api, f"/v1/runs/{run_id}")
    assert handed_back["status"] == "queued", handed_back
    done_before = handed_back["usage"]["tool_calls"]
    assert 1 <= done_before < 3

    second = WorkerPool(settings, concurrency=1)
    await second.start()
    try:
        run = await wait_status(api, run_id, {"finished", "failed"})
    finally:
        await second.stop()

    assert_ended_by(run, "max_tool_calls")
    assert run["usage"]["tool_calls"] == 3
    assert len(results(await transcript(api, "s"))) == 3
    assert run["usage"]["wall_time_s"] >= 0.9


async def test_budget__a_fork_continues_its_sources_usage_and_budget(
    live: httpx.AsyncClient,
) -> None:
    await define(live, budgeted_agent("b", {"max_model_calls": 3}))
    source = await run_to_rest(live, "s", {"agent_id": "b", "input": "go"})
    assert_ended_by(source, "max_model_calls")

    response = await live.post("/v1/sessions/s/forks", json={"from_step": 1})
    assert response.status_code == 201, response.text
    fork = response.json()
    run = await wait_status(live, fork["run"]["id"], {"finished", "failed"})

    # Saved at step 1: one model call spent, so two more, not three.
    assert_ended_by(run, "max_model_calls")
    assert run["budget"] == source["budget"]
    assert run["usage"]["model_calls"] == 3
    turns = [m for m in await transcript(live, fork["session_id"]) if m["role"] == "assistant"]
    assert len(turns) == 3


@pytest.mark.parametrize(
    ("body", "where"),
    [
        # The model has no price: the definition as a whole is refused, saying where.
        ({"budget": {"max_cost_usd": 1}}, "budget.max_cost_usd"),
        ({"session_budget": {"max_cost_usd": 1}}, "session_budget.max_cost_usd"),
        ({"budget": {"max_tool_calls": -1}}, "body.budget.max_tool_calls"),
        ({"budget": {"max_tokens": 5}}, "body.budget.max_tokens"),
        ({"budget": {"max_wall_time_s": "1h"}}, "body.budget.max_wall_time_s"),
    ],
)
async def test_budget__a_bad_budget_at_definition_is_422_and_defines_nothing(
    api: httpx.AsyncClient, body: dict[str, Any], where: str
) -> None:
    response = await api.post("/v1/agents", json=agent("bad", [{"text": "x"}], [], **body))

    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "VALIDATION_FAILED"
    assert where in problem["detail"], problem
    assert (await api.get("/v1/agents/bad")).status_code == 404


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"budget": {"max_cost_usd": 1}}, ["body", "budget", "max_cost_usd"]),
        ({"session_budget": {"max_cost_usd": 1}}, ["body", "session_budget", "max_cost_usd"]),
        ({"budget": {"max_model_calls": 1.5}}, ["body", "budget", "max_model_calls"]),
        ({"session_budget": []}, ["body", "session_budget"]),
    ],
)
async def test_budget__a_bad_budget_at_send_is_422_and_changes_nothing(
    api: httpx.AsyncClient, body: dict[str, Any], loc: list[str]
) -> None:
    await define(api, agent("unpriced", [{"text": "x"}], []))

    response = await api.post(
        "/v1/sessions/s/runs", json={"agent_id": "unpriced", "input": "go", **body}
    )

    assert response.status_code == 422, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    assert response.json()["errors"][0]["loc"][: len(loc)] == loc
    assert (await api.get("/v1/sessions/s")).status_code == 404
    assert (await get_json(api, "/v1/agents/unpriced/usage"))["runs"] == 0


async def test_usage__an_unknown_agent_is_404(api: httpx.AsyncClient) -> None:
    response = await api.get("/v1/agents/nobody/usage")

    assert response.status_code == 404
    assert response.json()["code"] == "NOT_FOUND"
