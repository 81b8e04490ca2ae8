"""The providers' wire formats, for the adapter tests, served by `tests.fake_http`.

A `FakeServer` on a vendor's endpoint path answers POSTs from a queue of scripted
`Reply`s and records every request it receives, so a test can assert on exactly what an
adapter sent.

`openai_*` and `anthropic_*` build reply bodies in each vendor's documented format.
`openai_stream` and `anthropic_stream` (for `server.stream_as`) send such a reply the way
the vendor streams it when a request asks (`"stream": true`): server-sent events in the
vendor's event format, the text and the tool arguments cut into small pieces, the bytes
cut into small chunks regardless of event boundaries.
`openai_conversation` and `anthropic_conversation` are vendor checks (`server.check`): like
the real APIs they refuse a follow-up that does not give back what the model sent, so a
server serving one conversation fails the run the way the vendor would.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

from tests.fake_http import Check, Reply, Seen

# How small the pieces of a streamed reply are: text and arguments in characters, the
# body's chunks on the wire in bytes.
PIECE = 3
WIRE_CHUNK = 16

OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"


# -- OpenAI Chat Completions -------------------------------------------------------------


def openai_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    """A tool call as OpenAI sends it: `arguments` is JSON text (a str is sent as is)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def openai_reply(
    text: str | None = None,
    calls: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] = (0, 0),
    **fields: Any,
) -> Reply:
    """A reply; `fields` are more fields of its message (`reasoning_content`, `refusal`)."""
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None, **fields}
    if calls:
        message["tool_calls"] = calls
    return Reply(
        body={
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "gpt-test",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": usage[0] + usage[1],
            },
        }
    )


def tool_then_done(request: Seen) -> Reply:
    """For `FakeServer.respond`, serving many runs at once: a `noop` tool call to a new
    conversation, `done` once its result came back."""
    if request.body["messages"][-1]["role"] == "user":
        return openai_reply(calls=[openai_call("c1", "noop", {"size": 64})])
    return openai_reply("done")


def conversation_position(body: dict[str, Any]) -> tuple[str, int]:
    """Which conversation an OpenAI request is part of (its first user message, which a
    test makes unique) and where in it (the number of messages before the reply)."""
    first = next(m for m in body["messages"] if m["role"] == "user")
    return first["content"], len(body["messages"])


def openai_error(
    status: int, message: str, kind: str = "invalid_request_error", **reply: Any
) -> Reply:
    body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return Reply(status, body, **reply)


def openai_conversation(id_rule: str | None = None) -> Check:
    """Chat Completions' follow-up rules, for a server that serves one conversation.

    - A `tool_calls` turn is followed by one `tool` message per call, and a `tool` message
      answers a call of the turn right before it (OpenAI's own rule and wording).
    - The k-th assistant message gives back exactly what the k-th reply said: its content,
      its calls (ids, names, arguments) and its `reasoning_content` and `refusal` (servers
      that reason across tool calls refuse a turn without its reasoning).
    - With `id_rule` (a regex), every call id must match it in full, as Mistral's
      endpoint wants (9 letters or digits) and says when it refuses.
    """
    rule = re.compile(id_rule) if id_rule is not None else None

    def check(body: Any, answered: list[Any]) -> Reply | None:
        messages: list[dict[str, Any]] = body.get("messages", [])
        turn = 0
        open_ids: list[str] = []  # calls of the last tool_calls turn still unanswered
        for index, message in enumerate(messages):
            role = message.get("role")
            if role != "tool" and open_ids:
                return openai_error(400, unanswered(open_ids))
            if role == "tool":
                call_id = message.get("tool_call_id")
                if rule is not None and not rule.fullmatch(str(call_id)):
                    return openai_error(400, mistral_id_refusal(call_id))
                if call_id not in open_ids:
                    return openai_error(
                        400,
                        "Invalid parameter: messages with role 'tool' must be a response to a "
                        "preceeding message with 'tool_calls'.",
                    )
                open_ids.remove(call_id)
            elif role == "assistant":
                if turn >= len(answered):
                    return openai_error(400, f"fake vendor: messages[{index}] was never replied")
                issued = answered[turn]["choices"][0]["message"]
                turn += 1
                calls = message.get("tool_calls") or []
                for call in calls:
                    if rule is not None and not rule.fullmatch(str(call.get("id"))):
                        return openai_error(400, mistral_id_refusal(call.get("id")))
                problem = turn_differs(message, issued)
                if problem is not None:
                    return openai_error(400, f"fake vendor: messages[{index}]: {problem}")
                open_ids = [str(c.get("id")) for c in calls]
        if open_ids:
            return openai_error(400, unanswered(open_ids))
        return None

    return check


def unanswered(call_ids: list[str]) -> str:
    return (
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(call_ids)
    )


def mistral_id_refusal(call_id: Any) -> str:
    return f"Tool call id was {call_id} but must be a-z, A-Z, 0-9, with a length of 9."


def turn_differs(sent: dict[str, Any], issued: dict[str, Any]) -> str | None:
    """How an assistant message sent back differs from the reply's message, if it does."""
    for name in ("content", "reasoning_content", "refusal"):
        if sent.get(name) != issued.get(name):
            return f"{name} is {sent.get(name)!r}, the model said {issued.get(name)!r}"

    def calls(message: dict[str, Any]) -> list[tuple[Any, Any, Any]]:
        out = []
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            arguments = function.get("arguments")
            with contextlib.suppress(TypeError, ValueError):  # not JSON: compared as text
                arguments = json.loads(arguments)
            out.append((call.get("id"), function.get("name"), arguments))
        return out

    if calls(sent) != calls(issued):
        return f"tool_calls are {calls(sent)}, the model sent {calls(issued)}"
    return None


# -- Anthropic Messages ------------------------------------------------------------------


def anthropic_tool_use(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def anthropic_reply(
    text: str | None = None,
    calls: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] = (0, 0),
    **usage_extra: int,
) -> Reply:
    content: list[dict[str, Any]] = []
    if text:
        content.append({"type": "text", "text": text})
    content.extend(calls or [])
    return anthropic_blocks(*content, usage=usage, **usage_extra)


def anthropic_blocks(
    *content: dict[str, Any], usage: tuple[int, int] = (0, 0), **usage_extra: int
) -> Reply:
    """A reply whose content is exactly these blocks, in this order."""
    calls = any(block.get("type") == "tool_use" for block in content)
    return Reply(
        body={
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": list(content),
            "stop_reason": "tool_use" if calls else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1], **usage_extra},
        }
    )


def anthropic_error(
    status: int, message: str, kind: str = "invalid_request_error", **reply: Any
) -> Reply:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return Reply(status, body, **reply)


THINKING_REFUSAL = (
    "messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We "
    "recommend you include thinking blocks from previous turns. To avoid this requirement, "
    "disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
THINKING_TYPES = ("thinking", "redacted_thinking")


def anthropic_conversation(body: Any, answered: list[Any]) -> Reply | None:
    """The Messages API's follow-up rules, for a server that serves one conversation.

    As the real API (and in its words): a thinking block must come back with the signature
    it was given; with `thinking` enabled, the assistant turn before the last tool results
    must start with its thinking; every `tool_use` is answered by a `tool_result` in the
    next message, and a `tool_result` answers a `tool_use` of the message before it. And,
    stricter than the API: the k-th assistant message is the k-th reply's content, block
    for block, in its order (ids included).
    """
    messages: list[dict[str, Any]] = body.get("messages", [])
    thinking = (body.get("thinking") or {}).get("type") == "enabled"
    assistant_at = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if len(assistant_at) > len(answered):
        return anthropic_error(400, "fake vendor: more assistant turns than replies")
    issued_thinking = {
        json.dumps(block, sort_keys=True)
        for reply in answered
        for block in reply["content"]
        if block.get("type") == "thinking"
    }
    for index in assistant_at:
        for j, block in enumerate(messages[index]["content"]):
            if block.get("type") == "thinking" and (
                json.dumps(block, sort_keys=True) not in issued_thinking
            ):
                return anthropic_error(
                    400, f"messages.{index}.content.{j}: Invalid `signature` in `thinking` block"
                )
    last_use = max((i for i in assistant_at if any_block(messages[i], "tool_use")), default=None)
    if thinking and last_use is not None:
        first = messages[last_use]["content"][0].get("type")
        if first not in THINKING_TYPES:
            return anthropic_error(400, THINKING_REFUSAL.format(index=last_use, found=first))
    for index, message in enumerate(messages):
        uses = [b["id"] for b in message["content"] if b.get("type") == "tool_use"]
        following = messages[index + 1]["content"] if index + 1 < len(messages) else []
        answers = [b.get("tool_use_id") for b in following if b.get("type") == "tool_result"]
        missing = [u for u in uses if u not in answers]
        if message.get("role") == "assistant" and missing:
            return anthropic_error(
                400,
                f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message.",
            )
        earlier = messages[index - 1]["content"] if index else []
        used = [b.get("id") for b in earlier if b.get("type") == "tool_use"]
        for j, block in enumerate(message["content"]):
            if block.get("type") == "tool_result" and block.get("tool_use_id") not in used:
                return anthropic_error(
                    400,
                    f"messages.{index}.content.{j}: unexpected `tool_use_id` found in "
                    f"`tool_result` blocks: {block.get('tool_use_id')}. Each `tool_result` "
                    "block must have a corresponding `tool_use` block in the previous message.",
                )
    for turn, index in enumerate(assistant_at):
        sent, replied = messages[index]["content"], answered[turn]["content"]
        if sent != replied:
            return anthropic_error(
                400, f"fake vendor: messages.{index} is {sent}, the model replied {replied}"
            )
    return None


def any_block(message: dict[str, Any], kind: str) -> bool:
    return any(block.get("type") == kind for block in message["content"])


# -- streams (server-sent events) --------------------------------------------------------


def pieces(text: str, size: int = PIECE) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def sse_frame(data: Any, event: str | None = None) -> bytes:
    """One server-sent event: `data` as JSON (a str as it is, as `[DONE]`)."""
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event is not None else ""
    return f"{head}data: {text}\n\n".encode()


def event_stream(*frames: bytes, cut: bool = False, hold: Any = None) -> Reply:
    """A 200 `text/event-stream` reply of these frames, sent in `WIRE_CHUNK`-byte chunks
    (an event is often split over two). `cut`: the connection is closed after the last
    frame, without the body's end. `hold` (a callable): called after the first frame,
    before the rest is sent (a test's way to see what arrived before the rest)."""
    first, rest = (frames[0], b"".join(frames[1:])) if frames else (b"", b"")

    def chunks() -> Iterator[bytes]:
        yield from (first[i : i + WIRE_CHUNK] for i in range(0, len(first), WIRE_CHUNK))
        if hold is not None:
            hold()
        yield from (rest[i : i + WIRE_CHUNK] for i in range(0, len(rest), WIRE_CHUNK))

    return Reply(
        200,
        headers={"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"},
        stream=chunks,
        cut=cut,
    )


def openai_chunk(delta: dict[str, Any] | None, finish: str | None = None, **fields: Any) -> Any:
    """A `chat.completion.chunk`: one choice with this delta (None: no choice)."""
    choices = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": choices if delta is not None else [],
        **fields,
    }


def openai_chunks(body: dict[str, Any], include_usage: bool) -> list[Any]:
    """The chunks Chat Completions streams for the reply `body`, in its order: the role,
    then the text fields piece by piece, then each call (id and name, then its arguments
    piece by piece), the finish reason, the usage when asked for, `[DONE]`."""
    choice = body["choices"][0]
    message = choice["message"]
    extra = {"usage": None} if include_usage else {}
    first: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
    if message.get("content") is not None and not message.get("tool_calls"):
        first["content"] = ""  # as OpenAI does: text replies open with an empty content
    out: list[Any] = [openai_chunk(first, **extra)]
    for name in ("reasoning_content", "refusal", "content"):
        value = message.get(name)
        if isinstance(value, str):
            out.extend(openai_chunk({name: piece}, **extra) for piece in pieces(value))
    for index, call in enumerate(message.get("tool_calls") or []):
        head = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        out.append(openai_chunk({"tool_calls": [head]}, **extra))
        out.extend(
            openai_chunk(
                {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}, **extra
            )
            for piece in pieces(call["function"]["arguments"])
        )
    out.append(openai_chunk({}, choice["finish_reason"], **extra))
    if include_usage:
        out.append(openai_chunk(None, usage=body.get("usage")))
    out.append("[DONE]")
    return out


def openai_stream(reply: Reply, request: Seen) -> Reply:
    """For `server.stream_as`: the reply as Chat Completions streams it (its usage only
    if the request asked, with `stream_options.include_usage`, as OpenAI does)."""
    options = request.body.get("stream_options") or {}
    chunks = openai_chunks(reply.body, include_usage=options.get("include_usage") is True)
    return event_stream(*(sse_frame(chunk) for chunk in chunks))


def anthropic_events(body: dict[str, Any]) -> list[tuple[str, Any]]:
    """The events the Messages API streams for the reply `body`, as (type, data)."""
    usage = dict(body["usage"])
    output_tokens = usage.pop("output_tokens", 0)
    start = {**body, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    out: list[tuple[str, Any]] = [("message_start", {"type": "message_start", "message": start})]
    out.append(("ping", {"type": "ping"}))
    for index, block in enumerate(body["content"]):
        out.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening(block)},
            )
        )
        out.extend(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in block_deltas(block)
        )
        out.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    end = {"stop_reason": body["stop_reason"], "stop_sequence": None}
    out.append(
        (
            "message_delta",
            {"type": "message_delta", "delta": end, "usage": {"output_tokens": output_tokens}},
        )
    )
    out.append(("message_stop", {"type": "message_stop"}))
    return out


def opening(block: dict[str, Any]) -> dict[str, Any]:
    """A block as `content_block_start` gives it, before its deltas."""
    kind = block["type"]
    if kind == "text":
        rest = {k: v for k, v in block.items() if k not in ("text", "citations")}
        return {**rest, "text": ""}
    if kind == "tool_use":
        return {**block, "input": {}}
    if kind == "thinking":
        return {"type": "thinking", "thinking": ""}
    return block  # redacted_thinking and the rest: whole


def block_deltas(block: dict[str, Any]) -> list[dict[str, Any]]:
    kind = block["type"]
    if kind == "text":
        cited = [{"type": "citations_delta", "citation": c} for c in block.get("citations") or []]
        return cited + [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
    if kind == "tool_use":
        text = json.dumps(block["input"]) if block["input"] else ""
        return [{"type": "input_json_delta", "partial_json": p} for p in ["", *pieces(text)]]
    if kind == "thinking":
        thought = [{"type": "thinking_delta", "thinking": p} for p in pieces(block["thinking"])]
        return [*thought, {"type": "signature_delta", "signature": block["signature"]}]
    return []


def anthropic_stream(reply: Reply, request: Seen) -> Reply:
    """For `server.stream_as`: the reply as the Messages API streams it."""
    return event_stream(*(sse_frame(data, event) for event, data in anthropic_events(reply.body)))
