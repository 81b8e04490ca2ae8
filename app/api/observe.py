"""Every HTTP request, counted by route template and status, and traced when tracing is on.

A pure ASGI middleware (no per-request task or body copy), outermost but for the
trusted-host and size checks' own answers, which it counts too.
"""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.telemetry import metrics, tracing

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# What no route matched (404s for unknown paths, 400s from the host check): one series,
# whatever the path was.
UNMATCHED = "unmatched"


def route_template(scope: Scope) -> str:
    """The matched route's path template (`/v1/runs/{run_id}`): never the raw path."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else UNMATCHED


class RequestMetrics:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # if nothing was sent, Starlette's error handler answers 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        method = scope["method"] if scope["method"] in METHODS else "other"
        try:
            if tracing.enabled():
                await self._traced(scope, receive, sending, method)
            else:
                await self.app(scope, receive, sending)
        finally:
            metrics.HTTP_REQUESTS.labels(method, route_template(scope), str(status)).inc()

    async def _traced(self, scope: Scope, receive: Receive, send: Send, method: str) -> None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        with tracing.server_span(method, headers) as span:
            status: dict[str, Any] = {}

            async def sending(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status["code"] = message["status"]
                await send(message)

            try:
                await self.app(scope, receive, sending)
            finally:
                template = route_template(scope)
                span.update_name(f"{method} {template}")
                span.set_attribute("http.request.method", method)
                span.set_attribute("http.route", template)
                if "code" in status:
                    span.set_attribute("http.response.status_code", status["code"])
