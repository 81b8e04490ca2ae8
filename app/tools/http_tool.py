"""`http` tools: a tool in any language behind a URL.

The worker POSTs `{tool_call_id, session_id, run_id, arguments}` with
`Idempotency-Key: <tenant_id>/<session_id>/<tool_call_id>` (a re-run after a crash carries
the same key) and
`Perdure-Lease-Token` (a tool server can refuse a caller that lost its lease). The JSON
reply is the result. Timeouts, connection errors, 409 and 5xx are retried with back-off; a 4xx,
a non-JSON reply or one over the size cap becomes an error result the model can read.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Mapping
from typing import Any

import httpx

from app.capabilities import Capabilities, unavailable_message
from app.domain.agent import EnvValue, HttpExecutor, ToolSpec
from app.egress import EgressRefused
from app.http_body import ACCEPT_ENCODING, BodyTooLarge, read_capped
from app.telemetry import tracing
from app.tools.base import ToolContext, ToolOutcome

RETRY_BASE_S = 0.2


def missing_header_variables(executor: HttpExecutor, secrets: Mapping[str, str]) -> list[str]:
    """`{"env": NAME}` headers whose variable `secrets` does not hold (unset, or one the
    operator does not let this tenant send to this URL's host: the same answer for all)."""
    return [
        value.env
        for value in executor.headers.values()
        if isinstance(value, EnvValue) and value.env not in secrets
    ]


def resolve_headers(executor: HttpExecutor, secrets: Mapping[str, str]) -> dict[str, str]:
    """Header values, reading `{"env": NAME}` ones from `secrets` at call time."""
    return {
        name: value if isinstance(value, str) else secrets.get(value.env, "")
        for name, value in executor.headers.items()
    }


class HttpTools:
    def __init__(self, client: httpx.AsyncClient, capabilities: Capabilities | None = None) -> None:
        """`client` should be the worker's `app.egress.guarded_client`, which checks each
        connection's address; the URL is checked here too, before anything is read."""
        self.client = client
        self.capabilities = capabilities or Capabilities()

    async def execute(
        self, tool: ToolSpec, arguments: dict[str, Any], context: ToolContext
    ) -> ToolOutcome:
        executor = tool.executor
        assert isinstance(executor, HttpExecutor)
        # Checked again at call time: the definition may predate the operator's settings.
        refusal = self.capabilities.egress.url_refusal(executor.url)
        if refusal is not None:
            return ToolOutcome.error("egress_refused", refusal)
        # The variables the operator lets this tenant send to this URL's host: checked
        # on the URL about to be requested (no redirect is followed: see `_attempt`).
        secrets = self.capabilities.secrets(executor.url, tenant_id=context.tenant_id)
        missing = missing_header_variables(executor, secrets)
        if missing:
            return ToolOutcome.error("configuration", unavailable_message(missing[0]))
        body = {
            "tool_call_id": context.tool_call_id,
            "session_id": context.session_id,
            "run_id": str(context.run_id),
            "arguments": arguments,
        }
        headers = {
            **resolve_headers(executor, secrets),
            "Idempotency-Key": context.idempotency_key,
            "Perdure-Lease-Token": str(context.lease_token),
            "Perdure-Run-Id": str(context.run_id),
            # Only codings read_capped inflates within the cap.
            "Accept-Encoding": ACCEPT_ENCODING,
        }
        # The tool's span (`traceparent`), when tracing is on: the tool server's own spans
        # join the run's trace.
        tracing.inject(headers)
        last: ToolOutcome | None = None
        for attempt in range(executor.max_retries + 1):
            if attempt:
                await asyncio.sleep(RETRY_BASE_S * 2 ** (attempt - 1) * random.uniform(0.5, 1))
            outcome, retryable = await self._attempt(executor, body, headers)
            if not retryable:
                return outcome
            last = outcome
        assert last is not None
        return last

    async def _attempt(
        self, executor: HttpExecutor, body: dict[str, Any], headers: dict[str, str]
    ) -> tuple[ToolOutcome, bool]:
        try:
            # Never a redirect, whatever the client's default: its target would get the
            # headers (secrets bound to this URL's host among them) unchecked.
            async with self.client.stream(
                "POST",
                executor.url,
                json=body,
                headers=headers,
                timeout=executor.timeout_s,
                follow_redirects=False,
            ) as response:
                raw = await read_capped(response, executor.max_response_bytes)
        except EgressRefused as exc:
            return ToolOutcome.error("egress_refused", str(exc)), False
        except httpx.TimeoutException:
            return ToolOutcome.error("timeout", f"no reply within {executor.timeout_s}s"), True
        except httpx.DecodingError as exc:
            return ToolOutcome.error("invalid_reply", f"the reply does not decode: {exc}"), False
        except httpx.TransportError as exc:
            return ToolOutcome.error("unreachable", f"{type(exc).__name__}: {exc}"), True
        except BodyTooLarge:
            return ToolOutcome.error(
                "response_too_large", f"reply over {executor.max_response_bytes} bytes"
            ), False
        # 409 too: a tool that answers "this idempotency key is still in progress" (a
        # re-run overlapping the attempt of a worker that died) wants to be asked again.
        if response.status_code >= 500 or response.status_code == 409:
            return ToolOutcome.error(
                "http_status", f"HTTP {response.status_code}", status=response.status_code
            ), True
        if 300 <= response.status_code < 400:
            # Not followed: its target would be a request neither the definition nor the
            # egress rule has seen. Not a reply either, whatever its body says.
            return ToolOutcome.error(
                "http_status",
                f"HTTP {response.status_code}: a redirect, not followed",
                status=response.status_code,
                location=response.headers.get("location"),
            ), False
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            return ToolOutcome.error(
                "invalid_reply", "the tool replied with non-JSON", status=response.status_code
            ), False
        if response.status_code >= 400:
            return ToolOutcome.error(
                "http_status",
                f"HTTP {response.status_code}",
                status=response.status_code,
                body=payload,
            ), False
        return ToolOutcome(ok=True, result=payload), False
