"""Database engines and migrations: how the rest of the app reaches Postgres."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from app.settings import Settings

# The revisions are data to the app: found where the `migrations` package is installed,
# never imported by it (migrations import the app's tables, not the other way round).
MIGRATIONS_DIR = Path(str(files("migrations")))


def normalise_url(url: str) -> str:
    """Accept `postgres://` and `postgresql://` URLs and use the psycopg 3 driver for them."""
    parsed = make_url(url.replace("postgres://", "postgresql://", 1))
    if parsed.drivername in ("postgresql", "postgresql+psycopg2", "postgresql+asyncpg"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def libpq_url(url: str) -> str:
    """The same URL as plain libpq understands it (for psycopg.connect and pgbench)."""
    return (
        make_url(normalise_url(url))
        .set(drivername="postgresql")
        .render_as_string(hide_password=False)
    )


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("file_template", "%%(year)d_%%(month).2d_%%(day).2d_%%(rev)s_%%(slug)s")
    # ConfigParser interpolation: a literal % in a password must be doubled.
    config.set_main_option("sqlalchemy.url", normalise_url(url).replace("%", "%%"))
    return config


def migrate(url: str) -> None:
    """Upgrade the database at `url` to the newest revision."""
    command.upgrade(alembic_config(url), "head")


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config("postgresql://unused/x")).get_current_head()
    assert head is not None, "the migrations folder has no revision"
    return head


def current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def create_engine(url: str, settings: Settings, *, pool_size: int | None = None) -> AsyncEngine:
    """An async engine whose connections fail fast instead of queueing forever."""
    return create_async_engine(
        normalise_url(url),
        pool_size=pool_size or settings.pool_size,
        max_overflow=0,
        pool_timeout=settings.pool_timeout_s,
        pool_pre_ping=False,
        connect_args={
            "connect_timeout": 5,
            # A transaction left open by a bug must not hold locks or block vacuum.
            "options": "-c idle_in_transaction_session_timeout=60000 -c statement_timeout=30000",
        },
    )
