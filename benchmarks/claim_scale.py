"""Claim scale: what one claim costs as the number of running runs grows.

Starts an embedded Postgres (durable defaults) and fills one database with F finished
runs and Q queued ones, then, for each size in turn, R running runs leased to 10 live
owners (each holding its liveness lock on a connection of its own, and on time, as a
worker that renews). A claimer then makes C claims of up to 10 runs each, each in its own
committed transaction, as a worker does. It reports per size the claim latency (p50, p99)
and the CPU time of the Postgres backend that served the claims, per claim.

    python -m benchmarks.claim_scale [--running 100,10000,30000] [--queued 100000]
                                     [--finished 1000000] [--claims 300]

The target (issue 17): p50 under 2 ms at every size, and flat within 2x from the smallest
size to the largest. Run from the repository root, with the project's virtualenv.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import psycopg

from app.db import libpq_url
from app.store import leases
from benchmarks.loop_throughput import (
    CLK_TCK,
    admin,
    describe_server,
    durable_server,
    fresh_database,
    process_cpu,
)

OWNERS = [f"live-{i}" for i in range(10)]
CLAIMER = "claimer"
LIMIT = 10
MAX_DEATHS = 3


def fill(conn: psycopg.Connection[Any], *, finished: int, queued: int) -> None:
    """One agent; a session per run; `finished` finished runs and `queued` queued ones."""
    conn.execute("INSERT INTO agents (tenant_id, id, latest_version) VALUES ('t', 'a', 1)")
    conn.execute(
        "INSERT INTO agent_versions (tenant_id, agent_id, version, definition, fingerprint) "
        "VALUES ('t', 'a', 1, '{}', '{}')"
    )
    for status, count, offset in (("finished", finished, 0), ("queued", queued, finished)):
        step = 100_000
        for start in range(0, count, step):
            n = min(step, count - start)
            first = offset + start
            conn.execute(
                "INSERT INTO sessions (tenant_id, id, agent_id, agent_version, run_count) "
                "SELECT 't', 's' || g, 'a', 1, 1 FROM generate_series(%s::int, %s::int) g",
                (first, first + n - 1),
            )
            conn.execute(
                "INSERT INTO runs (id, tenant_id, session_id, seq, status, input, "
                "agent_version, max_steps, finished_at) "
                "SELECT gen_random_uuid(), 't', 's' || g, 1, %s, '[]', 1, 10, "
                "CASE WHEN %s = 'finished' THEN now() END "
                "FROM generate_series(%s::int, %s::int) g",
                (status, status, first, first + n - 1),
            )
    conn.execute("ANALYZE")


def set_running(conn: psycopg.Connection[Any], running: int) -> None:
    """Exactly `running` runs running, leased to the live owners (taken from the queued)."""
    conn.execute(
        "UPDATE runs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL "
        "WHERE status = 'running'"
    )
    conn.execute(
        "UPDATE runs r SET status = 'running', lease_token = 1, "
        "lease_owner = 'live-' || (abs(hashtext(r.id::text)) %% 10), "
        "lease_expires_at = now() + interval '1 hour' "
        "FROM (SELECT id FROM runs WHERE status = 'queued' ORDER BY id LIMIT %s) pick "
        "WHERE r.id = pick.id",
        (running,),
    )
    has_workers = conn.execute("SELECT to_regclass('workers') IS NOT NULL").fetchone()
    if has_workers and has_workers[0]:
        conn.execute("DELETE FROM workers")
        for owner in OWNERS:
            conn.execute(
                "INSERT INTO workers (owner, lease_ttl_s, heartbeat_at) VALUES (%s, 3600, now())",
                (owner,),
            )
    conn.execute("ANALYZE runs")


def claim_sql() -> str:
    """The workers' claim statement (`leases.CLAIM_RUNS`), as CLAIMER with a busy
    worker's parameters and a claim of up to LIMIT runs."""
    sql = leases.CLAIM_RUNS.text
    for name, value in {
        ":limit": str(LIMIT),
        ":owner": f"'{CLAIMER}'",
        ":ttl": "30",
        ":idle": "false",
        ":max_deaths": str(MAX_DEATHS),
    }.items():
        sql = sql.replace(name, value)
    return sql


def claim_latencies(url: str, claims: int) -> tuple[list[float], float]:
    """Seconds per claim, and the serving backend's CPU seconds for all of them."""
    sql = claim_sql()
    with psycopg.connect(url) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (CLAIMER,))
        conn.commit()
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()
        assert backend is not None
        conn.commit()
        for _ in range(20):  # warm the plan cache and the buffers
            conn.execute(sql).fetchall()
            conn.rollback()
        before = process_cpu(int(backend[0]))
        took = []
        for _ in range(claims):
            began = time.perf_counter()
            got = conn.execute(sql).fetchall()
            conn.commit()
            took.append(time.perf_counter() - began)
            assert len(got) == LIMIT, f"a claim took {len(got)} runs"
        cpu = process_cpu(int(backend[0])) - before
    return took, cpu.total_s


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--running", default="100,10000,30000")
    parser.add_argument("--queued", type=int, default=100_000)
    parser.add_argument("--finished", type=int, default=1_000_000)
    parser.add_argument("--claims", type=int, default=300)
    args = parser.parse_args(argv)
    sizes = [int(v) for v in args.running.split(",")]

    started = time.monotonic()
    results: list[tuple[int, list[float], float]] = []
    with durable_server("perdure-claims-") as (server, _):
        server.start()
        print(f"== embedded Postgres, durable defaults: {describe_server(server)}")
        database = fresh_database(server)
        url = libpq_url(server.url(database))
        queued = args.queued + max(sizes) + args.claims * LIMIT * len(sizes)
        print(f"== filling: {args.finished} finished, {queued} queued (each in its session)")
        with admin(server, database) as conn:
            fill(conn, finished=args.finished, queued=queued)
        live = [psycopg.connect(url, autocommit=True) for _ in OWNERS]
        for conn, owner in zip(live, OWNERS, strict=True):
            conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (owner,))
        try:
            for size in sizes:
                with admin(server, database) as conn:
                    set_running(conn, size)
                took, cpu_s = claim_latencies(url, args.claims)
                results.append((size, took, cpu_s))
                print(
                    f"  {size:>6} running: p50 {1000 * statistics.median(took):.2f} ms, "
                    f"p99 {1000 * percentile(took, 0.99):.2f} ms, "
                    f"Postgres CPU {1000 * cpu_s / args.claims:.2f} ms per claim",
                    flush=True,
                )
        finally:
            for conn in live:
                conn.close()

    p50s = [statistics.median(took) for _, took, _ in results]
    flat = p50s[-1] / p50s[0]
    print(
        f"\n{args.claims} claims of {LIMIT} per size, 10 live owners on time; "
        f"CPU clock tick {1000 / CLK_TCK:.0f} ms"
    )
    print(
        f"target: p50 < 2 ms at every size ({'met' if max(p50s) < 0.002 else 'NOT met'}); "
        f"largest / smallest p50 = {flat:.2f}x (target <= 2x: "
        f"{'met' if flat <= 2 else 'NOT met'})"
    )
    print(f"(total {time.monotonic() - started:.0f} s)")
    return 0 if max(p50s) < 0.002 and flat <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
