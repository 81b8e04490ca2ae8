"""What the dashboard tests share: a key in the dashboard's cookie, and a run paused on
an approval of a gated python tool."""

from __future__ import annotations

from typing import Any

import httpx

from app.api.ui.guard import COOKIE
from tests.agents import agent, calls, python_tool
from tests.conftest import wait_status

AMOUNT = {"type": "object", "properties": {"amount": {"type": "integer"}}, "required": ["amount"]}
GATED_AGENT = "payer"


def signed_in(key: str) -> dict[str, str]:
    """Headers of a browser that signed in with `key`."""
    return {"Cookie": f"{COOKIE}={key}"}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def gated_agent(agent_id: str = GATED_AGENT) -> dict[str, Any]:
    """One `charge` call that needs approval (its amount must be an integer), then text."""
    charge = {**python_tool("charge", "echo", AMOUNT), "needs_approval": True}
    return agent(agent_id, [calls(("charge", {"amount": 500})), {"text": "charged"}], [charge])


async def paused_on_approval(
    client: httpx.AsyncClient, key: str, session: str, agent_id: str = GATED_AGENT
) -> dict[str, Any]:
    """Send to `session` (the agent defined already) and wait for the approval: the run."""
    sent = await client.post(
        f"/v1/sessions/{session}/runs",
        json={"agent_id": agent_id, "input": "charge it"},
        headers=bearer(key),
    )
    assert sent.status_code == 202, sent.text
    return await wait_status(client, sent.json()["id"], {"awaiting_approval"}, headers=bearer(key))
