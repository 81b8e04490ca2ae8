"""Poison runs: a run whose claims keep ending in its worker's death is quarantined, then
failed. `suspect` marks a run taken from a worker that died while driving it (until it
makes progress); `deaths` counts the workers that died while driving it alone.

The claim now looks for runs under suspicion (running ones, whose worker may be dead, and
queued suspects) in `ix_runs_suspect`, and for ordinary runs among the queued ones only:
`ix_runs_claimable` no longer holds running runs, so neither scan reads the other's rows.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "runs", sa.Column("suspect", sa.Boolean(), nullable=False, server_default=sa.text("false"))
    )
    op.add_column(
        "runs", sa.Column("deaths", sa.Integer(), nullable=False, server_default=sa.text("0"))
    )
    op.drop_index("ix_runs_claimable", table_name="runs")
    op.create_index(
        "ix_runs_claimable",
        "runs",
        ["not_before"],
        unique=False,
        postgresql_where=sa.text("status = 'queued'"),
    )
    op.create_index(
        "ix_runs_suspect",
        "runs",
        ["not_before"],
        unique=False,
        postgresql_where=sa.text("status = 'running' OR (status = 'queued' AND suspect)"),
    )


def downgrade() -> None:
    op.drop_index("ix_runs_suspect", table_name="runs")
    op.drop_index("ix_runs_claimable", table_name="runs")
    op.create_index(
        "ix_runs_claimable",
        "runs",
        ["not_before"],
        unique=False,
        postgresql_where=sa.text("status IN ('queued', 'running')"),
    )
    op.drop_column("runs", "deaths")
    op.drop_column("runs", "suspect")
