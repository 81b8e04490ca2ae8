"""One server process holds a thousand open streams on a handful of database connections:
the LISTEN connection and the pool, never a connection per stream."""

from __future__ import annotations

import asyncio
import resource

import httpx
import pytest

from app.main import create_app
from app.settings import Settings
from tests import pg
from tests.agents import agent
from tests.serving import serving
from tests.support import define, queue

STREAMS = 1000
WAVE = 100
pytestmark = pytest.mark.timeout(240)


async def first_events(
    client: httpx.AsyncClient, path: str, got: list[int], ready: asyncio.Event
) -> list[str]:
    """The `event:` lines of one stream, until its second event."""
    types: list[str] = []
    async with client.stream("GET", path) as response:
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                types.append(line.removeprefix("event: "))
                if len(types) == 1:
                    got.append(1)
                    if len(got) == STREAMS:
                        ready.set()
                if len(types) == 2:
                    return types
    return types


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def test_a_thousand_streams__one_process_few_connections_all_see_the_event(
    settings: Settings, database_url: str
) -> None:
    app = create_app(settings, pool_concurrency=0, open_when_keyless=True)
    limits = httpx.Limits(max_connections=STREAMS + 10, max_keepalive_connections=0)
    async with (
        serving(app) as url,
        httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client,
    ):
        await define(client, agent("quiet", [{"text": "x"}], []))
        run_id = await queue(client, "fan", "quiet")  # no worker: it stays queued
        before = rss_mib()
        got: list[int] = []
        ready = asyncio.Event()
        streams: list[asyncio.Task[list[str]]] = []
        for wave in range(0, STREAMS, WAVE):  # as clients arrive: not all in one instant
            streams += [
                asyncio.create_task(first_events(client, "/v1/sessions/fan/stream", got, ready))
                for _ in range(WAVE)
            ]
            while len(got) < wave + WAVE:
                await asyncio.sleep(0.05)
        await asyncio.wait_for(ready.wait(), timeout=180)
        assert app.state.event_hub.streams == STREAMS
        # Every connection to this database but the one asking: the pool and the listener.
        connections = pg.scalar(
            database_url,
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        grown = rss_mib() - before
        cancelled = await client.post(f"/v1/runs/{run_id}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        seen = await asyncio.wait_for(asyncio.gather(*streams), timeout=120)

    assert connections <= settings.pool_size + 1
    assert all(types == ["run.queued", "run.cancelled"] for types in seen)
    # Server and clients share this process: the figure is an upper bound for the server.
    print(f"{STREAMS} streams: {connections} connections, RSS grew {grown:.1f} MiB")  # noqa: T201
    assert grown / STREAMS < 0.5  # MiB per stream, both ends together
