"""Webhooks: `webhooks` (a tenant's subscriptions) and `webhook_deliveries` (the outbox),
and the trigger that fills the outbox in every statement that writes events.

Revision ID: 0013
Revises: 0011
Create Date: 2026-12-01 08:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0013"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# The outbox, filled by the statement that writes the events (the trigger runs at its end,
# in its transaction): a delivery per new event and webhook of its tenant subscribed to
# its type or to `*`. A trigger, not a CTE in `events.appending`: the checkpoint
# statement has no bytes to spare under psycopg's 4 KiB parse cache. Once per statement
# (not per row), so a save with no subscriber pays one index probe per event.
OUTBOX_FUNCTION = """
CREATE FUNCTION webhook_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO webhook_deliveries (tenant_id, webhook_id, session_id, event_id)
    SELECT e.tenant_id, w.id, e.session_id, e.id
      FROM new_events e
      JOIN webhooks w ON w.tenant_id = e.tenant_id AND w.events && ARRAY[e.type, '*'];
    RETURN NULL;
END
$$
"""


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", postgresql.UUID(as_uuid=True), nullable=False),
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("events", postgresql.ARRAY(sa.Text()), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhooks")),
    )
    op.create_index("ix_webhooks_tenant_id", "webhooks", ["tenant_id"], unique=False)
    op.create_table(
        "webhook_deliveries",
        sa.Column("tenant_id", sa.Text(), nullable=False),
        sa.Column("webhook_id", postgresql.UUID(as_uuid=True), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("event_id", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.Text(), server_default=sa.text("'pending'"), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column(
            "next_attempt_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('pending', 'delivered', 'failed')",
            name=op.f("ck_webhook_deliveries_status"),
        ),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhooks.id"],
            name=op.f("fk_webhook_deliveries_webhook_id_webhooks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "webhook_id", "session_id", "event_id", name=op.f("pk_webhook_deliveries")
        ),
    )
    op.create_index(
        "ix_webhook_deliveries_due",
        "webhook_deliveries",
        ["next_attempt_at"],
        unique=False,
        postgresql_where=sa.text("status = 'pending'"),
    )
    op.create_index(
        "ix_webhook_deliveries_finished",
        "webhook_deliveries",
        ["finished_at"],
        unique=False,
        postgresql_where=sa.text("status <> 'pending'"),
    )

    op.execute(OUTBOX_FUNCTION)
    op.execute(
        "CREATE TRIGGER webhook_outbox AFTER INSERT ON events "
        "REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT "
        "EXECUTE FUNCTION webhook_outbox()"
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER webhook_outbox ON events")
    op.execute("DROP FUNCTION webhook_outbox()")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhooks")
