"""Agents and their immutable versions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, tuple_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.domain.agent import AgentDefinition, AgentExecutor, fingerprint
from app.store.cursors import decode_text_cursor
from app.store.listing import TimeRange, page
from app.store.tables import agent_versions, agents


@dataclass(frozen=True)
class AgentVersion:
    id: str
    version: int
    definition: AgentDefinition
    fingerprint: dict[str, Any]
    created_at: datetime


async def create_agent(
    conn: AsyncConnection, tenant_id: str, agent_id: str, definition: AgentDefinition
) -> AgentVersion:
    """Create an agent at version 1.

    Raises:
        AgentExists: the id is taken.
    """
    created = await conn.execute(
        pg_insert(agents)
        .values(tenant_id=tenant_id, id=agent_id, latest_version=1)
        .on_conflict_do_nothing(index_elements=[agents.c.tenant_id, agents.c.id])
        .returning(agents.c.id)
    )
    if created.first() is None:
        raise errors.AgentExists(
            f"agent {agent_id!r} exists; PUT makes a new version", agent_id=agent_id
        )
    return await _insert_version(conn, tenant_id, agent_id, 1, definition)


async def add_version(
    conn: AsyncConnection, tenant_id: str, agent_id: str, definition: AgentDefinition
) -> AgentVersion:
    """Make a new immutable version; sessions already started keep theirs."""
    row = (
        await conn.execute(
            update(agents)
            .where(agents.c.tenant_id == tenant_id, agents.c.id == agent_id)
            .values(latest_version=agents.c.latest_version + 1, updated_at=func.now())
            .returning(agents.c.latest_version)
        )
    ).first()
    if row is None:
        raise errors.AgentNotFound(f"no agent {agent_id!r}", agent_id=agent_id)
    return await _insert_version(conn, tenant_id, agent_id, row.latest_version, definition)


async def _insert_version(
    conn: AsyncConnection, tenant_id: str, agent_id: str, version: int, definition: AgentDefinition
) -> AgentVersion:
    parts = fingerprint(definition)
    row = (
        await conn.execute(
            insert(agent_versions)
            .values(
                tenant_id=tenant_id,
                agent_id=agent_id,
                version=version,
                definition=definition.model_dump(mode="json"),
                fingerprint=parts,
            )
            .returning(agent_versions.c.created_at)
        )
    ).one()
    return AgentVersion(agent_id, version, definition, parts, row.created_at)


async def get_agent(
    conn: AsyncConnection, tenant_id: str, agent_id: str, version: int | None = None
) -> AgentVersion:
    """The given version of an agent, or its latest.

    Raises:
        AgentNotFound: no such agent or version.
    """
    query = select(agent_versions).where(
        agent_versions.c.tenant_id == tenant_id, agent_versions.c.agent_id == agent_id
    )
    if version is None:
        query = query.join(
            agents,
            (agents.c.tenant_id == agent_versions.c.tenant_id)
            & (agents.c.id == agent_versions.c.agent_id),
        ).where(agent_versions.c.version == agents.c.latest_version)
    else:
        query = query.where(agent_versions.c.version == version)
    row = (await conn.execute(query)).first()
    if row is None:
        what = (
            f"no agent {agent_id!r}"
            if version is None
            else (f"agent {agent_id!r} has no version {version}")
        )
        raise errors.AgentNotFound(what, agent_id=agent_id, version=version)
    return AgentVersion(
        row.agent_id,
        row.version,
        AgentDefinition.model_validate(row.definition),
        row.fingerprint,
        row.created_at,
    )


@dataclass(frozen=True)
class AgentSummary:
    """An agent as the list shows it: its id, newest version and times."""

    id: str
    latest_version: int
    created_at: datetime
    updated_at: datetime


async def list_agents(
    conn: AsyncConnection,
    tenant_id: str,
    *,
    created: TimeRange,
    updated: TimeRange,
    cursor: str | None,
    limit: int,
) -> tuple[list[AgentSummary], str | None]:
    """The tenant's agents newest first, keyset-paginated on (created_at, id)."""
    query = (
        select(agents)
        .where(agents.c.tenant_id == tenant_id)
        .where(*created.clauses(agents.c.created_at))
        .where(*updated.clauses(agents.c.updated_at))
    )
    if cursor is not None:
        created_at, last_id = decode_text_cursor(cursor)
        query = query.where(tuple_(agents.c.created_at, agents.c.id) < tuple_(created_at, last_id))
    query = query.order_by(agents.c.created_at.desc(), agents.c.id.desc()).limit(limit + 1)
    records = [
        AgentSummary(r.id, r.latest_version, r.created_at, r.updated_at)
        for r in await conn.execute(query)
    ]
    return page(records, limit, lambda r: (r.created_at, r.id))


async def check_sub_agents(
    conn: AsyncConnection, tenant_id: str, agent_id: str, definition: AgentDefinition
) -> None:
    """Refuse a definition whose agent tools name an agent (or a pinned version) the
    tenant does not have; an agent may name itself (it exists once this commits).

    Raises:
        InvalidDefinition: with each such tool's `executor` where it is.
    """
    problems: list[errors.FieldError] = []
    # A planner's capabilities are agent tools too: each node starts one's agent.
    named = [
        (("tools", str(index), "executor", "agent_id"), tool.executor)
        for index, tool in enumerate(definition.tools)
    ] + [
        (("capabilities", str(index), "agent_id"), capability.as_tool().executor)
        for index, capability in enumerate(definition.capabilities)
    ]
    for where, executor in named:
        if not isinstance(executor, AgentExecutor) or executor.agent_id == agent_id:
            continue
        try:
            await get_agent(conn, tenant_id, executor.agent_id, executor.agent_version)
        except errors.AgentNotFound:
            pinned = f" version {executor.agent_version}" if executor.agent_version else ""
            problems.append(
                errors.FieldError(
                    where,
                    f"no agent {executor.agent_id!r}{pinned} to call as a sub-agent",
                    "agent_not_found",
                )
            )
    if problems:
        raise errors.InvalidDefinition(problems[0].message, problems=problems)
