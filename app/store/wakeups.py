"""LISTEN/NOTIFY: a hint that something happened, never the only way to find it.

Notifications sent while the listener is disconnected are lost, so whoever listens also
looks for themselves: the workers poll, and a stream reads its events by id after every
reconnection (`follow` calls back with None then).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from contextlib import suppress

import psycopg

from app.db import libpq_url
from app.store.notify import WAKE_CHANNEL

log = logging.getLogger("perdure.wakeups")


async def listen(url: str, on_wake: Callable[[], None], stopping: asyncio.Event) -> None:
    """Call `on_wake` on every run wake-up until `stopping` is set; reconnect on errors."""
    await follow(url, {WAKE_CHANNEL: lambda _payload: on_wake()}, stopping)


async def follow(
    url: str,
    handlers: Mapping[str, Callable[[str | None], None]],
    stopping: asyncio.Event,
) -> None:
    """Call each channel's handler with each notification's payload, on one connection,
    until `stopping` is set; and with None once listening (again), since whatever was
    sent before may be missed."""
    delay = 0.5
    while not stopping.is_set():
        try:
            conn = await psycopg.AsyncConnection.connect(
                libpq_url(url), autocommit=True, connect_timeout=5
            )
            async with conn:
                for channel in handlers:
                    await conn.execute(f"LISTEN {channel}")
                delay = 0.5
                for handler in handlers.values():
                    handler(None)  # anything sent while we were away is found by a read
                while not stopping.is_set():
                    async for notice in conn.notifies(timeout=1.0):
                        handlers[notice.channel](notice.payload)
        except psycopg.Error as exc:
            channels = ", ".join(handlers)
            log.warning("listener on %s lost its connection (%s); reconnecting", channels, exc)
            with suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), timeout=delay)
            delay = min(delay * 2, 10.0)
