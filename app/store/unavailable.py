"""When the database does not answer: the one list of driver errors that mean it.

The API answers them `503 DATABASE_UNAVAILABLE`; the worker gives the run up and hands it
back; the CLI says it cannot reach the database. Anything else the driver raises is a bug
or bad input, and is handled as such. (Like httpx's one table from its transport's
exceptions to its own: the callers never list driver exceptions themselves.)
"""

from __future__ import annotations

import psycopg
import sqlalchemy.exc

DATABASE_UNAVAILABLE: tuple[type[Exception], ...] = (
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InterfaceError,
    # No pool connection free within PERDURE_POOL_TIMEOUT_S: the database may be
    # answering everyone else, but not this caller, now.
    sqlalchemy.exc.TimeoutError,
    # What runs on the driver's own connection (the checkpoint) is never wrapped.
    psycopg.OperationalError,
    psycopg.InterfaceError,
    # A socket error the driver let through (refused, reset, aborted).
    ConnectionError,
)


def unavailable_reason(exc: BaseException) -> str:
    """What a DATABASE_UNAVAILABLE error means, in the words of the logs: a pool checkout
    that timed out says nothing about the database, which may be answering everyone else."""
    if isinstance(exc, sqlalchemy.exc.TimeoutError):
        return "no connection free in the pool"
    return "database unreachable"


def describe(exc: BaseException) -> str:
    """A DATABASE_UNAVAILABLE error for a log line: what it means, then what it said."""
    text = str(exc).strip()
    said = f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__
    return f"{unavailable_reason(exc)} ({said})"
