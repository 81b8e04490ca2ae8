"""GET /metrics: each metric moves when its event happens, behind its own scope, and no
label carries an id or free text.

Counters are the process's (shared by every test in it): tests compare a scrape before
and after the event, never absolute values.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.api.ui import ROUTERS as UI_ROUTERS
from app.domain.principal import ALL_SCOPES, Scope
from app.domain.run import CheckpointWrite, RunStatus, Usage
from app.errors import LeaseLost
from app.settings import Settings
from app.store import leases
from app.worker.pool import FencedJournal, RunControl, WorkerPool
from tests.agents import agent, calls, http_tool, openai_model, python_tool
from tests.conftest import wait_status
from tests.fake_http import FakeServer, fake_server, http_server
from tests.integration.test_tenancy import SPEC, bearer, make_key
from tests.providers.fake_servers import openai_call, openai_error, openai_reply
from tests.support import define, queue, run_to_rest, send

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]

# Every label a perdure_* series may have; each one's values come from a small fixed set.
LABELS = {
    "status",
    "reason",
    "provider",
    "outcome",
    "code",
    "executor",
    "method",
    "route",
    "direction",
}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def parse(text: str) -> Samples:
    from prometheus_client.parser import text_string_to_metric_families

    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def scrape(client: httpx.AsyncClient, headers: dict[str, str] | None = None) -> Samples:
    response = await client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return parse(response.text)


@pytest.fixture
def model() -> Iterator[FakeServer]:
    with fake_server("/v1/chat/completions") as server:
        yield server


async def test_a_run_moves_every_worker_metric(live: httpx.AsyncClient, model: FakeServer) -> None:
    before = await scrape(live)
    with http_server({"/t": (200, b'{"ok": true}', 0), "/hook": (204, b"", 0)}) as (base, seen):
        hook = await live.post(
            "/v1/webhooks", json={"url": f"{base}/hook", "events": ["run.finished"]}
        )
        assert hook.status_code == 201, hook.text
        model.push(
            openai_reply(calls=[openai_call("c1", "t", {}), openai_call("c2", "add", {})]),
            openai_reply("done"),
            openai_error(400, "bad request"),
        )
        tools = [http_tool("t", f"{base}/t"), python_tool("add", "noop")]
        await define(live, {"id": "m", "model": openai_model(model.url), "tools": tools})
        done = await run_to_rest(live, "m-1", {"agent_id": "m", "input": "go"})
        assert done["status"] == "finished"
        failed = await run_to_rest(live, "m-2", {"agent_id": "m", "input": "go"})
        assert failed["status"] == "failed"
        assert failed["last_error"]["code"] == "client_error"
        deadline = time.monotonic() + 15
        while not any(s["path"] == "/hook" for s in seen):
            assert time.monotonic() < deadline, "the webhook was not delivered"
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # its outcome is counted once recorded
        after = await scrape(live)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("perdure_claims_total") == 2
    assert moved("perdure_model_call_seconds_count", provider="openai", outcome="ok") == 2
    assert moved("perdure_model_call_seconds_count", provider="openai", outcome="error") == 1
    assert moved("perdure_model_call_errors_total", provider="openai", code="client_error") == 1
    assert moved("perdure_tool_call_seconds_count", executor="http", outcome="ok") == 1
    assert moved("perdure_tool_call_seconds_count", executor="python", outcome="ok") == 1
    # input, turn, results (one or two saves), final turn; the failure: input, failure.
    assert moved("perdure_checkpoint_write_seconds_count") >= 6
    assert moved("perdure_webhook_deliveries_total", outcome="delivered") == 1
    route = "/v1/sessions/{session_id}/runs"
    assert moved("perdure_http_requests_total", method="POST", route=route, status="200") == 2
    assert value(after, "perdure_runs", status="finished") == 1
    assert value(after, "perdure_runs", status="failed") == 1


async def test_database_gauges__queued_runs_and_pending_approvals(
    api: httpx.AsyncClient, settings: Settings
) -> None:
    """Read from the database at the scrape, whichever process made the change."""
    await define(api, agent("q", [{"text": "hi"}], []))
    await queue(api, "q-1", "q")
    await asyncio.sleep(0.2)
    samples = await scrape(api)
    assert value(samples, "perdure_runs", status="queued") == 1
    assert value(samples, "perdure_runs", status="running") == 0  # every status has a series
    assert value(samples, "perdure_queued_oldest_age_seconds") >= 0.2
    assert value(samples, "perdure_approvals_pending") == 0
    assert value(samples, "perdure_approvals_pending_oldest_age_seconds") == 0

    gated = {**python_tool("pay", "noop"), "needs_approval": True}
    await define(api, agent("a", [calls(("pay", {})), {"text": "paid"}], [gated]))
    run_id = await queue(api, "a-1", "a")
    pool = WorkerPool(settings, concurrency=2)
    await pool.start()
    try:
        await wait_status(api, run_id, {"awaiting_approval"})
    finally:
        await pool.stop()
    await asyncio.sleep(0.2)
    samples = await scrape(api)
    assert value(samples, "perdure_approvals_pending") == 1
    assert value(samples, "perdure_approvals_pending_oldest_age_seconds") >= 0.2
    assert value(samples, "perdure_runs", status="awaiting_approval") == 1
    assert value(samples, "perdure_runs", status="queued") == 0  # q-1 was driven too
    assert value(samples, "perdure_queued_oldest_age_seconds") == 0


async def take_over(
    api: httpx.AsyncClient, settings: Settings, engine: AsyncEngine, *, dead: bool
) -> tuple[float, float]:
    """A run claimed by a `ghost` worker that then stops driving it, taken over by a real
    pool: (liveness, expired) takeovers the pool counted meanwhile."""
    await define(api, agent("t", [{"text": "hi"}], []))
    run_id = await queue(api, f"t-{dead}", "t")
    async with engine.connect() as liveness:
        if not dead:
            # Alive (its liveness lock held) but late: no heartbeat, its lease run out.
            await liveness.execute(leases.HOLD_LIVENESS, {"owner": "ghost"})
        async with engine.begin() as conn:
            claims = await leases.claim_runs(
                conn, owner="ghost", limit=1, ttl_s=0.2, idle=True, max_deaths=3
            )
        assert [str(c.run_id) for c in claims] == [run_id]
        await asyncio.sleep(0.3)
        if not dead:
            async with engine.begin() as conn:
                await conn.execute(
                    text("UPDATE workers SET heartbeat_at = now() - interval '1 hour'")
                )
        before = await scrape(api)
        pool = WorkerPool(settings, concurrency=2)
        await pool.start()
        try:
            await wait_status(api, run_id, {"finished"})
        finally:
            await pool.stop()
    after = await scrape(api)
    return tuple(  # type: ignore[return-value]
        value(after, "perdure_takeovers_total", reason=reason)
        - value(before, "perdure_takeovers_total", reason=reason)
        for reason in ("liveness", "expired")
    )


async def test_takeover_of_a_dead_worker__reason_liveness(
    api: httpx.AsyncClient, settings: Settings, engine: AsyncEngine
) -> None:
    assert await take_over(api, settings, engine, dead=True) == (1, 0)


async def test_takeover_of_a_late_worker__reason_expired(
    api: httpx.AsyncClient, settings: Settings, engine: AsyncEngine
) -> None:
    assert await take_over(api, settings, engine, dead=False) == (0, 1)


async def test_http_requests_are_labelled_by_route_template__never_the_path(
    api: httpx.AsyncClient,
) -> None:
    await define(api, agent("r", [{"text": "hi"}], []))
    run_id = await queue(api, "r-1", "r")
    assert (await api.get(f"/v1/runs/{run_id}")).status_code == 200
    assert (await api.get(f"/v1/runs/{run_id}/nowhere")).status_code == 404
    assert (await api.request("BREW", "/v1/runs")).status_code == 405
    samples = await scrape(api)
    assert (
        value(
            samples,
            "perdure_http_requests_total",
            method="GET",
            route="/v1/runs/{run_id}",
            status="200",
        )
        >= 1
    )
    assert (
        value(samples, "perdure_http_requests_total", method="GET", route="unmatched", status="404")
        >= 1
    )
    assert (
        value(
            samples, "perdure_http_requests_total", method="other", route="/v1/runs", status="405"
        )
        >= 1
    )
    assert_bounded(samples, ids=[run_id, "r-1"])


def assert_bounded(samples: Samples, ids: list[str]) -> None:
    """Every perdure_* label is one of LABELS, and no value is an id or a path."""
    # The API's templates, and the dashboard's (its tests in this process count too).
    ui = {getattr(r, "path", "") for router in UI_ROUTERS for r in router.routes}
    routes = set(SPEC["paths"]) | ui | {"/openapi.json", "/docs", "/redoc", "unmatched"}
    for name, labels in samples:
        if not name.startswith("perdure_"):
            continue
        for label, shown in labels:
            if label == "le":
                continue  # a histogram's bucket bound
            assert label in LABELS, (name, label)
            assert not UUID.search(shown), (name, label, shown)
            assert all(i not in shown for i in ids), (name, label, shown)
            if label == "route":
                assert shown in routes, shown
            else:
                assert re.fullmatch(r"[A-Za-z0-9_]{1,48}", shown), (name, label, shown)


async def test_no_label_holds_an_id_or_free_text(
    live: httpx.AsyncClient, model: FakeServer
) -> None:
    """After runs that fail with a message of the model's own, call a tool that fails, and
    ids everywhere: the scrape's labels are all from fixed sets."""
    model.push(openai_error(500, "upstream said: session s-42 of run 1234 is on fire"))
    model.push(openai_error(400, 'free text: ☃ {weird} label="x"'))
    await define(live, {"id": "x", "model": openai_model(model.url), "tools": []})
    run = await send(live, "x-session-unique", {"agent_id": "x", "input": "go"})
    failed = await wait_status(live, run["id"], {"failed"})
    await define(
        live, agent("b", [calls(("boom", {})), {"text": "ok"}], [python_tool("boom", "boom")])
    )
    boomed = await run_to_rest(live, "b-session-unique", {"agent_id": "b", "input": "go"})
    samples = await scrape(live)
    assert (
        value(samples, "perdure_tool_call_seconds_count", executor="python", outcome="error") >= 1
    )
    assert_bounded(
        samples, ids=[failed["id"], boomed["id"], "x-session-unique", "b-session-unique"]
    )


async def test_metrics_need_the_metrics_scope__admin_is_not_enough(
    api: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    """Counts over every tenant: the monitoring system's scope, not a tenant admin's."""
    admin = await make_key(engine, "acme", frozenset(ALL_SCOPES - {Scope.METRICS_READ}))
    monitor = await make_key(engine, "ops", frozenset({Scope.METRICS_READ}))
    assert (await api.get("/metrics")).status_code == 401  # a key exists: no open mode
    refused = await api.get("/metrics", headers=bearer(admin))
    assert refused.status_code == 403
    assert refused.json()["code"] == "FORBIDDEN"
    samples = await scrape(api, headers=bearer(monitor))
    assert ("perdure_runs", frozenset({("status", "queued")})) in samples
    # Only the monitor's scope: it reads no tenant's objects.
    assert (await api.get("/v1/runs", headers=bearer(monitor))).status_code == 403


async def test_a_save_with_a_stale_token_counts_as_a_fenced_write_rejected(
    api: httpx.AsyncClient, settings: Settings, engine: AsyncEngine
) -> None:
    """The worker's save path: a token older than the run's writes nothing, and counts."""
    await define(api, agent("f", [{"text": "hi"}], []))
    await queue(api, "f-1", "f")
    async with engine.begin() as conn:
        (claim,) = await leases.claim_runs(
            conn, owner="newer", limit=1, ttl_s=30, idle=True, max_deaths=3
        )
    before = await scrape(api)
    pool = WorkerPool(settings, concurrency=1)  # not started: its save queue only
    try:
        stale = RunControl(claim.run_id, claim.lease_token - 1, 30.0, 1.0, asyncio.Event())
        journal = FencedJournal(pool.saves, stale, pool.deltas)
        write = CheckpointWrite(
            checkpoint_seq=1, status=RunStatus.RUNNING, steps=0, usage=Usage(), message_count=0
        )
        with pytest.raises(LeaseLost):
            await journal.save(write)
    finally:
        await pool.stop()
    after = await scrape(api)
    rejected = "perdure_fenced_writes_rejected_total"
    assert value(after, rejected) - value(before, rejected) == 1


async def test_a_tenant_admin_cannot_mint_itself_a_metrics_key(
    api: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    admin = await make_key(engine, "acme", frozenset({Scope.ADMIN}))
    refused = await api.post(
        "/v1/keys", json={"name": "peek", "scopes": ["metrics:read"]}, headers=bearer(admin)
    )
    assert refused.status_code == 403, refused.text
    assert refused.json()["scope"] == "metrics:read"
    listed = (await api.get("/v1/keys", headers=bearer(admin))).json()["items"]
    assert [k["name"] for k in listed] == ["acme-key"]  # nothing was made
    operator = await make_key(engine, "ops", frozenset({Scope.ADMIN, Scope.METRICS_READ}))
    passed_on = await api.post(
        "/v1/keys", json={"name": "prom", "scopes": ["metrics:read"]}, headers=bearer(operator)
    )
    assert passed_on.status_code == 201, passed_on.text
    await scrape(api, headers=bearer(passed_on.json()["key"]))


async def test_spend__tokens_and_cost_are_exported(live: httpx.AsyncClient) -> None:
    """What runs spend, as the budgets count it, without an id in any label."""
    reply = {"text": "done", "input_tokens": 1000, "output_tokens": 500}
    model = {
        "provider": "scripted",
        "script": [reply],
        "price": {"input_per_mtok": 2.0, "output_per_mtok": 10.0},
    }
    await define(live, {"id": "priced", "model": model, "tools": []})
    before = await scrape(live)
    done = await run_to_rest(live, "priced-1", {"agent_id": "priced", "input": "go"})
    assert done["usage"]["cost_usd"] == pytest.approx(0.007)
    after = await scrape(live)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("perdure_model_tokens_total", provider="scripted", direction="input") == 1000
    assert moved("perdure_model_tokens_total", provider="scripted", direction="output") == 500
    assert moved("perdure_model_cost_usd_total", provider="scripted") == pytest.approx(0.007)
