"""Runs as the API sees them: send (enqueue), read, list, cancel, resume.

None of these writes advance a run through its loop; that is the worker's fenced path.
They only move a run between resting states (queued, failed, cancelled) with a
compare-and-set on its status, so they cannot race a worker that holds its lease.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from sqlalchemy import (
    ColumnElement,
    Row,
    Select,
    and_,
    case,
    false,
    func,
    not_,
    or_,
    select,
    tuple_,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.domain import metadata
from app.domain.agent import UNPRICED, AgentDefinition, drift
from app.domain.budget import Budget, Usage
from app.domain.run import ACTIVE, PAUSED, TERMINAL, UNSETTLED, RunStatus
from app.store import agents as agent_store
from app.store import approvals as approval_store
from app.store import children, events
from app.store.cursors import decode_cursor
from app.store.listing import TimeRange, metadata_contains, page
from app.store.notify import NOTIFY
from app.store.run_state import session_override
from app.store.tables import runs, sessions, tool_calls
from app.store.usage import session_usage

ACTIVE_VALUES = [s.value for s in ACTIVE]


@dataclass(frozen=True)
class RunRecord:
    id: UUID
    tenant_id: str
    session_id: str
    seq: int
    status: RunStatus
    input: list[dict[str, Any]]
    agent_version: int
    steps: int
    max_steps: int
    usage: dict[str, Any]
    attempts: int
    last_error: dict[str, Any] | None
    output: str | None
    finish_reason: str | None
    budget: dict[str, Any] | None
    budget_exceeded: dict[str, Any] | None
    cancel_requested: bool
    idempotency_key: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    metadata: dict[str, str]
    # Which worker holds it and until when (database clock); None when no worker does.
    lease_owner: str | None
    lease_expires_at: datetime | None
    # A child run's parent (a sub-agent's), and its depth in the tree (0: top-level).
    parent_run_id: UUID | None = None
    parent_session_id: str | None = None
    parent_call_id: str | None = None
    depth: int = 0

    @classmethod
    def from_row(cls, row: Any) -> RunRecord:  # a Row of RUN_COLUMNS (and maybe more)
        return cls(
            id=row.id,
            tenant_id=row.tenant_id,
            session_id=row.session_id,
            seq=row.seq,
            status=RunStatus(row.status),
            input=row.input,
            agent_version=row.agent_version,
            steps=row.steps,
            max_steps=row.max_steps,
            usage=row.usage,
            attempts=row.attempts,
            last_error=row.last_error,
            output=row.output,
            finish_reason=row.finish_reason,
            budget=row.budget,
            budget_exceeded=row.budget_exceeded,
            cancel_requested=row.cancel_requested,
            idempotency_key=row.idempotency_key,
            created_at=row.created_at,
            updated_at=row.updated_at,
            finished_at=row.finished_at,
            metadata=row.metadata,
            lease_owner=row.lease_owner,
            lease_expires_at=row.lease_expires_at,
            parent_run_id=row.parent_run_id,
            parent_session_id=row.parent_session_id,
            parent_call_id=row.parent_call_id,
            depth=row.depth,
        )


@dataclass(frozen=True)
class SendCommand:
    tenant_id: str
    session_id: str
    input: list[dict[str, Any]]
    agent_id: str | None = None
    max_steps: int | None = None
    if_busy: str = "queue"
    idempotency_key: str | None = None
    # Resume under another version of the session's agent: a number or "latest".
    agent_version: int | str | None = None
    on_drift: str | None = None
    # Who sends it (Principal.as_actor()); None for the store's own callers (benchmarks).
    created_by: dict[str, Any] | None = None
    # The sending request's W3C trace context (None when tracing is off): not part of
    # what an Idempotency-Key promises (`fingerprint`), a redelivery may carry another.
    trace_context: dict[str, str] | None = None
    # Limits for this run over the agent's `budget`, and for the session over its
    # `session_budget` (kept for later sends).
    budget: Budget | None = None
    session_budget: Budget | None = None
    # Whether the sender may raise limits above the agent's: an agent author's decision.
    may_raise_budgets: bool = True
    # Labels for the run, and for the session (merged into what it holds).
    metadata: dict[str, str] | None = None
    session_metadata: dict[str, str] | None = None

    def fingerprint(self) -> str:
        """What an Idempotency-Key promises: the same request. A digest of everything the
        caller sent but the key itself (the tenant and session are in the lookup)."""
        sent: dict[str, Any] = {
            "input": self.input,
            "agent_id": self.agent_id,
            "max_steps": self.max_steps,
            "if_busy": self.if_busy,
            "agent_version": self.agent_version,
            "on_drift": self.on_drift,
        }
        # Only when given: a request without budgets keeps the digest it had before them.
        if self.budget is not None:
            sent["budget"] = self.budget.limits()
        if self.session_budget is not None:
            sent["session_budget"] = self.session_budget.limits()
        if self.metadata is not None:
            sent["metadata"] = self.metadata
        if self.session_metadata is not None:
            sent["session_metadata"] = self.session_metadata
        canonical = json.dumps(sent, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()


RUN_COLUMNS = [
    c
    for c in runs.c
    if c.name not in ("lease_token", "claims", "request_fingerprint", "suspect", "deaths")
]


async def get_run(
    conn: AsyncConnection, tenant_id: str, run_id: UUID, *, lock: bool = False
) -> RunRecord:
    """A run of the tenant's; another tenant's is RunNotFound, as if it did not exist."""
    query = select(*RUN_COLUMNS).where(runs.c.tenant_id == tenant_id, runs.c.id == run_id)
    if lock:
        query = query.with_for_update()
    row = (await conn.execute(query)).first()
    if row is None:
        raise errors.RunNotFound(f"no run {run_id}", run_id=str(run_id))
    return RunRecord.from_row(row)


async def _by_idempotency_key(conn: AsyncConnection, command: SendCommand) -> RunRecord | None:
    """The run this key made, when the request is the same one again.

    Raises:
        IdempotencyKeyReused: the key made a run for a different request.
    """
    row = (
        await conn.execute(
            select(*RUN_COLUMNS, runs.c.request_fingerprint).where(
                runs.c.tenant_id == command.tenant_id,
                runs.c.session_id == command.session_id,
                runs.c.idempotency_key == command.idempotency_key,
            )
        )
    ).first()
    if row is None:
        return None
    if row.request_fingerprint != command.fingerprint():
        raise errors.IdempotencyKeyReused(
            f"Idempotency-Key {command.idempotency_key!r} was used for a different request "
            f"(run {row.id}); use a new key for a new request",
            run_id=str(row.id),
        )
    return RunRecord.from_row(row)


def lock_session(tenant_id: str, session_id: str) -> Select[tuple[Any, ...]]:
    """The lock a send takes on its session row: sends to a session serialise on it.

    FOR NO KEY UPDATE, not FOR UPDATE: a worker's checkpoint checks its inserts' foreign
    keys to the session (a KEY SHARE lock) at the end of its statement, after it took the
    session's event head; a FOR UPDATE here would make it wait on a send that itself waits
    for that head: a deadlock (docs/design.md, "Events and streams").
    """
    return (
        select(sessions)
        .where(sessions.c.tenant_id == tenant_id, sessions.c.id == session_id)
        .with_for_update(key_share=True)
    )


async def _lock_session(
    conn: AsyncConnection, command: SendCommand
) -> tuple[Row[Any], agent_store.AgentVersion | None]:
    """Lock the session row (creating the session on first use): sends to it serialise
    here. Returns the row, and the agent version a session this send created was given."""
    query = lock_session(command.tenant_id, command.session_id)
    row: Row[Any] | None = (await conn.execute(query)).first()
    created = None
    if row is None:
        if command.agent_id is None:
            raise errors.SessionNotFound(
                f"no session {command.session_id!r}; pass agent_id to create it",
                session_id=command.session_id,
            )
        created = await agent_store.get_agent(conn, command.tenant_id, command.agent_id)
        # A row this transaction inserts is its own until commit: as good as locked.
        row = (
            await conn.execute(
                pg_insert(sessions)
                .values(
                    tenant_id=command.tenant_id,
                    id=command.session_id,
                    agent_id=created.id,
                    agent_version=created.version,
                )
                .on_conflict_do_nothing(index_elements=[sessions.c.tenant_id, sessions.c.id])
                .returning(*sessions.c)
            )
        ).first()
        if row is None:
            # A concurrent first send created it first (and has committed): lock that one.
            row = (await conn.execute(query)).one()
            created = None
    if command.agent_id is not None and command.agent_id != row.agent_id:
        raise errors.SessionAgentMismatch(
            f"session {command.session_id!r} belongs to agent {row.agent_id!r}",
            session_id=command.session_id,
            agent_id=row.agent_id,
        )
    return row, created


@dataclass(frozen=True)
class Sent:
    """What a send did: its run (the first one, for a redelivered request) and the run's
    events it wrote, all of them so far (none for a redelivery: it wrote nothing)."""

    run: RunRecord
    events: list[events.EventRecord]


async def send(conn: AsyncConnection, command: SendCommand) -> Sent:
    """Enqueue a run for new input.

    With an idempotency key, a redelivered request returns the first run (created=False).
    The check runs again after the session lock, so concurrent duplicates are safe too.
    """
    if command.idempotency_key is not None:
        existing = await _by_idempotency_key(conn, command)
        if existing is not None:
            return Sent(existing, [])
    session, chosen = await _lock_session(conn, command)
    if command.idempotency_key is not None:
        existing = await _by_idempotency_key(conn, command)
        if existing is not None:
            return Sent(existing, [])

    active = await _active_runs(conn, command.tenant_id, command.session_id)
    paused = [r for r in active if r.status is RunStatus.AWAITING_APPROVAL]
    if paused:
        approval_ids = await _pending_approval_ids(conn, [r.id for r in paused])
        raise errors.SessionAwaitingApproval(
            "the session waits on an approval; decide it before sending new input",
            session_id=command.session_id,
            approval_ids=approval_ids,
        )
    if active and command.if_busy == "reject":
        raise errors.SessionBusy(
            f"session {command.session_id!r} has an active run",
            session_id=command.session_id,
            run_id=str(active[0].id),
        )
    happened: list[tuple[UUID, events.Event]] = []
    if active and command.if_busy == "interrupt":
        for run in active:
            happened.append((run.id, await _cancel(conn, run)))

    version, drifted = session.agent_version, None
    if command.agent_version is not None:
        version, drifted = await _switch_version(conn, session, command)
    labels = session.metadata
    if command.session_metadata:
        labels = metadata.merged(session.metadata, command.session_metadata)
    seq = (
        await conn.execute(
            update(sessions)
            .where(sessions.c.tenant_id == command.tenant_id, sessions.c.id == command.session_id)
            .values(
                run_count=sessions.c.run_count + 1,
                agent_version=version,
                metadata=labels,
                updated_at=func.now(),
            )
            .returning(sessions.c.run_count)
        )
    ).scalar_one()
    if chosen is None or chosen.version != version:
        chosen = await agent_store.get_agent(conn, command.tenant_id, session.agent_id, version)
    agent = chosen.definition
    max_steps = command.max_steps if command.max_steps is not None else agent.max_steps
    budget = await _budgets(conn, command, session, agent)
    row = (
        await conn.execute(
            pg_insert(runs)
            .values(
                id=uuid.uuid4(),
                tenant_id=command.tenant_id,
                session_id=command.session_id,
                seq=seq,
                status=RunStatus.QUEUED.value,
                input=command.input,
                idempotency_key=command.idempotency_key,
                request_fingerprint=(
                    command.fingerprint() if command.idempotency_key is not None else None
                ),
                created_by=command.created_by,
                trace_context=command.trace_context,
                agent_version=version,
                max_steps=max_steps,
                usage=Usage().as_dict(),
                budget=budget.limits() or None,
                metadata=command.metadata or {},
            )
            .returning(*RUN_COLUMNS)
        )
    ).one()
    mine = [events.Event("agent.drift", drifted)] if drifted else []
    mine.append(events.Event("run.queued", {"seq": seq, "reason": "sent"}))
    # Last: the session's event head is the last lock a transaction takes.
    for run_id, event in happened:  # the interrupted runs'
        await events.emit(conn, command.tenant_id, command.session_id, run_id, event)
    written = await events.emit(
        conn, command.tenant_id, command.session_id, row.id, *mine, wake_workers=True
    )
    return Sent(RunRecord.from_row(row), written)


async def _budgets(
    conn: AsyncConnection, command: SendCommand, session: Row[Any], agent: AgentDefinition
) -> Budget:
    """The new run's budget; records the session's new limits, if the send sets any.

    Raises:
        BudgetInvalid: a cost limit for a model without a price.
        Forbidden: the send raises the agent's limits without the right to.
        SessionBudgetExhausted: the session has spent a limit of its budget.
    """
    for where, override in (("budget", command.budget), ("session_budget", command.session_budget)):
        if override is not None and override.max_cost_usd is not None and agent.model.price is None:
            raise errors.BudgetInvalid(UNPRICED, field=(where, "max_cost_usd"))
    raised = agent.budget.loosened_by(command.budget) + agent.session_budget.loosened_by(
        command.session_budget
    )
    if raised and not command.may_raise_budgets:
        raise errors.Forbidden(
            f"raising the agent's budget ({', '.join(raised)}) needs the scope 'agents:write'",
            scope="agents:write",
            limits=raised,
        )
    override = session_override(session.budget)
    if command.session_budget is not None:
        override = (override or Budget()).merged(command.session_budget)
        await conn.execute(
            update(sessions)
            .where(sessions.c.tenant_id == command.tenant_id, sessions.c.id == command.session_id)
            .values(budget=override.limits() or None)
        )
    session_budget = agent.session_budget.merged(override)
    if session_budget.limits():
        spent = await session_usage(conn, command.tenant_id, command.session_id)
        exhausted = session_budget.first_spent(spent)
        if exhausted is not None:
            raise errors.SessionBudgetExhausted(
                f"session {command.session_id!r} has spent its budget's {exhausted.limit} "
                f"({exhausted.used} of {exhausted.max}); send a raised session_budget to go on",
                session_id=command.session_id,
                budget_exceeded=exhausted.of_session().as_dict(),
            )
    return agent.budget.merged(command.budget)


async def _switch_version(
    conn: AsyncConnection, session: Row[Any], command: SendCommand
) -> tuple[int, dict[str, Any] | None]:
    """Move the session to another version of its agent, as `on_drift` allows.

    Returns (version, the drift to report as an event, if any).

    Raises:
        ResumeToolMissing: a pending call's tool is gone (whatever on_drift says).
        AgentDrift: the definition changed and on_drift is `error`; nothing changes.
    """
    wanted = None if command.agent_version == "latest" else int(str(command.agent_version))
    target = await agent_store.get_agent(conn, session.tenant_id, session.agent_id, wanted)
    if target.version == session.agent_version:
        return target.version, None
    current = await agent_store.get_agent(
        conn, session.tenant_id, session.agent_id, session.agent_version
    )
    pending = (
        await conn.execute(
            select(tool_calls.c.tool_call_id, tool_calls.c.name).where(
                tool_calls.c.tenant_id == session.tenant_id,
                tool_calls.c.session_id == session.id,
                tool_calls.c.status.in_(UNSETTLED),
            )
        )
    ).all()
    missing = sorted({r.name for r in pending if target.definition.tool(r.name) is None})
    if missing:
        raise errors.ResumeToolMissing(
            f"pending calls use tools that version {target.version} does not have: {missing}",
            tools=missing,
            tool_call_ids=[r.tool_call_id for r in pending if r.name in missing],
        )
    changes = drift(current.fingerprint, target.fingerprint)
    policy = command.on_drift or target.definition.on_drift
    if changes and policy == "error":
        raise errors.AgentDrift(
            f"agent {session.agent_id!r} changed from version {current.version} to "
            f"{target.version}: {sorted(changes)}",
            changes=changes,
            from_version=current.version,
            to_version=target.version,
        )
    report = None
    if changes and policy == "warn":
        report = {"from_version": current.version, "to_version": target.version, **changes}
    return target.version, report


async def _active_runs(conn: AsyncConnection, tenant_id: str, session_id: str) -> list[RunRecord]:
    rows = await conn.execute(
        select(*RUN_COLUMNS)
        .where(
            runs.c.tenant_id == tenant_id,
            runs.c.session_id == session_id,
            runs.c.status.in_(ACTIVE_VALUES),
        )
        .order_by(runs.c.seq)
    )
    return [RunRecord.from_row(r) for r in rows]


async def _pending_approval_ids(conn: AsyncConnection, run_ids: list[UUID]) -> list[str]:
    pending = await approval_store.pending_for_runs(conn, run_ids)
    return [str(a.id) for run_approvals in pending.values() for a in run_approvals]


async def request_cancel(conn: AsyncConnection, tenant_id: str, run_id: UUID) -> RunRecord:
    """Cancel a run: at once if it never started, else through the worker that holds it.
    Its unfinished descendants (sub-agents' runs) are cancelled with it.

    Raises:
        RunNotCancellable: the run already ended.
    """
    session_id = (await get_run(conn, tenant_id, run_id)).session_id
    # A child's row before its parent's (app/store/children.py): descendants first,
    # deepest first, then the run.
    descendants = await children.lock_descendants(conn, tenant_id, session_id)
    run = await get_run(conn, tenant_id, run_id, lock=True)
    if run.status in TERMINAL:
        raise errors.RunNotCancellable(
            f"run {run_id} is already {run.status.value}",
            run_id=str(run_id),
            run_status=run.status.value,
        )
    happened: list[tuple[RunRecord, events.Event]] = []
    for descendant_id in descendants:
        descendant = await get_run(conn, tenant_id, descendant_id)
        if descendant.status not in TERMINAL:
            happened.append((descendant, await _cancel(conn, descendant)))
    event = await _cancel(conn, run)
    # Events last, children's before their parents' (the order a child's end takes them).
    for record, happening in happened:
        await events.emit(conn, tenant_id, record.session_id, record.id, happening)
    await events.emit(conn, tenant_id, run.session_id, run_id, event)
    if run.parent_session_id is not None and event.type == "run.cancelled":
        # A child that never started ended here: its parent may wait on nothing else.
        await children.ended(
            conn,
            tenant_id,
            child_run_id=run.id,
            child_session_id=run.session_id,
            parent_session_id=run.parent_session_id,
            parent_run_id=run.parent_run_id,
            status=RunStatus.CANCELLED,
            parent_call_id=run.parent_call_id,
        )
    return await get_run(conn, tenant_id, run_id)


async def _cancel(conn: AsyncConnection, run: RunRecord) -> events.Event:
    """Cancel a run in the caller's transaction; returns the event that says so, for the
    caller to emit once its other writes are done."""
    # A cancelled run never waits on its approvals again: withdraw them now, so the
    # approval UI stops listing them and a late decision gets APPROVAL_ORPHANED.
    await approval_store.withdraw_for_runs(conn, [run.id])
    never_started = (
        await conn.execute(
            update(runs)
            .where(
                runs.c.id == run.id,
                runs.c.status == RunStatus.QUEUED,
                runs.c.input_seq.is_(None),
            )
            .values(
                status=RunStatus.CANCELLED,
                finish_reason="cancelled",
                cancel_requested=True,
                finished_at=func.now(),
                updated_at=func.now(),
            )
            .returning(runs.c.id)
        )
    ).first()
    if never_started is not None:
        return events.Event("run.cancelled", {})
    # It has a transcript: a worker records `cancelled` results for its unsettled calls
    # (the transcript stays valid) and ends it. A paused run is queued for that at once.
    values: dict[str, Any] = {
        "cancel_requested": True,
        "not_before": func.now(),
        "updated_at": func.now(),
    }
    if run.status in PAUSED:
        values["status"] = RunStatus.QUEUED.value
    await conn.execute(
        update(runs).where(runs.c.id == run.id, runs.c.status.in_(ACTIVE_VALUES)).values(values)
    )
    await conn.execute(NOTIFY)
    return events.Event("run.cancel_requested", {})


async def resume(conn: AsyncConnection, tenant_id: str, run_id: UUID) -> RunRecord:
    """Queue a failed run again, continuing from its checkpoint with its remaining budget.

    A run failed as poison (`poison_run`) gets a fresh count of deaths; it stays under
    suspicion, so it is driven alone again until it makes progress.

    Raises:
        RunNotResumable: the run has not failed, or a later run of its session exists.
    """
    run = await get_run(conn, tenant_id, run_id, lock=True)
    if run.status is not RunStatus.FAILED:
        raise errors.RunNotResumable(
            f"run {run_id} is {run.status.value}; only a failed run can be resumed",
            run_id=str(run_id),
            run_status=run.status.value,
        )
    later = (
        await conn.execute(
            select(runs.c.id).where(
                runs.c.tenant_id == tenant_id,
                runs.c.session_id == run.session_id,
                runs.c.seq > run.seq,
            )
        )
    ).first()
    if later is not None:
        raise errors.RunNotResumable(
            "a later run of this session has started from this run's checkpoint",
            run_id=str(run_id),
            later_run_id=str(later.id),
        )
    await conn.execute(
        update(runs)
        .where(runs.c.id == run_id, runs.c.status == RunStatus.FAILED)
        .values(
            status=RunStatus.QUEUED,
            not_before=func.now(),
            # A run that gave up on retries gets a fresh budget (the outage is over); one
            # that failed outright keeps its count.
            attempts=case(
                (runs.c.last_error["retryable"].as_boolean().is_(True), 0),
                else_=runs.c.attempts,
            ),
            finished_at=None,
            finish_reason=None,
            deaths=0,
            updated_at=func.now(),
        )
    )
    resumed = events.Event("run.queued", {"reason": "resumed"})
    await events.emit(conn, tenant_id, run.session_id, run_id, resumed, wake_workers=True)
    return await get_run(conn, tenant_id, run_id)


async def set_metadata(
    conn: AsyncConnection, tenant_id: str, run_id: UUID, patch: dict[str, str | None]
) -> RunRecord:
    """Set (or, with None, remove) keys of a run's metadata; other keys are kept.

    Raises:
        RunNotFound: no such run of the tenant's.
        MetadataInvalid: the result would hold too many keys.
    """
    run = await get_run(conn, tenant_id, run_id, lock=True)
    labels = metadata.merged(run.metadata, patch)
    row = (
        await conn.execute(
            update(runs)
            .where(runs.c.tenant_id == tenant_id, runs.c.id == run_id)
            .values(metadata=labels, updated_at=func.now())
            .returning(*RUN_COLUMNS)
        )
    ).one()
    return RunRecord.from_row(row)


# -- the ops list ------------------------------------------------------------------------


@dataclass(frozen=True)
class RunFilter:
    """What the ops list narrows to; every part given must hold (AND)."""

    statuses: list[str] | None = None
    session_id: str | None = None
    agent_id: str | None = None
    created: TimeRange = field(default_factory=TimeRange)
    metadata: Sequence[tuple[str, str]] = ()
    # True: only stuck runs; False: none of them; None: either.
    stuck: bool | None = None
    # A queued run is stuck once it could have been claimed this long ago.
    stuck_queued_after: timedelta = timedelta(minutes=5)


def stuck_clause(stuck_queued_after: timedelta) -> ColumnElement[bool]:
    """Running under a lease that expired (its worker is gone and nobody took it over),
    or queued and claimable for longer than `stuck_queued_after` (no worker takes it).
    Both on the database's clock, as every lease comparison is."""
    now = func.clock_timestamp()
    return func.coalesce(
        or_(
            and_(runs.c.status == RunStatus.RUNNING.value, runs.c.lease_expires_at < now),
            and_(
                runs.c.status == RunStatus.QUEUED.value,
                runs.c.not_before < now - stuck_queued_after,
            ),
        ),
        false(),
    )


def runs_query(tenant_id: str, where: RunFilter, *, cursor: str | None, limit: int) -> Select[Any]:
    """The ops list's statement: the tenant's runs as `where` narrows them, newest first,
    `limit + 1` from `cursor` on (the extra row says whether a next page exists)."""
    query = select(*RUN_COLUMNS).where(runs.c.tenant_id == tenant_id)
    if where.statuses:
        query = query.where(runs.c.status.in_(where.statuses))
    if where.session_id is not None:
        query = query.where(runs.c.session_id == where.session_id)
    if where.agent_id is not None:
        query = query.where(
            runs.c.session_id.in_(
                select(sessions.c.id).where(
                    sessions.c.tenant_id == tenant_id, sessions.c.agent_id == where.agent_id
                )
            )
        )
    query = query.where(*where.created.clauses(runs.c.created_at))
    query = query.where(*metadata_contains(runs.c.metadata, where.metadata))
    if where.stuck is not None:
        stuck = stuck_clause(where.stuck_queued_after)
        query = query.where(stuck if where.stuck else not_(stuck))
    if cursor is not None:
        created, last_id = decode_cursor(cursor)
        query = query.where(tuple_(runs.c.created_at, runs.c.id) < tuple_(created, last_id))
    return query.order_by(runs.c.created_at.desc(), runs.c.id.desc()).limit(limit + 1)


async def list_runs(
    conn: AsyncConnection,
    tenant_id: str,
    where: RunFilter,
    *,
    cursor: str | None,
    limit: int,
) -> tuple[list[RunRecord], str | None]:
    """Runs newest first, keyset-paginated on (created_at, id)."""
    query = runs_query(tenant_id, where, cursor=cursor, limit=limit)
    records = [RunRecord.from_row(r) for r in await conn.execute(query)]
    return page(records, limit, lambda r: (r.created_at, r.id))
