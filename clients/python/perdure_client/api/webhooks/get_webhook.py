from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_webhook_response_401 import GetWebhookResponse401
from ...models.get_webhook_response_403 import GetWebhookResponse403
from ...models.get_webhook_response_404 import GetWebhookResponse404
from ...models.get_webhook_response_413 import GetWebhookResponse413
from ...models.get_webhook_response_422 import GetWebhookResponse422
from ...models.get_webhook_response_503 import GetWebhookResponse503
from ...models.webhook_out import WebhookOut
from ...types import Response


def _get_kwargs(
    webhook_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/webhooks/{webhook_id}".format(
            webhook_id=quote(str(webhook_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    GetWebhookResponse401
    | GetWebhookResponse403
    | GetWebhookResponse404
    | GetWebhookResponse413
    | GetWebhookResponse422
    | GetWebhookResponse503
    | WebhookOut
    | None
):
    if response.status_code == 200:
        response_200 = WebhookOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = GetWebhookResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetWebhookResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = GetWebhookResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = GetWebhookResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = GetWebhookResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = GetWebhookResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    GetWebhookResponse401
    | GetWebhookResponse403
    | GetWebhookResponse404
    | GetWebhookResponse413
    | GetWebhookResponse422
    | GetWebhookResponse503
    | WebhookOut
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[
    GetWebhookResponse401
    | GetWebhookResponse403
    | GetWebhookResponse404
    | GetWebhookResponse413
    | GetWebhookResponse422
    | GetWebhookResponse503
    | WebhookOut
]:
    """Get Webhook

     A subscription: its URL and event types (its secret is shown only when made).

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetWebhookResponse401 | GetWebhookResponse403 | GetWebhookResponse404 | GetWebhookResponse413 | GetWebhookResponse422 | GetWebhookResponse503 | WebhookOut]
    """

    kwargs = _get_kwargs(
        webhook_id=webhook_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,
) -> (
    GetWebhookResponse401
    | GetWebhookResponse403
    | GetWebhookResponse404
    | GetWebhookResponse413
    | GetWebhookResponse422
    | GetWebhookResponse503
    | WebhookOut
    | None
):
    """Get Webhook

     A subscription: its URL and event types (its secret is shown only when made).

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetWebhookResponse401 | GetWebhookResponse403 | GetWebhookResponse404 | GetWebhookResponse413 | GetWebhookResponse422 | GetWebhookResponse503 | WebhookOut
    """

    return sync_detailed(
        webhook_id=webhook_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[
    GetWebhookResponse401
    | GetWebhookResponse403
    | GetWebhookResponse404
    | GetWebhookResponse413
    | GetWebhookResponse422
    | GetWebhookResponse503
    | WebhookOut
]:
    """Get Webhook

     A subscription: its URL and event types (its secret is shown only when made).

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetWebhookResponse401 | GetWebhookResponse403 | GetWebhookResponse404 | GetWebhookResponse413 | GetWebhookResponse422 | GetWebhookResponse503 | WebhookOut]
    """

    kwargs = _get_kwargs(
        webhook_id=webhook_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,
) -> (
    GetWebhookResponse401
    | GetWebhookResponse403
    | GetWebhookResponse404
    | GetWebhookResponse413
    | GetWebhookResponse422
    | GetWebhookResponse503
    | WebhookOut
    | None
):
    """Get Webhook

     A subscription: its URL and event types (its secret is shown only when made).

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetWebhookResponse401 | GetWebhookResponse403 | GetWebhookResponse404 | GetWebhookResponse413 | GetWebhookResponse422 | GetWebhookResponse503 | WebhookOut
    """

    return (
        await asyncio_detailed(
            webhook_id=webhook_id,
            client=client,
        )
    ).parsed
