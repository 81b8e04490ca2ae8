"""Agents: define, read, and make new immutable versions."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app import errors
from app.api.auth import AgentsRead, AgentsWrite
from app.api.deps import EngineDep, SettingsDep
from app.api.problems import responses
from app.api.schemas import (
    INT32,
    AgentCreate,
    AgentIdPath,
    AgentOut,
)
from app.capabilities import Capabilities
from app.domain.agent import AgentDefinition
from app.settings import Settings
from app.store import agents as store

router = APIRouter(prefix="/v1/agents", tags=["agents"])


def check_grants(definition: AgentDefinition, settings: Settings, tenant_id: str) -> None:
    """Refuse now what the operator does not grant (app/capabilities.py): python modules,
    secret variables for this tenant and the URL each would go to (a refused one, one
    bound elsewhere and an unset one get the same message: no oracle), egress, the
    scripted model. Workers check again at call time.
    """
    problems = Capabilities.of(settings).definition_problems(definition, tenant_id)
    if problems:
        first = problems[0]
        where = ".".join(first["loc"][1:])
        raise errors.InvalidDefinition(f"{where}: {first['msg']}", errors=problems)


@router.post("", status_code=201, response_model=AgentOut, responses=responses(errors.AgentExists))
async def create_agent(
    body: AgentCreate, engine: EngineDep, settings: SettingsDep, principal: AgentsWrite
) -> AgentOut:
    """Define an agent (version 1)."""
    definition = AgentDefinition.model_validate(body.model_dump(exclude={"id"}))
    check_grants(definition, settings, principal.tenant_id)
    async with engine.begin() as conn:
        agent = await store.create_agent(conn, principal.tenant_id, body.id, definition)
    return AgentOut.of(agent)


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
async def put_agent(
    agent_id: AgentIdPath,
    body: AgentDefinition,
    engine: EngineDep,
    settings: SettingsDep,
    principal: AgentsWrite,
) -> AgentOut:
    """Make a new version. Sessions already started keep the version they started with."""
    check_grants(body, settings, principal.tenant_id)
    async with engine.begin() as conn:
        return AgentOut.of(await store.add_version(conn, principal.tenant_id, agent_id, body))
