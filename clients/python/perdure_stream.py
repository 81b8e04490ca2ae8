"""Follow a Perdure run's Server-Sent Events, reconnecting with `Last-Event-ID`.

Written by hand beside the generated `perdure_client` (generators do not do SSE well).
Each event of the log is yielded once, in order, however often the connection drops:
the server resumes exactly after the last id this helper saw.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
from perdure_client import AuthenticatedClient, Client

TERMINAL = frozenset({"run.finished", "run.failed", "run.cancelled"})


@dataclass(frozen=True)
class StreamEvent:
    """One SSE event: `id` is None for `message.delta` (not logged, not replayed)."""

    id: int | None
    type: str
    data: dict[str, Any]


def parse(lines: Iterator[str]) -> Iterator[StreamEvent]:
    """SSE events from a stream's lines (comment lines, the keep-alives, are skipped)."""
    fields: dict[str, str] = {}
    for line in lines:
        if line == "":
            if "data" in fields:
                raw_id = fields.get("id")
                yield StreamEvent(
                    id=int(raw_id) if raw_id else None,
                    type=fields.get("event", "message"),
                    data=json.loads(fields["data"]),
                )
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data" and "data" in fields:  # a multi-line data field
                value = fields["data"] + "\n" + value
            fields[name] = value


def follow_run(
    client: AuthenticatedClient | Client,
    run_id: str,
    *,
    last_event_id: int | None = None,
    max_reconnects: int = 10,
) -> Iterator[StreamEvent]:
    """The run's events after `last_event_id` (all of them if None), live, until its
    terminal event; a dropped connection is resumed after the last id seen."""
    http = client.get_httpx_client()
    reconnects = 0
    while True:
        headers = {} if last_event_id is None else {"Last-Event-ID": str(last_event_id)}
        try:
            with http.stream(
                "GET",
                f"/v1/runs/{run_id}/stream",
                headers=headers,
                timeout=httpx.Timeout(10, read=None),
            ) as response:
                response.raise_for_status()
                for event in parse(response.iter_lines()):
                    if event.id is not None:
                        last_event_id = event.id
                        reconnects = 0  # progress: the budget is for failures in a row
                    yield event
                    if event.type in TERMINAL:
                        return
        except httpx.TransportError:
            pass  # dropped: resume below, after the last id seen
        reconnects += 1
        if reconnects > max_reconnects:
            raise RuntimeError(f"the stream of run {run_id} dropped {reconnects} times in a row")
        time.sleep(min(0.2 * 2**reconnects, 5))
