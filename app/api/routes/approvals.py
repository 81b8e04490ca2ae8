"""Approvals: the approval UI's queue, one approval, and the decision."""

from __future__ import annotations

from typing import Annotated, Literal
from uuid import UUID

from fastapi import APIRouter, Query

from app import errors
from app.api.auth import ApprovalsDecide, RunsRead
from app.api.deps import EngineDep
from app.api.problems import responses
from app.api.schemas import (
    MAX_PAGE,
    ApprovalOut,
    ApprovalPage,
    DecisionIn,
    SessionIdQuery,
    check_session_id,
)
from app.api.views import approvals_out
from app.store import approvals as store

router = APIRouter(prefix="/v1/approvals", tags=["approvals"])


@router.get("", response_model=ApprovalPage, responses=responses(errors.SessionIdInvalid))
async def list_approvals(
    engine: EngineDep,
    principal: RunsRead,
    status: Literal["pending", "approved", "rejected", "expired", "orphaned"] | None = None,
    session_id: SessionIdQuery = None,
    run_id: UUID | None = None,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
) -> ApprovalPage:
    """Approvals oldest first: `?status=pending` is the queue a human works through."""
    if session_id is not None:
        check_session_id(session_id)
    async with engine.connect() as conn:
        records, next_cursor = await store.list_approvals(
            conn,
            principal.tenant_id,
            status=status,
            session_id=session_id,
            run_id=run_id,
            cursor=cursor,
            limit=limit,
        )
        items = await approvals_out(conn, principal.tenant_id, records)
    return ApprovalPage(items=items, next_cursor=next_cursor)


@router.get("/{approval_id}", response_model=ApprovalOut, responses=responses(errors.NotFound))
async def get_approval(approval_id: UUID, engine: EngineDep, principal: RunsRead) -> ApprovalOut:
    """The gated call (tool, arguments), its run and session, and when it was asked."""
    async with engine.connect() as conn:
        record = await store.get_approval(conn, principal.tenant_id, approval_id)
        return (await approvals_out(conn, principal.tenant_id, [record]))[0]


@router.post(
    "/{approval_id}/decision",
    response_model=ApprovalOut,
    responses=responses(
        errors.NotFound,
        errors.ApprovalAlreadyDecided,
        errors.ApprovalOrphaned,
        errors.ApprovalArgumentsInvalid,
        errors.SelfApproval,
    ),
)
async def decide_approval(
    approval_id: UUID, body: DecisionIn, engine: EngineDep, principal: ApprovalsDecide
) -> ApprovalOut:
    """Approve or reject a gated call, optionally editing its arguments.

    The decision is durable when this answers. It never runs the tool: when the batch's
    last approval is decided the run is queued and a worker continues it.
    """
    decision = store.Decision(body.approved, principal, body.reason, body.arguments)
    async with engine.begin() as conn:
        record, withdrawn = await store.decide(conn, principal.tenant_id, approval_id, decision)
    if withdrawn:  # committed above, so the withdrawal sticks
        raise errors.ApprovalOrphaned(
            "the run no longer waits on this approval; it was withdrawn",
            approval_id=str(approval_id),
            run_id=str(record.run_id),
        )
    return ApprovalOut.of(record)
