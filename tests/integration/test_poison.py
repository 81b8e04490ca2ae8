"""Poison runs, statement by statement: who is suspect, who may claim a suspect, when a
death is charged, what clears it, and what a run past the limit becomes. Workers are
owners holding (then dropping) their liveness lock, as in test_leases.py; a worker "dies"
when its liveness connection closes. The real processes are in tests/crash/test_poison.py.
"""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from app.domain.principal import DEFAULT_TENANT
from app.domain.run import CheckpointWrite, RunStatus, Usage
from app.errors import LeaseLost
from app.settings import Settings
from app.store import checkpoint, leases
from app.store import runs as run_store
from tests import pg
from tests.integration.test_leases import alive, make_runs, write


async def claim(
    engine: AsyncEngine, owner: str, *, idle: bool, limit: int = 10, max_deaths: int = 3
) -> list[leases.Claim]:
    async with engine.begin() as conn:
        return await leases.claim_runs(
            conn, owner=owner, limit=limit, ttl_s=30, idle=idle, max_deaths=max_deaths
        )


def suspicion(database_url: str, run_id: uuid.UUID) -> tuple[str, bool, int]:
    """(status, suspect, deaths) of one run."""
    row = pg.run_row(database_url, run_id)
    return row["status"], row["suspect"], row["deaths"]


async def died_driving(settings: Settings, engine: AsyncEngine, owner: str) -> leases.Claim:
    """An idle worker claims one run (a suspect, if one waits), then dies holding it."""
    async with alive(settings, owner):
        (taken,) = await claim(engine, owner, idle=True)
    return taken


async def test_a_dead_workers_runs__busy_workers_start_nothing_idle_ones_take_one_each(
    engine: AsyncEngine, settings: Settings, database_url: str
) -> None:
    """Its co-tenants are suspect too (nobody can tell which run killed it): each is driven
    alone. Meanwhile a busy worker claims nothing, not even an ordinary run, so that it runs
    out of runs and can take a suspect; an idle one takes one suspect and nothing beside it."""
    ids = await make_runs(engine, sessions=4)
    async with alive(settings, "doomed", "busy"):
        async with engine.begin() as conn:
            held = await leases.claim_runs(
                conn, owner="doomed", limit=3, ttl_s=300, idle=True, max_deaths=3
            )
        assert len(held) == 3
        assert not any(c.suspect for c in held)
    ordinary = next(i for i in ids if i not in {c.run_id for c in held})

    async with alive(settings, "busy", "heir", "heir-2"):
        assert await claim(engine, "busy", idle=False) == []
        (first,) = await claim(engine, "heir", idle=True)
        assert first.run_id in {c.run_id for c in held}
        assert (first.suspect, first.deaths, first.poisoned) == (True, 0, False)
        before = next(c for c in held if c.run_id == first.run_id)
        assert first.lease_token == before.lease_token + 1
        assert await claim(engine, "busy", idle=False) == [], "two suspects still wait"
        for _ in range(2):
            (taken,) = await claim(engine, "heir-2", idle=True)
            assert (taken.suspect, taken.deaths) == (True, 0)
        # No suspect waits any more: ordinary claims go on, for busy and idle workers alike.
        (normal,) = await claim(engine, "busy", idle=False)
    assert (normal.run_id, normal.suspect) == (ordinary, False)
    assert suspicion(database_url, ordinary) == ("running", False, 0)


async def test_a_death_is_charged_only_to_a_run_driven_alone(
    engine: AsyncEngine, settings: Settings, database_url: str
) -> None:
    (culprit, bystander) = await make_runs(engine, sessions=2)
    async with alive(settings, "doomed"), engine.begin() as conn:
        await leases.claim_runs(conn, owner="doomed", limit=2, ttl_s=300, idle=True, max_deaths=3)
    # Both were in flight when their worker died: suspect, neither charged.
    first = await died_driving(settings, engine, "alone-1")
    second = await died_driving(settings, engine, "alone-2")
    assert {first.run_id, second.run_id} == {culprit, bystander}
    assert (first.deaths, second.deaths) == (0, 0)
    # Each died again, driven alone: each is charged one death, its own.
    third = await died_driving(settings, engine, "alone-3")
    fourth = await died_driving(settings, engine, "alone-4")
    assert {third.run_id, fourth.run_id} == {culprit, bystander}
    assert (third.deaths, fourth.deaths) == (1, 1)
    for run_id in (culprit, bystander):
        assert suspicion(database_url, run_id) == ("running", True, 1)


async def test_progress_clears_suspicion_in_the_fenced_save__hand_backs_do_not(
    engine: AsyncEngine, settings: Settings, database_url: str
) -> None:
    (run_id,) = await make_runs(engine, sessions=1)
    async with alive(settings, "doomed"), engine.begin() as conn:
        await leases.claim_runs(conn, owner="doomed", limit=1, ttl_s=300, idle=True, max_deaths=3)
    await died_driving(settings, engine, "alone-1")
    async with alive(settings, "alone-2"):
        (taken,) = await claim(engine, "alone-2", idle=True)
        assert (taken.suspect, taken.deaths) == (True, 1)
        token = taken.lease_token
        # Not progress: an at-most-once call's intent, a retry back-off (a hand-back).
        intent = CheckpointWrite(
            checkpoint_seq=1,
            status=RunStatus.RUNNING,
            steps=0,
            usage=Usage(),
            message_count=0,
            save=False,
        )
        backoff = CheckpointWrite(
            checkpoint_seq=1,
            status=RunStatus.QUEUED,
            steps=0,
            usage=Usage(),
            message_count=0,
            save=False,
            attempts=1,
        )
        assert not intent.progress
        assert not backoff.progress
        async with engine.begin() as conn:
            await checkpoint.write_checkpoint(conn, run_id=run_id, token=token, write=intent)
        assert suspicion(database_url, run_id) == ("running", True, 1)
        async with engine.begin() as conn:
            await checkpoint.write_checkpoint(conn, run_id=run_id, token=token, write=backoff)
        assert suspicion(database_url, run_id) == ("queued", True, 1)
        # Handed back before any progress: still a suspect, for idle workers only.
        assert await claim(engine, "alone-2", idle=False) == []
        (again,) = await claim(engine, "alone-2", idle=True)
        assert (again.suspect, again.deaths) == (True, 1), "a clean hand-back is no death"
        # Progress (a checkpoint), in the same fenced statement: cleared, count reset.
        async with engine.begin() as conn:
            await checkpoint.write_checkpoint(
                conn, run_id=run_id, token=again.lease_token, write=write(1)
            )
        assert suspicion(database_url, run_id) == ("running", False, 0)
    # Its worker dies now: suspect again, but with a fresh count.
    taken = await died_driving(settings, engine, "alone-3")
    assert (taken.run_id, taken.suspect, taken.deaths) == (run_id, True, 0)


@pytest.mark.parametrize("max_deaths", [1, 3])
async def test_past_the_limit__failed_as_poison_fenced__resume_gives_a_fresh_count(
    engine: AsyncEngine, settings: Settings, database_url: str, max_deaths: int
) -> None:
    (run_id, other) = await make_runs(engine, sessions=2)
    async with alive(settings, "doomed"), engine.begin() as conn:
        (held,) = await leases.claim_runs(
            conn, owner="doomed", limit=1, ttl_s=300, idle=True, max_deaths=max_deaths
        )
    assert held.run_id == run_id
    last = held
    for death in range(max_deaths):  # driven alone, and its worker died each time
        async with alive(settings, f"alone-{death}"):
            (last,) = await claim(engine, f"alone-{death}", idle=True, max_deaths=max_deaths)
        assert (last.run_id, last.deaths, last.poisoned) == (run_id, death, False)
    async with alive(settings, "judge"):
        (verdict,) = await claim(engine, "judge", idle=True, max_deaths=max_deaths)
        assert (verdict.run_id, verdict.poisoned, verdict.deaths) == (run_id, True, max_deaths)
        # Failing it is all the claim did: the other run waits for the next claim.
        (normal,) = await claim(engine, "judge", idle=True, max_deaths=max_deaths)
        assert normal.run_id == other
        async with engine.begin() as conn:
            await checkpoint.write_checkpoint(
                conn, run_id=other, token=normal.lease_token, write=write(1, RunStatus.FINISHED)
            )
    row = pg.scalar(
        database_url,
        "SELECT jsonb_build_object('status', status, 'lease_owner', lease_owner, "
        "'last_error', last_error, 'finish_reason', finish_reason, "
        "'finished', finished_at IS NOT NULL, 'claims', claims) FROM runs WHERE id = %s",
        run_id,
    )
    assert (row["status"], row["lease_owner"]) == ("failed", None)
    assert (row["finish_reason"], row["finished"]) == ("error", True)
    assert row["claims"] == max_deaths + 1, "failing it is no claim"
    error = row["last_error"]
    assert (error["code"], error["retryable"], error["deaths"]) == ("poison_run", False, max_deaths)
    times = "once" if max_deaths == 1 else f"{max_deaths} times"
    assert f"killed its worker {times} while driven alone" in error["message"]
    assert "resume it to try again" in error["message"]
    # Fenced: the last driver's token writes nothing.
    with pytest.raises(LeaseLost):
        async with engine.begin() as conn:
            await checkpoint.write_checkpoint(
                conn, run_id=run_id, token=last.lease_token, write=write(1)
            )

    # The operator's choice: resume it. A fresh count, still driven alone.
    async with engine.begin() as conn:
        resumed = await run_store.resume(conn, DEFAULT_TENANT, run_id)
    assert resumed.status is RunStatus.QUEUED
    assert suspicion(database_url, run_id) == ("queued", True, 0)
    async with alive(settings, "busy", "fresh"):
        assert await claim(engine, "busy", idle=False, max_deaths=max_deaths) == []
        (again,) = await claim(engine, "fresh", idle=True, max_deaths=max_deaths)
    assert (again.run_id, again.suspect, again.deaths, again.poisoned) == (run_id, True, 0, False)
