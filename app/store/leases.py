"""Claim, renew, hand back: the lease statements the worker lives on (the fenced write
they guard is `app/store/checkpoint.py`).

Every time here is computed on Postgres's clock (`clock_timestamp()`), never a worker's,
so clock skew between replicas cannot let two workers hold one run.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.run import ACTIVE
from app.store.events import appending
from app.store.notify import NOTIFY
from app.store.tables import sql_list

# Only the oldest active run of a session is claimable, so a session runs one turn at a
# time, in send order.
_FIRST_OF_SESSION = f"""
       NOT EXISTS (SELECT 1 FROM runs earlier
                    WHERE earlier.tenant_id = r.tenant_id
                      AND earlier.session_id = r.session_id
                      AND earlier.seq < r.seq
                      AND earlier.status IN {sql_list(ACTIVE)})"""  # noqa: S608

# A run under suspicion of killing its workers: `running` with an expired lease or a free
# liveness lock (its worker died while driving it; the lock is only a hint, the fencing
# token still guards every write), or queued with `suspect` still set (no progress since).
# Evaluated only on the candidates below, and again on the row a claim locks (a claimer
# that took it meanwhile holds its lock: the re-check then fails, and the row is skipped).
_UNDER_SUSPICION = f"""
       ((r.status = 'running'
         AND (r.lease_expires_at < clock_timestamp()
              OR (r.lease_owner <> :owner
                  AND pg_try_advisory_xact_lock_shared(hashtextextended(r.lease_owner, 0)))))
        OR (r.status = 'queued' AND r.suspect AND r.not_before <= clock_timestamp()))
   AND {_FIRST_OF_SESSION}"""

# Composed of the constant fragments above, no input: one definition of "under suspicion"
# for the run an idle worker takes and for what keeps busy workers from claiming.
CLAIM_RUNS = text(f"""
WITH owners AS MATERIALIZED (
    -- The fleet, one row per worker, never one per running run: whose runs may be taken.
    -- Dead: its liveness lock is free (its connection is gone); taken at once. Late: no
    -- renewal within its TTL (a stopped process), so its runs' leases may have run out.
    -- A live worker on time holds nothing to take; the claimer's own runs come back only
    -- when it is late itself (a stall: its lease ran out while it still drove them).
    SELECT w.owner,
           w.owner <> :owner AND pg_try_advisory_xact_lock_shared(hashtextextended(w.owner, 0))
               AS dead,
           w.heartbeat_at < clock_timestamp() - make_interval(secs => w.lease_ttl_s) AS late
      FROM workers w
), candidates AS (
    -- Where runs under suspicion can be: the running runs of dead or late workers
    -- (`ix_runs_lease_owner`), and queued suspects (`ix_runs_suspect`).
    SELECT r.id
      FROM owners o JOIN runs r ON r.lease_owner = o.owner AND r.status = 'running'
     WHERE o.dead OR (o.late AND r.lease_expires_at < clock_timestamp())
    UNION ALL
    SELECT r.id FROM runs r WHERE r.status = 'queued' AND r.suspect
), suspect AS (
    -- A run under suspicion is driven alone, so that a death can be charged to it: only
    -- an idle worker (:idle) claims one, and then nothing beside it. Taken from a dead
    -- worker that was already driving it alone, it is charged that death; past
    -- :max_deaths it is failed instead of driven. Fewest deaths first: the likely
    -- innocent are cleared (and the fleet back to normal) before the likely poison
    -- kills more workers.
    -- SKIP LOCKED: claimers never wait on each other, and never take the same row.
    SELECT r.id,
           r.lease_owner AS previous_owner,
           r.status = 'running' AS died,
           r.status = 'running' AND r.suspect AND r.deaths + 1 >= :max_deaths AS poisoned,
           -- Why its worker lost it, for the takeover metric: `liveness` when the owner's
           -- lock is free (its connection is gone: a dead process), else `expired` (a late
           -- one). The lock is re-entrant in this transaction, so asking again is free.
           CASE WHEN r.status <> 'running' THEN NULL
                WHEN r.lease_owner <> :owner
                     AND pg_try_advisory_xact_lock_shared(hashtextextended(r.lease_owner, 0))
                THEN 'liveness' ELSE 'expired' END AS takeover
      FROM candidates c JOIN runs r ON r.id = c.id
     WHERE :idle AND {_UNDER_SUSPICION}
     ORDER BY r.deaths, r.not_before
     LIMIT 1
       FOR UPDATE OF r SKIP LOCKED
), waiting AS (
    -- What a busy worker looks for, without taking it: is any run under suspicion?
    SELECT 1 FROM candidates c JOIN runs r ON r.id = c.id
     WHERE NOT :idle AND {_UNDER_SUSPICION}
     LIMIT 1
), ready AS (
    -- Ordinary runs: queued and past any back-off. None while a suspect waits: busy
    -- workers then start nothing new, so the first to run out of runs takes it.
    SELECT r.id, NULL AS previous_owner, false AS died, false AS poisoned,
           NULL AS takeover
      FROM runs r
     WHERE r.status = 'queued' AND NOT r.suspect AND r.not_before <= clock_timestamp()
       AND NOT EXISTS (SELECT 1 FROM suspect)
       AND NOT EXISTS (SELECT 1 FROM waiting)
       AND {_FIRST_OF_SESSION}
     ORDER BY r.not_before
     LIMIT :limit
       FOR UPDATE OF r SKIP LOCKED
), chosen AS (
    SELECT * FROM suspect UNION ALL SELECT * FROM ready
), registered AS (
    -- Whoever owns a run has a row in `workers`, from the statement that made it owner
    -- on: a claim that takes anything inserts the claimer's (once; never rewrites it).
    INSERT INTO workers (owner, lease_ttl_s, heartbeat_at)
    SELECT :owner, :ttl, clock_timestamp() WHERE EXISTS (SELECT 1 FROM chosen)
    ON CONFLICT (owner) DO NOTHING
), claimed AS (
-- Every claim bumps the fencing token; each later write of the run must present it. A
-- poisoned run's failure is such a write: whoever drove it last is fenced out.
UPDATE runs r
   SET status = CASE WHEN c.poisoned THEN 'failed' ELSE 'running' END,
       lease_owner = CASE WHEN c.poisoned THEN NULL ELSE :owner END,
       lease_token = r.lease_token + 1,
       lease_expires_at = CASE WHEN c.poisoned THEN NULL
                               ELSE clock_timestamp() + make_interval(secs => :ttl) END,
       claims = r.claims + CASE WHEN c.poisoned THEN 0 ELSE 1 END,
       -- Its worker died driving it: under suspicion until it makes progress (the fenced
       -- checkpoint clears it). A death while it was driven alone is its own doing.
       suspect = r.suspect OR c.died,
       deaths = r.deaths + CASE WHEN c.died AND r.suspect THEN 1 ELSE 0 END,
       last_error = CASE WHEN c.poisoned THEN jsonb_build_object(
                        'code', 'poison_run',
                        'retryable', false,
                        'deaths', r.deaths + 1,
                        'message', format('the run killed its worker %s while driven alone '
                                          '(PERDURE_POISON_MAX_DEATHS is %s); resume it to '
                                          'try again',
                                          CASE WHEN r.deaths = 0 THEN 'once'
                                               ELSE (r.deaths + 1) || ' times' END,
                                          :max_deaths))
                         ELSE r.last_error END,
       finish_reason = CASE WHEN c.poisoned THEN 'error' ELSE r.finish_reason END,
       finished_at = CASE WHEN c.poisoned THEN clock_timestamp() ELSE r.finished_at END,
       updated_at = clock_timestamp()
  FROM chosen c
 WHERE r.id = c.id
RETURNING r.id, r.tenant_id, r.session_id, r.lease_token, r.suspect, r.deaths, r.claims,
          r.last_error, c.poisoned, c.died, c.previous_owner, c.takeover
), happened AS (
    -- The claim's events: a takeover names the worker it was taken from; then the run
    -- starts under its new token, or fails as poison.
    SELECT c.tenant_id, c.session_id, c.id AS run_id, e.type, e.data, e.ord
      FROM claimed c,
           LATERAL (VALUES
               (1, CASE WHEN c.died THEN 'run.taken_over' END,
                jsonb_build_object('previous_owner', c.previous_owner)),
               (2, CASE WHEN c.poisoned THEN 'run.failed' ELSE 'run.started' END,
                CASE WHEN c.poisoned
                     THEN jsonb_build_object('error_code', 'poison_run',
                                             'message', c.last_error ->> 'message')
                     ELSE jsonb_build_object('worker', CAST(:owner AS text),
                                             'lease_token', c.lease_token,
                                             'claims', c.claims) END)
           ) AS e(ord, type, data)
     WHERE e.type IS NOT NULL
), {appending("happened")}
SELECT id, session_id, lease_token, suspect, deaths, poisoned, takeover FROM claimed
""")  # noqa: S608

# Held by each worker, for its whole life, on its dedicated heartbeat connection. Postgres
# releases it the moment that connection drops, which tells claimers the worker is gone.
# Held exclusively; every probe of it (claims, housekeeping) is a shared try, so probes
# see only a live owner, never each other (with exclusive probes, a claim that probed a
# dead owner while housekeeping did took it for alive).
HOLD_LIVENESS = text("SELECT pg_advisory_lock(hashtextextended(:owner, 0))")


def _requeue(where: str, reason: str) -> str:
    """CTEs `requeued` (the runs matching `where`, queued again with their lease released,
    ready at once) and their `run.queued` events, saying why (`reason`)."""
    return f"""
requeued AS (
    UPDATE runs r
       SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL,
           not_before = clock_timestamp(), updated_at = clock_timestamp()
     WHERE {where}
    RETURNING r.id, r.tenant_id, r.session_id
), requeued_events AS (
    SELECT tenant_id, session_id, id AS run_id, 'run.queued' AS type,
           jsonb_build_object('reason', '{reason}') AS data, 1 AS ord
      FROM requeued
), {appending("requeued_events")}"""  # noqa: S608 (composed of constants only)


# After its liveness connection dropped, a worker stopped all its runs; before it takes
# the lock again it hands back whichever of them nobody took meanwhile. Their writers are
# fenced out: `status = 'running'` no longer holds for them.
RELEASE_OWNED = text(f"""
WITH {_requeue("r.lease_owner = :owner AND r.status = 'running'", "released")}
SELECT count(*) FROM requeued
""")  # noqa: S608

# A worker gives one run back (it cannot drive it now): queued, lease released, ready at
# once. Fenced like a save: a stale token, or a run no longer `running` (a save that
# seemed to fail may have committed), matches no row and changes nothing.
RELEASE_RUN = text(f"""
WITH {_requeue("r.id = :run_id AND r.lease_token = :token AND r.status = 'running'", "handed_back")}
SELECT count(*) AS released FROM requeued
""")  # noqa: S608

# Runs whose lease ran out more than a TTL ago although their worker is alive and renews
# on time (`workers.heartbeat_at`): it gave them up and could not hand them back (the
# database did not answer it then). Claims look only through the runs of dead or late
# workers, so housekeeping releases these. Only these: a late or dead worker's run is the
# claim's to take over, under suspicion (its worker may have died of it: poison), however
# long ago its lease ran out. A run that its worker drives is renewed with every
# heartbeat, so it is never a TTL past while that worker is on time. With them go the
# rows of dead workers that hold no run.
RELEASE_LAPSED = text(f"""
WITH {
    _requeue(
        "r.status = 'running' "
        "AND r.lease_expires_at < clock_timestamp() - make_interval(secs => :ttl) "
        "AND EXISTS (SELECT 1 FROM workers w WHERE w.owner = r.lease_owner "
        "AND w.heartbeat_at >= clock_timestamp() - make_interval(secs => w.lease_ttl_s))",
        "lapsed",
    )
}, forgotten AS (
    DELETE FROM workers w
     WHERE NOT EXISTS (SELECT 1 FROM runs r
                        WHERE r.lease_owner = w.owner AND r.status = 'running')
       AND pg_try_advisory_xact_lock_shared(hashtextextended(w.owner, 0))
    RETURNING w.owner
)
SELECT (SELECT count(*) FROM requeued) AS released,
       (SELECT count(*) FROM forgotten) AS forgotten
""")  # noqa: S608

# One statement renews every lease this worker holds. `lease_expires_at` is not indexed,
# so this stays a HOT update. A run missing from the answer was taken from us.
RENEW_LEASES = text("""
WITH beat AS (
    -- On time: claimers look through a worker's runs only once it is late.
    UPDATE workers SET heartbeat_at = clock_timestamp() WHERE owner = :owner
), mine AS (
    -- Locked in id order, the order a batch of checkpoints takes them in (the fence of
    -- `checkpoint.CHECKPOINTS`): two statements that lock the same runs in one order never
    -- deadlock.
    SELECT id FROM runs
     WHERE lease_owner = :owner AND status = 'running'
       -- Only runs this worker still drives: one it gave up must lapse for others to take.
       AND id = ANY(CAST(:run_ids AS uuid[]))
     ORDER BY id
       FOR NO KEY UPDATE
)
UPDATE runs r
   SET lease_expires_at = clock_timestamp() + make_interval(secs => :ttl)
  FROM mine
 WHERE r.id = mine.id AND r.lease_owner = :owner AND r.status = 'running'
RETURNING r.id, r.lease_token, r.cancel_requested
""")


@dataclass(frozen=True)
class Claim:
    run_id: UUID
    lease_token: int
    # Under suspicion of killing its workers: drive it alone until it makes progress.
    suspect: bool = False
    # Workers that died while driving it alone (since its last progress).
    deaths: int = 0
    # Past the limit of deaths: failed (`poison_run`) by the claim, not to be driven.
    poisoned: bool = False
    # Taken over from a worker that stopped driving it: "liveness" (its liveness lock
    # was free: the process is gone) or "expired" (its lease ran out: a late worker).
    takeover: str | None = None
    session_id: str = ""


@dataclass(frozen=True)
class Renewal:
    run_id: UUID
    lease_token: int
    cancel_requested: bool


async def claim_runs(
    conn: AsyncConnection,
    *,
    owner: str,
    limit: int,
    ttl_s: float,
    idle: bool,
    max_deaths: int,
) -> list[Claim]:
    """Claim runs for `owner`, each with a fresh fencing token.

    An `idle` owner (driving no run) takes one run under suspicion if one waits, and then
    nothing else; otherwise, and for a busy owner, up to `limit` ordinary runs, but none
    while a suspect waits. A suspect that already killed `max_deaths - 1` workers driven
    alone is failed instead (a claim with `poisoned` set: not the owner's to drive).
    """
    result = await conn.execute(
        CLAIM_RUNS,
        {
            "owner": owner,
            "limit": limit,
            "ttl": ttl_s,
            "idle": idle,
            "max_deaths": max_deaths,
        },
    )
    return [
        Claim(
            row.id,
            row.lease_token,
            row.suspect,
            row.deaths,
            row.poisoned,
            row.takeover,
            row.session_id,
        )
        for row in result
    ]


async def hold_liveness(conn: AsyncConnection, *, owner: str) -> None:
    """Take this worker's liveness lock on `conn` (a connection it keeps for its life),
    first handing back any run still leased to it from before a lost connection."""
    await conn.execute(RELEASE_OWNED, {"owner": owner})
    await conn.execute(HOLD_LIVENESS, {"owner": owner})


async def release_lapsed(conn: AsyncConnection, *, ttl_s: float) -> int:
    """Release runs a live worker let lapse (`RELEASE_LAPSED`), wake the workers if there
    were any, and forget dead workers that hold nothing. How many runs were released."""
    row = (await conn.execute(RELEASE_LAPSED, {"ttl": ttl_s})).one()
    if row.released:
        await conn.execute(NOTIFY)
    return int(row.released)


async def renew_leases(
    conn: AsyncConnection, *, owner: str, ttl_s: float, run_ids: list[UUID]
) -> list[Renewal]:
    """Extend the leases of the runs this worker still drives (and only those)."""
    result = await conn.execute(
        RENEW_LEASES, {"owner": owner, "ttl": ttl_s, "run_ids": [str(i) for i in run_ids]}
    )
    return [Renewal(row.id, row.lease_token, row.cancel_requested) for row in result]


async def hand_back(conn: AsyncConnection, *, run_id: UUID, token: int) -> bool:
    """Give a run back, fenced on its token, and wake the workers; False if it was not ours.

    Unlike a hand-back saved by the engine, it writes nothing of the run's progress (steps,
    usage, errors): after a failed save the worker cannot know what the database has.
    """
    released = (await conn.execute(RELEASE_RUN, {"run_id": run_id, "token": token})).scalar_one()
    if released != 1:
        return False
    await conn.execute(NOTIFY)
    return True
