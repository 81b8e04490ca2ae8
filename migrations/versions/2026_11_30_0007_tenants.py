"""Every row a caller can name belongs to a tenant; ids are unique per tenant. And runs
remember the request an Idempotency-Key came with, and who started them.

Existing rows join the `default` tenant (the one open mode serves). Agents and sessions
are keyed `(tenant_id, id)`; the transcript tables `(tenant_id, session_id, …)`, so every
lookup names the tenant and no key can reach across tenants. Runs, approvals and events
keep their global UUIDs and carry the tenant for filtering. No default remains on the
column: a write that forgets the tenant fails instead of landing in `default`.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 00:05:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TENANT_TABLES = (
    "agents",
    "agent_versions",
    "sessions",
    "runs",
    "messages",
    "tool_calls",
    "checkpoints",
    "approvals",
    "run_events",
    "tool_outputs",
)
# Tables whose rows hang off a session, with the rest of their primary key.
SESSION_CHILDREN = {
    "messages": ("seq",),
    "tool_calls": ("tool_call_id",),
    "checkpoints": ("seq",),
    "tool_outputs": ("tool_call_id",),
}


def upgrade() -> None:
    # An Idempotency-Key sent again with another body is refused: remember each body.
    op.add_column("runs", sa.Column("request_fingerprint", sa.Text(), nullable=True))
    # Which operator-made key an API-minted key descends from: one party, one approver.
    op.add_column("api_keys", sa.Column("root_prefix", sa.Text(), nullable=True))
    op.execute("UPDATE api_keys SET root_prefix = prefix")
    op.alter_column("api_keys", "root_prefix", nullable=False)
    # Who started each run: a tool that needs a distinct approver refuses them as one.
    op.add_column(
        "runs", sa.Column("created_by", postgresql.JSONB(astext_type=sa.Text()), nullable=True)
    )
    for table in TENANT_TABLES:
        op.add_column(
            table,
            sa.Column("tenant_id", sa.Text(), nullable=False, server_default="default"),
        )
        op.alter_column(table, "tenant_id", server_default=None)

    # Foreign keys first (they depend on the primary keys they point at).
    for table in (*SESSION_CHILDREN, "runs"):
        op.drop_constraint(f"fk_{table}_session_id_sessions", table, type_="foreignkey")
    op.drop_constraint("fk_sessions_agent_id_agents", "sessions", type_="foreignkey")
    op.drop_constraint("fk_agent_versions_agent_id_agents", "agent_versions", type_="foreignkey")

    op.drop_constraint("pk_agents", "agents", type_="primary")
    op.create_primary_key("pk_agents", "agents", ["tenant_id", "id"])
    op.drop_constraint("pk_agent_versions", "agent_versions", type_="primary")
    op.create_primary_key(
        "pk_agent_versions", "agent_versions", ["tenant_id", "agent_id", "version"]
    )
    op.create_foreign_key(
        "fk_agent_versions_tenant_id_agents",
        "agent_versions",
        "agents",
        ["tenant_id", "agent_id"],
        ["tenant_id", "id"],
        ondelete="CASCADE",
    )
    op.drop_constraint("pk_sessions", "sessions", type_="primary")
    op.create_primary_key("pk_sessions", "sessions", ["tenant_id", "id"])
    op.create_foreign_key(
        "fk_sessions_tenant_id_agents",
        "sessions",
        "agents",
        ["tenant_id", "agent_id"],
        ["tenant_id", "id"],
    )

    for table, rest in SESSION_CHILDREN.items():
        op.drop_constraint(f"pk_{table}", table, type_="primary")
        op.create_primary_key(f"pk_{table}", table, ["tenant_id", "session_id", *rest])
    op.drop_constraint("uq_tool_calls_session_id_seq", "tool_calls", type_="unique")
    op.create_unique_constraint(
        "uq_tool_calls_tenant_id_session_id_seq", "tool_calls", ["tenant_id", "session_id", "seq"]
    )
    for table in (*SESSION_CHILDREN, "runs"):
        op.create_foreign_key(
            f"fk_{table}_tenant_id_sessions",
            table,
            "sessions",
            ["tenant_id", "session_id"],
            ["tenant_id", "id"],
            ondelete="CASCADE",
        )

    op.drop_constraint("uq_runs_session_id_seq", "runs", type_="unique")
    op.create_unique_constraint(
        "uq_runs_tenant_id_session_id_seq", "runs", ["tenant_id", "session_id", "seq"]
    )
    op.drop_constraint("uq_runs_session_id_idempotency_key", "runs", type_="unique")
    op.create_unique_constraint(
        "uq_runs_tenant_id_session_id_idempotency_key",
        "runs",
        ["tenant_id", "session_id", "idempotency_key"],
    )
    # The lists a tenant pages through lead with the tenant.
    op.drop_index("ix_runs_status_created", table_name="runs")
    op.create_index(
        "ix_runs_tenant_status_created", "runs", ["tenant_id", "status", "created_at", "id"]
    )
    op.drop_index("ix_runs_created", table_name="runs")
    op.create_index("ix_runs_tenant_created", "runs", ["tenant_id", "created_at", "id"])
    op.drop_index("ix_approvals_status_created", table_name="approvals")
    op.create_index(
        "ix_approvals_tenant_status_created",
        "approvals",
        ["tenant_id", "status", "created_at", "id"],
    )


def downgrade() -> None:
    raise NotImplementedError(
        "ids are unique per tenant from 0007 on: two tenants may hold the same session id, "
        "which no earlier schema can store. Restore a backup taken before upgrading."
    )
