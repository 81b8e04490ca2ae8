"""Paused fleet: runs that wait on a human or a client cost nothing while they wait.

Starts an embedded Postgres (durable defaults) and one `perdure worker` (concurrency C,
the default pool of 10), then parks A runs awaiting approval (a `noop` tool that needs
one) and T runs awaiting a client tool's output, each in its own session. With them
parked, it measures, beside the same figures taken before any was parked:

- the claim statement's latency (p50, p99; each claim rolled back, over 50 queued runs);
- what an idle worker and Postgres spend per second polling (CPU ms/s);
- the loop's throughput on fresh runs (checkpoints/s): were a parked run holding a slot,
  C of them would stop the worker altogether.

Then, with the worker stopped, every approval is decided and every output posted (the
store functions the API calls, eight at a time), and the worker started again: the
resumed runs' checkpoints/s against the fresh runs' above. Checkpoint rates come from
the checkpoints' own `saved_at`, first to last, so start-up is not in them.

    python -m benchmarks.paused_fleet [--approvals 10000] [--client 10000]
                                      [--concurrency 100] [--fresh 2000]

Run from the repository root, with the project's virtualenv. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import psycopg
from sqlalchemy import text

from app.db import create_engine, libpq_url
from app.domain.agent import AgentDefinition
from app.domain.principal import DEFAULT_TENANT, Principal
from app.settings import Settings
from app.store import approvals as approval_store
from app.store import tool_outputs
from benchmarks.claim_scale import claim_sql, percentile
from benchmarks.loop_throughput import (
    RESULT_BYTES,
    Cpu,
    WorkerFleet,
    admin,
    children_cpu,
    define_agents,
    describe_server,
    durable_server,
    enqueue,
    fresh_database,
    postmaster_pid,
    query_one,
    sum_cpu,
    wait_finished,
)

POOL_SIZE = 10  # the default PERDURE_POOL_SIZE
CHUNK = 1000  # runs enqueued per commit while parking
DECIDERS = 8  # concurrent deciders, as an approval UI's users would be
PROBE_RUNS = 50  # queued runs the claim probe claims from (and rolls back)
IDLE_S = 10.0
DECIDER = Principal(tenant_id=DEFAULT_TENANT, name="paused-fleet", scopes=frozenset())

NOOP = {
    "name": "noop",
    "input_schema": {"type": "object"},
    "executor": {"type": "python", "path": "tests.tools:noop"},
}
CALL_NOOP = {"tool_calls": [{"name": "noop", "arguments": {"size": RESULT_BYTES}}]}
DONE = {"text": "done"}


def agents() -> dict[str, AgentDefinition]:
    """Three agents of one shape (a tool call, its result, a final reply): the tool needs
    an approval, or is the client's, or is neither (the fresh runs)."""
    client_call = {"tool_calls": [{"name": "ask", "arguments": {}}]}
    ask = {"name": "ask", "input_schema": {"type": "object"}, "executor": {"type": "client"}}
    shapes = {
        "gated": ([{**NOOP, "needs_approval": True}], CALL_NOOP),
        "client": ([ask], client_call),
        "fresh": ([NOOP], CALL_NOOP),
    }
    return {
        name: AgentDefinition.model_validate(
            {
                "model": {"provider": "scripted", "script": [call, DONE]},
                "tools": tools,
                "max_steps": 4,
            }
        )
        for name, (tools, call) in shapes.items()
    }


@dataclass(frozen=True)
class Claims:
    p50_ms: float
    p99_ms: float


def claim_probe(url: str, claims: int = 300) -> Claims:
    """The claim statement's latency over PROBE_RUNS queued runs, each claim rolled back
    (so every one sees the same rows). No worker may be running."""
    sql = claim_sql()
    with psycopg.connect(libpq_url(url)) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtextextended('claimer', 0))")
        conn.commit()
        for _ in range(20):  # warm the plan cache and the buffers
            conn.execute(sql).fetchall()
            conn.rollback()
        took = []
        for _ in range(claims):
            began = time.perf_counter()
            got = conn.execute(sql).fetchall()
            took.append(time.perf_counter() - began)
            conn.rollback()
            assert got, "the claim found no queued run"
    return Claims(1000 * statistics.median(took), 1000 * percentile(took, 0.99))


@dataclass(frozen=True)
class Idle:
    worker_ms_per_s: float
    postgres_ms_per_s: float


def idle_cost(fleet: WorkerFleet, postmaster: int, seconds: float = IDLE_S) -> Idle:
    """CPU the worker and Postgres spend per second while nothing is queued."""
    before_worker, before_pg = sum_cpu(fleet.cpu()), children_cpu(postmaster)
    time.sleep(seconds)
    worker = sum_cpu(fleet.cpu()) - before_worker
    after_pg = children_cpu(postmaster)
    pg_cpu = sum_cpu(cpu - before_pg.get(pid, Cpu(0.0, 0.0)) for pid, cpu in after_pg.items())
    return Idle(1000 * worker.total_s / seconds, 1000 * pg_cpu.total_s / seconds)


def count_status(conn: psycopg.Connection[Any], status: str) -> int:
    return int(query_one(conn, "SELECT count(*) FROM runs WHERE status = %s", (status,))[0])


def wait_parked(conn: psycopg.Connection[Any], approvals: int, client: int) -> None:
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if (
            count_status(conn, "awaiting_approval") == approvals
            and count_status(conn, "awaiting_tool_results") == client
        ):
            return
        time.sleep(0.2)
    raise RuntimeError("the runs were not all parked within 600 s")


@dataclass(frozen=True)
class Rate:
    """Checkpoints of some runs, first save to last: how fast they went."""

    checkpoints: int
    runs: int
    span_s: float

    @property
    def per_s(self) -> float:
        return self.checkpoints / max(self.span_s, 1e-9)

    @property
    def runs_per_s(self) -> float:
        return self.runs / max(self.span_s, 1e-9)


def checkpoint_rate(conn: psycopg.Connection[Any], prefixes: Sequence[str], since: float) -> Rate:
    """The checkpoints of the runs of sessions named `prefix…` saved after `since` (epoch
    seconds), from their first save to their last. Runs per second too: a resumed run
    saves half the checkpoints a fresh one does (no input, no first turn), so its
    checkpoints/s alone would halve what the worker spends per run."""
    count, runs, span = query_one(
        conn,
        "SELECT count(*), count(DISTINCT run_id),"
        "       extract(epoch FROM max(saved_at) - min(saved_at))"
        "  FROM checkpoints"
        " WHERE session_id LIKE ANY(%s) AND saved_at > to_timestamp(%s)",
        ([f"{p}%" for p in prefixes], since),
    )
    return Rate(int(count), int(runs), float(span or 0))


async def park(url: str, agent: str, prefix: str, runs: int) -> None:
    for start in range(0, runs, CHUNK):
        await enqueue(url, agent, f"{prefix}{start // CHUNK:03d}-", min(CHUNK, runs - start))


async def in_parallel(jobs: Sequence[Callable[[], Awaitable[None]]], width: int) -> None:
    queue = list(jobs)

    async def drain() -> None:
        while queue:
            await queue.pop()()

    await asyncio.gather(*(drain() for _ in range(width)))


async def resume_all(url: str) -> tuple[int, int]:
    """Decide every pending approval and post an output for every awaited client call,
    each in its own transaction as the API does: (decided, posted)."""
    engine = create_engine(url, Settings(database_url=url), pool_size=DECIDERS)
    try:
        async with engine.connect() as conn:
            pending = [
                UUID(str(row[0]))
                for row in await conn.execute(
                    text("SELECT id FROM approvals WHERE status = 'pending'")
                )
            ]
            waiting = [
                UUID(str(row[0]))
                for row in await conn.execute(
                    text("SELECT id FROM runs WHERE status = 'awaiting_tool_results'")
                )
            ]
            awaited = await tool_outputs.awaited(conn, waiting)

        def decide(approval_id: UUID) -> Callable[[], Awaitable[None]]:
            async def job() -> None:
                decision = approval_store.Decision(True, DECIDER)
                async with engine.begin() as conn:
                    await approval_store.decide(conn, DEFAULT_TENANT, approval_id, decision)

            return job

        def post(run_id: UUID) -> Callable[[], Awaitable[None]]:
            async def job() -> None:
                outputs = [
                    tool_outputs.PostedOutput(call.tool_call_id, {"answer": "yes"})
                    for call in awaited[run_id]
                ]
                async with engine.begin() as conn:
                    await tool_outputs.post(conn, DEFAULT_TENANT, run_id, outputs)

            return job

        jobs = [decide(a) for a in pending] + [post(r) for r in waiting]
        await in_parallel(jobs, DECIDERS)
        return len(pending), len(waiting)
    finally:
        await engine.dispose()


def db_now(conn: psycopg.Connection[Any]) -> float:
    return float(query_one(conn, "SELECT extract(epoch FROM clock_timestamp())")[0])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--approvals", type=int, default=10_000)
    parser.add_argument("--client", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--fresh", type=int, default=2000, help="fresh runs timed, each phase")
    args = parser.parse_args(argv)
    parked = args.approvals + args.client

    started = time.monotonic()
    fleet: WorkerFleet | None = None
    with durable_server("perdure-paused-") as (server, workdir):
        try:
            server.start()
            print(f"== embedded Postgres, durable defaults: {describe_server(server)}")
            name = fresh_database(server)
            url = server.url(name)
            postmaster = postmaster_pid(server)
            asyncio.run(define_agents(url, agents()))

            def start_fleet() -> WorkerFleet:
                fleet = WorkerFleet.start(url, 1, args.concurrency, POOL_SIZE, workdir)
                fleet.wait_ready()
                return fleet

            with admin(server, name) as conn:
                # Before: nothing parked.
                asyncio.run(enqueue(url, "fresh", "probe0-", PROBE_RUNS))
                claims_before = claim_probe(url)
                fleet = start_fleet()
                wait_finished(conn, "probe0-", PROBE_RUNS, timeout_s=120)
                idle_before = idle_cost(fleet, postmaster)
                since = db_now(conn)
                asyncio.run(enqueue(url, "fresh", "fresh0-", args.fresh))
                wait_finished(conn, "fresh0-", args.fresh, timeout_s=300)
                fresh_before = checkpoint_rate(conn, ("fresh0-",), since)

                # Park them.
                began = time.monotonic()
                asyncio.run(park(url, "gated", "gated-", args.approvals))
                asyncio.run(park(url, "client", "client-", args.client))
                wait_parked(conn, args.approvals, args.client)
                parking_s = time.monotonic() - began

                # With them parked.
                idle_after = idle_cost(fleet, postmaster)
                since = db_now(conn)
                asyncio.run(enqueue(url, "fresh", "fresh1-", args.fresh))
                wait_finished(conn, "fresh1-", args.fresh, timeout_s=300)
                fresh_after = checkpoint_rate(conn, ("fresh1-",), since)
                fleet.stop()
                asyncio.run(enqueue(url, "fresh", "probe1-", PROBE_RUNS))
                claims_after = claim_probe(url)

                # Decide them all, then let the worker resume them.
                began = time.monotonic()
                decided, posted = asyncio.run(resume_all(url))
                deciding_s = time.monotonic() - began
                since = db_now(conn)
                fleet = start_fleet()
                wait_finished(conn, "gated-", args.approvals, timeout_s=600)
                wait_finished(conn, "client-", args.client, timeout_s=600)
                resumed = checkpoint_rate(conn, ("gated-", "client-"), since)
        except BaseException:
            if fleet is not None:
                for log in fleet.logs:
                    print(f"--- {log.name}\n{log.read_text()[-3000:]}", file=sys.stderr)
            raise
        finally:
            if fleet is not None:
                fleet.stop()

    print(
        f"== {args.approvals} runs awaiting approval, {args.client} awaiting a client tool; "
        f"one worker, concurrency {args.concurrency}, pool {POOL_SIZE}"
    )
    print(f"  parked in {parking_s:.0f} s ({parked / parking_s:.0f} runs/s)")
    rows = [
        ("claim p50 ms", f"{claims_before.p50_ms:.2f}", f"{claims_after.p50_ms:.2f}"),
        ("claim p99 ms", f"{claims_before.p99_ms:.2f}", f"{claims_after.p99_ms:.2f}"),
        (
            "idle worker CPU ms/s",
            f"{idle_before.worker_ms_per_s:.1f}",
            f"{idle_after.worker_ms_per_s:.1f}",
        ),
        (
            "idle Postgres CPU ms/s",
            f"{idle_before.postgres_ms_per_s:.1f}",
            f"{idle_after.postgres_ms_per_s:.1f}",
        ),
        ("fresh runs ckpts/s", f"{fresh_before.per_s:.0f}", f"{fresh_after.per_s:.0f}"),
        ("fresh runs runs/s", f"{fresh_before.runs_per_s:.0f}", f"{fresh_after.runs_per_s:.0f}"),
    ]
    print(f"  {'':<24}{'none parked':>12}{f'{parked} parked':>16}")
    for label, before, after in rows:
        print(f"  {label:<24}{before:>12}{after:>16}")
    print(
        f"  decided {decided} approvals and posted {posted} outputs in {deciding_s:.0f} s "
        f"({(decided + posted) / deciding_s:.0f}/s, {DECIDERS} at a time, no HTTP)"
    )
    print(
        f"  resumed: {resumed.checkpoints} checkpoints of {resumed.runs} runs at "
        f"{resumed.per_s:.0f}/s ({resumed.runs_per_s:.0f} runs/s), against "
        f"{fresh_after.per_s:.0f}/s ({fresh_after.runs_per_s:.0f} runs/s) for fresh runs "
        f"with them parked: {resumed.runs_per_s / fresh_after.runs_per_s:.0%} of their runs/s"
    )
    print(f"\n(total {time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
