"""Request and response models of schedules (the rest of the contract is in schemas.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from app import errors
from app.api import problems
from app.api.schemas import MAX_INPUT_MESSAGES, InputMessage, check_session_id
from app.domain.agent import ID_PATTERN, Strict
from app.domain.schedule import CatchUp, Outcome, Overlap, SkipReason
from app.store.schedules import FireRecord, ScheduleRecord

# A session of its own per fire is named `<schedule id>-<due time>` (17 characters more),
# and must stay a valid session id.
SCHEDULE_ID_MAX = 180
SCHEDULE_ID_RULE = "1-180 of A-Za-z0-9_-., not starting or ending with '.'"
TIMEZONE_PATTERN = r"^[A-Za-z0-9_+\-/]{1,64}$"
MAX_INTERVAL_S = 366 * 86400
MAX_JITTER_S = 3600


class ScheduleCreate(Strict):
    id: str = Field(pattern=ID_PATTERN, max_length=SCHEDULE_ID_MAX, description=SCHEDULE_ID_RULE)
    agent_id: str = Field(pattern=ID_PATTERN, max_length=200)
    cron: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="A cron expression read in `timezone`: 5 fields (minute hour day month "
        "weekday), or 6 with seconds last; `@daily` and kin. Exactly one of `cron` and "
        "`interval_s`.",
    )
    interval_s: int | None = Field(
        default=None,
        ge=1,
        le=MAX_INTERVAL_S,
        description="Every this many seconds from the schedule's creation.",
    )
    timezone: str = Field(
        default="UTC",
        pattern=TIMEZONE_PATTERN,
        description="An IANA zone (`Europe/Paris`); cron times are its wall-clock times.",
    )
    input: str | list[InputMessage] = Field(description="What each fire sends, as a send's.")
    session: str = Field(
        default="new",
        max_length=200,
        description="`new`: each fire starts a session of its own, "
        "`<schedule id>-<due time, UTC>`; else the id of the one session every fire sends "
        "to (its runs queue there one behind the other).",
    )
    overlap: Literal["skip", "queue", "cancel_previous"] = Field(
        default="skip",
        description="When the previous fire's run has not ended: `skip` this fire, `queue` "
        "a run anyway, or `cancel_previous` and start.",
    )
    catch_up: Literal["all", "latest"] = Field(
        default="all",
        description="Due times missed while no worker ran, within the catch-up window "
        "(PERDURE_SCHEDULE_CATCH_UP_S): `all` fire once each, `latest` only the newest. "
        "Older ones are recorded as skipped (`missed`).",
    )
    jitter_s: int = Field(
        default=0,
        ge=0,
        le=MAX_JITTER_S,
        description="Fire up to this many seconds after each due time, at random.",
    )
    metadata: dict[str, Any] = Field(default_factory=dict, max_length=64)

    def input_messages(self) -> list[dict[str, Any]]:
        if isinstance(self.input, str):
            return [{"role": "user", "content": self.input}]
        if len(self.input) > MAX_INPUT_MESSAGES:
            raise errors.InputTooLarge(
                f"at most {MAX_INPUT_MESSAGES} input messages", limit=MAX_INPUT_MESSAGES
            )
        return [m.model_dump() for m in self.input]

    def fixed_session(self) -> str | None:
        """None for `new`; else the session id, which must be a valid one."""
        return None if self.session == "new" else check_session_id(self.session)


class ScheduleOut(BaseModel):
    id: str
    agent_id: str
    cron: str | None
    interval_s: int | None
    timezone: str
    input: list[dict[str, Any]]
    session: str
    overlap: Overlap
    catch_up: CatchUp
    jitter_s: int
    metadata: dict[str, Any]
    status: Literal["active", "paused"]
    next_due_at: datetime | None = Field(description="None while paused.")
    last_run_id: str | None = Field(description="The run the latest started fire started.")
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, record: ScheduleRecord) -> ScheduleOut:
        return cls(
            id=record.id,
            agent_id=record.agent_id,
            cron=record.cron,
            interval_s=record.interval_s,
            timezone=record.timezone,
            input=record.input,
            session=record.session_id or "new",
            overlap=record.overlap,
            catch_up=record.catch_up,
            jitter_s=record.jitter_s,
            metadata=record.metadata,
            status="paused" if record.paused else "active",
            next_due_at=None if record.paused else record.next_due_at,
            last_run_id=str(record.last_run_id) if record.last_run_id else None,
            created_at=record.created_at,
            updated_at=record.updated_at,
        )


class SchedulePage(BaseModel):
    items: list[ScheduleOut]
    next_cursor: str | None


class FireError(BaseModel):
    code: str = Field(description="The problem code a send would have answered.")
    message: str


class FireOut(BaseModel):
    due_at: datetime
    fired_at: datetime
    outcome: Outcome
    reason: SkipReason | None = Field(
        description="Why it was skipped: the previous run had not ended (`overlap`), it was "
        "older than the catch-up window (`missed`), a later due time fired instead "
        "(`superseded`)."
    )
    run_id: str | None
    session_id: str | None
    previous_run_id: str | None = Field(
        description="The previous fire's run, when it had not ended: still going (skipped), "
        "or cancelled (cancel_previous)."
    )
    error: FireError | None
    detail: dict[str, Any] | None

    @classmethod
    def of(cls, record: FireRecord) -> FireOut:
        error = None
        if record.error is not None:
            error = FireError(
                code=problems.code_of(str(record.error.get("kind", ""))),
                message=str(record.error.get("message", "")),
            )
        return cls(
            due_at=record.due_at,
            fired_at=record.fired_at,
            outcome=record.outcome,
            reason=record.reason,
            run_id=str(record.run_id) if record.run_id else None,
            session_id=record.session_id,
            previous_run_id=str(record.previous_run_id) if record.previous_run_id else None,
            error=error,
            detail=record.detail,
        )


class FirePage(BaseModel):
    items: list[FireOut]
    next_cursor: str | None
