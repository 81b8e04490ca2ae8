"""The provider-neutral transcript, built from log entries, and the ids of new calls."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from app.domain.run import CallStatus, Entry, Message, ToolCall

# A provider's id can serve as Perdure's when it fits where call ids go: an HTTP header
# (a tool's Idempotency-Key) and API fields of up to 200 characters.
USABLE_CALL_ID = re.compile(r"[\x21-\x7e]{1,200}")


def call_ids(
    provider_ids: Sequence[str | None], taken: Collection[str], mint: Callable[[], str]
) -> list[str]:
    """Perdure's ids for the calls of a new turn, in call order.

    A call keeps the model's own id when it has one that is free in the session (not
    `taken`, not earlier in this turn) and usable as an id; otherwise it gets a minted
    one. Providers that number calls per turn (`call_0`) reuse ids: those calls get
    minted ids, and the model's id is still what it gets back (`ToolCall.wire_id`).
    """
    used: set[str] = set()
    out: list[str] = []
    for provider_id in provider_ids:
        call_id = provider_id
        if (
            call_id is None
            or call_id in taken
            or call_id in used
            or not USABLE_CALL_ID.fullmatch(call_id)
        ):
            call_id = mint()
            while call_id in taken or call_id in used:
                call_id = mint()
        used.add(call_id)
        out.append(call_id)
    return out


def model_messages(entries: Sequence[Entry]) -> list[dict[str, Any]]:
    """Messages as a model sees them: each turn's results right after it, in call order.

    Entries are in `seq` order and a call's seq was reserved right after its turn, in call
    order, so log order already is provider order. A turn and its calls are always saved
    together, so `entries` holds both. Unsettled calls are skipped (the loop never calls
    the model while a call of the last turn has no result). Calls go by the ids the model
    gave them, and a turn carries what its provider wants back (`provider_data`).
    """
    calls = {e.id: e for e in entries if isinstance(e, ToolCall)}
    out: list[dict[str, Any]] = []
    for entry in entries:
        if isinstance(entry, Message):
            message: dict[str, Any] = {"role": entry.role, "content": entry.content}
            if entry.tool_call_ids:
                message["tool_calls"] = [
                    {"id": calls[i].wire_id, "name": calls[i].name, "arguments": calls[i].arguments}
                    for i in entry.tool_call_ids
                ]
            if entry.provider_data:
                message["provider_data"] = entry.provider_data
            out.append(message)
        elif entry.settled:
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": entry.wire_id,
                    "name": entry.name,
                    "content": entry.result,
                    "is_error": entry.status is not CallStatus.OK,
                }
            )
    return out
