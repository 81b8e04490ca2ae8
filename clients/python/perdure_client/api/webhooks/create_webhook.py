from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_webhook_response_401 import CreateWebhookResponse401
from ...models.create_webhook_response_403 import CreateWebhookResponse403
from ...models.create_webhook_response_413 import CreateWebhookResponse413
from ...models.create_webhook_response_422 import CreateWebhookResponse422
from ...models.create_webhook_response_503 import CreateWebhookResponse503
from ...models.webhook_create import WebhookCreate
from ...models.webhook_created import WebhookCreated
from ...types import Response


def _get_kwargs(
    *,
    body: WebhookCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/webhooks",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateWebhookResponse401
    | CreateWebhookResponse403
    | CreateWebhookResponse413
    | CreateWebhookResponse422
    | CreateWebhookResponse503
    | WebhookCreated
    | None
):
    if response.status_code == 201:
        response_201 = WebhookCreated.from_dict(response.json())

        return response_201

    if response.status_code == 401:
        response_401 = CreateWebhookResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateWebhookResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = CreateWebhookResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = CreateWebhookResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CreateWebhookResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateWebhookResponse401
    | CreateWebhookResponse403
    | CreateWebhookResponse413
    | CreateWebhookResponse422
    | CreateWebhookResponse503
    | WebhookCreated
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: WebhookCreate,
) -> Response[
    CreateWebhookResponse401
    | CreateWebhookResponse403
    | CreateWebhookResponse413
    | CreateWebhookResponse422
    | CreateWebhookResponse503
    | WebhookCreated
]:
    """Create Webhook

     Subscribe a URL. The answer is the only time the secret is shown.

    Args:
        body (WebhookCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateWebhookResponse401 | CreateWebhookResponse403 | CreateWebhookResponse413 | CreateWebhookResponse422 | CreateWebhookResponse503 | WebhookCreated]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: WebhookCreate,
) -> (
    CreateWebhookResponse401
    | CreateWebhookResponse403
    | CreateWebhookResponse413
    | CreateWebhookResponse422
    | CreateWebhookResponse503
    | WebhookCreated
    | None
):
    """Create Webhook

     Subscribe a URL. The answer is the only time the secret is shown.

    Args:
        body (WebhookCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateWebhookResponse401 | CreateWebhookResponse403 | CreateWebhookResponse413 | CreateWebhookResponse422 | CreateWebhookResponse503 | WebhookCreated
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: WebhookCreate,
) -> Response[
    CreateWebhookResponse401
    | CreateWebhookResponse403
    | CreateWebhookResponse413
    | CreateWebhookResponse422
    | CreateWebhookResponse503
    | WebhookCreated
]:
    """Create Webhook

     Subscribe a URL. The answer is the only time the secret is shown.

    Args:
        body (WebhookCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateWebhookResponse401 | CreateWebhookResponse403 | CreateWebhookResponse413 | CreateWebhookResponse422 | CreateWebhookResponse503 | WebhookCreated]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: WebhookCreate,
) -> (
    CreateWebhookResponse401
    | CreateWebhookResponse403
    | CreateWebhookResponse413
    | CreateWebhookResponse422
    | CreateWebhookResponse503
    | WebhookCreated
    | None
):
    """Create Webhook

     Subscribe a URL. The answer is the only time the secret is shown.

    Args:
        body (WebhookCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateWebhookResponse401 | CreateWebhookResponse403 | CreateWebhookResponse413 | CreateWebhookResponse422 | CreateWebhookResponse503 | WebhookCreated
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
