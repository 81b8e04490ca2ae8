"""The `openai` provider: the Chat Completions wire format over httpx.

Speaks to OpenAI and to the servers that copy its format (vLLM, Ollama, LiteLLM, ...):
`POST {base_url}/chat/completions`, `base_url` ending in `/v1`.

From the neutral transcript (`app.engine.transcript`):
- an assistant turn becomes `{"role": "assistant", "content": text or null, "tool_calls":
  [{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}]}`;
- a tool result becomes `{"role": "tool", "tool_call_id", "content": "<text>"}` (JSON text
  unless the result already is a string; an error result says so in its content).

From the reply: `choices[0].message` gives the text and the calls (several calls in one
reply are one parallel batch). A call whose `arguments` is not valid JSON is passed on as
the raw string, so the engine answers it with an `invalid_arguments` error result the
model can read, rather than failing the run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from app.domain.agent import OpenAIModel, ToolSpec
from app.domain.run import Usage
from app.providers.base import ModelReply, ModelRequest, ProposedCall, as_text
from app.providers.http_errors import MalformedReply, endpoint, post_json, read_api_key

PROVIDER = "openai"
# Body fields the adapter owns: `params` cannot replace them.


class OpenAIChat:
    def __init__(
        self,
        spec: OpenAIModel,
        client: httpx.AsyncClient,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.spec = spec
        self.client = client
        self.environ = environ
        self.url = endpoint(spec.base_url, "/chat/completions")

    async def generate(self, request: ModelRequest) -> ModelReply:
        key = read_api_key(self.spec.api_key_env, self.environ)
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
        text = as_text(content)
        calls = message.get("tool_calls") or []
        out: dict[str, Any] = {"role": "assistant", "content": text or (None if calls else "")}
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
        return out
    # system and user: text, or a list of content parts the caller wrote for this API.
    if isinstance(content, list):
        return {"role": role, "content": content}
    return {"role": role, "content": as_text(content)}


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
    return ModelReply(text=content, tool_calls=calls, usage=parse_usage(payload.get("usage")))


def parse_call(index: int, raw: Any) -> ProposedCall:
    where = f'"choices[0].message.tool_calls[{index}]'
    function = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(function, dict):
        raise MalformedReply(f'{where}.function" is not an object')
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise MalformedReply(f'{where}.function.name" is not a non-empty string')
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        if not arguments.strip():
            return ProposedCall(name, {})  # some servers send "" for a call with no arguments
        try:
            return ProposedCall(name, json.loads(arguments))
        except ValueError:
            return ProposedCall(name, arguments)  # the engine answers: invalid_arguments
    if arguments is None:
        return ProposedCall(name, {})
    if isinstance(arguments, dict):
        return ProposedCall(name, arguments)  # a lenient server sent the object itself
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
