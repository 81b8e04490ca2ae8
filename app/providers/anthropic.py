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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from app.capabilities import DEFAULT_MODEL_REPLY_BYTES
from app.domain.agent import AnthropicModel, ToolSpec
from app.domain.run import Usage
from app.providers.base import ModelReply, ModelRequest, ProposedCall, as_text
from app.providers.http_errors import MalformedReply, endpoint, post_json, read_api_key

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
        return await post_json(
            self.client,
            provider=PROVIDER,
            url=self.url,
            body=self.request_body(request),
            headers=headers,
            timeout_s=self.spec.timeout_s,
            secret=key,
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
