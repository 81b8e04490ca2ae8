"""What runs spent, summed: per session (its budget's usage) and per agent.

Each run's `usage` is what its latest save recorded, so a sum over runs is a sum of
saved usage, the same figures budgets are checked against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from app.domain.budget import Usage
from app.store.tables import runs, sessions

INTEGER_COUNTERS = ("input_tokens", "output_tokens", "model_calls", "tool_calls")
FLOAT_COUNTERS = ("cost_usd", "wall_time_s")


def _sums() -> list[ColumnElement[Any]]:
    return [
        *(
            func.coalesce(func.sum(runs.c.usage[k].as_integer()), 0).label(k)
            for k in INTEGER_COUNTERS
        ),
        *(
            func.coalesce(func.sum(runs.c.usage[k].as_float()), 0.0).label(k)
            for k in FLOAT_COUNTERS
        ),
    ]


async def session_usage(
    conn: AsyncConnection, tenant_id: str, session_id: str, *, except_run: UUID | None = None
) -> Usage:
    """What the session's runs spent (but `except_run`'s)."""
    query = select(*_sums()).where(runs.c.tenant_id == tenant_id, runs.c.session_id == session_id)
    if except_run is not None:
        query = query.where(runs.c.id != except_run)
    return Usage.from_dict((await conn.execute(query)).one()._mapping)


@dataclass(frozen=True)
class AgentUsage:
    sessions: int
    runs: int
    usage: Usage


async def agent_usage(conn: AsyncConnection, tenant_id: str, agent_id: str) -> AgentUsage:
    """What the runs of all the agent's sessions spent (the caller checks the agent exists)."""
    row = (
        await conn.execute(
            select(
                func.count(func.distinct(runs.c.session_id)).label("sessions"),
                func.count().label("runs"),
                *_sums(),
            )
            .select_from(runs)
            .join(
                sessions,
                (sessions.c.tenant_id == runs.c.tenant_id) & (sessions.c.id == runs.c.session_id),
            )
            .where(sessions.c.tenant_id == tenant_id, sessions.c.agent_id == agent_id)
        )
    ).one()
    return AgentUsage(row.sessions, row.runs, Usage.from_dict(row._mapping))
