"""Postgres goes away under load (RELIABILITY.md test plan #6), and a worker's own database
connections are killed under it.

The restart test runs its own embedded Postgres (the shared one cannot be restarted
under the other tests), with two real workers and the API in-process: while the server
is down every answer must be a 503 problem (never a 500, never a hang); once it is back
on the same port the workers must claim again within seconds, and nothing acknowledged
may be lost.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import make_url

from app.embedded_pg import EmbeddedPostgres
from app.main import create_app
from tests import pg
from tests.conftest import make_settings, started_client
from tests.crash.harness import Worker, workers
from tests.torture.harness import (
    LEASE_TTL_S,
    Acks,
    AgentPlan,
    approver,
    check,
    define_agents,
    effect_server,
    make_agent,
    say,
    seconds_until_progress,
    send_run,
    unavailable_problem,
    wait_owner_holds,
    wait_until_done,
)

pytestmark = pytest.mark.timeout(180)

DOWN_S = float(os.environ.get("PERDURE_TORTURE_PG_DOWN_S", "1.0"))


@dataclass
class Answer:
    phase_before: str
    phase_after: str
    what: str
    status: int  # 0: no answer in time
    problem_503: bool
    took_s: float


@dataclass
class Phases:
    """Where the outage is, as the test sees it: up, stopping, down, starting, back."""

    now: str = "up"
    answers: list[Answer] = field(default_factory=list)
    send_until: float = float("inf")  # the load keeps sending new runs until then


async def pound(
    api: httpx.AsyncClient,
    phases: Phases,
    acks: Acks,
    agent: AgentPlan,
    run_ids: list[str],
    stop: asyncio.Event,
    timeout: float = 8.0,
    send_every_s: float = 0.7,
) -> None:
    """Keep the API busy: reads, lists, readiness, and a new run every `send_every_s`;
    record every answer with the phase it was asked and answered in."""
    rng = random.Random("pound")
    n = 0
    last_send = 0.0
    while not stop.is_set():
        calls: list[tuple[str, Any]] = [
            ("GET /v1/runs/{id}", api.get(f"/v1/runs/{rng.choice(run_ids)}")),
            ("GET /v1/runs", api.get("/v1/runs", params={"status": "running"})),
            ("GET /v1/approvals", api.get("/v1/approvals", params={"status": "pending"})),
            ("GET /v1/sessions/{id}/messages", api.get("/v1/sessions/r-0/messages")),
            ("GET /readyz", api.get("/readyz")),
        ]
        if time.monotonic() - last_send >= send_every_s and time.monotonic() < phases.send_until:
            last_send = time.monotonic()
            n += 1
            session = f"pound-{n}"
            calls.append(
                (
                    "POST /v1/sessions/{id}/runs",
                    api.post(
                        f"/v1/sessions/{session}/runs",
                        json={"agent_id": agent.id, "input": "go"},
                        headers={"Idempotency-Key": session},
                    ),
                )
            )
        for what, request in calls:
            before, began = phases.now, time.monotonic()
            try:
                response: httpx.Response | None = await asyncio.wait_for(request, timeout)
                status = response.status_code if response is not None else 0
            except TimeoutError:
                response, status = None, 0
            except Exception as exc:  # the app raised instead of answering: a 500
                response, status = None, 500
                acks.errors.append(f"{what}: raised {type(exc).__name__}: {exc}")
            phases.answers.append(
                Answer(
                    before,
                    phases.now,
                    what,
                    status,
                    response is not None and unavailable_problem(response),
                    time.monotonic() - began,
                )
            )
            if response is not None and what.startswith("POST") and response.is_success:
                acks.runs[response.json()["id"]] = response.json()["session_id"]
        await asyncio.sleep(0.1)


async def test_postgres_restart__503_while_down__claims_resume__nothing_acknowledged_lost(
    own_postgres: EmbeddedPostgres, tmp_path: Path
) -> None:
    """Guarantee 7: a 2xx on a send or a decision means it is in Postgres. While the
    database is down the API answers 503 problems; after it is back the workers recover.

    The outage (`pg_ctl stop -m fast`, down DOWN_S, start on the same port) is shorter
    than the lease: the runs in flight are still leased to their workers when the server
    is back, so only the workers themselves can let them go on quickly."""
    down_s = DOWN_S
    url = pg.fresh_database(own_postgres)
    call_log = tmp_path / "model.log"
    rng = random.Random(7)
    acks = Acks()
    phases = Phases()
    app = create_app(make_settings(url), open_when_keyless=True)
    with effect_server() as tools, workers(tmp_path, url, call_log) as start:
        agents = [
            make_agent(rng, f"r{i}", tools.url, slow=(0.2, 0.8), slow_chance=0.5, segments=1)
            for i in range(3)
        ]
        async for api in started_client(app):
            await define_agents(api, agents)
            for i in range(20):
                await send_run(api, acks, f"r-{i}", agents[i % 3].id, 0, give_up_at=0)
            assert len(acks.runs) == 20, acks.errors
            env = {"PERDURE_WORKER_CONCURRENCY": "4"}
            fleet = [start(**env), start(**env)]
            stop_background = asyncio.Event()
            background = [
                asyncio.create_task(approver(api, acks, 7, stop_background, outage=True)),
                asyncio.create_task(
                    pound(api, phases, acks, agents[0], list(acks.runs), stop_background)
                ),
            ]
            try:
                await wait_for_effects(tools.calls, 12)
                in_flight = [
                    r[0]
                    for r in await pg.arows(
                        url, "SELECT id::text FROM runs WHERE status = 'running'"
                    )
                ]
                phases.now = "stopping"
                await asyncio.to_thread(own_postgres.stop, "fast")
                phases.now = "down"
                await asyncio.sleep(down_s)
                phases.now = "starting"
                port = own_postgres.port
                await asyncio.to_thread(own_postgres.start)
                assert own_postgres.port == port
                phases.now = "back"
                back = time.monotonic()
                phases.send_until = back + 8.0  # busy workers for a while yet
                db_back = (await pg.arows(url, "SELECT clock_timestamp()"))[0][0]
                resumed, stalled = await seconds_until_progress(url, in_flight, db_back, 30)
                finished = await wait_until_done(url, acks, timeout=40) + resumed
                first_claim = await seconds_to_first_worker_write(url, timeout=30)
                say(
                    f"Postgres restart (down {down_s}s, {len(in_flight)} runs in flight): "
                    f"workers claimed or saved again {first_claim:.2f}s after Postgres "
                    f"started; every run in flight went on {resumed:.2f}s after start() "
                    f"returned; every acknowledged run finished after {finished:.2f}s (new "
                    "runs were sent for 8s)"
                )
                await asyncio.sleep(1.0)  # a few more answers with the database back
            finally:
                stop_background.set()
                await asyncio.gather(*background, return_exceptions=True)
            await wait_until_done(url, acks, timeout=30)  # the last sends
            assert all(w.process.poll() is None for w in fleet), "a worker died"
        verdict = await asyncio.to_thread(
            check,
            url,
            tools,
            call_log,
            {a.id: a for a in agents},
            acks,
            every_decision_acked=False,
        )

    down = [a for a in phases.answers if a.phase_before == a.phase_after == "down"]
    say(
        f"answers: {len(phases.answers)} in all, {len(down)} while down; re-runs "
        f"{len(verdict.reruns)}; decisions acknowledged {len(acks.decisions)}; "
        f"runs acknowledged {len(acks.runs)}"
    )
    for rerun in verdict.reruns:
        say(f"  re-run (at-least-once): {rerun}")
    assert acks.errors == []
    assert not [a for a in phases.answers if a.status == 0], "an API request hung"
    assert not [a for a in phases.answers if a.status >= 500 and not a.problem_503], [
        a for a in phases.answers if a.status >= 500 and not a.problem_503
    ]
    assert len(down) >= 10, "the API was not busy while the database was down"
    assert all(a.problem_503 for a in down), [a for a in down if not a.problem_503]
    assert max(a.took_s for a in down) < 6.0, "a 503 took too long while down"
    assert [a for a in phases.answers if a.phase_before == "back" and a.status == 200]
    assert verdict.violations == [], "\n".join(verdict.violations)
    assert first_claim < 10.0, f"workers wrote again only {first_claim:.1f}s after the start"
    assert not stalled, (
        f"runs in flight when Postgres went down made no progress {resumed:.1f}s after it "
        f"was back (lease {LEASE_TTL_S}s), held by live workers that renew their leases "
        f"but no longer drive them: {stalled}"
    )


async def wait_for_effects(effects: list[Any], count: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while len(effects) < count:
        assert time.monotonic() < deadline, f"only {len(effects)} tool calls in {timeout}s"
        await asyncio.sleep(0.05)


async def seconds_to_first_worker_write(url: str, timeout: float) -> float:
    """Seconds from the server's start (`pg_postmaster_start_time()`, its own clock) to the
    first write of a worker after it: a claim or a checkpoint (runs the API queues, or a
    worker hands back, stay `queued` and do not count)."""
    began = time.monotonic()
    while True:
        first = await pg.arows(
            url,
            "SELECT extract(epoch FROM min(updated_at) - pg_postmaster_start_time()) "
            "FROM runs WHERE updated_at > pg_postmaster_start_time() AND status <> 'queued'",
        )
        if first[0][0] is not None:
            return float(first[0][0])
        assert time.monotonic() - began < timeout, f"no worker wrote in {timeout}s after"
        await asyncio.sleep(0.05)


# -- one worker's connections killed -------------------------------------------------------


def client_ports(pid: int, server_port: int) -> set[int]:
    """Local ports of the TCP connections process `pid` has open to `server_port`."""
    inodes: set[str] = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    ports: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            parts = line.split()
            local, remote, inode = parts[1], parts[2], parts[9]
            if inode in inodes and int(remote.rsplit(":", 1)[1], 16) == server_port:
                ports.add(int(local.rsplit(":", 1)[1], 16))
    return ports


# The worker's liveness/heartbeat connection: it holds the worker's advisory lock, or its
# last statement was the lease renewal; the wake-up listener's was LISTEN.
LIVENESS = """
    pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)
    OR query LIKE '%%RETURNING id, lease_token, cancel_requested%%'
    OR query LIKE 'LISTEN%%'
"""


# The backend holding a worker's liveness lock (the fast-takeover hint), if it has one.
LIVENESS_LOCK = "pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)"


def terminate_backends_of(database_url: str, worker: Worker, *, which: str = "all") -> int:
    """pg_terminate_backend the server processes serving `worker`'s connections: `all`,
    `run-pool` (all but its liveness/heartbeat and listener connections) or `liveness`
    (only the one holding its liveness lock). Returns how many."""
    port = make_url(database_url).port or 5432
    ports = client_ports(worker.pid, port)
    only = {"all": "", "run-pool": f"AND NOT ({LIVENESS})", "liveness": f"AND {LIVENESS_LOCK}"}
    with pg.admin(database_url) as conn:
        found = conn.execute(
            "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE client_port = ANY(%s) AND pid <> pg_backend_pid() {only[which]}",
            (list(ports),),
        ).fetchall()
    return len(found)


@pytest.mark.parametrize("spare_liveness", [False, True], ids=["all-connections", "run-pool"])
async def test_worker_connections_terminated_mid_run__it_recovers_and_nothing_is_written_twice(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path, spare_liveness: bool
) -> None:
    """A worker whose backends are terminated (a failover, a DBA, a proxy) either goes on
    or gives the run up cleanly: every run it held makes progress again within a lease
    (none stays leased to a worker that no longer drives it), every call still gets
    exactly one result, and no recorded result runs again.

    `all-connections` kills its liveness/heartbeat connection too; `run-pool` kills only
    the connections its runs write on, so its heartbeat goes on renewing."""
    call_log = tmp_path / "model.log"
    rng = random.Random(11)
    acks = Acks()
    with effect_server() as tools, workers(tmp_path, database_url, call_log) as start:
        agents = [
            make_agent(
                rng,
                f"k{i}",
                tools.url,
                approvals=False,
                slow=(0.3, 0.7),
                slow_chance=0.9,
                segments=1,
                turns=(14, 16),
                width=(1, 2),
            )
            for i in range(2)
        ]
        await define_agents(api, agents)
        for i in range(8):
            await send_run(api, acks, f"k-{i}", agents[i % 2].id, 0, give_up_at=0)
        victim = start(PERDURE_WORKER_CONCURRENCY="8")
        owner = await wait_owner_holds(database_url, victim, 8)
        held = [
            r[0]
            for r in await pg.arows(
                database_url, "SELECT id::text FROM runs WHERE lease_owner = %s", owner
            )
        ]
        other = start()
        # Each round kills the connections; the first statement to use a dead one fails
        # (the pool then replaces the rest). Go on until a run's write was the one that
        # failed and the worker gave that run up.
        terminated = 0
        last_round: Any = None
        for _ in range(10):
            await asyncio.sleep(0.7)
            terminated += await asyncio.to_thread(
                terminate_backends_of,
                database_url,
                victim,
                which="run-pool" if spare_liveness else "all",
            )
            last_round = (await pg.arows(database_url, "SELECT clock_timestamp()"))[0][0]
            await asyncio.sleep(0.3)
            if "giving the run up" in victim.log():
                break
        assert terminated, "found no backend of the worker to terminate"
        took, stalled = await seconds_until_progress(database_url, held, last_round, 30)
        await wait_until_done(database_url, acks, timeout=60)
        assert victim.process.poll() is None, "the worker died of a lost connection"
        assert other.process.poll() is None
        verdict = await asyncio.to_thread(
            check, database_url, tools, call_log, {a.id: a for a in agents}, acks
        )
    given_up = victim.log().count("giving the run up")
    say(
        f"terminated {terminated} backends of worker {victim.pid} "
        f"({'run pool only' if spare_liveness else 'all'}): it gave up {given_up} runs; "
        f"every run it held went on within {took:.1f}s; re-runs {len(verdict.reruns)}"
    )
    for line in verdict.reruns + verdict.abandoned_overlaps:
        say(f"  {line}")
    assert verdict.violations == [], "\n".join(verdict.violations)
    assert not stalled, (
        f"runs the worker gave up made no progress {took:.1f}s after its connections were "
        f"killed (lease {LEASE_TTL_S}s): still leased to it, renewed by its heartbeat, "
        f"driven by nobody: {stalled}"
    )


async def test_liveness_connection_killed__the_worker_does_not_claim_its_own_runs_again(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """Only the connection holding a worker's liveness lock is killed, and the worker has
    free slots. Its lock is gone, so to a claimer its runs look abandoned; but the worker
    is alive and still drives them until its heartbeat notices. It must not claim them
    itself meanwhile: that would start a second driver of each in the same process, and
    both would run the same calls (I7). Nothing else is running, so every overlap of
    two tokens is the worker against itself."""
    call_log = tmp_path / "model.log"
    rng = random.Random(13)
    acks = Acks()
    with effect_server() as tools, workers(tmp_path, database_url, call_log) as start:
        agents = [
            make_agent(
                rng,
                f"s{i}",
                tools.url,
                approvals=False,
                slow=(0.3, 0.6),
                slow_chance=1.0,
                segments=1,
                turns=(6, 8),
                width=(1, 2),
            )
            for i in range(2)
        ]
        await define_agents(api, agents)
        for i in range(4):
            await send_run(api, acks, f"s-{i}", agents[i % 2].id, 0, give_up_at=0)
        victim = start(PERDURE_WORKER_CONCURRENCY="8")  # 4 runs, 4 free slots
        await wait_owner_holds(database_url, victim, 4)
        await asyncio.sleep(0.5)
        killed = await asyncio.to_thread(
            terminate_backends_of, database_url, victim, which="liveness"
        )
        if not killed:
            pytest.skip("the worker holds no liveness lock (no fast takeover in this build)")
        await wait_until_done(database_url, acks, timeout=60)
        assert victim.process.poll() is None
        verdict = await asyncio.to_thread(
            check, database_url, tools, call_log, {a.id: a for a in agents}, acks
        )
    claims = await pg.arows(database_url, "SELECT claims FROM runs ORDER BY claims")
    say(
        f"liveness connection killed: claims per run {[c for (c,) in claims]}; "
        f"'lease lost' lines in the only worker's log: {victim.log().count('lease lost')}"
    )
    for line in verdict.reruns + verdict.abandoned_overlaps:
        say(f"  {line}")
    assert verdict.violations == [], "\n".join(verdict.violations)
