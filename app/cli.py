"""The `perdure` command: serve, worker, migrate, openapi, and the runbook (runs, approvals,
sessions: app/runbook, a client of the HTTP API).

Every failure a user can cause (an unreachable database, a data folder that cannot be
written, a port in use) ends with one line saying what is wrong and what to do, and a
non-zero exit; tracebacks are for bugs.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import logging
import os
import re
import signal
import socket
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy.exc
from pydantic import ValidationError
from sqlalchemy.engine import make_url

from app import errors
from app.domain.principal import TENANT_PATTERN
from app.embedded_pg import EmbeddedPostgres, EmbeddedPostgresError
from app.runbook import commands as runbook
from app.runbook.client import ApiProblem
from app.settings import Settings
from app.store.unavailable import DATABASE_UNAVAILABLE

EXIT_USAGE = 2
EXIT_REFUSED = 1  # the API answered with a problem (its code is printed)
TENANT_RE = re.compile(TENANT_PATTERN)


class CliError(Exception):
    """A problem the user can fix; its message is the one line we print."""


def redact(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (sqlalchemy.exc.ArgumentError, ValueError):
        return "<unparseable URL>"


def load_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        raise CliError(f"invalid configuration: {where}: {first['msg']}") from exc


def migrate_or_explain(url: str) -> None:
    from app.db import migrate

    try:
        migrate(url)
    except sqlalchemy.exc.ArgumentError as exc:
        raise CliError(f"DATABASE_URL is not a valid database URL: {exc}") from exc
    except DATABASE_UNAVAILABLE as exc:
        orig = getattr(exc, "orig", None) or exc
        reason = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
        raise CliError(
            f"cannot reach the database at {redact(url)}: {reason}. "
            "Check DATABASE_URL, or unset it to use the embedded Postgres."
        ) from exc


def ensure_port_free(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CliError(
                f"cannot listen on {host}:{port}: {exc.strerror}. "
                "Is another server using it? Pick another with --port."
            ) from exc


@contextmanager
def database(settings: Settings, *, attach: bool = False) -> Iterator[str]:
    """The database URL to use: DATABASE_URL, or an embedded server started (and stopped) here.

    `attach`: when a `perdure serve` already runs the embedded server, use it as it is.
    """
    if settings.database_url:
        yield settings.database_url
        return
    server = EmbeddedPostgres(settings.data_dir)
    try:
        attached = attach and server.attach()
        if not attached:
            server.start()
    except EmbeddedPostgresError as exc:
        raise CliError(str(exc)) from exc
    if attached:
        yield server.url()
        return
    # Diagnostics go to stderr: stdout is for what a command answers (a new key, say).
    print(f"perdure: embedded Postgres data in {server.pgdata}", file=sys.stderr, flush=True)
    try:
        yield server.url()
    finally:
        server.stop()
        print("perdure: embedded Postgres stopped", file=sys.stderr, flush=True)


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve anywhere


def set_in_environment(name: str) -> bool:
    """Whether a setting is given (pydantic-settings reads names in any case)."""
    return any(key.upper() == name for key in os.environ)


def keys_exist(url: str, settings: Settings) -> bool:
    import asyncio

    from app.db import create_engine
    from app.store import keys

    async def check() -> bool:
        engine = create_engine(url, settings, pool_size=1)
        try:
            async with engine.connect() as conn:
                return await keys.any_key_exists(conn)
        finally:
            await engine.dispose()

    return asyncio.run(check())


def cmd_serve(args: argparse.Namespace) -> None:
    import uvicorn

    from app.main import create_app

    settings = load_settings()
    ensure_port_free(args.host, args.port)
    with database(settings) as url:
        migrate_or_explain(url)
        settings = settings.model_copy(update={"database_url": url})
        concurrency = settings.worker_concurrency if args.workers is None else args.workers
        loopback = is_loopback(args.host)
        keyless = not keys_exist(url, settings)
        if not set_in_environment("PERDURE_SCRIPTED_MODEL"):
            # The scripted model lets whoever defines an agent call any tool with any
            # arguments: by default only for a server that starts open (the walk-through).
            settings = settings.model_copy(update={"scripted_model": loopback and keyless})
        if keyless:
            if not loopback:
                raise CliError(
                    f"refusing to serve on {args.host} with no API key defined: anyone who "
                    "can reach it would own it. Create one first (`perdure keys create "
                    "--name admin --scopes admin,...`), or serve on 127.0.0.1."
                )
            print(
                "perdure: no API key defined: serving OPEN as the 'default' tenant, on "
                "loopback only (the first `perdure keys create` ends open mode)",
                flush=True,
            )
        app = create_app(
            settings,
            pool_concurrency=concurrency,
            open_when_keyless=loopback,
            # On loopback, only loopback names: a rebinding DNS name must not reach us.
            trusted_hosts=LOOPBACK_NAMES if loopback else None,
        )
        print(f"perdure: serving on http://{args.host}:{args.port}", flush=True)
        server = uvicorn.Server(
            # log_config=None: uvicorn's loggers go through ours (JSON or text), not
            # handlers of its own.
            uvicorn.Config(
                app, host=args.host, port=args.port, log_level=args.log_level, log_config=None
            )
        )
        # uvicorn shuts down on SIGTERM/SIGINT, then raises the signal again for whatever
        # handler was there before it. Ours swallows it: the embedded Postgres still has to
        # be stopped (the `database` context) before the process exits.
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: None)
        server.run()
        if not server.started:
            raise CliError(f"the server did not start on {args.host}:{args.port}")


def cmd_worker(args: argparse.Namespace) -> None:
    from app.worker.process import run_worker_process

    settings = load_settings()
    url = settings.database_url
    if not url:
        raise CliError("`perdure worker` needs DATABASE_URL (workers share one database)")
    if args.concurrency is not None:
        settings = settings.model_copy(update={"worker_concurrency": args.concurrency})
    if args.migrate:
        migrate_or_explain(url)
    run_worker_process(settings)


def cmd_migrate(args: argparse.Namespace) -> None:
    settings = load_settings()
    url = args.database_url or settings.database_url
    if not url:
        raise CliError("no database to migrate: pass --database-url or set DATABASE_URL")
    migrate_or_explain(url)
    print(f"perdure: {redact(url)} is at the newest revision", flush=True)


def cmd_prune(args: argparse.Namespace) -> None:
    import asyncio

    from app.db import create_engine
    from app.store.retention import prune

    settings = load_settings()
    url = args.database_url or settings.database_url
    if not url:
        raise CliError("no database to prune: pass --database-url or set DATABASE_URL")

    async def run() -> tuple[int, int, int]:
        engine = create_engine(url, settings, pool_size=1)
        totals = [0, 0, 0]
        try:
            while True:
                async with engine.begin() as conn:
                    done = await prune(conn, older_than_s=args.older_than_days * 86400)
                totals = [
                    totals[0] + done.sessions,
                    totals[1] + done.checkpoints,
                    totals[2] + done.events,
                ]
                if done.sessions == 0:
                    return totals[0], totals[1], totals[2]
        finally:
            await engine.dispose()

    try:
        sessions, checkpoints, events = asyncio.run(run())
    except DATABASE_UNAVAILABLE as exc:
        raise CliError(f"cannot reach the database at {redact(url)}") from exc
    print(
        f"perdure: pruned the history of {sessions} finished sessions "
        f"({checkpoints} checkpoints, {events} events)",
        flush=True,
    )


def cmd_keys(args: argparse.Namespace) -> None:
    """`perdure keys create|list|revoke`: the operator's hand on API keys, any tenant."""
    import asyncio

    from app.db import create_engine
    from app.domain.principal import Scope
    from app.store import keys

    settings = load_settings()
    operator = {"tenant_id": None, "name": "operator (perdure keys)", "key_prefix": None}
    scopes: frozenset[Scope] = frozenset()
    if args.action == "create":
        try:
            scopes = frozenset(Scope(s.strip()) for s in args.scopes.split(",") if s.strip())
        except ValueError as exc:
            known = ", ".join(s.value for s in Scope)
            raise CliError(f"unknown scope in --scopes ({exc}); known: {known}") from exc
        if not scopes:
            raise CliError("--scopes names none; give at least one, e.g. --scopes runs:read")
        if not TENANT_RE.match(args.tenant):
            raise CliError(f"--tenant must match {TENANT_PATTERN} (lowercase letters, digits)")

    async def run(url: str) -> None:
        engine = create_engine(url, settings, pool_size=1)
        try:
            async with engine.begin() as conn:
                if args.action == "create":
                    key, plaintext = await keys.create_key(
                        conn, tenant_id=args.tenant, name=args.name, scopes=scopes, actor=operator
                    )
                    print(
                        f"tenant {key.tenant_id}, name {key.name!r}, prefix {key.prefix}, "
                        f"scopes {','.join(sorted(key.scopes))}"
                    )
                    print("the key (shown once; only its hash is kept):")
                    print(plaintext, flush=True)
                elif args.action == "list":
                    for key in await keys.list_keys(conn, None):
                        state = (
                            f"revoked {key.revoked_at:%Y-%m-%d %H:%M}" if key.revoked_at else "live"
                        )
                        used = f"{key.last_used_at:%Y-%m-%d %H:%M}" if key.last_used_at else "never"
                        print(
                            f"{key.prefix}  {key.tenant_id}  {key.name!r}  "
                            f"{','.join(sorted(key.scopes))}  used {used}  {state}"
                        )
                else:
                    key = await keys.revoke_key(conn, args.prefix, tenant_id=None, actor=operator)
                    print(f"revoked {key.prefix} ({key.tenant_id}, {key.name!r})", flush=True)
        finally:
            await engine.dispose()

    with database(settings, attach=True) as url:
        migrate_or_explain(url)
        try:
            asyncio.run(run(url))
        except errors.KeyNotFound as exc:
            raise CliError(exc.detail) from exc
        except DATABASE_UNAVAILABLE as exc:
            raise CliError(f"cannot reach the database at {redact(url)}") from exc


def cmd_openapi(args: argparse.Namespace) -> None:
    from app.main import create_app

    spec = create_app(Settings(database_url=None)).openapi()
    sys.stdout.write(json.dumps(spec, indent=2, sort_keys=True) + "\n")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="perdure", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the API and a worker pool")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--workers",
        type=int,
        default=None,
        help="runs the in-process worker pool drives at once (0: API only; "
        "default PERDURE_WORKER_CONCURRENCY)",
    )
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(func=cmd_serve)

    worker = sub.add_parser("worker", help="run workers only (needs DATABASE_URL)")
    worker.add_argument("--concurrency", type=int, default=None, help="runs driven at once")
    worker.add_argument("--migrate", action="store_true", help="migrate the database first")
    worker.set_defaults(func=cmd_worker)

    mig = sub.add_parser("migrate", help="upgrade a database to the newest revision")
    mig.add_argument("--database-url", default=None)
    mig.set_defaults(func=cmd_migrate)

    pruning = sub.add_parser(
        "prune", help="drop checkpoints and events of sessions finished long ago"
    )
    pruning.add_argument("--older-than-days", type=float, required=True)
    pruning.add_argument("--database-url", default=None)
    pruning.set_defaults(func=cmd_prune)

    key_cmd = sub.add_parser("keys", help="create, list and revoke API keys")
    key_sub = key_cmd.add_subparsers(dest="action", required=True)
    create = key_sub.add_parser("create", help="make a key; prints it as the last line")
    create.add_argument("--tenant", default="default")
    create.add_argument("--name", required=True)
    create.add_argument(
        "--scopes", required=True, help="comma-separated, e.g. runs:read,runs:write"
    )
    key_sub.add_parser("list", help="every tenant's keys (never the keys themselves)")
    revoke = key_sub.add_parser("revoke", help="revoke a key by its prefix")
    revoke.add_argument("prefix")
    key_cmd.set_defaults(func=cmd_keys)

    spec = sub.add_parser("openapi", help="print the OpenAPI contract")
    spec.set_defaults(func=cmd_openapi)
    runbook.register(sub)
    return parser


def configure_telemetry() -> None:
    """Logs as PERDURE_LOG_FORMAT says (JSON off a terminal), and traces when the OTEL_*
    variables configure an exporter (else nothing of the tracing SDK is loaded)."""
    from app.telemetry import logs, tracing

    logs.configure(load_settings().log_format)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    try:
        tracing.setup_from_environment()
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    try:
        configure_telemetry()
        args.func(args)
    except CliError as exc:
        print(f"perdure: error: {exc}", file=sys.stderr, flush=True)
        sys.exit(EXIT_USAGE)
    except ApiProblem as exc:
        print(f"perdure: error: {exc.code}: {exc.detail}", file=sys.stderr, flush=True)
        sys.exit(EXIT_REFUSED)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
