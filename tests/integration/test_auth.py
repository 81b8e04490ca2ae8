"""The trust boundary: API keys, scopes, open mode, and the keys API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.domain.principal import ALL_SCOPES, Scope
from app.main import create_app
from app.settings import Settings
from app.store import keys
from app.store.tables import api_keys, audit_events
from tests.agents import agent, calls, python_tool
from tests.conftest import make_settings, started_client, wait_status

PROBLEM = "application/problem+json"
OPERATOR = {"tenant_id": None, "name": "test operator", "key_prefix": None}


async def make_key(
    engine: AsyncEngine, scopes: set[Scope] | frozenset[Scope], tenant: str = "default"
) -> str:
    async with engine.begin() as conn:
        _key, plaintext = await keys.create_key(
            conn, tenant_id=tenant, name="test", scopes=frozenset(scopes), actor=OPERATOR
        )
    return plaintext


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
async def guarded(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The API as a server that listens beyond loopback runs it: never open."""
    async for client in started_client(create_app(settings, open_when_keyless=False)):
        yield client


def assert_problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    return body


async def test_open_mode__ends_with_the_first_key(
    api: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    assert (await api.get("/v1/runs")).status_code == 200  # open: no key, no key needed
    key = await make_key(engine, {Scope.RUNS_READ})
    response = await api.get("/v1/runs")
    assert_problem(response, 401, "UNAUTHORIZED")
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert (await api.get("/v1/runs", headers=bearer(key))).status_code == 200


async def test_open_mode__a_revoked_last_key_does_not_reopen(
    api: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    key = await make_key(engine, ALL_SCOPES)
    prefix = key[: keys.PREFIX_LENGTH]
    assert (await api.delete(f"/v1/keys/{prefix}", headers=bearer(key))).status_code == 200
    assert_problem(await api.get("/v1/runs"), 401, "UNAUTHORIZED")
    assert_problem(await api.get("/v1/runs", headers=bearer(key)), 401, "UNAUTHORIZED")


async def test_guarded__no_key_unknown_key_and_revoked_key_are_401(
    guarded: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    assert_problem(await guarded.get("/v1/runs"), 401, "UNAUTHORIZED")  # no key exists yet
    key = await make_key(engine, {Scope.RUNS_READ})
    assert (await guarded.get("/v1/runs", headers=bearer(key))).status_code == 200
    forged = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
    assert_problem(await guarded.get("/v1/runs", headers=bearer(forged)), 401, "UNAUTHORIZED")
    assert_problem(
        await guarded.get("/v1/runs", headers={"Authorization": key}), 401, "UNAUTHORIZED"
    )
    async with engine.begin() as conn:
        await keys.revoke_key(conn, key[: keys.PREFIX_LENGTH], tenant_id=None, actor=OPERATOR)
    # Effective on the very next request: nothing caches a key.
    assert_problem(await guarded.get("/v1/runs", headers=bearer(key)), 401, "UNAUTHORIZED")


async def test_guarded__health_stays_open(guarded: httpx.AsyncClient) -> None:
    assert (await guarded.get("/healthz")).status_code == 200
    assert (await guarded.get("/readyz")).status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "body", "scope"),
    [
        ("POST", "/v1/agents", agent("a", [{"text": "x"}], []), "agents:write"),
        ("GET", "/v1/agents/a", None, "agents:read"),
        ("POST", "/v1/sessions/s/runs", {"agent_id": "a", "input": "x"}, "runs:write"),
        ("GET", "/v1/runs", None, "runs:read"),
        ("GET", "/v1/approvals", None, "runs:read"),
        ("GET", "/v1/keys", None, "admin"),
    ],
)
async def test_guarded__a_key_without_the_scope_is_403_naming_it(
    guarded: httpx.AsyncClient,
    engine: AsyncEngine,
    method: str,
    path: str,
    body: dict[str, Any] | None,
    scope: str,
) -> None:
    others = ALL_SCOPES - {Scope(scope)}
    key = await make_key(engine, others)
    response = await guarded.request(method, path, json=body, headers=bearer(key))
    problem = assert_problem(response, 403, "FORBIDDEN")
    assert problem["scope"] == scope
    assert scope in problem["detail"]
    async with engine.connect() as conn:
        assert await conn.scalar(text("SELECT count(*) FROM agents")) == 0
        assert await conn.scalar(text("SELECT count(*) FROM runs")) == 0


async def test_keys_api__shown_once_stored_as_a_hash_listed_and_revoked_with_an_audit_trail(
    guarded: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    admin = await make_key(engine, {Scope.ADMIN}, tenant="acme")
    created = await guarded.post(
        "/v1/keys", json={"name": "ci", "scopes": ["runs:read"]}, headers=bearer(admin)
    )
    assert created.status_code == 201, created.text
    made = created.json()
    plaintext = made["key"]
    assert made["tenant_id"] == "acme"  # the caller's tenant, never one it names
    assert plaintext.startswith(made["prefix"])
    assert len(plaintext) >= 4 + 43
    async with engine.connect() as conn:
        stored = (await conn.execute(select(api_keys))).all()
    assert all(plaintext not in repr(tuple(row)) for row in stored)
    assert keys.hash_key(plaintext) in {row.key_hash for row in stored}

    listed = (await guarded.get("/v1/keys", headers=bearer(admin))).json()["items"]
    assert {k["prefix"] for k in listed} == {made["prefix"], admin[: keys.PREFIX_LENGTH]}
    assert all("key" not in k and "key_hash" not in k for k in listed)

    assert (await guarded.get("/v1/runs", headers=bearer(plaintext))).status_code == 200
    revoked = await guarded.delete(f"/v1/keys/{made['prefix']}", headers=bearer(admin))
    assert revoked.status_code == 200
    assert revoked.json()["revoked_at"] is not None
    assert_problem(await guarded.get("/v1/runs", headers=bearer(plaintext)), 401, "UNAUTHORIZED")

    async with engine.connect() as conn:
        trail = (
            await conn.execute(
                select(audit_events.c.action, audit_events.c.target, audit_events.c.actor)
                .where(audit_events.c.tenant_id == "acme")
                .order_by(audit_events.c.id)
            )
        ).all()
    admin_prefix = admin[: keys.PREFIX_LENGTH]
    shown = (await guarded.get("/v1/audit", headers=bearer(admin))).json()["items"]
    assert [(e["action"], e["target"]) for e in shown] == [
        ("key.revoked", made["prefix"]),
        ("key.created", made["prefix"]),
        ("key.created", admin_prefix),
    ]
    assert shown[0]["actor"]["key_prefix"] == admin_prefix
    assert [(a, t) for a, t, _ in trail] == [
        ("key.created", admin_prefix),
        ("key.created", made["prefix"]),
        ("key.revoked", made["prefix"]),
    ]
    assert trail[2].actor["key_prefix"] == admin_prefix


async def test_keys_api__another_tenants_key_is_404_and_stays_live(
    guarded: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    theirs = await make_key(engine, {Scope.RUNS_READ}, tenant="globex")
    admin = await make_key(engine, {Scope.ADMIN}, tenant="acme")
    response = await guarded.delete(
        f"/v1/keys/{theirs[: keys.PREFIX_LENGTH]}", headers=bearer(admin)
    )
    assert_problem(response, 404, "NOT_FOUND")
    assert (await guarded.get("/v1/runs", headers=bearer(theirs))).status_code == 200
    listed = (await guarded.get("/v1/keys", headers=bearer(admin))).json()["items"]
    assert [k["tenant_id"] for k in listed] == ["acme"]


@pytest.mark.parametrize(
    "body",
    [
        {"name": "x", "scopes": []},
        {"name": "x", "scopes": ["root"]},
        {"name": "", "scopes": ["admin"]},
    ],
)
async def test_keys_api__bad_bodies_are_422(
    guarded: httpx.AsyncClient, engine: AsyncEngine, body: dict[str, Any]
) -> None:
    admin = await make_key(engine, {Scope.ADMIN})
    assert_problem(
        await guarded.post("/v1/keys", json=body, headers=bearer(admin)), 422, "VALIDATION_FAILED"
    )
    async with engine.connect() as conn:
        assert await conn.scalar(text("SELECT count(*) FROM api_keys")) == 1


# -- approver identity ---------------------------------------------------------------------


@pytest.fixture
async def guarded_live(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, pool_concurrency=4, open_when_keyless=False)
    async for client in started_client(app):
        yield client


async def paused_for_approval(
    client: httpx.AsyncClient, key: str, session: str, tool: dict[str, Any]
) -> dict[str, Any]:
    script = [calls(("pay", {"amount": 5})), {"text": "paid"}]
    defined = await client.post(
        "/v1/agents", json=agent(f"agent-{session}", script, [tool]), headers=bearer(key)
    )
    assert defined.status_code == 201, defined.text
    sent = await client.post(
        f"/v1/sessions/{session}/runs?wait=15",
        json={"agent_id": f"agent-{session}", "input": "go"},
        headers=bearer(key),
    )
    run: dict[str, Any] = sent.json()
    assert run["status"] == "awaiting_approval", run
    return run


async def test_approval__records_who_decided_and_audits_it(
    guarded_live: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    starter = await make_key(engine, {Scope.AGENTS_WRITE, Scope.RUNS_WRITE, Scope.RUNS_READ})
    approver = await make_key(engine, {Scope.APPROVALS_DECIDE, Scope.RUNS_READ})
    tool = {**python_tool("pay", "echo"), "needs_approval": True}
    run = await paused_for_approval(guarded_live, starter, "s-audit", tool)
    approval_id = run["pending_approvals"][0]["id"]
    decided = await guarded_live.post(
        f"/v1/approvals/{approval_id}/decision",
        json={"approved": True, "reason": "ok"},
        headers=bearer(approver),
    )
    assert decided.status_code == 200, decided.text
    shown = (
        await guarded_live.get(f"/v1/approvals/{approval_id}", headers=bearer(approver))
    ).json()
    assert shown["decided_by"] == {
        "tenant_id": "default",
        "name": "test",
        "key_prefix": approver[: keys.PREFIX_LENGTH],
    }
    assert "decided_by" not in shown["decision"]
    async with engine.connect() as conn:
        trail = (
            await conn.execute(
                select(audit_events.c.actor, audit_events.c.data).where(
                    audit_events.c.action == "approval.decided",
                    audit_events.c.target == approval_id,
                )
            )
        ).all()
    assert len(trail) == 1
    assert trail[0].actor["key_prefix"] == approver[: keys.PREFIX_LENGTH]
    assert trail[0].data["approved"] is True


async def test_approval__a_distinct_approver_tool_refuses_the_key_that_started_the_run(
    guarded_live: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    both = await make_key(engine, ALL_SCOPES)
    other = await make_key(engine, {Scope.APPROVALS_DECIDE, Scope.RUNS_READ})
    tool = {
        **python_tool("pay", "echo"),
        "needs_approval": True,
        "approval": {"distinct_approver": True},
    }
    run = await paused_for_approval(guarded_live, both, "s-four-eyes", tool)
    approval_id = run["pending_approvals"][0]["id"]
    url = f"/v1/approvals/{approval_id}/decision"
    refused = await guarded_live.post(url, json={"approved": True}, headers=bearer(both))
    assert_problem(refused, 403, "SELF_APPROVAL")
    # A key it mints is the same party, however its scopes differ.
    minted = await guarded_live.post(
        "/v1/keys", json={"name": "sock", "scopes": ["approvals:decide"]}, headers=bearer(both)
    )
    puppet = minted.json()["key"]
    refused = await guarded_live.post(url, json={"approved": True}, headers=bearer(puppet))
    assert_problem(refused, 403, "SELF_APPROVAL")
    still = (await guarded_live.get(f"/v1/approvals/{approval_id}", headers=bearer(both))).json()
    assert still["status"] == "pending"
    accepted = await guarded_live.post(url, json={"approved": True}, headers=bearer(other))
    assert accepted.status_code == 200, accepted.text
    finished = await wait_status(guarded_live, run["id"], {"finished"}, headers=bearer(both))
    assert finished["output"] == "paid", finished


async def test_keys_api__revoking_twice_answers_the_key_and_audits_once(
    guarded: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    admin = await make_key(engine, {Scope.ADMIN})
    victim = await make_key(engine, {Scope.RUNS_READ})
    url = f"/v1/keys/{victim[: keys.PREFIX_LENGTH]}"
    first = await guarded.delete(url, headers=bearer(admin))
    again = await guarded.delete(url, headers=bearer(admin))
    assert first.status_code == again.status_code == 200
    assert again.json()["revoked_at"] == first.json()["revoked_at"]
    async with engine.connect() as conn:
        revocations = await conn.scalar(
            select(func.count()).where(audit_events.c.action == "key.revoked")
        )
    assert revocations == 1


async def test_guarded__a_junk_key_is_refused_without_a_database_connection(
    database_url: str,
) -> None:
    """Junk in Authorization must not queue for connections that every tenant needs: with
    the pool's only connection held, a malformed key is still a 401, not a 503."""
    settings = make_settings(database_url, pool_size=1, pool_timeout_s=0.3)
    app = create_app(settings, open_when_keyless=False)
    async for client in started_client(app):
        held = await app.state.engine.connect()
        try:
            for junk in ("x", "pdk_short", "pdk_" + "!" * 43, "Bearer pdk_" + "a" * 43):
                response = await client.get("/v1/runs", headers=bearer(junk))
                assert_problem(response, 401, "UNAUTHORIZED")
        finally:
            await held.close()


async def test_send__choosing_the_agent_version_needs_agents_write(
    guarded: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    """A sender could move a session back to a version whose tool needed no approval, and
    loosen on_drift: which version runs is the agent author's call."""
    author = await make_key(engine, {Scope.AGENTS_WRITE, Scope.RUNS_WRITE})
    sender = await make_key(engine, {Scope.RUNS_WRITE, Scope.RUNS_READ})
    body = agent("payer", [{"text": "v1"}], [])
    assert (await guarded.post("/v1/agents", json=body, headers=bearer(author))).status_code == 201
    v2 = {"model": body["model"], "on_drift": "error"}
    assert (
        await guarded.put("/v1/agents/payer", json=v2, headers=bearer(author))
    ).status_code == 200
    first = {"agent_id": "payer", "input": "x"}
    assert (
        await guarded.post("/v1/sessions/s/runs", json=first, headers=bearer(sender))
    ).status_code == 202
    for extra in ({"agent_version": 1}, {"on_drift": "ignore"}):
        response = await guarded.post(
            "/v1/sessions/s/runs", json={"input": "y", **extra}, headers=bearer(sender)
        )
        problem = assert_problem(response, 403, "FORBIDDEN")
        assert problem["scope"] == "agents:write"
    runs = (await guarded.get("/v1/runs", headers=bearer(sender))).json()["items"]
    assert len(runs) == 1
    allowed = await guarded.post(
        "/v1/sessions/s/runs",
        json={"input": "y", "agent_version": 1, "on_drift": "ignore", "if_busy": "queue"},
        headers=bearer(author),
    )
    assert allowed.status_code == 202, allowed.text
