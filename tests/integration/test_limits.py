"""Limits a careless or hostile client cannot get past: each is a 413/422 problem."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.agents import agent, python_tool

LISTS = [
    "/v1/runs",
    "/v1/approvals",
    "/v1/sessions/s/messages",
    "/v1/sessions/s/checkpoints",
    "/v1/runs/00000000-0000-0000-0000-000000000000/events",
]


@pytest.mark.parametrize("path", LISTS)
async def test_every_list__caps_its_page_size(api: httpx.AsyncClient, path: str) -> None:
    response = await api.get(path, params={"limit": 501})
    assert response.status_code == 422
    assert response.json()["code"] == "VALIDATION_FAILED"


async def test_agent__at_most_128_tools(api: httpx.AsyncClient) -> None:
    tools = [python_tool(f"t{i}", "noop") for i in range(129)]
    response = await api.post("/v1/agents", json=agent("many", [{"text": "x"}], tools))
    assert (response.status_code, response.json()["code"]) == (422, "VALIDATION_FAILED")
    assert (
        await api.post("/v1/agents", json=agent("ok", [{"text": "x"}], tools[:128]))
    ).status_code == 201


@pytest.mark.parametrize(
    ("method", "path", "body", "headers", "code"),
    [
        ("POST", "/v1/agents", {**agent("a" * 201, [{"text": "x"}], [])}, {}, "VALIDATION_FAILED"),
        ("POST", "/v1/sessions/" + "s" * 201 + "/runs", {"input": "x"}, {}, "SESSION_ID_INVALID"),
        (
            "POST",
            "/v1/sessions/s/runs",
            {"input": "x", "agent_id": "a"},
            {"Idempotency-Key": "k" * 201},
            "VALIDATION_FAILED",
        ),
        ("GET", "/v1/runs?session_id=" + "s" * 201, None, {}, "SESSION_ID_INVALID"),
        (
            "POST",
            "/v1/agents",
            agent("t", [{"text": "x"}], [python_tool("n" * 65, "noop")]),
            {},
            "VALIDATION_FAILED",
        ),
    ],
    ids=["agent-id", "session-id", "idempotency-key", "session-filter", "tool-name"],
)
async def test_strings_that_land_in_an_index__are_bounded(
    api: httpx.AsyncClient,
    method: str,
    path: str,
    body: dict[str, Any] | None,
    headers: dict[str, str],
    code: str,
) -> None:
    response = await api.request(method, path, json=body, headers=headers)
    assert response.status_code == 422, response.text
    assert response.json()["code"] == code


async def test_input__message_count_and_body_size(api: httpx.AsyncClient) -> None:
    await api.post("/v1/agents", json=agent("a", [{"text": "x"}], []))
    many = await api.post(
        "/v1/sessions/s/runs", json={"agent_id": "a", "input": [{"content": "x"}] * 101}
    )
    assert (many.status_code, many.json()["code"]) == (413, "PAYLOAD_TOO_LARGE")
    huge = await api.post("/v1/sessions/s/runs", json={"agent_id": "a", "input": "x" * 1_100_000})
    assert (huge.status_code, huge.json()["code"]) == (413, "PAYLOAD_TOO_LARGE")

    async def stream() -> Any:  # no Content-Length: the limit must count what arrives
        for chunk in (b'{"id": "c", "instructions": "', b"x" * 1_100_000, b'"}'):
            yield chunk

    chunked = await api.post(
        "/v1/agents", content=stream(), headers={"content-type": "application/json"}
    )
    assert (chunked.status_code, chunked.json()["code"]) == (413, "PAYLOAD_TOO_LARGE")
    assert (await api.get("/v1/runs", params={"session_id": "s"})).json()["items"] == []


async def test_deeply_nested_json__is_refused_not_a_crash(api: httpx.AsyncClient) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    response = await api.post(
        "/v1/sessions/s/runs", content=deep.encode(), headers={"content-type": "application/json"}
    )
    assert response.status_code in (413, 422)
    assert response.headers["content-type"] == "application/problem+json"


async def test_unstorable_text__is_422_not_500(api: httpx.AsyncClient) -> None:
    await api.post("/v1/agents", json=agent("a", [{"text": "x"}], []))
    for text in ('"\\ud800 lone surrogate"', '"NUL \\u0000 inside"'):
        body = '{"agent_id": "a", "input": ' + text + "}"
        response = await api.post(
            "/v1/sessions/u/runs",
            content=body.encode(),
            headers={"content-type": "application/json"},
        )
        assert (response.status_code, response.json()["code"]) == (422, "VALIDATION_FAILED")
    assert (await api.get("/v1/runs", params={"session_id": "u"})).json()["items"] == []
