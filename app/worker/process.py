"""`perdure worker`: a process that only runs workers, stopped cleanly by SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import gc
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
    tune_garbage_collector()
    print(f"perdure: worker {pool.owner} running {pool.concurrency} runs at most", flush=True)  # noqa: T201
    await stop.wait()
    log.info("stopping: finishing in-flight steps, handing back the rest")
    await pool.stop()


def tune_garbage_collector() -> None:
    """Fewer collections, each of fewer objects (benchmarks/loop_throughput.py): left as
    it was, a full collection stopped every run in flight for 90-130 ms; with start-up
    frozen but young collections at the default, the collector still took 0.67 s of
    4.9 s of worker CPU in a K = 200 run. With both, 0.03 s.

    What start-up made (130,000 objects: modules, the app, its settings) lives as long
    as the process: frozen, no collection walks it again. Nearly everything a turn
    allocates is freed by reference counting within the turn; a young collection every
    700 allocations (the default) caught the turns in flight halfway and promoted their
    objects, until full collections walked every transcript held in memory. Every
    20,000, few survive to be promoted. Cycles are still collected, only later.
    """
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(20_000, older, oldest)


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
