"""Domain errors. They carry data, never HTTP status codes: `app/api/problems.py` maps them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


class AppError(Exception):
    """Root of every error the service raises on purpose."""

    def __init__(self, detail: str, **data: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.data = data


class NotFound(AppError):
    pass


class AgentNotFound(NotFound):
    pass


class SessionNotFound(NotFound):
    pass


class RunNotFound(NotFound):
    pass


class ApprovalNotFound(NotFound):
    pass


class ApprovalAlreadyDecided(AppError):
    pass


class ApprovalOrphaned(AppError):
    pass


@dataclass(frozen=True)
class FieldError:
    """One thing wrong in a request's body, found past the API's own validation: where
    (`path`, under the `field` of the error that carries it), why, and what kind."""

    path: tuple[str, ...]
    message: str
    kind: str = "value_error"


class InvalidInput(AppError):
    """Input that fits the request's shape but not what it meets (a tool's schema, the
    operator's grants, the calls a run awaits), found past the API.

    `field` says where in the request body (("results", "0", "tool_call_id")), and each of
    `problems` where under it. The API turns them into the `loc` paths and the detail of
    a validation problem, as FastAPI's own.
    """

    # Where the request held it: its body, or (for a list's filters) its query string.
    location = "body"

    def __init__(
        self,
        detail: str,
        *,
        field: tuple[str, ...] = (),
        problems: Sequence[FieldError] = (),
        **data: Any,
    ) -> None:
        super().__init__(detail, **data)
        self.field = field
        self.problems = list(problems)


class ApprovalArgumentsInvalid(InvalidInput):
    pass


class RunNotAwaitingToolResults(AppError):
    pass


class ToolResultAlreadyRecorded(AppError):
    pass


class UnknownToolCall(InvalidInput):
    pass


class CheckpointNotFound(NotFound):
    pass


class SessionExists(AppError):
    pass


class InvalidForkPatch(AppError):
    pass


class AgentDrift(AppError):
    pass


class ResumeToolMissing(AppError):
    pass


class AgentExists(AppError):
    pass


class SessionIdInvalid(AppError):
    pass


class SessionAgentMismatch(AppError):
    pass


class InvalidCursor(AppError):
    pass


class InputTooLarge(AppError):
    pass


class SessionBusy(AppError):
    pass


class SessionAwaitingApproval(AppError):
    pass


class RunNotResumable(AppError):
    pass


class RunNotCancellable(AppError):
    pass


class InvalidDefinition(InvalidInput):
    """An agent definition that parses but cannot work (a bad JSON Schema, duplicate tools)."""


class BudgetInvalid(InvalidInput):
    """A budget a send sets that cannot be checked (a cost limit without a price)."""


class MetadataInvalid(InvalidInput):
    """Metadata past its bounds once merged with what the object holds (too many keys)."""


class FilterInvalid(InvalidInput):
    """A list's filter that no object could match as asked (a bad metadata key, a time
    range that ends before it starts)."""

    location = "query"


class SessionBudgetExhausted(AppError):
    """A send would start a run on a session that has spent a limit of its budget."""


class DatabaseUnavailable(AppError):
    pass


class IdempotencyKeyReused(AppError):
    """An Idempotency-Key sent again with a different request body."""


class Unauthorized(AppError):
    """No API key, or one that is unknown or revoked: the same answer for all three."""


class Forbidden(AppError):
    """A valid key without the scope the operation needs (`data["scope"]` names it)."""


class SelfApproval(AppError):
    """The tool needs a distinct approver, and the decider is who started the run."""


class KeyNotFound(NotFound):
    pass


class LeaseLost(AppError):
    """A fenced write matched no row: another worker holds the run now. Only workers see this."""


class ResultAlreadyRecorded(LeaseLost):
    """A save carried a tool result for a call that had one already (a result is written
    once): the save committed nothing of it, and the writer must stop driving the run
    as if its lease were lost, since the database knows more than it does."""


class WebhookNotFound(NotFound):
    pass


class WebhookUrlRefused(AppError):
    """A webhook URL the operator's egress rule refuses (PERDURE_EGRESS)."""


class ScheduleNotFound(NotFound):
    pass


class ScheduleExists(AppError):
    pass


class ScheduleInvalid(InvalidInput):
    """A cron expression, time zone or interval a schedule cannot run on."""
