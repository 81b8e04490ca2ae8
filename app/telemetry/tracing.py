"""OpenTelemetry traces: on only when an exporter is configured the standard way.

`OTEL_TRACES_EXPORTER` (`otlp`, the default once an endpoint is set, or `console`) or
`OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` turn it on;
`OTEL_SDK_DISABLED=true` keeps it off. The SDK reads the rest itself (`OTEL_SERVICE_NAME`,
`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS`, the batch processor's limits).

Off, nothing of the SDK is imported or set up, and every helper here is one test of a
module global: `span()` hands back a shared do-nothing context manager, `carrier()` is
None and `inject()` adds no header.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

_propagator = TraceContextTextMapPropagator()
_tracer: trace.Tracer | None = None
_provider: TracerProvider | None = None
_OFF: AbstractContextManager[None] = nullcontext()
SERVER = trace.SpanKind.SERVER


def configured() -> bool:
    """Whether the environment asks for traces (see the module's docstring)."""
    env = os.environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = env.get("OTEL_TRACES_EXPORTER")
    if exporter is not None:
        return exporter.strip().lower() not in ("", "none")
    return bool(
        env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


def setup_from_environment() -> bool:
    """Set up the SDK if the environment asks for traces; True when on."""
    if _tracer is not None:
        return True
    if not configured():
        return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        ConsoleSpanExporter,
        SpanExporter,
    )

    # The environment's service name wins over ours (`Resource.create` merges ours last).
    attributes = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": "perdure"}
    provider = TracerProvider(resource=Resource.create(attributes))
    names = os.environ.get("OTEL_TRACES_EXPORTER", "otlp")
    for name in (n.strip().lower() for n in names.split(",") if n.strip()):
        exporter: SpanExporter
        if name == "console":
            exporter = ConsoleSpanExporter()
        elif name == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter()
        else:
            raise ValueError(
                f"OTEL_TRACES_EXPORTER={names!r}: Perdure ships the `otlp` (http/protobuf) "
                "and `console` exporters"
            )
        provider.add_span_processor(BatchSpanProcessor(exporter))
    install(provider)
    return True


def install(provider: TracerProvider) -> None:
    """Trace through `provider` (the environment's, or a test's in-memory one)."""
    global _tracer, _provider
    _provider = provider
    _tracer = provider.get_tracer("perdure")


def shutdown() -> None:
    """Flush what is buffered and turn tracing off."""
    global _tracer, _provider
    if _provider is not None:
        _provider.shutdown()
    _tracer, _provider = None, None


def enabled() -> bool:
    return _tracer is not None


def span(
    name: str,
    attributes: Mapping[str, Any] | None = None,
    *,
    parent: Mapping[str, str] | None = None,
    kind: trace.SpanKind = trace.SpanKind.INTERNAL,
) -> AbstractContextManager[Any]:
    """A span around a block, child of the current one, or of `parent` (a W3C carrier:
    the request that queued a run). A do-nothing context manager when tracing is off."""
    if _tracer is None:
        return _OFF
    context = _propagator.extract(parent) if parent else None
    return _tracer.start_as_current_span(name, context=context, attributes=attributes, kind=kind)


@contextmanager
def server_span(method: str, headers: Mapping[str, str]) -> Iterator[Any]:
    """An HTTP request's span, continuing the caller's trace when it sent `traceparent`."""
    assert _tracer is not None
    with _tracer.start_as_current_span(
        method, context=_propagator.extract(headers), kind=SERVER
    ) as current:
        yield current


def carrier() -> dict[str, str] | None:
    """The current trace context as W3C headers, to store with a run; None when off."""
    if _tracer is None:
        return None
    headers: dict[str, str] = {}
    _propagator.inject(headers)
    return headers or None


def inject(headers: MutableMapping[str, str]) -> None:
    """Add `traceparent` (and `tracestate`) for the current span to outgoing headers."""
    if _tracer is not None:
        _propagator.inject(headers)
