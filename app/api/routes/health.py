"""Liveness and readiness for load balancers and orchestrators."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel

from app import errors
from app.api.deps import EngineDep
from app.api.problems import responses
from app.db import current_revision, head_revision

router = APIRouter(tags=["ops"])


class Health(BaseModel):
    status: Literal["ok"]


class Ready(BaseModel):
    status: Literal["ready"]
    revision: str


@router.get("/healthz", response_model=Health)
async def check_health() -> Health:
    """The process is up. Says nothing about the database."""
    return Health(status="ok")


@router.get("/readyz", response_model=Ready, responses=responses(public=True))
async def check_ready(engine: EngineDep) -> Ready:
    """The database answers and its schema is at the newest migration."""
    async with engine.connect() as conn:
        revision = await conn.run_sync(current_revision)
    head = head_revision()
    if revision != head:
        raise errors.DatabaseUnavailable(
            f"the database is at revision {revision}, not {head}: run `perdure migrate`"
        )
    return Ready(status="ready", revision=revision)
