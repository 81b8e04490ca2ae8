"""`GET /metrics`: the Prometheus scrape.

Behind the trust boundary, unlike `/healthz`: a load balancer's probe must work without a
key and says nothing, while this tells the volume and health of every tenant's work.
It needs the `metrics:read` scope (an operator's: give it to the monitoring system's key
only; `admin` does not imply it, since a tenant's admin must not see the fleet).
"""

from __future__ import annotations

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from app.api.auth import MetricsRead
from app.api.deps import EngineDep
from app.api.problems import responses
from app.store.gauges import Fleet, read_fleet
from app.telemetry import metrics

router = APIRouter(tags=["ops"])


class _FleetCollector(Collector):
    """What the database said at this scrape, as gauges (read by this process, so they are
    right however many processes count the rest)."""

    def __init__(self, fleet: Fleet) -> None:
        self.fleet = fleet

    def collect(self) -> list[GaugeMetricFamily]:
        fleet = self.fleet
        runs = GaugeMetricFamily(
            "perdure_runs", "Runs by status, from the database at scrape time.", labels=["status"]
        )
        for status, count in fleet.runs.items():
            runs.add_metric([status.value], count)
        return [
            runs,
            GaugeMetricFamily(
                "perdure_queued_oldest_age_seconds",
                "How long the oldest claimable queued run has waited (0: none waits).",
                value=fleet.oldest_queued_s,
            ),
            GaugeMetricFamily(
                "perdure_approvals_pending",
                "Approvals waiting for a decision.",
                value=fleet.approvals_pending,
            ),
            GaugeMetricFamily(
                "perdure_approvals_pending_oldest_age_seconds",
                "How long the oldest pending approval has waited (0: none waits).",
                value=fleet.oldest_approval_s,
            ),
        ]


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {
            "description": "Prometheus text exposition format.",
            "content": {CONTENT_TYPE_PLAIN_0_0_4: {"schema": {"type": "string"}}},
        },
        **responses(),
    },
)
async def get_metrics(engine: EngineDep, principal: MetricsRead) -> Response:
    """The fleet's metrics in Prometheus text format (scope `metrics:read`).

    Runs by status and pending approvals are read from the database at each scrape; the
    rest are this process's counters (every process's, under `PROMETHEUS_MULTIPROC_DIR`).
    """
    async with engine.connect() as conn:
        fleet = await read_fleet(conn)
    database = CollectorRegistry(auto_describe=False)
    database.register(_FleetCollector(fleet))
    body = generate_latest(database) + generate_latest(metrics.registry())
    return Response(body, media_type=CONTENT_TYPE_PLAIN_0_0_4)
