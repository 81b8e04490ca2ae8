"""API keys and the audit log.

A key is 256 random bits, shown once; only its SHA-256 is stored (a key that random needs
no slow hash: nothing can be guessed). Lookups go by hash, so the key's plaintext never
reaches SQL. A revoked key keeps its row, for the audit log and so that revoking the last
key never turns a server back to open mode.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import exists, func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from app import errors
from app.domain.principal import Principal, Scope
from app.store.tables import api_keys, audit_events

KEY_PREFIX = "pdk_"
# What new_key() makes: the prefix and 43 url-safe characters (32 bytes).
KEY_SHAPE = re.compile(r"pdk_[A-Za-z0-9_-]{43}")
# The visible part: "pdk_" and 8 characters of the key, enough to tell keys apart.
PREFIX_LENGTH = len(KEY_PREFIX) + 8
# last_used_at is a hint for operators, not a log: write it at most this often per key.
LAST_USED_RESOLUTION_S = 60


@dataclass(frozen=True)
class ApiKey:
    id: uuid.UUID
    tenant_id: str
    name: str
    prefix: str
    root_prefix: str
    scopes: frozenset[Scope]
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    def principal(self) -> Principal:
        return Principal(
            tenant_id=self.tenant_id,
            name=self.name,
            scopes=self.scopes,
            key_id=self.id,
            prefix=self.prefix,
            root=self.root_prefix,
        )


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def _of(row: Any) -> ApiKey:
    return ApiKey(
        id=row.id,
        tenant_id=row.tenant_id,
        name=row.name,
        prefix=row.prefix,
        root_prefix=row.root_prefix,
        scopes=frozenset(Scope(s) for s in row.scopes),
        created_at=row.created_at,
        last_used_at=row.last_used_at,
        revoked_at=row.revoked_at,
    )


COLUMNS = (
    api_keys.c.id,
    api_keys.c.tenant_id,
    api_keys.c.name,
    api_keys.c.prefix,
    api_keys.c.root_prefix,
    api_keys.c.scopes,
    api_keys.c.created_at,
    api_keys.c.last_used_at,
    api_keys.c.revoked_at,
)


async def create_key(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    name: str,
    scopes: frozenset[Scope],
    actor: dict[str, Any],
    minted_by: str | None = None,
) -> tuple[ApiKey, str]:
    """Make a key; returns it and its plaintext, which nothing keeps.

    `minted_by`: the root of the key that makes it through the API (None: the operator),
    so that a key cannot stand in for its maker as a distinct approver.
    """
    while True:
        plaintext = new_key()
        prefix = plaintext[:PREFIX_LENGTH]
        taken = await conn.scalar(select(exists().where(api_keys.c.prefix == prefix)))
        if not taken:  # 48 random bits in the prefix: a clash is rare, but must not 500
            break
    row = (
        await conn.execute(
            insert(api_keys)
            .values(
                id=uuid.uuid4(),
                tenant_id=tenant_id,
                name=name,
                prefix=prefix,
                root_prefix=minted_by or prefix,
                key_hash=hash_key(plaintext),
                scopes=sorted(scopes),
            )
            .returning(*COLUMNS)
        )
    ).one()
    key = _of(row)
    await audit(
        conn, tenant_id, "key.created", actor, prefix, {"name": name, "scopes": sorted(scopes)}
    )
    return key, plaintext


async def authenticate(conn: AsyncConnection, plaintext: str) -> ApiKey | None:
    """The live key with this plaintext, or None (unknown and revoked look the same)."""
    row = (
        await conn.execute(
            select(*COLUMNS).where(
                api_keys.c.key_hash == hash_key(plaintext), api_keys.c.revoked_at.is_(None)
            )
        )
    ).first()
    if row is None:
        return None
    key = _of(row)
    await conn.execute(
        update(api_keys)
        .where(
            api_keys.c.id == key.id,
            (api_keys.c.last_used_at.is_(None))
            | (
                api_keys.c.last_used_at
                < func.now() - text(f"interval '{LAST_USED_RESOLUTION_S} seconds'")
            ),
        )
        .values(last_used_at=func.now())
    )
    return key


async def any_key_exists(conn: AsyncConnection) -> bool:
    """Whether a key was ever made (revoked ones count: see the module docstring)."""
    return bool(await conn.scalar(select(exists().select_from(api_keys))))


async def list_keys(conn: AsyncConnection, tenant_id: str | None) -> list[ApiKey]:
    """A tenant's keys, newest first; every tenant's when `tenant_id` is None (the CLI)."""
    query = select(*COLUMNS).order_by(api_keys.c.created_at.desc(), api_keys.c.id)
    if tenant_id is not None:
        query = query.where(api_keys.c.tenant_id == tenant_id)
    return [_of(row) for row in (await conn.execute(query)).all()]


async def revoke_key(
    conn: AsyncConnection, prefix: str, *, tenant_id: str | None, actor: dict[str, Any]
) -> ApiKey:
    """Revoke a key by its prefix, at once for every replica (each request looks it up).

    Revoking a revoked key answers it as it is (and audits nothing). `tenant_id` None:
    any tenant's (the CLI).

    Raises:
        KeyNotFound: no such key (in this tenant).
    """
    owned = api_keys.c.prefix == prefix
    if tenant_id is not None:
        owned &= api_keys.c.tenant_id == tenant_id
    row = (
        await conn.execute(
            update(api_keys)
            .where(owned, api_keys.c.revoked_at.is_(None))
            .values(revoked_at=func.now())
            .returning(*COLUMNS)
        )
    ).first()
    if row is not None:
        key = _of(row)
        await audit(conn, key.tenant_id, "key.revoked", actor, prefix, {"name": key.name})
        return key
    row = (await conn.execute(select(*COLUMNS).where(owned))).first()
    if row is None:
        raise errors.KeyNotFound(f"no key with prefix {prefix!r}", prefix=prefix)
    return _of(row)


@dataclass(frozen=True)
class AuditEvent:
    id: int
    action: str
    actor: dict[str, Any]
    target: str
    data: dict[str, Any]
    created_at: datetime


async def list_audit(
    conn: AsyncConnection, tenant_id: str, *, before_id: int | None, limit: int
) -> list[AuditEvent]:
    """A tenant's audit log, newest first, keyset-paginated on the id."""
    query = select(audit_events).where(audit_events.c.tenant_id == tenant_id)
    if before_id is not None:
        query = query.where(audit_events.c.id < before_id)
    rows = await conn.execute(query.order_by(audit_events.c.id.desc()).limit(limit))
    return [AuditEvent(r.id, r.action, r.actor, r.target, r.data, r.created_at) for r in rows]


async def audit(
    conn: AsyncConnection,
    tenant_id: str,
    action: str,
    actor: dict[str, Any],
    target: str,
    data: dict[str, Any] | None = None,
) -> None:
    """Append to the audit log, in the caller's transaction: no action without its record."""
    await conn.execute(
        insert(audit_events).values(
            tenant_id=tenant_id, action=action, actor=actor, target=target, data=data or {}
        )
    )
