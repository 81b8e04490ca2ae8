"""Templates, and what the dashboard answers instead of a problem document: the login
page for a missing or refused key, an error page for every other error."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse
from fastapi.routing import APIRoute
from fastapi.templating import Jinja2Templates

from app import errors
from app.api.problems import problem_for
from app.api.ui.guard import COOKIE, KeyMissing, same_origin

log = logging.getLogger("perdure.ui")

HERE = Path(__file__).parent
STATIC = HERE / "static"
templates = Jinja2Templates(directory=HERE / "templates")
templates.env.filters["pretty"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False)

# Pages and their forms load only what this server serves, and no other site may frame
# them (an approve button under someone else's overlay is a click-jacking target).
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def page(request: Request, name: str, context: dict[str, Any], status_code: int = 200) -> Response:
    return templates.TemplateResponse(request, name, context, status_code=status_code)


def to_login(request: Request, *, refused: bool) -> Response:
    """The login page: with an error when a key was presented and refused (unknown,
    revoked, or not shaped like one), whose cookie is then dropped."""
    query = "?" + urlencode({"error": "refused"}) if refused else ""
    response = RedirectResponse(f"/ui/login{query}", status_code=303)
    if refused:
        response.delete_cookie(COOKIE, path="/ui")
    return response


def error_page(request: Request, exc: errors.AppError) -> Response:
    try:
        problem = problem_for(exc)
    except LookupError:
        log.exception("unmapped domain error")
        return page(request, "error.html", {"status": 500, "title": "Internal error"}, 500)
    context = {"status": problem.status, "title": problem.title, "detail": exc.detail}
    return page(request, "error.html", context, problem.status)


class UiRoute(APIRoute):
    """A dashboard route: errors become pages, never problem documents, and every answer
    carries the security headers."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def rendered(request: Request) -> Response:
            try:
                response = await handler(request)
            except errors.Unauthorized as exc:
                response = to_login(request, refused=not isinstance(exc, KeyMissing))
            except errors.AppError as exc:
                response = error_page(request, exc)
            except RequestValidationError as exc:
                first = exc.errors()[0] if exc.errors() else {}
                where = ".".join(str(p) for p in first.get("loc", ()))
                context = {
                    "status": 422,
                    "title": "Invalid request",
                    "detail": f"{where}: {first.get('msg', 'invalid')}",
                }
                response = page(request, "error.html", context, 422)
            response.headers.update(SECURITY_HEADERS)
            return response

        return rendered


def ui_router() -> APIRouter:
    """A router of dashboard routes: kept out of the API contract, pages for errors, and
    no unsafe request from another origin."""
    return APIRouter(
        prefix="/ui",
        route_class=UiRoute,
        include_in_schema=False,
        dependencies=[Depends(same_origin)],
    )
