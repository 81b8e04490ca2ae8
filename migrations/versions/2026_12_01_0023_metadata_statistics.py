"""Exact statistics for `runs.metadata`, so the ops list's `?metadata.k=v` reads its index.

Postgres estimates `metadata @> '{"customer": "c7"}'` from the column's statistics.
With the default target (100), ANALYZE samples 30,000 rows and keeps 101 histogram
bounds; whenever the filtered value happens to be one of them the estimate is ~1 % of
the tenant's runs, the planner walks `ix_runs_tenant_created` newest first filtering
every row, and a selective filter reads the whole tenant (seen in CI, one run in
several). At 1,000 the sample is 300,000 rows and up to 1,000 common values are kept
with their real frequencies, so a selective filter is estimated as selective and served
by `ix_runs_metadata`. The price is a longer ANALYZE of `runs` (the table's sample size
follows its largest column target), which autovacuum does in the background.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-01 21:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

METADATA_STATISTICS = 1000


def upgrade() -> None:
    op.execute(f"ALTER TABLE runs ALTER COLUMN metadata SET STATISTICS {METADATA_STATISTICS}")


def downgrade() -> None:
    op.execute("ALTER TABLE runs ALTER COLUMN metadata SET STATISTICS -1")
