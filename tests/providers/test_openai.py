"""The `openai` provider (Chat Completions) against a local server speaking that format.

End to end: agents defined over the API run in the in-process worker pool, whose model
calls go over real HTTP to a `FakeServer` on 127.0.0.1; the tests assert on the exact
requests it received. Error classification is also tested at the adapter level.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import Any
from uuid import uuid4

import httpx
import pytest

from app.domain.agent import AnthropicModel, OpenAIModel, ToolSpec
from app.providers.anthropic import AnthropicMessages
from app.providers.base import ModelError, ModelRequest
from app.providers.openai import OpenAIChat
from app.providers.registry import build_model
from tests import support
from tests.agents import ADD_SCHEMA, python_tool
from tests.fake_http import FakeServer, Reply, closed_port_url, fake_server
from tests.providers.fake_servers import (
    OPENAI_PATH,
    openai_call,
    openai_conversation,
    openai_error,
    openai_reply,
    openai_stream,
)
from tests.support import get_json, run_to_rest, transcript, usage

KEY_ENV = "TEST_OPENAI_API_KEY"  # the tests' grant: TEST_*_API_KEY@127.0.0.1:*
KEY = "sk-perdure-test-7f3a9c1e5b-never-log-me"
ADD = {**python_tool("add", "add", ADD_SCHEMA), "description": "Add two integers"}
WIRE_ADD = {
    "type": "function",
    "function": {"name": "add", "description": "Add two integers", "parameters": ADD_SCHEMA},
}
QUESTION = "What is 2 + 3 + 10?"
OPENING = [
    {"role": "system", "content": "You add numbers."},
    {"role": "user", "content": QUESTION},
]


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with fake_server(OPENAI_PATH) as fake:
        yield fake


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY


async def define(live: httpx.AsyncClient, server: FakeServer, **model: Any) -> None:
    """The agent `gpt` on this server, which from now on checks follow-ups as a vendor."""
    if server.check is None:
        server.check = openai_conversation()
    await support.define(
        live,
        {
            "id": "gpt",
            "instructions": "You add numbers.",
            "model": {
                "provider": "openai",
                "name": "gpt-test",
                "base_url": f"{server.url}/v1",
                "api_key_env": KEY_ENV,
                **model,
            },
            "tools": [ADD],
        },
    )


def decoded(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Wire messages with their JSON text fields parsed, after checking they are text."""
    out = []
    for message in messages:
        message = json.loads(json.dumps(message))
        for call in message.get("tool_calls", []):
            assert isinstance(call["function"]["arguments"], str), call
            call["function"]["arguments"] = json.loads(call["function"]["arguments"])
        if message["role"] == "tool":
            assert isinstance(message["content"], str), message
            message["content"] = json.loads(message["content"])
        out.append(message)
    return out


def wire_turn(text: str | None, *calls: tuple[str, dict[str, Any], Any]) -> list[dict[str, Any]]:
    """An assistant turn and its results as the adapter must send them (JSON parsed)."""
    return [
        {
            "role": "assistant",
            "content": text,
            "tool_calls": [
                {"id": i, "type": "function", "function": {"name": "add", "arguments": args}}
                for i, args, _ in calls
            ],
        },
        *({"role": "tool", "tool_call_id": i, "content": result} for i, _, result in calls),
    ]


# -- end to end through the service ------------------------------------------------------


async def test_tool_loop__runs_end_to_end_over_the_wire(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(
        openai_reply(calls=[openai_call("call_up1", "add", {"a": 2, "b": 3})], usage=(11, 3)),
        openai_reply(
            "Now add 10.", calls=[openai_call("call_up2", "add", {"a": 5, "b": 10})], usage=(20, 4)
        ),
        openai_reply("2 + 3 + 10 = 15", usage=(35, 6)),
    )
    await define(live, server)

    run = await run_to_rest(live, "s1", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "finished", run
    assert run["output"] == "2 + 3 + 10 = 15"
    assert run["steps"] == 3
    assert usage(run) == (66, 13, 3)
    items = await transcript(live, "s1")
    assert [m["role"] for m in items] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    first, second = items[2]["tool_calls"][0], items[4]["tool_calls"][0]
    assert (first["name"], first["arguments"]) == ("add", {"a": 2, "b": 3})
    assert (second["name"], second["arguments"]) == ("add", {"a": 5, "b": 10})
    assert items[3]["tool_call_id"] == first["id"]
    assert items[3]["content"] == {"result": 5}
    assert items[4]["content"] == "Now add 10."
    assert items[5]["tool_call_id"] == second["id"]
    assert items[5]["content"] == {"result": 15}
    assert items[6]["content"] == "2 + 3 + 10 = 15"

    requests = server.seen()
    assert len(requests) == 3
    for sent in requests:
        assert sent.path == OPENAI_PATH
        assert sent.headers["authorization"] == f"Bearer {KEY}"
        assert sent.headers["content-type"] == "application/json"
        assert sent.body["model"] == "gpt-test"
        assert sent.body["tools"] == [WIRE_ADD]
    turn1 = wire_turn(None, (first["id"], {"a": 2, "b": 3}, {"result": 5}))
    turn2 = wire_turn("Now add 10.", (second["id"], {"a": 5, "b": 10}, {"result": 15}))
    assert requests[0].body["messages"] == OPENING
    assert decoded(requests[1].body["messages"]) == OPENING + turn1
    assert decoded(requests[2].body["messages"]) == OPENING + turn1 + turn2

    # A second send continues the session; the session's usage sums its runs.
    server.push(openai_reply("You are welcome.", usage=(100, 7)))
    again = await run_to_rest(live, "s1", {"input": "Thanks"})
    assert again["status"] == "finished", again
    assert usage(again) == (100, 7, 1)
    assert decoded(server.seen()[3].body["messages"]) == [
        *OPENING,
        *turn1,
        *turn2,
        {"role": "assistant", "content": "2 + 3 + 10 = 15"},
        {"role": "user", "content": "Thanks"},
    ]
    session = await get_json(live, "/v1/sessions/s1")
    assert usage(session) == (166, 20, 4)
    fetched = await get_json(live, f"/v1/runs/{run['id']}")
    assert usage(fetched) == (66, 13, 3)


async def test_streamed__the_tool_loop_runs_the_same_over_streams(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.stream_as = openai_stream
    server.push(
        openai_reply(calls=[openai_call("call_s1", "add", {"a": 2, "b": 3})], usage=(11, 3)),
        openai_reply("2 + 3 = 5", usage=(20, 4)),
    )
    await define(live, server, stream=True)

    run = await run_to_rest(live, "s1", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "finished", run
    assert run["output"] == "2 + 3 = 5"
    assert usage(run) == (31, 7, 2)  # counted from the streams' last chunks
    items = await transcript(live, "s1")
    call = items[2]["tool_calls"][0]
    assert (call["provider_call_id"], call["arguments"]) == ("call_s1", {"a": 2, "b": 3})
    assert items[3]["content"] == {"result": 5}
    requests = server.seen()
    assert [r.body["stream"] for r in requests] == [True, True]
    # The vendor check passed: the streamed turn went back exactly as the model sent it.
    turn = wire_turn(None, ("call_s1", {"a": 2, "b": 3}, {"result": 5}))
    assert decoded(requests[1].body["messages"]) == OPENING + turn


async def test_parallel_calls__one_turn_many_results_in_call_order(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(
        openai_reply(
            "Both at once.",
            calls=[
                openai_call("call_x", "add", {"a": 1, "b": 2}),
                openai_call("call_y", "add", {"a": 30, "b": 40}),
            ],
        ),
        openai_reply("3 and 70"),
    )
    await define(live, server)

    run = await run_to_rest(live, "par", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "finished", run
    assert run["steps"] == 2
    items = await transcript(live, "par")
    assert [m["role"] for m in items] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    one, two = items[2]["tool_calls"]
    assert one["arguments"] == {"a": 1, "b": 2}
    assert two["arguments"] == {"a": 30, "b": 40}
    assert [(m["tool_call_id"], m["content"]) for m in items[3:5]] == [
        (one["id"], {"result": 3}),
        (two["id"], {"result": 70}),
    ]
    requests = server.wait_requests(2)
    assert decoded(requests[1].body["messages"]) == OPENING + wire_turn(
        "Both at once.",
        (one["id"], {"a": 1, "b": 2}, {"result": 3}),
        (two["id"], {"a": 30, "b": 40}, {"result": 70}),
    )


async def test_arguments_not_json__the_model_gets_an_error_result_and_its_text_back(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    truncated = '{"a": 2, "b": '
    server.push(
        openai_reply(calls=[openai_call("call_t", "add", truncated)]), openai_reply("Sorry.")
    )
    await define(live, server)

    run = await run_to_rest(live, "bad-args", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "finished", run
    items = await transcript(live, "bad-args")
    call = items[2]["tool_calls"][0]
    assert call["arguments"] == truncated
    assert items[3]["status"] == "error"
    assert items[3]["content"]["error"] == "invalid_arguments"
    sent = server.wait_requests(2)[1].body["messages"]
    assert sent[2]["tool_calls"][0]["function"]["arguments"] == truncated
    assert sent[3]["tool_call_id"] == call["id"]
    assert json.loads(sent[3]["content"])["error"] == "invalid_arguments"


async def test_call_ids__the_model_gets_back_exactly_the_ids_it_sent(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    """A Mistral-style endpoint: its ids are 9 letters or digits, and it refuses others."""
    server.check = openai_conversation(id_rule=r"[A-Za-z0-9]{9}")
    server.push(
        openai_reply(
            calls=[
                openai_call("a1B2c3D4e", "add", {"a": 2, "b": 3}),
                openai_call("Zz9Yy8Xx7", "add", {"a": 1, "b": 1}),
            ]
        ),
        openai_reply(calls=[openai_call("q7W8e9R0t", "add", {"a": 5, "b": 10})]),
        openai_reply("15"),
    )
    await define(live, server)

    run = await run_to_rest(live, "ids", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "finished", run["last_error"]
    items = await transcript(live, "ids")
    ids = ["a1B2c3D4e", "Zz9Yy8Xx7", "q7W8e9R0t"]
    calls = [*items[2]["tool_calls"], *items[5]["tool_calls"]]
    assert [(c["id"], c["provider_call_id"]) for c in calls] == [(i, i) for i in ids]
    assert [m["tool_call_id"] for m in items if m["role"] == "tool"] == ids
    requests = server.wait_requests(3)
    turn1 = wire_turn(
        None,
        ("a1B2c3D4e", {"a": 2, "b": 3}, {"result": 5}),
        ("Zz9Yy8Xx7", {"a": 1, "b": 1}, {"result": 2}),
    )
    turn2 = wire_turn(None, ("q7W8e9R0t", {"a": 5, "b": 10}, {"result": 15}))
    assert decoded(requests[1].body["messages"]) == OPENING + turn1
    assert decoded(requests[2].body["messages"]) == OPENING + turn1 + turn2


async def test_call_ids__a_reused_provider_id_gets_its_own_call_id_but_goes_back_as_sent(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    """Servers that number calls per turn (`call_0`, `call_1`, ...) reuse ids: a call whose
    id is taken in the session gets a Perdure id; the model still gets its own id back."""
    server.push(
        openai_reply(calls=[openai_call("call_0", "add", {"a": 2, "b": 3})]),
        openai_reply(
            calls=[
                openai_call("call_0", "add", {"a": 5, "b": 10}),
                openai_call("call_1", "add", {"a": 1, "b": 1}),
            ]
        ),
        openai_reply("15"),
    )
    await define(live, server)

    run = await run_to_rest(live, "reused", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "finished", run["last_error"]
    items = await transcript(live, "reused")
    (first,) = items[2]["tool_calls"]
    second, third = items[4]["tool_calls"]
    assert (first["id"], first["provider_call_id"]) == ("call_0", "call_0")
    assert second["provider_call_id"] == "call_0"
    assert second["id"].startswith("call_")
    assert second["id"] not in ("call_0", "call_1")
    assert (third["id"], third["provider_call_id"]) == ("call_1", "call_1")
    assert [(m["tool_call_id"], m["content"]) for m in items if m["role"] == "tool"] == [
        ("call_0", {"result": 5}),
        (second["id"], {"result": 15}),
        ("call_1", {"result": 2}),
    ]
    # Each call is also reachable by its own id: the checkpoint rebuilds the same transcript.
    checkpoints = await get_json(live, "/v1/sessions/reused/checkpoints")
    newest = await get_json(
        live, f"/v1/sessions/reused/checkpoints/{checkpoints['items'][0]['seq']}"
    )
    assert newest["messages"] == items
    turn1 = wire_turn(None, ("call_0", {"a": 2, "b": 3}, {"result": 5}))
    turn2 = wire_turn(
        None,
        ("call_0", {"a": 5, "b": 10}, {"result": 15}),
        ("call_1", {"a": 1, "b": 1}, {"result": 2}),
    )
    assert decoded(server.wait_requests(3)[2].body["messages"]) == OPENING + turn1 + turn2


async def test_reasoning_content_and_refusal__given_back_on_the_assistant_turn(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    """Servers that reason across tool calls (DeepSeek, Kimi, vLLM) want the turn's
    `reasoning_content` back; a refusal goes back as a refusal, with null content."""
    reasoning = "The user wants 2 + 3; the add tool does that."
    server.push(
        openai_reply(
            calls=[openai_call("call_r1", "add", {"a": 2, "b": 3})], reasoning_content=reasoning
        ),
        openai_reply(None, refusal="I can't help with that."),
    )
    await define(live, server)

    run = await run_to_rest(live, "think", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "finished", run["last_error"]
    assert run["output"] == "I can't help with that."
    server.push(openai_reply("Fine: 5."))
    again = await run_to_rest(live, "think", {"input": "Please?"})
    assert again["status"] == "finished", again["last_error"]
    turn1 = wire_turn(None, ("call_r1", {"a": 2, "b": 3}, {"result": 5}))
    turn1[0]["reasoning_content"] = reasoning
    requests = server.wait_requests(3)
    assert decoded(requests[1].body["messages"]) == OPENING + turn1
    assert decoded(requests[2].body["messages"]) == [
        *OPENING,
        *turn1,
        {"role": "assistant", "content": None, "refusal": "I can't help with that."},
        {"role": "user", "content": "Please?"},
    ]


async def test_429__retried_after_retry_after(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(
        openai_error(
            429, "Rate limit reached for gpt-test", "requests", headers={"Retry-After": "0.4"}
        ),
        openai_reply("Done."),
    )
    await define(live, server)

    run = await run_to_rest(live, "rl", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "finished", run
    assert run["output"] == "Done."
    assert (run["attempts"], run["last_error"]) == (0, None)
    limited, retried = server.seen()
    # The worker's own back-off is ~0.05 s here: only Retry-After makes it wait this long.
    assert retried.at - limited.at >= 0.4
    assert retried.body == limited.body


async def test_5xx__retried_until_the_model_answers(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(
        openai_error(500, "The server had an error while processing your request.", "server_error"),
        Reply(
            502,
            raw=b"<html><body>502 Bad Gateway</body></html>",
            headers={"content-type": "text/html"},
        ),
        openai_reply("Done."),
    )
    await define(live, server)

    run = await run_to_rest(live, "5xx", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "finished", run
    assert run["output"] == "Done."
    requests = server.seen()
    assert len(requests) == 3
    assert requests[0].body == requests[1].body == requests[2].body


async def test_400__fails_the_run_with_the_providers_message(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(openai_error(400, "Invalid schema for function 'add': 'b' is not valid."))
    await define(live, server)

    run = await run_to_rest(live, "400", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "failed", run
    error = run["last_error"]
    assert error["retryable"] is False
    assert error["code"] == "client_error"
    assert "HTTP 400" in error["message"]
    assert "Invalid schema for function 'add': 'b' is not valid." in error["message"]
    assert f"{server.url}{OPENAI_PATH}" in error["message"]
    assert len(server.seen()) == 1


async def test_malformed_reply__fails_the_run_not_retryable(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(Reply(200, raw=b'{"id": "chatcmpl-1", "choices": ['))
    await define(live, server)

    run = await run_to_rest(live, "mal", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "failed", run
    assert run["last_error"]["code"] == "malformed_reply"
    assert run["last_error"]["retryable"] is False
    assert "not JSON" in run["last_error"]["message"]
    assert len(server.seen()) == 1


async def test_slow_reply__times_out_and_is_retried(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(replace(openai_reply("Too late."), delay_s=2.0), openai_reply("In time."))
    await define(live, server, timeout_s=0.3)

    run = await run_to_rest(live, "slow", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "finished", run
    assert run["output"] == "In time."
    slow, retried = server.seen()
    assert 0.3 <= retried.at - slow.at < 1.5


async def test_api_key__never_in_errors_run_transcript_or_logs(
    live: httpx.AsyncClient, server: FakeServer, key: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    # A careless proxy that echoes the key back in its errors.
    server.push(
        openai_reply(calls=[openai_call("call_k", "add", {"a": 1, "b": 1})]),
        openai_error(500, f"upstream failed for key {KEY}", "server_error"),
        openai_error(401, f"Incorrect API key provided: {KEY}.", "invalid_request_error"),
    )
    await define(live, server)

    run = await run_to_rest(live, "key", {"agent_id": "gpt", "input": QUESTION})

    assert run["status"] == "failed", run
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.seen())
    message = run["last_error"]["message"]
    assert "HTTP 401" in message
    assert "Incorrect API key provided: [redacted]" in message
    assert "model error (server_error)" in caplog.text  # the worker's log was captured
    exposed = {
        "run": await get_json(live, f"/v1/runs/{run['id']}"),
        "runs": await get_json(live, "/v1/runs?session_id=key"),
        "session": await get_json(live, "/v1/sessions/key"),
        "transcript": await transcript(live, "key"),
        "agent": await get_json(live, "/v1/agents/gpt"),
    }
    for name, value in exposed.items():
        assert KEY not in json.dumps(value), name
    assert KEY not in caplog.text
    assert not [r for r in caplog.records if KEY in r.getMessage()]


# -- the adapter alone -------------------------------------------------------------------


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as http:
        yield http


def adapter(
    base_url: str,
    client: httpx.AsyncClient,
    environ: dict[str, str] | None = None,
    **spec: Any,
) -> OpenAIChat:
    model = OpenAIModel(
        provider="openai",
        name="gpt-test",
        base_url=base_url,
        **{"api_key_env": KEY_ENV, **spec},
    )
    return OpenAIChat(model, client, environ={KEY_ENV: KEY} if environ is None else environ)


def request(
    messages: list[dict[str, Any]] | None = None, tools: list[ToolSpec] | None = None
) -> ModelRequest:
    return ModelRequest(
        session_id="s",
        run_id=uuid4(),
        messages=messages or [{"role": "user", "content": "hi"}],
        tools=tools or [],
        position=0,
        attempt=0,
    )


async def failure(model: OpenAIChat) -> ModelError:
    with pytest.raises(ModelError) as caught:
        await model.generate(request())
    return caught.value


async def test_request__body_headers_and_reply(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    server.push(
        openai_reply(
            None,
            calls=[
                openai_call("c1", "add", {"a": 1, "b": 2}),
                openai_call("c2", "noop", ""),
            ],
            usage=(12, 5),
        )
    )
    model = adapter(
        f"{server.url}/v1",
        client,
        params={"temperature": 0.2, "max_tokens": 50},
    )
    tools = [
        ToolSpec.model_validate(ADD | {"description": "Add"}),
        ToolSpec.model_validate(python_tool("noop", "noop")),
    ]

    reply = await model.generate(request(tools=tools))

    assert reply.text == ""
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("c1", "add", {"a": 1, "b": 2}),
        ("c2", "noop", {}),
    ]
    assert reply.provider_data == {}  # nothing to give back beyond text and calls
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (12, 5)
    (sent,) = server.seen()
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.body == {
        "model": "gpt-test",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {
                "type": "function",
                "function": {"name": "add", "description": "Add", "parameters": ADD_SCHEMA},
            },
            {"type": "function", "function": {"name": "noop", "parameters": {"type": "object"}}},
        ],
        "temperature": 0.2,
        "max_tokens": 50,
    }


async def test_request__transcript_shapes(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.push(openai_reply("ok"))
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "parts as written"}]},
        {"role": "user", "content": {"kind": "structured"}},
        {
            "role": "assistant",
            "content": "Calling.",
            "tool_calls": [{"id": "call_1", "name": "noop", "arguments": {}}],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "name": "noop",
            "content": "xx",
            "is_error": False,
        },
        {"role": "assistant", "content": ""},
    ]

    reply = await adapter(f"{server.url}/v1", client).generate(request(messages))

    assert reply.text == "ok"
    assert reply.tool_calls == []
    assert server.seen()[0].body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "parts as written"}]},
        {"role": "user", "content": '{"kind": "structured"}'},
        {
            "role": "assistant",
            "content": "Calling.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "noop", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "xx"},  # a string stays as it is
        {"role": "assistant", "content": ""},  # null only beside tool_calls
    ]
    assert "tools" not in server.seen()[0].body


async def test_reply__call_without_an_id_and_reasoning(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    call = openai_call("", "add", {"a": 1, "b": 2})
    del call["id"]
    server.push(openai_reply("Adding.", calls=[call], reasoning_content="1 + 2, simple."))
    reply = await adapter(f"{server.url}/v1", client).generate(request())
    assert [(c.id, c.name) for c in reply.tool_calls] == [(None, "add")]
    assert reply.provider_data == {"openai": {"reasoning_content": "1 + 2, simple."}}


async def test_request__kept_fields_go_back_only_to_this_provider(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    server.push(openai_reply("ok"))
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_0", "name": "noop", "arguments": {}}],
            "provider_data": {"openai": {"reasoning_content": "think", "unknown": 1}},
        },
        {"role": "tool", "tool_call_id": "call_0", "name": "noop", "content": "x"},
        {
            "role": "assistant",
            "content": "No.",
            "provider_data": {"openai": {"refusal": "No.", "content": None}},
        },
        {
            "role": "assistant",
            "content": "Thought hard.",
            "provider_data": {"anthropic": {"content": [{"type": "thinking"}]}},
        },
    ]

    await adapter(f"{server.url}/v1", client).generate(request(messages))

    sent = server.seen()[0].body["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": "noop", "arguments": "{}"}}
        ],
        "reasoning_content": "think",
    }
    assert sent[3] == {"role": "assistant", "content": None, "refusal": "No."}
    assert sent[4] == {"role": "assistant", "content": "Thought hard."}


async def test_url__base_path_and_query_kept_but_query_and_userinfo_never_shown(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    server.push(openai_error(404, "The model `gpt-test` does not exist", "invalid_request_error"))
    host = server.url.removeprefix("http://")
    model = adapter(f"http://user:hunter2@{host}/v1/?api-version=2024-06-01&sig=s3cr3t", client)

    error = await failure(model)

    (sent,) = server.seen()
    assert sent.path == f"{OPENAI_PATH}?api-version=2024-06-01&sig=s3cr3t"
    assert (error.code, error.retryable) == ("client_error", False)
    assert f"HTTP 404 from http://{host}{OPENAI_PATH}:" in error.message
    assert "does not exist" in error.message
    assert "s3cr3t" not in error.message
    assert "hunter2" not in error.message


async def test_api_key__no_env_no_header(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.push(openai_reply("ok"))
    await adapter(f"{server.url}/v1", client, api_key_env=None).generate(request())
    assert "authorization" not in server.seen()[0].headers


@pytest.mark.parametrize("environ", [{}, {KEY_ENV: ""}])
async def test_api_key__missing_is_not_retryable_and_sends_nothing(
    server: FakeServer, client: httpx.AsyncClient, environ: dict[str, str]
) -> None:
    error = await failure(adapter(f"{server.url}/v1", client, environ=environ))
    assert (error.code, error.retryable) == ("api_key_missing", False)
    assert KEY_ENV in error.message
    assert server.seen() == []


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"Retry-After": "soon"}, None),
        ({}, None),
    ],
)
async def test_429__rate_limited_with_retry_after(
    server: FakeServer,
    client: httpx.AsyncClient,
    headers: dict[str, str],
    expected: float | None,
) -> None:
    server.push(openai_error(429, "Rate limit reached", "requests", headers=headers))
    error = await failure(adapter(f"{server.url}/v1", client))
    assert (error.code, error.retryable, error.retry_after_s) == ("rate_limited", True, expected)
    assert "HTTP 429" in error.message
    assert "Rate limit reached" in error.message


async def test_retry_after__http_date(server: FakeServer, client: httpx.AsyncClient) -> None:
    from email.utils import formatdate

    server.push(
        openai_error(
            503, "busy", headers={"Retry-After": formatdate(time.time() + 30, usegmt=True)}
        )
    )
    error = await failure(adapter(f"{server.url}/v1", client))
    assert (error.code, error.retryable) == ("server_error", True)
    assert error.retry_after_s is not None
    assert 27 <= error.retry_after_s <= 30


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [
        (500, "server_error", True),
        (502, "server_error", True),
        (503, "server_error", True),
        (408, "timeout", True),
        (409, "client_error", True),
        (400, "client_error", False),
        (401, "client_error", False),
        (403, "client_error", False),
        (404, "client_error", False),
        (422, "client_error", False),
    ],
)
async def test_status__classified(
    server: FakeServer, client: httpx.AsyncClient, status: int, code: str, retryable: bool
) -> None:
    server.push(openai_error(status, f"the provider says {status}"))
    error = await failure(adapter(f"{server.url}/v1", client))
    assert (error.code, error.retryable, error.retry_after_s) == (code, retryable, None)
    assert f"HTTP {status}" in error.message
    assert f"the provider says {status}" in error.message


async def test_status__long_body_is_truncated(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    server.push(
        Reply(
            502, raw=b"<html>" + b"x" * 20_000 + b"</html>", headers={"content-type": "text/html"}
        )
    )
    error = await failure(adapter(f"{server.url}/v1", client))
    assert (error.code, error.retryable) == ("server_error", True)
    assert "<html>xxx" in error.message
    assert len(error.message) < 700


async def test_redirect__not_followed(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.push(Reply(307, raw=b"", headers={"location": "https://elsewhere.test/v1?token=t0k"}))
    error = await failure(adapter(f"{server.url}/v1", client))
    assert (error.code, error.retryable) == ("client_error", False)
    assert "redirect to https://elsewhere.test/v1" in error.message
    assert "t0k" not in error.message
    assert len(server.seen()) == 1


OK_CHOICE = {"message": {"role": "assistant", "content": "hi"}}


@pytest.mark.parametrize(
    ("body", "complaint"),
    [
        (b"<html>not json</html>", "not JSON"),
        (b"", "not JSON"),
        (b"[1, 2]", "expected a JSON object, got list"),
        (b"{}", '"choices"'),
        (json.dumps({"choices": []}).encode(), '"choices"'),
        (json.dumps({"choices": [{"message": None}]}).encode(), '"choices[0].message"'),
        (json.dumps({"choices": [{"message": {"content": 42}}]}).encode(), "content"),
        (json.dumps({"choices": [{"message": {"tool_calls": {"a": 1}}}]}).encode(), "tool_calls"),
        (
            json.dumps({"choices": [{"message": {"tool_calls": [{"function": "add"}]}}]}).encode(),
            "tool_calls[0].function",
        ),
        (
            json.dumps(
                {"choices": [{"message": {"tool_calls": [{"function": {"arguments": "{}"}}]}}]}
            ).encode(),
            "tool_calls[0].function.name",
        ),
        (
            json.dumps(
                {
                    "choices": [
                        {"message": {"tool_calls": [{"function": {"name": "add", "arguments": 5}}]}}
                    ]
                }
            ).encode(),
            "arguments",
        ),
        (json.dumps({"choices": [OK_CHOICE], "usage": "lots"}).encode(), '"usage"'),
        (
            json.dumps({"choices": [OK_CHOICE], "usage": {"prompt_tokens": "9"}}).encode(),
            "usage.prompt_tokens",
        ),
    ],
)
async def test_malformed__not_retryable_and_says_what(
    server: FakeServer, client: httpx.AsyncClient, body: bytes, complaint: str
) -> None:
    server.push(Reply(200, raw=body))
    error = await failure(adapter(f"{server.url}/v1", client))
    assert (error.code, error.retryable) == ("malformed_reply", False)
    assert complaint in error.message
    assert error.message.startswith(f"openai: malformed reply from {server.url}{OPENAI_PATH}")


async def test_reply__usage_absent_counts_zero(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    server.push(Reply(200, {"choices": [{"message": {"content": None, "refusal": "I can't."}}]}))
    reply = await adapter(f"{server.url}/v1", client).generate(request())
    assert reply.text == "I can't."
    assert reply.provider_data == {"openai": {"refusal": "I can't.", "content": None}}
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (0, 0)


async def test_timeout__slow_headers(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.push(replace(openai_reply("late"), delay_s=3.0))
    started = time.monotonic()
    error = await failure(adapter(f"{server.url}/v1", client, timeout_s=0.3))
    elapsed = time.monotonic() - started
    assert (error.code, error.retryable) == ("timeout", True)
    assert "within 0.3s" in error.message
    assert 0.25 <= elapsed < 1.5


async def test_timeout__bounds_the_whole_reply_not_each_read(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    # Every chunk comes well within 0.3 s, but the whole body takes ~1.5 s.
    server.push(replace(openai_reply("dribbled"), dribble_s=0.15, chunks=10))
    started = time.monotonic()
    error = await failure(adapter(f"{server.url}/v1", client, timeout_s=0.5))
    assert (error.code, error.retryable) == ("timeout", True)
    assert time.monotonic() - started < 1.2


async def test_connection_refused__retryable(client: httpx.AsyncClient) -> None:
    url = closed_port_url()
    error = await failure(adapter(f"{url}/v1", client))
    assert (error.code, error.retryable) == ("connection_error", True)
    assert f"could not reach {url}{OPENAI_PATH}" in error.message


async def test_registry__builds_the_wire_adapters(client: httpx.AsyncClient) -> None:
    http = client
    openai = OpenAIModel(provider="openai", name="gpt-test")
    anthropic = AnthropicModel(provider="anthropic", name="claude-test")
    built = build_model(openai, http)
    assert isinstance(built, OpenAIChat)
    assert built.spec is openai
    assert built.client is http
    assert str(built.url) == "https://api.openai.com/v1/chat/completions"
    other = build_model(anthropic, http)
    assert isinstance(other, AnthropicMessages)
    assert other.spec is anthropic
    assert str(other.url) == "https://api.anthropic.com/v1/messages"
