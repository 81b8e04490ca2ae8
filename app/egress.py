"""The worker's HTTP client: every connection it opens passes the egress rule
(`app.capabilities.Egress`) on the address it actually connects to.

Checking a URL's host name before the request is not enough: the name is looked up
again when the connection opens, and a name the caller controls can answer differently
then (DNS rebinding). So the check sits in the network backend, where httpcore opens
TCP connections: it looks the name up once, checks every address, and connects to a
checked address literal. TLS and the `Host` header still use the name (httpcore takes
SNI and the certificate's expected name from the request's origin, not from what
`connect_tcp` connected to).

The client follows no redirects (a 3xx is the caller's answer, not a new request the
rule never saw) and ignores proxy variables (`trust_env=False` for proxies and .netrc:
a proxy would make the connection itself, past the rule); certificate variables
(`SSL_CERT_FILE`, `SSL_CERT_DIR`) still apply.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable

import anyio
import httpcore
import httpx

from app.capabilities import Egress, IpAddress, always_refused, ip_literal, normal_host

# A name's addresses: what `anyio.getaddrinfo` answers, reduced to the addresses.
Resolver = Callable[[str, int], Awaitable[list[str]]]


class EgressRefused(httpx.ConnectError):
    """A connection the operator's egress rule refuses. Never retried: it would be
    refused again."""


async def resolve(host: str, port: int) -> list[str]:
    answers = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: dict[str, None] = {}
    for *_, sockaddr in answers:
        seen.setdefault(str(sockaddr[0]), None)
    return list(seen)


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, with the egress rule applied to resolved addresses."""

    def __init__(
        self,
        egress: Egress,
        *,
        resolver: Resolver = resolve,
        inner: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.egress = egress
        self.resolver = resolver
        self.inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        refusal = self.egress.host_refusal(host)
        if refusal is not None:
            raise EgressRefused(refusal)
        deadline = None if timeout is None else time.monotonic() + timeout
        addresses = await self._addresses(host, port, timeout)
        allowed: list[IpAddress] = []
        refusals: list[str] = []
        for address in addresses:
            refusal = self.egress.address_refusal(address, host)
            if refusal is not None and always_refused(address):
                # A name that resolves to a metadata address at all is refused outright.
                raise EgressRefused(refusal)
            if refusal is None:
                allowed.append(address)
            else:
                refusals.append(refusal)
        if not allowed:
            raise EgressRefused(refusals[0])
        failure: Exception | None = None
        for address in allowed:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                return await self.inner.connect_tcp(
                    str(address),
                    port,
                    timeout=left,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc  # the next address, as a resolver's caller would
        assert failure is not None
        raise failure

    async def _addresses(self, host: str, port: int, timeout: float | None) -> list[IpAddress]:
        literal = ip_literal(normal_host(host))
        if literal is not None:
            return [literal]
        try:
            with anyio.fail_after(timeout):
                found = await self.resolver(host, port)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"no address for {host} within {timeout}s") from exc
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
        addresses = [a for a in (ip_literal(normal_host(f)) for f in found) if a is not None]
        if not addresses:
            raise httpcore.ConnectError(f"{host} resolved to no address")
        return addresses

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise EgressRefused("unix sockets are not reachable from tools or models")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport (its exception mapping, streams and pooling) over a connection
    pool whose network backend is `GuardedBackend`.

    httpx does not take a network backend, so the pool it built is replaced by an
    equivalent one with ours (`_pool` is the attribute its request handling uses; the
    egress tests fail if a new httpx renames it).
    """

    def __init__(
        self,
        egress: Egress,
        *,
        resolver: Resolver = resolve,
        max_connections: int = 100,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        # SSL_CERT_FILE / SSL_CERT_DIR apply. A context loads the CA bundle (tens of
        # milliseconds): the shards of one client share theirs.
        context = ssl_context or httpx.create_ssl_context(trust_env=True)
        # The pool it makes is dropped at once (it opens no connection before a request).
        super().__init__(verify=context)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=max_connections,
            # All of them: httpcore 1.0.9 closes an idle connection whenever the pool
            # holds more connections *in all* than this (encode/httpcore#1035), so with
            # httpx's default of 20 nearly every call past the twentieth in flight
            # opened a new connection (and, to a provider, a new TLS handshake).
            max_keepalive_connections=max_connections,
            keepalive_expiry=httpx.Limits().keepalive_expiry,
            network_backend=GuardedBackend(egress, resolver=resolver),
        )


class ShardedTransport(httpx.AsyncBaseTransport):
    """Requests spread over several transports, each to the one with the fewest in flight.

    httpcore's pool walks all its connections whenever a request starts or a response
    ends, and counts them all again for each idle one (encode/httpcore#1035, open in
    1.0.9): at a thousand model calls in flight, in one pool or in shards of 50, that
    was a fifth of a worker's CPU; in shards of 16, a twentieth
    (`benchmarks/slow_models.py`). The least loaded shard has a free connection as long
    as any has, so the shards together queue no request that one pool of their total
    size would not. The choice ignores the request's host: with calls to several hosts
    at once, a shard may open a connection to a host another shard holds idle. A
    worker's calls at volume go to its few model providers, so that costs a handshake
    now and then, and a request never waits for it.
    """

    def __init__(self, shards: list[httpx.AsyncBaseTransport]) -> None:
        assert shards, "at least one transport"
        self.shards = shards
        self.in_flight = [0] * len(shards)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        shard = min(range(len(self.shards)), key=self.in_flight.__getitem__)
        self.in_flight[shard] += 1
        try:
            response = await self.shards[shard].handle_async_request(request)
        except BaseException:
            self.in_flight[shard] -= 1
            raise
        # A request is in flight until its response is closed, as in httpcore's pool.
        response.stream = _ReleasedOnClose(response.stream, lambda: self._release(shard))
        return response

    def _release(self, shard: int) -> None:
        self.in_flight[shard] -= 1

    async def aclose(self) -> None:
        # Every shard, even after one failed to close.
        closed = await asyncio.gather(*(s.aclose() for s in self.shards), return_exceptions=True)
        for outcome in closed:
            if isinstance(outcome, BaseException):
                raise outcome


class _ReleasedOnClose(httpx.AsyncByteStream):
    """A response body that calls `release` once, when it is closed."""

    def __init__(self, stream: object, release: Callable[[], None]) -> None:
        assert isinstance(stream, httpx.AsyncByteStream)
        self.stream = stream
        self.release: Callable[[], None] | None = release

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self.stream.aclose()
        finally:
            release, self.release = self.release, None
            if release is not None:
                release()


# Connections per shard of the worker's client: a shard's walks cost its size squared,
# and choosing a shard costs the number of shards (63 at a thousand connections).
SHARD_CONNECTIONS = 16


def guarded_client(
    egress: Egress, *, resolver: Resolver = resolve, max_connections: int = 100
) -> httpx.AsyncClient:
    """The HTTP client for tools and models: egress-checked, no redirects, no proxies.

    `max_connections` bounds the connections open at once, over shards of at most
    `SHARD_CONNECTIONS` (`ShardedTransport`); a request beyond it waits in a shard's
    pool: a worker sizes it to the model calls it makes at once.
    """
    if max_connections < 1:
        raise ValueError("the worker's HTTP client needs at least one connection")
    count = -(-max_connections // SHARD_CONNECTIONS)
    context = httpx.create_ssl_context(trust_env=True)
    shards: list[httpx.AsyncBaseTransport] = [
        GuardedTransport(egress, resolver=resolver, max_connections=size, ssl_context=context)
        for size in _split(max_connections, count)
    ]
    return httpx.AsyncClient(
        transport=shards[0] if count == 1 else ShardedTransport(shards),
        follow_redirects=False,
        trust_env=False,
    )


def _split(total: int, parts: int) -> list[int]:
    """`total` in `parts` sizes that differ by one at most."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]
