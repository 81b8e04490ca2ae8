"""What the event log costs a checkpoint: Postgres CPU per fenced save, with its events
and without them, on one connection, alternating, so load elsewhere on a shared machine
weighs on both alike.

Each save is a turn-like write (one assistant message, one call) or a result-like one
(the call settles), as the loop writes them; "without events" is the same statement
with an empty event list (so nothing is appended and nothing NOTIFYed). CPU is the
backend's own (from /proc), not wall time. Optionally with a listener on the workers'
wake-up channel, as a running worker has (every NOTIFY signals listening backends).

    python -m benchmarks.checkpoint_cost [--saves 2000] [--rounds 4] [--listener]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import uuid
from collections.abc import Sequence
from unittest import mock

import psycopg

from app.db import create_engine, libpq_url
from app.domain.agent import AgentDefinition
from app.domain.run import (
    CallStatus,
    CheckpointWrite,
    NewMessage,
    RunStatus,
    Settlement,
    ToolCall,
    Usage,
)
from app.settings import Settings
from app.store import agents as agent_store
from app.store import checkpoint
from app.store import runs as run_store
from app.store.notify import WAKE_CHANNEL
from benchmarks.loop_throughput import durable_server, fresh_database
from tests import pg

TENANT = "default"
HZ = 100  # clock ticks per second (USER_HZ on Linux)


def backend_cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


async def prepare(url: str, runs: int) -> list[tuple[uuid.UUID, int]]:
    """`runs` running runs, each leased (token 1): what the saves write to."""
    engine = create_engine(url, Settings(database_url=url), pool_size=1)
    definition = AgentDefinition.model_validate(
        {"model": {"provider": "scripted", "script": [{"text": "x"}]}}
    )
    made = []
    async with engine.begin() as conn:
        await agent_store.create_agent(conn, TENANT, "bench", definition)
        for i in range(runs):
            command = run_store.SendCommand(TENANT, f"s-{i}", [], agent_id="bench")
            made.append((await run_store.send(conn, command)).run.id)
    await engine.dispose()
    pg.rows(url, "UPDATE runs SET status = 'running', lease_token = 1 RETURNING id")
    return [(run_id, 1) for run_id in made]


def writes(step: int) -> tuple[CheckpointWrite, CheckpointWrite]:
    """A turn (message + call) and its result, as checkpoint `step` writes them."""
    seq = 2 * step + 1
    call_id = f"call_{step}"
    call = ToolCall(call_id, seq + 1, seq, 0, "noop", {"size": 1024}, provider_call_id=call_id)
    turn = CheckpointWrite(
        checkpoint_seq=2 * step + 1,
        status=RunStatus.RUNNING,
        steps=step + 1,
        usage=Usage(input_tokens=10 * step, model_calls=step + 1),
        message_count=seq,
        messages=[NewMessage(seq, "assistant", "", [call_id])],
        calls=[call],
        started=[call_id],
    )
    result = CheckpointWrite(
        checkpoint_seq=2 * step + 2,
        status=RunStatus.RUNNING,
        steps=step + 1,
        usage=Usage(input_tokens=10 * step, model_calls=step + 1),
        message_count=seq + 1,
        settlements=[Settlement(call_id, CallStatus.OK, "x" * 1024)],
    )
    return turn, result


async def save_many(url: str, leased: list[tuple[uuid.UUID, int]], first: int, saves: int) -> float:
    """Backend CPU seconds for `saves` checkpoints spread over the runs."""
    engine = create_engine(url, Settings(database_url=url), pool_size=1)
    async with engine.connect() as conn:
        await conn.execution_options(isolation_level="AUTOCOMMIT")
        pid = (await conn.exec_driver_sql("SELECT pg_backend_pid()")).scalar_one()
        before = backend_cpu_s(pid)
        done = 0
        step = first
        while done < saves:
            for run_id, token in leased:
                for write in writes(step):
                    await checkpoint.write_checkpoint(conn, run_id=run_id, token=token, write=write)
                    done += 1
            step += 1
        spent = backend_cpu_s(pid) - before
    await engine.dispose()
    return spent


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--listener", action="store_true")
    args = parser.parse_args(argv)
    with durable_server("perdure-ckpt-cost-") as (server, _workdir):
        server.start()
        url = pg.with_database(server.url(), fresh_database(server))
        leased = asyncio.run(prepare(url, 16))
        listener = psycopg.connect(libpq_url(url), autocommit=True) if args.listener else None
        if listener is not None:
            listener.execute(f"LISTEN {WAKE_CHANNEL}")
        per_save: dict[str, list[float]] = {"with events": [], "without events": []}
        step = 0
        for _ in range(args.rounds):
            for label in per_save:
                if label == "without events":
                    with mock.patch.object(checkpoint, "of_checkpoint", return_value=[]):
                        spent = asyncio.run(save_many(url, leased, step, args.saves))
                else:
                    spent = asyncio.run(save_many(url, leased, step, args.saves))
                step += args.saves // (2 * len(leased)) + 1
                per_save[label].append(spent / args.saves * 1e6)
        events_rows = pg.scalar(url, "SELECT count(*) FROM events")
        if listener is not None:
            listener.close()
    print(f"Postgres CPU per checkpoint, {args.saves} saves x {args.rounds} rounds, 16 runs")
    for label, samples in per_save.items():
        figures = ", ".join(f"{s:.0f}" for s in samples)
        print(f"  {label:15s} median {statistics.median(samples):6.0f} us  ({figures})")
    extra = statistics.median(per_save["with events"]) - statistics.median(
        per_save["without events"]
    )
    print(f"  events add {extra:.0f} us per save ({events_rows} event rows written)")
    print(f"  wake-up listener present: {args.listener}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
