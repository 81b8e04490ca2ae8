"""The `openai` provider: the Chat Completions wire format over httpx.

Speaks to OpenAI and to the servers that copy its format (vLLM, Ollama, LiteLLM, ...):
`POST {base_url}/chat/completions`, `base_url` ending in `/v1`.

From the neutral transcript (`app.engine.transcript`):
- an assistant turn becomes `{"role": "assistant", "content": text or null, "tool_calls":
  [{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}]}`, plus
  the fields the model sent that the neutral form does not hold (`REPLAYED_FIELDS`, and a
  null `content` beside a refusal), exactly as it sent them;
- a tool result becomes `{"role": "tool", "tool_call_id", "content": "<text>"}` (JSON text
  unless the result already is a string; an error result says so in its content).
Call ids are the model's own: the transcript keeps each as the model sent it
(`provider_call_id`) and gives it back so, even where Perdure's own id for the call differs.

From the reply: `choices[0].message` gives the text (or, without one, the refusal), the
calls with their ids (several calls in one reply are one parallel batch) and the fields to
give back. A call whose `arguments` is not valid JSON is passed on as the raw string, so
the engine answers it with an `invalid_arguments` error result the model can read, rather
than failing the run.

Streamed (`"stream": true`, `app.providers.streaming`): the request adds `"stream": true`
and `stream_options.include_usage` (else a stream counts no tokens), and the `data:`
chunks until `[DONE]` are added up to the message above (`ChunkAssembler`): the text
fields (`content`, `refusal`, `reasoning_content`) are the concatenation of their deltas,
null when none came; a call is assembled from its `delta.tool_calls` pieces by `index`
(its id and name from the first piece that has them, its arguments the concatenation of
every piece's fragment); `usage` comes in the last chunk. Only `content` deltas go to
`on_delta`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import httpx
from httpx_sse import ServerSentEvent

from app.capabilities import DEFAULT_MODEL_REPLY_BYTES
from app.domain.agent import OpenAIModel, ToolSpec
from app.domain.run import Usage
from app.providers.base import ModelReply, ModelRequest, ProposedCall, as_text
from app.providers.http_errors import MalformedReply, endpoint, read_api_key
from app.providers.streaming import StreamBroken, error_detail, event_json, post_model

PROVIDER = "openai"
# Assistant-message fields given back as the model sent them, where it sent them: servers
# that reason across tool calls (DeepSeek, Kimi, vLLM) want the turn's reasoning back, and
# a refusal stays a refusal.
REPLAYED_FIELDS = ("reasoning_content", "refusal")


class OpenAIChat:
    def __init__(
        self,
        spec: OpenAIModel,
        client: httpx.AsyncClient,
        environ: Mapping[str, str] | None = None,
        max_reply_bytes: int = DEFAULT_MODEL_REPLY_BYTES,
    ) -> None:
        self.spec = spec
        self.client = client
        self.environ = environ
        self.max_reply_bytes = max_reply_bytes
        self.url = endpoint(spec.base_url, "/chat/completions")

    async def generate(self, request: ModelRequest) -> ModelReply:
        key = read_api_key(self.spec.api_key_env, self.environ, self.url)
        headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
        return await post_model(
            self.client,
            provider=PROVIDER,
            url=self.url,
            body=self.request_body(request),
            headers=headers,
            timeout_s=self.spec.timeout_s,
            secret=key,
            assembler=ChunkAssembler(request.on_delta) if self.spec.stream else None,
            parse=parse_reply,
            max_bytes=self.max_reply_bytes,
        )

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        params = self.spec.params
        body = dict(params)  # the definition refused keys we set ourselves
        body["model"] = self.spec.name
        body["messages"] = [wire_message(m) for m in request.messages]
        if request.tools:
            body["tools"] = [wire_tool(t) for t in request.tools]
        if self.spec.stream:
            body["stream"] = True
            # Without it a stream carries no token counts at all.
            options = params.get("stream_options")
            body["stream_options"] = {
                **(options if isinstance(options, dict) else {}),
                "include_usage": True,
            }
        return body


# -- to the wire -------------------------------------------------------------------------


def wire_tool(tool: ToolSpec) -> dict[str, Any]:
    function: dict[str, Any] = {"name": tool.name}
    if tool.description:
        function["description"] = tool.description
    function["parameters"] = tool.input_schema
    return {"type": "function", "function": function}


def wire_message(message: dict[str, Any]) -> dict[str, Any]:
    role = message["role"]
    content = message.get("content")
    if role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message["tool_call_id"],
            "content": as_text(content),
        }
    if role == "assistant":
        calls = message.get("tool_calls") or []
        out: dict[str, Any] = {
            "role": "assistant",
            "content": wire_content(as_text(content), bool(calls)),
        }
        if calls:
            out["tool_calls"] = [
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        # A raw string is what the model sent (invalid JSON): send it back.
                        "arguments": call["arguments"]
                        if isinstance(call["arguments"], str)
                        else json.dumps(call["arguments"], ensure_ascii=False),
                    },
                }
                for call in calls
            ]
        out.update(replayed(message))
        return out
    # system and user: text, or a list of content parts the caller wrote for this API.
    if isinstance(content, list):
        return {"role": role, "content": content}
    return {"role": role, "content": as_text(content)}


def wire_content(text: str, has_calls: bool) -> str | None:
    return text or (None if has_calls else "")


def replayed(message: dict[str, Any]) -> dict[str, Any]:
    """The fields this adapter kept from the model's turn (none from another provider)."""
    data = message.get("provider_data")
    kept = data.get(PROVIDER) if isinstance(data, dict) else None
    if not isinstance(kept, dict):
        return {}
    return {name: kept[name] for name in ("content", *REPLAYED_FIELDS) if name in kept}


# -- from the wire -----------------------------------------------------------------------


def parse_reply(payload: Any) -> ModelReply:
    if not isinstance(payload, dict):
        raise MalformedReply(f"expected a JSON object, got {type(payload).__name__}")
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices:
        raise MalformedReply('no "choices" (expected a non-empty list)')
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise MalformedReply('"choices[0].message" is not an object')
    content = message.get("content")
    if content is None:
        refusal = message.get("refusal")
        content = refusal if isinstance(refusal, str) else ""
    if not isinstance(content, str):
        raise MalformedReply(
            f'"choices[0].message.content" is {type(content).__name__}, not a string or null'
        )
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise MalformedReply('"choices[0].message.tool_calls" is not a list')
    calls = [parse_call(index, raw) for index, raw in enumerate(raw_calls)]
    kept = {name: message[name] for name in REPLAYED_FIELDS if message.get(name) is not None}
    if message.get("content") is None and wire_content(content, bool(calls)) is not None:
        kept["content"] = None  # the text is the refusal: the content was null
    return ModelReply(
        text=content,
        tool_calls=calls,
        usage=parse_usage(payload.get("usage")),
        provider_data={PROVIDER: kept} if kept else {},
    )


def parse_call(index: int, raw: Any) -> ProposedCall:
    where = f'"choices[0].message.tool_calls[{index}]'
    function = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(function, dict):
        raise MalformedReply(f'{where}.function" is not an object')
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise MalformedReply(f'{where}.function.name" is not a non-empty string')
    call_id = raw.get("id")
    if not isinstance(call_id, str) or not call_id:
        call_id = None  # some compatible servers send none: the engine makes one up
    return ProposedCall(name, parse_arguments(where, function.get("arguments")), call_id)


def parse_arguments(where: str, arguments: Any) -> Any:
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}  # some servers send "" for a call with no arguments
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments  # the engine answers: invalid_arguments
    if arguments is None:
        return {}
    if isinstance(arguments, dict):
        return arguments  # a lenient server sent the object itself
    raise MalformedReply(f'{where}.function.arguments" is {type(arguments).__name__}')


def parse_usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()  # some compatible servers do not count
    if not isinstance(usage, dict):
        raise MalformedReply('"usage" is not an object')
    return Usage(
        input_tokens=token_count(usage, "prompt_tokens"),
        output_tokens=token_count(usage, "completion_tokens"),
    )


def token_count(usage: dict[str, Any], field: str) -> int:
    value = usage.get(field)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MalformedReply(f'"usage.{field}" is {value!r}, not a token count')
    return value


# -- from a stream -----------------------------------------------------------------------

# The message's text fields, streamed as pieces to be joined.
STREAMED_FIELDS = ("content", *REPLAYED_FIELDS)


class ChunkAssembler:
    """Chat Completions chunks added up to the reply they stream (`parse_reply`'s input)."""

    def __init__(self, on_delta: Callable[[str], None] | None = None) -> None:
        self.on_delta = on_delta
        self.done = False
        self.fields: dict[str, list[str]] = {}
        self.calls: dict[int, dict[str, Any]] = {}
        self.usage: Any = None

    def feed(self, event: ServerSentEvent) -> None:
        if event.data.strip() == "[DONE]":
            self.done = True
            return
        chunk = event_json(event)
        if not isinstance(chunk, dict):
            raise MalformedReply(f"a chunk is {type(chunk).__name__}, not a JSON object")
        if chunk.get("error") is not None:  # what OpenAI sends when it fails midway
            raise StreamBroken(f"an error chunk: {error_detail(chunk['error'])}")
        if chunk.get("usage") is not None:  # in the last chunk, whose `choices` is empty
            self.usage = chunk["usage"]
        choices = chunk.get("choices") or []
        if not isinstance(choices, list):
            raise MalformedReply('a chunk\'s "choices" is not a list')
        for choice in choices:
            if not isinstance(choice, dict):
                raise MalformedReply('a chunk\'s "choices[]" is not an object')
            if choice.get("index", 0) == 0:  # the one choice asked for (`n` is 1)
                self.add_delta(choice.get("delta"))

    def add_delta(self, delta: Any) -> None:
        if delta is None:
            return
        if not isinstance(delta, dict):
            raise MalformedReply('"choices[0].delta" is not an object')
        for name in STREAMED_FIELDS:
            piece = delta.get(name)
            if isinstance(piece, str):
                self.fields.setdefault(name, []).append(piece)
                if name == "content" and piece and self.on_delta is not None:
                    self.on_delta(piece)
        pieces = delta.get("tool_calls") or []
        if not isinstance(pieces, list):
            raise MalformedReply('"choices[0].delta.tool_calls" is not a list')
        for position, piece in enumerate(pieces):
            self.add_call_piece(position, piece)

    def add_call_piece(self, position: int, piece: Any) -> None:
        if not isinstance(piece, dict):
            raise MalformedReply('"choices[0].delta.tool_calls[]" is not an object')
        index = piece.get("index", position)  # a server that sends none sends calls whole
        function = piece.get("function") or {}
        if isinstance(index, bool) or not isinstance(index, int) or not isinstance(function, dict):
            raise MalformedReply(f'"choices[0].delta.tool_calls[{position}]" is not a call')
        call = self.calls.setdefault(
            index, {"type": "function", "function": {"name": "", "arguments": ""}}
        )
        # The id and the name come whole in the call's first piece; some servers repeat
        # them in every piece, so only the first is taken.
        call_id, name = piece.get("id"), function.get("name")
        if "id" not in call and isinstance(call_id, str) and call_id:
            call["id"] = call_id
        if not call["function"]["name"] and isinstance(name, str):
            call["function"]["name"] = name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call["function"]["arguments"] += arguments
        elif arguments is not None:  # a lenient server sent the object itself, whole
            call["function"]["arguments"] = arguments

    def payload(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None}
        message.update({name: "".join(parts) for name, parts in self.fields.items()})
        if self.calls:
            message["tool_calls"] = [self.calls[index] for index in sorted(self.calls)]
        return {"choices": [{"index": 0, "message": message}], "usage": self.usage}
