"""Settings, read from the environment in one place.

Nothing is read at import time: code calls `get_settings()`, which is cached, and tests
build `Settings(...)` directly.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app import capabilities


def default_data_dir() -> Path:
    """Where `perdure serve` keeps its embedded Postgres when nothing else is said."""
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "perdure"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PERDURE_", extra="ignore")

    # `DATABASE_URL` is the conventional name; PERDURE_DATABASE_URL works too.
    database_url: str | None = Field(
        default=None, validation_alias=AliasChoices("DATABASE_URL", "PERDURE_DATABASE_URL")
    )
    data_dir: Path = Field(default_factory=default_data_dir)

    # Leases (DESIGN.md §4). The TTL must leave room for several missed heartbeats.
    lease_ttl_s: float = Field(default=30.0, gt=0)
    heartbeat_s: float = Field(default=10.0, gt=0)
    # A tool call is not started when the lease has less than this left; margin plus a
    # heartbeat must stay below the TTL (checked below).
    lease_margin_s: float = Field(default=3.0, ge=0)

    # Workers.
    worker_concurrency: int = Field(default=32, ge=1, le=1024)
    poll_interval_s: float = Field(default=1.0, gt=0)
    shutdown_grace_s: float = Field(default=10.0, ge=0)
    model_max_attempts: int = Field(default=8, ge=1)
    retry_base_s: float = Field(default=1.0, gt=0)
    retry_max_s: float = Field(default=300.0, gt=0)
    # Poison runs: a run whose worker died while driving it is driven alone until it makes
    # progress; after this many deaths while driven alone it is failed (`poison_run`).
    poison_max_deaths: int = Field(default=3, ge=1)

    # Schedules: how often each worker looks for due schedules, and how far back a due
    # time missed while no worker ran is still fired (older ones are recorded as skipped).
    schedule_poll_s: float = Field(default=1.0, gt=0)
    schedule_catch_up_s: float = Field(default=3600.0, gt=0)
    # Operators: a queued run is listed as stuck (`GET /v1/runs?stuck=true`) once it
    # could have been claimed this long ago and no worker has taken it.
    stuck_queued_s: float = Field(default=300.0, gt=0, le=365 * 86400)

    # Retention: workers prune the history of sessions finished longer ago than this.
    retention_days: float | None = Field(default=None, gt=0)
    retention_interval_s: float = Field(default=3600.0, gt=0)

    # Database pool of one process.
    pool_size: int = Field(default=10, ge=1)
    pool_timeout_s: float = Field(default=5.0, gt=0)

    # Request limits.
    max_body_bytes: int = Field(default=1_048_576, ge=1024)
    max_wait_s: float = Field(default=60.0, ge=0)

    # Streams (SSE): a keep-alive comment this often, so proxies do not cut idle streams;
    # a client that does not take an event within the timeout is dropped (it resumes
    # with Last-Event-ID), so none is buffered for without bound.
    stream_ping_s: float = Field(default=15.0, gt=0)
    stream_send_timeout_s: float = Field(default=30.0, gt=0)

    # Webhooks: each delivery attempt waits this long for an answer; failed ones (a
    # timeout, no connection, 5xx, 429) are tried again after an exponential back-off
    # with jitter (base, doubling, at most max; a 429's Retry-After if longer) until the
    # delivery is `retry_for_s` old, then marked failed. Workers look for due deliveries
    # every `poll_s` and send at most `concurrency` at once each; delivered and failed
    # ones are deleted `keep_days` after.
    webhook_timeout_s: float = Field(default=10.0, gt=0)
    webhook_retry_base_s: float = Field(default=5.0, gt=0)
    webhook_retry_max_s: float = Field(default=3600.0, gt=0)
    webhook_retry_for_s: float = Field(default=86400.0, ge=0)
    webhook_poll_s: float = Field(default=1.0, gt=0)
    webhook_concurrency: int = Field(default=16, ge=1, le=1024)
    webhook_keep_days: float = Field(default=7.0, gt=0)

    # Observability. Log lines: `json` (one object per line) or `text`; unset, JSON unless
    # stderr is a terminal. `perdure worker` serves its Prometheus metrics on this port
    # (all interfaces) when set; `perdure serve` has them at GET /metrics.
    log_format: Literal["json", "text"] | None = None
    metrics_port: int | None = Field(default=None, ge=1, le=65535)

    # -- Operator capabilities (DESIGN.md §12; the rules are in app/capabilities.py) --
    # Lists are comma-separated in the environment. Module prefixes whose functions may
    # be `python` tools (whole module names: `tests` allows `tests.tools`).
    python_tools: Annotated[tuple[str, ...], NoDecode] = capabilities.DEFAULT_PYTHON_TOOLS
    # Environment variables that `api_key_env` and `{"env": ...}` headers may send, and
    # where: `GLOB@HOST|HOST…` (names or globs, `{tenant}` for the caller's tenant; hosts,
    # `*.domain`, `HOST:PORT`, `HOST:*`); without `@` anywhere, warned of at start.
    # capabilities.NEVER_SECRET_ENV are refused whatever this says.
    secret_env: Annotated[tuple[str, ...], NoDecode] = capabilities.DEFAULT_SECRET_ENV
    # Where http tools and models may connect: empty = anywhere but link-local and cloud
    # metadata (always refused); else only these host names, *.domains, addresses, CIDRs.
    egress: Annotated[tuple[str, ...], NoDecode] = ()
    # The `scripted` provider (it lets whoever defines an agent call any deployed tool
    # with any arguments). Unset: on only when there is no DATABASE_URL, i.e. for
    # `perdure serve` with its embedded Postgres (decided here, before serve fills in
    # the embedded server's URL).
    scripted_model: bool | None = None
    # The most a model reply's body may hold, raw or inflated: a model's URL is the
    # definition's choice, so the size of its reply must not be (`response_too_large`).
    max_model_reply_bytes: int = Field(
        default=capabilities.DEFAULT_MODEL_REPLY_BYTES,
        ge=capabilities.MIN_MODEL_REPLY_BYTES,
        le=capabilities.MAX_MODEL_REPLY_BYTES,
    )

    @field_validator("python_tools", "secret_env", "egress", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("python_tools")
    @classmethod
    def _module_prefixes(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(capabilities.check_module_prefix(prefix) for prefix in value)

    @field_validator("secret_env")
    @classmethod
    def _secret_grants(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(capabilities.check_secret_grant(entry) for entry in value)

    @field_validator("egress")
    @classmethod
    def _egress_entries(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        capabilities.Egress.parse(value)  # raises, naming the entry it cannot read
        return value

    @model_validator(mode="after")
    def _scripted_model_default(self) -> Settings:
        if self.scripted_model is None:
            self.scripted_model = self.database_url is None
        return self

    @model_validator(mode="after")
    def _lease_outlives_heartbeats(self) -> Settings:
        """Refuse lease settings under which a claimed run could not make progress.

        A worker renews every `heartbeat_s`, and measures its lease from when the last
        renewal was sent, so just before the next renewal it knows of only `ttl -
        heartbeat` (less a round trip); it starts a tool call only with more than
        `margin` left. Each rule is one line naming the variables: the CLI prints it.
        """
        ttl, heartbeat, margin = self.lease_ttl_s, self.heartbeat_s, self.lease_margin_s
        if ttl < 2 * heartbeat:
            raise ValueError(
                f"PERDURE_LEASE_TTL_S ({ttl}) must be at least twice "
                f"PERDURE_HEARTBEAT_S ({heartbeat}), or one late heartbeat loses the lease"
            )
        if margin + heartbeat >= ttl:
            raise ValueError(
                f"PERDURE_LEASE_MARGIN_S ({margin}) plus PERDURE_HEARTBEAT_S ({heartbeat}) "
                f"must be less than PERDURE_LEASE_TTL_S ({ttl}): between renewals a worker "
                f"knows of only the TTL minus a heartbeat, so with less than the margin left "
                f"it would stop its runs instead of starting their tool calls"
            )
        return self

    @model_validator(mode="after")
    def _catch_up_outlasts_polls(self) -> Settings:
        """A fire is up to a poll late in the ordinary course; a window shorter than that
        would record on-time due times as missed."""
        window, poll = self.schedule_catch_up_s, self.schedule_poll_s
        if window < 2 * poll:
            raise ValueError(
                f"PERDURE_SCHEDULE_CATCH_UP_S ({window}) must be at least twice "
                f"PERDURE_SCHEDULE_POLL_S ({poll}), or fires a poll late would be "
                f"recorded as missed"
            )
        return self


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
