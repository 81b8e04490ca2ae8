"""Tools: client tools over HTTP, and the http executor against a real local server."""

from __future__ import annotations

import gzip
import tracemalloc
from typing import Any
from uuid import uuid4

import httpx
import pytest

from app.domain.agent import ToolSpec
from app.http_body import ACCEPT_ENCODING
from app.tools.base import ToolContext
from app.tools.http_tool import HttpTools
from tests.agents import agent, calls, python_tool
from tests.conftest import wait_status
from tests.fake_http import http_server
from tests.support import define, run_to_rest

CLIENT = {"name": "lookup", "input_schema": {"type": "object"}, "executor": {"type": "client"}}


async def post(client: httpx.AsyncClient, run_id: str, *results: dict[str, Any]) -> httpx.Response:
    return await client.post(f"/v1/runs/{run_id}/tool-results", json={"results": list(results)})


# -- client tools ------------------------------------------------------------------------


async def test_client_tools__pause_take_outputs_one_each_then_continue(
    live: httpx.AsyncClient,
) -> None:
    await define(
        live,
        agent(
            "c",
            [
                calls(("lookup", {"q": 1}), ("add", {"a": 1, "b": 2}), ("lookup", {"q": 2})),
                {"text": "thanks"},
            ],
            [CLIENT, python_tool("add", "add")],
        ),
    )
    run = await run_to_rest(live, "c-1", {"agent_id": "c", "input": "go"})
    assert run["status"] == "awaiting_tool_results"
    awaited = run["pending_tool_calls"]
    assert [(c["name"], c["arguments"]) for c in awaited] == [
        ("lookup", {"q": 1}),
        ("lookup", {"q": 2}),
    ]
    first, second = (c["tool_call_id"] for c in awaited)

    partial = await post(live, run["id"], {"tool_call_id": second, "output": {"v": "two"}})
    assert partial.status_code == 200
    assert [c["tool_call_id"] for c in partial.json()["pending_tool_calls"]] == [first]
    assert partial.json()["status"] == "awaiting_tool_results"
    again = await post(live, run["id"], {"tool_call_id": second, "output": "again"})
    assert (again.status_code, again.json()["code"]) == (409, "TOOL_RESULT_ALREADY_RECORDED")

    done = await post(live, run["id"], {"tool_call_id": first, "output": "oops", "is_error": True})
    assert done.status_code == 200
    finished = await wait_status(live, run["id"], {"finished"})
    assert finished["output"] == "thanks"
    items = (await live.get("/v1/sessions/c-1/messages")).json()["items"]
    results = [(m["name"], m["status"], m["content"]) for m in items if m["role"] == "tool"]
    assert results == [
        ("lookup", "error", "oops"),
        ("add", "ok", {"result": 3}),
        ("lookup", "ok", {"v": "two"}),
    ]


async def test_client_tools__bad_posts(live: httpx.AsyncClient) -> None:
    await define(live, agent("c2", [calls(("lookup", {})), {"text": "x"}], [CLIENT]))
    run = await run_to_rest(live, "c-2", {"agent_id": "c2", "input": "go"})
    unknown = await post(live, run["id"], {"tool_call_id": "call_nope", "output": 1})
    assert (unknown.status_code, unknown.json()["code"]) == (422, "VALIDATION_FAILED")
    assert "call_nope" in unknown.json()["detail"]
    empty = await live.post(f"/v1/runs/{run['id']}/tool-results", json={"results": []})
    assert empty.status_code == 422
    missing = await post(live, str(uuid4()), {"tool_call_id": "x", "output": 1})
    assert missing.status_code == 404
    call_id = run["pending_tool_calls"][0]["tool_call_id"]
    assert (await post(live, run["id"], {"tool_call_id": call_id, "output": 1})).status_code == 200
    await wait_status(live, run["id"], {"finished"})
    late = await post(live, run["id"], {"tool_call_id": call_id, "output": 2})
    assert (late.status_code, late.json()["code"]) == (409, "RUN_NOT_AWAITING_TOOL_RESULTS")


async def test_mixed_batch__approval_client_and_server_tools_behave_as_one_batch(
    live: httpx.AsyncClient,
) -> None:
    gated = {**python_tool("wire", "echo"), "needs_approval": True}
    await define(
        live,
        agent(
            "mix",
            [calls(("wire", {}), ("lookup", {}), ("add", {"a": 2, "b": 2})), {"text": "mixed"}],
            [gated, CLIENT, python_tool("add", "add")],
        ),
    )
    run = await run_to_rest(live, "mix-1", {"agent_id": "mix", "input": "go"})
    assert run["status"] == "awaiting_approval"
    await live.post(
        f"/v1/approvals/{run['pending_approvals'][0]['id']}/decision", json={"approved": True}
    )
    run = await wait_status(live, run["id"], {"awaiting_tool_results"})
    call_id = run["pending_tool_calls"][0]["tool_call_id"]
    await post(live, run["id"], {"tool_call_id": call_id, "output": "found"})
    done = await wait_status(live, run["id"], {"finished"})
    assert done["output"] == "mixed"
    items = (await live.get("/v1/sessions/mix-1/messages")).json()["items"]
    assert [(m["name"], m["status"]) for m in items if m["role"] == "tool"] == [
        ("wire", "ok"),
        ("lookup", "ok"),
        ("add", "ok"),
    ]


# -- http tools --------------------------------------------------------------------------


async def test_http_tool__a_compressed_bomb_is_refused_without_inflating_it() -> None:
    # 64 MiB of zeros gzip to 64 KiB; httpx inflates each network read whole, so counting
    # after decoding held all of it before the cap was even checked.
    bomb = gzip.compress(b"0" * (64 << 20), compresslevel=9)
    route = (200, bomb, 0, {"content-type": "application/json", "content-encoding": "gzip"})
    with http_server({"/t": route}) as (base, seen):
        spec = http_spec(f"{base}/t", max_response_bytes=1 << 20)
        async with httpx.AsyncClient() as client:
            tracemalloc.start()
            try:
                outcome = await HttpTools(client).execute(spec, {}, CONTEXT)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
    assert outcome.result["error"] == "response_too_large", outcome
    assert peak < 8 << 20, f"held {peak >> 20} MiB to refuse a 1 MiB cap"
    assert seen[0]["headers"]["Accept-Encoding"] == ACCEPT_ENCODING


async def test_http_tool__idempotency_keys_differ_between_sessions_with_the_same_call_id() -> None:
    # Call ids are the model's own now (`call_0` in every session of some servers), and
    # session ids are unique per tenant only: the key a tool server deduplicates on must
    # name both, or one tenant could be answered with another's result.
    with http_server({"/t": (200, b"{}", 0)}) as (base, seen):
        async with httpx.AsyncClient() as client:
            for tenant, session in (("acme", "s-1"), ("acme", "s-2"), ("globex", "s-1")):
                context = ToolContext("call_0", session, uuid4(), 1, tenant_id=tenant)
                assert (await HttpTools(client).execute(http_spec(f"{base}/t"), {}, context)).ok
    keys = [s["headers"]["Idempotency-Key"] for s in seen]
    assert keys == ["acme/s-1/call_0", "acme/s-2/call_0", "globex/s-1/call_0"]


def http_spec(url: str, **executor: Any) -> ToolSpec:
    return ToolSpec.model_validate(
        {"name": "t", "executor": {"type": "http", "url": url, **executor}}
    )


CONTEXT = ToolContext("call_abc", "s-1", uuid4(), 7)


@pytest.mark.parametrize(
    ("route", "ok", "kind"),
    [
        ((200, b'{"v": 1}', 0), True, None),
        ((404, b'{"error": "no such order"}', 0), False, "http_status"),
        ((200, b"<html>not json</html>", 0), False, "invalid_reply"),
        ((200, b'"' + b"x" * 5000 + b'"', 0), False, "response_too_large"),
        ([(503, b"", 0), (502, b"", 0), (200, b'{"v": 3}', 0)], True, None),
        ([(500, b"", 0)] * 5, False, "http_status"),
        ((200, b"{}", 1.0), False, "timeout"),
    ],
    ids=["ok", "4xx", "non-json", "too-large", "5xx-then-ok", "5xx-always", "timeout"],
)
async def test_http_tool__replies_become_results_or_readable_errors(
    route: Any, ok: bool, kind: str | None
) -> None:
    with http_server({"/t": route}) as (base, seen):
        spec = http_spec(f"{base}/t", timeout_s=0.3, max_retries=2, max_response_bytes=1024)
        async with httpx.AsyncClient() as client:
            outcome = await HttpTools(client).execute(spec, {"x": 1}, CONTEXT)
    assert outcome.ok is ok, outcome
    if kind is not None:
        assert outcome.result["error"] == kind
    retried = isinstance(route, list) or kind == "timeout"
    assert len(seen) == (3 if retried else 1)
    assert {s["headers"]["Idempotency-Key"] for s in seen} == {"default/s-1/call_abc"}
    assert seen[0]["body"] == {
        "tool_call_id": "call_abc",
        "session_id": "s-1",
        "run_id": str(CONTEXT.run_id),
        "arguments": {"x": 1},
    }


async def test_http_tool__headers_from_environment_never_stored(
    live: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_TOOL_API_KEY", "s3cret-token")
    with http_server({"/t": (200, b'{"done": true}', 0)}) as (base, seen):
        tool = {
            "name": "t",
            "input_schema": {"type": "object"},
            "executor": {
                "type": "http",
                "url": f"{base}/t",
                "headers": {
                    "Authorization": {"env": "TEST_TOOL_API_KEY"},
                    "X-Team": "payments",
                },
            },
        }
        await define(live, agent("h", [calls(("t", {})), {"text": "ok"}], [tool]))
        run = await run_to_rest(live, "h-1", {"agent_id": "h", "input": "go"})
    assert run["status"] == "finished"
    headers = seen[0]["headers"]
    assert headers["Authorization"] == "s3cret-token"
    assert headers["X-Team"] == "payments"
    assert int(headers["Perdure-Lease-Token"]) >= 1
    stored = (await live.get("/v1/agents/h")).text
    assert "s3cret-token" not in stored
    assert "TEST_TOOL_API_KEY" in stored


async def test_http_tool__missing_header_variable_is_an_error_result() -> None:
    spec = ToolSpec.model_validate(
        {
            "name": "t",
            "executor": {
                "type": "http",
                "url": "http://127.0.0.1:9/t",
                "headers": {"Authorization": {"env": "PERDURE_SURELY_UNSET_VAR"}},
            },
        }
    )
    async with httpx.AsyncClient() as client:
        outcome = await HttpTools(client).execute(spec, {}, CONTEXT)
    assert not outcome.ok
    assert "PERDURE_SURELY_UNSET_VAR" in outcome.result["message"]


async def test_python_tool__receives_arguments_and_context(live: httpx.AsyncClient) -> None:
    await define(
        live,
        agent("py", [calls(("echo", {"k": "v"})), {"text": "ok"}], [python_tool("echo", "echo")]),
    )
    run = await run_to_rest(live, "py-1", {"agent_id": "py", "input": "go"})
    items = (await live.get("/v1/sessions/py-1/messages")).json()["items"]
    result = next(m for m in items if m["role"] == "tool")
    assert result["content"]["echo"] == {"k": "v"}
    assert result["content"]["tool_call_id"] == result["tool_call_id"]
    assert run["status"] == "finished"
