"""Fork patches and trajectory comparison: pure rules over transcripts."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from app.domain.run import CallStatus, Entry, Message, ToolCall


class InvalidPatch(ValueError):
    """A patch that would make the transcript invalid; the message names the problem."""


@dataclass(frozen=True)
class ForkPatch:
    # Applied in this order: messages, tool_result, append_input.
    messages: list[dict[str, Any]] | None = None
    tool_result: tuple[str, Any] | None = None
    append_input: list[dict[str, Any]] = field(default_factory=list)


def transcript_from_messages(items: list[dict[str, Any]]) -> list[Entry]:
    """Log entries (seq from 1) from provider-neutral messages, checking they are valid.

    Each assistant turn with tool calls must be followed by exactly one `tool` message per
    call before anything else; a tool message must answer a call of the turn before it.
    Call ids are unique in the transcript (a call's `provider_call_id`, the model's own
    id, need not be).
    """
    entries: list[Entry] = []
    seen_ids: set[str] = set()
    seq = 1
    index = 0
    while index < len(items):
        item = items[index]
        role = item.get("role")
        if role == "tool":
            raise InvalidPatch(
                f"messages[{index}]: a tool result without a tool-call turn right before it"
            )
        calls = item.get("tool_calls") or []
        ids = [str(c["id"]) for c in calls]
        if len(set(ids)) != len(ids):
            raise InvalidPatch(f"messages[{index}]: duplicate tool call ids")
        reused = [i for i in ids if i in seen_ids]
        if reused:
            raise InvalidPatch(
                f"messages[{index}]: tool call id {reused[0]!r} is used by an earlier turn; "
                "call ids are unique in a session (provider_call_id need not be)"
            )
        seen_ids.update(ids)
        entries.append(Message(seq, str(role), item.get("content", ""), ids))
        turn_seq = seq
        seq += 1
        results: dict[str, dict[str, Any]] = {}
        index += 1
        while index < len(items) and items[index].get("role") == "tool":
            call_id = str(items[index].get("tool_call_id"))
            if call_id not in ids:
                raise InvalidPatch(
                    f"messages[{index}]: tool result for {call_id!r}, which the turn before "
                    "did not call"
                )
            if call_id in results:
                raise InvalidPatch(f"messages[{index}]: a second result for {call_id!r}")
            results[call_id] = items[index]
            index += 1
        missing = [i for i in ids if i not in results]
        if missing:
            raise InvalidPatch(
                f"messages: the tool-call turn at messages[{index - 1 - len(results)}]"
                f" has no result for {missing}"
            )
        for idx, call in enumerate(calls):
            result = results[str(call["id"])]
            status = CallStatus.ERROR if result.get("is_error") else CallStatus.OK
            provider_id = call.get("provider_call_id")
            entries.append(
                ToolCall(
                    str(call["id"]),
                    seq,
                    turn_seq,
                    idx,
                    str(call["name"]),
                    call.get("arguments", {}),
                    status,
                    result.get("content"),
                    provider_call_id=None if provider_id is None else str(provider_id),
                )
            )
            seq += 1
    return entries


# -- comparing two trajectories ----------------------------------------------------------


@dataclass(frozen=True)
class Step:
    text: Any
    tool_calls: list[dict[str, Any]]

    def key(self) -> str:
        """What makes two steps the same: everything but the call ids, and, in a child
        run's result (a sub-agent's, a planner node's), its ids and what it spent."""
        return json.dumps(
            [
                self.text,
                [
                    {
                        k: _without_child_ids(v) if k == "result" else v
                        for k, v in c.items()
                        if k != "id"
                    }
                    for c in self.tool_calls
                ],
            ],
            sort_keys=True,
            default=str,
        )


CHILD_RESULT_NOISE = frozenset({"run_id", "session_id", "usage"})


def _without_child_ids(result: Any) -> Any:
    if isinstance(result, dict) and "run_id" in result and "session_id" in result:
        return {k: v for k, v in result.items() if k not in CHILD_RESULT_NOISE}
    return result


def steps_of(entries: list[Entry]) -> list[Step]:
    calls = {e.id: e for e in entries if isinstance(e, ToolCall)}
    steps = []
    for entry in entries:
        if isinstance(entry, Message) and entry.role == "assistant":
            steps.append(
                Step(
                    entry.content,
                    [
                        {
                            "id": calls[i].id,
                            "name": calls[i].name,
                            "arguments": calls[i].arguments,
                            "status": calls[i].status.value,
                            "result": calls[i].result,
                        }
                        for i in entry.tool_call_ids
                        if i in calls
                    ],
                )
            )
    return steps


def compare(
    a: list[Step], b: list[Step], finish_a: str | None, finish_b: str | None
) -> dict[str, Any]:
    """diverged_at (first differing step, ids aside, or None) and the drift between them."""
    diverged_at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x.key() != y.key()), None
    )
    if diverged_at is None and len(a) != len(b):
        diverged_at = min(len(a), len(b))
    tool_order = []
    arguments = []
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        names_a = [c["name"] for c in x.tool_calls]
        names_b = [c["name"] for c in y.tool_calls]
        if names_a != names_b:
            tool_order.append({"step": i, "a": names_a, "b": names_b})
            continue
        for ca, cb in zip(x.tool_calls, y.tool_calls, strict=True):
            if ca["arguments"] != cb["arguments"]:
                arguments.append(
                    {"step": i, "tool": ca["name"], "a": ca["arguments"], "b": cb["arguments"]}
                )
    return {
        "diverged_at": diverged_at,
        "drift": {
            "tool_order": tool_order,
            "arguments": arguments,
            "step_count": None if len(a) == len(b) else {"a": len(a), "b": len(b)},
            "finish_reason": None if finish_a == finish_b else {"a": finish_a, "b": finish_b},
        },
    }
