"""The `anthropic` provider (Messages API) against a local server speaking that format.

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

from app.domain.agent import AnthropicModel, ToolSpec
from app.providers.anthropic import AnthropicMessages
from app.providers.base import ModelError, ModelRequest
from tests import support
from tests.agents import ADD_SCHEMA, python_tool
from tests.conftest import wait_status
from tests.fake_http import FakeServer, Reply, closed_port_url, fake_server
from tests.providers.fake_servers import (
    ANTHROPIC_PATH,
    anthropic_blocks,
    anthropic_conversation,
    anthropic_error,
    anthropic_reply,
    anthropic_stream,
    anthropic_tool_use,
)
from tests.support import get_json, run_to_rest, transcript, usage

KEY_ENV = "TEST_ANTHROPIC_API_KEY"  # the tests' grant: TEST_*_API_KEY@127.0.0.1:*
KEY = "sk-ant-perdure-test-4d8e2b6a0c-never-log-me"
ADD = {**python_tool("add", "add", ADD_SCHEMA), "description": "Add two integers"}
WIRE_ADD = {"name": "add", "description": "Add two integers", "input_schema": ADD_SCHEMA}
QUESTION = "What is 2 + 3 + 10?"
SYSTEM = "You add numbers."
ASK = {"role": "user", "content": [{"type": "text", "text": QUESTION}]}


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with fake_server(ANTHROPIC_PATH) as fake:
        yield fake


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY


async def define(live: httpx.AsyncClient, server: FakeServer, **model: Any) -> None:
    """The agent `claude` on this server, which from now on checks follow-ups as Anthropic."""
    server.check = anthropic_conversation
    await support.define(
        live,
        {
            "id": "claude",
            "instructions": SYSTEM,
            "model": {
                "provider": "anthropic",
                "name": "claude-test",
                "base_url": server.url,
                "api_key_env": KEY_ENV,
                **model,
            },
            "tools": [ADD],
        },
    )


def decoded(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Wire messages with tool_result contents parsed, after checking they are text; and
    the roles checked to alternate, starting with the user, as the API requires."""
    roles = [m["role"] for m in messages]
    assert roles == [("user", "assistant")[i % 2] for i in range(len(roles))], roles
    out: list[dict[str, Any]] = json.loads(json.dumps(messages))
    for message in out:
        for block in message["content"]:
            if block["type"] == "tool_result":
                assert isinstance(block["content"], str), block
                block["content"] = json.loads(block["content"])
    return out


def use(call_id: str, arguments: Any, text: str | None = None) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks.append({"type": "tool_use", "id": call_id, "name": "add", "input": arguments})
    return {"role": "assistant", "content": blocks}


def result(call_id: str, content: Any, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}


# -- end to end through the service ------------------------------------------------------


async def test_tool_loop__runs_end_to_end_over_the_wire(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(
        anthropic_reply(
            "Let me add.",
            calls=[anthropic_tool_use("toolu_01", "add", {"a": 2, "b": 3})],
            usage=(11, 3),
        ),
        anthropic_reply(
            calls=[anthropic_tool_use("toolu_02", "add", {"a": 5, "b": 10})], usage=(20, 4)
        ),
        anthropic_reply("2 + 3 + 10 = 15", usage=(35, 6)),
    )
    await define(live, server)

    run = await run_to_rest(live, "s1", {"agent_id": "claude", "input": QUESTION})

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
    assert items[2]["content"] == "Let me add."
    first, second = items[2]["tool_calls"][0], items[4]["tool_calls"][0]
    assert (first["name"], first["arguments"]) == ("add", {"a": 2, "b": 3})
    assert (second["name"], second["arguments"]) == ("add", {"a": 5, "b": 10})
    assert (items[3]["tool_call_id"], items[3]["content"]) == (first["id"], {"result": 5})
    assert (items[5]["tool_call_id"], items[5]["content"]) == (second["id"], {"result": 15})

    requests = server.seen()
    assert len(requests) == 3
    for sent in requests:
        assert sent.path == ANTHROPIC_PATH
        assert sent.headers["x-api-key"] == KEY
        assert sent.headers["anthropic-version"] == "2023-06-01"
        assert "authorization" not in sent.headers
        assert sent.headers["content-type"] == "application/json"
        body = sent.body
        assert (body["model"], body["max_tokens"], body["system"]) == ("claude-test", 4096, SYSTEM)
        assert body["tools"] == [WIRE_ADD]
    turn1 = [
        use(first["id"], {"a": 2, "b": 3}, "Let me add."),
        {"role": "user", "content": [result(first["id"], {"result": 5})]},
    ]
    turn2 = [
        use(second["id"], {"a": 5, "b": 10}),
        {"role": "user", "content": [result(second["id"], {"result": 15})]},
    ]
    assert requests[0].body["messages"] == [ASK]
    assert decoded(requests[1].body["messages"]) == [ASK, *turn1]
    assert decoded(requests[2].body["messages"]) == [ASK, *turn1, *turn2]

    # A second send continues the session; the session's usage sums its runs.
    server.push(anthropic_reply("You are welcome.", usage=(100, 7)))
    again = await run_to_rest(live, "s1", {"input": "Thanks"})
    assert again["status"] == "finished", again
    assert usage(again) == (100, 7, 1)
    assert decoded(server.seen()[3].body["messages"]) == [
        ASK,
        *turn1,
        *turn2,
        {"role": "assistant", "content": [{"type": "text", "text": "2 + 3 + 10 = 15"}]},
        {"role": "user", "content": [{"type": "text", "text": "Thanks"}]},
    ]
    assert usage(await get_json(live, "/v1/sessions/s1")) == (166, 20, 4)
    assert usage(await get_json(live, f"/v1/runs/{run['id']}")) == (66, 13, 3)


async def test_streamed__the_tool_loop_runs_the_same_over_streams(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.stream_as = anthropic_stream
    thinking = {"type": "thinking", "thinking": "2 + 3, with the tool.", "signature": "c2ln"}
    server.push(
        anthropic_blocks(
            thinking, anthropic_tool_use("toolu_s1", "add", {"a": 2, "b": 3}), usage=(11, 3)
        ),
        anthropic_reply("2 + 3 = 5", usage=(20, 4)),
    )
    await define(live, server, stream=True, params={"thinking": {"type": "enabled"}})

    run = await run_to_rest(live, "s1", {"agent_id": "claude", "input": QUESTION})

    assert run["status"] == "finished", run
    assert run["output"] == "2 + 3 = 5"
    assert usage(run) == (31, 7, 2)
    requests = server.seen()
    assert [r.body["stream"] for r in requests] == [True, True]
    # The vendor check passed: the streamed thinking block went back, signed, first.
    assert requests[1].body["messages"][1]["content"] == [
        thinking,
        {"type": "tool_use", "id": "toolu_s1", "name": "add", "input": {"a": 2, "b": 3}},
    ]


async def test_parallel_calls__results_merged_into_one_user_message(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(
        anthropic_reply(
            "Three at once.",
            calls=[
                anthropic_tool_use("toolu_a", "add", {"a": 1, "b": 2}),
                anthropic_tool_use("toolu_b", "add", {"a": "thirty", "b": 40}),
                anthropic_tool_use("toolu_c", "add", {"a": 5, "b": 6}),
            ],
        ),
        anthropic_reply("3, an error, and 11"),
    )
    await define(live, server)

    run = await run_to_rest(live, "par", {"agent_id": "claude", "input": QUESTION})

    assert run["status"] == "finished", run
    items = await transcript(live, "par")
    assert [m["role"] for m in items] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "tool",
        "assistant",
    ]
    one, two, three = (call["id"] for call in items[2]["tool_calls"])
    assert [m["tool_call_id"] for m in items[3:6]] == [one, two, three]
    assert items[4]["status"] == "error"
    invalid = items[4]["content"]
    assert invalid["error"] == "invalid_arguments"
    sent = server.wait_requests(2)[1].body["messages"]
    assert decoded(sent) == [
        ASK,
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Three at once."},
                {"type": "tool_use", "id": one, "name": "add", "input": {"a": 1, "b": 2}},
                {"type": "tool_use", "id": two, "name": "add", "input": {"a": "thirty", "b": 40}},
                {"type": "tool_use", "id": three, "name": "add", "input": {"a": 5, "b": 6}},
            ],
        },
        {
            "role": "user",
            "content": [
                result(one, {"result": 3}),
                result(two, invalid, is_error=True),
                result(three, {"result": 11}),
            ],
        },
    ]


async def test_input_after_results__joins_their_user_message(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    """A run that fails after a turn's results, then a new send: the new input follows
    the results in the same user message, so the roles still alternate."""
    server.push(
        anthropic_reply(calls=[anthropic_tool_use("toolu_1", "add", {"a": 2, "b": 3})]),
        anthropic_error(400, "prompt is too long: 210000 tokens > 200000 maximum"),
    )
    await define(live, server)
    failed = await run_to_rest(live, "again", {"agent_id": "claude", "input": QUESTION})
    assert failed["status"] == "failed", failed
    assert failed["last_error"]["code"] == "client_error"

    server.push(anthropic_reply("5"))
    run = await run_to_rest(live, "again", {"input": "Try again, please."})

    assert run["status"] == "finished", run
    call_id = (await transcript(live, "again"))[2]["tool_calls"][0]["id"]
    assert decoded(server.wait_requests(3)[2].body["messages"]) == [
        ASK,
        use(call_id, {"a": 2, "b": 3}),
        {
            "role": "user",
            "content": [
                result(call_id, {"result": 5}),
                {"type": "text", "text": "Try again, please."},
            ],
        },
    ]


async def test_call_ids__the_model_gets_back_its_own_tool_use_ids(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(
        anthropic_reply(calls=[anthropic_tool_use("toolu_01A", "add", {"a": 2, "b": 3})]),
        anthropic_reply("5"),
    )
    await define(live, server)

    run = await run_to_rest(live, "ids", {"agent_id": "claude", "input": QUESTION})

    assert run["status"] == "finished", run["last_error"]
    items = await transcript(live, "ids")
    (call,) = items[2]["tool_calls"]
    assert (call["id"], call["provider_call_id"]) == ("toolu_01A", "toolu_01A")
    assert items[3]["tool_call_id"] == "toolu_01A"
    assert decoded(server.wait_requests(2)[1].body["messages"]) == [
        ASK,
        use("toolu_01A", {"a": 2, "b": 3}),
        {"role": "user", "content": [result("toolu_01A", {"result": 5})]},
    ]


THINKING = {"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 8192}
THOUGHT_1 = {
    "type": "thinking",
    "thinking": "2 + 3 first, then add 10 to that.",
    "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds1aGhMzx4WUVx9U",
}
THOUGHT_2 = {
    "type": "thinking",
    "thinking": "5, so now 5 + 10.",
    "signature": "ErUBCkYIBRgCIkDzG3Px1kJ0d6mUf1QhE8FzgkT5Q4Wn6fC0h7sV9+L2bVxR3bQ",
}
REDACTED = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rL"}
THOUGHT_3 = {"type": "thinking", "thinking": "Done: 15.", "signature": "EpMBCkYIBRgCIkBnZ2c"}


async def test_thinking__blocks_and_signatures_go_back_in_their_order(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    """With `thinking` and tools, the API refuses a tool_result follow-up whose assistant
    turn lost its thinking: each turn goes back block for block, signatures intact."""
    turn1 = [
        THOUGHT_1,
        {"type": "text", "text": "Let me add."},
        anthropic_tool_use("toolu_01", "add", {"a": 2, "b": 3}),
    ]
    turn2 = [THOUGHT_2, REDACTED, anthropic_tool_use("toolu_02", "add", {"a": 5, "b": 10})]
    turn3 = [THOUGHT_3, {"type": "text", "text": "2 + 3 + 10 = "}, {"type": "text", "text": "15"}]
    server.push(anthropic_blocks(*turn1), anthropic_blocks(*turn2), anthropic_blocks(*turn3))
    await define(live, server, params=THINKING)

    run = await run_to_rest(live, "think", {"agent_id": "claude", "input": QUESTION})

    assert run["status"] == "finished", run["last_error"]
    assert run["output"] == "2 + 3 + 10 = 15"
    items = await transcript(live, "think")
    assert [m["content"] for m in items if m["role"] == "assistant"] == [
        "Let me add.",
        "",
        "2 + 3 + 10 = 15",
    ]
    results1 = {"role": "user", "content": [result("toolu_01", {"result": 5})]}
    results2 = {"role": "user", "content": [result("toolu_02", {"result": 15})]}
    requests = server.wait_requests(3)
    for sent in requests:
        assert sent.body["thinking"] == THINKING["thinking"]
    assert decoded(requests[1].body["messages"]) == [
        ASK,
        {"role": "assistant", "content": turn1},
        results1,
    ]
    assert decoded(requests[2].body["messages"]) == [
        ASK,
        {"role": "assistant", "content": turn1},
        results1,
        {"role": "assistant", "content": turn2},
        results2,
    ]

    # A fork of the first step, and the next send, give the saved turns back as well.
    server.push(anthropic_reply("15, from the fork."))
    fork = await live.post("/v1/sessions/think/forks", json={"from_step": 1})
    assert fork.status_code == 201, fork.text
    forked = await wait_status(live, fork.json()["run"]["id"], {"finished", "failed"})
    assert forked["status"] == "finished", forked["last_error"]
    assert decoded(server.wait_requests(4)[3].body["messages"]) == [
        ASK,
        {"role": "assistant", "content": turn1},
        results1,
    ]
    server.push(anthropic_reply("You are welcome."))
    again = await run_to_rest(live, "think", {"input": "Thanks"})
    assert again["status"] == "finished", again["last_error"]
    assert decoded(server.wait_requests(5)[4].body["messages"])[1:] == [
        {"role": "assistant", "content": turn1},
        results1,
        {"role": "assistant", "content": turn2},
        results2,
        {"role": "assistant", "content": turn3},
        {"role": "user", "content": [{"type": "text", "text": "Thanks"}]},
    ]


async def test_thinking__a_turn_without_its_thinking_is_refused_by_the_vendor_check(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    """The fake server's check is what the other tests rely on: it does refuse."""
    server.check = anthropic_conversation
    server.push(anthropic_blocks(THOUGHT_1, anthropic_tool_use("toolu_01", "add", {"a": 1})))
    model = adapter(server.url, client, params=THINKING)
    await model.generate(request())
    stripped: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "toolu_01", "name": "add", "arguments": {"a": 1}}],
        },
        {"role": "tool", "tool_call_id": "toolu_01", "name": "add", "content": "1"},
    ]
    with pytest.raises(ModelError) as caught:
        await model.generate(request(stripped))
    assert "a final `assistant` message must start with a thinking block" in caught.value.message
    assert "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`" in (
        caught.value.message
    )


async def test_429__retried_after_retry_after(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(
        anthropic_error(
            429,
            "Number of request tokens has exceeded your per-minute rate limit",
            "rate_limit_error",
            headers={"retry-after": "0.4"},
        ),
        anthropic_reply("Done."),
    )
    await define(live, server)

    run = await run_to_rest(live, "rl", {"agent_id": "claude", "input": QUESTION})

    assert run["status"] == "finished", run
    assert (run["output"], run["attempts"], run["last_error"]) == ("Done.", 0, None)
    limited, retried = server.seen()
    # The worker's own back-off is ~0.05 s here: only Retry-After makes it wait this long.
    assert retried.at - limited.at >= 0.4
    assert retried.body == limited.body


async def test_5xx_and_overloaded__retried_until_the_model_answers(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(
        anthropic_error(529, "Overloaded", "overloaded_error"),
        anthropic_error(500, "Internal server error", "api_error"),
        anthropic_reply("Done."),
    )
    await define(live, server)

    run = await run_to_rest(live, "5xx", {"agent_id": "claude", "input": QUESTION})

    assert run["status"] == "finished", run
    assert run["output"] == "Done."
    requests = server.seen()
    assert len(requests) == 3
    assert requests[0].body == requests[1].body == requests[2].body


async def test_400__fails_the_run_with_the_providers_message(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(
        anthropic_error(
            400, "tools.0.input_schema: JSON schema is invalid", "invalid_request_error"
        )
    )
    await define(live, server)

    run = await run_to_rest(live, "400", {"agent_id": "claude", "input": QUESTION})

    assert run["status"] == "failed", run
    error = run["last_error"]
    assert (error["code"], error["retryable"]) == ("client_error", False)
    assert "HTTP 400" in error["message"]
    assert "invalid_request_error: tools.0.input_schema: JSON schema is invalid" in error["message"]
    assert f"{server.url}{ANTHROPIC_PATH}" in error["message"]
    assert len(server.seen()) == 1


async def test_malformed_reply__fails_the_run_not_retryable(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(Reply(200, {"id": "msg_1", "type": "message", "content": "just a string"}))
    await define(live, server)

    run = await run_to_rest(live, "mal", {"agent_id": "claude", "input": QUESTION})

    assert run["status"] == "failed", run
    assert (run["last_error"]["code"], run["last_error"]["retryable"]) == ("malformed_reply", False)
    assert '"content" is not a list' in run["last_error"]["message"]
    assert len(server.seen()) == 1


async def test_slow_reply__times_out_and_is_retried(
    live: httpx.AsyncClient, server: FakeServer, key: str
) -> None:
    server.push(replace(anthropic_reply("Too late."), delay_s=2.0), anthropic_reply("In time."))
    await define(live, server, timeout_s=0.3)

    run = await run_to_rest(live, "slow", {"agent_id": "claude", "input": QUESTION})

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
        anthropic_reply(calls=[anthropic_tool_use("toolu_k", "add", {"a": 1, "b": 1})]),
        anthropic_error(503, f"upstream refused {KEY}", "api_error"),
        anthropic_error(401, f"invalid x-api-key: {KEY}", "authentication_error"),
    )
    await define(live, server)

    run = await run_to_rest(live, "key", {"agent_id": "claude", "input": QUESTION})

    assert run["status"] == "failed", run
    assert all(r.headers["x-api-key"] == KEY for r in server.seen())
    message = run["last_error"]["message"]
    assert "HTTP 401" in message
    assert "authentication_error: invalid x-api-key: [redacted]" in message
    assert "model error (server_error)" in caplog.text  # the worker's log was captured
    exposed = {
        "run": await get_json(live, f"/v1/runs/{run['id']}"),
        "runs": await get_json(live, "/v1/runs?session_id=key"),
        "session": await get_json(live, "/v1/sessions/key"),
        "transcript": await transcript(live, "key"),
        "agent": await get_json(live, "/v1/agents/claude"),
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
    base_url: str, client: httpx.AsyncClient, environ: dict[str, str] | None = None, **spec: Any
) -> AnthropicMessages:
    model = AnthropicModel(
        provider="anthropic",
        name="claude-test",
        base_url=base_url,
        **{"api_key_env": KEY_ENV, **spec},
    )
    return AnthropicMessages(model, client, environ={KEY_ENV: KEY} if environ is None else environ)


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


async def failure(model: AnthropicMessages) -> ModelError:
    with pytest.raises(ModelError) as caught:
        await model.generate(request())
    return caught.value


async def test_request__body_headers_and_reply(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    server.push(
        Reply(
            200,
            {
                "type": "message",
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                    {"type": "text", "text": "Adding "},
                    {"type": "text", "text": "twice."},
                    {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 2}},
                    {"type": "tool_use", "id": "toolu_2", "name": "noop", "input": {}},
                ],
                "stop_reason": "tool_use",
                "usage": {
                    "input_tokens": 5,
                    "cache_creation_input_tokens": 100,
                    "cache_read_input_tokens": 1000,
                    "output_tokens": 9,
                },
            },
        )
    )
    model = adapter(
        server.url + "/",
        client,
        params={"temperature": 0.5, "max_tokens": 256},
    )
    tools = [
        ToolSpec.model_validate(ADD | {"description": "Add"}),
        ToolSpec.model_validate(python_tool("noop", "noop")),
    ]

    reply = await model.generate(request(tools=tools))

    assert reply.text == "Adding twice."
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("toolu_1", "add", {"a": 1, "b": 2}),
        ("toolu_2", "noop", {}),
    ]
    # Kept for the next call, in order; a tool_use block's input is the call's arguments.
    assert reply.provider_data == {
        "anthropic": {
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "text", "text": "Adding "},
                {"type": "text", "text": "twice."},
                {"type": "tool_use", "id": "toolu_1", "name": "add"},
                {"type": "tool_use", "id": "toolu_2", "name": "noop"},
            ]
        }
    }
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (1105, 9)
    (sent,) = server.seen()
    assert sent.path == ANTHROPIC_PATH
    assert sent.headers["x-api-key"] == KEY
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.body == {
        "model": "claude-test",
        "max_tokens": 256,
        "temperature": 0.5,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "tools": [
            {"name": "add", "description": "Add", "input_schema": ADD_SCHEMA},
            {"name": "noop", "input_schema": {"type": "object"}},
        ],
    }


async def test_request__transcript_shapes(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.push(anthropic_reply("ok"))
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "First."},
        {"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "u"}}]},
        {"role": "assistant", "content": ""},  # an empty turn: left out
        {"role": "user", "content": {"kind": "structured"}},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "call_1", "name": "noop", "arguments": {}},
                {"id": "call_2", "name": "add", "arguments": "{not json"},
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "name": "noop",
            "content": "xx",
            "is_error": False,
        },
        {
            "role": "tool",
            "tool_call_id": "call_2",
            "name": "add",
            "content": {"error": "invalid_arguments"},
            "is_error": True,
        },
        {"role": "system", "content": "Ignored by the engine, kept here."},
    ]

    reply = await adapter(server.url, client).generate(request(messages))

    assert reply.text == "ok"
    body = server.seen()[0].body
    assert body["system"] == "Be brief.\n\nIgnored by the engine, kept here."
    assert "tools" not in body
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "First."},
                {"type": "image", "source": {"type": "url", "url": "u"}},
                {"type": "text", "text": '{"kind": "structured"}'},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "call_1", "name": "noop", "input": {}},
                {"type": "tool_use", "id": "call_2", "name": "add", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_1",
                    "content": "xx",
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "call_2",
                    "content": '{"error": "invalid_arguments"}',
                    "is_error": True,
                },
            ],
        },
    ]


async def test_reply__kept_blocks_only_when_text_and_calls_do_not_say_it_all(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    server.push(
        anthropic_blocks(
            {"type": "text", "text": ""},
            {"type": "text", "text": "Adding.", "citations": None},
            anthropic_tool_use("toolu_1", "add", {"a": 1}),
        ),
        anthropic_blocks({"type": "text", "text": "ok", "citations": [{"type": "x"}]}),
    )
    model = adapter(server.url, client)
    plain = await model.generate(request())
    cited = await model.generate(request())
    assert plain.provider_data == {}  # nothing more is stored for an ordinary turn
    assert cited.provider_data == {
        "anthropic": {"content": [{"type": "text", "text": "ok", "citations": [{"type": "x"}]}]}
    }


async def test_request__kept_blocks_go_back_in_order_and_only_to_this_provider(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    server.push(anthropic_reply("ok"))
    layout = [
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "tool_use", "id": "toolu_b", "name": "add"},
        {"type": "thinking", "thinking": "then", "signature": "s2"},
        {"type": "tool_use", "id": "toolu_c", "name": "noop"},
    ]
    calls = [
        {"id": "toolu_b", "name": "add", "arguments": {"a": 1, "b": 2}},
        {"id": "toolu_c", "name": "noop", "arguments": "not an object"},
    ]
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": calls,
            "provider_data": {"anthropic": {"content": layout}},
        },
        {"role": "tool", "tool_call_id": "toolu_b", "name": "add", "content": "3"},
        {"role": "tool", "tool_call_id": "toolu_c", "name": "noop", "content": "x"},
        {
            "role": "assistant",
            "content": "from another provider",
            "provider_data": {"openai": {"reasoning_content": "not for Anthropic"}},
        },
        {"role": "user", "content": "and?"},
    ]

    await adapter(server.url, client).generate(request(messages))

    sent = server.seen()[0].body["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": [
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "tool_use", "id": "toolu_b", "name": "add", "input": {"a": 1, "b": 2}},
            {"type": "thinking", "thinking": "then", "signature": "s2"},
            {"type": "tool_use", "id": "toolu_c", "name": "noop", "input": "not an object"},
        ],
    }
    assert sent[3] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "from another provider"}],
    }


async def test_request__system_blocks_kept_as_blocks(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    server.push(anthropic_reply("ok"))
    cached = {"type": "text", "text": "Long policy.", "cache_control": {"type": "ephemeral"}}
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": [cached]},
        {"role": "user", "content": "hi"},
    ]
    await adapter(server.url, client).generate(request(messages))
    assert server.seen()[0].body["system"] == [cached]


async def test_api_key__no_env_no_header(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.push(anthropic_reply("ok"))
    await adapter(server.url, client, api_key_env=None).generate(request())
    (sent,) = server.seen()
    assert "x-api-key" not in sent.headers
    assert sent.headers["anthropic-version"] == "2023-06-01"


async def test_api_key__missing_is_not_retryable_and_sends_nothing(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    error = await failure(adapter(server.url, client, environ={"OTHER": "x"}))
    assert (error.code, error.retryable) == ("api_key_missing", False)
    assert KEY_ENV in error.message
    assert server.seen() == []


@pytest.mark.parametrize(
    ("status", "kind", "code", "retryable"),
    [
        (429, "rate_limit_error", "rate_limited", True),
        (500, "api_error", "server_error", True),
        (529, "overloaded_error", "server_error", True),
        (400, "invalid_request_error", "client_error", False),
        (401, "authentication_error", "client_error", False),
        (403, "permission_error", "client_error", False),
        (404, "not_found_error", "client_error", False),
        (413, "request_too_large", "client_error", False),
    ],
)
async def test_status__classified(
    server: FakeServer,
    client: httpx.AsyncClient,
    status: int,
    kind: str,
    code: str,
    retryable: bool,
) -> None:
    server.push(anthropic_error(status, f"the provider says {status}", kind))
    error = await failure(adapter(server.url, client))
    assert (error.code, error.retryable, error.retry_after_s) == (code, retryable, None)
    assert f"HTTP {status} from {server.url}{ANTHROPIC_PATH}" in error.message
    assert f"{kind}: the provider says {status}" in error.message


async def test_429__retry_after_seconds(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.push(
        anthropic_error(429, "slow down", "rate_limit_error", headers={"retry-after": "12"})
    )
    error = await failure(adapter(server.url, client))
    assert (error.code, error.retryable, error.retry_after_s) == ("rate_limited", True, 12.0)
    assert "retry after 12s" in error.message


@pytest.mark.parametrize(
    ("body", "complaint"),
    [
        (b"Internal error", "not JSON"),
        (b"null", "expected a JSON object, got NoneType"),
        (b'{"type": "message"}', '"content" is not a list'),
        (b'{"content": [{"text": "no type"}]}', '"content[0]" is not a block'),
        (b'{"content": [{"type": "text", "text": 7}]}', '"content[0].text"'),
        (b'{"content": [{"type": "tool_use", "id": "t", "input": {}}]}', '"content[0].name"'),
        (b'{"content": [{"type": "tool_use", "id": "t", "name": "add"}]}', 'no "input"'),
        (b'{"content": [], "usage": {"input_tokens": -1}}', "usage.input_tokens"),
        (b'{"content": [], "usage": [1]}', '"usage"'),
    ],
)
async def test_malformed__not_retryable_and_says_what(
    server: FakeServer, client: httpx.AsyncClient, body: bytes, complaint: str
) -> None:
    server.push(Reply(200, raw=body))
    error = await failure(adapter(server.url, client))
    assert (error.code, error.retryable) == ("malformed_reply", False)
    assert complaint in error.message
    assert error.message.startswith(f"anthropic: malformed reply from {server.url}{ANTHROPIC_PATH}")


async def test_timeout__slow_headers(server: FakeServer, client: httpx.AsyncClient) -> None:
    server.push(replace(anthropic_reply("late"), delay_s=3.0))
    started = time.monotonic()
    error = await failure(adapter(server.url, client, timeout_s=0.3))
    assert (error.code, error.retryable) == ("timeout", True)
    assert "within 0.3s" in error.message
    assert 0.25 <= time.monotonic() - started < 1.5


async def test_timeout__bounds_the_whole_reply_not_each_read(
    server: FakeServer, client: httpx.AsyncClient
) -> None:
    # Every chunk comes well within 0.5 s, but the whole body takes ~1.5 s.
    server.push(replace(anthropic_reply("dribbled"), dribble_s=0.15, chunks=10))
    started = time.monotonic()
    error = await failure(adapter(server.url, client, timeout_s=0.5))
    assert (error.code, error.retryable) == ("timeout", True)
    assert time.monotonic() - started < 1.2


async def test_connection_refused__retryable(client: httpx.AsyncClient) -> None:
    url = closed_port_url()
    error = await failure(adapter(url, client))
    assert (error.code, error.retryable) == ("connection_error", True)
    assert f"could not reach {url}{ANTHROPIC_PATH}" in error.message
