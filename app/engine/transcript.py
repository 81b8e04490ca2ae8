"""The provider-neutral transcript, built from log entries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.domain.run import CallStatus, Entry, Message, ToolCall


def model_messages(entries: Sequence[Entry]) -> list[dict[str, Any]]:
    """Messages as a model sees them: each turn's results right after it, in call order.

    Entries are in `seq` order and a call's seq was reserved right after its turn, in call
    order, so log order already is provider order. A turn and its calls are always saved
    together, so `entries` holds both. Unsettled calls are skipped (the loop never calls
    the model while a call of the last turn has no result).
    """
    calls = {e.id: e for e in entries if isinstance(e, ToolCall)}
    out: list[dict[str, Any]] = []
    for entry in entries:
        if isinstance(entry, Message):
            message: dict[str, Any] = {"role": entry.role, "content": entry.content}
            if entry.tool_call_ids:
                message["tool_calls"] = [
                    {"id": i, "name": calls[i].name, "arguments": calls[i].arguments}
                    for i in entry.tool_call_ids
                ]
            out.append(message)
        elif entry.settled:
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": entry.id,
                    "name": entry.name,
                    "content": entry.result,
                    "is_error": entry.status is not CallStatus.OK,
                }
            )
    return out
