"""Request and response models: the OpenAPI contract clients depend on."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import Path, Query
from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    computed_field,
    model_serializer,
)

from app import errors
from app.domain.agent import ID_PATTERN, AgentDefinition, Strict
from app.domain.budget import Budget
from app.domain.budget import Usage as DomainUsage
from app.domain.fork import ForkPatch
from app.domain.metadata import Metadata, MetadataPatch
from app.domain.plan import PlannerView
from app.domain.run import Entry, Message, ToolCall
from app.store.agents import AgentSummary, AgentVersion
from app.store.approvals import ApprovalRecord
from app.store.children import Parent
from app.store.events import EventRecord
from app.store.history import CheckpointRecord
from app.store.runs import RunRecord
from app.store.sessions import SessionRecord, SessionSummary
from app.store.tool_outputs import AwaitedCall
from app.store.usage import AgentUsage

SESSION_ID = re.compile(ID_PATTERN)
MAX_INPUT_MESSAGES = 100
MAX_PAGE = 500
INT32 = 2**31 - 1
INT64 = 2**63 - 1
ID_RULE = "1-200 of A-Za-z0-9_-., not starting or ending with '.'"

SessionIdPath = Annotated[str, Path(pattern=ID_PATTERN, max_length=200, description=ID_RULE)]
SessionIdQuery = Annotated[
    str | None, Query(pattern=ID_PATTERN, max_length=200, description=ID_RULE)
]
AgentIdQuery = Annotated[str | None, Query(pattern=ID_PATTERN, max_length=200, description=ID_RULE)]
AgentIdPath = Annotated[str, Path(pattern=ID_PATTERN, max_length=200, description=ID_RULE)]
SeqCursor = Annotated[int | None, Query(ge=0, le=INT64, description="`next_cursor` of a page.")]


def check_session_id(session_id: str) -> str:
    if not SESSION_ID.fullmatch(session_id):
        raise errors.SessionIdInvalid(
            "a session id is 1-200 of A-Za-z0-9_-. and does not start or end with '.'",
            session_id=session_id[:200],
        )
    return session_id


# -- agents ------------------------------------------------------------------------------


class AgentCreate(AgentDefinition):
    id: str = Field(pattern=ID_PATTERN)


class AgentOut(AgentDefinition):
    id: str
    version: int
    fingerprint: dict[str, Any]
    created_at: datetime

    @classmethod
    def of(cls, agent: AgentVersion) -> AgentOut:
        return cls(
            id=agent.id,
            version=agent.version,
            fingerprint=agent.fingerprint,
            created_at=agent.created_at,
            **agent.definition.redacted(),
        )


class AgentSummaryOut(BaseModel):
    id: str
    latest_version: int
    created_at: datetime
    updated_at: datetime = Field(description="When its latest version was made.")

    @classmethod
    def of(cls, agent: AgentSummary) -> AgentSummaryOut:
        return cls(
            id=agent.id,
            latest_version=agent.latest_version,
            created_at=agent.created_at,
            updated_at=agent.updated_at,
        )


class AgentPage(BaseModel):
    items: list[AgentSummaryOut]
    next_cursor: str | None


# -- sessions and runs -------------------------------------------------------------------


class InputMessage(Strict):
    role: Literal["user", "system"] = "user"
    content: str | list[Any] | dict[str, Any]


class SendRequest(Strict):
    input: str | list[InputMessage] = Field(
        description="A user message, or a list of messages. `[]` just continues the session.",
    )
    agent_id: str | None = Field(
        default=None,
        pattern=ID_PATTERN,
        description="Required when the session does not exist yet.",
    )
    max_steps: int | None = Field(default=None, ge=1, le=1000)
    if_busy: Literal["queue", "reject", "interrupt"] = "queue"
    agent_version: Annotated[int, Field(ge=1, le=INT32)] | Literal["latest"] | None = Field(
        default=None,
        description="Continue under this version of the session's agent (default: the one "
        "the session started with).",
    )
    on_drift: Literal["warn", "error", "ignore"] | None = Field(
        default=None, description="What a changed definition does (default: the agent's)."
    )
    budget: Budget | None = Field(
        default=None,
        description="Limits for this run, over the agent's `budget` (each one given "
        "replaces the agent's). Raising one above the agent's needs 'agents:write'.",
    )
    session_budget: Budget | None = Field(
        default=None,
        description="Limits for all runs of this session, over the agent's "
        "`session_budget`; kept for later sends. Raising one above the agent's needs "
        "'agents:write'.",
    )
    metadata: Metadata | None = Field(default=None, description="Labels for the new run.")
    session_metadata: Metadata | None = Field(
        default=None,
        description="Labels for the session, merged into those it has (a key given "
        "replaces its value).",
    )

    def input_messages(self) -> list[dict[str, Any]]:
        if isinstance(self.input, str):
            return [{"role": "user", "content": self.input}]
        if len(self.input) > MAX_INPUT_MESSAGES:
            raise errors.InputTooLarge(
                f"at most {MAX_INPUT_MESSAGES} input messages", limit=MAX_INPUT_MESSAGES
            )
        return [m.model_dump() for m in self.input]


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    tool_calls: int = Field(default=0, description="Calls Perdure executed (http, python).")
    cost_usd: float = Field(default=0.0, description="From the model's `price`.")
    wall_time_s: float = Field(
        default=0.0,
        description="Time driven by a worker; not queued, nor paused for a human or a client tool.",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class AgentUsageOut(BaseModel):
    agent_id: str
    sessions: int = Field(description="Sessions of the agent that have runs.")
    runs: int
    usage: Usage = Field(description="What all runs of the agent's sessions spent.")

    @classmethod
    def of(cls, agent_id: str, spent: AgentUsage) -> AgentUsageOut:
        return cls(
            agent_id=agent_id,
            sessions=spent.sessions,
            runs=spent.runs,
            usage=Usage(**spent.usage.as_dict()),
        )


class BudgetExceeded(BaseModel):
    """The limit that ended a run (`finish_reason` "budget_exceeded")."""

    scope: Literal["run", "session"] = Field(
        description="`run`: the run's own budget; `session`: all runs of its session."
    )
    limit: str = Field(description="The limit's name, e.g. `max_tool_calls`.")
    max: float
    used: float = Field(description="What the run (or session) had spent when checked.")


class PendingApproval(BaseModel):
    id: str
    tool_call_id: str
    tool: str
    arguments: Any
    expires_at: datetime | None


class PendingToolCall(BaseModel):
    tool_call_id: str
    name: str
    arguments: Any


class ParentLink(BaseModel):
    """A parent in a run's tree of sub-agents: the run, and its call that started the child."""

    run_id: str
    session_id: str
    agent_id: str
    tool_call_id: str

    @classmethod
    def of(cls, parent: Parent) -> ParentLink:
        return cls(
            run_id=str(parent.run_id),
            session_id=parent.session_id,
            agent_id=parent.agent_id,
            tool_call_id=parent.tool_call_id,
        )


class PlanLedgerEntry(BaseModel):
    """One node a planner started, and how it went."""

    node: str
    capability: str
    tool_call_id: str
    plan_index: int = Field(description="The plan it ran under (0: the first).")
    status: str = Field(description="`running`, `ok`, `error`, `cancelled`, ...")
    child_run_id: str | None
    child_session_id: str | None
    output: Any = None
    error: str | None = None
    usage: dict[str, Any] | None = None


class RunOut(BaseModel):
    id: str
    session_id: str
    status: str
    seq: int = Field(description="The run's number within its session, from 1.")
    agent_version: int
    steps: int
    max_steps: int
    usage: Usage
    attempts: int
    last_error: dict[str, Any] | None
    output: str | None
    finish_reason: str | None
    budget: Budget = Field(description="The run's own limits (the agent's under the send's).")
    budget_exceeded: BudgetExceeded | None = Field(
        description="Which limit ended the run, when `finish_reason` is `budget_exceeded`."
    )
    cancel_requested: bool
    input: list[dict[str, Any]]
    pending_approvals: list[PendingApproval] = Field(default_factory=list)
    pending_tool_calls: list[PendingToolCall] = Field(default_factory=list)
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    metadata: dict[str, str] = Field(description="The caller's labels (send, PATCH).")
    lease_owner: str | None = Field(
        description="The worker that holds the run (`running`); null when none does."
    )
    lease_expires_at: datetime | None = Field(
        description="When that lease runs out unless renewed (the database's clock); a "
        "running run past it has lost its worker."
    )
    parent_run_id: str | None = Field(
        default=None, description="The run whose agent tool's call started this one (a sub-agent)."
    )
    parent_tool_call_id: str | None = Field(
        default=None, description="That call: this run's output becomes its result."
    )
    depth: int = Field(default=0, description="Parents above this run (0: a top-level run).")
    usage_with_children: Usage | None = Field(
        default=None,
        description="What this run and every run under it (its sub-agents') spent together.",
    )
    plan: dict[str, Any] | None = Field(
        default=None,
        description="A planner's current plan (frozen once saved; a re-plan replaces it): "
        "`nodes` (`id`, `capability`, `input`, `depends_on`) and `answer`. Shown by "
        "`GET /v1/runs/{id}`; null for an agent, or before the plan is saved.",
    )
    ledger: list[PlanLedgerEntry] | None = Field(
        default=None,
        description="A planner's executed nodes, in start order: each node's status, child "
        "run, output (or error) and usage.",
    )
    frontier: list[str] | None = Field(
        default=None,
        description="A planner's nodes ready to start (their dependencies finished).",
    )
    replan_count: int | None = Field(
        default=None, description="How many times the planner has re-planned."
    )

    def with_plan(self, view: PlannerView) -> RunOut:
        """The run with its planner's view (`app/domain/plan.py`)."""
        plan = view.plan
        return self.model_copy(
            update={
                "plan": plan.model_dump(mode="json") if plan is not None else None,
                "ledger": [PlanLedgerEntry(**e.as_dict()) for e in view.ledger],
                "frontier": view.frontier(),
                "replan_count": view.replans,
            }
        )

    @classmethod
    def of(
        cls,
        run: RunRecord,
        approvals: list[ApprovalRecord] | None = None,
        awaited: list[AwaitedCall] | None = None,
        tree_usage: DomainUsage | None = None,
    ) -> RunOut:
        return cls(
            parent_run_id=str(run.parent_run_id) if run.parent_run_id is not None else None,
            parent_tool_call_id=run.parent_call_id,
            depth=run.depth,
            usage_with_children=(
                Usage(**tree_usage.as_dict()) if tree_usage is not None else Usage(**run.usage)
            ),
            pending_tool_calls=[
                PendingToolCall(tool_call_id=c.tool_call_id, name=c.name, arguments=c.arguments)
                for c in awaited or []
            ],
            pending_approvals=[
                PendingApproval(
                    id=str(a.id),
                    tool_call_id=a.tool_call_id,
                    tool=a.tool,
                    arguments=a.arguments,
                    expires_at=a.expires_at,
                )
                for a in approvals or []
            ],
            id=str(run.id),
            session_id=run.session_id,
            status=run.status.value,
            seq=run.seq,
            agent_version=run.agent_version,
            steps=run.steps,
            max_steps=run.max_steps,
            usage=Usage(**run.usage),
            attempts=run.attempts,
            last_error=run.last_error,
            output=run.output,
            finish_reason=run.finish_reason,
            budget=Budget.model_validate(run.budget or {}),
            budget_exceeded=(
                BudgetExceeded(**run.budget_exceeded) if run.budget_exceeded is not None else None
            ),
            cancel_requested=run.cancel_requested,
            input=run.input,
            created_at=run.created_at,
            updated_at=run.updated_at,
            finished_at=run.finished_at,
            metadata=run.metadata,
            lease_owner=run.lease_owner,
            lease_expires_at=run.lease_expires_at,
        )


class MetadataPatchIn(Strict):
    metadata: MetadataPatch


class ToolOutputIn(Strict):
    tool_call_id: str = Field(max_length=200)
    output: Any = Field(description="The tool's result: any JSON.")
    is_error: bool = False


class ToolResultsIn(Strict):
    results: list[ToolOutputIn] = Field(min_length=1, max_length=64)


class RunPage(BaseModel):
    items: list[RunOut]
    next_cursor: str | None


class SessionOut(BaseModel):
    id: str
    agent_id: str
    agent_version: int
    status: str = Field(description="The status of the latest run, or `idle`.")
    last_run_id: str | None
    run_count: int
    checkpoint_seq: int
    usage: Usage = Field(description="What all runs of the session spent.")
    budget: Budget = Field(
        description="Limits on all runs of the session: the agent's `session_budget` "
        "under what sends set. A send once one is spent is 409 SESSION_BUDGET_EXHAUSTED."
    )
    metadata: dict[str, str] = Field(description="The caller's labels (send, PATCH).")
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, session: SessionRecord) -> SessionOut:
        return cls(
            id=session.id,
            agent_id=session.agent_id,
            agent_version=session.agent_version,
            status=session.status,
            last_run_id=session.last_run_id,
            run_count=session.run_count,
            checkpoint_seq=session.checkpoint_seq,
            usage=Usage(**session.usage.as_dict()),
            budget=session.budget,
            metadata=session.metadata,
            created_at=session.created_at,
            updated_at=session.updated_at,
        )


class SessionSummaryOut(BaseModel):
    """A session in a list; `GET /v1/sessions/{id}` adds its usage and budget."""

    id: str
    agent_id: str
    agent_version: int
    status: str = Field(description="The status of the latest run, or `idle`.")
    last_run_id: str | None
    run_count: int
    metadata: dict[str, str]
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, session: SessionSummary) -> SessionSummaryOut:
        return cls(
            id=session.id,
            agent_id=session.agent_id,
            agent_version=session.agent_version,
            status=session.status.value,
            last_run_id=session.last_run_id,
            run_count=session.run_count,
            metadata=session.metadata,
            created_at=session.created_at,
            updated_at=session.updated_at,
        )


class SessionPage(BaseModel):
    items: list[SessionSummaryOut]
    next_cursor: str | None


class ToolCallOut(BaseModel):
    id: str = Field(
        description="Perdure's id for the call, unique in the session: the model's own id "
        "when that was free, else a minted one. Results, approvals and client tool outputs "
        "name the call by it."
    )
    provider_call_id: str | None = Field(
        default=None,
        description="The id the model gave the call, sent back to it as is; null if it "
        "gave none (or the call predates this field).",
    )
    name: str
    arguments: Any


class MessageOut(BaseModel):
    """A transcript message; fields that do not apply to its role are left out."""

    seq: int
    role: Literal["system", "user", "assistant", "tool"]
    content: Any
    tool_calls: list[ToolCallOut] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    status: str | None = Field(default=None, description="A tool result's status.")

    @model_serializer(mode="wrap")
    def _without_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None or k == "content"}

    @classmethod
    def transcript(cls, entries: list[Entry], calls: dict[str, ToolCall]) -> list[MessageOut]:
        """Entries as transcript messages: each turn with its calls, then their results.

        `calls` holds the calls of the turns in `entries` (which may lie past the page).
        A call without a result is listed on its turn but has no result message yet.
        """
        items: list[MessageOut] = []
        for entry in entries:
            if isinstance(entry, Message):
                turn_calls = (
                    [
                        ToolCallOut(
                            id=calls[i].id,
                            provider_call_id=calls[i].provider_call_id,
                            name=calls[i].name,
                            arguments=calls[i].arguments,
                        )
                        for i in entry.tool_call_ids
                        if i in calls
                    ]
                    if entry.tool_call_ids
                    else None
                )
                items.append(
                    cls(
                        seq=entry.seq, role=entry.role, content=entry.content, tool_calls=turn_calls
                    )
                )
            elif entry.settled:
                items.append(
                    cls(
                        seq=entry.seq,
                        role="tool",
                        content=entry.result,
                        tool_call_id=entry.id,
                        name=entry.name,
                        status=entry.status.value,
                    )
                )
        return items


class MessagePage(BaseModel):
    items: list[MessageOut]
    next_cursor: str | None


# -- approvals ---------------------------------------------------------------------------


class DecisionIn(Strict):
    approved: bool
    reason: str | None = Field(default=None, max_length=4000)
    arguments: dict[str, Any] | None = Field(
        default=None, description="Edit the call before it runs; checked against its schema."
    )


class Actor(BaseModel):
    """Who did it: the API key's tenant, name and prefix (no prefix: open mode)."""

    tenant_id: str | None
    name: str
    key_prefix: str | None


class ApprovalOut(BaseModel):
    id: str
    status: Literal["pending", "approved", "rejected", "expired", "orphaned"]
    session_id: str
    run_id: str
    tool_call_id: str
    tool: str
    arguments: Any
    decision: dict[str, Any] | None
    decided_by: Actor | None = Field(
        default=None, description="Who decided (none for an expiry or a withdrawal)."
    )
    expires_at: datetime | None
    created_at: datetime
    decided_at: datetime | None
    parent_chain: list[ParentLink] = Field(
        default_factory=list,
        description="When the run is a sub-agent's: its parents, nearest first, up to the "
        "top-level run.",
    )

    @classmethod
    def of(cls, record: ApprovalRecord, parents: list[Parent] | None = None) -> ApprovalOut:
        decision = dict(record.decision) if record.decision is not None else None
        decided_by = decision.pop("decided_by", None) if decision is not None else None
        return cls(
            id=str(record.id),
            status=record.status.value,
            session_id=record.session_id,
            run_id=str(record.run_id),
            tool_call_id=record.tool_call_id,
            tool=record.tool,
            arguments=record.arguments,
            decision=decision,
            decided_by=Actor(**decided_by) if decided_by else None,
            expires_at=record.expires_at,
            created_at=record.created_at,
            decided_at=record.decided_at,
            parent_chain=[ParentLink.of(p) for p in parents or []],
        )


class ApprovalPage(BaseModel):
    items: list[ApprovalOut]
    next_cursor: str | None


# -- history -----------------------------------------------------------------------------


class CheckpointOut(BaseModel):
    seq: int
    step: int
    status: str
    saved_at: datetime
    message_count: int
    run_id: str
    fingerprint: str | None

    @classmethod
    def of(cls, record: CheckpointRecord) -> CheckpointOut:
        return cls(**_checkpoint_fields(record))


def _checkpoint_fields(record: CheckpointRecord) -> dict[str, Any]:
    return {
        "seq": record.seq,
        "step": record.step,
        "status": record.status,
        "saved_at": record.saved_at,
        "message_count": record.message_count,
        "run_id": str(record.run_id),
        "fingerprint": record.fingerprint,
    }


class CheckpointPage(BaseModel):
    items: list[CheckpointOut]
    next_cursor: str | None


class CheckpointDetail(CheckpointOut):
    usage: Usage
    messages: list[MessageOut]

    @classmethod
    def at(cls, record: CheckpointRecord, entries: list[Entry]) -> CheckpointDetail:
        """The save `record` with the transcript as it was then (`entries`)."""
        calls = {e.id: e for e in entries if isinstance(e, ToolCall)}
        return cls(
            **_checkpoint_fields(record),
            usage=Usage(**record.usage),
            messages=MessageOut.transcript(entries, calls),
        )


class PatchCall(Strict):
    id: str = Field(
        min_length=1, max_length=200, description="Unique in the transcript; results name it."
    )
    provider_call_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=1000,
        description="The id the model gave the call, as the transcript shows it; the model "
        "is sent this instead of `id`.",
    )
    name: str = Field(min_length=1, max_length=64)
    arguments: dict[str, Any] = Field(default_factory=dict)


class PatchMessage(Strict):
    role: Literal["system", "user", "assistant", "tool"]
    content: Any = ""
    tool_calls: list[PatchCall] | None = Field(default=None, max_length=64)
    tool_call_id: str | None = Field(default=None, max_length=200)
    is_error: bool = False


class ToolResultPatch(Strict):
    tool_call_id: str = Field(max_length=200)
    result: Any


class ForkPatchIn(Strict):
    messages: list[PatchMessage] | None = Field(
        default=None, max_length=5000, description="Replaces the transcript (applied first)."
    )
    tool_result: ToolResultPatch | None = Field(
        default=None, description="Replaces a call's result in place, or records a missing one."
    )
    append_input: str | list[InputMessage] | None = Field(
        default=None, description="A user message sent after any calls still pending."
    )

    def to_patch(self) -> ForkPatch:
        append: list[dict[str, Any]] = []
        if isinstance(self.append_input, str):
            append = [{"role": "user", "content": self.append_input}]
        elif self.append_input is not None:
            append = [m.model_dump() for m in self.append_input]
        return ForkPatch(
            messages=(None if self.messages is None else [m.model_dump() for m in self.messages]),
            tool_result=(
                None
                if self.tool_result is None
                else (self.tool_result.tool_call_id, self.tool_result.result)
            ),
            append_input=append,
        )


class ForkIn(Strict):
    from_step: int = Field(ge=0, le=INT32, description="Fork from the newest save of this step.")
    patch: ForkPatchIn | None = None
    session_id: str | None = Field(
        default=None,
        pattern=ID_PATTERN,
        max_length=200,
        description=f"Default `<id>.fork-<n>`; {ID_RULE}.",
    )


class ForkOut(BaseModel):
    session_id: str
    from_step: int
    from_checkpoint_seq: int
    checkpoint_seq: int
    run: RunOut


class TrajectoryStep(BaseModel):
    text: Any
    tool_calls: list[dict[str, Any]]


class Trajectory(BaseModel):
    session_id: str
    finish_reason: str | None
    steps: list[TrajectoryStep]


class CompareOut(BaseModel):
    a: Trajectory
    b: Trajectory
    diverged_at: int | None = Field(description="First step that differs, call ids aside.")
    drift: dict[str, Any]


class EventOut(BaseModel):
    id: int = Field(description="Increasing and gap-free within the run's session.")
    type: str
    run_id: UUID
    data: dict[str, Any]
    created_at: datetime

    @classmethod
    def of(cls, event: EventRecord) -> EventOut:
        return cls(
            id=event.id,
            type=event.type,
            run_id=event.run_id,
            data=event.data,
            created_at=event.created_at,
        )


class EventPage(BaseModel):
    items: list[EventOut]
    next_cursor: str | None
