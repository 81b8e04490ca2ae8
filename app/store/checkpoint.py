"""The fenced checkpoint: how a worker saves a run, and how a transcript entry is stored.

One statement saves a batch of runs, each fenced on its own token (docs/design.md, "The
fenced checkpoint"): its first part locks each run only where the writer's lease token is
still the run's, and every update and insert after it selects from that, so a stale token
writes nothing at all of its run, not even the save's events (`store/events.py`). A
single save is a batch of one. One statement, not one per save: Postgres's work to start
a statement of this size was a third of a save's cost.

The statement runs on psycopg's connection (SQLAlchemy's per-execute work was a fifth of
the worker's CPU), with Postgres's own placeholders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import psycopg
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.run import TERMINAL, UNSETTLED, CheckpointWrite, Message, RunStatus
from app.errors import LeaseLost, ResultAlreadyRecorded
from app.store.events import appending_counted, encode, of_checkpoint
from app.store.tables import sql_list


def compact(sql: str) -> str:
    """A statement as it is sent: without its comments and runs of blanks. psycopg
    caches how it parses a query only up to 4,096 bytes (`MAX_CACHED_STATEMENT_LENGTH`);
    a commented statement is often longer, and parsing the checkpoint afresh on every save
    was 7 % of a worker's CPU (it now goes through a raw cursor, unparsed; `LOAD_RUNS`
    still has psycopg's placeholders). (The statement holds no `--`, blank, comma,
    parenthesis or operator inside a literal.)"""
    bare = re.sub(r"\s+", " ", re.sub(r"--[^\n]*", "", sql))
    return re.sub(r" ?(->>|->|\|\||[(),=+]) ?", r"\1", bare).strip()


CHECKPOINTS = compact(f"""
WITH fence AS MATERIALIZED (
    -- The fence: only the holder of the current token may write. One row per write (each
    -- run at most once): the token it is fenced on, the run's new fields, and what it
    -- appends, as JSON arrays read below. The row lock serialises the write against a
    -- takeover's token bump, and is taken in run id order, the order of every statement
    -- that locks several runs (`leases.RENEW_LEASES`), so no two wait on each other in a
    -- cycle. A write missing here is no longer its writer's, and writes nothing at all.
    SELECT r.tenant_id, r.session_id, w.*
      FROM jsonb_to_recordset($1::jsonb)
               AS w(id uuid, token bigint, status text, steps int, usage jsonb, attempts int,
                    last_error jsonb, input_seq bigint, output text, finish_reason text,
                    budget_exceeded jsonb, delay_s float8, keep_lease bool, progress bool,
                    terminal bool, checkpoint_seq bigint, message_count int, save bool,
                    fingerprint text, messages jsonb, calls jsonb, settlements jsonb,
                    approvals jsonb, events jsonb, event_count bigint)
      JOIN runs r ON r.id = w.id
     -- The batch's runs are found by primary key, and nothing else: the planner takes
     -- the writes for 100 rows, and would rather read every running run (a fleet's
     -- thousands) to join them. So the ids come as an array, and "the token holds while
     -- the run is running" is a CASE, not `AND status = 'running'`: that condition the
     -- planner answers from the partial index of all running runs.
     WHERE r.id = ANY (ARRAY(SELECT (e ->> 'id')::uuid FROM jsonb_array_elements($1) e))
       AND CASE WHEN r.status = 'running' THEN r.lease_token END = w.token
     ORDER BY r.id
       FOR NO KEY UPDATE OF r
), advanced AS (
    UPDATE runs r
       SET status = w.status,
           steps = w.steps,
           usage = w.usage,
           attempts = w.attempts,
           last_error = w.last_error,
           input_seq = COALESCE(r.input_seq, w.input_seq),
           output = COALESCE(w.output, r.output),
           finish_reason = w.finish_reason,
           budget_exceeded = w.budget_exceeded,
           -- Untouched while the run keeps its lease: not_before is indexed (the claim's
           -- partial index), and leaving it alone keeps these updates HOT.
           not_before = CASE WHEN w.keep_lease THEN r.not_before
                             ELSE clock_timestamp() + make_interval(secs => w.delay_s) END,
           -- Progress clears a run under suspicion (a no-op, and still HOT, for others).
           suspect = r.suspect AND NOT w.progress,
           deaths = CASE WHEN w.progress THEN 0 ELSE r.deaths END,
           lease_owner = CASE WHEN w.keep_lease THEN r.lease_owner END,
           lease_expires_at = CASE WHEN w.keep_lease THEN r.lease_expires_at END,
           finished_at = CASE WHEN w.terminal THEN clock_timestamp() END,
           updated_at = clock_timestamp()
      FROM fence w
     WHERE r.id = w.id
    RETURNING r.id, r.not_before
), new_messages AS (
    INSERT INTO messages (tenant_id, session_id, seq, run_id, role, content, checkpoint_seq)
    SELECT f.tenant_id, f.session_id, m.seq, f.id, m.role, m.content, f.checkpoint_seq
      FROM fence f, jsonb_to_recordset(f.messages) AS m(seq bigint, role text, content jsonb)
), new_calls AS (
    INSERT INTO tool_calls (tenant_id, session_id, tool_call_id, seq, run_id, message_seq,
                            idx, name, arguments, status, checkpoint_seq, provider_call_id)
    SELECT f.tenant_id, f.session_id, c.id, c.seq, f.id, c.message_seq, c.idx, c.name,
           c.arguments, 'pending', f.checkpoint_seq, c.provider_call_id
      FROM fence f,
           jsonb_to_recordset(f.calls)
               AS c(id text, seq bigint, message_seq bigint, idx int, name text,
                    arguments jsonb, provider_call_id text)
), results AS MATERIALIZED (
    -- Each result with its whole key, so that its call is found by the primary key, not
    -- among all of its session's calls.
    SELECT f.id AS run_id, f.tenant_id, f.session_id, f.checkpoint_seq, s.*
      FROM fence f,
           jsonb_to_recordset(f.settlements) AS s(tool_call_id text, status text, result jsonb)
), settled AS (
    -- A result is written once: a call that already settled is never overwritten. A
    -- `running` settlement is an approved call's intent record, written before it runs.
    UPDATE tool_calls t
       SET status = s.status,
           result = s.result,
           result_checkpoint_seq = CASE WHEN s.status = 'running' THEN NULL
                                        ELSE s.checkpoint_seq END
      FROM results s
     WHERE t.tenant_id = s.tenant_id
       AND t.session_id = s.session_id
       AND t.tool_call_id = s.tool_call_id
       AND t.status IN {sql_list(UNSETTLED)}
    RETURNING s.run_id
), new_approvals AS (
    INSERT INTO approvals (id, tenant_id, session_id, run_id, tool_call_id, status, request,
                           expires_at, created_at)
    SELECT a.id, f.tenant_id, f.session_id, f.id, a.tool_call_id, 'pending',
           jsonb_build_object('tool', a.tool, 'arguments', a.arguments),
           clock_timestamp() + make_interval(secs => a.timeout_s),
           clock_timestamp()
      FROM fence f,
           jsonb_to_recordset(f.approvals)
               AS a(id uuid, tool_call_id text, tool text, arguments jsonb, timeout_s float8)
    RETURNING id, tenant_id, session_id, tool_call_id
), gated AS (
    UPDATE tool_calls t
       SET approval_id = n.id
      FROM new_approvals n
     WHERE t.tenant_id = n.tenant_id AND t.session_id = n.session_id
       AND t.tool_call_id = n.tool_call_id
), saved AS (
    INSERT INTO checkpoints (tenant_id, session_id, seq, run_id, step, status, usage,
                             message_count, saved_at, fingerprint)
    SELECT f.tenant_id, f.session_id, f.checkpoint_seq, f.id, f.steps, f.status, f.usage,
           f.message_count, clock_timestamp(), f.fingerprint
      FROM fence f
     WHERE f.save
), evs AS (
    -- What each save changes, as events; a retry's next attempt is the time set above.
    SELECT f.tenant_id, f.session_id, f.id AS run_id,
           e.value ->> 'type' AS type,
           CASE WHEN e.value ->> 'type' = 'run.retrying'
                THEN e.value -> 'data' || jsonb_build_object('next_attempt_at', a.not_before)
                ELSE e.value -> 'data' END AS data,
           e.ordinality AS ord, f.event_count AS n
      FROM fence f JOIN advanced a USING (id),
           jsonb_array_elements(f.events) WITH ORDINALITY AS e
), {appending_counted("evs")}
-- The writes fenced in, each with the number of its results written.
SELECT f.id, (SELECT count(*) FROM settled s WHERE s.run_id = f.id) FROM fence f
""")  # noqa: S608 (composed of constants only)


_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _json(value: Any) -> str:
    return _encode(value)


@dataclass(frozen=True)
class FencedWrite:
    """One run's checkpoint, fenced on the lease token its writer holds.

    Its row of the statement's parameter (a JSON object, as text) is made when it is: a
    write may wait in a queue, and the engine changes the objects it holds (a call
    settles) once its save has returned.
    """

    run_id: UUID
    token: int
    write: CheckpointWrite
    row: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "row", _checkpoint_row(self.run_id, self.token, self.write))


async def write_checkpoint(
    conn: AsyncConnection, *, run_id: UUID, token: int, write: CheckpointWrite
) -> None:
    """Commit one checkpoint for a run, fenced on its lease token.

    It is one statement, so it is atomic on its own: callers may run it in autocommit
    (the worker does: no BEGIN/COMMIT round trips on the hot path).

    Raises:
        LeaseLost: the token is stale (another worker claimed the run) or the run is gone.
    """
    fenced = FencedWrite(run_id, token, write)
    (outcome,) = await _write_together(await driver_of(conn), [fenced])
    if outcome is not None:
        raise outcome


async def write_checkpoints(
    conn: AsyncConnection, writes: Sequence[FencedWrite]
) -> list[Exception | None]:
    """Commit several runs' checkpoints in one statement (so one transaction and one round
    trip), each fenced on its own token. `conn` must be in autocommit: the statement is
    atomic on its own, and a failed batch is made again on the same connection (in a
    transaction, the failure would have aborted it).

    Returns, for each write, None (saved) or what it alone met: `LeaseLost`, or the
    database's error when the batch failed on it. After such an error nothing of the batch
    was written, and the writes are made again one by one, so one bad write fails only
    its own run. So are the writes of a batch that holds one run twice (the statement
    writes each run once; a run's loop saves one checkpoint at a time, so it does not).
    A broken connection raises: it says nothing of whether the batch committed.
    """
    driver = await driver_of(conn)
    if len(writes) > 1 and len({w.run_id for w in writes}) == len(writes):
        try:
            return await _write_together(driver, writes)
        except psycopg.Error:
            if driver.broken or driver.closed:
                raise
    outcomes: list[Exception | None] = []
    for w in writes:
        try:
            outcomes.extend(await _write_together(driver, [w]))
        except psycopg.Error as error:
            if driver.broken or driver.closed:
                raise
            outcomes.append(error)
    return outcomes


async def _write_together(
    driver: psycopg.AsyncConnection[Any], writes: Sequence[FencedWrite]
) -> list[Exception | None]:
    """One statement for `writes` (each run at most once): each one's outcome."""
    # A raw cursor: the statement is sent as it is written (`$1`), not parsed on every
    # execution for placeholders of psycopg's style.
    async with psycopg.AsyncRawCursor(driver) as cursor:
        await cursor.execute(CHECKPOINTS, (parameter(writes),))
        settled = dict(await cursor.fetchall())
    return [_lost(w, settled.get(w.run_id)) for w in writes]


def parameter(writes: Sequence[FencedWrite]) -> str:
    """The statement's one parameter for `writes`: a JSON array of their rows."""
    return "[" + ",".join(w.row for w in writes) + "]"


async def driver_of(conn: AsyncConnection) -> psycopg.AsyncConnection[Any]:
    # The checkpoint runs on the driver connection (SQLAlchemy's per-execute work was a
    # fifth of the worker's CPU).
    raw = await conn.get_raw_connection()
    driver: psycopg.AsyncConnection[Any] = raw.driver_connection  # type: ignore[assignment]
    return driver


def _lost(fenced: FencedWrite, settled: int | None) -> LeaseLost | None:
    """What the checkpoint statement's answer for one write (None: it was fenced out; else
    how many of its results were written) means for its writer."""
    if settled is None:
        return LeaseLost("the run's lease is held by another worker", run_id=str(fenced.run_id))
    if settled != len(fenced.write.settlements):
        return ResultAlreadyRecorded(
            "a tool result was already recorded", run_id=str(fenced.run_id)
        )
    return None


def _checkpoint_row(run_id: UUID, token: int, write: CheckpointWrite) -> str:
    """The write as a row of the statement's parameter: a JSON object."""
    row = {
        "id": str(run_id),
        "token": token,
        "status": write.status.value,
        "steps": write.steps,
        "usage": write.usage.as_dict(),
        "attempts": write.attempts,
        "last_error": write.last_error,
        "input_seq": write.input_seq,
        "output": write.output,
        "finish_reason": write.finish_reason,
        "budget_exceeded": (
            write.budget_exceeded.as_dict() if write.budget_exceeded is not None else None
        ),
        "delay_s": float(write.delay_s),
        "keep_lease": write.status is RunStatus.RUNNING,
        "progress": write.progress,
        "terminal": write.status in TERMINAL,
        "checkpoint_seq": write.checkpoint_seq,
        "message_count": write.message_count,
        "save": write.save,
        "fingerprint": write.fingerprint,
        "messages": [
            {
                "seq": m.seq,
                "role": m.role,
                "content": stored_content(m.role, m.content, m.tool_call_ids, m.provider_data),
            }
            for m in write.messages
        ],
        "calls": [
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
        ],
        "settlements": [
            {"tool_call_id": s.tool_call_id, "status": s.status.value, "result": s.result}
            for s in write.settlements
        ],
        "approvals": [
            {
                "id": a.id,
                "tool_call_id": a.tool_call_id,
                "tool": a.tool,
                "arguments": a.arguments,
                "timeout_s": a.timeout_s,
            }
            for a in write.approvals
        ],
    }
    happened = of_checkpoint(write)
    # The events are encoded as the other event statements encode them (`events.encode`,
    # which turns what JSON lacks into text); the rest must be JSON as it is.
    return f'{_json(row)[:-1]},"event_count":{len(happened)},"events":{encode(happened)}}}'


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


def message_from_row(seq: int, role: str, content: Any) -> Message:
    """A stored message, the inverse of `stored_content`: an assistant turn is
    `{"text", "tool_call_ids", "provider_data"?}`."""
    if role == "assistant" and isinstance(content, dict) and "tool_call_ids" in content:
        return Message(
            seq,
            role,
            content.get("text"),
            list(content["tool_call_ids"]),
            dict(content.get("provider_data") or {}),
        )
    return Message(seq, role, content)
