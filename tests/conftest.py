"""Shared fixtures: a real Postgres, a migrated database per test, the app over ASGI."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db import create_engine
from app.embedded_pg import EmbeddedPostgres
from app.main import create_app
from app.settings import Settings
from tests import pg
from tests.agents import GRANTS_ENV


@pytest.fixture(scope="session")
def pg_admin_url() -> Iterator[str]:
    with pg.postgres_server() as (url, _server):
        yield url


@pytest.fixture(scope="session")
def template_db(pg_admin_url: str) -> Iterator[str]:
    name = pg.create_template(pg_admin_url)
    yield name
    with pg.admin(pg_admin_url) as conn:
        conn.execute(f'ALTER DATABASE "{name}" WITH IS_TEMPLATE false')
    pg.drop(pg_admin_url, name)


@pytest.fixture
def database_url(pg_admin_url: str, template_db: str) -> Iterator[str]:
    """A fresh, migrated database of its own for one test."""
    name = pg.clone(pg_admin_url, template_db)
    yield pg.with_database(pg_admin_url, name)
    pg.drop(pg_admin_url, name)


@pytest.fixture(scope="module")
def own_postgres() -> Iterator[EmbeddedPostgres]:
    """A Postgres server of the test module's own, which its tests may stop and start."""
    with pg.own_server() as server:
        yield server


def make_settings(database_url: str, **overrides: Any) -> Settings:
    """Settings for tests: short leases and polls so takeovers happen in seconds."""
    values: dict[str, Any] = {
        "database_url": database_url,
        "lease_ttl_s": 4.0,
        "heartbeat_s": 1.0,
        "lease_margin_s": 0.5,
        "poll_interval_s": 0.2,
        "retry_base_s": 0.05,
        "retry_max_s": 0.5,
        "shutdown_grace_s": 2.0,
        "python_tools": GRANTS_ENV["PERDURE_PYTHON_TOOLS"],
        "scripted_model": GRANTS_ENV["PERDURE_SCRIPTED_MODEL"] == "true",
        "secret_env": GRANTS_ENV["PERDURE_SECRET_ENV"],
        **overrides,
    }
    return Settings(**values)


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(database_url)


@pytest.fixture
async def engine(settings: Settings) -> AsyncIterator[AsyncEngine]:
    assert settings.database_url
    eng = create_engine(settings.database_url, settings)
    yield eng
    await eng.dispose()


async def started_client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://perdure.test") as c:
            yield c


@pytest.fixture
async def api(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The API with no worker pool: runs stay queued unless a test drives them."""
    async for client in started_client(
        create_app(settings, pool_concurrency=0, open_when_keyless=True)
    ):
        yield client


@pytest.fixture
async def live(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The API with an in-process worker pool, as `perdure serve` runs it."""
    async for client in started_client(
        create_app(settings, pool_concurrency=8, open_when_keyless=True)
    ):
        yield client


async def wait_status(
    client: httpx.AsyncClient,
    run_id: str,
    statuses: set[str],
    timeout: float = 20.0,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Poll a run until its status is one of `statuses` (`headers`: a key, say)."""
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while True:
        run: dict[str, Any] = (await client.get(f"/v1/runs/{run_id}", headers=headers)).json()
        if run["status"] in statuses:
            return run
        if time.monotonic() > deadline:
            raise AssertionError(f"run {run_id} still {run['status']} after {timeout}s: {run}")
        await asyncio.sleep(0.05)
