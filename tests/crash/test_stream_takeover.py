"""A client follows a run's stream while its worker is SIGKILLed and another takes it over:
it sees every event once, in order, and the run's end, across its own reconnection."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from app.main import create_app
from app.settings import Settings
from tests.agents import agent, calls, http_tool
from tests.crash.harness import labelled, tool_server, workers
from tests.serving import read_stream, serving, summary
from tests.support import define_and_send

pytestmark = pytest.mark.timeout(90)


async def test_sigkill_mid_stream__every_event_once_in_order_and_the_end(
    settings: Settings, database_url: str, tmp_path: Path
) -> None:
    app = create_app(settings, pool_concurrency=0, open_when_keyless=True)
    async with (
        serving(app) as url,
        httpx.AsyncClient(base_url=url, timeout=60) as client,
    ):
        with tool_server() as tools, workers(tmp_path, database_url, tmp_path / "m.log") as start:
            script = [calls(("fx", {"label": "b", "hold": True})), {"text": "done"}]
            run_id = await define_and_send(
                client, agent("k", script, [http_tool("fx", tools.url)]), "watched"
            )
            path = f"/v1/runs/{run_id}/stream"
            first = start()
            # Until the call is in flight: queued, started, the turn, the call's start.
            before = await read_stream(client, "GET", path, until=4)
            await asyncio.to_thread(tools.wait_for, labelled("b"))
            first.kill()  # SIGKILL while the call is held at the tool server
            start()
            after = await asyncio.wait_for(
                read_stream(client, "GET", path, headers={"Last-Event-ID": before[-1].id}),
                timeout=60,
            )

    seen = summary(before + after)
    assert [t for _, t in seen] == [
        "run.queued",
        "run.started",
        "turn.saved",
        "tool.started",
        "run.taken_over",
        "run.started",
        "tool.settled",
        # Taken from a dead worker, the run was under suspicion and driven alone until
        # it made progress (the result); then it is handed back and claimed as usual.
        "run.queued",
        "run.started",
        "turn.saved",
        "run.finished",
    ]
    assert [i for i, _ in seen] == list(range(1, 12))  # once each, none missing
    data = [json.loads(e.data)["data"] for e in before + after]
    first_owner = data[1]["worker"]
    assert data[4] == {"previous_owner": first_owner}
    assert (data[1]["lease_token"], data[5]["lease_token"]) == (1, 2)
    assert data[5]["worker"] != first_owner
    assert data[7] == {"reason": "handed_back"}
