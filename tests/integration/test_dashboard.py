"""The dashboard over HTTP: its trust boundary (cookie, scopes, CSRF), and what its pages
and forms do. The browser flows are in tests/browser/."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute
from sqlalchemy.ext.asyncio import AsyncEngine

from app.api.ui import ROUTERS
from app.domain.principal import ALL_SCOPES, Scope
from app.main import create_app
from app.settings import Settings
from app.store import keys
from tests.conftest import make_settings, started_client, wait_status
from tests.dashboard import bearer, gated_agent, paused_on_approval, signed_in
from tests.integration.test_tenancy import OPERATOR, make_key
from tests.support import get_json

TENANT = "acme"
DUMMY = {"run_id": "00000000-0000-0000-0000-000000000000", "approval_id": "x"}


@pytest.fixture
def settings(database_url: str) -> Settings:
    # Queued runs count as stuck at once, so the runs page's "stuck" flag shows.
    return make_settings(database_url, stuck_queued_s=0.001)


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, pool_concurrency=2, open_when_keyless=False)
    async for c in started_client(app):
        yield c


@pytest.fixture
async def key(engine: AsyncEngine) -> str:
    return await make_key(engine, TENANT, ALL_SCOPES)


def ui_routes() -> list[tuple[str, str]]:
    """(method, path) of every dashboard route, with placeholder ids."""
    found = []
    for route in (r for router in ROUTERS for r in router.routes):
        if isinstance(route, APIRoute) and route.path.startswith("/ui"):
            path = route.path.format_map({**DUMMY, "session_id": "s", "agent_id": "a"})
            found += [(method, path) for method in sorted(route.methods or ())]
    return found


PUBLIC = {("GET", "/ui/login"), ("POST", "/ui/login"), ("POST", "/ui/logout")}


def test_ui_routes__are_out_of_the_contract() -> None:
    app = create_app(make_settings("postgresql+psycopg://unused/x"))
    assert len(ui_routes()) >= 14
    assert not [p for p in app.openapi()["paths"] if p.startswith("/ui")]


async def test_every_ui_route__sends_a_browser_without_a_good_key_to_login(
    client: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    revoked = await make_key(engine, TENANT, ALL_SCOPES)
    async with engine.begin() as conn:
        await keys.revoke_key(conn, revoked[: keys.PREFIX_LENGTH], tenant_id=TENANT, actor=OPERATOR)
    unknown = "pdk_" + "x" * 40
    for method, path in ui_routes():
        if (method, path) in PUBLIC:
            continue
        bare = await client.request(method, path)
        assert (bare.status_code, bare.headers["location"]) == (303, "/ui/login"), (method, path)
        for bad in (revoked, unknown, "junk"):
            refused = await client.request(method, path, headers=signed_in(bad))
            assert refused.status_code == 303, (method, path, bad)
            assert refused.headers["location"] == "/ui/login?error=refused"
            assert 'perdure_key=""' in refused.headers["set-cookie"]  # dropped
    login = await client.get("/ui/login", params={"error": "refused"})
    assert "That key was refused" in login.text
    assert "text/html" in login.headers["content-type"]


@pytest.mark.parametrize(
    ("base_url", "secure"), [("http://perdure.test", False), ("https://perdure.test", True)]
)
async def test_login__keeps_the_key_in_a_strict_httponly_cookie(
    client: httpx.AsyncClient, key: str, base_url: str, *, secure: bool
) -> None:
    answer = await client.post(f"{base_url}/ui/login", data={"key": key})
    assert (answer.status_code, answer.headers["location"]) == (303, "/ui/runs")
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"perdure_key={key};")
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    assert "Path=/ui" in cookie
    assert ("Secure" in cookie) is secure
    page = await client.get("/ui/runs", headers=signed_in(key))
    assert page.status_code == 200
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]


async def test_login__refuses_a_bad_key_with_the_form_again(client: httpx.AsyncClient) -> None:
    answer = await client.post("/ui/login", data={"key": "pdk_nope"})
    assert answer.status_code == 401
    assert "That key was refused" in answer.text
    assert "set-cookie" not in answer.headers


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.test"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site", "Origin": "http://perdure.test"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
async def test_forms__refuse_a_post_from_another_origin(
    client: httpx.AsyncClient, key: str, headers: dict[str, str]
) -> None:
    await client.post("/v1/agents", json=gated_agent(), headers=bearer(key))
    run = await paused_on_approval(client, key, "csrf-1")
    answer = await client.post(
        f"/ui/runs/{run['id']}/cancel", headers={**signed_in(key), **headers}
    )
    assert answer.status_code == 403
    assert "another" in answer.text
    assert (await get_json_as(client, key, f"/v1/runs/{run['id']}"))["status"] == (
        "awaiting_approval"
    )
    # The same form from the dashboard's own page goes through.
    own = {"Origin": "http://perdure.test", "Sec-Fetch-Site": "same-origin"}
    answer = await client.post(f"/ui/runs/{run['id']}/cancel", headers={**signed_in(key), **own})
    assert (answer.status_code, answer.headers["location"]) == (303, f"/ui/runs/{run['id']}")
    await wait_status(client, run["id"], {"cancelled"}, headers=bearer(key))


async def get_json_as(client: httpx.AsyncClient, key: str, path: str) -> dict[str, Any]:
    response = await client.get(path, headers=bearer(key))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_a_missing_scope__is_a_403_page_and_changes_nothing(
    client: httpx.AsyncClient, engine: AsyncEngine, key: str
) -> None:
    await client.post("/v1/agents", json=gated_agent(), headers=bearer(key))
    run = await paused_on_approval(client, key, "scope-1")
    reader = await make_key(engine, TENANT, frozenset({Scope.RUNS_READ}))
    approval = run["pending_approvals"][0]["id"]
    decided = await client.post(
        f"/ui/approvals/{approval}/decision",
        data={"decision": "approve", "arguments": ""},
        headers=signed_in(reader),
    )
    assert decided.status_code == 403
    assert "approvals:decide" in decided.text
    for path in (f"/ui/runs/{run['id']}/cancel", f"/ui/runs/{run['id']}/resume"):
        assert (await client.post(path, headers=signed_in(reader))).status_code == 403
    assert (await client.get("/ui/agents", headers=signed_in(reader))).status_code == 403
    assert (await client.get("/ui/approvals", headers=signed_in(reader))).status_code == 200
    after = await get_json_as(client, key, f"/v1/approvals/{approval}")
    assert after["status"] == "pending"


async def test_inbox__shows_an_edit_the_schema_refuses_at_its_field_then_approves_a_fix(
    client: httpx.AsyncClient, key: str
) -> None:
    await client.post("/v1/agents", json=gated_agent(), headers=bearer(key))
    run = await paused_on_approval(client, key, "edit-1")
    approval = run["pending_approvals"][0]["id"]
    inbox = await client.get("/ui/approvals", headers=signed_in(key))
    assert f'id="approval-{approval}"' in inbox.text
    assert "&#34;amount&#34;: 500" in inbox.text  # the arguments as formatted JSON

    typed = '{"amount": "lots"}'
    refused = await client.post(
        f"/ui/approvals/{approval}/decision",
        data={"decision": "approve", "arguments": typed},
        headers=signed_in(key),
    )
    assert refused.status_code == 422
    assert "<code>amount</code>" in refused.text  # the field, inline
    assert "is not of type" in refused.text
    assert "{&#34;amount&#34;: &#34;lots&#34;}" in refused.text  # as typed
    not_json = await client.post(
        f"/ui/approvals/{approval}/decision",
        data={"decision": "approve", "arguments": "{amount"},
        headers=signed_in(key),
    )
    assert not_json.status_code == 422
    assert "not JSON" in not_json.text
    assert (await get_json_as(client, key, f"/v1/approvals/{approval}"))["status"] == "pending"

    approved = await client.post(
        f"/ui/approvals/{approval}/decision",
        data={"decision": "approve", "arguments": '{"amount": 120}', "reason": "capped"},
        headers=signed_in(key),
    )
    assert (approved.status_code, approved.headers["location"]) == (303, f"/ui/runs/{run['id']}")
    await wait_status(client, run["id"], {"finished"}, headers=bearer(key))
    messages = (await get_json_as(client, key, "/v1/sessions/edit-1/messages"))["items"]
    assert [m["content"]["echo"] for m in messages if m["role"] == "tool"] == [{"amount": 120}]
    again = await client.post(
        f"/ui/approvals/{approval}/decision",
        data={"decision": "reject", "arguments": "", "reason": "late"},
        headers=signed_in(key),
    )
    assert again.status_code == 409  # decided already: shown at the approval
    assert "already" in again.text


async def test_reject__with_a_reason_reaches_the_model(client: httpx.AsyncClient, key: str) -> None:
    await client.post("/v1/agents", json=gated_agent(), headers=bearer(key))
    run = await paused_on_approval(client, key, "reject-1")
    approval = run["pending_approvals"][0]["id"]
    answer = await client.post(
        f"/ui/approvals/{approval}/decision",
        data={"decision": "reject", "arguments": '{\n  "amount": 500\n}', "reason": "too much"},
        headers=signed_in(key),
    )
    assert answer.status_code == 303
    await wait_status(client, run["id"], {"finished"}, headers=bearer(key))
    page = await client.get(f"/ui/runs/{run['id']}", headers=signed_in(key))
    assert "<strong>approval.decided</strong>" in page.text
    assert "too much" in page.text  # the rejection's note, in the tool's result


async def test_runs_page__stuck_first_and_filters(
    settings: Settings, engine: AsyncEngine, key: str
) -> None:
    # No workers: the queued run stays queued, past PERDURE_STUCK_QUEUED_S.
    app = create_app(settings, pool_concurrency=0, open_when_keyless=False)
    async for api in started_client(app):
        await api.post("/v1/agents", json=gated_agent(), headers=bearer(key))
        sent = await api.post(
            "/v1/sessions/stuck-1/runs",
            json={"agent_id": "payer", "input": "x", "metadata": {"customer": "acme"}},
            headers=bearer(key),
        )
        run_id = sent.json()["id"]
        page = await api.get("/ui/runs", headers=signed_in(key))
        assert page.status_code == 200
        assert f'<tr class="stuck" data-run="{run_id}">' in page.text
        for query, shown in [
            ({"meta": "customer=acme"}, True),
            ({"meta": "customer=globex"}, False),
            ({"status": "queued", "agent": "payer"}, True),
            ({"status": "failed"}, False),
            ({"agent": "other"}, False),
        ]:
            listed = await api.get("/ui/runs", params=query, headers=signed_in(key))
            assert (run_id in listed.text) is shown, query
        bad = await api.get("/ui/runs", params={"meta": "no-equals"}, headers=signed_in(key))
        assert bad.status_code == 422
        unknown = await api.get("/ui/runs", params={"status": "bogus"}, headers=signed_in(key))
        assert unknown.status_code == 422


async def test_agent_page__diffs_two_versions(client: httpx.AsyncClient, key: str) -> None:
    body = gated_agent()
    await client.post(
        "/v1/agents", json={**body, "instructions": "Be careful."}, headers=bearer(key)
    )
    del body["id"]
    put = await client.put(
        "/v1/agents/payer", json={**body, "instructions": "Be quick."}, headers=bearer(key)
    )
    assert put.status_code == 200, put.text
    page = await client.get("/ui/agents/payer", params={"a": 1, "b": 2}, headers=signed_in(key))
    assert page.status_code == 200
    assert '<span class="del">-  &#34;instructions&#34;: &#34;Be careful.&#34;,</span>' in page.text
    assert '<span class="add">+  &#34;instructions&#34;: &#34;Be quick.&#34;,</span>' in page.text
    missing = await client.get("/ui/agents/payer", params={"a": 7}, headers=signed_in(key))
    assert missing.status_code == 404
    listed = await client.get("/ui/agents", headers=signed_in(key))
    assert 'href="/ui/agents/payer"' in listed.text


async def test_session_and_run_pages__show_transcript_timeline_and_lease(
    client: httpx.AsyncClient, key: str
) -> None:
    await client.post("/v1/agents", json=gated_agent(), headers=bearer(key))
    run = await paused_on_approval(client, key, "pages-1")
    run_page = await client.get(f"/ui/runs/{run['id']}", headers=signed_in(key))
    assert run_page.status_code == 200
    text = run_page.text
    assert 'data-status="awaiting_approval"' in text
    assert "charge it" in text  # the user's input in the transcript
    assert '<span class="tool">charge</span>' in text  # the call
    timeline = text[text.index("Timeline") : text.index("Transcript")]
    for line in ("run.started", "checkpoint 1", "turn.saved", "approval.requested"):
        assert f"<strong>{line}</strong>" in timeline
    assert '<dd id="lease">none</dd>' in text  # paused: no worker holds it
    assert f'data-stream="/ui/runs/{run["id"]}/stream"' in text
    session_page = await client.get("/ui/sessions/pages-1", headers=signed_in(key))
    assert session_page.status_code == 200
    assert f'href="/ui/runs/{run["id"]}"' in session_page.text
    sessions = await client.get("/ui/sessions", headers=signed_in(key))
    assert 'href="/ui/sessions/pages-1"' in sessions.text
    assert (await client.get("/ui/runs/not-a-uuid", headers=signed_in(key))).status_code == 404
    home = await client.get("/ui", headers=signed_in(key))
    assert (home.status_code, home.headers["location"]) == (303, "/ui/runs")
    assert (await get_json(client, "/healthz")) is not None
