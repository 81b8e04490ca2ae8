"""Loop throughput: checkpointed agent turns per second on a durable Postgres.

Starts an embedded Postgres with its default (durable) settings, measures the server's own
commit rate with pgbench as the baseline, then drives S sessions of a scripted agent
(K tool turns, each returning a 1 KB `noop` result, then a final text reply) through real
`perdure worker` processes. For each K and worker count it reports model turns/s,
checkpoint writes/s, CPU per turn (workers and Postgres), and WAL and table bytes per
checkpoint, which should not grow with K: the transcript is an append-only log.

    python -m benchmarks.loop_throughput [--quick]      (from the repository root)

Linux only: CPU time is read from /proc.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy import text

from app.db import create_engine
from app.domain.agent import AgentDefinition
from app.domain.principal import DEFAULT_TENANT
from app.embedded_pg import SUPERUSER, EmbeddedPostgres, pgbench_path
from app.settings import Settings
from app.store import agents as agent_store
from app.store import runs as run_store
from tests import pg
from tests.crash.harness import spawn_worker

REPO_ROOT = Path(__file__).resolve().parent.parent
PGBENCH_DB = "pgbench"
AGENT_ID = "bench"
WARMUP_AGENT_ID = "warmup"
# Session id prefixes: warm-up runs first, then the measured ones.
WARMUP, MEASURED = "w", "s"
RESULT_BYTES = 1024
# One worker process's targets (issue 17, set at K = 50): turns per second, and CPU per
# turn of the worker and Postgres together.
TARGET_TURNS_PER_S = 1200.0
TARGET_CPU_MS_PER_TURN = 1.3
# What a checkpoint writes to: the transcript log, and the run row it advances.
LOG_TABLES = ("messages", "tool_calls", "checkpoints", "events", "event_heads")
RUN_TABLE = "runs"
CLK_TCK = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1
POLL_S = 0.05


@dataclass(frozen=True)
class Plan:
    turn_counts: tuple[int, ...]
    worker_counts: tuple[int, ...]
    sessions: int
    repeats: int  # per configuration; the median by turns/s is reported
    pgbench_seconds: int
    timeout_s: float
    pool_size: int | None  # connections per worker process; None: its concurrency


FULL = Plan((10, 50, 200), (1, 2), 32, repeats=3, pgbench_seconds=10, timeout_s=150, pool_size=None)
QUICK = Plan((10, 50), (1, 2), 16, repeats=1, pgbench_seconds=5, timeout_s=60, pool_size=None)


# -- /proc: CPU time of processes and of the whole machine ------------------------------


@dataclass(frozen=True)
class Cpu:
    user_s: float
    system_s: float

    @property
    def total_s(self) -> float:
        return self.user_s + self.system_s

    def __sub__(self, other: Cpu) -> Cpu:
        return Cpu(self.user_s - other.user_s, self.system_s - other.system_s)


def _stat_fields(pid: int) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name (which may hold spaces)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw.rsplit(")", 1)[1].split()


def _cpu_of(fields: list[str]) -> Cpu:
    # fields[0] is stat field 3 (state); utime and stime are fields 14 and 15 (man 5 proc).
    return Cpu(int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK)


def process_cpu(pid: int) -> Cpu:
    """CPU time of one process so far (zero once it is gone)."""
    fields = _stat_fields(pid)
    return _cpu_of(fields) if fields is not None else Cpu(0.0, 0.0)


def children_cpu(parent: int) -> dict[int, Cpu]:
    """CPU time of each live child of `parent` (the postmaster's backends)."""
    out: dict[int, Cpu] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        if fields is not None and int(fields[1]) == parent:
            out[int(entry.name)] = _cpu_of(fields)
    return out


def machine_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of all cores: the box is shared, so say how loaded it was."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


# -- the database server ----------------------------------------------------------------


def admin(server: EmbeddedPostgres, database: str = "postgres") -> psycopg.Connection[Any]:
    return pg.admin(server.url(database))


def query_one(
    conn: psycopg.Connection[Any], sql: str, params: Sequence[Any] | Mapping[str, Any] = ()
) -> Any:
    row = conn.execute(sql, params).fetchone()
    assert row is not None
    return row


def postmaster_pid(server: EmbeddedPostgres) -> int:
    return int((server.pgdata / "postmaster.pid").read_text().split("\n", 1)[0])


def describe_server(server: EmbeddedPostgres) -> str:
    names = ("server_version", "fsync", "synchronous_commit", "wal_sync_method", "shared_buffers")
    with admin(server) as conn:
        return " ".join(f"{n}={query_one(conn, f'SHOW {n}')[0]}" for n in names)


# -- baseline: Postgres's own commit rate -----------------------------------------------

TPS_LINE = re.compile(r"^tps = ([\d.]+) \(without initial connection time\)", re.MULTILINE)


def pgbench(server: EmbeddedPostgres, args: Sequence[str]) -> str:
    # pgbench is only a client: it may run as root, and talks TCP as the workers do. The
    # password goes in its environment, never on its command line.
    assert server.port is not None
    assert server.password is not None
    command = [pgbench_path(), "-h", server.host, "-p", str(server.port), "-U", SUPERUSER]
    result = subprocess.run(
        [*command, *args, PGBENCH_DB],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "PGPASSWORD": server.password},
    )
    if result.returncode != 0:
        raise RuntimeError(f"pgbench {' '.join(args)} failed:\n{result.stderr[-2000:]}")
    return result.stdout


def run_baseline(server: EmbeddedPostgres, seconds: int) -> list[tuple[int, float]]:
    """tps of pgbench's simple-update transaction (-N: 3 updates + 1 insert, one commit)."""
    with admin(server) as conn:
        conn.execute(f'CREATE DATABASE "{PGBENCH_DB}"')
    pgbench(server, ["-i", "-q"])
    out: list[tuple[int, float]] = []
    for clients in (1, 4, 16):
        threads = min(clients, 2)
        report = pgbench(server, ["-N", "-c", str(clients), "-j", str(threads), "-T", str(seconds)])
        found = TPS_LINE.search(report)
        if found is None:
            raise RuntimeError(f"no tps line in pgbench output:\n{report}")
        tps = float(found.group(1))
        out.append((clients, tps))
        print(f"  pgbench -N -c {clients:<2} -j {threads} -T {seconds}: {tps:.0f} tps")
    return out


# -- the workload -----------------------------------------------------------------------


def agent_definition(turns: int) -> AgentDefinition:
    """K tool turns (each a 1 KB tool result), then a reply without calls."""
    tool_turn = {"tool_calls": [{"name": "noop", "arguments": {"size": RESULT_BYTES}}]}
    return AgentDefinition.model_validate(
        {
            "model": {"provider": "scripted", "script": [tool_turn] * turns + [{"text": "done"}]},
            "tools": [
                {
                    "name": "noop",
                    "input_schema": {"type": "object"},
                    "executor": {"type": "python", "path": "tests.tools:noop"},
                }
            ],
            "max_steps": turns + 1,
        }
    )


async def define_agents(url: str, definitions: Mapping[str, AgentDefinition]) -> None:
    """Create each agent (id -> definition) in the default tenant."""
    engine = create_engine(url, Settings(database_url=url), pool_size=1)
    try:
        async with engine.begin() as conn:
            for agent_id, definition in definitions.items():
                await agent_store.create_agent(conn, DEFAULT_TENANT, agent_id, definition)
    finally:
        await engine.dispose()


async def create_agents(url: str, turns: int) -> None:
    await define_agents(
        url, {AGENT_ID: agent_definition(turns), WARMUP_AGENT_ID: agent_definition(1)}
    )


async def enqueue(
    url: str, agent_id: str, prefix: str, sessions: int, *, input_is_session: bool = False
) -> float:
    """One run per new session, all in one commit (one NOTIFY wakes every worker). The
    input is "go", or the session's id (for a model server that tells runs apart).

    Returns the database clock just before the commit: when the runs became claimable.
    """
    engine = create_engine(url, Settings(database_url=url), pool_size=1)
    try:
        async with engine.begin() as conn:
            for i in range(sessions):
                session = f"{prefix}{i:04d}"
                command = run_store.SendCommand(
                    tenant_id=DEFAULT_TENANT,
                    session_id=session,
                    agent_id=agent_id,
                    input=[{"role": "user", "content": session if input_is_session else "go"}],
                )
                await run_store.send(conn, command)
            now = await conn.execute(text("SELECT extract(epoch FROM clock_timestamp())"))
            return float(now.scalar_one())
    finally:
        await engine.dispose()


class WorkerFleet:
    """`perdure worker` subprocesses, each with its own log file."""

    def __init__(self, processes: list[subprocess.Popen[bytes]], logs: list[Path]) -> None:
        self.processes = processes
        self.logs = logs

    @classmethod
    def start(
        cls, url: str, count: int, concurrency: int, pool_size: int, log_dir: Path
    ) -> WorkerFleet:
        env = dict(os.environ)
        env.pop("PERDURE_SCRIPTED_CALL_LOG", None)  # a file write per model call: not ours
        env.update(
            DATABASE_URL=url,
            PERDURE_WORKER_CONCURRENCY=str(concurrency),
            PERDURE_POOL_SIZE=str(pool_size),
            # What the operator grants (app/capabilities.py): the agent's tool is
            # `tests.tools:noop` and its model the scripted one.
            PERDURE_PYTHON_TOOLS="app.tools.demo,tests",
            PERDURE_SCRIPTED_MODEL="true",
            # The agent's tool is `tests.tools:noop`: the repository must be importable.
            PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p),
        )
        logs = [log_dir / f"worker-{index}.log" for index in range(count)]
        return cls([spawn_worker(env, log) for log in logs], logs)

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        """Wait until each worker printed its start line: imports done, loops running.

        Started before any run exists, so interpreter start-up is not in the measurement.
        """
        deadline = time.monotonic() + timeout_s
        for process, log in zip(self.processes, self.logs, strict=True):
            while b"perdure: worker" not in log.read_bytes():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"a worker did not start:\n{log_tail(log)}")
                time.sleep(POLL_S)

    def cpu(self) -> list[Cpu]:
        return [process_cpu(p.pid) for p in self.processes]

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def log_tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


# -- measuring one configuration --------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    wal_lsn: str
    log_bytes: int  # the log tables (LOG_TABLES) with their indexes
    run_bytes: int  # runs, with its indexes
    workers: list[Cpu]
    postgres: dict[int, Cpu]
    machine: tuple[int, int]


@dataclass(frozen=True)
class Result:
    turns: int  # K: tool turns per run
    workers: int
    sessions: int
    finished: int
    timed_out: bool
    wall_s: float
    model_turns: int
    checkpoint_writes: int
    worker_cpu: Cpu
    postgres_cpu: Cpu
    wal_bytes: int
    log_bytes: int
    run_bytes: int
    row_bytes: int  # the log rows of the measured runs themselves, without page overhead
    runs_hot_share: float | None  # of UPDATEs of `runs`, the share that were HOT
    machine_busy: float  # fraction of all cores busy, anyone's

    @property
    def turns_per_s(self) -> float:
        return self.model_turns / self.wall_s

    @property
    def checkpoints_per_s(self) -> float:
        return self.checkpoint_writes / self.wall_s

    def ms_per_turn(self, cpu_s: float) -> float:
        return 1000 * cpu_s / max(self.model_turns, 1)

    def per_checkpoint(self, size: int) -> float:
        return size / max(self.checkpoint_writes, 1)

    @property
    def other_cores(self) -> float:
        """Cores busy with anything but the workers and Postgres (the box is shared)."""
        ours = (self.worker_cpu.total_s + self.postgres_cpu.total_s) / self.wall_s
        return max(self.machine_busy * CORES - ours, 0.0)


def snapshot(conn: psycopg.Connection[Any], fleet: WorkerFleet, postmaster: int) -> Snapshot:
    def size(tables: Sequence[str]) -> str:
        return " + ".join(f"pg_total_relation_size('{t}')" for t in tables)

    row = query_one(
        conn, f"SELECT pg_current_wal_lsn()::text, {size(LOG_TABLES)}, {size([RUN_TABLE])}"
    )
    return Snapshot(
        wal_lsn=row[0],
        log_bytes=int(row[1]),
        run_bytes=int(row[2]),
        workers=fleet.cpu(),
        postgres=children_cpu(postmaster),
        machine=machine_jiffies(),
    )


def wait_finished(
    conn: psycopg.Connection[Any], prefix: str, sessions: int, timeout_s: float
) -> bool:
    """Poll until every run finished; False on timeout. A failed run is a bug: raise."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        finished, broken = query_one(
            conn,
            "SELECT count(*) FILTER (WHERE status = 'finished'),"
            "       count(*) FILTER (WHERE status IN ('failed', 'cancelled'))"
            "  FROM runs WHERE starts_with(session_id, %s)",
            (prefix,),
        )
        if broken:
            raise RuntimeError(f"{broken} runs failed or were cancelled")
        if finished == sessions:
            return True
        time.sleep(POLL_S)
    return False


def outcome(conn: psycopg.Connection[Any], enqueued_at: float) -> tuple[int, int, int, float]:
    """(finished runs, model turns, checkpoint rows, seconds from enqueue to last finish).

    Both ends of the wall time are read on the database clock, so polling adds nothing.
    """
    finished, model_turns, checkpoints, last = query_one(
        conn,
        "SELECT count(*) FILTER (WHERE status = 'finished'), coalesce(sum(steps), 0),"
        "       (SELECT count(*) FROM checkpoints WHERE starts_with(session_id, %(p)s)),"
        "       extract(epoch FROM coalesce(max(finished_at), clock_timestamp()))"
        "  FROM runs WHERE starts_with(session_id, %(p)s)",
        {"p": MEASURED},
    )
    return int(finished), int(model_turns), int(checkpoints), float(last) - enqueued_at


def log_row_bytes(conn: psycopg.Connection[Any]) -> int:
    """Bytes of the log rows the measured runs wrote (tuple header and data, no pages).

    Tables grow by whole pages, several at a time under concurrent inserts, so their
    size is coarse for small runs; the rows themselves show the per-step cost exactly.
    """
    parts = " + ".join(
        f"(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM {table} t"
        f"  WHERE starts_with(t.session_id, %(p)s))"
        for table in LOG_TABLES
    )
    return int(query_one(conn, f"SELECT {parts}", {"p": MEASURED})[0])


def runs_hot_share(conn: psycopg.Connection[Any], expected_updates: int) -> float | None:
    """Share of `runs` UPDATEs that were HOT (no index entries written).

    Backends report their counters when they exit, so this is read after the workers
    stopped, waiting briefly for the counts to arrive.
    """
    deadline = time.monotonic() + 3.0
    while True:
        updates, hot = query_one(
            conn,
            "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = %s",
            (RUN_TABLE,),
        )
        if updates >= expected_updates or time.monotonic() > deadline:
            return hot / updates if updates else None
        time.sleep(0.1)


def measure(
    server: EmbeddedPostgres, plan: Plan, turns: int, workers: int, template: str, log_dir: Path
) -> Result:
    """One measurement on a fresh database (a clone of `template`): enqueue, wait for every
    run to finish."""
    name = pg.clone(server.url(), template)
    url = server.url(name)
    asyncio.run(create_agents(url, turns))
    # Split the sessions evenly, so that with N workers each claims its share at once.
    concurrency = math.ceil(plan.sessions / workers)
    fleet = WorkerFleet.start(url, workers, concurrency, plan.pool_size or concurrency, log_dir)
    try:
        fleet.wait_ready()
        with admin(server, name) as conn:
            # A warm-up round of one-turn runs fills the workers' connection pools: a
            # long-lived worker has them open, and opening 32 is ~0.1 s of a short run.
            asyncio.run(enqueue(url, WARMUP_AGENT_ID, WARMUP, plan.sessions))
            wait_finished(conn, WARMUP, plan.sessions, plan.timeout_s)
            # Each measurement starts right after a checkpoint: same full-page-write cost.
            conn.execute("CHECKPOINT")
            before = snapshot(conn, fleet, postmaster_pid(server))
            enqueued_at = asyncio.run(enqueue(url, AGENT_ID, MEASURED, plan.sessions))
            completed = wait_finished(conn, MEASURED, plan.sessions, plan.timeout_s)
            after = snapshot(conn, fleet, postmaster_pid(server))
            finished, model_turns, checkpoints, wall_s = outcome(conn, enqueued_at)
            wal_bytes = query_one(
                conn, "SELECT pg_wal_lsn_diff(%s, %s)", (after.wal_lsn, before.wal_lsn)
            )[0]
            row_bytes = log_row_bytes(conn)
    except BaseException:
        for log in fleet.logs:
            print(f"--- {log.name}\n{log_tail(log)}", file=sys.stderr)
        raise
    finally:
        fleet.stop()
    with admin(server, name) as conn:
        hot_share = runs_hot_share(conn, checkpoints)
    pg.drop(server.url(), name)
    busy = after.machine[0] - before.machine[0]
    total = after.machine[1] - before.machine[1]
    return Result(
        turns=turns,
        workers=workers,
        sessions=plan.sessions,
        finished=finished,
        timed_out=not completed,
        wall_s=wall_s,
        model_turns=model_turns,
        checkpoint_writes=checkpoints,
        worker_cpu=sum_cpu(a - b for a, b in zip(after.workers, before.workers, strict=True)),
        # A backend that started during the run counts from zero.
        postgres_cpu=sum_cpu(
            cpu - before.postgres.get(pid, Cpu(0.0, 0.0)) for pid, cpu in after.postgres.items()
        ),
        wal_bytes=int(wal_bytes),
        log_bytes=after.log_bytes - before.log_bytes,
        run_bytes=after.run_bytes - before.run_bytes,
        row_bytes=row_bytes,
        runs_hot_share=hot_share,
        machine_busy=busy / max(total, 1),
    )


def sum_cpu(parts: Iterable[Cpu]) -> Cpu:
    total = Cpu(0.0, 0.0)
    for part in parts:
        total = Cpu(total.user_s + part.user_s, total.system_s + part.system_s)
    return total


def median_result(results: list[Result]) -> Result:
    """The measurement with the median turns/s (an actual run, not a blend of several)."""
    ranked = sorted(results, key=lambda r: r.turns_per_s)
    return ranked[(len(ranked) - 1) // 2]


# -- reporting --------------------------------------------------------------------------

RESULT_HEADERS = (
    "K",
    "workers",
    "wall s",
    "turns",
    "turns/s",
    "ckpts",
    "ckpts/s",
    "worker ms/turn",
    "(sys)",
    "pg ms/turn",
    "WAL B/ckpt",
    "table B/ckpt",
    "other cores",
)
STREAM_WIDTH = 7


def result_row(r: Result) -> list[str]:
    return [
        str(r.turns),
        str(r.workers),
        f"{r.wall_s:.2f}",
        str(r.model_turns),
        f"{r.turns_per_s:.0f}" + (" TIMEOUT" if r.timed_out else ""),
        str(r.checkpoint_writes),
        f"{r.checkpoints_per_s:.0f}",
        f"{r.ms_per_turn(r.worker_cpu.total_s):.2f}",
        f"{r.ms_per_turn(r.worker_cpu.system_s):.2f}",
        f"{r.ms_per_turn(r.postgres_cpu.total_s):.2f}",
        f"{r.per_checkpoint(r.wal_bytes):.0f}",
        f"{r.per_checkpoint(r.log_bytes + r.run_bytes):.0f}",
        f"{r.other_cores:.2f}",
    ]


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], min_width: int = 0) -> str:
    widths = [max([len(h), min_width, *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    lines = [table_row(headers, widths), "  ".join("-" * w for w in widths)]
    lines.extend(table_row(r, widths) for r in rows)
    return "\n".join(lines)


def table_row(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))


def throughput_table(measured: list[list[Result]]) -> str:
    headers = [*RESULT_HEADERS, "turns/s runs", "runs HOT"]
    rows = []
    for results in measured:
        middle = median_result(results)
        spread = "/".join(f"{r.turns_per_s:.0f}" for r in results)
        hot = middle.runs_hot_share
        rows.append([*result_row(middle), spread, "-" if hot is None else f"{100 * hot:.0f}%"])
    return table(headers, rows)


def bytes_table(measured: list[list[Result]]) -> str:
    """Bytes per checkpoint by K, side by side: flat means O(1) writes per step.

    Each cell is the median over the repeats of that metric alone: an autovacuum that
    happens to run during one repeat writes full-page images, which is real but rare.
    """
    ks = sorted({results[0].turns for results in measured})
    ratio_header = f"K={ks[-1]} / K={ks[0]}"
    headers = ["workers", "bytes per checkpoint", *(f"K={k}" for k in ks), ratio_header]
    metrics: dict[str, Callable[[Result], float]] = {
        "WAL": lambda r: r.per_checkpoint(r.wal_bytes),
        "log rows (no pages)": lambda r: r.per_checkpoint(r.row_bytes),
        "log tables+indexes": lambda r: r.per_checkpoint(r.log_bytes),
        "runs table+indexes": lambda r: r.per_checkpoint(r.run_bytes),
    }
    rows = []
    for workers in sorted({results[0].workers for results in measured}):
        mine = sorted(
            (results for results in measured if results[0].workers == workers),
            key=lambda results: results[0].turns,
        )
        for label, metric in metrics.items():
            values = [statistics.median(metric(r) for r in results) for results in mine]
            ratio = f"{values[-1] / values[0]:.2f}x" if values[0] else "-"
            rows.append([str(workers), label, *(f"{v:.0f}" for v in values), ratio])
    return table(headers, rows)


def target_lines(plan: Plan, measured: list[list[Result]]) -> list[str]:
    """The check against the target: one worker process, every K, median and best run."""
    lines = [
        f"target: 1 worker process, {plan.sessions} sessions in flight, "
        f">= {TARGET_TURNS_PER_S:.0f} checkpointed turns/s, "
        f"<= {TARGET_CPU_MS_PER_TURN} ms of CPU per turn (worker + Postgres)"
    ]
    single = [results for results in measured if results[0].workers == 1]
    for results in single:
        middle = median_result(results)
        best = max(r.turns_per_s for r in results)
        others = statistics.mean(r.other_cores for r in results)
        cpu_ms = middle.ms_per_turn(middle.worker_cpu.total_s + middle.postgres_cpu.total_s)
        fast = "meets" if middle.turns_per_s >= TARGET_TURNS_PER_S else "BELOW"
        lean = "meets" if cpu_ms <= TARGET_CPU_MS_PER_TURN else "ABOVE"
        lines.append(
            f"  K={middle.turns:<4} median {middle.turns_per_s:4.0f}, best {best:4.0f} turns/s: "
            f"{fast}; {cpu_ms:.2f} ms CPU/turn: {lean} "
            f"(other load meanwhile: {others:.2f} of {CORES} cores)"
        )
    if single and any(r.other_cores > 0.3 for results in single for r in results):
        lines.append("  the box was shared during the run: rerun on a quiet machine to confirm")
    return lines


def print_summary(
    plan: Plan, baseline: list[tuple[int, float]], measured: list[list[Result]]
) -> None:
    print("\n== summary")
    print("baseline, pgbench -N (simple-update transactions, one commit each) on this server:")
    print("  " + ", ".join(f"{c} client{'s' * (c > 1)}: {tps:.0f} tps" for c, tps in baseline))
    print(
        f"workload: {plan.sessions} sessions, one run each: K tool turns ({RESULT_BYTES} B "
        f"result each) + a final reply. Median of {plan.repeats} by turns/s.\n"
        "  turns = model calls; ckpts = checkpoint rows written; (sys) = kernel share of the\n"
        "  worker CPU; other cores = CPU used meanwhile by anything else on this shared box"
    )
    print(throughput_table(measured))
    print(
        "\nbytes written per checkpoint; all should stay flat as K grows. Table sizes grow in"
        "\nwhole pages, many at a time under concurrent inserts: coarse for small K."
    )
    print(bytes_table(measured))
    print()
    print("\n".join(target_lines(plan, measured)))


# -- main -------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> Plan:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="K = 10, 50; 16 sessions; once")
    parser.add_argument("--sessions", type=int, help="sessions, one run each (default 32)")
    parser.add_argument("--turns", help="comma-separated K values (default 10,50,200)")
    parser.add_argument("--workers", help="comma-separated worker process counts (default 1,2)")
    parser.add_argument("--repeats", type=int, help="measurements per configuration (default 3)")
    parser.add_argument("--pool-size", type=int, help="connections per worker process")
    parser.add_argument("--pgbench-seconds", type=int, help="length of each pgbench run")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    return Plan(
        turn_counts=_ints(args.turns) or plan.turn_counts,
        worker_counts=_ints(args.workers) or plan.worker_counts,
        sessions=args.sessions or plan.sessions,
        repeats=args.repeats or plan.repeats,
        pgbench_seconds=args.pgbench_seconds or plan.pgbench_seconds,
        timeout_s=plan.timeout_s,
        pool_size=args.pool_size or plan.pool_size,
    )


def _ints(value: str | None) -> tuple[int, ...]:
    return tuple(int(v) for v in value.split(",")) if value else ()


def run(plan: Plan, workdir: Path, server: EmbeddedPostgres) -> list[list[Result]]:
    server.start()
    print(f"== embedded Postgres, durable defaults: {describe_server(server)}")
    print("== baseline")
    baseline = run_baseline(server, plan.pgbench_seconds)
    # One migrated database that each measurement clones, so each starts empty.
    template = pg.create_template(server.url())
    pool = "= concurrency" if plan.pool_size is None else str(plan.pool_size)
    print(
        f"== workload: {plan.sessions} sessions split over the worker processes "
        f"(concurrency {plan.sessions} / workers, pool size {pool}); rows as they finish"
    )
    widths = [max(len(h), STREAM_WIDTH) for h in RESULT_HEADERS]
    print(table(RESULT_HEADERS, [], STREAM_WIDTH), flush=True)
    measured: list[list[Result]] = []
    for turns in plan.turn_counts:
        for workers in plan.worker_counts:
            results = []
            for _ in range(plan.repeats):
                result = measure(server, plan, turns, workers, template, workdir)
                results.append(result)
                print(table_row(result_row(result), widths), flush=True)
            measured.append(results)
    print_summary(plan, baseline, measured)
    return measured


@contextmanager
def durable_server(prefix: str) -> Iterator[tuple[EmbeddedPostgres, Path]]:
    """An embedded Postgres with its default, durable settings (not yet started) and a
    scratch folder beside it, both removed at the end."""
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    # As root the server runs as another user, which must reach its data folder inside.
    workdir.chmod(0o755)
    server = EmbeddedPostgres(workdir / "pg")
    try:
        yield server, workdir
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def fresh_database(server: EmbeddedPostgres) -> str:
    """The name of a new, migrated database on `server`."""
    return pg.clone(server.url(), pg.create_template(server.url()))


def main(argv: Sequence[str] | None = None) -> int:
    plan = parse_args(argv)
    started = time.monotonic()
    with durable_server("perdure-bench-") as (server, workdir):
        measured = run(plan, workdir, server)
    print(f"\n(total {time.monotonic() - started:.0f} s)")
    timed_out = any(r.timed_out for results in measured for r in results)
    return 1 if timed_out else 0


if __name__ == "__main__":
    sys.exit(main())
