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
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from app.capabilities import DEFAULT_MODEL_REPLY_BYTES
from app.domain.agent import OpenAIModel, ToolSpec
from app.domain.run import Usage
from app.providers.base import ModelReply, ModelRequest, ProposedCall, as_text
from app.providers.http_errors import MalformedReply, endpoint, post_json, read_api_key

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
        body = dict(self.spec.params)  # the definition refused keys we set ourselves
        body["model"] = self.spec.name
        body["messages"] = [wire_message(m) for m in request.messages]
        if request.tools:
            body["tools"] = [wire_tool(t) for t in request.tools]
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
