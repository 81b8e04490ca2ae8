"""The app behind a real uvicorn server on loopback, and an SSE reader, for the tests that
need a real HTTP connection (ASGITransport buffers a whole response, so no stream); and
a real `perdure serve` process, for the tests that drive it from outside."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from httpx_sse import ServerSentEvent, aconnect_sse

from app.domain.principal import Scope
from app.embedded_pg import free_port
from tests.agents import GRANTS_ENV
from tests.crash.harness import ROOT


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


@contextmanager
def serve_process(
    database_url: str, log_path: Path, *, workers: int = 2, max_wait_s: int = 30
) -> Iterator[Server]:
    """A real `perdure serve` process on `database_url` (with the tests' grants and a key
    with every scope, so it never runs open), ready when this yields; its stderr goes to
    `log_path`."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "PERDURE_MAX_WAIT_S": str(max_wait_s),
        "PYTHONPATH": str(ROOT),
        **GRANTS_ENV,
    }
    scopes = ",".join(scope.value for scope in Scope)
    made = subprocess.run(
        [sys.executable, "-m", "app.cli", "keys", "create", "--name", "tests", "--scopes", scopes],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    key = made.stdout.strip().splitlines()[-1]
    command = [sys.executable, "-m", "app.cli", "serve", "--port", str(port)]
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [*command, "--workers", str(workers), "--log-level", "warning"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.2)
        yield Server(url=url, key=key)
    finally:
        process.terminate()
        process.wait(timeout=30)


@dataclass(frozen=True)
class Server:
    url: str
    key: str  # an API key with every scope
