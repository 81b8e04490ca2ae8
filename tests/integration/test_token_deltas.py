"""Token deltas of a streaming model reach stream clients as `message.delta` events as
they arrive, from both vendors' streams; the saved turn follows as `turn.saved`."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from app.main import create_app
from app.settings import Settings
from tests.fake_http import Reply, Seen, fake_server
from tests.providers.fake_servers import (
    ANTHROPIC_PATH,
    OPENAI_PATH,
    anthropic_reply,
    anthropic_stream,
    openai_reply,
    openai_stream,
)
from tests.serving import read_stream, serving
from tests.support import define

ANSWER = "Five, because two and three make five."
VENDORS: dict[str, tuple[str, Callable[..., Reply], Callable[[Reply, Seen], Reply], str]] = {
    "openai": (OPENAI_PATH, lambda: openai_reply(ANSWER, usage=(5, 9)), openai_stream, "/v1"),
    "anthropic": (
        ANTHROPIC_PATH,
        lambda: anthropic_reply(ANSWER, usage=(5, 9)),
        anthropic_stream,
        "",
    ),
}


@pytest.mark.parametrize("vendor", sorted(VENDORS))
async def test_deltas__arrive_in_order_before_the_saved_turn(
    vendor: str, settings: Settings
) -> None:
    path, reply, stream_as, prefix = VENDORS[vendor]
    app = create_app(settings, pool_concurrency=2, open_when_keyless=True)
    hub = app.state

    def when_watched(answer: Reply, request: Seen) -> Reply:
        # Deltas are not replayed: stream only once the client's stream is listening.
        deadline = time.monotonic() + 10
        while not (hub.event_hub.streams and hub.event_hub.listening):
            assert time.monotonic() < deadline, "no stream client listened"
            time.sleep(0.01)
        return stream_as(answer, request)

    with fake_server(path) as vendor_server:
        vendor_server.stream_as = when_watched
        vendor_server.push(reply())
        async with serving(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as client:
            model: dict[str, Any] = {
                "provider": vendor,
                "name": "m",
                "base_url": f"{vendor_server.url}{prefix}",
                "stream": True,
            }
            await define(client, {"id": "talker", "model": model, "tools": []})
            seen = await read_stream(
                client,
                "POST",
                "/v1/sessions/talk/runs",
                params={"stream": "true"},
                json={"agent_id": "talker", "input": "2 + 3?"},
            )
    types = [e.event for e in seen]
    deltas = [json.loads(e.data) for e in seen if e.event == "message.delta"]
    assert len(deltas) > 3, types  # the vendor streamed it in pieces
    assert "".join(d["text"] for d in deltas) == ANSWER
    assert [d["n"] for d in deltas] == list(range(len(deltas)))
    assert "turn.saved" in types, [(e.event, e.data) for e in seen if e.event != "message.delta"]
    assert types.index("turn.saved") > max(i for i, t in enumerate(types) if t == "message.delta")
    assert types[-1] == "run.finished"
    run_id = json.loads(seen[0].data)["run_id"]
    assert {d["run_id"] for d in deltas} == {run_id}
