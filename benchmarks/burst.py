"""Burst: thousands of slow model replies landing at once on a worker's small pool.

Starts an embedded Postgres with its default (durable) settings and measures its commit
rate with pgbench (the baseline), then queues R runs of an agent whose OpenAI-compatible
model (a local server) holds every reply until all requests it can get have arrived, and
releases them together. Each run is a tool call (`noop`), its result, and a final reply:
three saves. Real `perdure worker` processes (W of them, concurrency C, the default pool
of 10 connections) drive them. It reports the time from the release to the last run
finished, saves per second beside pgbench's commits per second, how the saves were
batched, and the two things that must be zero: runs given up, and model calls made twice.

    python -m benchmarks.burst [--runs 2000] [--workers 2] [--concurrency 1000]

Run from the repository root, with the project's virtualenv.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from app.domain.agent import AgentDefinition
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
    run_baseline,
    wait_finished,
)
from tests.agents import openai_model, python_tool
from tests.fake_http import FakeServer, fake_server
from tests.providers.fake_servers import OPENAI_PATH, conversation_position, tool_then_done

AGENT_ID = "burst"
POOL_SIZE = 10  # the default PERDURE_POOL_SIZE


def agent_definition(server: FakeServer) -> AgentDefinition:
    return AgentDefinition.model_validate(
        {"model": openai_model(server.url, timeout_s=600), "tools": [python_tool("noop", "noop")]}
    )


def wait_held(server: FakeServer, runs: int, settle_s: float = 2.0) -> int:
    """Wait until every run's first request arrived, or no more arrive for `settle_s`
    (a worker's HTTP client opens at most 100 connections): how many are held."""
    last, changed = -1, time.monotonic()
    while True:
        held = len(server.seen())
        if held != last:
            last, changed = held, time.monotonic()
        if held >= runs or (held and time.monotonic() - changed > settle_s):
            return held
        time.sleep(0.05)


def batches(conn: Any) -> tuple[int, int, int]:
    """(transactions that wrote checkpoints, of them with several, the largest)."""
    row = query_one(
        conn,
        "SELECT count(*), count(*) FILTER (WHERE n > 1), max(n)"
        "  FROM (SELECT count(*) n FROM checkpoints GROUP BY xmin::text) b",
    )
    return int(row[0]), int(row[1]), int(row[2] or 0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=1000, help="per worker process")
    parser.add_argument("--pgbench-seconds", type=int, default=5)
    args = parser.parse_args(argv)

    started = time.monotonic()
    fleet: WorkerFleet | None = None
    with durable_server("perdure-burst-") as (server, workdir):
        try:
            server.start()
            print(f"== embedded Postgres, durable defaults: {describe_server(server)}")
            print("== baseline")
            baseline = dict(run_baseline(server, args.pgbench_seconds))
            name = fresh_database(server)
            url = server.url(name)
            with fake_server(OPENAI_PATH) as model:
                model.respond = tool_then_done
                model.answering.clear()
                asyncio.run(define_agents(url, {AGENT_ID: agent_definition(model)}))
                fleet = WorkerFleet.start(url, args.workers, args.concurrency, POOL_SIZE, workdir)
                fleet.wait_ready()
                asyncio.run(enqueue(url, AGENT_ID, MEASURED, args.runs, input_is_session=True))
                held = wait_held(model, args.runs)
                released = time.monotonic()
                model.answering.set()
                with admin(server, name) as conn:
                    if not wait_finished(conn, MEASURED, args.runs, timeout_s=600):
                        raise RuntimeError("runs did not all finish within 600 s")
                    took = time.monotonic() - released
                    saves = int(query_one(conn, "SELECT count(*) FROM checkpoints")[0])
                    transactions, together, largest = batches(conn)
                calls = Counter(conversation_position(body) for body in model.bodies())
            fleet.stop()
            given_up = sum(log.read_text().count("giving the run up") for log in fleet.logs)
            waits = sum(log.read_text().count("no connection free: ") for log in fleet.logs)
        finally:
            if fleet is not None:
                fleet.stop()

    twice = sum(n - 1 for n in calls.values() if n > 1)
    commits = baseline[max(baseline)]
    print(
        f"== burst: {args.runs} runs, {args.workers} workers x concurrency "
        f"{args.concurrency}, a pool of {POOL_SIZE} connections each; {held} model "
        "replies held, then released at once"
    )
    print(f"  release -> last run finished: {took:.2f} s ({args.runs / took:.0f} runs/s)")
    print(
        f"  saves: {saves} in {transactions} transactions ({together} of several, largest "
        f"{largest}): {saves / took:.0f} saves/s; "
        f"pgbench -c {max(baseline)}: {commits:.0f} commits/s"
    )
    print(f"  checkouts-waited log lines: {waits}")
    print(f"  runs given up: {given_up}; model calls made twice: {twice} (both must be 0)")
    print(f"\n(total {time.monotonic() - started:.0f} s)")
    return 1 if given_up or twice else 0


if __name__ == "__main__":
    sys.exit(main())
