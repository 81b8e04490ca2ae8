"""The runbook commands as an operator runs them: `perdure runs|approvals|sessions …` in a
process of their own, against a real server (uvicorn on loopback), reading its answers
and exit codes."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from app.domain.principal import ALL_SCOPES
from app.embedded_pg import free_port
from app.main import create_app
from app.store import keys
from tests.agents import ADD_SCHEMA, agent, calls, python_tool
from tests.conftest import make_settings
from tests.crash.harness import ROOT
from tests.serving import serving

pytestmark = pytest.mark.timeout(180)


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


async def perdure(url: str, *args: str, key: str | None = None) -> Result:
    """Run `perdure ARGS` with PERDURE_URL (and PERDURE_API_KEY) set; the server runs in
    this event loop, so the process is awaited, never waited on."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERDURE_")}
    env |= {"PERDURE_URL": url, "PYTHONPATH": str(ROOT)}
    if key is not None:
        env["PERDURE_API_KEY"] = key
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli",
        *args,
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return Result(process.returncode, out.decode(), err.decode())


async def ok(url: str, *args: str, key: str | None = None) -> Result:
    result = await perdure(url, *args, key=key)
    assert result.code == 0, result
    return result


async def wait_for(client: httpx.AsyncClient, run_id: str, statuses: set[str]) -> dict[str, Any]:
    for _ in range(400):
        run: dict[str, Any] = (await client.get(f"/v1/runs/{run_id}")).json()
        if run["status"] in statuses:
            return run
        await asyncio.sleep(0.05)
    raise AssertionError(f"run {run_id} is still {run['status']}")


@pytest.fixture
async def server(database_url: str) -> AsyncIterator[str]:
    """An open server (loopback, no key) with a worker pool."""
    app = create_app(make_settings(database_url), pool_concurrency=4, open_when_keyless=True)
    async with serving(app) as url:
        yield url


GATED = {**python_tool("charge", "echo"), "needs_approval": True}


async def test_approve_from_the_cli__the_run_finishes_and_the_transcript_shows_it(
    server: str,
) -> None:
    async with httpx.AsyncClient(base_url=server) as client:
        body = agent("payer", [calls(("charge", {"amount": 5})), {"text": "paid"}], [GATED])
        assert (await client.post("/v1/agents", json=body)).status_code == 201
        sent = await client.post(
            "/v1/sessions/pay-1/runs", json={"agent_id": "payer", "input": "pay"}
        )
        run = await wait_for(client, sent.json()["id"], {"awaiting_approval"})
        approval_id = run["pending_approvals"][0]["id"]

        listed = await ok(server, "approvals", "ls")
        assert approval_id in listed.out
        assert "charge" in listed.out
        assert [a["id"] for a in (await ok(server, "approvals", "ls", "--json")).json()] == [
            approval_id
        ]

        shown = await ok(server, "runs", "show", run["id"])
        assert "awaiting_approval" in shown.out
        assert approval_id in shown.out
        assert "approval.requested" in shown.out
        as_json = (await ok(server, "runs", "show", run["id"], "--json", "--events", "2")).json()
        assert as_json["run"]["id"] == run["id"]
        assert len(as_json["events"]) == 2
        assert as_json["events"][-1]["type"] == "run.paused"

        approved = await ok(server, "approvals", "approve", approval_id, "--reason", "on call")
        assert "approved" in approved.out
        done = await wait_for(client, run["id"], {"finished", "failed"})
        assert done["status"] == "finished"
        decided = (await client.get(f"/v1/approvals/{approval_id}")).json()
        assert decided["decision"]["reason"] == "on call"

        again = await perdure(server, "approvals", "reject", approval_id)
        assert again.code == 1
        assert "APPROVAL_ALREADY_DECIDED" in again.err

        transcript = await ok(server, "sessions", "show", "pay-1")
        assert "user: pay" in transcript.out
        assert "→ charge(" in transcript.out
        assert "assistant: paid" in transcript.out
        messages = (await ok(server, "sessions", "show", "pay-1", "--json")).json()["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]

        listed_sessions = (await ok(server, "sessions", "ls", "--json")).json()
        assert [s["id"] for s in listed_sessions] == ["pay-1"]


async def test_reject_from_the_cli__the_model_reads_the_refusal(server: str) -> None:
    async with httpx.AsyncClient(base_url=server) as client:
        body = agent("payer", [calls(("charge", {"amount": 5})), {"text": "ok"}], [GATED])
        assert (await client.post("/v1/agents", json=body)).status_code == 201
        sent = await client.post("/v1/sessions/s/runs", json={"agent_id": "payer", "input": "x"})
        run = await wait_for(client, sent.json()["id"], {"awaiting_approval"})
        approval_id = run["pending_approvals"][0]["id"]
        rejected = await ok(server, "approvals", "reject", approval_id, "--reason", "no", "--json")
        assert rejected.json()["status"] == "rejected"
        await wait_for(client, run["id"], {"finished"})
        statuses = [
            m.get("status") for m in (await client.get("/v1/sessions/s/messages")).json()["items"]
        ]
        assert "rejected" in statuses


async def test_why_a_run_failed__then_resume_it(server: str) -> None:
    add = python_tool("add", "add", ADD_SCHEMA)
    # The model refuses once (not retryable), then answers.
    error = {"message": "400 bad request", "retryable": False, "times": 1}
    failing = {"text": "recovered", "error": error}
    async with httpx.AsyncClient(base_url=server) as client:
        body = agent("flaky", [failing], [add])
        assert (await client.post("/v1/agents", json=body)).status_code == 201
        sent = await client.post("/v1/sessions/f/runs", json={"agent_id": "flaky", "input": "x"})
        run = await wait_for(client, sent.json()["id"], {"failed"})

        failed = (await ok(server, "runs", "ls", "--status", "failed", "--json")).json()
        assert [r["id"] for r in failed] == [run["id"]]
        shown = await ok(server, "runs", "show", run["id"])
        assert "400 bad request" in shown.out
        assert "run.failed" in shown.out

        resumed = await ok(server, "runs", "resume", run["id"])
        assert f"run {run['id']}: queued" in resumed.out
        done = await wait_for(client, run["id"], {"finished", "failed"})
        assert done["output"] == "recovered"

        refused = await perdure(server, "runs", "resume", run["id"])
        assert refused.code == 1
        assert "RUN_NOT_RESUMABLE" in refused.err
        missing = await perdure(server, "runs", "show", "00000000-0000-0000-0000-000000000000")
        assert missing.code == 1
        assert "NOT_FOUND" in missing.err


async def test_find_stuck_runs_and_cancel_them__with_a_key(database_url: str) -> None:
    """No workers, and a queued run is stuck after half a second: `runs ls --stuck` finds
    it, `runs cancel` ends it. The server is keyed: PERDURE_API_KEY is what the CLI sends."""
    settings = make_settings(database_url, stuck_queued_s=0.5)
    app = create_app(settings, pool_concurrency=0, open_when_keyless=False)
    async with serving(app) as url:
        engine = app.state.engine
        async with engine.begin() as conn:
            _record, key = await keys.create_key(
                conn,
                tenant_id="ops",
                name="runbook",
                scopes=ALL_SCOPES,
                actor={"tenant_id": None, "name": "test", "key_prefix": None},
            )
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as client:
            body = agent("a", [{"text": "x"}], [])
            assert (await client.post("/v1/agents", json=body)).status_code == 201
            sent = await client.post(
                "/v1/sessions/s/runs",
                json={"agent_id": "a", "input": "x", "metadata": {"customer": "acme"}},
            )
            run_id = sent.json()["id"]
            await asyncio.sleep(0.7)

            unauthorized = await perdure(url, "runs", "ls")
            assert unauthorized.code == 1
            assert "UNAUTHORIZED" in unauthorized.err

            stuck = await ok(url, "runs", "ls", "--stuck", key=key)
            assert run_id in stuck.out
            assert "queued" in stuck.out
            by_label = await ok(url, "runs", "ls", "--metadata", "customer=acme", "--json", key=key)
            assert [r["id"] for r in by_label.json()] == [run_id]
            other = await ok(url, "runs", "ls", "--metadata", "customer=globex", "--json", key=key)
            assert other.json() == []
            in_session = await ok(url, "runs", "ls", "--session", "s", "--json", key=key)
            assert [r["id"] for r in in_session.json()] == [run_id]

            cancelled = await ok(url, "runs", "cancel", run_id, key=key)
            assert f"run {run_id}: cancelled" in cancelled.out
            assert (await client.get(f"/v1/runs/{run_id}")).json()["status"] == "cancelled"
            none_left = await ok(url, "runs", "ls", "--stuck", "--json", key=key)
            assert none_left.json() == []
            again = await perdure(url, "runs", "cancel", run_id, key=key)
            assert again.code == 1
            assert "RUN_NOT_CANCELLABLE" in again.err


async def test_unreachable_server__one_line_and_a_non_zero_exit() -> None:
    result = await perdure(f"http://127.0.0.1:{free_port()}", "approvals", "ls")
    assert result.code == 1
    assert "UNREACHABLE" in result.err
    assert "Traceback" not in result.err
