"""The fleet table: a claim asks each worker, not each running run, whether it is alive.

`workers` holds one row per worker process that claimed a run (inserted by that claim),
with the lease TTL it uses and when it last renewed. A claim looks for runs to take over
among the running runs of workers that are dead (liveness lock free) or late (no renewal
within their TTL), through `ix_runs_lease_owner`; `ix_runs_suspect` keeps only queued
suspects. Running runs at upgrade get their owners' rows, marked late, so their leases
are judged one by one as before.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "workers",
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("lease_ttl_s", sa.Float(), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("owner", name=op.f("pk_workers")),
    )
    op.execute(
        "INSERT INTO workers (owner, lease_ttl_s, heartbeat_at) "
        "SELECT DISTINCT lease_owner, 0, timestamptz '-infinity' FROM runs "
        "WHERE status = 'running' AND lease_owner IS NOT NULL"
    )
    op.create_index(
        "ix_runs_lease_owner",
        "runs",
        ["lease_owner"],
        unique=False,
        postgresql_where=sa.text("status = 'running'"),
    )
    op.drop_index("ix_runs_suspect", table_name="runs")
    op.create_index(
        "ix_runs_suspect",
        "runs",
        ["not_before"],
        unique=False,
        postgresql_where=sa.text("status = 'queued' AND suspect"),
    )


def downgrade() -> None:
    op.drop_index("ix_runs_suspect", table_name="runs")
    op.create_index(
        "ix_runs_suspect",
        "runs",
        ["not_before"],
        unique=False,
        postgresql_where=sa.text("status = 'running' OR (status = 'queued' AND suspect)"),
    )
    op.drop_index("ix_runs_lease_owner", table_name="runs")
    op.drop_table("workers")
