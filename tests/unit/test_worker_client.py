"""The worker's HTTP client under many calls at once: connections kept alive past
httpx's default of twenty, and shards that together queue nothing one pool would not."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from app.capabilities import Egress
from app.egress import GuardedTransport, ShardedTransport, guarded_client
from tests.fake_http import FakeServer, Reply, Seen, fake_server


def connections_used(server: FakeServer) -> int:
    """How many TCP connections the server's requests came on (a socket object each, kept
    referenced by the requests seen, so no two share an id)."""
    return len({id(s.connection) for s in server.seen() if s.connection})


async def wave(client: httpx.AsyncClient, server: FakeServer, count: int) -> None:
    """`count` requests at once, all held until every one has arrived."""
    before = len(server.seen())
    server.answering.clear()
    calls = [asyncio.create_task(client.post(f"{server.url}/x", json={})) for _ in range(count)]
    await asyncio.to_thread(server.wait_requests, before + count)
    server.answering.set()
    assert {(await call).status_code for call in calls} == {200}


async def test_worker_transport__keeps_forty_connections_alive_between_two_waves_of_forty() -> None:
    # One pool, as each shard of the worker's client is.
    transport = GuardedTransport(Egress(), max_connections=50)
    with fake_server(None) as server:
        server.respond = ok
        async with httpx.AsyncClient(transport=transport) as client:
            await wave(client, server, 40)
            await wave(client, server, 40)
    # httpx's default keeps 20 alive (and httpcore 1.0.9 counts every connection against
    # it): the second wave then opened 20 new ones.
    assert connections_used(server) == 40


async def test_worker_client__many_calls_at_once_reuse_their_connections() -> None:
    with fake_server(None) as server:
        server.respond = ok
        async with guarded_client(Egress(), max_connections=100) as client:
            for _ in range(3):
                await wave(client, server, 60)
    assert connections_used(server) == 60


async def test_sharded_transport__each_request_goes_where_a_connection_is_free() -> None:
    shards: list[httpx.AsyncBaseTransport] = [
        GuardedTransport(Egress(), max_connections=10) for _ in range(2)
    ]
    transport = ShardedTransport(shards)
    with fake_server(None) as server:
        server.respond = ok
        async with httpx.AsyncClient(transport=transport) as client:
            # All 20 reach the server at once: none waits behind a full shard.
            await wave(client, server, 20)
            assert transport.in_flight == [0, 0]
            refused = await _closed_port()
            for _ in range(3):
                with pytest.raises(httpx.ConnectError):
                    await client.post(f"http://127.0.0.1:{refused}/x", json={})
            assert transport.in_flight == [0, 0]  # a failed request is no longer in flight
            # A request is in flight until its response is closed, not until it returns.
            async with client.stream("POST", f"{server.url}/x", json={}) as response:
                assert response.status_code == 200
                assert transport.in_flight == [1, 0]
            assert transport.in_flight == [0, 0]


def ok(seen: Seen) -> Reply:
    return Reply(200, {})


async def _closed_port() -> int:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port: int = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    return port
