"""The schema as SQLAlchemy Core tables: Alembic's target, and what the store queries.

The transcript is an append-only log (`messages` for system, user and assistant turns;
`tool_calls` for each call and, once it settles, its result). Every row carries the
checkpoint sequence number that wrote it, so any earlier save can be rebuilt exactly.
A tool call's `seq` is its place in the transcript, reserved in call order when its turn
is saved, so results may settle in any order and the transcript still reads in call order.
A call's `tool_call_id` is unique in its session (the model's own id when that was free);
`provider_call_id` is the id the model gave it, exactly what goes back to the model.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

from app.domain.run import ApprovalStatus, CallStatus, RunStatus
from app.domain.schedule import CatchUp, Outcome, Overlap, SkipReason

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)


def sql_list(statuses: Iterable[StrEnum]) -> str:
    """A set of statuses as an SQL list, for statements written as text: `('a', 'b')`."""
    return "(" + ", ".join(f"'{status.value}'" for status in sorted(statuses)) + ")"


def _in(column: str, statuses: Iterable[StrEnum]) -> str:
    return f"{column} IN {sql_list(statuses)}"


def _created() -> Column[object]:
    return Column(
        "created_at", DateTime(timezone=True), nullable=False, server_default=text("now()")
    )


def _tenant() -> Column[object]:
    # No default: a write that forgets the tenant fails rather than land in another one.
    return Column("tenant_id", Text, nullable=False)


def _session_fk() -> ForeignKeyConstraint:
    return ForeignKeyConstraint(
        ["tenant_id", "session_id"], ["sessions.tenant_id", "sessions.id"], ondelete="CASCADE"
    )


def _updated() -> Column[object]:
    return Column(
        "updated_at", DateTime(timezone=True), nullable=False, server_default=text("now()")
    )


agents = Table(
    "agents",
    metadata,
    _tenant(),
    Column("id", Text, nullable=False),
    Column("latest_version", Integer, nullable=False),
    _created(),
    _updated(),
    PrimaryKeyConstraint("tenant_id", "id"),
)
# The agents list: a tenant's, newest first, keyset-paginated on (created_at, id).
Index("ix_agents_tenant_created", agents.c.tenant_id, agents.c.created_at, agents.c.id)

agent_versions = Table(
    "agent_versions",
    metadata,
    _tenant(),
    Column("agent_id", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("definition", JSONB, nullable=False),
    Column("fingerprint", JSONB, nullable=False),
    _created(),
    PrimaryKeyConstraint("tenant_id", "agent_id", "version"),
    ForeignKeyConstraint(
        ["tenant_id", "agent_id"], ["agents.tenant_id", "agents.id"], ondelete="CASCADE"
    ),
)

sessions = Table(
    "sessions",
    metadata,
    _tenant(),
    Column("id", Text, nullable=False),
    Column("agent_id", Text, nullable=False),
    Column("agent_version", Integer, nullable=False),
    # Allocates run numbers; a send locks this row, which serialises sends to one session.
    Column("run_count", Integer, nullable=False, server_default=text("0")),
    Column("metadata", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    Column("parent_session_id", Text, nullable=True),
    Column("parent_checkpoint_seq", BigInteger, nullable=True),
    # The limits a send set for all runs of this session, over its agent's
    # `session_budget` (NULL: the agent's as they are).
    Column("budget", JSONB, nullable=True),
    _created(),
    _updated(),
    PrimaryKeyConstraint("tenant_id", "id"),
    ForeignKeyConstraint(["tenant_id", "agent_id"], ["agents.tenant_id", "agents.id"]),
)
# The sessions list: a tenant's, newest first, keyset-paginated on (created_at, id).
Index("ix_sessions_tenant_created", sessions.c.tenant_id, sessions.c.created_at, sessions.c.id)
# `?metadata.k=v` filters are `metadata @> '{"k": "v"}'`: jsonb_path_ops answers
# containment (and only that) from a smaller index than the default jsonb_ops.
Index(
    "ix_sessions_metadata",
    sessions.c.metadata,
    postgresql_using="gin",
    postgresql_ops={"metadata": "jsonb_path_ops"},
)

runs = Table(
    "runs",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    _tenant(),
    Column("session_id", Text, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("status", Text, nullable=False),
    Column("input", JSONB, nullable=False),
    # Transcript seq of the input's first message once appended; NULL until then.
    Column("input_seq", BigInteger, nullable=True),
    Column("idempotency_key", Text, nullable=True),
    # Digest of the request that used the key: the same key with another body is refused.
    Column("request_fingerprint", Text, nullable=True),
    # Who sent the input (tenant, key name and prefix): a distinct approver must differ.
    Column("created_by", JSONB, nullable=True),
    # The W3C trace context (`traceparent`, `tracestate`) of the request that queued it,
    # when tracing was on: the worker's spans for the run join that trace.
    Column("trace_context", JSONB, nullable=True),
    Column("agent_version", Integer, nullable=False),
    Column("steps", Integer, nullable=False, server_default=text("0")),
    Column("max_steps", Integer, nullable=False),
    Column("usage", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    Column("attempts", Integer, nullable=False, server_default=text("0")),
    Column("last_error", JSONB, nullable=True),
    Column("output", Text, nullable=True),
    Column("finish_reason", Text, nullable=True),
    # The run's own limits, resolved at send (the agent's `budget` under the send's), and
    # which one ended it (`finish_reason` "budget_exceeded"). NULL: none.
    Column("budget", JSONB, nullable=True),
    Column("budget_exceeded", JSONB, nullable=True),
    # The caller's string labels (domain/metadata.py), set at send or by PATCH.
    Column("metadata", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    Column("not_before", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    Column("cancel_requested", Boolean, nullable=False, server_default=text("false")),
    # How many times a worker claimed it: a run that keeps killing workers shows here.
    Column("claims", Integer, nullable=False, server_default=text("0")),
    # Under suspicion of killing its workers: taken from a worker that died while driving
    # it, and no progress since. Only an idle worker claims it, and nothing beside it.
    Column("suspect", Boolean, nullable=False, server_default=text("false")),
    # Workers that died while driving it alone since its last progress; at
    # PERDURE_POISON_MAX_DEATHS the claim fails it (`poison_run`) instead of driving it.
    Column("deaths", Integer, nullable=False, server_default=text("0")),
    Column("lease_owner", Text, nullable=True),
    Column("lease_token", BigInteger, nullable=False, server_default=text("0")),
    # Deliberately not indexed: heartbeats then stay HOT updates.
    Column("lease_expires_at", DateTime(timezone=True), nullable=True),
    _created(),
    _updated(),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    # A child run (a sub-agent's): the run whose call started it, that run's session and
    # the call (its result will be this run's output), and how many parents it has.
    # No foreign key: a child outlives a deleted parent session, as an ordinary run.
    Column("parent_run_id", UUID(as_uuid=True), nullable=True),
    Column("parent_session_id", Text, nullable=True),
    Column("parent_call_id", Text, nullable=True),
    Column("depth", Integer, nullable=False, server_default=text("0")),
    CheckConstraint(_in("status", RunStatus), name="status"),
    UniqueConstraint("tenant_id", "session_id", "seq"),
    UniqueConstraint("tenant_id", "session_id", "idempotency_key"),
    _session_fk(),
)

# The claim takes ordinary runs from the queued ones only, in the order it serves them.
Index(
    "ix_runs_claimable",
    runs.c.not_before,
    postgresql_where=text("status = 'queued'"),
)
# Queued runs under suspicion, apart from the backlog of ordinary queued runs.
Index(
    "ix_runs_suspect",
    runs.c.not_before,
    postgresql_where=text("status = 'queued' AND suspect"),
)
# A worker's running runs: what a claim looks through when that worker is dead or late.
# `lease_owner` changes only with a claim or a release, so renewals stay HOT.
Index(
    "ix_runs_lease_owner",
    runs.c.lease_owner,
    postgresql_where=text("status = 'running'"),
)
# The ops list: a tenant's, by status, newest first, keyset-paginated on (created_at, id).
Index(
    "ix_runs_tenant_status_created", runs.c.tenant_id, runs.c.status, runs.c.created_at, runs.c.id
)
Index("ix_runs_tenant_created", runs.c.tenant_id, runs.c.created_at, runs.c.id)
# `?metadata.k=v` on the ops list. Checkpoints and renewals never write `metadata`, so
# their updates stay HOT beside this index. The column's statistics target is raised
# (migration 0023) so that a selective filter is estimated as one and reads this index.
Index(
    "ix_runs_metadata",
    runs.c.metadata,
    postgresql_using="gin",
    postgresql_ops={"metadata": "jsonb_path_ops"},
)
# One child run per call, whatever crashes the parent goes through; also how a parent
# session finds its children (by its unsettled calls) and its children's siblings.
Index(
    "uq_runs_parent_call",
    runs.c.tenant_id,
    runs.c.parent_session_id,
    runs.c.parent_call_id,
    unique=True,
    postgresql_where=text("parent_call_id IS NOT NULL"),
)

messages = Table(
    "messages",
    metadata,
    _tenant(),
    Column("session_id", Text, nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("run_id", UUID(as_uuid=True), nullable=False),
    Column("role", Text, nullable=False),
    Column("content", JSONB, nullable=False),
    Column("checkpoint_seq", BigInteger, nullable=False),
    PrimaryKeyConstraint("tenant_id", "session_id", "seq"),
    CheckConstraint("role IN ('system', 'user', 'assistant')", name="role"),
    _session_fk(),
)

tool_calls = Table(
    "tool_calls",
    metadata,
    _tenant(),
    Column("session_id", Text, nullable=False),
    Column("tool_call_id", Text, nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("run_id", UUID(as_uuid=True), nullable=False),
    Column("message_seq", BigInteger, nullable=False),
    Column("idx", Integer, nullable=False),
    Column("name", Text, nullable=False),
    Column("arguments", JSONB, nullable=False),
    Column("status", Text, nullable=False),
    Column("result", JSONB, nullable=True),
    Column("checkpoint_seq", BigInteger, nullable=False),
    Column("result_checkpoint_seq", BigInteger, nullable=True),
    Column("approval_id", UUID(as_uuid=True), nullable=True),
    # The model's id for the call (not unique: some providers reuse ids); NULL: it had none.
    Column("provider_call_id", Text, nullable=True),
    PrimaryKeyConstraint("tenant_id", "session_id", "tool_call_id"),
    UniqueConstraint("tenant_id", "session_id", "seq"),
    CheckConstraint(_in("status", CallStatus), name="status"),
    _session_fk(),
)

checkpoints = Table(
    "checkpoints",
    metadata,
    _tenant(),
    Column("session_id", Text, nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("run_id", UUID(as_uuid=True), nullable=False),
    Column("step", Integer, nullable=False),
    Column("status", Text, nullable=False),
    Column("usage", JSONB, nullable=False),
    Column("message_count", Integer, nullable=False),
    Column("saved_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    # Digest of the agent definition the save ran under (its parts live on agent_versions).
    Column("fingerprint", Text, nullable=True),
    PrimaryKeyConstraint("tenant_id", "session_id", "seq"),
    _session_fk(),
)

# Approvals outlive their session on purpose: a decision on the approval of a deleted
# session must find it and answer APPROVAL_ORPHANED, not 404.
approvals = Table(
    "approvals",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    _tenant(),
    Column("session_id", Text, nullable=False),
    Column("run_id", UUID(as_uuid=True), nullable=False),
    Column("tool_call_id", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("request", JSONB, nullable=False),
    Column("decision", JSONB, nullable=True),
    Column("expires_at", DateTime(timezone=True), nullable=True),
    _created(),
    Column("decided_at", DateTime(timezone=True), nullable=True),
    CheckConstraint(_in("status", ApprovalStatus), name="status"),
)
Index(
    "ix_approvals_tenant_status_created",
    approvals.c.tenant_id,
    approvals.c.status,
    approvals.c.created_at,
    approvals.c.id,
)
Index("ix_approvals_run_id", approvals.c.run_id)
# The workers' expiry sweep looks only at pending approvals that can expire.
Index(
    "ix_approvals_pending_expiry",
    approvals.c.expires_at,
    postgresql_where=text("status = 'pending' AND expires_at IS NOT NULL"),
)

# The event log: every state change of a run, written by the statement (or in the
# transaction) that makes the change, so a write that was fenced out emits nothing. Ids
# are per session, gap-free and in commit order (`event_heads` hands them out under a row
# lock held to commit), so a reader that has seen id N misses nothing by reading `> N`.
# No foreign key: each insert would pay for its check; `delete_session` deletes them.
events = Table(
    "events",
    metadata,
    _tenant(),
    Column("session_id", Text, nullable=False),
    Column("id", BigInteger, nullable=False),
    Column("run_id", UUID(as_uuid=True), nullable=False),
    Column("type", Text, nullable=False),
    Column("data", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    PrimaryKeyConstraint("tenant_id", "session_id", "id"),
)

# The last event id of each session. Its row lock is the last lock every event-writing
# statement takes, so it serialises a session's events without joining any lock cycle.
event_heads = Table(
    "event_heads",
    metadata,
    _tenant(),
    Column("session_id", Text, nullable=False),
    Column("last_id", BigInteger, nullable=False),
    PrimaryKeyConstraint("tenant_id", "session_id"),
    _session_fk(),
)

# Outputs of client tools as the caller posted them. The worker turns each into the
# call's result through its fenced checkpoint; the primary key keeps one per call.
tool_outputs = Table(
    "tool_outputs",
    metadata,
    _tenant(),
    Column("session_id", Text, nullable=False),
    Column("tool_call_id", Text, nullable=False),
    Column("run_id", UUID(as_uuid=True), nullable=False),
    Column("output", JSONB, nullable=True),
    Column("is_error", Boolean, nullable=False, server_default=text("false")),
    Column("submitted_at", DateTime(timezone=True), nullable=False, server_default=text("now()")),
    PrimaryKeyConstraint("tenant_id", "session_id", "tool_call_id"),
    _session_fk(),
)

# The fleet, one row per worker process that ever claimed a run and may still hold one:
# a claim asks each worker, not each running run, whether it is alive (its liveness
# lock) and on time (`heartbeat_at`, bumped by its renewals), so the claim's cost does not
# grow with the number of running runs. Fleet-wide, not a tenant's: it holds no tenant
# data, and a worker serves every tenant. The claim that first sets a run's `lease_owner`
# inserts its row; housekeeping deletes the rows of dead workers that hold nothing.
workers = Table(
    "workers",
    metadata,
    Column("owner", Text, primary_key=True),
    Column("lease_ttl_s", Float, nullable=False),
    Column("heartbeat_at", DateTime(timezone=True), nullable=False),
    _created(),
    info={"fleet": True},
)

# Schedules: a cadence that starts runs (app/domain/schedule.py). `next_due_at` is the
# next due time not yet handled and `next_fire_at` when to handle it (plus jitter); a
# worker claims a due schedule by locking its row (SKIP LOCKED) and, in that one
# transaction, writes its fire rows, starts their runs and moves `next_due_at` on.
schedules = Table(
    "schedules",
    metadata,
    _tenant(),
    Column("id", Text, nullable=False),
    Column("agent_id", Text, nullable=False),
    Column("cron", Text, nullable=True),
    Column("interval_s", Integer, nullable=True),
    Column("timezone", Text, nullable=False),
    Column("input", JSONB, nullable=False),
    # NULL: every fire starts a new session; else the one session every fire sends to.
    Column("session_id", Text, nullable=True),
    Column("overlap", Text, nullable=False),
    Column("catch_up", Text, nullable=False),
    Column("jitter_s", Integer, nullable=False, server_default=text("0")),
    Column("metadata", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    # Who made it: the runs it starts are theirs (a distinct approver must differ).
    Column("created_by", JSONB, nullable=True),
    Column("paused", Boolean, nullable=False, server_default=text("false")),
    # Interval cadences are due at anchor_at + k * interval_s.
    Column("anchor_at", DateTime(timezone=True), nullable=False),
    Column("next_due_at", DateTime(timezone=True), nullable=False),
    Column("next_fire_at", DateTime(timezone=True), nullable=False),
    # The run the latest started fire started: what `overlap` looks at.
    Column("last_run_id", UUID(as_uuid=True), nullable=True),
    _created(),
    _updated(),
    PrimaryKeyConstraint("tenant_id", "id"),
    ForeignKeyConstraint(["tenant_id", "agent_id"], ["agents.tenant_id", "agents.id"]),
    CheckConstraint("(cron IS NULL) <> (interval_s IS NULL)", name="cadence"),
    CheckConstraint(_in("overlap", Overlap), name="overlap"),
    CheckConstraint(_in("catch_up", CatchUp), name="catch_up"),
)
# What the workers' firing claim scans: due schedules, fleet-wide, soonest first.
Index("ix_schedules_due", schedules.c.next_fire_at, postgresql_where=text("NOT paused"))

# One row per due time of a schedule that was handled: the key is what makes a due time
# fire once, whatever the number of workers (a second insert would fail the transaction
# that also started the run).
schedule_fires = Table(
    "schedule_fires",
    metadata,
    _tenant(),
    Column("schedule_id", Text, nullable=False),
    Column("due_at", DateTime(timezone=True), nullable=False),
    Column("outcome", Text, nullable=False),
    Column("reason", Text, nullable=True),
    Column("run_id", UUID(as_uuid=True), nullable=True),
    Column("session_id", Text, nullable=True),
    # The previous fire's run: still going (skipped), or the one cancelled.
    Column("previous_run_id", UUID(as_uuid=True), nullable=True),
    Column("error", JSONB, nullable=True),
    Column("detail", JSONB, nullable=True),
    # Which worker process handled it (not shown to tenants).
    Column("fired_by", Text, nullable=True),
    Column(
        "fired_at",
        DateTime(timezone=True),
        nullable=False,
        server_default=text("clock_timestamp()"),
    ),
    PrimaryKeyConstraint("tenant_id", "schedule_id", "due_at"),
    ForeignKeyConstraint(
        ["tenant_id", "schedule_id"], ["schedules.tenant_id", "schedules.id"], ondelete="CASCADE"
    ),
    CheckConstraint(_in("outcome", Outcome), name="outcome"),
    CheckConstraint(f"reason IS NULL OR {_in('reason', SkipReason)}", name="reason"),
)

# API keys: only a hash of each is kept. A revoked key keeps its row (see store/keys.py).
api_keys = Table(
    "api_keys",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("tenant_id", Text, nullable=False),
    Column("name", Text, nullable=False),
    # The key's first characters, shown to identify it (`perdure keys revoke PREFIX`).
    Column("prefix", Text, nullable=False, unique=True),
    # The operator-made key this one descends from (itself if operator-made).
    Column("root_prefix", Text, nullable=False),
    Column("key_hash", Text, nullable=False, unique=True),
    Column("scopes", ARRAY(Text), nullable=False),
    _created(),
    Column("last_used_at", DateTime(timezone=True), nullable=True),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
)
Index("ix_api_keys_tenant_id", api_keys.c.tenant_id, api_keys.c.created_at)

# Who did what: key creations and revocations, approval decisions. Append-only: no API
# call and no retention prune deletes from it.
audit_events = Table(
    "audit_events",
    metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=True),
    Column("tenant_id", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("actor", JSONB, nullable=False),
    Column("target", Text, nullable=False),
    Column("data", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    _created(),
)
Index("ix_audit_events_tenant_id", audit_events.c.tenant_id, audit_events.c.id)

# Webhooks: a tenant's subscription of a URL to event types (`*`: all). The secret signs
# each delivery (Standard Webhooks), so it is kept as given, and shown only at creation.
webhooks = Table(
    "webhooks",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    _tenant(),
    Column("url", Text, nullable=False),
    Column("events", ARRAY(Text), nullable=False),
    Column("secret", Text, nullable=False),
    _created(),
)
# What the outbox trigger probes for each new event: one index lookup when its tenant
# has no webhook.
Index("ix_webhooks_tenant_id", webhooks.c.tenant_id)

# The outbox: one row per (webhook, event) it subscribes to, written in the statement
# that writes the event (by the trigger `webhook_outbox` on `events`: migration 0013), so
# a committed event is delivered even if its writer dies right after.
# `pending` until delivered or given up (`failed`); a claim moves `next_attempt_at` past
# its attempt, so a worker that dies while sending leaves it due again.
webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    _tenant(),
    Column("webhook_id", UUID(as_uuid=True), nullable=False),
    Column("session_id", Text, nullable=False),
    Column("event_id", BigInteger, nullable=False),
    Column("status", Text, nullable=False, server_default=text("'pending'")),
    Column("attempts", Integer, nullable=False, server_default=text("0")),
    Column(
        "next_attempt_at", DateTime(timezone=True), nullable=False, server_default=text("now()")
    ),
    Column("last_status", Integer, nullable=True),
    Column("last_error", Text, nullable=True),
    _created(),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    PrimaryKeyConstraint("webhook_id", "session_id", "event_id"),
    ForeignKeyConstraint(["webhook_id"], ["webhooks.id"], ondelete="CASCADE"),
    CheckConstraint("status IN ('pending', 'delivered', 'failed')", name="status"),
)
# Where workers look for due deliveries, and where pruning looks for finished ones.
Index(
    "ix_webhook_deliveries_due",
    webhook_deliveries.c.next_attempt_at,
    postgresql_where=text("status = 'pending'"),
)
Index(
    "ix_webhook_deliveries_finished",
    webhook_deliveries.c.finished_at,
    postgresql_where=text("status <> 'pending'"),
)
