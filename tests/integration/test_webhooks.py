"""Webhooks end to end: a real run's events, the outbox, a real receiver, real signatures.

The receiver is `tests/fake_http.py`'s server; signatures are checked with the
`standardwebhooks` package (the spec's own reference library), not with our code.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from app.domain.principal import ALL_SCOPES
from app.main import create_app
from app.settings import Settings
from tests import pg
from tests.agents import agent
from tests.conftest import make_settings, started_client
from tests.fake_http import Reply, fake_server
from tests.integration.test_tenancy import A, B, bearer, make_key

FAST = {
    "webhook_poll_s": 0.05,
    "webhook_retry_base_s": 0.05,
    "webhook_retry_max_s": 0.2,
    "webhook_timeout_s": 2.0,
}


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(database_url, **FAST)


async def finished_run(client: httpx.AsyncClient, session: str = "s1") -> dict[str, Any]:
    body = agent("greeter", [{"text": "hello"}], [])
    assert (await client.post("/v1/agents", json=body)).status_code in (201, 409)
    sent = await client.post(
        f"/v1/sessions/{session}/runs?wait=10", json={"agent_id": "greeter", "input": "hi"}
    )
    assert sent.status_code == 200, sent.text
    run: dict[str, Any] = sent.json()
    assert run["status"] == "finished"
    return run


async def subscribe(client: httpx.AsyncClient, url: str, events: list[str]) -> dict[str, Any]:
    made = await client.post("/v1/webhooks", json={"url": url, "events": events})
    assert made.status_code == 201, made.text
    hook: dict[str, Any] = made.json()
    return hook


async def settled_deliveries(
    client: httpx.AsyncClient, hook_id: str, count: int, timeout: float = 15.0
) -> list[dict[str, Any]]:
    """The webhook's deliveries once `count` of them are no longer pending."""
    deadline = time.monotonic() + timeout
    while True:
        items = (await client.get(f"/v1/webhooks/{hook_id}/deliveries")).json()["items"]
        done = [d for d in items if d["status"] != "pending"]
        if len(done) >= count:
            return items  # type: ignore[no-any-return]
        if time.monotonic() > deadline:
            raise AssertionError(f"deliveries still pending: {items}")
        await asyncio.sleep(0.05)


async def test_a_receiver_that_fails_twice_gets_one_signed_delivery_after_three_attempts(
    live: httpx.AsyncClient,
) -> None:
    with fake_server("/hook") as receiver:
        receiver.push(Reply(500), Reply(503), Reply(200))
        hook = await subscribe(live, receiver.url + "/hook", ["run.finished"])
        assert hook["secret"].startswith("whsec_")
        run = await finished_run(live)

        (delivery,) = await settled_deliveries(live, hook["id"], 1)
        assert delivery["status"] == "delivered", delivery
        assert delivery["attempts"] == 3
        assert delivery["last_status"] == 200
        assert delivery["type"] == "run.finished"
        assert delivery["next_attempt_at"] is None

        seen = receiver.seen()
        assert len(seen) == 3
        verifier = Webhook(hook["secret"])
        for request in seen:
            # Raises unless the signature and timestamp are valid for this body.
            payload = verifier.verify(request.raw, request.headers)
            assert payload["type"] == "run.finished"
            assert payload["run_id"] == run["id"]
            assert payload["session_id"] == "s1"
            assert payload["id"] == delivery["event_id"]
            assert set(payload) == {"id", "type", "session_id", "run_id", "data", "created_at"}
        # The same id on every attempt, so the receiver can dedupe.
        assert len({r.headers["webhook-id"] for r in seen}) == 1
        assert seen[0].headers["webhook-id"] == f"evt_default/s1/{delivery['event_id']}"
        # A forged body does not verify.
        with pytest.raises(WebhookVerificationError):
            verifier.verify(seen[0].raw.replace(b"finished", b"failed"), seen[0].headers)


async def test_a_4xx_fails_at_once_and_unsubscribed_types_are_not_delivered(
    live: httpx.AsyncClient,
) -> None:
    with fake_server("/hook") as receiver:
        receiver.push(Reply(410, {"gone": True}))
        hook = await subscribe(live, receiver.url + "/hook", ["run.finished"])
        await finished_run(live)
        (delivery,) = await settled_deliveries(live, hook["id"], 1)
        assert delivery["status"] == "failed"
        assert delivery["attempts"] == 1
        assert delivery["last_status"] == 410
        assert delivery["last_error"] == "HTTP 410"
        await asyncio.sleep(0.3)  # time for retries or other types, were any sent
        assert [r.body["type"] for r in receiver.seen()] == ["run.finished"]


async def test_a_wildcard_gets_every_event_of_the_run_in_order(live: httpx.AsyncClient) -> None:
    with fake_server("/hook") as receiver:
        receiver.respond = lambda _seen: Reply(204)
        hook = await subscribe(live, receiver.url + "/hook", ["*"])
        run = await finished_run(live)
        events = (await live.get(f"/v1/runs/{run['id']}/events")).json()["items"]
        items = await settled_deliveries(live, hook["id"], len(events))
        assert {d["status"] for d in items} == {"delivered"}
        got = sorted((r.body["id"], r.body["type"]) for r in receiver.seen())
        assert got == [(e["id"], e["type"]) for e in events]


async def test_a_delivery_is_in_the_outbox_when_its_event_commits_and_survives_the_writer(
    settings: Settings, api: httpx.AsyncClient
) -> None:
    """No worker runs: the API writes `run.queued` and its delivery in one transaction, and
    dies (its process ends here); a worker started afterwards delivers it."""
    assert settings.database_url
    with fake_server("/hook") as receiver:
        receiver.push(Reply(200))
        hook = await subscribe(api, receiver.url + "/hook", ["run.queued"])
        body = agent("greeter", [{"text": "hello"}], [])
        assert (await api.post("/v1/agents", json=body)).status_code == 201
        sent = await api.post("/v1/sessions/s1/runs", json={"agent_id": "greeter", "input": "hi"})
        assert sent.status_code == 202
        rows = await pg.arows(
            settings.database_url,
            "SELECT d.status, e.type FROM webhook_deliveries d JOIN events e "
            "ON (e.tenant_id, e.session_id, e.id) = (d.tenant_id, d.session_id, d.event_id)",
        )
        assert rows == [("pending", "run.queued")]
        assert receiver.seen() == []

        worker_app = create_app(settings, pool_concurrency=2, open_when_keyless=True)
        async for worker in started_client(worker_app):
            (delivery,) = await settled_deliveries(worker, hook["id"], 1)
            assert delivery["status"] == "delivered"
        (request,) = receiver.seen()
        assert request.body["type"] == "run.queued"
        assert request.body["run_id"] == sent.json()["id"]
        Webhook(hook["secret"]).verify(request.raw, request.headers)


async def test_webhooks_api_shapes_and_refusals(api: httpx.AsyncClient) -> None:
    secret = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    made = await api.post(
        "/v1/webhooks",
        json={
            "url": "https://hooks.example.com/in",
            "events": ["run.failed", "run.finished"],
            "secret": secret,
        },
    )
    assert made.status_code == 201, made.text
    hook = made.json()
    assert hook["secret"] == secret
    listed = (await api.get("/v1/webhooks")).json()["items"]
    assert [h["id"] for h in listed] == [hook["id"]]
    assert "secret" not in listed[0]
    one = (await api.get(f"/v1/webhooks/{hook['id']}")).json()
    assert one["events"] == ["run.failed", "run.finished"]
    assert "secret" not in one
    assert (await api.get(f"/v1/webhooks/{hook['id']}/deliveries")).json() == {"items": []}

    refused = await api.post(
        "/v1/webhooks", json={"url": "http://169.254.169.254/latest", "events": ["*"]}
    )
    assert refused.status_code == 422
    assert refused.json()["code"] == "WEBHOOK_URL_REFUSED"
    for bad in (
        {"url": "ftp://example.com/x", "events": ["*"]},
        {"url": "not a url", "events": ["*"]},
        {"url": "https://example.com", "events": []},
        {"url": "https://example.com", "events": ["run.exploded"]},
        {"url": "https://example.com", "events": ["*"], "secret": "hunter2"},
        {"url": "https://example.com", "events": ["*"], "secret": "whsec_c2hvcnQ="},
        {"url": "https://example.com", "events": ["*"], "extra": 1},
    ):
        answer = await api.post("/v1/webhooks", json=bad)
        assert answer.status_code == 422, (bad, answer.text)
        assert answer.json()["code"] == "VALIDATION_FAILED"
    assert (await api.get("/v1/webhooks/not-a-uuid")).status_code == 422
    missing = "00000000-0000-0000-0000-000000000000"
    assert (await api.get(f"/v1/webhooks/{missing}")).status_code == 404
    assert (await api.get(f"/v1/webhooks/{missing}/deliveries")).status_code == 404
    assert (await api.delete(f"/v1/webhooks/{hook['id']}")).status_code == 204
    assert (await api.delete(f"/v1/webhooks/{hook['id']}")).status_code == 404
    assert (await api.get("/v1/webhooks")).json() == {"items": []}


async def test_tenant_b_can_neither_see_nor_delete_a_webhook_of_a(
    settings: Settings, engine: AsyncEngine
) -> None:
    a_key = bearer(await make_key(engine, A, ALL_SCOPES))
    b_key = bearer(await make_key(engine, B, ALL_SCOPES))
    app = create_app(settings, pool_concurrency=0, open_when_keyless=False)
    async for client in started_client(app):
        made = await client.post(
            "/v1/webhooks", json={"url": "https://a.example.com/", "events": ["*"]}, headers=a_key
        )
        hook_id = made.json()["id"]
        assert (await client.get("/v1/webhooks", headers=b_key)).json() == {"items": []}
        for method, path in (
            ("GET", f"/v1/webhooks/{hook_id}"),
            ("GET", f"/v1/webhooks/{hook_id}/deliveries"),
            ("DELETE", f"/v1/webhooks/{hook_id}"),
        ):
            answer = await client.request(method, path, headers=b_key)
            assert answer.status_code == 404, (method, path)
            assert "a.example.com" not in answer.text
        assert (await client.get(f"/v1/webhooks/{hook_id}", headers=a_key)).is_success
