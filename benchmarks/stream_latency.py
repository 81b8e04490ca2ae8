"""How soon a stream client sees what happened: send → first event, decision →
`run.started`, tool settled → the client has `tool.settled`; p50 and p99.

A real `perdure serve` (API only) and a real `perdure worker`, each its own process, on an
embedded Postgres with its durable default settings; the client follows runs over HTTP
with httpx-sse. The baseline, measured in the same run: one durable commit on that server
(the floor under any event, which is written by a commit).

    python -m benchmarks.stream_latency [--samples 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import httpx
import psycopg
from httpx_sse import aconnect_sse

from app.db import libpq_url
from app.embedded_pg import free_port
from benchmarks.loop_throughput import REPO_ROOT, WorkerFleet, durable_server, fresh_database
from tests import pg

NOOP = {
    "name": "noop",
    "input_schema": {"type": "object"},
    "executor": {"type": "python", "path": "tests.tools:noop"},
}
QUICK = {
    "id": "quick",
    "model": {
        "provider": "scripted",
        "script": [{"tool_calls": [{"name": "noop", "arguments": {}}]}, {"text": "done"}],
    },
    "tools": [NOOP],
}
GATED = {**QUICK, "id": "gated", "tools": [{**NOOP, "needs_approval": True}]}


def percentiles(samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):7.2f} ms   p99 {p99:7.2f} ms   (n={len(ordered)})"


def commit_latency_ms(url: str, samples: int) -> list[float]:
    """One durable commit, as the baseline: what any event's write costs at least."""
    out = []
    with psycopg.connect(libpq_url(url), autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_commit (n int)")
        for n in range(samples):
            started = time.perf_counter()
            conn.execute("INSERT INTO bench_commit VALUES (%s)", (n,))
            out.append((time.perf_counter() - started) * 1000)
    return out


def serve(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "PYTHONPATH": str(REPO_ROOT),
        "PERDURE_PYTHON_TOOLS": "tests.tools",  # the agents' `noop` is the benchmark's own
    }
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--workers", "0"],
            cwd=REPO_ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


async def wait_ready(client: httpx.AsyncClient) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if (await client.get("/readyz")).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not become ready")
        await asyncio.sleep(0.1)


async def send_to_first_event(client: httpx.AsyncClient, session: str) -> tuple[float, float]:
    """(send → first event, tool settled → seen), in ms, following the run to its end."""
    started = time.perf_counter()
    first = settled = 0.0
    body = {"agent_id": "quick", "input": "go"}
    params = {"stream": "true"}
    async with aconnect_sse(
        client, "POST", f"/v1/sessions/{session}/runs", json=body, params=params
    ) as source:
        async for event in source.aiter_sse():
            now = time.perf_counter()
            if not first:
                first = (now - started) * 1000
            if event.event == "tool.settled":
                written = datetime.fromisoformat(json.loads(event.data)["created_at"])
                settled = (time.time() - written.timestamp()) * 1000
    return first, settled


async def decision_to_started(client: httpx.AsyncClient, session: str) -> float:
    sent = await client.post(
        f"/v1/sessions/{session}/runs",
        params={"wait": 20},
        json={"agent_id": "gated", "input": "go"},
    )
    run = sent.json()
    assert run["status"] == "awaiting_approval", run
    events = (await client.get(f"/v1/runs/{run['id']}/events")).json()["items"]
    path = f"/v1/runs/{run['id']}/stream"
    async with aconnect_sse(
        client, "GET", path, headers={"Last-Event-ID": str(events[-1]["id"])}
    ) as source:
        started = time.perf_counter()
        decided = await client.post(
            f"/v1/approvals/{run['pending_approvals'][0]['id']}/decision", json={"approved": True}
        )
        assert decided.status_code == 200, decided.text
        latency = None
        async for event in source.aiter_sse():
            if event.event == "run.started" and latency is None:
                latency = (time.perf_counter() - started) * 1000
    # The stream ends with the run: the next sample starts with no run of this one's still
    # going, so each figure is one request's latency, not the previous run's leftovers.
    if latency is not None:
        return latency
    raise RuntimeError("the run did not start again")


async def measure(base_url: str, samples: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"send": [], "settled": [], "decision": []}
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        await wait_ready(client)
        for agent in (QUICK, GATED):
            created = await client.post("/v1/agents", json=agent)
            assert created.status_code == 201, created.text
        for i in range(5):  # warm-up: connections, imports, the listener
            await send_to_first_event(client, f"warm-{i}")
            await decision_to_started(client, f"warm-gated-{i}")
        for i in range(samples):
            first, settled = await send_to_first_event(client, f"s-{i}")
            out["send"].append(first)
            out["settled"].append(settled)
            out["decision"].append(await decision_to_started(client, f"g-{i}"))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args(argv)
    with durable_server("perdure-latency-") as (server, workdir):
        server.start()
        url = pg.with_database(server.url(), fresh_database(server))
        baseline = commit_latency_ms(url, args.samples)
        port = free_port()
        api = serve(url, port, workdir / "serve.log")
        fleet = WorkerFleet.start(url, 1, 8, 4, workdir)
        try:
            fleet.wait_ready()
            figures = asyncio.run(measure(f"http://127.0.0.1:{port}", args.samples))
        finally:
            fleet.stop()
            api.terminate()
            api.wait(timeout=30)
    print("stream latency, one API process and one worker process on this machine")
    print(f"  baseline: one durable commit       {percentiles(baseline)}")
    print(f"  send -> first event                {percentiles(figures['send'])}")
    print(f"  decision -> run.started            {percentiles(figures['decision'])}")
    print(f"  tool settled -> client has it      {percentiles(figures['settled'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
