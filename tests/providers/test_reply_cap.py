"""Model replies are read within a byte cap (PERDURE_MAX_MODEL_REPLY_BYTES).

A model's `base_url` is the definition's choice, so the size of its reply must not be: a
broken or hostile endpoint that answers gigabytes (plainly, chunked, or as a small gzip
bomb) fails the run with `response_too_large` once the cap is passed, and the worker has
read and held no more than about the cap. The tests count what the client read off the
connection (`CountingTransport`) and what Python allocated meanwhile (tracemalloc).
"""

from __future__ import annotations

import gzip
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import cache
from typing import Any
from uuid import uuid4

import httpx
import pytest
from pydantic import ValidationError

from app.capabilities import Capabilities
from app.domain.agent import AnthropicModel, OpenAIModel
from app.providers.anthropic import AnthropicMessages
from app.providers.base import Model, ModelError, ModelReply, ModelRequest
from app.providers.openai import OpenAIChat
from app.providers.registry import build_model
from app.settings import Settings
from tests import support
from tests.conftest import make_settings
from tests.fake_http import FakeServer, Reply, fake_server, flood
from tests.providers.fake_servers import ANTHROPIC_PATH, OPENAI_PATH, anthropic_reply, openai_reply
from tests.support import run_to_rest

pytestmark = pytest.mark.timeout(120)

MiB = 1024 * 1024
DEFAULT_CAP = 8 * MiB  # PERDURE_MAX_MODEL_REPLY_BYTES unset
FLOOD = 64 * MiB
READ_SLACK = 128 * 1024  # a network read or two past the cap, before the check
HELD_SLACK = 2 * MiB  # what Python holds beside the body: the chunks' list, httpx, the test
# The start of a reply that never ends: valid JSON so far, in both wire formats.
HEADS = {
    "openai": b'{"choices": [{"message": {"role": "assistant", "content": "',
    "anthropic": b'{"type": "message", "content": [{"type": "text", "text": "',
}


class CountingStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, transport: CountingTransport) -> None:
        self.inner = inner
        self.transport = transport

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            self.transport.read += len(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class CountingTransport(httpx.AsyncHTTPTransport):
    """Counts the body bytes the client took off the connection (chunked framing
    removed, content encoding not yet undone)."""

    def __init__(self) -> None:
        super().__init__()
        self.read = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = CountingStream(response.stream, self)
        return response


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def server(provider: str) -> Iterator[FakeServer]:
    with fake_server(OPENAI_PATH if provider == "openai" else ANTHROPIC_PATH) as fake:
        yield fake


@pytest.fixture
async def counting() -> AsyncIterator[tuple[httpx.AsyncClient, CountingTransport]]:
    transport = CountingTransport()
    async with httpx.AsyncClient(transport=transport) as client:
        yield client, transport


def model(provider: str, server: FakeServer, client: httpx.AsyncClient) -> Model:
    if provider == "openai":
        spec = OpenAIModel(provider="openai", name="m", base_url=f"{server.url}/v1")
        return OpenAIChat(spec, client)
    return AnthropicMessages(
        AnthropicModel(provider="anthropic", name="m", base_url=server.url), client
    )


def request() -> ModelRequest:
    return ModelRequest(
        session_id="s",
        run_id=uuid4(),
        messages=[{"role": "user", "content": "hi"}],
        tools=[],
        position=0,
        attempt=0,
    )


async def peak_bytes(call: Callable[[], Awaitable[Any]]) -> tuple[Any, int]:
    """What `call` returned (or the ModelError it raised), and the most memory Python
    held meanwhile beyond what it held before."""
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        try:
            outcome: Any = await call()
        except ModelError as exc:
            outcome = exc
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return outcome, peak - before


@cache
def bomb(encoding: str, provider: str) -> bytes:
    """64 MiB of reply compressed to about 64 KiB."""
    body = HEADS[provider] + b" " * FLOOD
    if encoding == "gzip":
        return gzip.compress(body, compresslevel=9)
    return zlib.compress(body, 9)


# -- the adapters ------------------------------------------------------------------------


@pytest.mark.parametrize("framing", ["chunked", "content-length"])
async def test_reply_cap__a_flood_fails_at_the_cap_not_at_its_end(
    provider: str,
    server: FakeServer,
    counting: tuple[httpx.AsyncClient, CountingTransport],
    framing: str,
) -> None:
    client, transport = counting
    length = FLOOD if framing == "content-length" else None
    server.push(Reply(stream=flood(FLOOD, HEADS[provider]), length=length))

    error, peak = await peak_bytes(lambda: model(provider, server, client).generate(request()))

    assert isinstance(error, ModelError), error
    assert (error.code, error.retryable) == ("response_too_large", False), error.message
    assert f"{DEFAULT_CAP} bytes" in error.message
    assert "PERDURE_MAX_MODEL_REPLY_BYTES" in error.message
    assert server.url in error.message
    assert transport.read <= DEFAULT_CAP + READ_SLACK
    assert peak < DEFAULT_CAP + HELD_SLACK
    if framing == "content-length":
        assert transport.read == 0  # refused from its headers
        assert f"declares {FLOOD} bytes" in error.message
    assert server.wait_sent(1)[0] < FLOOD  # the connection was dropped, not drained


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
async def test_reply_cap__a_compressed_bomb_fails_while_inflating(
    provider: str,
    server: FakeServer,
    counting: tuple[httpx.AsyncClient, CountingTransport],
    encoding: str,
) -> None:
    """httpx inflates each network read whole (64 KiB of gzip can hold 64 MiB): the cap
    must bound the inflated bytes as they are made, not after."""
    client, _ = counting
    compressed = bomb(encoding, provider)
    assert len(compressed) < MiB
    server.push(Reply(raw=compressed, headers={"content-encoding": encoding}))

    error, peak = await peak_bytes(lambda: model(provider, server, client).generate(request()))

    assert isinstance(error, ModelError), error
    assert (error.code, error.retryable) == ("response_too_large", False), error.message
    assert peak < DEFAULT_CAP + HELD_SLACK


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),  # RFC 9110's deflate: zlib's format
        ("deflate", lambda data: zlib.compress(data)[2:-4]),  # as some servers send it: raw
        ("identity", lambda data: data),
    ],
)
async def test_reply_cap__compressed_replies_within_the_cap_are_read(
    provider: str,
    server: FakeServer,
    counting: tuple[httpx.AsyncClient, CountingTransport],
    encoding: str,
    compress: Callable[[bytes], bytes],
) -> None:
    client, _ = counting
    reply = openai_reply("squeezed") if provider == "openai" else anthropic_reply("squeezed")
    server.push(Reply(raw=compress(reply.payload()), headers={"content-encoding": encoding}))

    answer = await model(provider, server, client).generate(request())

    assert isinstance(answer, ModelReply)
    assert answer.text == "squeezed"
    assert server.seen()[0].headers["accept-encoding"] == "gzip, deflate"


async def test_reply_cap__an_error_status_reads_only_the_start_of_its_body(
    provider: str, server: FakeServer, counting: tuple[httpx.AsyncClient, CountingTransport]
) -> None:
    client, transport = counting
    server.push(Reply(502, stream=flood(FLOOD, b"<html>bad gateway")))

    error, peak = await peak_bytes(lambda: model(provider, server, client).generate(request()))

    assert isinstance(error, ModelError), error
    assert (error.code, error.retryable) == ("server_error", True)
    assert "HTTP 502" in error.message
    assert "bad gateway" in error.message
    assert transport.read <= 2 * READ_SLACK
    assert peak < MiB


async def test_reply_cap__the_operator_sets_it(
    server: FakeServer, counting: tuple[httpx.AsyncClient, CountingTransport], provider: str
) -> None:
    client, transport = counting
    cap = 256 * 1024
    grants = Capabilities.of(Settings(database_url=None, max_model_reply_bytes=cap))
    assert grants.model_reply_bytes == cap
    server.push(Reply(stream=flood(FLOOD, HEADS[provider])))
    spec: OpenAIModel | AnthropicModel = (
        OpenAIModel(provider="openai", name="m", base_url=f"{server.url}/v1")
        if provider == "openai"
        else AnthropicModel(provider="anthropic", name="m", base_url=server.url)
    )

    with pytest.raises(ModelError) as caught:
        await build_model(spec, client, grants).generate(request())

    assert caught.value.code == "response_too_large"
    assert f"over {cap} bytes" in caught.value.message
    assert transport.read <= cap + READ_SLACK


# -- the setting -------------------------------------------------------------------------


def test_setting__read_from_the_environment_with_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings(database_url=None).max_model_reply_bytes == DEFAULT_CAP
    assert Capabilities().model_reply_bytes == DEFAULT_CAP
    monkeypatch.setenv("PERDURE_MAX_MODEL_REPLY_BYTES", "1048576")
    assert Settings(database_url=None).max_model_reply_bytes == MiB
    for refused in ("1000", str(2 * 1024 * MiB)):
        monkeypatch.setenv("PERDURE_MAX_MODEL_REPLY_BYTES", refused)
        with pytest.raises(ValidationError, match="max_model_reply_bytes"):
            Settings(database_url=None)


# -- end to end: the run fails, and says why ---------------------------------------------

E2E_CAP = MiB
E2E_FLOOD = 256 * MiB


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(database_url, max_model_reply_bytes=E2E_CAP)


@pytest.mark.parametrize("provider", ["openai"])
async def test_reply_cap__an_endless_reply_fails_the_run_not_the_worker(
    live: httpx.AsyncClient, server: FakeServer
) -> None:
    server.push(Reply(stream=flood(E2E_FLOOD, HEADS["openai"])))  # chunked: no length
    await support.define(
        live,
        {
            "id": "flood",
            "model": {"provider": "openai", "name": "m", "base_url": f"{server.url}/v1"},
        },
    )

    run = await run_to_rest(live, "flood", {"agent_id": "flood", "input": "hi"}, wait=60)

    assert run["status"] == "failed", run
    error = run["last_error"]
    assert (error["code"], error["retryable"]) == ("response_too_large", False), error
    assert f"over {E2E_CAP} bytes" in error["message"]
    assert "PERDURE_MAX_MODEL_REPLY_BYTES" in error["message"]
    assert len(server.seen()) == 1  # not retried
    # What the server got out before the worker hung up: the cap plus what the kernel's
    # socket buffers took (up to tcp_rmem + tcp_wmem), far short of the flood.
    assert server.wait_sent(1)[0] < 64 * MiB
