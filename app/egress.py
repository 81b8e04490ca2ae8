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

import socket
import time
from collections.abc import Awaitable, Callable, Iterable

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
        self, egress: Egress, *, resolver: Resolver = resolve, max_connections: int = 100
    ) -> None:
        super().__init__(trust_env=True)  # SSL_CERT_FILE / SSL_CERT_DIR
        limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=20)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=True),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=GuardedBackend(egress, resolver=resolver),
        )


def guarded_client(
    egress: Egress, *, resolver: Resolver = resolve, max_connections: int = 100
) -> httpx.AsyncClient:
    """The HTTP client for tools and models: egress-checked, no redirects, no proxies.

    `max_connections` bounds the connections open at once; a request beyond it waits in
    httpcore's pool, whose bookkeeping costs grow with the number waiting (every request
    that ends walks them all): a worker sizes it to the model calls it makes at once.
    """
    return httpx.AsyncClient(
        transport=GuardedTransport(egress, resolver=resolver, max_connections=max_connections),
        follow_redirects=False,
        trust_env=False,
    )
