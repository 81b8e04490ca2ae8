"""The app behind a real uvicorn server on loopback, and an SSE reader, for the tests that
need a real HTTP connection (ASGITransport buffers a whole response, so no stream)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from httpx_sse import ServerSentEvent, aconnect_sse


@asynccontextmanager
async def serving(app: FastAPI) -> AsyncIterator[str]:
    """Serve `app` on a free loopback port in this event loop; yields its base URL."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()  # raises what stopped it
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, timeout=30)


async def read_stream(
    client: httpx.AsyncClient,
    method: str,
    path: str,
    *,
    until: int | None = None,
    **kwargs: Any,
) -> list[ServerSentEvent]:
    """The SSE events of one request, until the server ends the stream or `until` were
    read (then the client hangs up)."""
    seen: list[ServerSentEvent] = []
    async with aconnect_sse(client, method, path, **kwargs) as source:
        assert source.response.status_code == 200, await source.response.aread()
        async for event in source.aiter_sse():
            seen.append(event)
            if until is not None and len(seen) >= until:
                break
    return seen


def summary(events: list[ServerSentEvent]) -> list[tuple[int, str]]:
    """(id, type) of each event, checking that its data says the same."""
    out = []
    for event in events:
        data = json.loads(event.data)
        assert (str(data["id"]), data["type"]) == (event.id, event.event)
        out.append((int(event.id), event.event))
    return out
