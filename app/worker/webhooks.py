"""Webhook delivery: each worker sends the outbox's due deliveries (`store/webhooks.py`).

A loop claims at most as many as it has free slots (`PERDURE_WEBHOOK_CONCURRENCY`) and
sends each in a task of its own, so a slow or dead receiver holds only its own slots,
for at most the timeout, and never the others' deliveries. The claim pushes a delivery's
next attempt past the timeout, so a worker that dies mid-send leaves it due again: at
least once, deduplicated by receivers on `webhook-id`.

An attempt's outcome: 2xx delivered; a timeout, a connection error, 5xx or 429 tried
again after an exponential back-off with jitter (a 429's `Retry-After` if longer) until
the delivery is `PERDURE_WEBHOOK_RETRY_FOR_S` old, then failed; anything else (another
4xx, a 3xx, which is not followed, a URL the egress rule refuses) failed at once.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import time
from contextlib import suppress
from dataclasses import dataclass

import httpx

from app.capabilities import Capabilities
from app.domain import webhooks as signing
from app.egress import EgressRefused
from app.settings import Settings
from app.store import webhooks as store
from app.store.unavailable import DATABASE_UNAVAILABLE, describe
from app.telemetry import metrics
from app.worker.connections import ConnectionGate

log = logging.getLogger("perdure.worker")


@dataclass(frozen=True)
class Outcome:
    status: str  # delivered | pending (again) | failed
    http_status: int | None = None
    error: str | None = None
    retry_after_s: float | None = None


def backoff_s(attempts: int, base_s: float, max_s: float) -> float:
    """The wait after failed attempt number `attempts` (1, 2, ...): doubling from
    `base_s`, at most `max_s`, with jitter so that a receiver's recovery is not met by
    every delivery at once."""
    wait: float = min(max_s, base_s * 2.0 ** min(attempts - 1, 32))
    return wait * random.uniform(0.5, 1.0)


def retry_after_s(value: str | None) -> float | None:
    """A `Retry-After` header's wait in seconds (delta-seconds or an HTTP date)."""
    if not value:
        return None
    if value.strip().isdigit():
        return float(value.strip())
    with suppress(TypeError, ValueError, IndexError):
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    return None


def outcome_of(response: httpx.Response) -> Outcome:
    code = response.status_code
    if 200 <= code < 300:
        return Outcome("delivered", code)
    if code >= 500 or code == 429:
        wait = retry_after_s(response.headers.get("retry-after")) if code == 429 else None
        return Outcome("pending", code, f"HTTP {code}", wait)
    if 300 <= code < 400:
        return Outcome("failed", code, f"HTTP {code}: a redirect, not followed")
    return Outcome("failed", code, f"HTTP {code}")


class WebhookSender:
    def __init__(
        self,
        gate: ConnectionGate,
        client: httpx.AsyncClient,
        capabilities: Capabilities,
        settings: Settings,
    ) -> None:
        """`client` should be the worker's `app.egress.guarded_client`: every connection it
        opens passes the egress rule, as an http tool's do."""
        self.gate = gate
        self.client = client
        self.capabilities = capabilities
        self.settings = settings
        self.concurrency = settings.webhook_concurrency
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self, stopping: asyncio.Event) -> None:
        """Claim and send until `stopping` is set; then wait for the sends in flight for
        at most a timeout (a cut-off one is due again once its claim runs out)."""
        try:
            while not stopping.is_set():
                free = self.concurrency - len(self._tasks)
                claimed = await self._claim(free) if free > 0 else 0
                if claimed and claimed == free:
                    # Every slot busy and maybe more due: go on when one frees up.
                    await asyncio.wait(
                        self._tasks,
                        timeout=self.settings.webhook_poll_s,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                    continue
                with suppress(TimeoutError):
                    await asyncio.wait_for(stopping.wait(), timeout=self.settings.webhook_poll_s)
            if self._tasks:
                await asyncio.wait(self._tasks, timeout=self.settings.webhook_timeout_s)
        finally:
            for task in self._tasks:
                task.cancel()

    async def _claim(self, limit: int) -> int:
        try:
            async with self.gate.begin() as conn:
                due = await store.claim_due(
                    conn,
                    limit=limit,
                    # Past the attempt's timeout and its settle: not claimed twice at once.
                    hold_s=2 * self.settings.webhook_timeout_s + 30,
                    retry_for_s=self.settings.webhook_retry_for_s,
                )
        except DATABASE_UNAVAILABLE as exc:
            log.warning("webhook claim failed: %s", describe(exc))
            return 0
        for delivery in due:
            task = asyncio.create_task(self._deliver(delivery), name="webhook")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return len(due)

    async def _deliver(self, due: store.Due) -> None:
        try:
            outcome = await self.attempt(due)
            delay = 0.0
            if outcome.status == "pending":
                if due.expired:
                    outcome = Outcome("failed", outcome.http_status, outcome.error)
                else:
                    delay = backoff_s(
                        due.attempts,
                        self.settings.webhook_retry_base_s,
                        self.settings.webhook_retry_max_s,
                    )
                    delay = max(delay, outcome.retry_after_s or 0.0)
            async with self.gate.begin() as conn:
                await store.settle(
                    conn,
                    due,
                    status=outcome.status,
                    http_status=outcome.http_status,
                    error=outcome.error,
                    delay_s=delay,
                )
            metrics.WEBHOOK_DELIVERIES.labels(
                "retry" if outcome.status == "pending" else outcome.status
            ).inc()
            if outcome.status == "failed":
                log.warning(
                    "webhook %s gave up on %s/%s: %s",
                    due.webhook_id,
                    due.session_id,
                    due.event_id,
                    outcome.error,
                )
        except DATABASE_UNAVAILABLE as exc:
            # Its claim runs out and it is sent again: at least once.
            log.warning("webhook delivery not recorded: %s", describe(exc))
        except Exception:
            log.exception("webhook delivery failed")

    async def attempt(self, due: store.Due) -> Outcome:
        """One POST of the delivery's event, signed."""
        if due.event is None:
            return Outcome("failed", None, "the event no longer exists (pruned or deleted)")
        # Checked again at each delivery: the operator's rule may have changed since.
        refusal = self.capabilities.egress.url_refusal(due.url)
        if refusal is not None:
            return Outcome("failed", None, f"egress refused: {refusal}")
        body = json.dumps(due.event, separators=(",", ":"), ensure_ascii=False).encode()
        msg_id = signing.message_id(due.tenant_id, due.session_id, due.event_id)
        headers = {
            **signing.headers(due.secret, msg_id, int(time.time()), body),
            "content-type": "application/json",
            "user-agent": "Perdure-Webhooks",
        }
        timeout = self.settings.webhook_timeout_s
        try:
            # The reply's body is not read: only its status counts.
            async with self.client.stream(
                "POST",
                due.url,
                content=body,
                headers=headers,
                timeout=timeout,
                follow_redirects=False,
            ) as response:
                return outcome_of(response)
        except EgressRefused as exc:
            return Outcome("failed", None, f"egress refused: {exc}")
        except httpx.TimeoutException:
            return Outcome("pending", None, f"no answer within {timeout}s")
        except httpx.TransportError as exc:
            return Outcome("pending", None, f"{type(exc).__name__}: {exc}")
