"""LISTEN/NOTIFY wake-ups: a hint that work arrived, never the only way to find it.

Notifications sent while the listener is disconnected are lost, so workers poll too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import suppress

import psycopg

from app.db import libpq_url
from app.store.notify import WAKE_CHANNEL

log = logging.getLogger("perdure.wakeups")


async def listen(url: str, on_wake: Callable[[], None], stopping: asyncio.Event) -> None:
    """Call `on_wake` on every notification until `stopping` is set; reconnect on errors."""
    delay = 0.5
    while not stopping.is_set():
        try:
            conn = await psycopg.AsyncConnection.connect(
                libpq_url(url), autocommit=True, connect_timeout=5
            )
            async with conn:
                await conn.execute(f"LISTEN {WAKE_CHANNEL}")
                delay = 0.5
                on_wake()  # anything sent while we were away is found by this poll
                while not stopping.is_set():
                    async for _ in conn.notifies(timeout=1.0):
                        on_wake()
        except psycopg.Error as exc:
            log.warning("wake-up listener lost its connection (%s); reconnecting", exc)
            with suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), timeout=delay)
            delay = min(delay * 2, 10.0)
