"""Listings and metadata: `runs.metadata`, containment indexes, list orders.

`runs.metadata` is new (NOT NULL, `{}`: Postgres 11+ adds a column with a constant default
without rewriting the table); `sessions.metadata` existed, unused until now. Each gets a
GIN index (`jsonb_path_ops`: containment only, smaller than the default), so that
`?metadata.customer=acme` is `metadata @> '{"customer": "acme"}'` answered from the
index. Sessions and agents get the (tenant, created_at, id) index their lists page on,
as runs have. On a large existing `runs` table, build `ix_runs_metadata` beforehand with
`CREATE INDEX CONCURRENTLY` under the same name; this migration then skips it.

Revision ID: 0021
Revises: 0012
Create Date: 2026-12-02 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0021"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE runs ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb")
    op.execute(
        "CREATE INDEX IF NOT EXISTS ix_runs_metadata ON runs USING gin (metadata jsonb_path_ops)"
    )
    op.execute(
        "CREATE INDEX IF NOT EXISTS ix_sessions_metadata "
        "ON sessions USING gin (metadata jsonb_path_ops)"
    )
    op.create_index("ix_sessions_tenant_created", "sessions", ["tenant_id", "created_at", "id"])
    op.create_index("ix_agents_tenant_created", "agents", ["tenant_id", "created_at", "id"])


def downgrade() -> None:
    op.drop_index("ix_agents_tenant_created", table_name="agents")
    op.drop_index("ix_sessions_tenant_created", table_name="sessions")
    op.drop_index("ix_sessions_metadata", table_name="sessions")
    op.drop_index("ix_runs_metadata", table_name="runs")
    op.drop_column("runs", "metadata")
