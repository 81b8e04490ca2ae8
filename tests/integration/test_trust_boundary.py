"""The trust boundary (DESIGN.md §12, operator capabilities): what code runs in the
workers, which environment variables are secrets, where requests may go and whether the
scripted model exists are the operator's settings, never a caller's.

Each test is an attack first: a caller's definition that, without the rule, runs code,
reads a variable or reaches an address the operator did not grant.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from uuid import uuid4

import httpx
import pytest

from app.domain.agent import OpenAIModel, ToolSpec
from app.main import create_app
from app.providers.base import ModelError, ModelRequest
from app.providers.registry import build_model
from app.tools.base import ToolContext
from app.tools.http_tool import HttpTools
from tests.agents import agent, calls, http_tool, python_tool
from tests.conftest import make_settings, started_client, wait_status
from tests.crash.harness import tool_server
from tests.integration.test_tools import http_server

CONTEXT = ToolContext("call_trust", "s-trust", uuid4(), 1)


@asynccontextmanager
async def service(
    database_url: str, *, workers: int = 2, **overrides: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """The API (and a pool of `workers`) under settings of the test's choosing."""
    settings = make_settings(database_url, **overrides)
    app = create_app(settings, pool_concurrency=workers, open_when_keyless=True)
    async for client in started_client(app):
        yield client


def problem(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 422, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == "VALIDATION_FAILED", body
    return body


def tool_results(items: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    return [(m["name"], m["status"], m["content"]) for m in items if m["role"] == "tool"]


# -- 1. python tools: only the modules the operator lists --------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "app.tools.demo_evil:add",  # a prefix is whole module names, not a string prefix
        "os:system",
        "subprocess:run",
        "testsx.tools:add",
    ],
)
async def test_python_tool__a_module_outside_the_allowed_prefixes_is_422_naming_the_field(
    api: httpx.AsyncClient, path: str
) -> None:
    tools = [
        python_tool("fine", "add"),
        {"name": "evil", "executor": {"type": "python", "path": path}},
    ]
    body = problem(await api.post("/v1/agents", json=agent("py-evil", [{"text": "x"}], tools)))
    assert body["errors"][0]["loc"] == ["body", "tools", "1", "executor", "path"]
    assert path in body["detail"]
    assert "PERDURE_PYTHON_TOOLS" in body["detail"]


async def test_python_tool__the_default_allows_only_the_demo_tools(database_url: str) -> None:
    async with service(database_url, workers=0, python_tools="app.tools.demo") as client:
        demo = {"name": "add", "executor": {"type": "python", "path": "app.tools.demo:add"}}
        created = await client.post("/v1/agents", json=agent("demo", [{"text": "x"}], [demo]))
        assert created.status_code == 201, created.text
        refused = await client.post(
            "/v1/agents", json=agent("ours", [{"text": "x"}], [python_tool("add", "add")])
        )
        assert problem(refused)["errors"][0]["loc"] == ["body", "tools", "0", "executor", "path"]


async def test_python_tool__a_definition_stored_before_a_tightening_is_refused_by_the_worker(
    api: httpx.AsyncClient, database_url: str
) -> None:
    body = agent(
        "py-old", [calls(("echo", {"k": "v"})), {"text": "done"}], [python_tool("echo", "echo")]
    )
    assert (await api.post("/v1/agents", json=body)).status_code == 201
    sent = await api.post("/v1/sessions/py-old-1/runs", json={"agent_id": "py-old", "input": "go"})
    run_id = sent.json()["id"]
    async with service(database_url, python_tools="app.tools.demo") as tight:
        run = await wait_status(tight, run_id, {"finished", "failed"})
        items = (await tight.get("/v1/sessions/py-old-1/messages")).json()["items"]
    assert run["status"] == "finished", run  # the run goes on: the model hears the refusal
    [(name, status, content)] = tool_results(items)
    assert (name, status, content["error"]) == ("echo", "error", "tool_not_permitted")
    assert "echo" not in content  # the function never ran


# -- 2. secrets: only the variables the operator lists, and no existence oracle ------------


def detail_without(body: dict[str, Any], name: str) -> str:
    return str(body["detail"]).replace(name, "NAME")


async def test_secret_env__a_refused_variable_gets_the_same_422_as_a_missing_one(
    api: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://app:hunter2@db/prod")
    monkeypatch.setenv("PERDURE_SOMETHING_API_KEY", "set")
    monkeypatch.setenv("HOME_SWEET_HOME", "set")  # set, but not in PERDURE_SECRET_ENV
    monkeypatch.delenv("NOWHERE_TO_BE_FOUND_API_KEY", raising=False)
    details = set()
    for name in (
        "DATABASE_URL",
        "PERDURE_SOMETHING_API_KEY",
        "HOME_SWEET_HOME",
        "NOWHERE_TO_BE_FOUND_API_KEY",
    ):
        model = {
            "provider": "openai",
            "name": "gpt-x",
            "base_url": "http://127.0.0.1:9/v1",
            "api_key_env": name,
        }
        body = problem(await api.post("/v1/agents", json={"id": "k", "model": model}))
        assert body["errors"][0]["loc"] == ["body", "model", "api_key_env"]
        assert name in body["detail"]
        details.add(detail_without(body, name))
    assert len(details) == 1, details  # a 422 says nothing about what exists


async def test_secret_env__header_variables_follow_the_same_rule(
    api: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PGPASSWORD", "hunter2")
    tool = http_tool("t", "http://127.0.0.1:9/t", headers={"Authorization": {"env": "PGPASSWORD"}})
    body = problem(await api.post("/v1/agents", json=agent("h", [{"text": "x"}], [tool])))
    assert body["errors"][0]["loc"] == [
        "body",
        "tools",
        "0",
        "executor",
        "headers",
        "Authorization",
    ]


async def test_secret_env__the_worker_never_reads_a_refused_header_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A definition stored before a tightening: the worker checks again at call time.
    monkeypatch.setenv("DB_PASSWORD", "hunter2")
    with tool_server() as tools:
        spec = ToolSpec.model_validate(
            {
                "name": "t",
                "executor": {
                    "type": "http",
                    "url": tools.url,
                    "headers": {"X-Pass": {"env": "DB_PASSWORD"}},
                },
            }
        )
        async with httpx.AsyncClient() as client:
            outcome = await HttpTools(client).execute(spec, {}, CONTEXT)
    assert tools.calls == []
    assert not outcome.ok
    assert "hunter2" not in str(outcome.result)
    assert "DB_PASSWORD" in outcome.result["message"]


async def test_secret_env__a_model_never_sends_a_refused_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DB_PASSWORD", "hunter2")
    with http_server({"/v1/chat/completions": (500, b"{}", 0)}) as (base, seen):
        # Stored as it could have been before PERDURE_SECRET_ENV existed.
        model = {
            "provider": "openai",
            "name": "gpt-x",
            "base_url": f"{base}/v1",
            "api_key_env": "DB_PASSWORD",
        }
        spec = OpenAIModel.model_validate(model)
        request = ModelRequest("s", uuid4(), [{"role": "user", "content": "hi"}], [], 0, 0)
        async with httpx.AsyncClient() as client:
            with pytest.raises(ModelError) as raised:
                await build_model(spec, client).generate(request)
    assert raised.value.code == "api_key_missing"
    assert not raised.value.retryable
    assert seen == []
    assert "hunter2" not in raised.value.message


# -- 3. egress: where http tools and models may connect ----------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/iam/",
        "http://[fd00:ec2::254]/latest/",
        "http://[fe80::1]/",
        "http://[::ffff:169.254.169.254]/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://METADATA.google.internal./x",
        "http://2852039166/",  # 169.254.169.254 as one decimal number
    ],
)
async def test_egress__a_metadata_address_is_422_at_definition_time(
    api: httpx.AsyncClient, url: str
) -> None:
    body = problem(
        await api.post("/v1/agents", json=agent("m", [{"text": "x"}], [http_tool("t", url)]))
    )
    assert body["errors"][0]["loc"] == ["body", "tools", "0", "executor", "url"]
    model = {"provider": "openai", "name": "gpt-x", "base_url": url}
    body = problem(await api.post("/v1/agents", json={"id": "m2", "model": model}))
    assert body["errors"][0]["loc"] == ["body", "model", "base_url"]


async def test_egress__an_allow_list_without_loopback_refuses_at_connect_time(
    database_url: str,
) -> None:
    with tool_server() as tools:
        port = tools.url.split(":")[2].split("/")[0]
        # A name, not a literal: accepted at definition time, refused once resolved.
        tool = http_tool("t", f"http://localhost:{port}/tool")
        async with service(database_url, egress="10.0.0.0/8") as client:
            defined = await client.post(
                "/v1/agents", json=agent("e", [calls(("t", {})), {"text": "done"}], [tool])
            )
            assert defined.status_code == 201, defined.text
            sent = await client.post(
                "/v1/sessions/e-1/runs", params={"wait": 15}, json={"agent_id": "e", "input": "x"}
            )
            run = await wait_status(client, sent.json()["id"], {"finished", "failed"})
            items = (await client.get("/v1/sessions/e-1/messages")).json()["items"]
            literal = http_tool("t", f"http://127.0.0.1:{port}/tool")
            refused = await client.post("/v1/agents", json=agent("e2", [{"text": "x"}], [literal]))
    assert tools.calls == [], "the tool server must receive nothing"
    assert run["status"] == "finished", run
    [(_, status, content)] = tool_results(items)
    assert (status, content["error"]) == ("error", "egress_refused")
    assert "PERDURE_EGRESS" in content["message"]
    assert problem(refused)["errors"][0]["loc"] == ["body", "tools", "0", "executor", "url"]


async def test_egress__loopback_is_allowed_by_default(live: httpx.AsyncClient) -> None:
    with tool_server() as tools:
        tool = http_tool("t", tools.url)
        body = agent("lo", [calls(("t", {"label": "a"})), {"text": "done"}], [tool])
        assert (await live.post("/v1/agents", json=body)).status_code == 201
        sent = await live.post(
            "/v1/sessions/lo-1/runs", params={"wait": 15}, json={"agent_id": "lo", "input": "x"}
        )
        run = await wait_status(live, sent.json()["id"], {"finished", "failed"})
    assert run["status"] == "finished"
    assert len(tools.calls) == 1


# -- 4. the scripted model: a caller's way to call any tool with any arguments --------------


async def test_scripted_model__is_422_unless_the_operator_enables_it(database_url: str) -> None:
    async with service(database_url, workers=0, scripted_model=False) as client:
        body = problem(await client.post("/v1/agents", json=agent("s", [{"text": "x"}], [])))
    assert body["errors"][0]["loc"] == ["body", "model", "provider"]
    assert "PERDURE_SCRIPTED_MODEL" in body["detail"]


async def test_scripted_model__a_definition_stored_before_disabling_fails_in_the_worker(
    api: httpx.AsyncClient, database_url: str
) -> None:
    assert (await api.post("/v1/agents", json=agent("s", [{"text": "x"}], []))).status_code == 201
    sent = await api.post("/v1/sessions/s-1/runs", json={"agent_id": "s", "input": "go"})
    async with service(database_url, scripted_model=False) as strict:
        run = await wait_status(strict, sent.json()["id"], {"finished", "failed"})
    assert run["status"] == "failed", run
    assert run["last_error"]["code"] == "provider_not_enabled"


# -- 5. what a read shows, and what drift covers -----------------------------------------


async def test_agent_read__literal_secret_header_values_are_redacted(
    api: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UPSTREAM_API_KEY", "from-env")
    headers = {
        "Authorization": "Bearer sk-literal-1",
        "Cookie": "session=literal-2",
        "X-Api-Key": "literal-3",
        "X-Auth-Token": "literal-4",
        "X-Client-Secret": "literal-5",
        "X-Team": "payments",
        "X-Upstream-Key": {"env": "UPSTREAM_API_KEY"},
    }
    tool = http_tool("t", "http://127.0.0.1:9/t", headers=headers)
    created = await api.post("/v1/agents", json=agent("r", [{"text": "x"}], [tool]))
    assert created.status_code == 201, created.text
    read = await api.get("/v1/agents/r")
    for response in (created, read):
        assert "literal-" not in response.text
        shown = response.json()["tools"][0]["executor"]["headers"]
        assert shown == {
            "Authorization": "***",
            "Cookie": "***",
            "X-Api-Key": "***",
            "X-Auth-Token": "***",
            "X-Client-Secret": "***",
            "X-Team": "payments",
            "X-Upstream-Key": {"env": "UPSTREAM_API_KEY"},
        }
    # Sending a read back as is would store the placeholder: refused, not a broken tool.
    server_owned = ("id", "version", "fingerprint", "created_at")
    again = {k: v for k, v in read.json().items() if k not in server_owned}
    body = problem(await api.put("/v1/agents/r", json=again))
    redacted = ("Authorization", "Cookie", "X-Api-Key", "X-Auth-Token", "X-Client-Secret")
    assert sorted(e["loc"][-1] for e in body["errors"]) == sorted(redacted)
    assert {tuple(e["loc"][:-1]) for e in body["errors"]} == {
        ("body", "tools", "0", "executor", "headers")
    }


@pytest.mark.parametrize(
    "change",
    [
        {"executor": {"type": "python", "path": "tests.tools:add"}},
        {"needs_approval": True},
    ],
    ids=["executor-path", "needs-approval"],
)
async def test_drift__a_changed_executor_or_approval_rule_is_drift(
    live: httpx.AsyncClient, change: dict[str, Any]
) -> None:
    v1 = agent("d", [{"text": "one"}, {"text": "two"}], [python_tool("t", "echo")])
    assert (await live.post("/v1/agents", json=v1)).status_code == 201
    sent = await live.post(
        "/v1/sessions/ds/runs", params={"wait": 15}, json={"agent_id": "d", "input": "x"}
    )
    await wait_status(live, sent.json()["id"], {"finished"})
    v2 = {k: v for k, v in v1.items() if k != "id"}
    v2["tools"] = [{**python_tool("t", "echo"), **change}]
    assert (await live.put("/v1/agents/d", json=v2)).status_code == 200
    refused = await live.post(
        "/v1/sessions/ds/runs", json={"input": "y", "agent_version": "latest", "on_drift": "error"}
    )
    assert (refused.status_code, refused.json().get("code")) == (409, "AGENT_DRIFT")
    assert refused.json()["changes"] == {"tools_changed": ["t"]}


# -- 6. containment: a python tool cannot stop its worker, and has a timeout ----------------


async def test_python_tool__a_sync_tool_that_overruns_its_timeout_is_a_timeout_result(
    live: httpx.AsyncClient,
) -> None:
    slow = {
        "name": "slow",
        "executor": {"type": "python", "path": "tests.tools:sleep_sync", "timeout_s": 0.3},
    }
    body = agent("slow", [calls(("slow", {"seconds": 5})), {"text": "done"}], [slow])
    assert (await live.post("/v1/agents", json=body)).status_code == 201, body
    sent = await live.post(
        "/v1/sessions/slow-1/runs", params={"wait": 4}, json={"agent_id": "slow", "input": "x"}
    )
    run = sent.json()
    assert run["status"] == "finished", run  # well before the 5 s the function sleeps
    items = (await live.get("/v1/sessions/slow-1/messages")).json()["items"]
    [(_, status, content)] = tool_results(items)
    assert (status, content["error"]) == ("error", "timeout")
