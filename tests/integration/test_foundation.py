"""The foundation: health, readiness, problem responses, the contract, the schema."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import psycopg
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine as create_sync_engine

from app.db import head_revision, normalise_url
from app.main import create_app
from app.settings import Settings
from app.store.tables import metadata
from tests import pg
from tests.conftest import make_settings, started_client

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = "application/problem+json"


async def test_healthz__answers_without_database() -> None:
    app = create_app(Settings(database_url="postgresql://nobody@127.0.0.1:1/none"))
    async for client in started_client(app):
        response = await client.get("/healthz")
        assert response.status_code == 200
        assert response.json() == {"status": "ok"}


async def test_readyz__ready_at_head(api: httpx.AsyncClient) -> None:
    response = await api.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "revision": head_revision()}


async def test_readyz__unreachable_database_is_503_problem() -> None:
    app = create_app(Settings(database_url="postgresql://nobody@127.0.0.1:1/none"))
    async for client in started_client(app):
        response = await client.get("/readyz")
        assert response.status_code == 503
        assert response.headers["content-type"] == PROBLEM
        assert response.json()["code"] == "DATABASE_UNAVAILABLE"


async def test_readyz__unmigrated_database_is_503(pg_admin_url: str) -> None:
    with pg.admin(pg_admin_url) as conn:
        conn.execute('DROP DATABASE IF EXISTS "perdure_unmigrated"')
        conn.execute('CREATE DATABASE "perdure_unmigrated"')
    try:
        url = pg.with_database(pg_admin_url, "perdure_unmigrated")
        async for client in started_client(create_app(make_settings(url), open_when_keyless=True)):
            response = await client.get("/readyz")
            assert response.status_code == 503
            assert "perdure migrate" in response.json()["detail"]
    finally:
        pg.drop(pg_admin_url, "perdure_unmigrated")


async def test_unknown_route__is_404_problem(api: httpx.AsyncClient) -> None:
    response = await api.get("/v1/nothing-here")
    assert response.status_code == 404
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["code"] == "NOT_FOUND"
    assert body["instance"] == "/v1/nothing-here"


async def test_wrong_method__is_405_problem(api: httpx.AsyncClient) -> None:
    response = await api.delete("/healthz")
    assert response.status_code == 405
    assert response.json()["code"] == "METHOD_NOT_ALLOWED"
    assert response.headers["allow"] == "GET"
    # A path two routes serve: both methods are named (routes of included routers too).
    both = await api.delete("/v1/agents")
    assert (both.status_code, both.headers["allow"]) == (405, "GET, POST")


async def test_oversized_body__is_413_problem(database_url: str) -> None:
    app = create_app(make_settings(database_url, max_body_bytes=2048), open_when_keyless=True)
    async for client in started_client(app):
        response = await client.post(
            "/v1/agents",
            content=b"{" + b" " * 4096 + b"}",
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 413
        assert response.headers["content-type"] == PROBLEM
        assert response.json()["code"] == "PAYLOAD_TOO_LARGE"


def test_openapi__matches_exported_contract() -> None:
    exported = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    served = json.loads(json.dumps(create_app(Settings()).openapi()))
    assert served == exported, "the API changed: run `perdure openapi > openapi/openapi.json`"


def test_migrations__schema_matches_tables(database_url: str) -> None:
    engine = create_sync_engine(normalise_url(database_url))
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), metadata)
    finally:
        engine.dispose()
    assert diff == [], f"tables.py and the migrations disagree: {diff}"


def test_database__per_test_isolation(database_url: str) -> None:
    with psycopg.connect(pg.libpq_url(database_url)) as conn:
        conn.execute(
            "INSERT INTO agents (tenant_id, id, latest_version)"
            " VALUES ('default', 'isolation-probe', 1)"
        )
        conn.commit()
        count = conn.execute("SELECT count(*) FROM agents").fetchone()
    assert count == (1,), "a fresh database must start empty"


def test_transcript_tables__keyed_by_session(database_url: str) -> None:
    """What a distributed Postgres (Citus, by session: docs/design.md) needs: each table
    of a session's transcript has its session in its primary key, beside its tenant."""
    keys = dict(
        pg.rows(
            database_url,
            "SELECT c.conrelid::regclass::text, array_agg(a.attname::text ORDER BY k.i) "
            "  FROM pg_constraint c, unnest(c.conkey) WITH ORDINALITY k(attnum, i), "
            "       pg_attribute a "
            " WHERE c.contype = 'p' AND a.attrelid = c.conrelid AND a.attnum = k.attnum "
            "   AND c.conrelid::regclass::text IN "
            "       ('messages', 'tool_calls', 'checkpoints', 'tool_outputs', 'sessions') "
            " GROUP BY c.conrelid",
        )
    )
    assert keys == {
        "messages": ["tenant_id", "session_id", "seq"],
        "tool_calls": ["tenant_id", "session_id", "tool_call_id"],
        "checkpoints": ["tenant_id", "session_id", "seq"],
        "tool_outputs": ["tenant_id", "session_id", "tool_call_id"],
        "sessions": ["tenant_id", "id"],
    }
