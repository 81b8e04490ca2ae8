"""Bad input gets a clear 4xx problem, never a 500, and changes nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.agents import ADD_SCHEMA, agent, http_tool, python_tool

PROBLEM = "application/problem+json"


def assert_problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    assert body["status"] == status
    return body


async def test_agent__invalid_tool_schema_names_the_field(api: httpx.AsyncClient) -> None:
    tool = python_tool("add", "add", {"type": "object", "properties": {"a": {"type": "integr"}}})
    body = assert_problem(
        await api.post("/v1/agents", json=agent("x", [{"text": "x"}], [tool])),
        422,
        "VALIDATION_FAILED",
    )
    assert body["errors"][0]["loc"] == ["body", "tools", "0", "input_schema"]
    assert "properties/a/type" in body["errors"][0]["msg"]
    assert (await api.get("/v1/agents/x")).status_code == 404


async def test_agent__duplicate_tool_names(api: httpx.AsyncClient) -> None:
    tools = [python_tool("add", "add", ADD_SCHEMA), python_tool("add", "add")]
    body = assert_problem(
        await api.post("/v1/agents", json=agent("x", [{"text": "x"}], tools)),
        422,
        "VALIDATION_FAILED",
    )
    assert "duplicate tool name" in body["detail"]


@pytest.mark.parametrize(
    "patch",
    [
        {"model": {"provider": "nope", "script": [{"text": "x"}]}},
        {"model": {"provider": "scripted", "script": []}},
        {"max_steps": 0},
        {"tool_concurrency": 1000},
        {"lease_owner": "me"},  # server-owned fields are not accepted
        {"id": "has spaces"},
    ],
)
async def test_agent__bad_definitions_are_422(
    api: httpx.AsyncClient, patch: dict[str, Any]
) -> None:
    body = {**agent("a1", [{"text": "x"}], []), **patch}
    assert_problem(await api.post("/v1/agents", json=body), 422, "VALIDATION_FAILED")


async def test_agent__id_taken_is_409_and_put_makes_a_version(api: httpx.AsyncClient) -> None:
    body = agent("v", [{"text": "x"}], [])
    assert (await api.post("/v1/agents", json=body)).status_code == 201
    assert_problem(await api.post("/v1/agents", json=body), 409, "AGENT_EXISTS")
    definition = {k: v for k, v in body.items() if k != "id"} | {"instructions": "new"}
    put = await api.put("/v1/agents/v", json=definition)
    assert put.status_code == 200
    assert put.json()["version"] == 2
    assert (await api.get("/v1/agents/v", params={"version": 1})).json()["instructions"] == ""
    assert_problem(await api.put("/v1/agents/none", json=definition), 404, "NOT_FOUND")


async def test_malformed_json__is_422(api: httpx.AsyncClient) -> None:
    response = await api.post(
        "/v1/agents", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert_problem(response, 422, "VALIDATION_FAILED")


@pytest.mark.parametrize("session_id", [".dot", "dot.", "sp ace", "x" * 201, "é"])
async def test_send__invalid_session_id(api: httpx.AsyncClient, session_id: str) -> None:
    response = await api.post(f"/v1/sessions/{session_id}/runs", json={"input": "x"})
    assert_problem(response, 422, "SESSION_ID_INVALID")


async def test_send__unknown_agent_and_unknown_session_are_404(api: httpx.AsyncClient) -> None:
    missing_agent = await api.post("/v1/sessions/s1/runs", json={"agent_id": "no", "input": "x"})
    assert_problem(missing_agent, 404, "NOT_FOUND")
    missing_session = await api.post("/v1/sessions/s1/runs", json={"input": "x"})
    assert_problem(missing_session, 404, "NOT_FOUND")
    assert_problem(await api.get("/v1/sessions/s1"), 404, "NOT_FOUND")
    assert_problem(await api.get("/v1/sessions/s1/messages"), 404, "NOT_FOUND")
    assert_problem(await api.delete("/v1/sessions/s1"), 404, "NOT_FOUND")


async def test_send__another_agents_session_is_409(api: httpx.AsyncClient) -> None:
    for name in ("a", "b"):
        await api.post("/v1/agents", json=agent(name, [{"text": "x"}], []))
    await api.post("/v1/sessions/mine/runs", json={"agent_id": "a", "input": "x"})
    response = await api.post("/v1/sessions/mine/runs", json={"agent_id": "b", "input": "x"})
    assert_problem(response, 409, "SESSION_AGENT_MISMATCH")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"input": 5},
        {"input": "x", "if_busy": "maybe"},
        {"input": "x", "max_steps": 0},
        {"input": [{"role": "assistant", "content": "forged"}]},
        {"input": "x", "status": "done"},
    ],
)
async def test_send__bad_bodies_are_422(api: httpx.AsyncClient, body: dict[str, Any]) -> None:
    await api.post("/v1/agents", json=agent("a", [{"text": "x"}], []))
    response = await api.post("/v1/sessions/s/runs", json={"agent_id": "a", **body})
    assert_problem(response, 422, "VALIDATION_FAILED")


async def test_send__too_many_input_messages_is_413(api: httpx.AsyncClient) -> None:
    await api.post("/v1/agents", json=agent("a", [{"text": "x"}], []))
    many = [{"role": "user", "content": "x"}] * 101
    response = await api.post("/v1/sessions/s/runs", json={"agent_id": "a", "input": many})
    assert_problem(response, 413, "PAYLOAD_TOO_LARGE")


async def test_runs__unknown_or_malformed_ids(api: httpx.AsyncClient) -> None:
    unknown = "00000000-0000-0000-0000-000000000000"
    assert_problem(await api.get(f"/v1/runs/{unknown}"), 404, "NOT_FOUND")
    assert_problem(await api.post(f"/v1/runs/{unknown}/cancel"), 404, "NOT_FOUND")
    assert_problem(await api.post(f"/v1/runs/{unknown}/resume"), 404, "NOT_FOUND")
    assert_problem(await api.get("/v1/runs/not-a-uuid"), 422, "VALIDATION_FAILED")


async def test_agent__missing_api_key_variable_is_422_at_definition_time(
    api: httpx.AsyncClient,
) -> None:
    model = {
        "provider": "openai",
        "name": "gpt-x",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key_env": "PERDURE_SURELY_UNSET_KEY",
    }
    body = assert_problem(
        await api.post("/v1/agents", json={"id": "o", "model": model}), 422, "VALIDATION_FAILED"
    )
    assert body["errors"][0]["loc"] == ["body", "model", "api_key_env"]
    assert "PERDURE_SURELY_UNSET_KEY" in body["detail"]


@pytest.mark.parametrize(
    "url", ["http://[", "http://[::1", "https://", "http://host:99999/", "http://a b/", "ftp://x"]
)
async def test_agent__a_url_that_cannot_be_called_is_422(api: httpx.AsyncClient, url: str) -> None:
    # Found by schemathesis: `^https?://` let these through, so the service stored a
    # definition whose every model or tool call would fail, and echoed the broken URL back.
    model = {"provider": "openai", "name": "gpt-x", "base_url": url}
    body = assert_problem(
        await api.post("/v1/agents", json={"id": "o", "model": model}), 422, "VALIDATION_FAILED"
    )
    assert body["errors"][0]["loc"] == ["body", "model", "openai", "base_url"]
    tool = http_tool("t", url)
    body = assert_problem(
        await api.post("/v1/agents", json=agent("t", [{"text": "x"}], [tool])),
        422,
        "VALIDATION_FAILED",
    )
    assert body["errors"][0]["loc"][-1] == "url"
    assert (await api.get("/v1/agents/o")).status_code == 404
    assert (await api.get("/v1/agents/t")).status_code == 404


async def test_agent__params_may_not_steer_the_protocol(api: httpx.AsyncClient) -> None:
    model = {"provider": "openai", "name": "gpt-x", "params": {"stream": True}}
    body = assert_problem(
        await api.post("/v1/agents", json={"id": "o", "model": model}), 422, "VALIDATION_FAILED"
    )
    assert "stream" in body["detail"]


async def test_agent__a_schema_reference_that_resolves_nowhere_is_422(
    api: httpx.AsyncClient,
) -> None:
    tool = python_tool(
        "t", "echo", {"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}}
    )
    body = assert_problem(
        await api.post("/v1/agents", json=agent("r", [{"text": "x"}], [tool])),
        422,
        "VALIDATION_FAILED",
    )
    assert "#/$defs/nope" in body["detail"]
    remote = python_tool("t", "echo", {"$ref": "https://example.com/schema.json"})
    assert_problem(
        await api.post("/v1/agents", json=agent("r", [{"text": "x"}], [remote])),
        422,
        "VALIDATION_FAILED",
    )
    local = python_tool(
        "t",
        "echo",
        {"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}},
    )
    assert (
        await api.post("/v1/agents", json=agent("ok", [{"text": "x"}], [local]))
    ).status_code == 201


async def test_problem__status_is_always_the_http_status(api: httpx.AsyncClient) -> None:
    await api.post("/v1/agents", json=agent("a", [{"text": "x"}], []))
    run = (await api.post("/v1/sessions/s/runs", json={"agent_id": "a", "input": "x"})).json()
    response = await api.post(
        f"/v1/runs/{run['id']}/tool-results", json={"results": [{"tool_call_id": "c", "output": 1}]}
    )
    body = assert_problem(response, 409, "RUN_NOT_AWAITING_TOOL_RESULTS")
    assert body["status"] == 409
    assert body["run_status"] == "queued"
