from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_webhooks_response_401 import ListWebhooksResponse401
from ...models.list_webhooks_response_403 import ListWebhooksResponse403
from ...models.list_webhooks_response_413 import ListWebhooksResponse413
from ...models.list_webhooks_response_422 import ListWebhooksResponse422
from ...models.list_webhooks_response_503 import ListWebhooksResponse503
from ...models.webhook_list import WebhookList
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/webhooks",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ListWebhooksResponse401
    | ListWebhooksResponse403
    | ListWebhooksResponse413
    | ListWebhooksResponse422
    | ListWebhooksResponse503
    | WebhookList
    | None
):
    if response.status_code == 200:
        response_200 = WebhookList.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListWebhooksResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListWebhooksResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = ListWebhooksResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ListWebhooksResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ListWebhooksResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ListWebhooksResponse401
    | ListWebhooksResponse403
    | ListWebhooksResponse413
    | ListWebhooksResponse422
    | ListWebhooksResponse503
    | WebhookList
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
) -> Response[
    ListWebhooksResponse401
    | ListWebhooksResponse403
    | ListWebhooksResponse413
    | ListWebhooksResponse422
    | ListWebhooksResponse503
    | WebhookList
]:
    """List Webhooks

     The tenant's webhooks, newest first (never their secrets).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListWebhooksResponse401 | ListWebhooksResponse403 | ListWebhooksResponse413 | ListWebhooksResponse422 | ListWebhooksResponse503 | WebhookList]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> (
    ListWebhooksResponse401
    | ListWebhooksResponse403
    | ListWebhooksResponse413
    | ListWebhooksResponse422
    | ListWebhooksResponse503
    | WebhookList
    | None
):
    """List Webhooks

     The tenant's webhooks, newest first (never their secrets).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListWebhooksResponse401 | ListWebhooksResponse403 | ListWebhooksResponse413 | ListWebhooksResponse422 | ListWebhooksResponse503 | WebhookList
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[
    ListWebhooksResponse401
    | ListWebhooksResponse403
    | ListWebhooksResponse413
    | ListWebhooksResponse422
    | ListWebhooksResponse503
    | WebhookList
]:
    """List Webhooks

     The tenant's webhooks, newest first (never their secrets).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListWebhooksResponse401 | ListWebhooksResponse403 | ListWebhooksResponse413 | ListWebhooksResponse422 | ListWebhooksResponse503 | WebhookList]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> (
    ListWebhooksResponse401
    | ListWebhooksResponse403
    | ListWebhooksResponse413
    | ListWebhooksResponse422
    | ListWebhooksResponse503
    | WebhookList
    | None
):
    """List Webhooks

     The tenant's webhooks, newest first (never their secrets).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListWebhooksResponse401 | ListWebhooksResponse403 | ListWebhooksResponse413 | ListWebhooksResponse422 | ListWebhooksResponse503 | WebhookList
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
