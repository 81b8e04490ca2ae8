"""The `anthropic` provider: the Messages API wire format over httpx.

`POST {base_url}/v1/messages` (`base_url` is the bare host) with `x-api-key` and
`anthropic-version: 2023-06-01`.

From the neutral transcript (`app.engine.transcript`):
- the system message goes to the body's own `system` field, never into `messages`;
- an assistant turn becomes content blocks: `{"type": "text"}` (left out when empty),
  then one `{"type": "tool_use", "id", "name", "input"}` per call, the id the model's own;
  a turn whose blocks that would not reproduce (thinking and redacted_thinking blocks,
  several text blocks, citations) goes back as the blocks the model sent, in their order;
- a tool result becomes a `{"type": "tool_result", "tool_use_id", "content": "<text>",
  "is_error"}` block in a user message.
The API wants user and assistant messages to alternate, so consecutive messages of one
role are merged into one: a turn's results become one user message, and input that
follows them (a new send after a failed or cancelled run) joins it, after the results.

From the reply: `text` blocks are joined into the text, `tool_use` blocks are the calls.
When the blocks say more than that, they are kept too (`provider_data`): with `thinking`
enabled the API refuses a tool_result follow-up whose assistant turn lost its thinking
block or its signature. A kept `tool_use` block leaves its `input` out: that is the call's
arguments, stored once. Input tokens count cache writes and reads too, so they compare
with Chat Completions' `prompt_tokens`.

Streamed (`"stream": true`, `app.providers.streaming`): the events until `message_stop`
are added up to the message above (`EventAssembler`): `message_start` opens it (with the
input token counts), `content_block_start` opens each block as the API sends it,
`content_block_delta` adds to a block (`text_delta`, `thinking_delta`, `signature_delta`
to its text, thinking and signature; `citations_delta` to its citations; a tool_use
block's `input_json_delta` pieces make its `input`, parsed once the stream ends),
`message_delta` gives the stop reason and the final counts; `ping` and event types
the adapter does not know are skipped, an `error` event breaks the stream off. Only
`text_delta`s go to `on_delta`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import httpx
from httpx_sse import ServerSentEvent

from app.capabilities import DEFAULT_MODEL_REPLY_BYTES
from app.domain.agent import AnthropicModel, ToolSpec
from app.domain.run import Usage
from app.providers.base import ModelReply, ModelRequest, ProposedCall, as_text
from app.providers.http_errors import MalformedReply, endpoint, read_api_key
from app.providers.streaming import StreamBroken, error_detail, event_json, post_model

PROVIDER = "anthropic"
API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
# Body fields the adapter owns: `params` cannot replace them.
INPUT_TOKEN_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


class AnthropicMessages:
    def __init__(
        self,
        spec: AnthropicModel,
        client: httpx.AsyncClient,
        environ: Mapping[str, str] | None = None,
        max_reply_bytes: int = DEFAULT_MODEL_REPLY_BYTES,
    ) -> None:
        self.spec = spec
        self.client = client
        self.environ = environ
        self.max_reply_bytes = max_reply_bytes
        self.url = endpoint(spec.base_url, "/v1/messages")

    async def generate(self, request: ModelRequest) -> ModelReply:
        key = read_api_key(self.spec.api_key_env, self.environ, self.url)
        headers = {"anthropic-version": API_VERSION}
        if key is not None:
            headers["x-api-key"] = key
        return await post_model(
            self.client,
            provider=PROVIDER,
            url=self.url,
            body=self.request_body(request),
            headers=headers,
            timeout_s=self.spec.timeout_s,
            secret=key,
            assembler=EventAssembler(request.on_delta) if self.spec.stream else None,
            parse=parse_reply,
            max_bytes=self.max_reply_bytes,
        )

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        params = self.spec.params
        body = dict(params)  # the definition refused keys we set ourselves
        body["model"] = self.spec.name
        body["max_tokens"] = params.get("max_tokens", DEFAULT_MAX_TOKENS)
        system, messages = wire_messages(request.messages)
        if system is not None:
            body["system"] = system
        body["messages"] = messages
        if request.tools:
            body["tools"] = [wire_tool(t) for t in request.tools]
        if self.spec.stream:
            body["stream"] = True
        return body


# -- to the wire -------------------------------------------------------------------------


def wire_tool(tool: ToolSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"name": tool.name}
    if tool.description:
        out["description"] = tool.description
    out["input_schema"] = tool.input_schema
    return out


def text_blocks(content: Any) -> list[dict[str, Any]]:
    """User or system content as blocks: a list is taken as blocks written for this API."""
    if isinstance(content, list):
        return [
            item if isinstance(item, dict) else {"type": "text", "text": as_text(item)}
            for item in content
        ]
    text = as_text(content)
    return [{"type": "text", "text": text}] if text else []


def wire_messages(
    messages: list[dict[str, Any]],
) -> tuple[str | list[dict[str, Any]] | None, list[dict[str, Any]]]:
    """(the `system` field, the alternating `messages`) for a neutral transcript."""
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return  # an empty message is invalid; leaving it out keeps the order
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for message in messages:
        role = message["role"]
        content = message.get("content")
        if role == "system":
            system.extend(text_blocks(content))
        elif role == "tool":
            add(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": message["tool_call_id"],
                        "content": as_text(content),
                        "is_error": bool(message.get("is_error", False)),
                    }
                ],
            )
        elif role == "assistant":
            calls = message.get("tool_calls") or []
            blocks = replayed_blocks(message, calls)
            add("assistant", blocks if blocks is not None else turn_blocks(content, calls))
        else:
            add("user", text_blocks(content))
    return system_field(system), out


def turn_blocks(content: Any, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An assistant turn's blocks from its neutral text and calls."""
    blocks: list[dict[str, Any]] = []
    text = as_text(content)
    if text:
        blocks.append({"type": "text", "text": text})
    for call in calls:
        arguments = call["arguments"]
        blocks.append(
            {
                "type": "tool_use",
                "id": call["id"],
                "name": call["name"],
                # `input` must be an object; a call that had none was answered with an
                # invalid_arguments result already.
                "input": arguments if isinstance(arguments, dict) else {},
            }
        )
    return blocks


def replayed_blocks(
    message: dict[str, Any], calls: list[dict[str, Any]]
) -> list[dict[str, Any]] | None:
    """The blocks the model sent for this turn, if this adapter kept them; each kept
    `tool_use` block gets its `input` back from the call it stands for, in call order."""
    data = message.get("provider_data")
    kept = data.get(PROVIDER) if isinstance(data, dict) else None
    layout = kept.get("content") if isinstance(kept, dict) else None
    if not isinstance(layout, list) or not all(isinstance(b, dict) for b in layout):
        return None
    if sum(1 for b in layout if b.get("type") == "tool_use") != len(calls):
        return None  # not the turn these calls came from: build it from them instead
    arguments = iter(call["arguments"] for call in calls)
    return [
        {**block, "input": next(arguments)} if block.get("type") == "tool_use" else block
        for block in layout
    ]


def system_field(blocks: list[dict[str, Any]]) -> str | list[dict[str, Any]] | None:
    """Plain text when the system message is only text (the common case), else blocks."""
    if not blocks:
        return None
    if all(set(b) == {"type", "text"} and b["type"] == "text" for b in blocks):
        return "\n\n".join(str(b["text"]) for b in blocks)
    return blocks


# -- from the wire -----------------------------------------------------------------------


def parse_reply(payload: Any) -> ModelReply:
    if not isinstance(payload, dict):
        raise MalformedReply(f"expected a JSON object, got {type(payload).__name__}")
    content = payload.get("content")
    if not isinstance(content, list):
        raise MalformedReply('"content" is not a list of blocks')
    texts: list[str] = []
    calls: list[ProposedCall] = []
    for index, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if not isinstance(kind, str):
            raise MalformedReply(f'"content[{index}]" is not a block with a "type"')
        if kind == "text":
            text = block.get("text")
            if not isinstance(text, str):
                raise MalformedReply(f'"content[{index}].text" is not a string')
            texts.append(text)
        elif kind == "tool_use":
            name = block.get("name")
            if not isinstance(name, str) or not name:
                raise MalformedReply(f'"content[{index}].name" is not a non-empty string')
            if "input" not in block:
                raise MalformedReply(f'"content[{index}]" (tool_use) has no "input"')
            call_id = block.get("id")
            calls.append(
                ProposedCall(
                    name, block["input"], call_id if isinstance(call_id, str) and call_id else None
                )
            )
    text = "".join(texts)
    return ModelReply(
        text=text,
        tool_calls=calls,
        usage=parse_usage(payload),
        provider_data=kept_blocks(content, text, calls),
    )


def kept_blocks(
    content: list[dict[str, Any]], text: str, calls: list[ProposedCall]
) -> dict[str, Any]:
    """`provider_data` for a reply: its blocks, when text and calls would not rebuild them.

    Null-valued keys (`"citations": null`) say nothing, and an empty text block is not
    sent back (the API refuses one), so neither makes a turn worth keeping.
    """
    blocks = [
        {k: v for k, v in block.items() if v is not None}
        for block in content
        if not (block["type"] == "text" and block.get("text") == "")
    ]
    neutral = turn_blocks(
        text, [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls]
    )
    if blocks == neutral:
        return {}
    layout = [
        {k: v for k, v in block.items() if k != "input"} if block["type"] == "tool_use" else block
        for block in blocks
    ]
    return {PROVIDER: {"content": layout}}


def parse_usage(payload: dict[str, Any]) -> Usage:
    usage = payload.get("usage")
    if usage is None:
        return Usage()
    if not isinstance(usage, dict):
        raise MalformedReply('"usage" is not an object')
    return Usage(
        input_tokens=sum(token_count(usage, f) for f in INPUT_TOKEN_FIELDS),
        output_tokens=token_count(usage, "output_tokens"),
    )


def token_count(usage: dict[str, Any], field: str) -> int:
    value = usage.get(field)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MalformedReply(f'"usage.{field}" is {value!r}, not a token count')
    return value


# -- from a stream -----------------------------------------------------------------------

# Deltas that add to a string field of their block.
APPENDED = {"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "signature"}


class EventAssembler:
    """Messages stream events added up to the reply they stream (`parse_reply`'s input)."""

    def __init__(self, on_delta: Callable[[str], None] | None = None) -> None:
        self.on_delta = on_delta
        self.done = False
        self.blocks: dict[int, dict[str, Any]] = {}
        # A tool_use block's input as it streams: JSON text, in pieces, by block index.
        self.inputs: dict[int, list[str]] = {}
        self.usage: dict[str, Any] = {}
        self.stop_reason: Any = None

    def feed(self, event: ServerSentEvent) -> None:
        data = event_json(event)
        if not isinstance(data, dict):
            raise MalformedReply(f"a {event.event!r} event is not a JSON object")
        match data.get("type", event.event):
            case "message_start":
                message = data.get("message")
                self.add_usage(message.get("usage") if isinstance(message, dict) else None)
            case "content_block_start":
                block = data.get("content_block")
                if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                    raise MalformedReply('a "content_block_start" without a block')
                self.blocks[block_index(data)] = dict(block)
            case "content_block_delta":
                self.add_delta(block_index(data), data.get("delta"))
            case "message_delta":
                delta = data.get("delta")
                if isinstance(delta, dict):
                    self.stop_reason = delta.get("stop_reason")
                self.add_usage(data.get("usage"))
            case "message_stop":
                self.done = True
            case "error":
                raise StreamBroken(f"an error event: {error_detail(data.get('error'))}")
            case _:
                pass  # ping, content_block_stop, and the event types added later

    def add_delta(self, index: int, delta: Any) -> None:
        block = self.blocks.get(index)
        if block is None or not isinstance(delta, dict):
            raise MalformedReply(f"a delta for content block {index}, which did not start")
        kind = delta.get("type")
        if kind in APPENDED:
            name = APPENDED[kind]
            piece = delta.get(name)
            if not isinstance(piece, str):
                raise MalformedReply(f'a "{kind}" whose "{name}" is not a string')
            block[name] = (block.get(name) or "") + piece
            if kind == "text_delta" and piece and self.on_delta is not None:
                self.on_delta(piece)
        elif kind == "input_json_delta":
            piece = delta.get("partial_json")
            if not isinstance(piece, str):
                raise MalformedReply('an "input_json_delta" whose "partial_json" is not a string')
            self.inputs.setdefault(index, []).append(piece)
        elif kind == "citations_delta":
            cited = block.get("citations")
            cited = cited if isinstance(cited, list) else []  # a text block starts with null
            block["citations"] = [*cited, delta.get("citation")]

    def add_usage(self, usage: Any) -> None:
        """Counts so far; `message_delta`'s are cumulative, so each replaces the last."""
        if usage is None:
            return
        if not isinstance(usage, dict):
            raise MalformedReply('"usage" is not an object')
        self.usage.update({name: value for name, value in usage.items() if value is not None})

    def payload(self) -> dict[str, Any]:
        content = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            text = "".join(self.inputs.get(index, []))
            if text.strip():  # no pieces (a call without arguments): the start's `{}`
                block = {**block, "input": streamed_input(index, text)}
            content.append(block)
        return {
            "type": "message",
            "role": "assistant",
            "content": content,
            "stop_reason": self.stop_reason,
            "usage": self.usage,
        }


def block_index(data: dict[str, Any]) -> int:
    index = data.get("index")
    if isinstance(index, bool) or not isinstance(index, int):
        raise MalformedReply(f'a "{data.get("type")}" event without a block "index"')
    return index


def streamed_input(index: int, text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        # The API streams valid JSON only: this one was garbled on the way.
        raise StreamBroken(f"content block {index}'s input is not JSON: {text[:200]!r}") from None
