"""Loading a claimed run into the engine's RunState.

Workers are tenant-blind: they name a run by its id, and take its tenant from the row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any
from uuid import UUID

import psycopg
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.agent import AgentDefinition
from app.domain.budget import Budget
from app.domain.plan import is_node_turn
from app.domain.run import (
    UNSETTLED,
    ChildRun,
    Entry,
    Message,
    RunState,
    RunStatus,
    ToolCall,
    Usage,
)
from app.store.checkpoint import compact, driver_of, message_from_row
from app.store.children import tree_usage
from app.store.tables import runs, sql_list
from app.store.transcript import call_from_row
from app.store.usage import session_usage


@dataclass(frozen=True)
class LoadedRun:
    state: RunState
    agent: AgentDefinition
    cancel_requested: bool
    # The W3C trace context of the request that queued the run, if it was traced.
    trace_context: dict[str, str] | None = None
    parent_run_id: UUID | None = None
    # The parent's call this child run answers (None: a top-level run).
    parent_call_id: str | None = None


# Everything a worker needs to continue runs, for many runs in one statement and one
# round trip: a load was six (BEGIN, the run, its messages, its calls, its last
# checkpoint, ROLLBACK), and under a thousand slow-model runs each of them waited its turn
# in a busy event loop while it held one of the pool's connections. The transcript comes
# aggregated, one row per run; the children are those of the session's unsettled calls
# (agent tools' calls still waiting on their child run). Run on psycopg's connection, as
# the checkpoint is.
LOAD_RUNS = compact(f"""
SELECT r.id, r.tenant_id, r.session_id, r.input, r.input_seq, r.steps, r.max_steps,
       r.usage, r.attempts, r.cancel_requested, r.trace_context, r.budget,
       r.parent_run_id, r.parent_session_id, r.parent_call_id, r.depth,
       s.budget AS session_budget, v.definition,
       (SELECT coalesce(max(c.seq), 0) FROM checkpoints c
         WHERE c.tenant_id = r.tenant_id AND c.session_id = r.session_id
       ) AS last_checkpoint_seq,
       (SELECT json_agg(json_build_array(m.seq, m.role, m.content) ORDER BY m.seq)
          FROM messages m
         WHERE m.tenant_id = r.tenant_id AND m.session_id = r.session_id
       ) AS messages,
       (SELECT json_agg(json_build_object(
                 'tool_call_id', t.tool_call_id, 'seq', t.seq, 'message_seq', t.message_seq,
                 'idx', t.idx, 'name', t.name, 'arguments', t.arguments, 'status', t.status,
                 'result', t.result, 'approval_id', t.approval_id,
                 'provider_call_id', t.provider_call_id, 'approval_status', a.status,
                 'approval_decision', a.decision, 'client_output', o.output,
                 'client_is_error', o.is_error) ORDER BY t.seq)
          FROM tool_calls t
          LEFT JOIN approvals a ON a.id = t.approval_id
          LEFT JOIN tool_outputs o
            ON o.tenant_id = t.tenant_id AND o.session_id = t.session_id
           AND o.tool_call_id = t.tool_call_id
         WHERE t.tenant_id = r.tenant_id AND t.session_id = r.session_id
       ) AS calls,
       (SELECT json_agg(json_build_array(k.parent_call_id, k.id, k.session_id, k.status,
                 k.output, k.finish_reason, k.last_error, k.usage))
          FROM runs k
         WHERE k.tenant_id = r.tenant_id AND k.parent_session_id = r.session_id
           AND k.parent_call_id IN (
               SELECT t.tool_call_id FROM tool_calls t
                WHERE t.tenant_id = r.tenant_id AND t.session_id = r.session_id
                  AND t.status IN {sql_list(UNSETTLED)})
       ) AS children
  FROM runs r
  JOIN sessions s ON s.tenant_id = r.tenant_id AND s.id = r.session_id
  JOIN agent_versions v
    ON v.tenant_id = s.tenant_id AND v.agent_id = s.agent_id AND v.version = r.agent_version
 WHERE r.id = ANY(%(run_ids)s)
""")  # noqa: S608 (constants only)


async def load_run(conn: AsyncConnection, run_id: UUID) -> LoadedRun | None:
    """Everything a worker needs to continue a run; None if the run is gone."""
    loaded = (await load_runs(conn, [run_id])).get(run_id)
    if isinstance(loaded, Exception):
        raise loaded
    return loaded


async def load_runs(
    conn: AsyncConnection, run_ids: Sequence[UUID]
) -> dict[UUID, LoadedRun | Exception]:
    """Each run that still exists, loaded, or what loading it alone met: one run's
    trouble is not the others'.

    A statement the database refuses for all of them (one run's rows too big to
    aggregate, a timeout) is made again run by run, as a batch of saves is, so only that
    run fails. A connection that broke raises: it fails every load of the batch, and the
    caller gives those runs up. The same goes for a database error in a budgeted run's
    follow-up queries, which share the connection: it is the connection's trouble, not
    the run's.
    """
    driver = await driver_of(conn)
    try:
        rows = await _load_rows(driver, run_ids)
    except psycopg.Error:
        if driver.broken or driver.closed or len(run_ids) == 1:
            raise
        return await _load_one_by_one(conn, driver, run_ids)
    out: dict[UUID, LoadedRun | Exception] = {}
    for row in rows:
        try:
            out[row.id] = await _loaded(conn, row)
        except (psycopg.Error, SQLAlchemyError):
            raise
        except Exception as error:  # a definition that no longer parses, say
            out[row.id] = error
    return out


async def _load_rows(
    driver: psycopg.AsyncConnection[Any], run_ids: Sequence[UUID]
) -> list[SimpleNamespace]:
    cursor = await driver.execute(LOAD_RUNS, {"run_ids": list(run_ids)})
    columns = [c.name for c in cursor.description or ()]
    return [
        SimpleNamespace(**dict(zip(columns, values, strict=True)))
        for values in await cursor.fetchall()
    ]


async def _load_one_by_one(
    conn: AsyncConnection, driver: psycopg.AsyncConnection[Any], run_ids: Sequence[UUID]
) -> dict[UUID, LoadedRun | Exception]:
    out: dict[UUID, LoadedRun | Exception] = {}
    for run_id in run_ids:
        try:
            out.update(await load_runs(conn, [run_id]))
        except psycopg.Error as error:
            if driver.broken or driver.closed:
                raise
            out[run_id] = error
    return out


async def _loaded(conn: AsyncConnection, row: SimpleNamespace) -> LoadedRun:
    agent = AgentDefinition.model_validate(row.definition)
    session_budget = agent.session_budget.merged(session_override(row.session_budget))
    # The session's other runs only matter under a session budget: no query otherwise.
    spent_before = (
        await session_usage(conn, row.tenant_id, row.session_id, except_run=row.id)
        if session_budget.limits()
        else Usage()
    )
    entries: list[Entry] = [message_from_row(*m) for m in row.messages or ()]
    entries.extend(call_from_row(SimpleNamespace(**c)) for c in row.calls or ())
    entries.sort(key=lambda e: e.seq)
    next_seq = entries[-1].seq + 1 if entries else 1
    # A planner's node turns are not model calls: they do not move the script on.
    position = sum(
        1
        for e in entries
        if isinstance(e, Message) and e.role == "assistant" and not is_node_turn(e)
    )
    state = RunState(
        run_id=row.id,
        tenant_id=row.tenant_id,
        session_id=row.session_id,
        input=row.input,
        input_appended=row.input_seq is not None,
        steps=row.steps,
        max_steps=row.max_steps,
        usage=Usage.from_dict(row.usage),
        attempts=row.attempts,
        entries=entries,
        next_seq=next_seq,
        next_checkpoint_seq=row.last_checkpoint_seq + 1,
        position=position,
        budget=Budget.model_validate(row.budget or {}),
        session_budget=session_budget,
        session_usage=spent_before,
        parent_session_id=row.parent_session_id,
        depth=row.depth,
    )
    # The statement found them for these calls alone (the unsettled ones).
    pending = {call.id: call for call in state.calls.values() if not call.settled}
    for call_id, run_id, *child in row.children or ():
        pending[call_id].child = _child(UUID(run_id), *child)
    if state.budget.limits():
        # Its children's spend counts toward its budget (no query without one).
        tree = (await tree_usage(conn, row.tenant_id, [row.id])).get(row.id, state.usage)
        state.children_usage = tree.minus(state.usage)
    return LoadedRun(
        state,
        agent,
        row.cancel_requested,
        trace_context=row.trace_context,
        parent_run_id=row.parent_run_id,
        parent_call_id=row.parent_call_id,
    )


async def attach_children(
    conn: AsyncConnection, tenant_id: str, session_id: str, calls: Iterable[ToolCall]
) -> None:
    """Each unsettled call's child run (if it started one), on the call."""
    pending = {call.id: call for call in calls if not call.settled}
    if not pending:
        return
    rows = await conn.execute(
        select(
            runs.c.id,
            runs.c.session_id,
            runs.c.status,
            runs.c.output,
            runs.c.finish_reason,
            runs.c.last_error,
            runs.c.parent_call_id,
            runs.c.usage,
        ).where(
            runs.c.tenant_id == tenant_id,
            runs.c.parent_session_id == session_id,
            runs.c.parent_call_id.in_(list(pending)),
        )
    )
    for r in rows:
        pending[r.parent_call_id].child = _child(
            r.id, r.session_id, r.status, r.output, r.finish_reason, r.last_error, r.usage
        )


def _child(
    run_id: UUID,
    session_id: str,
    status: str,
    output: str | None,
    finish_reason: str | None,
    last_error: dict[str, Any] | None,
    usage: dict[str, Any] | None,
) -> ChildRun:
    """A child run as its parent's call holds it (the columns `LOAD_RUNS` and
    `attach_children` read, in their order)."""
    return ChildRun(run_id, session_id, RunStatus(status), output, finish_reason, last_error, usage)


def session_override(stored: dict[str, Any] | None) -> Budget | None:
    """`sessions.budget` as the limits it sets over its agent's session budget."""
    return Budget.model_validate(stored) if stored else None
