"""Child runs (sub-agents): a run's parent, and the `awaiting_children` status.

A child run is an ordinary run with `parent_run_id`, `parent_session_id` and
`parent_call_id` (the call whose result its output becomes) and its `depth` in the tree.
`uq_runs_parent_call` keeps one child per call whatever crashes the parent goes through,
and is how a parent session finds its children. The new columns are nullable (or default
0), so existing rows need nothing; the status check gains `awaiting_children`.

Revision ID: 0022
Revises: 0020
Create Date: 2026-12-02 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0022"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BEFORE = (
    "status IN ('awaiting_approval', 'awaiting_tool_results', 'cancelled', 'failed', "
    "'finished', 'queued', 'running')"
)
AFTER = (
    "status IN ('awaiting_approval', 'awaiting_children', 'awaiting_tool_results', "
    "'cancelled', 'failed', 'finished', 'queued', 'running')"
)


def upgrade() -> None:
    op.add_column("runs", sa.Column("parent_run_id", postgresql.UUID(as_uuid=True)))
    op.add_column("runs", sa.Column("parent_session_id", sa.Text()))
    op.add_column("runs", sa.Column("parent_call_id", sa.Text()))
    op.add_column(
        "runs", sa.Column("depth", sa.Integer(), nullable=False, server_default=sa.text("0"))
    )
    op.drop_constraint(op.f("ck_runs_status"), "runs", type_="check")
    op.create_check_constraint(op.f("ck_runs_status"), "runs", AFTER)
    op.create_index(
        "uq_runs_parent_call",
        "runs",
        ["tenant_id", "parent_session_id", "parent_call_id"],
        unique=True,
        postgresql_where=sa.text("parent_call_id IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("uq_runs_parent_call", table_name="runs")
    op.execute("UPDATE runs SET status = 'queued' WHERE status = 'awaiting_children'")
    op.drop_constraint(op.f("ck_runs_status"), "runs", type_="check")
    op.create_check_constraint(op.f("ck_runs_status"), "runs", BEFORE)
    op.drop_column("runs", "depth")
    op.drop_column("runs", "parent_call_id")
    op.drop_column("runs", "parent_session_id")
    op.drop_column("runs", "parent_run_id")
