"""Claim, renew, and the fenced checkpoint write: the statements the worker lives on.

Every time here is computed on Postgres's clock (`clock_timestamp()`), never a worker's,
so clock skew between replicas cannot let two workers hold one run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import psycopg
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.run import CheckpointWrite, RunStatus
from app.errors import LeaseLost
from app.store.notify import NOTIFY

# Only the oldest active run of a session is claimable, so a session runs one turn at a
# time, in send order.
_FIRST_OF_SESSION = """
       NOT EXISTS (SELECT 1 FROM runs earlier
                    WHERE earlier.tenant_id = r.tenant_id
                      AND earlier.session_id = r.session_id
                      AND earlier.seq < r.seq
                      AND earlier.status IN ('queued', 'running', 'awaiting_approval',
                                             'awaiting_tool_results'))"""

# A run under suspicion of killing its workers: `running` with an expired lease or a free
# liveness lock (its worker died while driving it; the lock is only a hint, the fencing
# token still guards every write), or queued with `suspect` still set (no progress since).
_UNDER_SUSPICION = f"""
       ((r.status = 'running'
         AND (r.lease_expires_at < clock_timestamp()
              OR (r.lease_owner <> :owner
                  AND pg_try_advisory_xact_lock(hashtextextended(r.lease_owner, 0)))))
        OR (r.status = 'queued' AND r.suspect AND r.not_before <= clock_timestamp()))
   AND {_FIRST_OF_SESSION}"""

# Composed of the constant fragments above, no input: one definition of "under suspicion"
# for the run an idle worker takes and for what keeps busy workers from claiming.
CLAIM_RUNS = text(f"""
WITH suspect AS (
    -- A run under suspicion is driven alone, so that a death can be charged to it: only
    -- an idle worker (:idle) claims one, and then nothing beside it. Taken from a dead
    -- worker that was already driving it alone, it is charged that death; past
    -- :max_deaths it is failed instead of driven. Fewest deaths first: the likely
    -- innocent are cleared (and the fleet back to normal) before the likely poison
    -- kills more workers.
    -- SKIP LOCKED: claimers never wait on each other, and never take the same row.
    SELECT r.id,
           r.status = 'running' AS died,
           r.status = 'running' AND r.suspect AND r.deaths + 1 >= :max_deaths AS poisoned
      FROM runs r
     WHERE :idle AND {_UNDER_SUSPICION}
     ORDER BY r.deaths, r.not_before
     LIMIT 1
       FOR UPDATE OF r SKIP LOCKED
), waiting AS (
    -- What a busy worker looks for, without taking it: is any run under suspicion?
    SELECT 1 FROM runs r WHERE NOT :idle AND {_UNDER_SUSPICION} LIMIT 1
), ready AS (
    -- Ordinary runs: queued and past any back-off. None while a suspect waits: busy
    -- workers then start nothing new, so the first to run out of runs takes it.
    SELECT r.id, false AS died, false AS poisoned
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
)
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
RETURNING r.id, r.lease_token, r.suspect, r.deaths, c.poisoned
""")  # noqa: S608

# Held by each worker, for its whole life, on its dedicated heartbeat connection. Postgres
# releases it the moment that connection drops, which tells claimers the worker is gone.
HOLD_LIVENESS = text("SELECT pg_advisory_lock(hashtextextended(:owner, 0))")

# After its liveness connection dropped, a worker stopped all its runs; before it takes
# the lock again it hands back whichever of them nobody took meanwhile. Their writers are
# fenced out: `status = 'running'` no longer holds for them.
RELEASE_OWNED = text("""
UPDATE runs
   SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL,
       not_before = clock_timestamp(), updated_at = clock_timestamp()
 WHERE lease_owner = :owner AND status = 'running'
""")

# A worker gives one run back (it cannot drive it now): queued, lease released, ready at
# once. Fenced like a save: a stale token, or a run no longer `running` (a save that
# seemed to fail may have committed), matches no row and changes nothing.
RELEASE_RUN = text("""
UPDATE runs
   SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL,
       not_before = clock_timestamp(), updated_at = clock_timestamp()
 WHERE id = :run_id AND lease_token = :token AND status = 'running'
""")

# One statement renews every lease this worker holds. `lease_expires_at` is not indexed,
# so this stays a HOT update. A run missing from the answer was taken from us.
RENEW_LEASES = text("""
WITH mine AS (
    -- Locked in id order, the order a batch of checkpoints takes them in
    -- (`write_checkpoints`): two statements that lock the same runs in one order never
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

CHECKPOINT_SQL = """
WITH fence AS (
    -- The fence: only the holder of the current token may write, and the row lock this
    -- UPDATE takes serialises it against a takeover's token bump. Zero rows means the
    -- run is no longer ours, and every insert below then inserts nothing.
    UPDATE runs
       SET status = :status,
           steps = :steps,
           usage = CAST(:usage AS jsonb),
           attempts = :attempts,
           last_error = CAST(:last_error AS jsonb),
           input_seq = COALESCE(input_seq, CAST(:input_seq AS bigint)),
           output = COALESCE(CAST(:output AS text), output),
           finish_reason = CAST(:finish_reason AS text),
           -- Untouched while the run keeps its lease: not_before is indexed (the claim's
           -- partial index), and leaving it alone keeps these updates HOT.
           not_before = CASE WHEN :keep_lease THEN not_before
                             ELSE clock_timestamp() + make_interval(secs => :delay_s) END,
           -- Progress clears a run under suspicion (a no-op, and still HOT, for others).
           suspect = suspect AND NOT :progress,
           deaths = CASE WHEN :progress THEN 0 ELSE deaths END,
           lease_owner = CASE WHEN :keep_lease THEN lease_owner END,
           lease_expires_at = CASE WHEN :keep_lease THEN lease_expires_at END,
           finished_at = CASE WHEN :terminal THEN clock_timestamp() END,
           updated_at = clock_timestamp()
     WHERE id = :run_id AND lease_token = :token AND status = 'running'
    RETURNING tenant_id, session_id
), new_messages AS (
    INSERT INTO messages (tenant_id, session_id, seq, run_id, role, content, checkpoint_seq)
    SELECT f.tenant_id, f.session_id, m.seq, :run_id, m.role, m.content, :checkpoint_seq
      FROM fence f,
           jsonb_to_recordset(CAST(:messages AS jsonb)) AS m(seq bigint, role text, content jsonb)
), new_calls AS (
    INSERT INTO tool_calls (tenant_id, session_id, tool_call_id, seq, run_id, message_seq,
                            idx, name, arguments, status, checkpoint_seq, provider_call_id)
    SELECT f.tenant_id, f.session_id, c.id, c.seq, :run_id, c.message_seq, c.idx, c.name,
           c.arguments, 'pending', :checkpoint_seq, c.provider_call_id
      FROM fence f,
           jsonb_to_recordset(CAST(:calls AS jsonb))
               AS c(id text, seq bigint, message_seq bigint, idx int, name text,
                    arguments jsonb, provider_call_id text)
), settled AS (
    -- A result is written once: a call that already settled is never overwritten. A
    -- `running` settlement is an approved call's intent record, written before it runs.
    UPDATE tool_calls t
       SET status = s.status,
           result = s.result,
           result_checkpoint_seq = CASE WHEN s.status = 'running' THEN NULL
                                        ELSE :checkpoint_seq END
      FROM fence f,
           jsonb_to_recordset(CAST(:settlements AS jsonb))
               AS s(tool_call_id text, status text, result jsonb)
     WHERE t.tenant_id = f.tenant_id
       AND t.session_id = f.session_id
       AND t.tool_call_id = s.tool_call_id
       AND t.status IN ('pending', 'running')
    RETURNING t.tool_call_id
), new_approvals AS (
    INSERT INTO approvals (id, tenant_id, session_id, run_id, tool_call_id, status, request,
                           expires_at, created_at)
    SELECT a.id, f.tenant_id, f.session_id, :run_id, a.tool_call_id, 'pending',
           jsonb_build_object('tool', a.tool, 'arguments', a.arguments),
           clock_timestamp() + make_interval(secs => a.timeout_s),
           clock_timestamp()
      FROM fence f,
           jsonb_to_recordset(CAST(:approvals AS jsonb))
               AS a(id uuid, tool_call_id text, tool text, arguments jsonb, timeout_s float8)
    RETURNING id, tool_call_id
), gated AS (
    UPDATE tool_calls t
       SET approval_id = n.id
      FROM new_approvals n, fence f
     WHERE t.tenant_id = f.tenant_id AND t.session_id = f.session_id
       AND t.tool_call_id = n.tool_call_id
), saved AS (
    INSERT INTO checkpoints (tenant_id, session_id, seq, run_id, step, status, usage,
                             message_count, saved_at, fingerprint)
    SELECT f.tenant_id, f.session_id, :checkpoint_seq, :run_id, :steps, :status,
           CAST(:usage AS jsonb), :message_count, clock_timestamp(), CAST(:fingerprint AS text)
      FROM fence f
     WHERE :save
)
SELECT (SELECT count(*) FROM fence) AS fenced, (SELECT count(*) FROM settled) AS settled
"""
# The same statement in psycopg's placeholder style, for the driver connection.
CHECKPOINT_PSYCOPG = re.sub(r"(?<![:\w]):(\w+)", r"%(\1)s", CHECKPOINT_SQL)


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
    return [Claim(row.id, row.lease_token, row.suspect, row.deaths, row.poisoned) for row in result]


async def hold_liveness(conn: AsyncConnection, *, owner: str) -> None:
    """Take this worker's liveness lock on `conn` (a connection it keeps for its life),
    first handing back any run still leased to it from before a lost connection."""
    await conn.execute(RELEASE_OWNED, {"owner": owner})
    await conn.execute(HOLD_LIVENESS, {"owner": owner})


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
    result = await conn.execute(RELEASE_RUN, {"run_id": run_id, "token": token})
    if result.rowcount != 1:
        return False
    await conn.execute(NOTIFY)
    return True


_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _json(value: Any) -> str:
    return _encode(value)


@dataclass(frozen=True)
class FencedWrite:
    """One run's checkpoint, fenced on the lease token its writer holds."""

    run_id: UUID
    token: int
    write: CheckpointWrite


async def write_checkpoint(
    conn: AsyncConnection, *, run_id: UUID, token: int, write: CheckpointWrite
) -> None:
    """Commit one checkpoint for a run, fenced on its lease token.

    It is one statement, so it is atomic on its own: callers may run it in autocommit
    (the worker does: no BEGIN/COMMIT round trips on the hot path).

    Raises:
        LeaseLost: the token is stale (another worker claimed the run) or the run is gone.
    """
    driver = await _driver(conn)
    cursor = await driver.execute(CHECKPOINT_PSYCOPG, _checkpoint_params(run_id, token, write))
    lost = _lost(FencedWrite(run_id, token, write), await cursor.fetchone())
    if lost is not None:
        raise lost


async def write_checkpoints(
    conn: AsyncConnection, writes: Sequence[FencedWrite]
) -> list[Exception | None]:
    """Commit several runs' checkpoints in one transaction and one round trip, each
    fenced on its own token. `conn` must be in autocommit (the transaction is the
    driver's); a single write is just `write_checkpoint`.

    Returns, for each write, None (saved) or what it alone met: `LeaseLost`, or the
    database's error when the batch failed on it. After such an error the transaction was
    rolled back, and the writes are made again one by one, so one bad write fails only its
    own run. A broken connection raises: it says nothing of which writes committed.

    The writes take their runs' row locks in run id order, the order every other
    statement that locks several runs uses (`RENEW_LEASES`), so none of them can wait on
    each other in a cycle.
    """
    driver = await _driver(conn)
    if len(writes) > 1:
        try:
            return await _write_together(driver, writes)
        except psycopg.Error:
            if driver.broken or driver.closed:
                raise
    outcomes: list[Exception | None] = []
    for w in writes:
        try:
            await write_checkpoint(conn, run_id=w.run_id, token=w.token, write=w.write)
            outcomes.append(None)
        except LeaseLost as lost:
            outcomes.append(lost)
        except psycopg.Error as error:
            if driver.broken or driver.closed:
                raise
            outcomes.append(error)
    return outcomes


async def _write_together(
    driver: psycopg.AsyncConnection[Any], writes: Sequence[FencedWrite]
) -> list[Exception | None]:
    order = sorted(range(len(writes)), key=lambda i: writes[i].run_id)
    cursors: dict[int, psycopg.AsyncCursor[Any]] = {}
    async with driver.pipeline(), driver.transaction():
        for i in order:
            w = writes[i]
            params = _checkpoint_params(w.run_id, w.token, w.write)
            cursors[i] = await driver.execute(CHECKPOINT_PSYCOPG, params)
    return [_lost(w, await cursors[i].fetchone()) for i, w in enumerate(writes)]


async def _driver(conn: AsyncConnection) -> psycopg.AsyncConnection[Any]:
    # The checkpoint runs on the driver connection (SQLAlchemy's per-execute work was a
    # fifth of the worker's CPU).
    raw = await conn.get_raw_connection()
    driver: psycopg.AsyncConnection[Any] = raw.driver_connection  # type: ignore[assignment]
    return driver


def _lost(fenced: FencedWrite, row: tuple[int, int] | None) -> LeaseLost | None:
    """What the checkpoint statement's answer means for its writer."""
    written, settled = row or (0, 0)
    if written != 1:
        return LeaseLost("the run's lease is held by another worker", run_id=str(fenced.run_id))
    if settled != len(fenced.write.settlements):
        return LeaseLost("a tool result was already recorded", run_id=str(fenced.run_id))
    return None


def _checkpoint_params(run_id: UUID, token: int, write: CheckpointWrite) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "token": token,
        "status": write.status.value,
        "steps": write.steps,
        "usage": _json(write.usage.as_dict()),
        "attempts": write.attempts,
        "last_error": _json(write.last_error) if write.last_error is not None else None,
        "input_seq": write.input_seq,
        "output": write.output,
        "finish_reason": write.finish_reason,
        "delay_s": float(write.delay_s),
        "keep_lease": write.status is RunStatus.RUNNING,
        "progress": write.progress,
        "terminal": write.status in (RunStatus.FINISHED, RunStatus.FAILED, RunStatus.CANCELLED),
        "checkpoint_seq": write.checkpoint_seq,
        "message_count": write.message_count,
        "save": write.save,
        "fingerprint": write.fingerprint,
        "messages": _json(
            [
                {
                    "seq": m.seq,
                    "role": m.role,
                    "content": stored_content(m.role, m.content, m.tool_call_ids, m.provider_data),
                }
                for m in write.messages
            ]
        ),
        "calls": _json(
            [
                {
                    "id": c.id,
                    "seq": c.seq,
                    "message_seq": c.message_seq,
                    "idx": c.idx,
                    "name": c.name,
                    "arguments": c.arguments,
                    "provider_call_id": c.provider_call_id,
                }
                for c in write.calls
            ]
        ),
        "settlements": _json(
            [
                {"tool_call_id": s.tool_call_id, "status": s.status.value, "result": s.result}
                for s in write.settlements
            ]
        ),
        "approvals": _json(
            [
                {
                    "id": a.id,
                    "tool_call_id": a.tool_call_id,
                    "tool": a.tool,
                    "arguments": a.arguments,
                    "timeout_s": a.timeout_s,
                }
                for a in write.approvals
            ]
        ),
    }


def stored_content(
    role: str, content: Any, tool_call_ids: list[str], provider_data: dict[str, Any] | None = None
) -> Any:
    """How a message's content is stored: an assistant turn keeps its call ids with it,
    and its provider-specific parts when it has any (`provider_data`; absent otherwise,
    as in rows written before it existed)."""
    if role == "assistant":
        stored: dict[str, Any] = {"text": content, "tool_call_ids": tool_call_ids}
        if provider_data:
            stored["provider_data"] = provider_data
        return stored
    return content
