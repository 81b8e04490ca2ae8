"""The tenant's audit log: key creations and revocations, approval decisions.

Read-only: no API call writes or deletes an audit event; each is written in the same
transaction as the act it records. Needs the `admin` scope.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel

from app.api.auth import Admin
from app.api.deps import EngineDep
from app.api.problems import responses
from app.api.schemas import MAX_PAGE, SeqCursor
from app.store import keys as store

router = APIRouter(prefix="/v1/audit", tags=["audit"])


class AuditEventOut(BaseModel):
    id: int
    action: str
    actor: dict[str, Any]
    target: str
    data: dict[str, Any]
    created_at: datetime

    @classmethod
    def of(cls, event: store.AuditEvent) -> AuditEventOut:
        return cls.model_validate(event, from_attributes=True)


class AuditPage(BaseModel):
    items: list[AuditEventOut]
    next_cursor: str | None


@router.get("", response_model=AuditPage, responses=responses())
async def list_audit_events(
    principal: Admin,
    engine: EngineDep,
    cursor: SeqCursor = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> AuditPage:
    """Who did what in this tenant, newest first (`cursor`: the `next_cursor` of a page)."""
    async with engine.connect() as conn:
        events = await store.list_audit(conn, principal.tenant_id, before_id=cursor, limit=limit)
    items = [AuditEventOut.of(e) for e in events]
    return AuditPage(items=items, next_cursor=str(items[-1].id) if len(items) == limit else None)
