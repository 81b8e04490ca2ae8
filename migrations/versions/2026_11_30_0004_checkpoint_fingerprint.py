"""Every checkpoint carries the fingerprint of the agent definition it ran under.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 04:45:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("checkpoints", sa.Column("fingerprint", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("checkpoints", "fingerprint")
