"""Claims, renewals and the fence, on separate connections, against the real statements."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import psycopg
import pytest
from psycopg import sql
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.db import create_engine
from app.domain.agent import AgentDefinition
from app.domain.principal import DEFAULT_TENANT
from app.domain.run import (
    CallStatus,
    CheckpointWrite,
    NewMessage,
    RunStatus,
    Settlement,
    ToolCall,
    Usage,
)
from app.errors import LeaseLost, ResultAlreadyRecorded
from app.settings import Settings
from app.store import agents, checkpoint, leases
from app.store.runs import SendCommand, send
from tests import pg
from tests.integration.test_give_back import until

MAX_DEATHS = 3
DEFINITION = AgentDefinition.model_validate(
    {"model": {"provider": "scripted", "script": [{"text": "x"}]}}
)


async def make_runs(engine: AsyncEngine, sessions: int, per_session: int = 1) -> list[uuid.UUID]:
    ids = []
    async with engine.begin() as conn:
        await agents.create_agent(conn, DEFAULT_TENANT, "a", DEFINITION)
        for s in range(sessions):
            for _ in range(per_session):
                command = SendCommand(
                    DEFAULT_TENANT, f"s{s}", [{"role": "user", "content": "x"}], agent_id="a"
                )
                ids.append((await send(conn, command)).run.id)
    return ids


@asynccontextmanager
async def alive(settings: Settings, *owners: str) -> AsyncIterator[None]:
    """Hold each owner's liveness lock, as a running worker does on its own connection."""
    assert settings.database_url
    engine = create_engine(settings.database_url, settings, pool_size=len(owners))
    held = []
    try:
        for owner in owners:
            conn = await (await engine.connect()).execution_options(isolation_level="AUTOCOMMIT")
            await leases.hold_liveness(conn, owner=owner)
            held.append(conn)
        yield
    finally:
        for conn in held:
            await conn.close()
        await engine.dispose()


async def claim(
    conn: AsyncConnection, *, owner: str, limit: int, ttl_s: float
) -> list[leases.Claim]:
    """A claim by a worker that drives nothing else (tests/integration/test_poison.py has
    busy ones)."""
    return await leases.claim_runs(
        conn, owner=owner, limit=limit, ttl_s=ttl_s, idle=True, max_deaths=MAX_DEATHS
    )


def write(seq: int, status: RunStatus = RunStatus.RUNNING) -> CheckpointWrite:
    return CheckpointWrite(
        checkpoint_seq=seq,
        status=status,
        steps=0,
        usage=Usage(),
        message_count=1,
        messages=[NewMessage(seq, "user", f"m{seq}")],
        input_seq=seq,
    )


async def test_claim__concurrent_claimers_take_each_run_exactly_once(
    engine: AsyncEngine, settings: Settings
) -> None:
    ids = await make_runs(engine, sessions=60)

    async def claimer(name: str) -> list[uuid.UUID]:
        got: list[uuid.UUID] = []
        while True:
            async with engine.begin() as conn:  # each claim on its own pooled connection
                claims = await claim(conn, owner=name, limit=3, ttl_s=30)
            if not claims:
                return got
            got.extend(c.run_id for c in claims)

    names = [f"w{i}" for i in range(6)]
    async with alive(settings, *names):
        results = await asyncio.gather(*[claimer(name) for name in names])
    claimed = [run_id for got in results for run_id in got]
    assert sorted(claimed) == sorted(ids)  # all claimed, none twice
    assert sum(1 for got in results if got) > 1  # the claimers really competed


async def test_claim__a_session_runs_one_at_a_time_in_order(
    engine: AsyncEngine, settings: Settings
) -> None:
    first, second = await make_runs(engine, sessions=1, per_session=2)
    async with alive(settings, "w"):
        await _one_at_a_time(engine, first, second)


async def _one_at_a_time(engine: AsyncEngine, first: uuid.UUID, second: uuid.UUID) -> None:
    async with engine.begin() as conn:
        claims = await claim(conn, owner="w", limit=10, ttl_s=30)
    assert [c.run_id for c in claims] == [first]
    async with engine.begin() as conn:
        assert await claim(conn, owner="w", limit=10, ttl_s=30) == []
        await checkpoint.write_checkpoint(
            conn, run_id=first, token=claims[0].lease_token, write=write(1, RunStatus.FINISHED)
        )
    async with engine.begin() as conn:
        claims = await claim(conn, owner="w", limit=10, ttl_s=30)
    assert [c.run_id for c in claims] == [second]


async def test_claim__expired_lease_is_taken_over_with_a_new_token(
    engine: AsyncEngine, database_url: str, settings: Settings
) -> None:
    (run_id,) = await make_runs(engine, sessions=1)
    async with alive(settings, "stalled"):
        async with engine.begin() as conn:
            (first,) = await claim(conn, owner="stalled", limit=1, ttl_s=0.5)
            # alive and within its lease: nobody may take it
            assert await claim(conn, owner="other", limit=1, ttl_s=30) == []
        await asyncio.sleep(0.6)
        async with engine.begin() as conn:
            (second,) = await claim(conn, owner="other", limit=1, ttl_s=30)
    assert second.run_id == run_id
    assert second.lease_token == first.lease_token + 1
    assert pg.scalar(database_url, "SELECT claims FROM runs") == 2


async def test_claim__a_dead_owners_runs_are_taken_before_their_lease_expires(
    engine: AsyncEngine, settings: Settings
) -> None:
    (run_id,) = await make_runs(engine, sessions=1)
    async with alive(settings, "doomed"), engine.begin() as conn:
        (first,) = await claim(conn, owner="doomed", limit=1, ttl_s=300)
    # its liveness connection is gone: the 300 s lease does not matter any more
    async with engine.begin() as conn:
        (second,) = await claim(conn, owner="heir", limit=1, ttl_s=30)
    assert (second.run_id, second.lease_token) == (run_id, first.lease_token + 1)


async def test_claim__a_dead_owner_probed_meanwhile_by_housekeeping_is_still_dead(
    engine: AsyncEngine, settings: Settings
) -> None:
    """Housekeeping (`RELEASE_LAPSED`) probes every worker's liveness lock, a claim probes
    its candidates' owners: probing one at the same moment, each must still see a dead
    owner as dead. An exclusive probe made the other prober see the lock held, so the
    claim took nothing, or took the run only once its lease ran out and counted the
    takeover `expired` (tests/integration/test_metrics.py failed on it once)."""
    (run_id,) = await make_runs(engine, sessions=1)
    async with alive(settings, "doomed"), engine.begin() as conn:
        (first,) = await claim(conn, owner="doomed", limit=1, ttl_s=300)
    async with engine.connect() as housekeeping, housekeeping.begin():
        await leases.release_lapsed(housekeeping, ttl_s=300)  # its transaction still open
        async with engine.begin() as conn:
            taken = await claim(conn, owner="heir", limit=1, ttl_s=30)
    assert [(t.run_id, t.lease_token, t.takeover) for t in taken] == [
        (run_id, first.lease_token + 1, "liveness")
    ]


async def test_fence__a_stale_token_writes_nothing(engine: AsyncEngine, database_url: str) -> None:
    (run_id,) = await make_runs(engine, sessions=1)
    async with engine.begin() as conn:
        (stale,) = await claim(conn, owner="zombie", limit=1, ttl_s=0.1)
    await asyncio.sleep(0.2)
    async with engine.begin() as conn:
        (fresh,) = await claim(conn, owner="new", limit=1, ttl_s=30)

    try:
        async with engine.begin() as conn:
            await checkpoint.write_checkpoint(
                conn, run_id=run_id, token=stale.lease_token, write=write(1)
            )
        raise AssertionError("a stale token must not write")
    except LeaseLost:
        pass
    assert pg.scalar(database_url, "SELECT count(*) FROM messages") == 0
    assert pg.scalar(database_url, "SELECT count(*) FROM checkpoints") == 0

    async with engine.begin() as conn:
        await checkpoint.write_checkpoint(
            conn, run_id=run_id, token=fresh.lease_token, write=write(1)
        )
    assert pg.scalar(database_url, "SELECT count(*) FROM checkpoints") == 1


async def test_renew__only_the_runs_still_driven_and_still_held(
    engine: AsyncEngine, settings: Settings, database_url: str
) -> None:
    ids = await make_runs(engine, sessions=4)
    async with engine.begin() as conn:
        mine = await claim(conn, owner="me", limit=4, ttl_s=0.1)
    await asyncio.sleep(0.2)
    async with engine.begin() as conn:
        # Another worker takes one of my expired runs...
        (taken,) = await claim(conn, owner="thief", limit=1, ttl_s=30)
    given_up = next(c.run_id for c in mine if c.run_id != taken.run_id)
    driven = [i for i in ids if i != given_up]
    async with engine.begin() as conn:
        # ...and I gave one up (say, after a database error): I renew only what I drive.
        renewed = await leases.renew_leases(conn, owner="me", ttl_s=30, run_ids=driven)
    assert {r.run_id for r in renewed} == set(ids) - {taken.run_id, given_up}
    lapsed = pg.scalar(
        database_url,
        "SELECT lease_expires_at < clock_timestamp() FROM runs WHERE id = %s",
        given_up,
    )
    assert lapsed is True, "a run given up must lapse so that another worker can take it"


async def test_hand_back__fenced_and_claimable_again_at_once(
    engine: AsyncEngine, settings: Settings, database_url: str
) -> None:
    """A worker that gives a run up (a failed save) hands it back: a stale token or a run
    no longer running changes nothing; the holder's token queues it, lease released."""
    (run_id,) = await make_runs(engine, sessions=1)
    async with alive(settings, "me", "other"):
        async with engine.begin() as conn:
            (mine,) = await claim(conn, owner="me", limit=1, ttl_s=300)
        async with engine.begin() as conn:
            stale = mine.lease_token - 1
            assert await leases.hand_back(conn, run_id=run_id, token=stale) is False
        assert pg.scalar(database_url, "SELECT lease_owner FROM runs") == "me"

        async with engine.begin() as conn:
            assert await leases.hand_back(conn, run_id=run_id, token=mine.lease_token) is True
        assert (
            pg.scalar(
                database_url,
                "SELECT (status, lease_owner, lease_expires_at, lease_token)::text FROM runs",
            )
            == f"(queued,,,{mine.lease_token})"
        )
        async with engine.begin() as conn:
            # Twice is harmless: it is no longer running.
            assert await leases.hand_back(conn, run_id=run_id, token=mine.lease_token) is False
            (again,) = await claim(conn, owner="other", limit=1, ttl_s=30)
    assert (again.run_id, again.lease_token) == (run_id, mine.lease_token + 1)


async def test_claim__never_takes_back_a_run_its_claimer_still_holds(
    engine: AsyncEngine,
) -> None:
    """The liveness hint is about other workers: a claimer whose own liveness lock lapsed
    (its connection hiccuped) must not re-claim, under a new token, runs it still drives."""
    await make_runs(engine, sessions=1)
    async with engine.begin() as conn:
        (first,) = await claim(conn, owner="me", limit=1, ttl_s=30)
        assert await claim(conn, owner="me", limit=1, ttl_s=30) == []
    assert first.lease_token == 1


@pytest.mark.parametrize("idle", [True, False])
async def test_claim__uses_its_partial_indexes(
    database_url: str, engine: AsyncEngine, idle: bool
) -> None:
    """Ordinary runs come from `ix_runs_claimable`, queued suspects from `ix_runs_suspect`,
    and running runs (to take over) only those of dead or late workers, from
    `ix_runs_lease_owner`: a claim never reads the whole table, nor the backlog of queued
    runs while looking for suspects, nor the running runs of live workers."""
    await make_runs(engine, sessions=50)
    with psycopg.connect(pg.libpq_url(database_url)) as conn:
        conn.execute("ANALYZE runs")
        conn.execute("SET enable_seqscan = off")  # tiny tables would pick a seq scan
        sql = leases.CLAIM_RUNS.text
        for name, value in {
            ":limit": "5",
            ":owner": "'w'",
            ":ttl": "30",
            ":idle": str(idle).lower(),
            ":max_deaths": str(MAX_DEATHS),
        }.items():
            sql = sql.replace(name, value)
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql).fetchall())
        conn.rollback()
    assert "ix_runs_claimable" in plan, plan
    assert "ix_runs_suspect" in plan, plan
    assert "ix_runs_lease_owner" in plan, plan
    assert "Seq Scan on runs" not in plan, plan


@asynccontextmanager
async def autocommit(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    async with engine.connect() as raw:
        yield await raw.execution_options(isolation_level="AUTOCOMMIT")


async def test_batch__one_transaction__each_write_fenced_on_its_own_token(
    engine: AsyncEngine, database_url: str
) -> None:
    """Saves of several runs commit together, and a stale token among them writes nothing
    and fails only its own save."""
    ids = await make_runs(engine, sessions=3)
    async with engine.begin() as conn:
        claims = {c.run_id: c for c in await claim(conn, owner="w", limit=3, ttl_s=30)}
    stale = ids[1]
    batch = [
        checkpoint.FencedWrite(run_id, claims[run_id].lease_token - (run_id == stale), write(1))
        for run_id in ids
    ]
    async with autocommit(engine) as conn:
        outcomes = await checkpoint.write_checkpoints(conn, batch)

    assert [type(o).__name__ for o in outcomes] == ["NoneType", "LeaseLost", "NoneType"]
    saved = pg.scalar(
        database_url, "SELECT array_agg(run_id::text ORDER BY run_id) FROM checkpoints"
    )
    assert saved == sorted(str(i) for i in ids if i != stale)
    assert pg.scalar(database_url, "SELECT count(DISTINCT xmin::text) FROM checkpoints") == 1
    assert pg.scalar(database_url, "SELECT count(*) FROM messages") == 2


async def test_batch__a_write_the_database_refuses_fails_only_its_own_save(
    engine: AsyncEngine, database_url: str
) -> None:
    """One write breaks a constraint (a message seq already taken): the batch rolls back
    and the others are written one by one; that one alone gets the database's error."""
    ids = await make_runs(engine, sessions=3)
    async with engine.begin() as conn:
        claims = {c.run_id: c for c in await claim(conn, owner="w", limit=3, ttl_s=30)}
        bad = ids[2]
        await checkpoint.write_checkpoint(
            conn, run_id=bad, token=claims[bad].lease_token, write=write(1)
        )
    batch = [
        checkpoint.FencedWrite(run_id, claims[run_id].lease_token, write(1 + (run_id == bad)))
        for run_id in ids
    ]
    # Its second checkpoint repeats message seq 1: a unique violation.
    bad_write = batch[2].write
    batch[2] = checkpoint.FencedWrite(
        bad, claims[bad].lease_token, replace(bad_write, messages=write(1).messages)
    )
    async with autocommit(engine) as conn:
        outcomes = await checkpoint.write_checkpoints(conn, batch)

    assert outcomes[:2] == [None, None]
    assert isinstance(outcomes[2], psycopg.errors.UniqueViolation), outcomes[2]
    per_run = dict(
        pg.rows(database_url, "SELECT run_id, count(*) FROM checkpoints GROUP BY run_id")
    )
    assert per_run == {ids[0]: 1, ids[1]: 1, bad: 1}


def running(seq: int, **parts: Any) -> CheckpointWrite:
    """Checkpoint `seq` of a run that goes on, with what it appends (`parts`)."""
    return CheckpointWrite(
        checkpoint_seq=seq,
        status=RunStatus.RUNNING,
        steps=1,
        usage=Usage(),
        message_count=seq,
        **parts,
    )


def turn(seq: int, call_id: str) -> CheckpointWrite:
    """A model turn with one call: the assistant message `seq`, the call `seq + 1`."""
    return running(
        seq,
        messages=[NewMessage(seq, "assistant", "", [call_id])],
        calls=[ToolCall(call_id, seq + 1, seq, 0, "noop", {})],
        started=[call_id],
    )


def result(seq: int, call_id: str, value: str) -> CheckpointWrite:
    return running(seq, settlements=[Settlement(call_id, CallStatus.OK, value)])


async def test_batch__a_result_already_recorded_is_only_its_own_runs_outcome(
    engine: AsyncEngine, database_url: str
) -> None:
    """The batch is one statement: each write's results are counted as its own, so a
    result recorded before fails its run alone, and the others' are written."""
    ids = await make_runs(engine, sessions=3)
    async with engine.begin() as conn:
        claims = {c.run_id: c for c in await claim(conn, owner="w", limit=3, ttl_s=30)}
    tokens = [claims[run_id].lease_token for run_id in ids]
    async with autocommit(engine) as conn:
        turns = [
            checkpoint.FencedWrite(i, t, turn(2, "c")) for i, t in zip(ids, tokens, strict=True)
        ]
        assert await checkpoint.write_checkpoints(conn, turns) == [None] * 3
        early = ids[1]
        await checkpoint.write_checkpoint(
            conn, run_id=early, token=tokens[1], write=result(3, "c", "first")
        )
        batch = [
            checkpoint.FencedWrite(i, t, result(3 + (i == early), "c", "second"))
            for i, t in zip(ids, tokens, strict=True)
        ]
        outcomes = await checkpoint.write_checkpoints(conn, batch)

    assert [type(o) for o in outcomes] == [type(None), ResultAlreadyRecorded, type(None)]
    results = dict(
        pg.rows(
            database_url,
            "SELECT r.id, t.result #>> '{}' FROM tool_calls t JOIN runs r USING (session_id)",
        )
    )
    assert results == {ids[0]: "second", early: "first", ids[2]: "second"}


async def test_batch__each_runs_events_in_its_own_session_in_order(
    engine: AsyncEngine, database_url: str
) -> None:
    """A batch appends each saved run's events to its own session's log, numbered on from
    that session's last event, however many each write brings, in one statement (not
    made again one by one); a fenced-out write's session gets none."""
    ids = await make_runs(engine, sessions=3)
    async with engine.begin() as conn:
        claims = {c.run_id: c for c in await claim(conn, owner="w", limit=3, ttl_s=30)}
    before = dict(
        pg.rows(database_url, "SELECT session_id, max(id) FROM events GROUP BY session_id")
    )
    stale = ids[2]
    # Two events, one, and fenced out.
    writes = [turn(2, "c"), write(2, RunStatus.FINISHED), turn(2, "c")]
    batch = [
        checkpoint.FencedWrite(i, claims[i].lease_token - (i == stale), w)
        for i, w in zip(ids, writes, strict=True)
    ]
    async with autocommit(engine) as conn:
        outcomes = await checkpoint.write_checkpoints(conn, batch)

    assert [type(o) for o in outcomes] == [type(None), type(None), LeaseLost]
    logged = pg.rows(
        database_url,
        "SELECT session_id, id, type FROM events WHERE id > (%s::jsonb ->> session_id)::bigint"
        " ORDER BY session_id, id",
        json.dumps(before),
    )
    s0, s1 = before["s0"], before["s1"]
    assert logged == [
        ("s0", s0 + 1, "turn.saved"),
        ("s0", s0 + 2, "tool.started"),
        ("s1", s1 + 1, "run.finished"),
    ]
    assert pg.scalar(database_url, "SELECT count(DISTINCT xmin::text) FROM checkpoints") == 1


async def test_batch__one_run_twice__written_one_after_the_other(
    engine: AsyncEngine, database_url: str
) -> None:
    """The statement writes each run once; a batch that holds one run twice (its loop
    saves one checkpoint at a time, so it does not) is written one write after another."""
    (run_id,) = await make_runs(engine, sessions=1)
    async with engine.begin() as conn:
        (held,) = await claim(conn, owner="w", limit=1, ttl_s=30)
    batch = [
        checkpoint.FencedWrite(run_id, held.lease_token, turn(2, "c")),
        checkpoint.FencedWrite(run_id, held.lease_token, result(3, "c", "done")),
    ]
    async with autocommit(engine) as conn:
        assert await checkpoint.write_checkpoints(conn, batch) == [None, None]
    assert pg.scalar(database_url, "SELECT result #>> '{}' FROM tool_calls") == "done"
    assert pg.scalar(database_url, "SELECT array_agg(seq ORDER BY seq) FROM checkpoints") == [
        2,
        3,
    ]


async def test_batch__finds_its_runs_by_primary_key_not_among_the_fleets(
    engine: AsyncEngine, database_url: str
) -> None:
    """The fence reads a batch's runs by their primary key: never the partial index of
    every running run (a fleet's thousands, read by every batch) nor the whole table.
    Planned as a new deployment's worker plans it: no statistics yet, and kept."""
    await make_runs(engine, sessions=40)
    async with engine.begin() as conn:
        claims = await claim(conn, owner="w", limit=40, ttl_s=30)
    batch = [checkpoint.FencedWrite(c.run_id, c.lease_token, write(1)) for c in claims[:3]]
    with psycopg.connect(pg.libpq_url(database_url)) as conn:
        conn.execute("SET enable_seqscan = off")  # tiny tables would pick a seq scan
        conn.execute("SET plan_cache_mode = force_generic_plan")  # as a worker's, reused
        conn.execute(f"PREPARE save(jsonb) AS {checkpoint.CHECKPOINTS}")
        explain = sql.SQL("EXPLAIN EXECUTE save({})").format(
            sql.Literal(checkpoint.parameter(batch))
        )
        plan = "\n".join(r[0] for r in conn.execute(explain).fetchall())
        conn.rollback()
    fence = plan.split("CTE advanced")[0]
    assert "pk_runs" in fence, plan
    assert "ix_runs_lease_owner" not in plan, plan
    assert "Seq Scan on runs" not in plan, plan


async def test_batch__never_deadlocks_with_renewals(
    engine: AsyncEngine, settings: Settings, database_url: str
) -> None:
    """A batch holds several runs' row locks until it commits, and so does a renewal: both
    take them in run id order, so whatever order the saves were queued in and the rows
    lie in, neither waits on the other in a cycle (Postgres would abort one of them)."""
    ids = await make_runs(engine, sessions=40)
    rng = random.Random(7)
    async with alive(settings, "w"):
        async with engine.begin() as conn:
            claims = {c.run_id: c for c in await claim(conn, owner="w", limit=40, ttl_s=60)}

        async def saves() -> None:
            for seq in range(1, 31):
                order = rng.sample(ids, len(ids))
                batch = [
                    checkpoint.FencedWrite(run_id, claims[run_id].lease_token, write(seq))
                    for run_id in order
                ]
                async with autocommit(engine) as conn:
                    outcomes = await checkpoint.write_checkpoints(conn, batch)
                assert outcomes == [None] * len(ids), outcomes

        async def renewals() -> None:
            for _ in range(60):
                async with engine.begin() as conn:
                    renewed = await leases.renew_leases(
                        conn, owner="w", ttl_s=60, run_ids=rng.sample(ids, len(ids))
                    )
                assert len(renewed) == len(ids)

        await asyncio.gather(saves(), renewals(), renewals())
    # Each batch committed as one (none fell back to one by one after a deadlock).
    assert pg.scalar(database_url, "SELECT count(DISTINCT xmin::text) FROM checkpoints") == 30


async def test_lapsed_under_a_live_worker__not_claimed__released_by_housekeeping(
    engine: AsyncEngine, settings: Settings, database_url: str
) -> None:
    """Claims look only through the runs of dead or late workers. A run whose lease ran
    out while its worker lived and renewed on time (it gave the run up and could not hand
    it back) is left to housekeeping, which queues it once its lease is a TTL past; the
    rows of dead workers holding nothing are forgotten with it."""
    (run_id,) = await make_runs(engine, sessions=1)
    async with alive(settings, "w", "other"):
        async with engine.begin() as conn:
            (first,) = await claim(conn, owner="w", limit=1, ttl_s=0.3)
        await asyncio.sleep(0.4)
        async with engine.begin() as conn:
            # "w" is on time (its renewals go on, without this run) and alive.
            assert await leases.renew_leases(conn, owner="w", ttl_s=30, run_ids=[]) == []
            assert await claim(conn, owner="other", limit=1, ttl_s=30) == []
            # Not yet a TTL past its expiry.
            assert await leases.release_lapsed(conn, ttl_s=30) == 0
        await asyncio.sleep(0.3)
        async with engine.begin() as conn:
            # Still on time: it renews at every heartbeat.
            assert await leases.renew_leases(conn, owner="w", ttl_s=30, run_ids=[]) == []
        async with engine.begin() as conn:
            assert await leases.release_lapsed(conn, ttl_s=0.3) == 1
            (again,) = await claim(conn, owner="other", limit=1, ttl_s=30)
    assert (again.run_id, again.lease_token) == (run_id, first.lease_token + 1)

    # "w" is dead now (its liveness connection closed) and holds nothing: forgotten, once
    # its backend has exited, which releases its lock just after the disconnect, not with
    # it (under load, a pass made at once still found the lock held).
    async def forgotten() -> bool:
        async with engine.begin() as conn:
            await leases.release_lapsed(conn, ttl_s=30)
        owners = await pg.arows(database_url, "SELECT owner FROM workers ORDER BY owner")
        return owners == [("other",)]

    await until(forgotten, timeout=10)


async def test_a_dead_workers_run__long_past_its_lease__is_the_claims_to_take_over(
    engine: AsyncEngine, settings: Settings, database_url: str
) -> None:
    """A worker died driving a run, and no worker came back for more than two TTLs (a
    loaded machine starting the next one slowly): housekeeping must not queue the run as
    if a live worker had let it lapse. The claim takes it over, under suspicion, so that a
    run that kills its workers is charged for it (poison) instead of killing them all."""
    (run_id,) = await make_runs(engine, sessions=1)
    async with alive(settings, "w"), engine.begin() as conn:
        (first,) = await claim(conn, owner="w", limit=1, ttl_s=0.2)
    # "w" is dead (its liveness connection closed): no renewals, no hand-back.
    await asyncio.sleep(0.6)
    async with alive(settings, "other"):
        async with engine.begin() as conn:
            assert await leases.release_lapsed(conn, ttl_s=0.2) == 0
        async with engine.begin() as conn:
            (taken,) = await claim(conn, owner="other", limit=1, ttl_s=30)
    assert (taken.run_id, taken.lease_token) == (run_id, first.lease_token + 1)
    assert (taken.suspect, taken.takeover) == (True, "liveness")
    kinds = [
        kind
        for (kind,) in pg.rows(
            database_url, "SELECT type FROM events WHERE run_id = %s ORDER BY id", run_id
        )
    ]
    assert kinds == ["run.queued", "run.started", "run.taken_over", "run.started"]
