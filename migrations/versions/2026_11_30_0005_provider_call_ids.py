"""Tool calls keep the model's own id beside Perdure's.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 05:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable, no default: a catalog-only change, no table rewrite. Old rows have NULL
    # (their calls go to the model by Perdure's id, as before).
    op.add_column("tool_calls", sa.Column("provider_call_id", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("tool_calls", "provider_call_id")
