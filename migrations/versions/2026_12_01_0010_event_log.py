"""The event log: `events`, keyed by session with a gap-free per-session id, and
`event_heads`, which hands those ids out. It replaces `run_events` (a global id, written
only for drift): its rows are copied over, numbered per session in their old order.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 05:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("id", sa.BigInteger(), nullable=False),
        sa.Column("run_id", postgresql.UUID(as_uuid=True), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column(
            "data",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("tenant_id", "session_id", "id", name=op.f("pk_events")),
    )
    op.create_table(
        "event_heads",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("last_id", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id", "session_id"],
            ["sessions.tenant_id", "sessions.id"],
            name=op.f("fk_event_heads_tenant_id_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", "session_id", name=op.f("pk_event_heads")),
    )
    op.execute(
        "INSERT INTO events (tenant_id, session_id, id, run_id, type, data, created_at) "
        "SELECT e.tenant_id, e.session_id, "
        "       row_number() OVER (PARTITION BY e.tenant_id, e.session_id ORDER BY e.id), "
        "       e.run_id, e.type, e.data, e.created_at "
        "  FROM run_events e "
        "  JOIN sessions s ON s.tenant_id = e.tenant_id AND s.id = e.session_id"
    )
    op.execute(
        "INSERT INTO event_heads (tenant_id, session_id, last_id) "
        "SELECT tenant_id, session_id, max(id) FROM events GROUP BY tenant_id, session_id"
    )
    op.drop_index("ix_run_events_run_id", table_name="run_events")
    op.drop_table("run_events")


def downgrade() -> None:
    op.create_table(
        "run_events",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("run_id", postgresql.UUID(as_uuid=True), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column(
            "data",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_events")),
    )
    op.create_index("ix_run_events_run_id", "run_events", ["run_id", "id"], unique=False)
    op.execute(
        "INSERT INTO run_events (tenant_id, run_id, session_id, type, data, created_at) "
        "SELECT tenant_id, run_id, session_id, type, data, created_at FROM events "
        "WHERE type = 'agent.drift' ORDER BY created_at, id"
    )
    op.drop_table("event_heads")
    op.drop_table("events")
