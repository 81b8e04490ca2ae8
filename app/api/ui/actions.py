"""The dashboard's forms: sign in and out, cancel and resume a run, decide an approval.
Each posts to the API's own route function with the cookie's principal."""

from __future__ import annotations

import json
from typing import Annotated, Any
from uuid import UUID

from fastapi import Form, Request, Response
from fastapi.responses import RedirectResponse
from fastapi.security import HTTPAuthorizationCredentials, SecurityScopes
from pydantic import ValidationError

from app import errors
from app.api import auth
from app.api.deps import EngineDep
from app.api.problems import problem_for
from app.api.routes import approvals, runs
from app.api.schemas import DecisionIn
from app.api.ui.guard import COOKIE, Decider, RunsWriter
from app.api.ui.pages import inbox, parse_run_id
from app.api.ui.rendering import page, ui_router

router = ui_router()
KEY_FIELD = Annotated[str, Form(max_length=200)]


@router.get("/login")
async def login_page(request: Request, error: str = "") -> Response:
    return page(request, "login.html", {"refused": error == "refused"})


@router.post("/login")
async def login(request: Request, engine: EngineDep, key: KEY_FIELD) -> Response:
    """Check the key as the API would, then keep it in a cookie that no script can read
    (`HttpOnly`) and no other site's request carries (`SameSite=Strict`)."""
    credentials = HTTPAuthorizationCredentials(scheme="Bearer", credentials=key.strip())
    try:
        await auth.authenticate(SecurityScopes([]), request, engine, credentials)
    except errors.Unauthorized:
        return page(request, "login.html", {"refused": True}, status_code=401)
    response = RedirectResponse("/ui/runs", status_code=303)
    response.set_cookie(
        COOKIE,
        key.strip(),
        path="/ui",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/logout")
async def logout() -> Response:
    response = RedirectResponse("/ui/login", status_code=303)
    response.delete_cookie(COOKIE, path="/ui")
    return response


@router.post("/runs/{run_id}/cancel")
async def cancel(run_id: str, engine: EngineDep, principal: RunsWriter) -> Response:
    run = await runs.cancel_run(parse_run_id(run_id), engine, principal)
    return RedirectResponse(f"/ui/runs/{run.id}", status_code=303)


@router.post("/runs/{run_id}/resume")
async def resume(run_id: str, engine: EngineDep, principal: RunsWriter) -> Response:
    run = await runs.resume_run(parse_run_id(run_id), engine, principal)
    return RedirectResponse(f"/ui/runs/{run.id}", status_code=303)


class DecisionRefused(Exception):
    """A decision the inbox shows at its approval instead of a page of its own."""

    def __init__(self, status: int, message: str, fields: list[tuple[str, str]]) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.fields = fields


def edited_arguments(text: str, asked: Any) -> dict[str, Any] | None:
    """The arguments from the form: None when unchanged (no edit), an object otherwise.

    Raises:
        DecisionRefused: not JSON, or not an object.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DecisionRefused(422, f"the arguments are not JSON: {exc}", []) from None
    if value == asked:
        return None
    if not isinstance(value, dict):
        raise DecisionRefused(422, "the arguments must be a JSON object", [])
    return value


@router.post("/approvals/{approval_id}/decision")
async def decide(
    request: Request,
    approval_id: str,
    engine: EngineDep,
    principal: Decider,
    decision: Annotated[str, Form(pattern="^(approve|reject)$")],
    arguments: Annotated[str, Form(max_length=100_000)] = "",
    reason: Annotated[str, Form(max_length=4000)] = "",
) -> Response:
    """Approve or reject, with a reason and edited arguments. An edit the tool's schema
    refuses shows its field's error at the approval, with the text as it was typed."""
    try:
        uuid = UUID(approval_id)
    except ValueError:
        raise errors.ApprovalNotFound("no such approval", approval_id=approval_id) from None
    asked = await approvals.get_approval(uuid, engine, principal)
    try:
        body = DecisionIn(
            approved=decision == "approve",
            reason=reason.strip() or None,
            arguments=edited_arguments(arguments, asked.arguments) if arguments else None,
        )
        decided = await approvals.decide_approval(uuid, body, engine, principal)
    except DecisionRefused as exc:
        failure = exc
    except ValidationError as exc:
        failure = DecisionRefused(422, str(exc.errors()[0]["msg"]), [])
    except errors.InvalidInput as exc:
        fields = [("/".join(p.path) or "(arguments)", p.message) for p in exc.problems]
        failure = DecisionRefused(problem_for(exc).status, exc.detail, fields)
    except (errors.NotFound, errors.Forbidden):
        raise  # a page of their own: another tenant's approval, a missing scope
    except errors.AppError as exc:  # decided already, orphaned, self-approval
        failure = DecisionRefused(problem_for(exc).status, exc.detail, [])
    else:
        return RedirectResponse(f"/ui/runs/{decided.run_id}", status_code=303)
    shown = {asked.id: {"failure": failure, "arguments": arguments, "reason": reason}}
    return await inbox(request, engine, principal, shown, failure.status)
