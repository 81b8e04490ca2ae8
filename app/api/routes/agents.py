"""Agents: define, read, and make new immutable versions."""

from __future__ import annotations

from fastapi import APIRouter, Query

from app import errors
from app.api.deps import EngineDep
from app.api.problems import responses
from app.api.schemas import AgentCreate, AgentOut
from app.domain.agent import AgentDefinition
from app.store import agents as store

router = APIRouter(prefix="/v1/agents", tags=["agents"])


@router.post("", status_code=201, response_model=AgentOut, responses=responses(errors.AgentExists))
async def create_agent(body: AgentCreate, engine: EngineDep) -> AgentOut:
    """Define an agent (version 1)."""
    definition = AgentDefinition.model_validate(body.model_dump(exclude={"id"}))
    async with engine.begin() as conn:
        agent = await store.create_agent(conn, body.id, definition)
    return AgentOut.of(agent)


@router.get("/{agent_id}", response_model=AgentOut, responses=responses(errors.NotFound))
async def get_agent(
    agent_id: str, engine: EngineDep, version: int | None = Query(default=None, ge=1)
) -> AgentOut:
    """The latest version of an agent, or the one asked for."""
    async with engine.connect() as conn:
        return AgentOut.of(await store.get_agent(conn, agent_id, version))


@router.put("/{agent_id}", response_model=AgentOut, responses=responses(errors.NotFound))
async def put_agent(agent_id: str, body: AgentDefinition, engine: EngineDep) -> AgentOut:
    """Make a new version. Sessions already started keep the version they started with."""
    async with engine.begin() as conn:
        return AgentOut.of(await store.add_version(conn, agent_id, body))
