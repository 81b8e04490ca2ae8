"""One HTTP call to a model provider, and what its failures mean (DESIGN.md §3, §9).

Both wire-format adapters (`openai.py`, `anthropic.py`) POST through `post_json` (or,
streaming, `streaming.post_stream`, which adds what can break midway), so a failure is
classified the same way whichever vendor it came from:

| what happened                                   | code                 | retryable |
| ----------------------------------------------- | -------------------- | --------- |
| no complete reply within `timeout_s`, HTTP 408  | `timeout`            | yes       |
| connect refused / reset, DNS, protocol error    | `connection_error`   | yes       |
| HTTP 429 (`Retry-After` -> `retry_after_s`)     | `rate_limited`       | yes       |
| HTTP 5xx (incl. Anthropic's 529 "overloaded")   | `server_error`       | yes       |
| HTTP 409 (the vendors' SDKs retry it)           | `client_error`       | yes       |
| HTTP 3xx, 400, 401, 403, 404, 422, other 4xx    | `client_error`       | no        |
| 2xx whose body is not JSON or not the format    | `malformed_reply`    | no        |
| (or compressed and does not inflate)            | `malformed_reply`    | no        |
| 2xx body over PERDURE_MAX_MODEL_REPLY_BYTES,    | `response_too_large` | no        |
| raw or inflated, or a Content-Length over it    | `response_too_large` | no        |
| `api_key_env` names a variable that is not set  | `api_key_missing`    | no        |
| (or one PERDURE_SECRET_ENV does not grant)      | `api_key_missing`    | no        |
| (or not to this URL's host, or this tenant)     | `api_key_missing`    | no        |
| the address is refused by PERDURE_EGRESS        | `egress_refused`     | no        |

A reply is read as it arrives and never held beyond the cap (`app.http_body`): past it
the connection is dropped, so a broken or hostile `base_url` cannot spend the worker's
memory. Of an error reply (not 2xx) only the first `ERROR_BODY_BYTES` are read.

Messages say what went wrong: the status, the provider's own error message (from the
body, truncated), and the URL without its query or userinfo. They never carry the API
key: request headers are never quoted, and the key's value is scrubbed from anything
quoted back from the provider (a proxy may echo it).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import httpx

from app.capabilities import DEFAULT_MODEL_REPLY_BYTES, DEFAULT_SECRET_ENV, SecretEnviron
from app.egress import EgressRefused
from app.http_body import ACCEPT_ENCODING, BodyTooLarge, read_capped
from app.providers.base import ModelError

T = TypeVar("T")

MAX_DETAIL = 500
REDACTED = "[redacted]"
# What is read of an error reply's body: its start says what went wrong.
ERROR_BODY_BYTES = 65_536


class MalformedReply(Exception):
    """A 2xx reply that does not have the wire format's shape; the text says where."""


# -- small pieces ------------------------------------------------------------------------


def truncate(text: str, limit: int = MAX_DETAIL) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def redact(text: str, secret: str | None) -> str:
    return text.replace(secret, REDACTED) if secret else text


def safe_url(url: httpx.URL) -> str:
    """The URL as it may be shown: no query, no fragment, no user:password."""
    return str(url.copy_with(query=None, fragment=None, username=None, password=None))


def endpoint(base_url: str, path: str) -> httpx.URL:
    """`path` appended to the base URL's path; a query on the base URL is kept."""
    base = httpx.URL(base_url)
    return base.copy_with(path=base.path.rstrip("/") + path)


def read_api_key(
    env_name: str | None,
    environ: Mapping[str, str] | None,
    url: httpx.URL | str | None = None,
) -> str | None:
    """The key from the named environment variable, read now for a request to `url`
    (None when no key is used).

    `environ` is what the operator lets definitions read (`Capabilities.secrets()`, which
    `build_model` passes, for the run's tenant); it is narrowed to `url`, the URL about to
    be requested, so a key bound to other hosts is not read. None means the default grant
    (OPENAI_API_KEY to api.openai.com, ANTHROPIC_API_KEY to api.anthropic.com), not the
    whole environment. Any other mapping is taken as granted for this request (tests).
    A variable outside the grant is never looked up, and fails exactly as an unset one.
    """
    if env_name is None:
        return None
    if environ is None:
        source: Mapping[str, str] = SecretEnviron(DEFAULT_SECRET_ENV, url=url)
    elif isinstance(environ, SecretEnviron) and url is not None:
        source = environ.to(url)
    else:
        source = environ
    value = source.get(env_name)
    if not value:
        raise ModelError(
            f"the environment variable {env_name} (the model's api_key_env) is not set "
            "or empty in the worker's environment, or PERDURE_SECRET_ENV does not let "
            "definitions send it to this URL's host",
            retryable=False,
            code="api_key_missing",
        )
    return value


def retry_after(headers: httpx.Headers, now: datetime | None = None) -> float | None:
    """Seconds to wait, from `retry-after-ms` (OpenAI) or `Retry-After` (seconds or an
    HTTP date); None when absent or unreadable."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        seconds = _number(millis)
        if seconds is not None:
            return seconds / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return max(0.0, value) if math.isfinite(value) else None


def provider_message(body: bytes) -> str | None:
    """The provider's own words about an error, from the usual JSON error shapes
    (OpenAI/Anthropic `{"error": {"message"}}`, Ollama `{"error": "..."}`, vLLM
    `{"message"}`, FastAPI `{"detail"}`), else the body's text."""
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        payload = json.loads(text)
    except ValueError:
        return text
    if isinstance(payload, dict):
        error = payload.get("error")
        if isinstance(error, dict):
            message = error.get("message")
            kind = error.get("type") or error.get("code")
            if isinstance(message, str):
                return f"{kind}: {message}" if isinstance(kind, str) and kind else message
        if isinstance(error, str):
            return error
        for key in ("message", "detail"):
            value = payload.get(key)
            if isinstance(value, str):
                return value
    return text


# -- classification ----------------------------------------------------------------------


def transport_error(
    exc: Exception, *, provider: str, url: httpx.URL, timeout_s: float, secret: str | None
) -> ModelError:
    where = safe_url(url)
    if isinstance(exc, EgressRefused):
        return ModelError(
            f"{provider}: {where} is not reachable from this worker: {exc}",
            retryable=False,
            code="egress_refused",
        )
    if isinstance(exc, TimeoutError | httpx.TimeoutException):
        return ModelError(
            f"{provider}: no complete reply from {where} within {timeout_s:g}s",
            retryable=True,
            code="timeout",
        )
    if isinstance(exc, httpx.DecodingError):
        return malformed(provider, url, f"the body could not be decoded ({exc})", secret)
    detail = truncate(redact(str(exc), secret)) or "no detail"
    return ModelError(
        f"{provider}: could not reach {where}: {type(exc).__name__}: {detail}",
        retryable=True,
        code="connection_error",
    )


def status_error(
    response: httpx.Response, body: bytes, *, provider: str, secret: str | None
) -> ModelError:
    """An error for a reply whose status is not 2xx; `body` is what was read of it."""
    status = response.status_code
    where = safe_url(response.request.url)
    said = provider_message(body)
    detail = f": {truncate(redact(said, secret))}" if said else ""
    wait: float | None = None
    if status == 408:
        code, retryable = "timeout", True
    elif status == 429:
        code, retryable = "rate_limited", True
    elif status >= 500:
        code, retryable = "server_error", True
    elif status == 409:
        code, retryable = "client_error", True
    else:
        code, retryable = "client_error", False
    if 300 <= status < 400:
        location = response.headers.get("location")
        target = safe_url(httpx.URL(location)) if location else "nowhere"
        detail = f": a redirect to {target} (redirects are not followed; check base_url)"
    if retryable:
        wait = retry_after(response.headers)
    after = f" (retry after {wait:g}s)" if wait is not None else ""
    return ModelError(
        f"{provider}: HTTP {status} from {where}{after}{detail}",
        retryable=retryable,
        code=code,
        retry_after_s=wait,
    )


def too_large(provider: str, url: httpx.URL, exc: BodyTooLarge) -> ModelError:
    where = safe_url(url)
    if exc.declared is not None:
        what = f"declares {exc.declared} bytes, over {exc.cap} bytes"
        done = "it was not read"
    else:
        what = f"went over {exc.cap} bytes"
        done = "the rest was not read"
    return ModelError(
        f"{provider}: the reply from {where} {what} (PERDURE_MAX_MODEL_REPLY_BYTES); {done}",
        retryable=False,
        code="response_too_large",
    )


def malformed(provider: str, url: httpx.URL, what: str, secret: str | None) -> ModelError:
    return ModelError(
        f"{provider}: malformed reply from {safe_url(url)}: {truncate(redact(what, secret))}",
        retryable=False,
        code="malformed_reply",
    )


# -- the call ----------------------------------------------------------------------------


def open_post(
    client: httpx.AsyncClient,
    url: httpx.URL,
    body: dict[str, Any],
    headers: dict[str, str],
    timeout_s: float,
) -> AbstractAsyncContextManager[httpx.Response]:
    """The POST of a model call, its reply not yet read (`headers` may override
    `Accept-Encoding`)."""
    return client.stream(
        "POST",
        url,
        json=body,
        headers={"Accept-Encoding": ACCEPT_ENCODING, **headers},
        timeout=httpx.Timeout(timeout_s),
        # Never a redirect, whatever the client's default: the key was read for this
        # URL's host, and its target would get it unchecked.
        follow_redirects=False,
    )


async def post_json(
    client: httpx.AsyncClient,
    *,
    provider: str,
    url: httpx.URL,
    body: dict[str, Any],
    headers: dict[str, str],
    timeout_s: float,
    secret: str | None,
    parse: Callable[[Any], T],
    max_bytes: int = DEFAULT_MODEL_REPLY_BYTES,
) -> T:
    """POST `body` as JSON, then `parse` the JSON reply; every failure is a ModelError.

    `timeout_s` bounds the whole exchange (connect, send, every byte of the reply), not
    only each read: a server that dribbles its reply does not get to hold a run forever.
    `max_bytes` bounds the reply's body (`response_too_large` past it); it is read as it
    arrives, and no more of it is read or held.
    """
    try:
        async with (
            asyncio.timeout(timeout_s),
            open_post(client, url, body, headers, timeout_s) as response,
        ):
            if response.is_success:
                content = await read_capped(response, max_bytes)
            else:
                content = await read_capped(response, ERROR_BODY_BYTES, truncate=True)
    except BodyTooLarge as exc:
        raise too_large(provider, url, exc) from None
    except (TimeoutError, httpx.RequestError) as exc:
        raise transport_error(
            exc, provider=provider, url=url, timeout_s=timeout_s, secret=secret
        ) from None
    if not response.is_success:
        raise status_error(response, content, provider=provider, secret=secret)
    return decode_json(response, content, provider=provider, secret=secret, parse=parse)


def decode_json(
    response: httpx.Response,
    content: bytes,
    *,
    provider: str,
    secret: str | None,
    parse: Callable[[Any], T],
) -> T:
    """`parse` of a 2xx reply's JSON body; a body that is not JSON, or not the format,
    is a `malformed_reply`."""
    url = response.request.url
    try:
        payload = json.loads(content)
    except ValueError:
        kind = response.headers.get("content-type", "no content-type")
        sample = content[:200].decode("utf-8", errors="replace")
        raise malformed(
            provider,
            url,
            f"HTTP {response.status_code} with a body that is not JSON "
            f"({kind}, {len(content)} bytes): {sample!r}",
            secret,
        ) from None
    return parsed(payload, provider=provider, url=url, secret=secret, parse=parse)


def parsed(
    payload: Any, *, provider: str, url: httpx.URL, secret: str | None, parse: Callable[[Any], T]
) -> T:
    """`parse(payload)`, its complaints about the shape made a `malformed_reply`."""
    try:
        return parse(payload)
    except MalformedReply as exc:
        raise malformed(provider, url, str(exc), secret) from None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise malformed(
            provider, url, f"unexpected shape ({type(exc).__name__}: {exc})", secret
        ) from None
