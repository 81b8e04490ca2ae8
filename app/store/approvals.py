"""Approvals: list, read, decide, expire, withdraw.

A decision is bound to (run, tool_call_id) and applied with a compare-and-set: it counts
only while the run still waits on exactly this approval. Locks are always taken run
first, then approval (as cancel does), so deciding and cancelling cannot deadlock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import Row, exists, func, literal, select, text, tuple_, update
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.domain.agent import AgentDefinition
from app.domain.arguments import SchemaUnusable, argument_errors
from app.domain.principal import Principal
from app.domain.run import ApprovalStatus, CallStatus, RunStatus
from app.store import events, keys
from app.store.cursors import decode_cursor, encode_cursor
from app.store.tables import agent_versions, approvals, runs, sessions, tool_calls


@dataclass(frozen=True)
class ApprovalRecord:
    id: UUID
    status: ApprovalStatus
    session_id: str
    run_id: UUID
    tool_call_id: str
    tool: str
    arguments: Any
    decision: dict[str, Any] | None
    expires_at: datetime | None
    created_at: datetime
    decided_at: datetime | None

    @classmethod
    def from_row(cls, row: Row[Any]) -> ApprovalRecord:
        return cls(
            id=row.id,
            status=ApprovalStatus(row.status),
            session_id=row.session_id,
            run_id=row.run_id,
            tool_call_id=row.tool_call_id,
            tool=row.request["tool"],
            arguments=row.request["arguments"],
            decision=row.decision,
            expires_at=row.expires_at,
            created_at=row.created_at,
            decided_at=row.decided_at,
        )


@dataclass(frozen=True)
class Decision:
    approved: bool
    by: Principal
    reason: str | None = None
    arguments: dict[str, Any] | None = None


def same_principal(started_by: dict[str, Any] | None, decider: Principal) -> bool:
    """Whether the decider is who started the run: a key of the same root (a key and the
    keys it minted are one party), or, in open mode, where nobody is told apart, anyone."""
    if started_by is None:  # a run from before principals were recorded
        return False
    root = started_by.get("key_root") or started_by.get("key_prefix")
    return root == (decider.root or decider.prefix)


async def get_approval(conn: AsyncConnection, tenant_id: str, approval_id: UUID) -> ApprovalRecord:
    """An approval of the tenant's; another tenant's is ApprovalNotFound."""
    row = (
        await conn.execute(
            select(approvals).where(
                approvals.c.tenant_id == tenant_id, approvals.c.id == approval_id
            )
        )
    ).first()
    if row is None:
        raise errors.ApprovalNotFound(f"no approval {approval_id}", approval_id=str(approval_id))
    return ApprovalRecord.from_row(row)


async def decide(
    conn: AsyncConnection, tenant_id: str, approval_id: UUID, decision: Decision
) -> tuple[ApprovalRecord, bool]:
    """Record a human's decision; queue the run when it was the batch's last one.

    Returns (approval, withdrawn). `withdrawn` is True when the run no longer waits on the
    approval: it was orphaned instead of decided, and the caller must commit that before
    answering 409 APPROVAL_ORPHANED (so the withdrawal sticks).

    Raises:
        ApprovalNotFound, ApprovalAlreadyDecided, ApprovalOrphaned (withdrawn earlier),
        ApprovalArgumentsInvalid (nothing changes: it stays pending).
    """
    # The run first (the lock order), with what the decision checks against: its status,
    # who started it and its agent version's definition.
    run = (
        await conn.execute(
            select(
                runs.c.status,
                runs.c.created_by,
                agent_versions.c.definition,
            )
            .select_from(
                approvals.join(
                    runs,
                    (runs.c.tenant_id == approvals.c.tenant_id) & (runs.c.id == approvals.c.run_id),
                )
                .join(
                    sessions,
                    (sessions.c.tenant_id == runs.c.tenant_id)
                    & (sessions.c.id == runs.c.session_id),
                )
                .join(
                    agent_versions,
                    (agent_versions.c.tenant_id == sessions.c.tenant_id)
                    & (agent_versions.c.agent_id == sessions.c.agent_id)
                    & (agent_versions.c.version == runs.c.agent_version),
                )
            )
            .where(approvals.c.tenant_id == tenant_id, approvals.c.id == approval_id)
            .with_for_update(of=runs)
        )
    ).first()
    # Then the approval, with the call it gates (the call's row is only read).
    locked = (
        await conn.execute(
            select(
                approvals,
                tool_calls.c.status.label("call_status"),
                tool_calls.c.approval_id.label("call_approval_id"),
            )
            .outerjoin(
                tool_calls,
                (tool_calls.c.tenant_id == approvals.c.tenant_id)
                & (tool_calls.c.session_id == approvals.c.session_id)
                & (tool_calls.c.tool_call_id == approvals.c.tool_call_id),
            )
            .where(approvals.c.tenant_id == tenant_id, approvals.c.id == approval_id)
            .with_for_update(of=approvals)
        )
    ).first()
    if locked is None:
        raise errors.ApprovalNotFound(f"no approval {approval_id}", approval_id=str(approval_id))
    record = ApprovalRecord.from_row(locked)
    if record.status is ApprovalStatus.ORPHANED:
        raise errors.ApprovalOrphaned(
            "the run no longer waits on this approval; it was withdrawn",
            approval_id=str(approval_id),
            run_id=str(record.run_id),
        )
    if record.status is not ApprovalStatus.PENDING:
        raise errors.ApprovalAlreadyDecided(
            f"this approval was already {record.status.value}",
            approval_id=str(approval_id),
            approval_status=record.status.value,
            decision=record.decision,
        )
    if (
        run is None
        or run.status != RunStatus.AWAITING_APPROVAL.value
        or locked.call_approval_id != record.id
        or locked.call_status != CallStatus.PENDING
    ):
        [orphaned] = await _set_status(conn, [approval_id], ApprovalStatus.ORPHANED, None)
        return orphaned, True

    definition = AgentDefinition.model_validate(run.definition)
    tool = definition.tool(record.tool)
    if (
        tool is not None
        and tool.approval.distinct_approver
        and same_principal(run.created_by, decision.by)
    ):
        raise errors.SelfApproval(
            f"tool {record.tool!r} needs a distinct approver: the key that started the run "
            "cannot decide it",
            approval_id=str(approval_id),
        )
    if decision.arguments is not None and tool is not None:
        _check_arguments(tool.input_schema, decision.arguments)
    status = ApprovalStatus.APPROVED if decision.approved else ApprovalStatus.REJECTED
    actor = decision.by.as_actor()
    [now_decided] = await _set_status(
        conn,
        [approval_id],
        status,
        {
            "approved": decision.approved,
            "reason": decision.reason,
            "arguments": decision.arguments,
            "decided_by": actor,
        },
    )
    await keys.audit(
        conn,
        tenant_id,
        "approval.decided",
        actor,
        str(approval_id),
        {"approved": decision.approved, "run_id": str(record.run_id), "tool": record.tool},
    )
    decided = events.Event(
        "approval.decided",
        {
            "approval_id": str(approval_id),
            "tool_call_id": record.tool_call_id,
            "status": status.value,
            "decided_by": actor,
        },
    )
    await _queue_if_all_decided(conn, tenant_id, record.session_id, record.run_id, decided)
    return now_decided, False


def _check_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    try:
        problems = argument_errors(schema, arguments)
    except SchemaUnusable as exc:  # the edit cannot be checked, so it is refused
        raise errors.ApprovalArgumentsInvalid(
            f"the tool's schema cannot be applied ({exc})", field=("arguments",)
        ) from exc
    if problems:
        raise errors.ApprovalArgumentsInvalid(
            problems[0].message, field=("arguments",), problems=problems
        )


async def _set_status(
    conn: AsyncConnection,
    ids: list[UUID],
    status: ApprovalStatus,
    decision: dict[str, Any] | None,
) -> list[ApprovalRecord]:
    """Set the approvals' status (and decision); returns them as they are now."""
    values: dict[str, Any] = {"status": status.value, "decided_at": func.clock_timestamp()}
    if decision is not None:
        values["decision"] = decision
    rows = await conn.execute(
        update(approvals).where(approvals.c.id.in_(ids)).values(values).returning(*approvals.c)
    )
    return [ApprovalRecord.from_row(row) for row in rows]


async def _queue_if_all_decided(
    conn: AsyncConnection, tenant_id: str, session_id: str, run_id: UUID, *decided: events.Event
) -> None:
    """Emit the decisions, and queue the run (and say so) when none is left pending."""
    still_pending = exists().where(
        approvals.c.run_id == run_id, approvals.c.status == ApprovalStatus.PENDING.value
    )
    queue = (
        update(runs)
        .where(
            runs.c.id == run_id,
            runs.c.status == RunStatus.AWAITING_APPROVAL.value,
            ~still_pending,
        )
        .values(status=RunStatus.QUEUED.value, not_before=func.now(), updated_at=func.now())
        .returning(runs.c.id)
    )
    queued = (await conn.execute(queue)).first() is not None
    if queued:
        decided += (events.Event("run.queued", {"reason": "approvals_decided"}),)
    await events.emit(conn, tenant_id, session_id, run_id, *decided, wake_workers=queued)


async def withdraw_for_runs(conn: AsyncConnection, run_ids: list[UUID]) -> None:
    """Orphan the pending approvals of runs that will never wait on them again."""
    await conn.execute(
        update(approvals)
        .where(approvals.c.run_id.in_(run_ids), approvals.c.status == ApprovalStatus.PENDING)
        .values(status=ApprovalStatus.ORPHANED.value, decided_at=func.clock_timestamp())
    )


async def withdraw_for_session(conn: AsyncConnection, tenant_id: str, session_id: str) -> None:
    await conn.execute(
        update(approvals)
        .where(
            approvals.c.tenant_id == tenant_id,
            approvals.c.session_id == session_id,
            approvals.c.status == ApprovalStatus.PENDING,
        )
        .values(status=ApprovalStatus.ORPHANED.value, decided_at=func.clock_timestamp())
    )


async def scrub_for_session(conn: AsyncConnection, tenant_id: str, session_id: str) -> None:
    """Drop the arguments (asked for, and as edited by a decision) of a session's
    approvals, keeping the rest: the session is being deleted."""
    await conn.execute(
        update(approvals)
        .where(approvals.c.tenant_id == tenant_id, approvals.c.session_id == session_id)
        .values(
            request=approvals.c.request.op("||")(literal({"arguments": None}, JSONB)),
            decision=approvals.c.decision.op("-")("arguments"),
        )
    )


DUE = text("""
SELECT DISTINCT run_id FROM approvals
 WHERE status = 'pending' AND expires_at < clock_timestamp()
 LIMIT :limit
""")


async def runs_with_expired_approvals(conn: AsyncConnection, limit: int = 100) -> list[UUID]:
    """Runs with a pending approval past its `expires_at` (at most `limit`)."""
    return [row.run_id for row in await conn.execute(DUE, {"limit": limit})]


async def expire_for_run(conn: AsyncConnection, run_id: UUID) -> None:
    """Reject the run's pending approvals past their `expires_at`, and queue the run if
    that left it none; in the caller's transaction, the run locked first (the order
    `decide` uses)."""
    run = (
        await conn.execute(
            select(runs.c.tenant_id, runs.c.session_id).where(runs.c.id == run_id).with_for_update()
        )
    ).first()
    if run is None:
        return
    expired = (
        await conn.execute(
            update(approvals)
            .where(
                approvals.c.run_id == run_id,
                approvals.c.status == ApprovalStatus.PENDING,
                approvals.c.expires_at < func.clock_timestamp(),
            )
            .values(
                status=ApprovalStatus.EXPIRED.value,
                decided_at=func.clock_timestamp(),
                decision={"approved": False, "reason": "the approval expired"},
            )
            .returning(approvals.c.id, approvals.c.tool_call_id)
        )
    ).all()
    if expired:
        await _queue_if_all_decided(
            conn,
            run.tenant_id,
            run.session_id,
            run_id,
            *(
                events.Event(
                    "approval.decided",
                    {
                        "approval_id": str(a.id),
                        "tool_call_id": a.tool_call_id,
                        "status": ApprovalStatus.EXPIRED.value,
                        "decided_by": None,
                    },
                )
                for a in expired
            ),
        )


async def pending_for_runs(
    conn: AsyncConnection, run_ids: list[UUID]
) -> dict[UUID, list[ApprovalRecord]]:
    out: dict[UUID, list[ApprovalRecord]] = {run_id: [] for run_id in run_ids}
    if not run_ids:
        return out
    rows = await conn.execute(
        select(approvals)
        .where(approvals.c.run_id.in_(run_ids), approvals.c.status == ApprovalStatus.PENDING)
        .order_by(approvals.c.created_at, approvals.c.id)
    )
    for row in rows:
        out[row.run_id].append(ApprovalRecord.from_row(row))
    return out


async def list_approvals(
    conn: AsyncConnection,
    tenant_id: str,
    *,
    status: str | None,
    session_id: str | None,
    run_id: UUID | None,
    cursor: str | None,
    limit: int,
) -> tuple[list[ApprovalRecord], str | None]:
    """Oldest first (a queue for humans), keyset-paginated on (created_at, id)."""
    query = select(approvals).where(approvals.c.tenant_id == tenant_id)
    if status is not None:
        query = query.where(approvals.c.status == status)
    if session_id is not None:
        query = query.where(approvals.c.session_id == session_id)
    if run_id is not None:
        query = query.where(approvals.c.run_id == run_id)
    if cursor is not None:
        created, last_id = decode_cursor(cursor)
        query = query.where(
            tuple_(approvals.c.created_at, approvals.c.id) > tuple_(created, last_id)
        )
    query = query.order_by(approvals.c.created_at, approvals.c.id).limit(limit + 1)
    records = [ApprovalRecord.from_row(r) for r in await conn.execute(query)]
    next_cursor = None
    if len(records) > limit:
        records = records[:limit]
        next_cursor = encode_cursor(records[-1].created_at, records[-1].id)
    return records, next_cursor
