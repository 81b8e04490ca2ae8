"""The dashboard's trust boundary: the API key in a cookie, checked by the API's own
`authenticate`, and forms that only the dashboard's own pages can post.

CSRF: the cookie is `SameSite=Strict`, so a browser does not send it with a request that
another site starts; and every unsafe request must come from this origin, by the
browser's own word (`Sec-Fetch-Site`, or `Origin` where a browser sends no fetch
metadata). That is the check of Go's `http.CrossOriginProtection`: stateless, no token to
thread through every form, and a request with neither header is no browser's, so it
carries no victim's cookie. (A double-submit token would add state to every form for the
same guarantee.)
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Request, Security
from fastapi.security import HTTPAuthorizationCredentials, SecurityScopes

from app import errors
from app.api import auth
from app.api.deps import EngineDep
from app.domain.principal import Principal, Scope

COOKIE = "perdure_key"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# "none": the person started it (a bookmark, the address bar), not a page.
TRUSTED_SITES = frozenset({"same-origin", "none"})


class CrossOriginForm(errors.Forbidden):
    """An unsafe request that another origin's page started (a CSRF attempt)."""


class KeyMissing(errors.Unauthorized):
    """No key cookie: the login page, without an error (nobody tried a key)."""


def same_origin(request: Request) -> None:
    """Refuse an unsafe request that a page of another origin started.

    Raises:
        CrossOriginForm: the browser says another site (or an opaque origin) sent it.
    """
    if request.method in SAFE_METHODS:
        return
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        if site not in TRUSTED_SITES:
            raise CrossOriginForm(f"a form posted from another site ({site}) is refused")
        return
    origin = request.headers.get("origin")
    if origin is not None and origin != own_origin(request):
        raise CrossOriginForm("a form posted from another origin is refused")


def own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.headers.get('host', '')}"


async def ui_principal(
    security_scopes: SecurityScopes, request: Request, engine: EngineDep
) -> Principal:
    """The principal of the key in the cookie, allowed the route's scope: the API's own
    check (a revoked key fails at once), fed from the cookie instead of a header."""
    key = request.cookies.get(COOKIE)
    if not key:
        raise KeyMissing("sign in with an API key")
    credentials = HTTPAuthorizationCredentials(scheme="Bearer", credentials=key)
    return await auth.authenticate(security_scopes, request, engine, credentials)


def allowed(scope: Scope) -> Any:
    """A dependency: the cookie's principal, which must hold `scope`."""
    return Security(ui_principal, scopes=[scope.value])


AgentsReader = Annotated[Principal, allowed(Scope.AGENTS_READ)]
RunsReader = Annotated[Principal, allowed(Scope.RUNS_READ)]
RunsWriter = Annotated[Principal, allowed(Scope.RUNS_WRITE)]
Decider = Annotated[Principal, allowed(Scope.APPROVALS_DECIDE)]
