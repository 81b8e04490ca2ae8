"""Loading a claimed run into the engine's RunState.

Workers are tenant-blind: they name a run by its id, and take its tenant from the row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.agent import AgentDefinition
from app.domain.budget import Budget
from app.domain.plan import is_node_turn
from app.domain.run import ChildRun, Message, RunState, RunStatus, ToolCall, Usage
from app.store.children import tree_usage
from app.store.tables import agent_versions, runs, sessions
from app.store.transcript import last_checkpoint_seq, load_entries
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


async def load_run(conn: AsyncConnection, run_id: UUID) -> LoadedRun | None:
    """Everything a worker needs to continue a run; None if the run is gone."""
    row = (
        await conn.execute(
            select(
                runs.c.id,
                runs.c.tenant_id,
                runs.c.session_id,
                runs.c.input,
                runs.c.input_seq,
                runs.c.steps,
                runs.c.max_steps,
                runs.c.usage,
                runs.c.attempts,
                runs.c.cancel_requested,
                runs.c.trace_context,
                runs.c.budget,
                runs.c.parent_run_id,
                runs.c.parent_session_id,
                runs.c.parent_call_id,
                runs.c.depth,
                sessions.c.budget.label("session_budget"),
                agent_versions.c.definition,
            )
            .join(
                sessions,
                (sessions.c.tenant_id == runs.c.tenant_id) & (sessions.c.id == runs.c.session_id),
            )
            .join(
                agent_versions,
                (agent_versions.c.tenant_id == sessions.c.tenant_id)
                & (agent_versions.c.agent_id == sessions.c.agent_id)
                & (agent_versions.c.version == runs.c.agent_version),
            )
            .where(runs.c.id == run_id)
        )
    ).first()
    if row is None:
        return None
    agent = AgentDefinition.model_validate(row.definition)
    session_budget = agent.session_budget.merged(session_override(row.session_budget))
    # The session's other runs only matter under a session budget: no query otherwise.
    spent_before = (
        await session_usage(conn, row.tenant_id, row.session_id, except_run=row.id)
        if session_budget.limits()
        else Usage()
    )
    entries = await load_entries(conn, row.tenant_id, row.session_id)
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
        next_checkpoint_seq=await last_checkpoint_seq(conn, row.tenant_id, row.session_id) + 1,
        position=position,
        budget=Budget.model_validate(row.budget or {}),
        session_budget=session_budget,
        session_usage=spent_before,
        parent_session_id=row.parent_session_id,
        depth=row.depth,
    )
    await _attach_children(conn, state)
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


async def _attach_children(conn: AsyncConnection, state: RunState) -> None:
    """The child runs of the unsettled calls (agent tools' calls), on them: the last
    turn's, and a planner's node calls of earlier turns still running."""
    await attach_children(conn, state.tenant_id, state.session_id, state.calls.values())


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
        pending[r.parent_call_id].child = ChildRun(
            r.id,
            r.session_id,
            RunStatus(r.status),
            r.output,
            r.finish_reason,
            r.last_error,
            r.usage,
        )


def session_override(stored: dict[str, Any] | None) -> Budget | None:
    """`sessions.budget` as the limits it sets over its agent's session budget."""
    return Budget.model_validate(stored) if stored else None
