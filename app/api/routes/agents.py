"""Agents: define, read, and make new immutable versions."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app import errors
from app.api.auth import AgentsRead, AgentsWrite
from app.api.deps import CapabilitiesDep, EngineDep
from app.api.filters import CreatedRange, UpdatedRange
from app.api.problems import responses
from app.api.schemas import (
    INT32,
    MAX_PAGE,
    AgentCreate,
    AgentIdPath,
    AgentOut,
    AgentPage,
    AgentSummaryOut,
    AgentUsageOut,
)
from app.domain.agent import AgentDefinition
from app.store import agents as store
from app.store import usage

router = APIRouter(prefix="/v1/agents", tags=["agents"])


@router.post("", status_code=201, response_model=AgentOut, responses=responses(errors.AgentExists))
async def create_agent(
    body: AgentCreate,
    engine: EngineDep,
    capabilities: CapabilitiesDep,
    principal: AgentsWrite,
) -> AgentOut:
    """Define an agent (version 1)."""
    definition = AgentDefinition.model_validate(body.model_dump(exclude={"id"}))
    capabilities.check_definition(definition, principal.tenant_id)
    async with engine.begin() as conn:
        await store.check_sub_agents(conn, principal.tenant_id, body.id, definition)
        agent = await store.create_agent(conn, principal.tenant_id, body.id, definition)
    return AgentOut.of(agent)


@router.get("", response_model=AgentPage, responses=responses(errors.InvalidCursor))
async def list_agents(
    engine: EngineDep,
    principal: AgentsRead,
    created: CreatedRange,
    updated: UpdatedRange,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
) -> AgentPage:
    """The tenant's agents newest first (`updated_*`: when their latest version was made)."""
    async with engine.connect() as conn:
        records, next_cursor = await store.list_agents(
            conn, principal.tenant_id, created=created, updated=updated, cursor=cursor, limit=limit
        )
    return AgentPage(items=[AgentSummaryOut.of(r) for r in records], next_cursor=next_cursor)


@router.get("/{agent_id}", response_model=AgentOut, responses=responses(errors.NotFound))
async def get_agent(
    agent_id: AgentIdPath,
    engine: EngineDep,
    principal: AgentsRead,
    version: Annotated[int | None, Query(ge=1, le=INT32)] = None,
) -> AgentOut:
    """The latest version of an agent, or the one asked for."""
    async with engine.connect() as conn:
        return AgentOut.of(await store.get_agent(conn, principal.tenant_id, agent_id, version))


@router.put("/{agent_id}", response_model=AgentOut, responses=responses(errors.NotFound))
async def update_agent(
    agent_id: AgentIdPath,
    body: AgentDefinition,
    engine: EngineDep,
    capabilities: CapabilitiesDep,
    principal: AgentsWrite,
) -> AgentOut:
    """Make a new version. Sessions already started keep the version they started with."""
    capabilities.check_definition(body, principal.tenant_id)
    async with engine.begin() as conn:
        await store.check_sub_agents(conn, principal.tenant_id, agent_id, body)
        return AgentOut.of(await store.add_version(conn, principal.tenant_id, agent_id, body))


@router.get("/{agent_id}/usage", response_model=AgentUsageOut, responses=responses(errors.NotFound))
async def get_agent_usage(
    agent_id: AgentIdPath, engine: EngineDep, principal: AgentsRead
) -> AgentUsageOut:
    """What all runs of the agent's sessions spent, under any of its versions."""
    async with engine.connect() as conn:
        await store.get_agent(conn, principal.tenant_id, agent_id)
        return AgentUsageOut.of(
            agent_id, await usage.agent_usage(conn, principal.tenant_id, agent_id)
        )
