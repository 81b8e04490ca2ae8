"""The crash torture as a long soak, by command (not in CI):

    /tmp/dev/bin/python -m tests.torture.soak --minutes 10 --workers 3 --runs 500 --seed N

Starts an embedded Postgres of its own (or uses a fresh database on
$PERDURE_TEST_DATABASE_URL), the API in-process, and `--workers` real `perdure worker`
processes; creates `--runs` runs spread over the first 70 % of the window while a killer
SIGKILLs (and now and then SIGSTOPs past the lease) a random worker every 0.5-2 s; then
lets the workers drain and checks every invariant (tests/torture/harness.py). Prints the
runs, kills, stops, at-least-once re-runs and violations; exits 1 on any violation and
keeps its folder (worker logs, model call log) for a look.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.db import migrate, normalise_url
from app.embedded_pg import FAST_UNSAFE_SETTINGS, EmbeddedPostgres
from app.main import create_app
from tests import pg
from tests.conftest import make_settings, started_client
from tests.torture.harness import TortureConfig, TortureReport, say, torture


@contextmanager
def database(folder: Path) -> Iterator[str]:
    """A fresh migrated database: on $PERDURE_TEST_DATABASE_URL, or an embedded server."""
    admin_url = os.environ.get("PERDURE_TEST_DATABASE_URL")
    server: EmbeddedPostgres | None = None
    if admin_url:
        admin_url = normalise_url(admin_url)
    else:
        server = EmbeddedPostgres(folder / "pg", settings=FAST_UNSAFE_SETTINGS)
        server.start()
        admin_url = server.url()
    name = f"perdure_soak_{uuid.uuid4().hex[:8]}"
    try:
        with pg.admin(admin_url) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        url = pg.with_database(admin_url, name)
        migrate(url)
        yield url
    finally:
        if server is not None:
            server.stop("immediate")
        else:
            pg.drop(admin_url, name)


async def soak(config: TortureConfig, folder: Path) -> TortureReport:
    reports: list[TortureReport] = []
    with database(folder) as url:
        async for api in started_client(create_app(make_settings(url), open_when_keyless=True)):
            reports.append(await torture(api, url, folder, config))
    return reports[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.torture.soak", description=__doc__)
    parser.add_argument("--minutes", type=float, default=10.0, help="how long faults go on")
    parser.add_argument("--workers", type=int, default=3, help="worker processes kept alive")
    parser.add_argument("--runs", type=int, default=500, help="runs to create")
    parser.add_argument("--seed", type=int, default=None, help="replay a plan (default: random)")
    parser.add_argument("--concurrency", type=int, default=8, help="runs per worker at once")
    parser.add_argument("--stop-chance", type=float, default=0.15, help="of a fault: SIGSTOP")
    parser.add_argument("--drain", type=float, default=180.0, help="seconds to finish after")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    config = TortureConfig(
        seed=seed,
        seconds=args.minutes * 60,
        workers=args.workers,
        runs=args.runs,
        agents=max(8, args.runs // 25),
        stop_chance=args.stop_chance,
        drain_s=args.drain,
        worker_concurrency=args.concurrency,
    )
    folder = Path(tempfile.mkdtemp(prefix="perdure-soak-"))
    report = asyncio.run(soak(config, folder))
    say(report.details(limit=200))
    s = report.verdict.stats
    say(
        f"runs={report.runs_sent} kills={report.kills} stops={report.stops} "
        f"re-runs={len(report.verdict.reruns)} regenerations={len(report.verdict.regenerations)} "
        f"overlaps-with-abandoned={len(report.verdict.abandoned_overlaps)} "
        f"effects={s['effects']} tool_calls={s['tool_calls']} "
        f"violations={len(report.verdict.violations)} seed={seed}"
    )
    if report.verdict.violations:
        say(f"kept {folder} (worker logs, model call log)")
        return 1
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
