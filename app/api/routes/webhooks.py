"""Webhooks of the caller's tenant: subscribe a URL to event types, list, delete, and
see each one's deliveries. Needs the `admin` scope (a webhook receives every matching
event of the tenant, and makes the service call out).

The secret is shown once, at creation (like an API key); reads never show it. The URL is
checked against the operator's egress rule here and again at each delivery.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from uuid import UUID

import httpx
from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from app import errors
from app.api.auth import Admin
from app.api.deps import CapabilitiesDep, EngineDep
from app.api.problems import responses
from app.domain import webhooks as signing
from app.store import webhooks as store
from app.store.events import EVENT_TYPES

router = APIRouter(prefix="/v1/webhooks", tags=["webhooks"])

ALL_EVENTS = "*"


class WebhookCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=2048, description="Where events are POSTed.")
    events: list[str] = Field(
        min_length=1,
        max_length=len(EVENT_TYPES) + 1,
        description=f"Event types to deliver (`{ALL_EVENTS}`: all): "
        + ", ".join(sorted(EVENT_TYPES)),
    )
    secret: str | None = Field(
        default=None,
        description="`whsec_` + base64 of 24 to 64 bytes; made for you when absent.",
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        try:
            url = httpx.URL(value)
        except (httpx.InvalidURL, ValueError) as exc:
            raise ValueError(f"not a URL: {exc}") from exc
        if url.scheme not in ("http", "https") or not url.host:
            raise ValueError("an http or https URL with a host")
        return value

    @field_validator("events")
    @classmethod
    def _known_types(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - EVENT_TYPES - {ALL_EVENTS})
        if unknown:
            raise ValueError(f"unknown event types: {', '.join(unknown)}")
        return sorted(set(value))

    @field_validator("secret")
    @classmethod
    def _secret_shape(cls, value: str | None) -> str | None:
        if value is not None:
            signing.secret_key(value)  # ValueError says what is wrong
        return value


class WebhookOut(BaseModel):
    id: UUID
    url: str
    events: list[str]
    created_at: datetime

    @classmethod
    def of(cls, hook: store.Webhook) -> WebhookOut:
        return cls(id=hook.id, url=hook.url, events=hook.events, created_at=hook.created_at)


class WebhookCreated(WebhookOut):
    secret: str = Field(description="The signing secret. Shown this once.")


class WebhookList(BaseModel):
    items: list[WebhookOut]


DeliveryStatus = Literal["pending", "delivered", "failed"]


class DeliveryOut(BaseModel):
    session_id: str
    event_id: int
    type: str | None = Field(description="None once the event was pruned.")
    status: DeliveryStatus
    attempts: int
    last_status: int | None = Field(description="The HTTP status of the last attempt.")
    last_error: str | None
    next_attempt_at: datetime | None = Field(description="When it is tried next (pending).")
    created_at: datetime
    finished_at: datetime | None


class DeliveryList(BaseModel):
    items: list[DeliveryOut]


@router.post(
    "",
    status_code=201,
    response_model=WebhookCreated,
    responses=responses(errors.WebhookUrlRefused),
)
async def create_webhook(
    body: WebhookCreate, principal: Admin, engine: EngineDep, capabilities: CapabilitiesDep
) -> WebhookCreated:
    """Subscribe a URL. The answer is the only time the secret is shown."""
    refusal = capabilities.egress.url_refusal(body.url)
    if refusal is not None:
        raise errors.WebhookUrlRefused(refusal, url=body.url)
    secret = body.secret or signing.new_secret()
    async with engine.begin() as conn:
        hook = await store.create(
            conn, principal.tenant_id, url=body.url, types=body.events, secret=secret
        )
    return WebhookCreated(**WebhookOut.of(hook).model_dump(), secret=secret)


@router.get("", response_model=WebhookList, responses=responses())
async def list_webhooks(principal: Admin, engine: EngineDep) -> WebhookList:
    """The tenant's webhooks, newest first (never their secrets)."""
    async with engine.connect() as conn:
        hooks = await store.list_webhooks(conn, principal.tenant_id)
    return WebhookList(items=[WebhookOut.of(h) for h in hooks])


@router.get("/{webhook_id}", response_model=WebhookOut, responses=responses(errors.NotFound))
async def get_webhook(webhook_id: UUID, principal: Admin, engine: EngineDep) -> WebhookOut:
    """A subscription: its URL and event types (its secret is shown only when made)."""
    async with engine.connect() as conn:
        return WebhookOut.of(await store.get(conn, principal.tenant_id, webhook_id))


@router.delete("/{webhook_id}", status_code=204, responses=responses(errors.NotFound))
async def delete_webhook(webhook_id: UUID, principal: Admin, engine: EngineDep) -> Response:
    """Delete a webhook; its deliveries go with it (pending ones are not sent)."""
    async with engine.begin() as conn:
        await store.remove(conn, principal.tenant_id, webhook_id)
    return Response(status_code=204)


@router.get(
    "/{webhook_id}/deliveries", response_model=DeliveryList, responses=responses(errors.NotFound)
)
async def list_webhook_deliveries(
    webhook_id: UUID,
    principal: Admin,
    engine: EngineDep,
    status: DeliveryStatus | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> DeliveryList:
    """The webhook's deliveries, newest first: attempts, last answer or error, next try."""
    async with engine.connect() as conn:
        found = await store.list_deliveries(
            conn, principal.tenant_id, webhook_id, status=status, limit=limit
        )
    return DeliveryList(
        items=[
            DeliveryOut(
                session_id=d.session_id,
                event_id=d.event_id,
                type=d.type,
                status=d.status,
                attempts=d.attempts,
                last_status=d.last_status,
                last_error=d.last_error,
                next_attempt_at=d.next_attempt_at,
                created_at=d.created_at,
                finished_at=d.finished_at,
            )
            for d in found
        ]
    )
