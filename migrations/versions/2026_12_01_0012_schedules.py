"""Schedules, and one row per due time a worker handled.

`schedules` holds each cadence with the next due time not yet handled; a worker claims a
due schedule by locking its row (`FOR UPDATE SKIP LOCKED`) and, in that transaction,
writes `schedule_fires` rows (keyed by tenant, schedule and due time: a due time fires
once) and starts their runs. `ix_schedules_due` is what the claim scans.

Revision ID: 0012
Revises: 0013
Create Date: 2026-12-01 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0012"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _at(name: str, default: str) -> sa.Column[datetime]:
    return sa.Column(
        name, sa.DateTime(timezone=True), server_default=sa.text(default), nullable=False
    )


def upgrade() -> None:
    op.create_table(
        "schedules",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("agent_id", sa.Text(), nullable=False),
        sa.Column("cron", sa.Text(), nullable=True),
        sa.Column("interval_s", sa.Integer(), nullable=True),
        sa.Column("timezone", sa.Text(), nullable=False),
        sa.Column("input", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=True),
        sa.Column("overlap", sa.Text(), nullable=False),
        sa.Column("catch_up", sa.Text(), nullable=False),
        sa.Column("jitter_s", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column(
            "metadata",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column("created_by", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("paused", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("anchor_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("next_due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("next_fire_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_run_id", sa.UUID(), nullable=True),
        _at("created_at", "now()"),
        _at("updated_at", "now()"),
        sa.CheckConstraint(
            "(cron IS NULL) <> (interval_s IS NULL)", name=op.f("ck_schedules_cadence")
        ),
        sa.CheckConstraint(
            "overlap IN ('cancel_previous', 'queue', 'skip')", name=op.f("ck_schedules_overlap")
        ),
        sa.CheckConstraint("catch_up IN ('all', 'latest')", name=op.f("ck_schedules_catch_up")),
        sa.ForeignKeyConstraint(
            ["tenant_id", "agent_id"],
            ["agents.tenant_id", "agents.id"],
            name=op.f("fk_schedules_tenant_id_agents"),
        ),
        sa.PrimaryKeyConstraint("tenant_id", "id", name=op.f("pk_schedules")),
    )
    op.create_index(
        "ix_schedules_due",
        "schedules",
        ["next_fire_at"],
        unique=False,
        postgresql_where=sa.text("NOT paused"),
    )
    op.create_table(
        "schedule_fires",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("schedule_id", sa.Text(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outcome", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("run_id", sa.UUID(), nullable=True),
        sa.Column("session_id", sa.Text(), nullable=True),
        sa.Column("previous_run_id", sa.UUID(), nullable=True),
        sa.Column("error", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("detail", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("fired_by", sa.Text(), nullable=True),
        _at("fired_at", "clock_timestamp()"),
        sa.CheckConstraint(
            "outcome IN ('failed', 'skipped', 'started')", name=op.f("ck_schedule_fires_outcome")
        ),
        sa.CheckConstraint(
            "reason IS NULL OR reason IN ('missed', 'overlap', 'superseded')",
            name=op.f("ck_schedule_fires_reason"),
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id", "schedule_id"],
            ["schedules.tenant_id", "schedules.id"],
            name=op.f("fk_schedule_fires_tenant_id_schedules"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "tenant_id", "schedule_id", "due_at", name=op.f("pk_schedule_fires")
        ),
    )


def downgrade() -> None:
    op.drop_table("schedule_fires")
    op.drop_index("ix_schedules_due", table_name="schedules")
    op.drop_table("schedules")
