"""The service's API as the tests drive it: define an agent, send input, read what it did.

Each helper asserts the status its request must answer, so a test that gets another
fails there, with the body, instead of on a missing key later.
"""

from __future__ import annotations

from typing import Any

import httpx


async def define(client: httpx.AsyncClient, body: dict[str, Any]) -> None:
    """Define the agent `body` (its `id` included)."""
    response = await client.post("/v1/agents", json=body)
    assert response.status_code == 201, response.text


async def send(
    client: httpx.AsyncClient,
    session: str,
    body: dict[str, Any],
    *,
    wait: float = 20,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Send input, waiting up to `wait` s: the run at rest (200), or as it is (202)."""
    response = await client.post(
        f"/v1/sessions/{session}/runs", params={"wait": wait}, json=body, headers=headers
    )
    assert response.status_code in (200, 202), response.text
    run: dict[str, Any] = response.json()
    return run


async def run_to_rest(
    client: httpx.AsyncClient, session: str, body: dict[str, Any], *, wait: float = 20
) -> dict[str, Any]:
    """Send input and wait for the run to rest (finished, failed, paused): a 200."""
    response = await client.post(f"/v1/sessions/{session}/runs", params={"wait": wait}, json=body)
    assert response.status_code == 200, response.text
    run: dict[str, Any] = response.json()
    return run


async def queue(client: httpx.AsyncClient, session: str, agent_id: str, text: str = "go") -> str:
    """Send `text` to `session` with this agent without waiting (a 202): the run's id."""
    response = await client.post(
        f"/v1/sessions/{session}/runs", json={"agent_id": agent_id, "input": text}
    )
    assert response.status_code == 202, response.text
    run_id: str = response.json()["id"]
    return run_id


async def define_and_send(client: httpx.AsyncClient, body: dict[str, Any], session: str) -> str:
    """Define the agent `body`, send "go" to `session` with it; the queued run's id."""
    await define(client, body)
    return await queue(client, session, body["id"])


async def get_json(client: httpx.AsyncClient, path: str) -> dict[str, Any]:
    """GET `path`, which must answer 200: its JSON body."""
    response = await client.get(path)
    assert response.status_code == 200, response.text
    payload: dict[str, Any] = response.json()
    return payload


async def transcript(client: httpx.AsyncClient, session: str) -> list[dict[str, Any]]:
    """A session's messages, oldest first (up to 500)."""
    page = await get_json(client, f"/v1/sessions/{session}/messages?limit=500")
    items: list[dict[str, Any]] = page["items"]
    return items


def usage(record: dict[str, Any]) -> tuple[int, int, int]:
    """(input_tokens, output_tokens, model_calls) of a run or session."""
    counts = record["usage"]
    return counts["input_tokens"], counts["output_tokens"], counts["model_calls"]
