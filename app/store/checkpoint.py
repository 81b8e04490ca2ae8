"""The fenced checkpoint: how a worker saves a run, and how a transcript entry is stored.

One statement per save (docs/design.md, "The fenced checkpoint"): its first part updates
the run only where the caller's lease token is still the run's, and every insert and
update after it selects from that, so a stale token writes nothing at all, not even the
save's events (`store/events.py`). A batch of
saves (`write_checkpoints`) is several such statements in one transaction.

The statement runs on psycopg's connection (SQLAlchemy's per-execute work was a fifth of
the worker's CPU), so it is written in psycopg's placeholder style.
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
from app.store.events import appending_one_session, encode, of_checkpoint
from app.store.tables import sql_list


def compact(sql: str) -> str:
    """A statement as it is sent: without its comments and runs of blanks. psycopg
    caches how it parses a query only up to 4,096 bytes (`MAX_CACHED_STATEMENT_LENGTH`);
    the commented checkpoint is longer, and parsing it afresh on every save was 7 % of a
    worker's CPU. (The statement holds no `--`, blank, comma, parenthesis or operator
    inside a literal.)"""
    bare = re.sub(r"\s+", " ", re.sub(r"--[^\n]*", "", sql))
    return re.sub(r" ?(->>|->|\|\||[(),=+]) ?", r"\1", bare).strip()


CHECKPOINT = compact(f"""
WITH fence AS (
    -- The fence: only the holder of the current token may write, and the row lock this
    -- UPDATE takes serialises it against a takeover's token bump. Zero rows means the
    -- run is no longer ours, and every insert below then inserts nothing.
    UPDATE runs
       SET status = %(status)s,
           steps = %(steps)s,
           usage = %(usage)s::jsonb,
           attempts = %(attempts)s,
           last_error = %(last_error)s::jsonb,
           input_seq = COALESCE(input_seq, %(input_seq)s::bigint),
           output = COALESCE(%(output)s::text, output),
           finish_reason = %(finish_reason)s::text,
           budget_exceeded = %(budget_exceeded)s::jsonb,
           -- Untouched while the run keeps its lease: not_before is indexed (the claim's
           -- partial index), and leaving it alone keeps these updates HOT.
           not_before = CASE WHEN %(keep_lease)s THEN not_before
                             ELSE clock_timestamp() + make_interval(secs => %(delay_s)s) END,
           -- Progress clears a run under suspicion (a no-op, and still HOT, for others).
           suspect = suspect AND NOT %(progress)s,
           deaths = CASE WHEN %(progress)s THEN 0 ELSE deaths END,
           lease_owner = CASE WHEN %(keep_lease)s THEN lease_owner END,
           lease_expires_at = CASE WHEN %(keep_lease)s THEN lease_expires_at END,
           finished_at = CASE WHEN %(terminal)s THEN clock_timestamp() END,
           updated_at = clock_timestamp()
     WHERE id = %(run_id)s AND lease_token = %(token)s AND status = 'running'
    RETURNING id, tenant_id, session_id, not_before
), new_messages AS (
    INSERT INTO messages (tenant_id, session_id, seq, run_id, role, content, checkpoint_seq)
    SELECT f.tenant_id, f.session_id, m.seq, %(run_id)s, m.role, m.content, %(checkpoint_seq)s
      FROM fence f,
           jsonb_to_recordset(%(messages)s::jsonb)
               AS m(seq bigint, role text, content jsonb)
), new_calls AS (
    INSERT INTO tool_calls (tenant_id, session_id, tool_call_id, seq, run_id, message_seq,
                            idx, name, arguments, status, checkpoint_seq, provider_call_id)
    SELECT f.tenant_id, f.session_id, c.id, c.seq, %(run_id)s, c.message_seq, c.idx, c.name,
           c.arguments, 'pending', %(checkpoint_seq)s, c.provider_call_id
      FROM fence f,
           jsonb_to_recordset(%(calls)s::jsonb)
               AS c(id text, seq bigint, message_seq bigint, idx int, name text,
                    arguments jsonb, provider_call_id text)
), settled AS (
    -- A result is written once: a call that already settled is never overwritten. A
    -- `running` settlement is an approved call's intent record, written before it runs.
    UPDATE tool_calls t
       SET status = s.status,
           result = s.result,
           result_checkpoint_seq = CASE WHEN s.status = 'running' THEN NULL
                                        ELSE %(checkpoint_seq)s END
      FROM fence f,
           jsonb_to_recordset(%(settlements)s::jsonb)
               AS s(tool_call_id text, status text, result jsonb)
     WHERE t.tenant_id = f.tenant_id
       AND t.session_id = f.session_id
       AND t.tool_call_id = s.tool_call_id
       AND t.status IN {sql_list(UNSETTLED)}
    RETURNING t.tool_call_id
), new_approvals AS (
    INSERT INTO approvals (id, tenant_id, session_id, run_id, tool_call_id, status, request,
                           expires_at, created_at)
    SELECT a.id, f.tenant_id, f.session_id, %(run_id)s, a.tool_call_id, 'pending',
           jsonb_build_object('tool', a.tool, 'arguments', a.arguments),
           clock_timestamp() + make_interval(secs => a.timeout_s),
           clock_timestamp()
      FROM fence f,
           jsonb_to_recordset(%(approvals)s::jsonb)
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
    SELECT f.tenant_id, f.session_id, %(checkpoint_seq)s, %(run_id)s, %(steps)s, %(status)s,
           %(usage)s::jsonb, %(message_count)s, clock_timestamp(),
           %(fingerprint)s::text
      FROM fence f
     WHERE %(save)s
), evs AS (
    -- What the save changes, as events; a retry's next attempt is the time set above.
    SELECT f.tenant_id, f.session_id, f.id AS run_id,
           e.value ->> 'type' AS type,
           CASE WHEN e.value ->> 'type' = 'run.retrying'
                THEN e.value -> 'data' || jsonb_build_object('next_attempt_at', f.not_before)
                ELSE e.value -> 'data' END AS data,
           e.ordinality AS ord
      FROM fence f, jsonb_array_elements(%(events)s::jsonb) WITH ORDINALITY AS e
), {appending_one_session("evs", "%(event_count)s::bigint")}
SELECT (SELECT count(*) FROM fence) AS fenced, (SELECT count(*) FROM settled) AS settled
""")  # noqa: S608 (composed of constants only)


_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _json(value: Any) -> str:
    return _encode(value)


@dataclass(frozen=True)
class FencedWrite:
    """One run's checkpoint, fenced on the lease token its writer holds.

    Its statement's parameters are made when it is: a write may wait in a queue, and the
    engine changes the objects it holds (a call settles) once its save has returned.
    """

    run_id: UUID
    token: int
    write: CheckpointWrite
    params: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", _checkpoint_params(self.run_id, self.token, self.write))


async def write_checkpoint(
    conn: AsyncConnection, *, run_id: UUID, token: int, write: CheckpointWrite
) -> None:
    """Commit one checkpoint for a run, fenced on its lease token.

    It is one statement, so it is atomic on its own: callers may run it in autocommit
    (the worker does: no BEGIN/COMMIT round trips on the hot path).

    Raises:
        LeaseLost: the token is stale (another worker claimed the run) or the run is gone.
    """
    await _write_one(conn, FencedWrite(run_id, token, write))


async def _write_one(conn: AsyncConnection, fenced: FencedWrite) -> None:
    driver = await driver_of(conn)
    cursor = await driver.execute(CHECKPOINT, fenced.params)
    lost = _lost(fenced, await cursor.fetchone())
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
    statement that locks several runs uses (`leases.RENEW_LEASES`), so none of them can
    wait on each other in a cycle.
    """
    driver = await driver_of(conn)
    if len(writes) > 1:
        try:
            return await _write_together(driver, writes)
        except psycopg.Error:
            if driver.broken or driver.closed:
                raise
    outcomes: list[Exception | None] = []
    for w in writes:
        try:
            await _write_one(conn, w)
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
            cursors[i] = await driver.execute(CHECKPOINT, writes[i].params)
    return [_lost(w, await cursors[i].fetchone()) for i, w in enumerate(writes)]


async def driver_of(conn: AsyncConnection) -> psycopg.AsyncConnection[Any]:
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
        return ResultAlreadyRecorded(
            "a tool result was already recorded", run_id=str(fenced.run_id)
        )
    return None


def _checkpoint_params(run_id: UUID, token: int, write: CheckpointWrite) -> dict[str, Any]:
    happened = of_checkpoint(write)
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
        "budget_exceeded": (
            _json(write.budget_exceeded.as_dict()) if write.budget_exceeded is not None else None
        ),
        "delay_s": float(write.delay_s),
        "keep_lease": write.status is RunStatus.RUNNING,
        "progress": write.progress,
        "terminal": write.status in TERMINAL,
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
        "events": encode(happened),
        "event_count": len(happened),
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
