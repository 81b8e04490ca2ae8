"""`perdure worker`: a process that only runs workers, stopped cleanly by SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable

from prometheus_client import start_http_server

from app import capabilities
from app.settings import Settings
from app.telemetry import metrics
from app.worker.pool import WorkerPool

log = logging.getLogger("perdure.worker")


async def serve_worker(settings: Settings) -> None:
    for warning in capabilities.unbound_grant_warnings(settings.secret_env):
        log.warning("%s", warning)
    pool = WorkerPool(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if settings.metrics_port is not None:
        # The worker's own counters (claims, takeovers, saves, model and tool calls) on a
        # port of its own: there is no API in this process to serve GET /metrics.
        start_http_server(settings.metrics_port, registry=metrics.registry())
        log.info("metrics on :%d/metrics", settings.metrics_port)
    await pool.start()
    print(f"perdure: worker {pool.owner} running {pool.concurrency} runs at most", flush=True)  # noqa: T201
    await stop.wait()
    log.info("stopping: finishing in-flight steps, handing back the rest")
    await pool.stop()


def run_worker_process(settings: Settings) -> None:
    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        runner.run(serve_worker(settings))


def event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where it is installed (as uvicorn picks it for the API), else
    asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop
