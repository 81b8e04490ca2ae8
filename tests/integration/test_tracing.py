"""OpenTelemetry traces: a run's spans join the trace of the request that queued it, and
`http` tools receive the trace context; off (no exporter configured), nothing is traced,
stored or sent, and the SDK is not even loaded."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from app.telemetry import tracing
from tests import pg
from tests.agents import agent, calls, http_tool, python_tool
from tests.fake_http import http_server
from tests.support import define

ROOT = Path(__file__).resolve().parents[2]
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.install(provider)
    try:
        yield exporter
    finally:
        tracing.shutdown()


def named(spans: tuple[ReadableSpan, ...], name: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name]


def parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


async def test_a_run_is_traced_under_the_request_that_queued_it(
    spans: InMemorySpanExporter, live: httpx.AsyncClient, database_url: str
) -> None:
    with http_server({"/t": (200, b'{"ok": true}', 0)}) as (base, seen):
        tools = [http_tool("t", f"{base}/t"), python_tool("n", "noop")]
        await define(live, agent("tr", [calls(("t", {}), ("n", {})), {"text": "done"}], tools))
        sent = await live.post(
            "/v1/sessions/tr-1/runs?wait=20",
            json={"agent_id": "tr", "input": "go"},
            headers={"traceparent": CALLER},
        )
        assert sent.status_code == 200, sent.text
        deadline = time.monotonic() + 10
        while not named(spans.get_finished_spans(), "perdure.run"):
            assert time.monotonic() < deadline, "the run's span never ended"
            await asyncio.sleep(0.05)
    finished = spans.get_finished_spans()

    (request,) = named(finished, "POST /v1/sessions/{session_id}/runs")
    assert f"{request.context.trace_id:032x}" == TRACE_ID  # the caller's trace goes on
    assert request.attributes is not None
    assert request.attributes["http.route"] == "/v1/sessions/{session_id}/runs"
    (run,) = named(finished, "perdure.run")
    assert run.context.trace_id == request.context.trace_id
    assert parent_id(run) == request.context.span_id
    assert run.attributes is not None
    assert run.attributes["perdure.run_id"] == sent.json()["id"]
    steps = named(finished, "perdure.step")
    assert [s.attributes["perdure.step"] for s in steps if s.attributes] == [1, 2]
    assert {parent_id(s) for s in steps} == {run.context.span_id}
    step_ids = {s.context.span_id for s in steps}
    model_calls = named(finished, "perdure.model_call")
    assert len(model_calls) == 2
    assert {parent_id(s) for s in model_calls} == step_ids
    tool_calls = named(finished, "perdure.tool_call")
    executors = sorted(str(s.attributes["perdure.executor"]) for s in tool_calls if s.attributes)
    assert executors == ["http", "python"]
    assert {parent_id(s) for s in tool_calls} == {steps[0].context.span_id}

    # The http tool got the trace context of its own call's span.
    (http_call,) = [s for s in tool_calls if s.attributes and s.attributes["perdure.tool"] == "t"]
    traceparent = seen[0]["headers"]["traceparent"]
    assert traceparent == f"00-{TRACE_ID}-{http_call.context.span_id:016x}-01"
    stored = await pg.arows(database_url, "SELECT trace_context FROM runs")
    assert stored[0][0]["traceparent"].startswith(f"00-{TRACE_ID}-")


async def test_off__no_span_no_stored_context_no_header(
    live: httpx.AsyncClient, database_url: str
) -> None:
    assert not tracing.enabled()
    # The same do-nothing context manager every time: nothing is made per step or call.
    assert tracing.span("a") is tracing.span("b")
    with http_server({"/t": (200, b'{"ok": true}', 0)}) as (base, seen):
        await define(
            live, agent("off", [calls(("t", {})), {"text": "done"}], [http_tool("t", f"{base}/t")])
        )
        sent = await live.post(
            "/v1/sessions/off-1/runs?wait=20",
            json={"agent_id": "off", "input": "go"},
            headers={"traceparent": CALLER},
        )
        assert sent.status_code == 200, sent.text
    assert "traceparent" not in seen[0]["headers"]
    assert await pg.arows(database_url, "SELECT trace_context FROM runs") == [(None,)]


def sdk_loaded(**env: str) -> str:
    """Whether the tracing SDK is loaded once `perdure`'s set-up ran under `env`."""
    script = (
        "import sys, app.main, app.worker.process; from app.cli import configure_telemetry; "
        "configure_telemetry(); from app.telemetry import tracing; "
        "print(tracing.enabled(), 'opentelemetry.sdk.trace' in sys.modules)"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_off__the_sdk_is_not_even_loaded() -> None:
    assert sdk_loaded() == "False False"


@pytest.mark.parametrize(
    ("env", "on"),
    [
        ({}, False),
        ({"OTEL_TRACES_EXPORTER": "none"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, True),
        ({"OTEL_TRACES_EXPORTER": "console"}, True),
        ({"OTEL_TRACES_EXPORTER": "console", "OTEL_SDK_DISABLED": "true"}, False),
    ],
)
def test_traces_are_on_only_when_an_exporter_is_configured(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], on: bool
) -> None:
    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)
    for name, setting in env.items():
        monkeypatch.setenv(name, setting)
    assert tracing.configured() is on
    try:
        assert tracing.setup_from_environment() is on
        assert tracing.enabled() is on
    finally:
        tracing.shutdown()
