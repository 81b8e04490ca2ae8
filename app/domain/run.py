"""A run and its transcript as the engine sees them, and the checkpoint it asks to save.

The transcript is a list of entries ordered by `seq`: messages (system, user, assistant)
and tool calls, each call placed right after its assistant turn in call order. A call
carries its result once it settles.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from uuid import UUID

from app.domain.budget import Budget, Exceeded
from app.domain.budget import Usage as Usage  # where the engine and stores have found it


class RunStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    AWAITING_APPROVAL = "awaiting_approval"
    AWAITING_TOOL_RESULTS = "awaiting_tool_results"
    # Its batch started child runs (sub-agents): no lease held; queued again by the
    # transaction that ends its last child.
    AWAITING_CHILDREN = "awaiting_children"
    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"


class SessionStatus(StrEnum):
    """A session's status: that of its latest run, or `idle` when it has none."""

    IDLE = "idle"
    QUEUED = RunStatus.QUEUED.value
    RUNNING = RunStatus.RUNNING.value
    AWAITING_APPROVAL = RunStatus.AWAITING_APPROVAL.value
    AWAITING_TOOL_RESULTS = RunStatus.AWAITING_TOOL_RESULTS.value
    FINISHED = RunStatus.FINISHED.value
    FAILED = RunStatus.FAILED.value
    CANCELLED = RunStatus.CANCELLED.value


TERMINAL = frozenset({RunStatus.FINISHED, RunStatus.FAILED, RunStatus.CANCELLED})
PAUSED = frozenset(
    {RunStatus.AWAITING_APPROVAL, RunStatus.AWAITING_TOOL_RESULTS, RunStatus.AWAITING_CHILDREN}
)
# A run in one of these holds its session: later sends queue behind it.
ACTIVE = frozenset({RunStatus.QUEUED, RunStatus.RUNNING, *PAUSED})


class CallStatus(StrEnum):
    PENDING = "pending"  # recorded with its turn, no result yet
    RUNNING = "running"  # an at-most-once call whose start was recorded
    OK = "ok"
    ERROR = "error"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"
    REJECTED = "rejected"


UNSETTLED = frozenset({CallStatus.PENDING, CallStatus.RUNNING})


@dataclass
class Message:
    seq: int
    role: str  # system | user | assistant
    content: Any
    tool_call_ids: list[str] = field(default_factory=list)
    # An assistant turn's provider-specific parts, given back verbatim to the provider
    # that wrote them (`app.providers.base.ModelReply.provider_data`).
    provider_data: dict[str, Any] = field(default_factory=dict)


class ApprovalStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    EXPIRED = "expired"  # rejected by the workers once `expires_at` passed
    ORPHANED = "orphaned"  # withdrawn: its run no longer waits on it


@dataclass
class Approval:
    """A human's say on one gated call, as the engine needs it."""

    id: str
    status: ApprovalStatus
    reason: str | None = None
    # Arguments the approver edited the call to; None keeps the model's.
    arguments: dict[str, Any] | None = None


@dataclass
class ClientOutput:
    """What the caller posted for a client tool's call."""

    output: Any
    is_error: bool = False


@dataclass
class NewApproval:
    id: str
    tool_call_id: str
    tool: str
    arguments: Any
    timeout_s: float | None


@dataclass
class ChildRun:
    """The run an agent tool's call started, as its parent needs it to settle the call."""

    run_id: UUID
    session_id: str
    status: RunStatus
    output: str | None = None
    finish_reason: str | None = None
    last_error: dict[str, Any] | None = None
    # What the child spent (its own usage), for a planner's ledger.
    usage: dict[str, Any] | None = None

    @property
    def ended(self) -> bool:
        return self.status in TERMINAL


@dataclass
class NewChild:
    """A child run the parent's pause creates, in its child session, in the same
    transaction (`app/store/children.py`)."""

    run_id: UUID
    tool_call_id: str
    session_id: str
    agent_id: str
    agent_version: int | None
    input: list[dict[str, Any]]


def child_session_id(parent_session_id: str, tool_call_id: str) -> str:
    """The session of the child run an agent tool's call starts: derived from the call
    alone, so a parent that runs the call again after a crash finds the same child.

    A valid session id whatever the call id holds (call ids are the model's own): the
    parent's id, cut to leave room, then a digest of both.
    """
    digest = hashlib.sha256(f"{parent_session_id}\0{tool_call_id}".encode()).hexdigest()[:24]
    return f"{parent_session_id[:170].rstrip('.')}.sub-{digest}"


@dataclass
class ToolCall:
    # Perdure's id, unique in the session: the model's own id when it sent one that was
    # free, else a minted one (`provider_call_id` then keeps the model's).
    id: str
    seq: int
    message_seq: int
    idx: int
    name: str
    arguments: Any
    status: CallStatus = CallStatus.PENDING
    result: Any = None
    approval: Approval | None = None
    client_output: ClientOutput | None = None
    # The model's id for the call, as it sent it; None if it sent none.
    provider_call_id: str | None = None
    # The child run an agent tool's call started, once it exists.
    child: ChildRun | None = None

    @property
    def settled(self) -> bool:
        return self.status not in UNSETTLED

    @property
    def wire_id(self) -> str:
        """The id the provider knows the call by: its own, or else Perdure's."""
        return self.provider_call_id if self.provider_call_id is not None else self.id


Entry = Message | ToolCall


@dataclass
class RunState:
    """Everything the engine needs to continue a run, as loaded at claim time."""

    run_id: UUID
    tenant_id: str
    session_id: str
    input: list[dict[str, Any]]
    input_appended: bool
    steps: int
    max_steps: int
    usage: Usage
    attempts: int
    entries: list[Entry]
    next_seq: int
    next_checkpoint_seq: int
    # Model calls made in this session so far: the scripted model's position.
    position: int
    # What this run may spend, and what all runs of its session may (with what the
    # session's other runs have spent: they do not change while this one runs).
    budget: Budget = field(default_factory=Budget)
    session_budget: Budget = field(default_factory=Budget)
    session_usage: Usage = field(default_factory=Usage)
    # What its child runs (sub-agents, and theirs) spent: they count toward its budget.
    children_usage: Usage = field(default_factory=Usage)
    # A child run's place in its tree: its parent's session (None: a top-level run) and
    # how many parents it has.
    parent_session_id: str | None = None
    depth: int = 0
    calls: dict[str, ToolCall] = field(init=False)
    # Transcript entries a reader sees: messages plus settled calls.
    visible_count: int = field(init=False)

    def __post_init__(self) -> None:
        self.calls = {e.id: e for e in self.entries if isinstance(e, ToolCall)}
        self.visible_count = sum(1 for e in self.entries if isinstance(e, Message) or e.settled)

    def append(self, entry: Entry) -> None:
        self.entries.append(entry)
        if isinstance(entry, ToolCall):
            self.calls[entry.id] = entry
        if isinstance(entry, Message) or entry.settled:
            self.visible_count += 1

    def settle(self, tool_call_id: str, status: CallStatus, result: Any) -> None:
        call = self.calls[tool_call_id]
        if not call.settled and status not in UNSETTLED:
            self.visible_count += 1
        call.status, call.result = status, result

    def calls_of(self, message: Message) -> list[ToolCall]:
        return [self.calls[call_id] for call_id in message.tool_call_ids]

    def last_assistant(self) -> Message | None:
        for entry in reversed(self.entries):
            if isinstance(entry, Message) and entry.role == "assistant":
                return entry
        return None

    def unsettled_calls(self) -> list[ToolCall]:
        last = self.last_assistant()
        return [c for c in self.calls_of(last) if not c.settled] if last else []

    def has_system_message(self) -> bool:
        return any(isinstance(e, Message) and e.role == "system" for e in self.entries)


@dataclass
class NewMessage:
    seq: int
    role: str
    content: Any
    tool_call_ids: list[str] = field(default_factory=list)
    provider_data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Settlement:
    tool_call_id: str
    status: CallStatus
    result: Any


@dataclass
class CheckpointWrite:
    """One fenced save: new log entries, settled calls, and the run's new fields.

    `status` RUNNING keeps the lease; any other status releases it. `save` False writes the
    run's fields without a checkpoint row (a retry back-off or a lease hand-back).
    """

    checkpoint_seq: int
    status: RunStatus
    steps: int
    usage: Usage
    message_count: int
    messages: list[NewMessage] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    # Settlements with status RUNNING record an at-most-once call's start (its intent).
    settlements: list[Settlement] = field(default_factory=list)
    approvals: list[NewApproval] = field(default_factory=list)
    # Child runs started by this save (an `awaiting_children` pause): same transaction.
    children: list[NewChild] = field(default_factory=list)
    # Calls that start right after this save (a turn's calls that need nobody): an event.
    started: list[str] = field(default_factory=list)
    input_seq: int | None = None
    output: str | None = None
    finish_reason: str | None = None
    attempts: int = 0
    last_error: dict[str, Any] | None = None
    delay_s: float = 0.0
    save: bool = True
    fingerprint: str | None = None
    # The budget that ended the run (`finish_reason` "budget_exceeded"), and its event.
    budget_exceeded: Exceeded | None = None

    @property
    def progress(self) -> bool:
        """Whether this write moves the run on: a checkpoint (input, a turn, results), or a
        status that ends or pauses it. A lease hand-back, a retry back-off or an intent
        record does not; a run under suspicion of killing its workers is cleared by progress.
        """
        return self.save or self.status not in (RunStatus.RUNNING, RunStatus.QUEUED)
