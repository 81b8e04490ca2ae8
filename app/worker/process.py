"""`perdure worker`: a process that only runs workers, stopped cleanly by SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal

from app import capabilities
from app.settings import Settings
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
    await pool.start()
    print(f"perdure: worker {pool.owner} running {pool.concurrency} runs at most", flush=True)  # noqa: T201
    await stop.wait()
    log.info("stopping: finishing in-flight steps, handing back the rest")
    await pool.stop()


def run_worker_process(settings: Settings) -> None:
    asyncio.run(serve_worker(settings))
