"""create_app(): routers, problem handlers, and the lifespan that owns the engine."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.middleware.trustedhost import TrustedHostMiddleware

from app import __version__, capabilities
from app.api import contract, problems
from app.api.limits import BodySizeLimit
from app.api.observe import RequestMetrics
from app.api.routes import (
    agents,
    approvals,
    audit,
    health,
    history,
    keys,
    metrics,
    runs,
    schedules,
    sessions,
    webhooks,
)
from app.api.streams import EventHub
from app.api.ui import install as install_dashboard
from app.db import create_engine
from app.settings import Settings, get_settings
from app.worker.pool import WorkerPool

log = logging.getLogger("perdure")


def create_app(
    settings: Settings | None = None,
    *,
    pool_concurrency: int = 0,
    open_when_keyless: bool = False,
    trusted_hosts: Sequence[str] | None = None,
) -> FastAPI:
    """Build the ASGI app.

    Args:
        settings: defaults to the environment's.
        pool_concurrency: runs the in-process worker pool drives at once; 0 = API only.
        open_when_keyless: serve requests without a key while no key exists (open mode,
            see app/api/auth.py); only for a server that listens on loopback alone.
        trusted_hosts: the `Host` values to accept (others get 400), so that a page on
            another origin cannot reach a loopback server through DNS rebinding.
    """
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if not settings.database_url:
            raise RuntimeError("DATABASE_URL is not set")
        for warning in capabilities.unbound_grant_warnings(settings.secret_env):
            log.warning("%s", warning)
        app.state.engine = create_engine(settings.database_url, settings)
        app.state.event_hub = EventHub(settings.database_url, pool_size=settings.pool_size)
        pool = WorkerPool(settings, concurrency=pool_concurrency) if pool_concurrency else None
        if pool is not None:
            await pool.start()
        try:
            yield
        finally:
            if pool is not None:
                await pool.stop()
            await app.state.event_hub.aclose()
            await app.state.engine.dispose()

    app = FastAPI(
        title="Perdure",
        version=__version__,
        summary="Durable LLM agent runs over HTTP, checkpointed in Postgres.",
        lifespan=lifespan,
        # Readable operation ids (`sendMessage`), for the methods of generated clients.
        generate_unique_id_function=contract.operation_id,
    )
    app.openapi = lambda: contract.openapi(app)  # type: ignore[method-assign]
    app.state.settings = settings
    app.state.capabilities = capabilities.Capabilities.of(settings)
    app.state.open_when_keyless = open_when_keyless
    app.state.keys_exist = False
    problems.install(app)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    if trusted_hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(trusted_hosts))
    # Last added, so outermost: it counts the answers of the checks above too.
    app.add_middleware(RequestMetrics)
    for router in (
        health.router,
        agents.router,
        sessions.router,
        history.router,
        runs.router,
        approvals.router,
        schedules.router,
        keys.router,
        audit.router,
        webhooks.router,
        metrics.router,
    ):
        app.include_router(router)
    install_dashboard(app)
    return app
