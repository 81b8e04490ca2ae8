"""A model call whose reply streams as server-sent events (a model spec's `"stream": true`).

The vendors' streaming modes send the reply in pieces; each adapter's `Assembler` adds
the pieces up to the body the non-streaming call would have answered, which the
adapter's own `parse_reply` then reads, so a streamed turn is the same `ModelReply` as
an unstreamed one. On the way, the assembler hands each piece of text to the request's
`on_delta`.

Failures are classified as in `http_errors` (same table), plus what can only happen
midway through a stream, where the turn so far is lost and the call is made again:

| what happened                                        | code               | retryable |
| ---------------------------------------------------- | ------------------ | --------- |
| an error event (Anthropic's `error`, OpenAI's        | `stream_error`     | yes       |
| `{"error"}` chunk), an event whose data is not JSON, |                    |           |
| the stream ending before its last event              |                    |           |
| the connection dropped midway                        | `connection_error` | yes       |

An event that is JSON but not the format's shape is a `malformed_reply`, not retried:
the server speaks something else, and asking again would not change that. A 2xx reply
that is not `text/event-stream` (a compatible server that ignores `stream`) is read as
the whole reply it then is. `timeout_s` bounds the whole stream, as it bounds a whole
reply, and the same byte cap holds (`app.http_body.aiter_capped`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol, TypeVar

import httpx
from httpx_sse import EventSource, ServerSentEvent

from app.capabilities import DEFAULT_MODEL_REPLY_BYTES
from app.http_body import BodyTooLarge, aiter_capped, read_capped
from app.providers.base import ModelError
from app.providers.http_errors import (
    ERROR_BODY_BYTES,
    MalformedReply,
    decode_json,
    malformed,
    open_post,
    parsed,
    post_json,
    redact,
    safe_url,
    status_error,
    too_large,
    transport_error,
    truncate,
)

T = TypeVar("T")
EVENT_STREAM = "text/event-stream"


class StreamBroken(Exception):
    """The stream stopped making sense midway; the text says how."""


class Assembler(Protocol):
    """One vendor's stream, added up event by event."""

    # Whether the stream's last event (OpenAI's `[DONE]`, Anthropic's `message_stop`) came.
    done: bool

    def feed(self, event: ServerSentEvent) -> None:
        """Take one event (and pass its text on). Raises StreamBroken or MalformedReply."""

    def payload(self) -> Any:
        """The body the non-streaming call would have answered. Raises StreamBroken."""


def event_json(event: ServerSentEvent) -> Any:
    try:
        return json.loads(event.data)
    except ValueError:
        raise StreamBroken(f"an event whose data is not JSON: {event.data[:200]!r}") from None


def error_detail(error: Any) -> str:
    """The vendor's words from an error event's `error` (`{"type", "message"}`)."""
    if isinstance(error, dict):
        kind, message = error.get("type") or error.get("code"), error.get("message")
        if isinstance(message, str):
            return f"{kind}: {message}" if isinstance(kind, str) and kind else message
    return json.dumps(error)[:500]


class CappedBody(httpx.AsyncByteStream):
    """A reply's body within the byte cap, inflated, for a parser that reads it as text."""

    def __init__(self, response: httpx.Response, cap: int) -> None:
        self.response = response
        self.cap = cap

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for piece in aiter_capped(self.response, self.cap):
            yield piece


def is_event_stream(response: httpx.Response) -> bool:
    kind = str(response.headers.get("content-type", "")).partition(";")[0]
    return kind.strip().lower() == EVENT_STREAM


async def read_events(response: httpx.Response, assembler: Assembler, max_bytes: int) -> None:
    """Feed the reply's events to `assembler` until its last one."""
    # httpx-sse reads the body as text through the response it is given: this one gives
    # the capped, inflated body (SSE is UTF-8 by definition, whatever a header says).
    capped = httpx.Response(
        response.status_code,
        headers={"content-type": f"{EVENT_STREAM}; charset=utf-8"},
        stream=CappedBody(response, max_bytes),
        request=response.request,
    )
    async for event in EventSource(capped).aiter_sse():
        assembler.feed(event)
        if assembler.done:
            return  # nothing after the last event matters; the connection is dropped
    raise StreamBroken("the stream ended before its last event")


def broken(provider: str, url: httpx.URL, what: str, secret: str | None) -> ModelError:
    return ModelError(
        f"{provider}: the streamed reply from {safe_url(url)} broke off: "
        f"{truncate(redact(what, secret))}",
        retryable=True,
        code="stream_error",
    )


async def post_stream(
    client: httpx.AsyncClient,
    *,
    provider: str,
    url: httpx.URL,
    body: dict[str, Any],
    headers: dict[str, str],
    timeout_s: float,
    secret: str | None,
    assembler: Assembler,
    parse: Callable[[Any], T],
    max_bytes: int = DEFAULT_MODEL_REPLY_BYTES,
) -> T:
    """POST `body` (which asks for a stream), add the events up with `assembler`, then
    `parse` what they add up to; every failure is a ModelError (the module's table)."""
    # No compression asked for: a compressing proxy may hold pieces back to fill a block.
    headers = {**headers, "Accept": EVENT_STREAM, "Accept-Encoding": "identity"}
    content: bytes | None = None
    try:
        async with (
            asyncio.timeout(timeout_s),
            open_post(client, url, body, headers, timeout_s) as response,
        ):
            if not response.is_success:
                content = await read_capped(response, ERROR_BODY_BYTES, truncate=True)
            elif not is_event_stream(response):
                content = await read_capped(response, max_bytes)
            else:
                await read_events(response, assembler, max_bytes)
                payload = assembler.payload()
    except BodyTooLarge as exc:
        raise too_large(provider, url, exc) from None
    except StreamBroken as exc:
        raise broken(provider, url, str(exc), secret) from None
    except MalformedReply as exc:
        raise malformed(provider, url, str(exc), secret) from None
    except (TimeoutError, httpx.RequestError) as exc:
        raise transport_error(
            exc, provider=provider, url=url, timeout_s=timeout_s, secret=secret
        ) from None
    if not response.is_success:
        raise status_error(response, content or b"", provider=provider, secret=secret)
    if content is not None:
        return decode_json(response, content, provider=provider, secret=secret, parse=parse)
    return parsed(payload, provider=provider, url=url, secret=secret, parse=parse)


async def post_model(
    client: httpx.AsyncClient,
    *,
    provider: str,
    url: httpx.URL,
    body: dict[str, Any],
    headers: dict[str, str],
    timeout_s: float,
    secret: str | None,
    assembler: Assembler | None,
    parse: Callable[[Any], T],
    max_bytes: int = DEFAULT_MODEL_REPLY_BYTES,
) -> T:
    """A model call as the adapters make it: streamed and added up by `assembler` when
    there is one (the body asks for a stream), else one JSON reply (`post_json`)."""
    if assembler is not None:
        return await post_stream(
            client,
            provider=provider,
            url=url,
            body=body,
            headers=headers,
            timeout_s=timeout_s,
            secret=secret,
            assembler=assembler,
            parse=parse,
            max_bytes=max_bytes,
        )
    return await post_json(
        client,
        provider=provider,
        url=url,
        body=body,
        headers=headers,
        timeout_s=timeout_s,
        secret=secret,
        parse=parse,
        max_bytes=max_bytes,
    )
