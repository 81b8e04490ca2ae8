"""The one map from errors to RFC 9457 `application/problem+json` responses.

Routes raise domain errors from `app.errors`; this module alone decides their status and
stable `code`. Nothing here leaks internals: an unmapped error is logged and becomes a
bare 500 with a correlation-free, generic body.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
import sqlalchemy.exc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match

from app import errors
from app.store.unavailable import DATABASE_UNAVAILABLE

log = logging.getLogger("perdure.api")

PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_BASE = "https://perdure.dev/problems/"


@dataclass(frozen=True)
class Problem:
    status: int
    code: str
    title: str


PROBLEMS: dict[type[errors.AppError], Problem] = {
    errors.NotFound: Problem(404, "NOT_FOUND", "Not found"),
    errors.AgentExists: Problem(409, "AGENT_EXISTS", "An agent with this id exists"),
    errors.SessionIdInvalid: Problem(422, "SESSION_ID_INVALID", "Invalid session id"),
    errors.SessionBusy: Problem(409, "SESSION_BUSY", "The session has an active run"),
    errors.SessionAgentMismatch: Problem(
        409, "SESSION_AGENT_MISMATCH", "The session belongs to another agent"
    ),
    errors.InvalidCursor: Problem(422, "VALIDATION_FAILED", "Invalid cursor"),
    errors.InputTooLarge: Problem(413, "PAYLOAD_TOO_LARGE", "Input too large"),
    errors.SessionAwaitingApproval: Problem(
        409, "SESSION_AWAITING_APPROVAL", "The session waits on an approval"
    ),
    errors.ApprovalAlreadyDecided: Problem(
        409, "APPROVAL_ALREADY_DECIDED", "The approval was already decided"
    ),
    errors.ApprovalOrphaned: Problem(
        409, "APPROVAL_ORPHANED", "The run no longer waits on this approval"
    ),
    errors.ApprovalArgumentsInvalid: Problem(
        422, "VALIDATION_FAILED", "The edited arguments do not fit the tool's schema"
    ),
    errors.RunNotAwaitingToolResults: Problem(
        409, "RUN_NOT_AWAITING_TOOL_RESULTS", "The run does not await tool results"
    ),
    errors.ToolResultAlreadyRecorded: Problem(
        409, "TOOL_RESULT_ALREADY_RECORDED", "The call already has its result"
    ),
    errors.UnknownToolCall: Problem(422, "VALIDATION_FAILED", "Unknown tool call"),
    errors.CheckpointNotFound: Problem(404, "CHECKPOINT_NOT_FOUND", "No such checkpoint"),
    errors.SessionExists: Problem(409, "SESSION_EXISTS", "A session with this id exists"),
    errors.InvalidForkPatch: Problem(422, "VALIDATION_FAILED", "The patch is not valid"),
    errors.AgentDrift: Problem(409, "AGENT_DRIFT", "The agent changed since the session began"),
    errors.ResumeToolMissing: Problem(
        409, "RESUME_TOOL_MISSING", "A pending call's tool no longer exists"
    ),
    errors.RunNotResumable: Problem(409, "RUN_NOT_RESUMABLE", "The run cannot be resumed"),
    errors.RunNotCancellable: Problem(409, "RUN_NOT_CANCELLABLE", "The run has already ended"),
    errors.InvalidDefinition: Problem(422, "VALIDATION_FAILED", "Invalid agent definition"),
    errors.BudgetInvalid: Problem(422, "VALIDATION_FAILED", "Invalid budget"),
    errors.MetadataInvalid: Problem(422, "VALIDATION_FAILED", "Invalid metadata"),
    errors.FilterInvalid: Problem(422, "VALIDATION_FAILED", "Invalid filter"),
    errors.SessionBudgetExhausted: Problem(
        409, "SESSION_BUDGET_EXHAUSTED", "The session has spent its budget"
    ),
    errors.DatabaseUnavailable: Problem(503, "DATABASE_UNAVAILABLE", "Database unavailable"),
    errors.IdempotencyKeyReused: Problem(
        422, "IDEMPOTENCY_KEY_REUSED", "The Idempotency-Key was used for another request"
    ),
    errors.WebhookUrlRefused: Problem(
        422, "WEBHOOK_URL_REFUSED", "The operator's egress rule refuses this URL"
    ),
    errors.Unauthorized: Problem(401, "UNAUTHORIZED", "Authentication required"),
    errors.Forbidden: Problem(403, "FORBIDDEN", "Not allowed"),
    errors.ScheduleExists: Problem(409, "SCHEDULE_EXISTS", "A schedule with this id exists"),
    errors.ScheduleInvalid: Problem(422, "VALIDATION_FAILED", "The schedule cannot run"),
    errors.SelfApproval: Problem(
        403, "SELF_APPROVAL", "The tool needs an approver other than who started the run"
    ),
}
# Headers a problem always carries.
PROBLEM_HEADERS = {
    401: {"WWW-Authenticate": 'Bearer realm="perdure"'},
    503: {"Retry-After": "1"},
}

UNAVAILABLE = PROBLEMS[errors.DatabaseUnavailable]
# Problems that come from the request's shape rather than a domain error.
VALIDATION_FAILED = Problem(422, "VALIDATION_FAILED", "Request validation failed")
PAYLOAD_TOO_LARGE = Problem(
    413, "PAYLOAD_TOO_LARGE", "The request body is over PERDURE_MAX_BODY_BYTES"
)
# An example `detail` per status, for the contract's problem examples.
STATUS_DETAILS = {
    401: "an API key is required: Authorization: Bearer <key>",
    403: "this key lacks the scope 'runs:write'",
    404: "no such resource in this tenant",
    413: "the request body is over 1048576 bytes",
    422: "body.input: Field required",
    503: "the database cannot be reached; retry",
}
# Where a session id arrives; a bad one there is SESSION_ID_INVALID, not VALIDATION_FAILED.
SESSION_ID_LOCATIONS = {
    ("path", "session_id"),
    ("query", "session_id"),
    ("query", "with"),
    ("body", "session_id"),
}


class ProblemBody(BaseModel):
    """The shape of every error response (extension members may follow)."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    code: str
    detail: str | None = None
    instance: str | None = None


def problem_response(
    request: Request, problem: Problem, detail: str | None, **extensions: Any
) -> JSONResponse:
    body: dict[str, Any] = {
        **extensions,  # first, so that no extension can shadow a standard member
        "type": TYPE_BASE + problem.code.lower().replace("_", "-"),
        "title": problem.title,
        "status": problem.status,
        "code": problem.code,
        "detail": detail,
        "instance": request.url.path,
    }
    return JSONResponse(
        body,
        status_code=problem.status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers=PROBLEM_HEADERS.get(problem.status),
    )


def problem_for(exc: errors.AppError) -> Problem:
    for cls in type(exc).__mro__:
        if cls in PROBLEMS:
            return PROBLEMS[cls]
    raise LookupError(type(exc).__name__)


def code_of(kind: str) -> str:
    """The problem code of an error class, by name (how fire records keep why a fire's send
    was refused): the same code the send itself would have answered."""
    cls = getattr(errors, kind, None)
    if isinstance(cls, type) and issubclass(cls, errors.AppError):
        try:
            return problem_for(cls("")).code
        except LookupError:
            pass
    return "INTERNAL"


def responses(
    *kinds: type[errors.AppError], public: bool = False
) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` for a route: the problems it may answer, plus 422, 413 and 503,
    and 401 and 403 unless the route is `public` (outside the trust boundary). Each status
    lists the `code`s the route can answer with it (an enum a generated client can match)."""
    always = () if public else (errors.Unauthorized, errors.Forbidden)
    by_status: dict[int, list[Problem]] = {}
    for problem in (
        *(problem_for(kind("")) for kind in (*kinds, *always, errors.DatabaseUnavailable)),
        VALIDATION_FAILED,
        PAYLOAD_TOO_LARGE,
    ):
        found = by_status.setdefault(problem.status, [])
        if problem.code not in {p.code for p in found}:
            found.append(problem)
    return {status: _documented(found) for status, found in sorted(by_status.items())}


def _documented(found: list[Problem]) -> dict[str, Any]:
    """One status's problem response: its codes as an enum, and the first as an example."""
    codes = [p.code for p in found]
    first = found[0]
    schema = {
        "allOf": [
            {"$ref": "#/components/schemas/ProblemBody"},
            {"type": "object", "properties": {"code": {"type": "string", "enum": codes}}},
        ]
    }
    example = {
        "type": TYPE_BASE + first.code.lower().replace("_", "-"),
        "title": first.title,
        "status": first.status,
        "code": first.code,
        "detail": STATUS_DETAILS.get(first.status, first.title),
        "instance": "/v1/…",
    }
    return {
        "description": f"{first.title}: `code` is {' or '.join(f'`{c}`' for c in codes)}.",
        "content": {PROBLEM_MEDIA_TYPE: {"schema": schema, "example": example}},
    }


def _jsonable_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    cleaned = []
    for error in exc.errors():
        # `ctx` may hold exception objects and `input` may echo huge bodies: keep it small.
        cleaned.append(
            {
                "loc": [str(part) for part in error.get("loc", ())],
                "msg": str(error.get("msg", "")),
                "type": str(error.get("type", "")),
            }
        )
    return cleaned


def _invalid_input(exc: errors.InvalidInput) -> tuple[str, dict[str, Any]]:
    """The detail and `errors` of a validation problem the store found: its `loc` paths
    say where in the request body, as FastAPI's own validation errors do."""
    where = [exc.location, *exc.field]
    found = [
        {"loc": [*where, *e.path], "msg": e.message, "type": e.kind} for e in exc.problems
    ] or [{"loc": where, "msg": exc.detail, "type": "value_error"}]
    return f"{'.'.join(found[0]['loc'])}: {found[0]['msg']}", {"errors": found}


def _api_routes(routes: Iterable[BaseRoute]) -> Iterator[APIRoute]:
    """The API routes, also those of included routers: FastAPI keeps an included router
    as one route of its own (`original_router` holds its routes, with their full paths)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _api_routes(inner.routes)


def allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (Starlette names only one route's)."""
    methods: set[str] = set()
    for route in _api_routes(request.app.router.routes):
        if route.methods:
            match, _ = route.matches({**request.scope, "method": next(iter(route.methods))})
            if match is Match.FULL:
                methods |= route.methods
    return sorted(methods)


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into a problem response."""

    @app.exception_handler(errors.AppError)
    async def _app_error(request: Request, exc: errors.AppError) -> JSONResponse:
        try:
            problem = problem_for(exc)
        except LookupError:
            log.exception("unmapped domain error")
            return problem_response(request, Problem(500, "INTERNAL", "Internal error"), None)
        if isinstance(exc, errors.InvalidInput):
            detail, extensions = _invalid_input(exc)
            return problem_response(request, problem, detail, **extensions, **exc.data)
        return problem_response(request, problem, exc.detail, **exc.data)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        problem = VALIDATION_FAILED
        errs = _jsonable_errors(exc)
        if any(tuple(e["loc"][:2]) in SESSION_ID_LOCATIONS for e in errs):
            problem = PROBLEMS[errors.SessionIdInvalid]
        detail = "invalid request"
        if errs:
            where = ".".join(errs[0]["loc"])
            detail = f"{where}: {errs[0]['msg']}" if where else str(errs[0]["msg"])
        return problem_response(request, problem, detail, errors=errs)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # a body that is not even text: as bad as bad JSON
            return problem_response(
                request,
                Problem(422, "VALIDATION_FAILED", "Request validation failed"),
                "the body is not valid UTF-8 JSON",
            )
        codes = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE"}
        code = codes.get(exc.status_code, f"HTTP_{exc.status_code}")
        title = str(exc.detail) if isinstance(exc.detail, str) else code
        response = problem_response(request, Problem(exc.status_code, code, title), title)
        response.headers.update(exc.headers or {})
        if exc.status_code == 405:
            response.headers["Allow"] = ", ".join(allowed_methods(request))
        return response

    async def _unstorable(request: Request, exc: Exception) -> JSONResponse:
        # Text Postgres cannot hold (an unpaired surrogate, a NUL) or a number past its
        # column: bad input, rolled back with its transaction, never a 500.
        log.info("unstorable input on %s: %s", request.url.path, type(exc).__name__)
        return problem_response(
            request,
            Problem(422, "VALIDATION_FAILED", "Request validation failed"),
            "the request holds a value that cannot be stored (an unpaired surrogate or NUL "
            "in text, or a number out of range)",
        )

    for unstorable in (sqlalchemy.exc.DataError, UnicodeEncodeError):
        app.add_exception_handler(unstorable, _unstorable)

    @app.exception_handler(sqlalchemy.exc.StatementError)
    async def _statement(request: Request, exc: sqlalchemy.exc.StatementError) -> JSONResponse:
        if isinstance(exc.orig, UnicodeEncodeError | psycopg.DataError):
            return await _unstorable(request, exc)
        return await _unexpected(request, exc)

    async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
        log.warning("database unavailable: %s", type(exc).__name__)
        return problem_response(request, UNAVAILABLE, "the database cannot be reached; retry")

    for kind in DATABASE_UNAVAILABLE:
        app.add_exception_handler(kind, _unavailable)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return problem_response(request, Problem(500, "INTERNAL", "Internal error"), None)
