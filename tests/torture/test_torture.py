"""Crash torture (RELIABILITY.md test plan #2): three real workers, ~80 runs with fast and
slow tools, parallel calls and approvals, a SIGKILL every 0.5-2 s and now and then a
SIGSTOP past the lease; then every invariant is checked from the database, the tool
server and the model's call log. Also: a worker whose lease renewals the database stalls
must not keep leases on runs it stopped driving.

PERDURE_TORTURE_SECONDS (default 40) sets how long faults are injected and
PERDURE_TORTURE_SEED (default: random, printed) replays a plan.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

import httpx
import psycopg
import pytest

from app.db import libpq_url
from tests import pg
from tests.crash.harness import workers
from tests.torture.harness import (
    LEASE_TTL_S,
    Acks,
    TortureConfig,
    check,
    define_agents,
    effect_server,
    make_agent,
    say,
    seconds_until_progress,
    send_run,
    torture,
    wait_owner_holds,
    wait_until_done,
)

SECONDS = float(os.environ.get("PERDURE_TORTURE_SECONDS", "40"))
SEED = int(os.environ.get("PERDURE_TORTURE_SEED", str(random.randrange(1_000_000))))

pytestmark = pytest.mark.timeout(int(SECONDS + 240))


async def test_random_kills_and_stops__every_invariant_holds(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """Guarantees 1, 2, 4, 6, 7 of DESIGN.md §11 under random SIGKILL and SIGSTOP."""
    config = TortureConfig(seed=SEED, seconds=SECONDS, runs=80)
    report = await torture(api, database_url, tmp_path, config)
    say(report.details())
    assert report.kills >= SECONDS / 3, "the killer did not kill often enough to mean much"
    assert report.verdict.stats["runs"] == report.runs_sent
    assert report.verdict.violations == [], report.details()


async def test_heartbeat_stalled_past_the_margin__the_runs_it_stops_are_not_left_leased_to_it(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """The database stalls a worker's lease renewals (row locks on its runs, as a long
    transaction or a lock queue would) for a whole lease. Its runs are left with less lease
    than PERDURE_LEASE_MARGIN_S, so it refuses to start their next calls and stops them
    (and, its slots free, claims other runs); nobody could take the stopped ones over
    meanwhile (the rows were locked). Once the stall ends they must be handed back or
    taken over within a lease: not kept leased to the worker, renewed by its heartbeat
    while it drives other runs, and driven by nobody."""
    call_log = tmp_path / "model.log"
    rng = random.Random(5)
    acks = Acks()
    with effect_server() as tools, workers(tmp_path, database_url, call_log) as start:
        agents = []
        for i in range(2):
            plan = make_agent(
                rng,
                f"z{i}",
                tools.url,
                approvals=False,
                slow=(0.2, 0.4),
                slow_chance=1.0,
                segments=1,
                turns=(12, 14),
                width=(2, 3),
            )
            plan.body["tool_concurrency"] = 1  # the next call starts as soon as one ends
            agents.append(plan)
        await define_agents(api, agents)
        for i in range(16):  # 8 for the worker now, 8 more to keep it busy afterwards
            await send_run(api, acks, f"z-{i}", agents[i % 2].id, 0, give_up_at=0)
        victim = start(PERDURE_WORKER_CONCURRENCY="8")
        owner = await wait_owner_holds(database_url, victim, 8)
        held = [
            r[0]
            for r in await pg.arows(
                database_url, "SELECT id::text FROM runs WHERE lease_owner = %s", owner
            )
        ]
        await asyncio.sleep(1.0)
        await asyncio.to_thread(lock_rows, database_url, held, LEASE_TTL_S)
        other = start()
        await asyncio.sleep(1.0)  # the writes the stall held up land; then who goes on?
        since = (await pg.arows(database_url, "SELECT clock_timestamp()"))[0][0]
        took, stalled = await seconds_until_progress(database_url, held, since, 30)
        took += 1.0
        await wait_until_done(database_url, acks, timeout=60)
        verdict = await asyncio.to_thread(
            check, database_url, tools, call_log, {a.id: a for a in agents}, acks
        )
        assert victim.process.poll() is None
        assert other.process.poll() is None
    stopped = victim.log().count("stopped: lease_margin")
    say(
        f"renewals stalled {LEASE_TTL_S}s: the worker stopped {stopped} runs for want of "
        f"lease; every run it held went on within {took:.1f}s; re-runs {len(verdict.reruns)}"
    )
    assert verdict.violations == [], "\n".join(verdict.violations)
    assert not stalled, (
        f"runs the worker stopped made no progress {took:.1f}s after the stall (lease "
        f"{LEASE_TTL_S}s): still leased to it, renewed by its heartbeat, driven by nobody: "
        f"{stalled}"
    )


def lock_rows(database_url: str, run_ids: list[str], seconds: float) -> None:
    """Hold row locks on these runs for `seconds`."""
    with psycopg.connect(libpq_url(database_url)) as conn:
        conn.execute("SELECT 1 FROM runs WHERE id::text = ANY(%s) FOR UPDATE", (run_ids,))
        time.sleep(seconds)
        conn.commit()
