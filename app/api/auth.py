"""The trust boundary: every request is a Principal, or it is refused.

`Authorization: Bearer <key>` names an API key; its tenant and scopes bound what the
request may see and do. A route declares the scope it needs with `Authorized(scope)`,
which also puts the bearer requirement into the OpenAPI contract.

Open mode: a server that listens on loopback only and where no key was ever made serves
every request as the `default` tenant with every scope, so that the two commands work on
a laptop with nothing to set up. The first key ends open mode, for good (a revoked key
still counts), and a server that listens beyond loopback never runs open.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer, SecurityScopes

from app import errors
from app.api.deps import EngineDep
from app.domain.principal import Principal, Scope, open_principal
from app.store import keys

bearer = HTTPBearer(
    auto_error=False,
    scheme_name="ApiKey",
    description="An API key (`perdure keys create`, or `POST /v1/keys`): "
    "`Authorization: Bearer pdk_…`.",
)


async def _open_mode(request: Request, engine: EngineDep) -> bool:
    if not request.app.state.open_when_keyless or request.app.state.keys_exist:
        return False
    async with engine.connect() as conn:
        if await keys.any_key_exists(conn):
            # Keys are never deleted, so this never turns back: skip the query from now on.
            request.app.state.keys_exist = True
            return False
    return True


async def authenticate(
    security_scopes: SecurityScopes,
    request: Request,
    engine: EngineDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Principal:
    if credentials is None:
        if await _open_mode(request, engine):
            return open_principal()
        raise errors.Unauthorized("an API key is required: Authorization: Bearer <key>")
    if not keys.KEY_SHAPE.fullmatch(credentials.credentials):
        # Not even shaped like a key: refused without a database round trip, so junk
        # cannot make every tenant wait for connections.
        raise errors.Unauthorized("the API key is not valid (unknown or revoked)")
    # Every request looks its key up: a revocation is effective at once, on every replica.
    async with engine.begin() as conn:
        key = await keys.authenticate(conn, credentials.credentials)
    if key is None:
        raise errors.Unauthorized("the API key is not valid (unknown or revoked)")
    principal = key.principal()
    for needed in security_scopes.scopes:
        if needed not in principal.scopes:
            raise errors.Forbidden(
                f"this key lacks the scope {needed!r}", scope=needed, key_prefix=key.prefix
            )
    return principal


def authorized(scope: Scope) -> Any:
    """The principal of a request allowed `scope`; 401 or 403 otherwise."""
    return Security(authenticate, scopes=[scope.value])


AgentsRead = Annotated[Principal, authorized(Scope.AGENTS_READ)]
AgentsWrite = Annotated[Principal, authorized(Scope.AGENTS_WRITE)]
RunsRead = Annotated[Principal, authorized(Scope.RUNS_READ)]
RunsWrite = Annotated[Principal, authorized(Scope.RUNS_WRITE)]
ApprovalsDecide = Annotated[Principal, authorized(Scope.APPROVALS_DECIDE)]
Admin = Annotated[Principal, authorized(Scope.ADMIN)]
MetricsRead = Annotated[Principal, authorized(Scope.METRICS_READ)]
