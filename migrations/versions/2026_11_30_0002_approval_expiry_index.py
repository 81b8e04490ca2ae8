"""Index the pending approvals that can expire, for the workers' expiry sweep.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 04:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_approvals_pending_expiry",
        "approvals",
        ["expires_at"],
        unique=False,
        postgresql_where=sa.text("status = 'pending' AND expires_at IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_approvals_pending_expiry", table_name="approvals")
