"""API keys of the caller's tenant: make one (shown once), list them, revoke one.

Needs the `admin` scope. A key is made in the tenant of the key that makes it; keys for
other tenants come from the operator's `perdure keys create --tenant`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, Field

from app import errors
from app.api.auth import Admin
from app.api.deps import EngineDep
from app.api.problems import responses
from app.domain.principal import Scope
from app.store import keys as store

router = APIRouter(prefix="/v1/keys", tags=["keys"])

KeyPrefixPath = Annotated[str, Path(pattern=r"^pdk_[A-Za-z0-9_-]{8}$")]


class KeyCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200, description="What the key is for.")
    scopes: list[Scope] = Field(min_length=1, max_length=len(Scope))


class KeyOut(BaseModel):
    prefix: str = Field(description="The key's first characters: how to name it.")
    tenant_id: str
    name: str
    scopes: list[Scope]
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    @classmethod
    def of(cls, key: store.ApiKey) -> KeyOut:
        return cls(
            prefix=key.prefix,
            tenant_id=key.tenant_id,
            name=key.name,
            scopes=sorted(key.scopes),
            created_at=key.created_at,
            last_used_at=key.last_used_at,
            revoked_at=key.revoked_at,
        )


class KeyCreated(KeyOut):
    key: str = Field(description="The key itself. Shown this once: only its hash is kept.")

    @classmethod
    def made(cls, key: store.ApiKey, plaintext: str) -> KeyCreated:
        return cls(**KeyOut.of(key).model_dump(), key=plaintext)


class KeyList(BaseModel):
    items: list[KeyOut]


@router.post("", status_code=201, response_model=KeyCreated, responses=responses())
async def create_key(body: KeyCreate, principal: Admin, engine: EngineDep) -> KeyCreated:
    """Make a key in the caller's tenant. The answer is the only time the key is shown.

    `metrics:read` (every tenant's counts) is the operator's to give: a key may pass it on
    only if it holds it (`perdure keys create` gives it), so a tenant's admin cannot."""
    if Scope.METRICS_READ in body.scopes and Scope.METRICS_READ not in principal.scopes:
        raise errors.Forbidden(
            "only a key that holds 'metrics:read' may grant it (the operator gives it with "
            "`perdure keys create`)",
            scope=Scope.METRICS_READ.value,
        )
    async with engine.begin() as conn:
        key, plaintext = await store.create_key(
            conn,
            tenant_id=principal.tenant_id,
            name=body.name,
            scopes=frozenset(body.scopes),
            actor=principal.as_actor(),
            minted_by=principal.root,
        )
    return KeyCreated.made(key, plaintext)


@router.get("", response_model=KeyList, responses=responses())
async def list_keys(principal: Admin, engine: EngineDep) -> KeyList:
    """The tenant's keys, newest first, revoked ones included (never a key or its hash)."""
    async with engine.connect() as conn:
        return KeyList(
            items=[KeyOut.of(k) for k in await store.list_keys(conn, principal.tenant_id)]
        )


@router.delete("/{prefix}", response_model=KeyOut, responses=responses(errors.NotFound))
async def revoke_key(prefix: KeyPrefixPath, principal: Admin, engine: EngineDep) -> KeyOut:
    """Revoke a key: every replica refuses it from the next request on."""
    async with engine.begin() as conn:
        key = await store.revoke_key(
            conn, prefix, tenant_id=principal.tenant_id, actor=principal.as_actor()
        )
    return KeyOut.of(key)
