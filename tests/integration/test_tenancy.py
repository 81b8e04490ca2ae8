"""Tenants: another tenant's object is a 404, exactly as if it did not exist.

The matrix is driven by `openapi/openapi.json`: every operation behind the trust boundary
must have an entry below (a new endpoint without one fails), and each is called on tenant
A's objects with tenant B's key, with no key, with A's revoked key, and with an A key that
lacks the operation's scope (read from the spec's `security`). The answers must be
404 (or, for lists and creations, nothing of A's), 401, 401 and 403, and none may change
a row of tenant A.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Table, select
from sqlalchemy.ext.asyncio import AsyncEngine

from app.api.ui.guard import COOKIE
from app.domain.principal import ALL_SCOPES, Scope
from app.main import create_app
from app.settings import Settings
from app.store import keys
from app.store.tables import metadata
from tests.agents import agent, calls, python_tool
from tests.conftest import started_client, wait_status

ROOT = Path(__file__).resolve().parents[2]
SPEC = json.loads((ROOT / "openapi" / "openapi.json").read_text())
PUBLIC = {("get", "/healthz"), ("get", "/readyz")}
A, B = "acme", "globex"
OPERATOR = {"tenant_id": None, "name": "test operator", "key_prefix": None}
# Values only tenant A's objects hold, so a leak shows up in any response body.
SESSION = "acme-secret-session"
OTHER_SESSION = "acme-other-session"
AGENT = "acme-secret-agent"
SCHEDULE = "acme-secret-schedule"


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def make_key(engine: AsyncEngine, tenant: str, scopes: frozenset[Scope]) -> str:
    async with engine.begin() as conn:
        _key, plaintext = await keys.create_key(
            conn, tenant_id=tenant, name=f"{tenant}-key", scopes=scopes, actor=OPERATOR
        )
    return plaintext


@dataclass
class World:
    """Tenant A's objects, and the keys that try to reach them."""

    a_key: str
    b_key: str
    revoked_key: str
    a_spare_prefix: str  # another key of A's: what DELETE /v1/keys/{prefix} aims at
    run_id: str
    approval_id: str
    checkpoint_seq: int
    webhook_id: str


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, pool_concurrency=2, open_when_keyless=False)
    async for c in started_client(app):
        yield c


@pytest.fixture
async def world(client: httpx.AsyncClient, engine: AsyncEngine) -> World:
    a_key = await make_key(engine, A, ALL_SCOPES)
    spare = await make_key(engine, A, frozenset({Scope.RUNS_READ}))
    revoked = await make_key(engine, A, ALL_SCOPES)
    async with engine.begin() as conn:
        await keys.revoke_key(conn, revoked[: keys.PREFIX_LENGTH], tenant_id=A, actor=OPERATOR)
    b_key = await make_key(engine, B, ALL_SCOPES)

    gated = {**python_tool("charge", "echo"), "needs_approval": True}
    script = [calls(("charge", {"amount": 5})), {"text": "done"}]
    body = agent(AGENT, script, [gated])
    assert (await client.post("/v1/agents", json=body, headers=bearer(a_key))).status_code == 201
    runs = []
    for session in (SESSION, OTHER_SESSION):
        sent = await client.post(
            f"/v1/sessions/{session}/runs",
            json={"agent_id": AGENT, "input": "pay"},
            headers=bearer(a_key),
        )
        assert sent.status_code == 202, sent.text
        runs.append(
            await wait_status(
                client, sent.json()["id"], {"awaiting_approval"}, headers=bearer(a_key)
            )
        )
    run = runs[0]
    # A webhook of A's, on a type these tests never write: no delivery changes A's rows.
    hook = await client.post(
        "/v1/webhooks",
        json={"url": "https://acme.example.com/hook", "events": ["agent.drift"]},
        headers=bearer(a_key),
    )
    assert hook.status_code == 201, hook.text
    # Due once a year: it never fires while a case runs (which would change A's rows).
    schedule = {"id": SCHEDULE, "agent_id": AGENT, "input": "x", "interval_s": 366 * 86400}
    made = await client.post("/v1/schedules", json=schedule, headers=bearer(a_key))
    assert made.status_code == 201, made.text
    saved = (await client.get(f"/v1/sessions/{SESSION}/checkpoints", headers=bearer(a_key))).json()[
        "items"
    ]
    return World(
        a_key=a_key,
        b_key=b_key,
        revoked_key=revoked,
        a_spare_prefix=spare[: keys.PREFIX_LENGTH],
        run_id=run["id"],
        approval_id=run["pending_approvals"][0]["id"],
        checkpoint_seq=saved[0]["seq"],
        webhook_id=hook.json()["id"],
    )


# How each operation is called on A's objects, and what "nothing of A's" means for it:
# "object" operations name one of A's objects and must be 404 for B; "list" ones are 200
# and show none of A's; "create" ones make B's own object (B is entitled to that) and
# must leave A's untouched.
CASES: dict[tuple[str, str], tuple[str, str, dict[str, Any] | None]] = {
    ("post", "/v1/agents"): ("create", "/v1/agents", agent("made-here", [{"text": "x"}], [])),
    ("get", "/v1/agents"): ("list", "/v1/agents", None),
    ("get", "/v1/agents/{agent_id}"): ("object", f"/v1/agents/{AGENT}", None),
    ("get", "/v1/agents/{agent_id}/usage"): ("object", f"/v1/agents/{AGENT}/usage", None),
    ("put", "/v1/agents/{agent_id}"): (
        "object",
        f"/v1/agents/{AGENT}",
        {"model": {"provider": "scripted", "script": [{"text": "x"}]}},
    ),
    ("get", "/v1/approvals"): ("list", "/v1/approvals", None),
    ("get", "/v1/approvals/{approval_id}"): ("object", "/v1/approvals/{approval_id}", None),
    ("post", "/v1/approvals/{approval_id}/decision"): (
        "object",
        "/v1/approvals/{approval_id}/decision",
        {"approved": True},
    ),
    ("get", "/v1/keys"): ("list", "/v1/keys", None),
    ("get", "/v1/audit"): ("list", "/v1/audit", None),
    ("post", "/v1/keys"): ("create", "/v1/keys", {"name": "made-here", "scopes": ["runs:read"]}),
    ("delete", "/v1/keys/{prefix}"): ("object", "/v1/keys/{prefix}", None),
    # Fleet-wide counts, no ids: B's monitor sees nothing that names A's objects.
    ("get", "/metrics"): ("list", "/metrics", None),
    ("get", "/v1/runs"): ("list", "/v1/runs", None),
    ("get", "/v1/runs/{run_id}"): ("object", "/v1/runs/{run_id}", None),
    ("patch", "/v1/runs/{run_id}"): ("object", "/v1/runs/{run_id}", {"metadata": {"k": "v"}}),
    ("post", "/v1/runs/{run_id}/cancel"): ("object", "/v1/runs/{run_id}/cancel", None),
    ("get", "/v1/runs/{run_id}/events"): ("object", "/v1/runs/{run_id}/events", None),
    ("post", "/v1/runs/{run_id}/resume"): ("object", "/v1/runs/{run_id}/resume", None),
    ("get", "/v1/runs/{run_id}/stream"): ("object", "/v1/runs/{run_id}/stream", None),
    ("post", "/v1/runs/{run_id}/tool-results"): (
        "object",
        "/v1/runs/{run_id}/tool-results",
        {"results": [{"tool_call_id": "call_x", "output": 1}]},
    ),
    ("delete", "/v1/sessions/{session_id}"): ("object", f"/v1/sessions/{SESSION}", None),
    ("get", "/v1/sessions"): ("list", "/v1/sessions", None),
    ("get", "/v1/sessions/{session_id}"): ("object", f"/v1/sessions/{SESSION}", None),
    ("patch", "/v1/sessions/{session_id}"): (
        "object",
        f"/v1/sessions/{SESSION}",
        {"metadata": {"k": "v"}},
    ),
    ("get", "/v1/sessions/{session_id}/checkpoints"): (
        "object",
        f"/v1/sessions/{SESSION}/checkpoints",
        None,
    ),
    ("get", "/v1/sessions/{session_id}/checkpoints/{seq}"): (
        "object",
        f"/v1/sessions/{SESSION}/checkpoints/{{seq}}",
        None,
    ),
    ("get", "/v1/sessions/{session_id}/compare"): (
        "object",
        f"/v1/sessions/{SESSION}/compare?with={OTHER_SESSION}",
        None,
    ),
    ("post", "/v1/sessions/{session_id}/forks"): (
        "object",
        f"/v1/sessions/{SESSION}/forks",
        {"from_step": 0},
    ),
    ("get", "/v1/sessions/{session_id}/messages"): (
        "object",
        f"/v1/sessions/{SESSION}/messages",
        None,
    ),
    ("get", "/v1/sessions/{session_id}/stream"): (
        "object",
        f"/v1/sessions/{SESSION}/stream",
        None,
    ),
    # B cannot schedule A's agent: as if it did not exist.
    ("post", "/v1/schedules"): (
        "object",
        "/v1/schedules",
        {"id": "made-here", "agent_id": AGENT, "input": "x", "interval_s": 60},
    ),
    ("get", "/v1/schedules"): ("list", "/v1/schedules", None),
    ("get", "/v1/schedules/{schedule_id}"): ("object", f"/v1/schedules/{SCHEDULE}", None),
    ("delete", "/v1/schedules/{schedule_id}"): ("object", f"/v1/schedules/{SCHEDULE}", None),
    ("post", "/v1/schedules/{schedule_id}/pause"): (
        "object",
        f"/v1/schedules/{SCHEDULE}/pause",
        None,
    ),
    ("post", "/v1/schedules/{schedule_id}/resume"): (
        "object",
        f"/v1/schedules/{SCHEDULE}/resume",
        None,
    ),
    ("get", "/v1/schedules/{schedule_id}/fires"): (
        "object",
        f"/v1/schedules/{SCHEDULE}/fires",
        None,
    ),
    ("post", "/v1/sessions/{session_id}/runs"): (
        "object",
        f"/v1/sessions/{SESSION}/runs",
        {"input": "hi"},
    ),
    ("get", "/v1/webhooks"): ("list", "/v1/webhooks", None),
    ("post", "/v1/webhooks"): (
        "create",
        "/v1/webhooks",
        {"url": "https://globex.example.com/hook", "events": ["*"]},
    ),
    ("get", "/v1/webhooks/{webhook_id}"): ("object", "/v1/webhooks/{webhook_id}", None),
    ("delete", "/v1/webhooks/{webhook_id}"): ("object", "/v1/webhooks/{webhook_id}", None),
    ("get", "/v1/webhooks/{webhook_id}/deliveries"): (
        "object",
        "/v1/webhooks/{webhook_id}/deliveries",
        None,
    ),
}

OPERATIONS = sorted(
    (method, path)
    for path, ops in SPEC["paths"].items()
    for method in ops
    if (method, path) not in PUBLIC
)


def test_every_guarded_operation_has_a_case_and_a_scope() -> None:
    assert sorted(CASES) == OPERATIONS, "add the new endpoint to CASES"
    for method, path in OPERATIONS:
        (requirement,) = SPEC["paths"][path][method]["security"]
        assert list(requirement) == ["ApiKey"], (method, path)


def tenant_tables() -> list[Table]:
    """Every table holds its tenant's rows, but for the fleet's own (`info["fleet"]`)."""
    return [t for t in metadata.sorted_tables if not t.info.get("fleet")]


def test_every_table_carries_its_tenant__but_the_fleets() -> None:
    assert [t.name for t in metadata.sorted_tables if t.info.get("fleet")] == ["workers"]
    for table in tenant_tables():
        assert "tenant_id" in table.c, table.name


async def snapshot(engine: AsyncEngine, tenant: str) -> dict[str, list[str]]:
    """Every row of `tenant`, minus the one column a read may touch (a key's last use)."""
    out: dict[str, list[str]] = {}
    async with engine.connect() as conn:
        for table in tenant_tables():
            columns = [c for c in table.c if c.name != "last_used_at"]
            rows = await conn.execute(select(*columns).where(table.c.tenant_id == tenant))
            out[table.name] = sorted(repr(tuple(row)) for row in rows)
    return out


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
async def test_bola_matrix(
    client: httpx.AsyncClient, world: World, engine: AsyncEngine, method: str, path: str
) -> None:
    kind, url, body = CASES[(method, path)]
    url = url.format(
        run_id=world.run_id,
        approval_id=world.approval_id,
        prefix=world.a_spare_prefix,
        seq=world.checkpoint_seq,
        webhook_id=world.webhook_id,
    )
    (requirement,) = SPEC["paths"][path][method]["security"]
    (scope,) = requirement["ApiKey"]
    lacking = await make_key(engine, A, ALL_SCOPES - {Scope(scope)})
    before = await snapshot(engine, A)

    async def call(headers: dict[str, str]) -> httpx.Response:
        return await client.request(method.upper(), url, json=body, headers=headers)

    for headers, status, code in (
        ({}, 401, "UNAUTHORIZED"),
        (bearer(world.revoked_key), 401, "UNAUTHORIZED"),
        (bearer("pdk_" + "x" * 43), 401, "UNAUTHORIZED"),
        (bearer(lacking), 403, "FORBIDDEN"),
    ):
        response = await call(headers)
        assert response.status_code == status, (headers, response.text)
        assert response.json()["code"] == code

    as_b = await call(bearer(world.b_key))
    if kind == "object":
        assert as_b.status_code == 404, as_b.text
        assert as_b.json()["code"] in ("NOT_FOUND", "CHECKPOINT_NOT_FOUND")
    else:
        assert as_b.status_code in (200, 201), as_b.text
    # Nothing of A's beyond what the request itself named (a 404 echoes the id asked for).
    for secret in (
        SESSION,
        OTHER_SESSION,
        AGENT,
        SCHEDULE,
        world.run_id,
        world.approval_id,
        world.a_spare_prefix,
        world.webhook_id,
        "acme.example.com",
    ):
        if secret not in url + json.dumps(body):
            assert secret not in as_b.text

    after = await snapshot(engine, A)
    # The one row a refused call adds is the key this test made for it.
    after["api_keys"] = [r for r in after["api_keys"] if lacking[: keys.PREFIX_LENGTH] not in r]
    before["api_keys"] = [r for r in before["api_keys"] if lacking[: keys.PREFIX_LENGTH] not in r]
    after["audit_events"] = [
        r for r in after["audit_events"] if lacking[: keys.PREFIX_LENGTH] not in r
    ]
    before["audit_events"] = [
        r for r in before["audit_events"] if lacking[: keys.PREFIX_LENGTH] not in r
    ]
    assert after == before


async def test_the_same_ids_in_two_tenants_are_two_objects(
    client: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    """Ids are unique per tenant: B may use A's agent and session ids for its own."""
    keys_of = {t: await make_key(engine, t, ALL_SCOPES) for t in (A, B)}
    for tenant, text in ((A, "from acme"), (B, "from globex")):
        headers = bearer(keys_of[tenant])
        body = agent("shared", [{"text": text}], [])
        assert (await client.post("/v1/agents", json=body, headers=headers)).status_code == 201
        sent = await client.post(
            "/v1/sessions/same/runs?wait=10",
            json={"agent_id": "shared", "input": "hi"},
            headers=headers,
        )
        assert sent.status_code == 200, sent.text
        assert sent.json()["output"] == text
    for tenant, text in ((A, "from acme"), (B, "from globex")):
        messages = (
            await client.get("/v1/sessions/same/messages", headers=bearer(keys_of[tenant]))
        ).json()["items"]
        assert [m["content"] for m in messages] == ["hi", text]
        runs = (await client.get("/v1/runs", headers=bearer(keys_of[tenant]))).json()["items"]
        assert len(runs) == 1


async def test_the_dashboard_shows_tenant_b_nothing_of_a(
    client: httpx.AsyncClient, world: World, engine: AsyncEngine
) -> None:
    """`/ui` is outside the contract the matrix walks: its pages and forms, with B's key
    in the cookie, on A's objects (tests/integration/test_dashboard.py covers every /ui
    route with no key or a refused one)."""
    b = {"Cookie": f"{COOKIE}={world.b_key}"}
    secrets = (SESSION, OTHER_SESSION, AGENT, world.run_id, world.approval_id)
    before = await snapshot(engine, A)
    for path in ("/ui/runs", "/ui/approvals", "/ui/sessions", "/ui/agents"):
        listed = await client.get(path, headers=b)
        assert listed.status_code == 200, path
        assert not [s for s in secrets if s in listed.text], path
    for method, path, form in [
        ("GET", f"/ui/runs/{world.run_id}", None),
        ("GET", f"/ui/runs/{world.run_id}/stream", None),
        ("GET", f"/ui/sessions/{SESSION}", None),
        ("GET", f"/ui/agents/{AGENT}", None),
        ("POST", f"/ui/runs/{world.run_id}/cancel", None),
        ("POST", f"/ui/runs/{world.run_id}/resume", None),
        ("POST", f"/ui/approvals/{world.approval_id}/decision", {"decision": "approve"}),
    ]:
        answer = await client.request(method, path, headers=b, data=form)
        assert answer.status_code == 404, (method, path, answer.text)
        # The 404 may repeat the id asked for (as the API's does), nothing else of A's.
        assert not [s for s in secrets if s in answer.text and s not in path], path
    assert await snapshot(engine, A) == before
