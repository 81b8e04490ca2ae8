"""The process's Prometheus metrics: events counted where they happen.

Labels hold only values from small fixed sets (a status, a provider type, an error code,
a route template), never an id or free text: a scrape's size must not grow with the
number of runs, sessions or tenants (`tests/integration/test_metrics.py` checks every
label of a scrape).

What the database knows (runs by status, pending approvals, their ages) is not counted
here but read at scrape time (`app/api/routes/metrics.py`), so it is right whichever
process changed it.

Several processes (uvicorn workers, `perdure worker`s sharing a host) each count their
own: with `PROMETHEUS_MULTIPROC_DIR` set in their environment *before they start*,
prometheus_client writes these values to files there and `/metrics` adds them up
(`registry()`).
"""

from __future__ import annotations

import os
import re

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, multiprocess

# Model and tool calls take from milliseconds (a scripted model, a local tool) to minutes.
CALL_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
# A checkpoint write is one statement: sub-millisecond to a stalled disk.
WRITE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)

CLAIMS = Counter("perdure_claims", "Runs claimed by a worker (takeovers included).")
TAKEOVERS = Counter(
    "perdure_takeovers",
    "Runs claimed from a worker that stopped driving them: `liveness` when its liveness "
    "lock was free (the process is gone), `expired` when its lease ran out (a late one).",
    ["reason"],
)
POISONED = Counter("perdure_runs_poisoned", "Runs failed as poison (PERDURE_POISON_MAX_DEATHS).")
FENCED_WRITES_REJECTED = Counter(
    "perdure_fenced_writes_rejected",
    "Saves a worker made with a stale fencing token (LeaseLost): nothing was written.",
)
CHECKPOINT_WRITE = Histogram(
    "perdure_checkpoint_write_seconds",
    "Round trip of one write of the save queue (one batch: a single save at a trickle).",
    buckets=WRITE_BUCKETS,
)
MODEL_CALL = Histogram(
    "perdure_model_call_seconds",
    "Model calls, by provider type and outcome (`ok` or `error`).",
    ["provider", "outcome"],
    buckets=CALL_BUCKETS,
)
MODEL_ERRORS = Counter(
    "perdure_model_call_errors",
    "Model calls that failed, by provider type and error code (`last_error.code`).",
    ["provider", "code"],
)
MODEL_TOKENS = Counter(
    "perdure_model_tokens",
    "Tokens the models' replies reported, by provider type and `direction` (input, output).",
    ["provider", "direction"],
)
MODEL_COST = Counter(
    "perdure_model_cost_usd",
    "What the model calls cost, from the model specs' `price` (0 for a model without one).",
    ["provider"],
)
TOOL_CALL = Histogram(
    "perdure_tool_call_seconds",
    "Tool calls a worker executed, by executor type and outcome (`ok` or `error`).",
    ["executor", "outcome"],
    buckets=CALL_BUCKETS,
)
WEBHOOK_DELIVERIES = Counter(
    "perdure_webhook_deliveries",
    "Webhook delivery attempts by outcome: `delivered`, `retry` (tried again later), "
    "`failed` (given up).",
    ["outcome"],
)
HTTP_REQUESTS = Counter(
    "perdure_http_requests",
    "HTTP requests by method, route template (`/v1/runs/{run_id}`, never the path) and status.",
    ["method", "route", "status"],
)

_CODE = re.compile(r"[a-z][a-z0-9_]{0,47}")


def bounded(code: str) -> str:
    """`code` as a label value, or `other` if it is not shaped like one of our codes: a
    label must never carry free text, whoever raised the error."""
    return code if _CODE.fullmatch(code) else "other"


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def registry() -> CollectorRegistry:
    """What this process's counters say: its own, or every process's under
    `PROMETHEUS_MULTIPROC_DIR` (a fresh registry per scrape, as prometheus_client asks)."""
    if multiprocess_dir() is None:
        return REGISTRY
    aggregated = CollectorRegistry()
    multiprocess.MultiProcessCollector(aggregated)  # type: ignore[no-untyped-call]
    return aggregated
