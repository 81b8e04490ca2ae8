"""Runs keep the W3C trace context of the request that queued them (`traceparent`,
`tracestate`), so a worker's spans for the run join that request's trace. NULL when
tracing was off at send.

Revision ID: 0020
Revises: 0021
Create Date: 2026-12-01 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0020"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable, no default: adding it rewrites nothing.
    op.add_column("runs", sa.Column("trace_context", postgresql.JSONB(), nullable=True))


def downgrade() -> None:
    op.drop_column("runs", "trace_context")
