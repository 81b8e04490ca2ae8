"""Log lines: one JSON object per line for machines, a readable line for a terminal.

Every line a worker writes while it drives a run carries that run's `run_id`,
`session_id`, `lease_token` and `worker`, from a context variable the worker sets where
it drives the run (`bind_run`): asyncio copies it into every task started from there
(tool calls, retries), and into nothing else.
"""

from __future__ import annotations

import contextvars
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Literal

from pythonjsonlogger.json import JsonFormatter

LogFormat = Literal["json", "text"]


@dataclass(frozen=True)
class RunFields:
    run_id: str
    session_id: str
    lease_token: int
    worker: str


_run: contextvars.ContextVar[RunFields | None] = contextvars.ContextVar("perdure_run", default=None)


def bind_run(run_id: object, session_id: str, lease_token: int, worker: str) -> None:
    """Name the run on every line logged from here on, in this task and those it starts."""
    _run.set(RunFields(str(run_id), session_id, lease_token, worker))


@contextmanager
def about_run(run_id: object, session_id: str, lease_token: int, worker: str) -> Iterator[None]:
    """Name the run on the lines logged inside the block only."""
    reset = _run.set(RunFields(str(run_id), session_id, lease_token, worker))
    try:
        yield
    finally:
        _run.reset(reset)


class RunContext(logging.Filter):
    """Copies the bound run's fields onto each record (a handler filter: it sees the
    records of every logger that propagates to the handler)."""

    def filter(self, record: logging.LogRecord) -> bool:
        fields = _run.get()
        if fields is not None:
            record.__dict__.update(asdict(fields))
        return True


class TextFormatter(logging.Formatter):
    """A line for people: the run's fields, when there are any, after the message."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        run_id = getattr(record, "run_id", None)
        if run_id is None:
            return line
        return (
            f"{line} [run {run_id} session {getattr(record, 'session_id', '')} "
            f"token {getattr(record, 'lease_token', '')} worker {getattr(record, 'worker', '')}]"
        )


def json_formatter() -> logging.Formatter:
    return JsonFormatter(
        "{levelname}{name}{message}",
        style="{",
        rename_fields={"levelname": "level", "name": "logger"},
        # ISO 8601 in UTC (`2026-12-01T05:42:26.435000+00:00`), which log stores parse.
        timestamp="time",
        # Text as written (an ellipsis, a name in any script): greppable, still JSON.
        json_ensure_ascii=False,
    )


def configure(log_format: LogFormat | None, level: int = logging.INFO) -> logging.Handler:
    """One handler on the root logger, writing to stderr: JSON unless stderr is a terminal
    (or `log_format` says). Returns the handler; libraries' loggers (uvicorn's too, when
    it is told not to configure its own) propagate to it."""
    if log_format is None:
        log_format = "text" if sys.stderr.isatty() else "json"
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(json_formatter() if log_format == "json" else TextFormatter())
    handler.addFilter(RunContext())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return handler
