"""Slow models: one worker process holding a thousand runs that wait on their model.

Starts an embedded Postgres (durable defaults), then one `perdure worker` with
`--concurrency C` (default 1000) and the default pool of 10 connections, and queues R runs
of an agent whose OpenAI-compatible model (a local asyncio server in a process of its
own) answers each request after a
delay drawn uniformly from 1-5 s: one model call, then the run finishes. It reports:

- runs finished per second in the steady state, beside the ideal C / mean latency (the
  target is at least 90 % of it);
- heartbeat lateness: how late each renewal of the worker's leases came, from the
  database's own record of them (p50, p99, max; the target is a p99 under 1 s);
- database connections the worker held (at most, sampled), against C;
- the worker's resident memory: idle, at its peak, and per run in flight.

    python -m benchmarks.slow_models [--concurrency 1000] [--runs 4000]

Run from the repository root, with the project's virtualenv. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from app.domain.agent import AgentDefinition
from app.embedded_pg import EmbeddedPostgres
from app.settings import Settings
from benchmarks.loop_throughput import (
    MEASURED,
    WorkerFleet,
    admin,
    define_agents,
    describe_server,
    durable_server,
    enqueue,
    fresh_database,
    query_one,
)
from tests.agents import openai_model
from tests.providers.fake_servers import OPENAI_PATH, openai_reply

AGENT_ID = "slow"
POOL_SIZE = 10  # the default PERDURE_POOL_SIZE
HEARTBEAT_S: float = Settings.model_fields["heartbeat_s"].default  # PERDURE_HEARTBEAT_S
LATENCY_S = (1.0, 5.0)


def model_app(seed: int) -> Starlette:
    """An OpenAI-compatible model that answers `done` after 1-5 s: asyncio, so a thousand
    waiting requests cost it nothing (a thread per request would be the bottleneck)."""
    rng = random.Random(seed)
    body = openai_reply("done").body

    async def completions(request: Request) -> JSONResponse:
        await request.body()
        await asyncio.sleep(rng.uniform(*LATENCY_S))
        return JSONResponse(body)

    return Starlette(routes=[Route(OPENAI_PATH, completions, methods=["POST"])])


@contextmanager
def model_server(workdir: Path) -> Iterator[str]:
    """The model in a process of its own (`--serve-model`); its base URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = (workdir / "model.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.slow_models", "--serve-model", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the model server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


def agent_definition(base_url: str) -> AgentDefinition:
    return AgentDefinition.model_validate({"model": openai_model(base_url)})


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Sampler(threading.Thread):
    """Every 50 ms: the worker's RSS, its database connections, runs in flight, and its
    `workers.heartbeat_at`, which only its renewals bump (on the database's clock)."""

    def __init__(self, server: EmbeddedPostgres, database: str, pid: int) -> None:
        super().__init__(daemon=True)
        self.server, self.database, self.pid = server, database, pid
        self.stop = threading.Event()
        self.rss: list[tuple[int, float]] = []  # (runs in flight, MB)
        self.connections = 0
        self.renewals: list[float] = []

    def run(self) -> None:
        with admin(self.server, self.database) as conn:
            last = None
            while not self.stop.wait(0.05):
                running, beat, connections = query_one(
                    conn,
                    "SELECT count(*),"
                    "       (SELECT extract(epoch FROM max(heartbeat_at)) FROM workers),"
                    "       (SELECT count(*) FROM pg_stat_activity"
                    "         WHERE datname = current_database() AND pid <> pg_backend_pid())"
                    "  FROM runs WHERE status = 'running'",
                )
                self.connections = max(self.connections, int(connections))
                self.rss.append((int(running), rss_mb(self.pid)))
                if beat is not None and beat != last:
                    self.renewals.append(float(beat))
                    last = beat


# Each run's phases on the database's clock: its claim (`run.started`), the save of its
# input (checkpoint 1: taken with the run's load, then a wait in the save queue), the
# save of its answered turn (checkpoint 2: the model's 1-5 s and that save, which ends it).
# A checkpoint's `saved_at` is its transaction's start, so a wait for the connection is
# in the phase before it, and the commit in the phase after.
PHASES = """
WITH t AS (
  SELECT r.created_at AS queued,
         (SELECT min(e.created_at) FROM events e
           WHERE (e.tenant_id, e.session_id) = (r.tenant_id, r.session_id)
             AND e.type = 'run.started') AS claimed,
         (SELECT c.saved_at FROM checkpoints c
           WHERE (c.tenant_id, c.session_id, c.seq) = (r.tenant_id, r.session_id, 1)
         ) AS input_saved,
         (SELECT c.saved_at FROM checkpoints c
           WHERE (c.tenant_id, c.session_id, c.seq) = (r.tenant_id, r.session_id, 2)
         ) AS turn_saved
    FROM runs r WHERE r.status = 'finished'
), d AS (
  SELECT 'claimed -> input saved' AS phase, 1 AS o, input_saved - claimed AS span FROM t
  UNION ALL SELECT 'input saved -> turn saved (model)', 2, turn_saved - input_saved FROM t
)
SELECT phase,
       1000 * avg(extract(epoch FROM span)),
       1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM span)),
       1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM span))
  FROM d GROUP BY phase, o ORDER BY o
"""


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--concurrency", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=4000)
    parser.add_argument("--pool-size", type=int, default=POOL_SIZE, help="PERDURE_POOL_SIZE")
    parser.add_argument("--serve-model", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_model:
        uvicorn.run(model_app(7), host="127.0.0.1", port=args.serve_model, log_level="warning")
        return 0

    started = time.monotonic()
    fleet: WorkerFleet | None = None
    with durable_server("perdure-slow-") as (server, workdir):
        try:
            server.start()
            print(f"== embedded Postgres, durable defaults: {describe_server(server)}")
            database = fresh_database(server)
            url = server.url(database)
            with model_server(workdir) as model:
                asyncio.run(define_agents(url, {AGENT_ID: agent_definition(model)}))
                fleet = WorkerFleet.start(url, 1, args.concurrency, args.pool_size, workdir)
                fleet.wait_ready()
                pid = fleet.processes[0].pid
                time.sleep(1.0)
                idle_mb = rss_mb(pid)
                sampler = Sampler(server, database, pid)
                sampler.start()
                enqueued_at = asyncio.run(enqueue(url, AGENT_ID, MEASURED, args.runs))
                with admin(server, database) as conn:
                    while True:
                        (finished,) = query_one(
                            conn, "SELECT count(*) FROM runs WHERE status = 'finished'"
                        )
                        if finished >= args.runs:
                            break
                        time.sleep(0.2)
                        if time.monotonic() - started > 900:
                            raise RuntimeError(f"only {finished} of {args.runs} runs finished")
                    # Steady state: between the first and the last 10 % of finishes.
                    finishes = [
                        float(row[0])
                        for row in conn.execute(
                            "SELECT extract(epoch FROM finished_at) FROM runs ORDER BY finished_at"
                        ).fetchall()
                    ]
                    phases = conn.execute(PHASES).fetchall()
                sampler.stop.set()
                sampler.join()
            fleet.stop()
        finally:
            if fleet is not None:
                fleet.stop()

    mean_latency = sum(LATENCY_S) / 2
    ideal = args.concurrency / mean_latency
    tenth = len(finishes) // 10
    steady = (len(finishes) - 2 * tenth) / (finishes[-tenth - 1] - finishes[tenth])
    gaps = [b - a for a, b in zip(sampler.renewals, sampler.renewals[1:], strict=False)]
    late = [max(0.0, gap - HEARTBEAT_S) for gap in gaps]
    peak_runs, peak_mb = max(sampler.rss, key=lambda s: (s[0], s[1]))
    per_run_kb = (peak_mb - idle_mb) * 1024 / max(peak_runs, 1)
    print(
        f"== 1 worker, concurrency {args.concurrency}, pool {args.pool_size}; {args.runs} runs of "
        f"one model call answered in {LATENCY_S[0]:g}-{LATENCY_S[1]:g} s (mean {mean_latency:g})"
    )
    print(
        f"  runs finished/s (steady): {steady:.0f}; ideal {ideal:.0f}: "
        f"{100 * steady / ideal:.0f} % (target >= 90 %)"
    )
    print(f"  total: {len(finishes)} runs in {finishes[-1] - enqueued_at:.1f} s")
    print(
        f"  heartbeat lateness over {len(late)} renewals (every {HEARTBEAT_S:g} s): "
        f"p50 {percentile(late, 0.5):.2f} s, p99 {percentile(late, 0.99):.2f} s, "
        f"max {max(late, default=0.0):.2f} s (target p99 < 1 s)"
    )
    print(
        "  a run's time in its slot, mean (p50 / p99) in ms; "
        "the model alone takes 3,000 on average:"
    )
    for name, *figures in phases:
        print(f"    {name:<34} " + "{:,.0f} ({:,.0f} / {:,.0f})".format(*figures))
    print(f"  database connections held by the worker: at most {sampler.connections}")
    print(
        f"  RSS: idle {idle_mb:.0f} MB, {peak_mb:.0f} MB with {peak_runs} runs in flight: "
        f"{per_run_kb:.0f} KB per run"
    )
    print(f"\n(total {time.monotonic() - started:.0f} s)")
    ok = steady >= 0.9 * ideal and percentile(late, 0.99) < 1.0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
