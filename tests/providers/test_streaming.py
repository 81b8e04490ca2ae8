"""Both wire adapters in their streaming mode (`"stream": true`) against local servers that
stream as the vendors do (`fake_servers.openai_stream`, `anthropic_stream`).

The promise under test: a streamed call gives exactly the `ModelReply` the unstreamed call
gives for the same reply, hands the text to `on_delta` piece by piece as it arrives (and
nothing else), and fails the way the engine can act on: HTTP errors as before, a stream
that breaks off midway as a retryable error.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any
from uuid import uuid4

import httpx
import pytest

from app.domain.agent import AnthropicModel, OpenAIModel
from app.providers.anthropic import AnthropicMessages
from app.providers.base import ModelError, ModelReply, ModelRequest
from app.providers.openai import OpenAIChat
from tests.fake_http import FakeServer, Reply, fake_server
from tests.providers.fake_servers import (
    ANTHROPIC_PATH,
    OPENAI_PATH,
    PIECE,
    anthropic_blocks,
    anthropic_error,
    anthropic_events,
    anthropic_reply,
    anthropic_stream,
    anthropic_tool_use,
    event_stream,
    openai_call,
    openai_chunk,
    openai_chunks,
    openai_error,
    openai_reply,
    openai_stream,
    pieces,
    sse_frame,
)

KEY_ENV = "TEST_STREAM_API_KEY"
KEY = "sk-perdure-stream-test-3c9e1a"
LONG_ARGUMENTS = {
    "query": "weather in Oslo, Bergen and Tromsø",
    "days": [1, 2, 3],
    "options": {"units": "metric", "detail": "hourly"},
}

Adapter = OpenAIChat | AnthropicMessages


@pytest.fixture
def openai_server() -> Iterator[FakeServer]:
    with fake_server(OPENAI_PATH) as fake:
        fake.stream_as = openai_stream
        yield fake


@pytest.fixture
def anthropic_server() -> Iterator[FakeServer]:
    with fake_server(ANTHROPIC_PATH) as fake:
        fake.stream_as = anthropic_stream
        yield fake


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as http:
        yield http


def openai(server: FakeServer, client: httpx.AsyncClient, **spec: Any) -> OpenAIChat:
    model = OpenAIModel(
        provider="openai",
        name="gpt-test",
        base_url=f"{server.url}/v1",
        **{"api_key_env": KEY_ENV, "stream": True, **spec},
    )
    return OpenAIChat(model, client, environ={KEY_ENV: KEY})


def anthropic(server: FakeServer, client: httpx.AsyncClient, **spec: Any) -> AnthropicMessages:
    model = AnthropicModel(
        provider="anthropic",
        name="claude-test",
        base_url=server.url,
        **{"api_key_env": KEY_ENV, "stream": True, **spec},
    )
    return AnthropicMessages(model, client, environ={KEY_ENV: KEY})


class Deltas(list[str]):
    """An `on_delta` that keeps what it is given."""

    def __call__(self, piece: str) -> None:
        self.append(piece)


def request(on_delta: Deltas | None = None) -> ModelRequest:
    return ModelRequest(
        session_id="s",
        run_id=uuid4(),
        messages=[{"role": "user", "content": "hi"}],
        tools=[],
        position=0,
        attempt=0,
        on_delta=on_delta,
    )


async def both_ways(streamed: Adapter, plain: Adapter) -> tuple[ModelReply, ModelReply, Deltas]:
    """The same reply (pushed twice) read unstreamed, then streamed: (plain, streamed,
    the streamed call's deltas). The plain call has an `on_delta` too, never called."""
    untouched = Deltas()
    unstreamed = await plain.generate(request(untouched))
    assert untouched == []
    deltas = Deltas()
    return unstreamed, await streamed.generate(request(deltas)), deltas


async def failure(model: Adapter, deltas: Deltas | None = None) -> ModelError:
    with pytest.raises(ModelError) as caught:
        await model.generate(request(deltas))
    return caught.value


# -- OpenAI Chat Completions -------------------------------------------------------------


async def test_openai_text__deltas_in_order_and_the_same_reply(
    openai_server: FakeServer, client: httpx.AsyncClient
) -> None:
    text = "Streaming, one piece at a time: ✓ done."
    openai_server.push(openai_reply(text, usage=(11, 7)), openai_reply(text, usage=(11, 7)))

    plain, streamed, deltas = await both_ways(
        openai(openai_server, client), openai(openai_server, client, stream=False)
    )

    assert streamed == plain
    assert streamed.text == text
    assert (streamed.usage.input_tokens, streamed.usage.output_tokens) == (11, 7)
    assert deltas == pieces(text)  # every piece, in order, as the server cut them
    unstreamed_sent, streamed_sent = openai_server.seen()
    assert "stream" not in unstreamed_sent.body
    assert "stream_options" not in unstreamed_sent.body
    assert streamed_sent.body["stream"] is True
    assert streamed_sent.body["stream_options"] == {"include_usage": True}
    assert streamed_sent.headers["accept"] == "text/event-stream"
    assert streamed_sent.headers["authorization"] == f"Bearer {KEY}"


OPENAI_REPLIES = {
    "parallel calls, long arguments": openai_reply(
        None,
        calls=[
            openai_call("call_a", "search", LONG_ARGUMENTS),
            openai_call("call_b", "add", {"a": 1, "b": 2}),
        ],
        usage=(40, 25),
    ),
    "text and a call without arguments": openai_reply(
        "Let me check.", calls=[openai_call("call_c", "noop", "")], usage=(3, 4)
    ),
    "arguments not JSON": openai_reply(None, calls=[openai_call("call_d", "add", "{'a': 1")]),
    "reasoning": openai_reply(
        "Five.", calls=[openai_call("call_e", "add", {"a": 2})], reasoning_content="2 + 3..."
    ),
    "refusal": openai_reply(None, refusal="I can't help with that."),
}


@pytest.mark.parametrize("reply", OPENAI_REPLIES.values(), ids=OPENAI_REPLIES.keys())
async def test_openai__streamed_reply_is_the_unstreamed_one(
    openai_server: FakeServer, client: httpx.AsyncClient, reply: Reply
) -> None:
    openai_server.push(reply, reply)
    plain, streamed, deltas = await both_ways(
        openai(openai_server, client), openai(openai_server, client, stream=False)
    )
    assert streamed == plain
    content = reply.body["choices"][0]["message"]["content"]
    assert "".join(deltas) == (content or "")  # text only: no arguments, no refusal


async def test_openai_tool_calls__assembled_from_many_pieces(
    openai_server: FakeServer, client: httpx.AsyncClient
) -> None:
    reply = openai_reply(
        None,
        calls=[
            openai_call("call_a", "search", LONG_ARGUMENTS),
            openai_call("call_b", "add", {"a": 1, "b": 2}),
        ],
        usage=(40, 25),
    )
    openai_server.push(reply)
    deltas = Deltas()

    streamed = await openai(openai_server, client).generate(request(deltas))

    assert [(c.id, c.name, c.arguments) for c in streamed.tool_calls] == [
        ("call_a", "search", LONG_ARGUMENTS),
        ("call_b", "add", {"a": 1, "b": 2}),
    ]
    assert (streamed.usage.input_tokens, streamed.usage.output_tokens) == (40, 25)
    assert deltas == []  # argument fragments are not text
    fragments = len(pieces(json.dumps(LONG_ARGUMENTS)))
    assert fragments > 20  # the test is about arguments that really are cut up


async def test_openai_tool_calls__pieces_of_parallel_calls_interleaved_by_index(
    openai_server: FakeServer, client: httpx.AsyncClient
) -> None:
    first, second = json.dumps({"a": 10, "b": 20}), json.dumps({"city": "Oslo"})
    chunks: list[Any] = [
        openai_chunk({"role": "assistant", "content": None}),
        openai_chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "call_0", "type": "function", "function": {"name": "add"}},
                    {"index": 1, "id": "call_1", "type": "function", "function": {"name": "get"}},
                ]
            }
        ),
    ]
    for a, b in zip(pieces(first, 2), pieces(second, 2), strict=False):
        chunks.append(
            openai_chunk(
                {
                    "tool_calls": [
                        {"index": 1, "function": {"arguments": b}},
                        {"index": 0, "function": {"arguments": a}},
                    ]
                }
            )
        )
    chunks += [
        openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": first[16:]}}]}),
        openai_chunk({}, "tool_calls"),
        openai_chunk(None, usage={"prompt_tokens": 9, "completion_tokens": 8}),
        "[DONE]",
    ]
    assert len(first) > 16 >= len(second)  # the zip above stops with `second`
    openai_server.push(event_stream(*(sse_frame(c) for c in chunks)))

    streamed = await openai(openai_server, client).generate(request())

    assert [(c.id, c.name, c.arguments) for c in streamed.tool_calls] == [
        ("call_0", "add", {"a": 10, "b": 20}),
        ("call_1", "get", {"city": "Oslo"}),
    ]
    assert (streamed.usage.input_tokens, streamed.usage.output_tokens) == (9, 8)


async def test_openai__deltas_arrive_before_the_rest_of_the_stream_is_sent(
    openai_server: FakeServer, client: httpx.AsyncClient
) -> None:
    got_first = threading.Event()
    frames = [sse_frame(c) for c in openai_chunks(openai_reply("Hello world").body, True)]
    # The server sends the role and "Hel", then waits until the client has passed on
    # "Hel" (a reader that waits for the whole body would never get it: the wait ends
    # after 5 s, and the assertion below fails).
    held = [b"".join(frames[:2]), *frames[2:]]
    openai_server.push(event_stream(*held, hold=lambda: got_first.wait(5)))
    seen_before_rest: list[bool] = []

    def on_delta(piece: str) -> None:
        if not got_first.is_set():
            seen_before_rest.append(piece == "Hel")
            got_first.set()

    model = openai(openai_server, client)
    reply = await model.generate(
        ModelRequest("s", uuid4(), [{"role": "user", "content": "hi"}], [], 0, 0, on_delta)
    )

    assert reply.text == "Hello world"
    assert seen_before_rest == [True]
    assert openai_server.wait_sent(1)  # and the server did send the rest


async def test_openai__server_that_ignores_stream_is_read_whole(
    openai_server: FakeServer, client: httpx.AsyncClient
) -> None:
    openai_server.stream_as = None  # a compatible server that answers JSON anyway
    openai_server.push(openai_reply("whole", usage=(1, 2)))
    deltas = Deltas()
    reply = await openai(openai_server, client).generate(request(deltas))
    assert (reply.text, reply.usage.output_tokens) == ("whole", 2)
    assert deltas == []


# -- Anthropic Messages ------------------------------------------------------------------


async def test_anthropic_text__deltas_in_order_and_the_same_reply(
    anthropic_server: FakeServer, client: httpx.AsyncClient
) -> None:
    text = "Streaming, one piece at a time: ✓ done."
    reply = anthropic_reply(
        text, usage=(5, 9), cache_creation_input_tokens=100, cache_read_input_tokens=1000
    )
    anthropic_server.push(reply, reply)

    plain, streamed, deltas = await both_ways(
        anthropic(anthropic_server, client), anthropic(anthropic_server, client, stream=False)
    )

    assert streamed == plain
    assert streamed.text == text
    # Input counts from `message_start` (cache included), output from `message_delta`.
    assert (streamed.usage.input_tokens, streamed.usage.output_tokens) == (1105, 9)
    assert deltas == pieces(text)
    unstreamed_sent, streamed_sent = anthropic_server.seen()
    assert "stream" not in unstreamed_sent.body
    assert streamed_sent.body["stream"] is True
    assert streamed_sent.headers["accept"] == "text/event-stream"
    assert streamed_sent.headers["x-api-key"] == KEY


ANTHROPIC_REPLIES = {
    "tool calls, long input": anthropic_reply(
        "Searching.",
        calls=[
            anthropic_tool_use("toolu_1", "search", LONG_ARGUMENTS),
            anthropic_tool_use("toolu_2", "noop", {}),
        ],
        usage=(30, 20),
    ),
    "thinking, texts and a call, in order": anthropic_blocks(
        {"type": "thinking", "thinking": "Add them, then say so.", "signature": "c2lnbmF0dXJl"},
        {"type": "text", "text": "Adding "},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "twice."},
        anthropic_tool_use("toolu_3", "add", {"a": 1, "b": 2}),
        usage=(7, 8),
    ),
    "citations": anthropic_blocks(
        {"type": "text", "text": "Cited.", "citations": [{"type": "char_location", "x": 1}]}
    ),
}


@pytest.mark.parametrize("reply", ANTHROPIC_REPLIES.values(), ids=ANTHROPIC_REPLIES.keys())
async def test_anthropic__streamed_reply_is_the_unstreamed_one(
    anthropic_server: FakeServer, client: httpx.AsyncClient, reply: Reply
) -> None:
    anthropic_server.push(reply, reply)
    plain, streamed, deltas = await both_ways(
        anthropic(anthropic_server, client), anthropic(anthropic_server, client, stream=False)
    )
    assert streamed == plain
    texts = [b["text"] for b in reply.body["content"] if b["type"] == "text"]
    assert deltas == [p for text in texts for p in pieces(text)]  # no thinking, no input


async def test_anthropic_tool_use__input_assembled_from_many_pieces(
    anthropic_server: FakeServer, client: httpx.AsyncClient
) -> None:
    reply = anthropic_reply(calls=[anthropic_tool_use("toolu_1", "search", LONG_ARGUMENTS)])
    anthropic_server.push(reply)
    events = anthropic_events(reply.body)
    assert sum(1 for _, data in events if data.get("delta", {}).get("partial_json")) > 20

    streamed = await anthropic(anthropic_server, client).generate(request())

    assert [(c.id, c.name, c.arguments) for c in streamed.tool_calls] == [
        ("toolu_1", "search", LONG_ARGUMENTS)
    ]
    assert streamed.provider_data == {}  # an ordinary turn: nothing more kept


async def test_anthropic_tool_use__garbled_input_is_retryable(
    anthropic_server: FakeServer, client: httpx.AsyncClient
) -> None:
    events = anthropic_events(anthropic_reply(calls=[anthropic_tool_use("t", "f", {"a": 1})]).body)
    frames = [
        sse_frame(
            {**data, "delta": {"type": "input_json_delta", "partial_json": '{"a": '}}
            if data.get("delta", {}).get("type") == "input_json_delta"
            else data,
            kind,
        )
        for kind, data in events
    ]
    anthropic_server.push(event_stream(*frames))
    error = await failure(anthropic(anthropic_server, client))
    assert (error.code, error.retryable) == ("stream_error", True)
    assert "input is not JSON" in error.message


# -- failures, both providers ------------------------------------------------------------


@pytest.fixture(params=["openai", "anthropic"])
def vendor(
    request: pytest.FixtureRequest, client: httpx.AsyncClient
) -> Iterator[tuple[FakeServer, Adapter]]:
    """(a streaming vendor's server, an adapter streaming from it), for each vendor."""
    if request.param == "openai":
        with fake_server(OPENAI_PATH) as server:
            server.stream_as = openai_stream
            yield server, openai(server, client)
    else:
        with fake_server(ANTHROPIC_PATH) as server:
            server.stream_as = anthropic_stream
            yield server, anthropic(server, client)


def error_reply(server: FakeServer, status: int, message: str, **reply: Any) -> Reply:
    make = openai_error if server.path == OPENAI_PATH else anthropic_error
    return make(status, message, **reply)


def text_frames(server: FakeServer, text: str) -> list[bytes]:
    """The frames that stream a reply of `text`, the last event included."""
    if server.path == OPENAI_PATH:
        return [sse_frame(c) for c in openai_chunks(openai_reply(text).body, True)]
    return [sse_frame(d, e) for e, d in anthropic_events(anthropic_reply(text).body)]


async def test_429_before_the_stream__rate_limited_with_retry_after(
    vendor: tuple[FakeServer, Adapter],
) -> None:
    server, model = vendor
    server.push(error_reply(server, 429, "Slow down", headers={"Retry-After": "2"}))
    error = await failure(model)
    assert (error.code, error.retryable, error.retry_after_s) == ("rate_limited", True, 2.0)
    assert "HTTP 429" in error.message
    assert "Slow down" in error.message


async def test_500_before_the_stream__server_error_retryable(
    vendor: tuple[FakeServer, Adapter],
) -> None:
    server, model = vendor
    server.push(error_reply(server, 500, "Internal trouble"))
    error = await failure(model)
    assert (error.code, error.retryable) == ("server_error", True)
    assert "Internal trouble" in error.message


async def test_400_before_the_stream__not_retried(vendor: tuple[FakeServer, Adapter]) -> None:
    server, model = vendor
    server.push(error_reply(server, 400, "Bad field"))
    error = await failure(model)
    assert (error.code, error.retryable) == ("client_error", False)


async def test_error_event_midway__retryable_with_the_vendors_words(
    vendor: tuple[FakeServer, Adapter],
) -> None:
    server, model = vendor
    frames = text_frames(server, "Partial answer that never ends")[:4]
    overloaded = {"type": "overloaded_error", "message": "Overloaded"}
    if server.path == OPENAI_PATH:
        frames.append(sse_frame({"error": overloaded}))
    else:
        frames.append(sse_frame({"type": "error", "error": overloaded}, "error"))
    server.push(event_stream(*frames))
    deltas = Deltas()

    error = await failure(model, deltas)

    assert (error.code, error.retryable) == ("stream_error", True)
    assert "overloaded_error: Overloaded" in error.message
    assert deltas  # what came before the error was passed on (the turn then starts again)


async def test_connection_cut_midway__retryable(vendor: tuple[FakeServer, Adapter]) -> None:
    server, model = vendor
    server.push(event_stream(*text_frames(server, "Cut off in the middle")[:5], cut=True))
    deltas = Deltas()
    error = await failure(model, deltas)
    assert (error.code, error.retryable) == ("connection_error", True)
    assert deltas


async def test_stream_ends_before_its_last_event__retryable(
    vendor: tuple[FakeServer, Adapter],
) -> None:
    server, model = vendor
    server.push(event_stream(*text_frames(server, "Ends too soon")[:-1]))
    error = await failure(model)
    assert (error.code, error.retryable) == ("stream_error", True)
    assert "ended before its last event" in error.message


async def test_event_not_json__retryable(vendor: tuple[FakeServer, Adapter]) -> None:
    server, model = vendor
    frames = text_frames(server, "Garbled")
    frames.insert(3, b'data: {"type": "content_block_delta", "index": 0, "del\n\n')
    server.push(event_stream(*frames))
    error = await failure(model)
    assert (error.code, error.retryable) == ("stream_error", True)
    assert "not JSON" in error.message


async def test_event_of_another_shape__malformed_not_retried(
    vendor: tuple[FakeServer, Adapter],
) -> None:
    server, model = vendor
    frames = text_frames(server, "Shape")
    if server.path == OPENAI_PATH:
        frames.insert(2, sse_frame({"choices": {"0": "not a list"}}))
    else:
        frames.insert(2, sse_frame({"type": "content_block_delta", "index": 7}, "x"))
    server.push(event_stream(*frames))
    error = await failure(model)
    assert (error.code, error.retryable) == ("malformed_reply", False)


async def test_stream_over_the_byte_cap__too_large(
    vendor: tuple[FakeServer, Adapter], client: httpx.AsyncClient
) -> None:
    server, model = vendor
    model.max_reply_bytes = 2_000
    server.push(event_stream(*text_frames(server, "x" * (2_000 // PIECE * PIECE))))
    error = await failure(model)
    assert (error.code, error.retryable) == ("response_too_large", False)
