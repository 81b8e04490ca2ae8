"""Budgets: a run's own limits and which one ended it; a session's override of its agent's.

`runs.budget` is resolved at send (the agent's `budget` under the send's); the engine
checks it, and the session's, before each model call and tool call against the usage
saved in the checkpoints. `runs.budget_exceeded` is written by the fenced checkpoint that
ends a run over budget. `sessions.budget` holds what sends set over the agent's
`session_budget`. All three are nullable (NULL: no limits), so existing rows need nothing.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("runs", sa.Column("budget", postgresql.JSONB(), nullable=True))
    op.add_column("runs", sa.Column("budget_exceeded", postgresql.JSONB(), nullable=True))
    op.add_column("sessions", sa.Column("budget", postgresql.JSONB(), nullable=True))


def downgrade() -> None:
    op.drop_column("sessions", "budget")
    op.drop_column("runs", "budget_exceeded")
    op.drop_column("runs", "budget")
