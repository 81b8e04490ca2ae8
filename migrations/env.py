"""Alembic environment: runs migrations online against the URL `app.db.migrate` gives it."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool

from app.store.tables import metadata

config = context.config


def run_migrations_online() -> None:
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database URL: use `perdure migrate` or set sqlalchemy.url")
    connectable = create_engine(url, poolclass=pool.NullPool)
    with connectable.connect() as connection:
        context.configure(connection=connection, target_metadata=metadata, compare_type=True)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    raise RuntimeError("offline migrations are not supported; run `perdure migrate`")
run_migrations_online()
