"""Agents: define, read, and make new immutable versions."""

from __future__ import annotations

import os
from typing import Annotated

from fastapi import APIRouter, Query

from app import errors
from app.api.deps import EngineDep
from app.api.problems import responses
from app.api.schemas import (
    INT32,
    AgentCreate,
    AgentIdPath,
    AgentOut,
)
from app.domain.agent import AgentDefinition
from app.store import agents as store

router = APIRouter(prefix="/v1/agents", tags=["agents"])


def check_environment(definition: AgentDefinition) -> None:
    """A key variable this process lacks is known now: say so at definition time.

    (Workers read the variable again at call time; one that lacks it fails the run with
    a last_error naming the variable.)
    """
    key_env = getattr(definition.model, "api_key_env", None)
    if key_env and key_env not in os.environ:
        raise errors.InvalidDefinition(
            f"model.api_key_env: environment variable {key_env} is not set",
            errors=[
                {
                    "loc": ["body", "model", "api_key_env"],
                    "type": "env_missing",
                    "msg": f"environment variable {key_env} is not set",
                }
            ],
        )


@router.post("", status_code=201, response_model=AgentOut, responses=responses(errors.AgentExists))
async def create_agent(body: AgentCreate, engine: EngineDep) -> AgentOut:
    """Define an agent (version 1)."""
    definition = AgentDefinition.model_validate(body.model_dump(exclude={"id"}))
    check_environment(definition)
    async with engine.begin() as conn:
        agent = await store.create_agent(conn, body.id, definition)
    return AgentOut.of(agent)


@router.get("/{agent_id}", response_model=AgentOut, responses=responses(errors.NotFound))
async def get_agent(
    agent_id: AgentIdPath,
    engine: EngineDep,
    version: Annotated[int | None, Query(ge=1, le=INT32)] = None,
) -> AgentOut:
    """The latest version of an agent, or the one asked for."""
    async with engine.connect() as conn:
        return AgentOut.of(await store.get_agent(conn, agent_id, version))


@router.put("/{agent_id}", response_model=AgentOut, responses=responses(errors.NotFound))
async def put_agent(agent_id: AgentIdPath, body: AgentDefinition, engine: EngineDep) -> AgentOut:
    """Make a new version. Sessions already started keep the version they started with."""
    check_environment(body)
    async with engine.begin() as conn:
        return AgentOut.of(await store.add_version(conn, agent_id, body))
