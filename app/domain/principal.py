"""Who is calling: a principal (an API key's tenant, name and scopes), and the scopes.

Pure types: the API authenticates a request into a Principal, and the store records it
where it matters (who decided an approval, who created or revoked a key).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from uuid import UUID


class Scope(StrEnum):
    AGENTS_READ = "agents:read"
    AGENTS_WRITE = "agents:write"
    RUNS_READ = "runs:read"  # sessions, runs, history, approvals: everything a run shows
    RUNS_WRITE = "runs:write"  # send, cancel, resume, tool results, forks, delete
    APPROVALS_DECIDE = "approvals:decide"
    ADMIN = "admin"  # the tenant's API keys and audit log
    # GET /metrics: counts over every tenant (no ids). An operator's scope, for the
    # monitoring system's key; `admin` does not imply it.
    METRICS_READ = "metrics:read"


ALL_SCOPES = frozenset(Scope)
DEFAULT_TENANT = "default"
TENANT_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,62}$"


@dataclass(frozen=True)
class Principal:
    tenant_id: str
    name: str
    scopes: frozenset[Scope]
    # None in open mode (no key exists and the server listens on loopback only).
    key_id: UUID | None = None
    prefix: str | None = None
    # The key this one descends from: itself when the operator made it, else the root of
    # the key that minted it through the API. Keys of one root are one party.
    root: str | None = None

    def as_actor(self) -> dict[str, Any]:
        """How audit records and decisions name this principal (never the key itself)."""
        return {
            "tenant_id": self.tenant_id,
            "name": self.name,
            "key_prefix": self.prefix,
            "key_root": self.root,
        }


def open_principal() -> Principal:
    """The caller of a server running open: one tenant, every scope."""
    return Principal(tenant_id=DEFAULT_TENANT, name="open-mode", scopes=ALL_SCOPES)
