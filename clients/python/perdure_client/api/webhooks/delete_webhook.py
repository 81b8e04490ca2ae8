from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delete_webhook_response_401 import DeleteWebhookResponse401
from ...models.delete_webhook_response_403 import DeleteWebhookResponse403
from ...models.delete_webhook_response_404 import DeleteWebhookResponse404
from ...models.delete_webhook_response_413 import DeleteWebhookResponse413
from ...models.delete_webhook_response_422 import DeleteWebhookResponse422
from ...models.delete_webhook_response_503 import DeleteWebhookResponse503
from ...types import Response


def _get_kwargs(
    webhook_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/webhooks/{webhook_id}".format(
            webhook_id=quote(str(webhook_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Any
    | DeleteWebhookResponse401
    | DeleteWebhookResponse403
    | DeleteWebhookResponse404
    | DeleteWebhookResponse413
    | DeleteWebhookResponse422
    | DeleteWebhookResponse503
    | None
):
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

    if response.status_code == 401:
        response_401 = DeleteWebhookResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = DeleteWebhookResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = DeleteWebhookResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = DeleteWebhookResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = DeleteWebhookResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = DeleteWebhookResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Any
    | DeleteWebhookResponse401
    | DeleteWebhookResponse403
    | DeleteWebhookResponse404
    | DeleteWebhookResponse413
    | DeleteWebhookResponse422
    | DeleteWebhookResponse503
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
    Any
    | DeleteWebhookResponse401
    | DeleteWebhookResponse403
    | DeleteWebhookResponse404
    | DeleteWebhookResponse413
    | DeleteWebhookResponse422
    | DeleteWebhookResponse503
]:
    """Delete Webhook

     Delete a webhook; its deliveries go with it (pending ones are not sent).

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DeleteWebhookResponse401 | DeleteWebhookResponse403 | DeleteWebhookResponse404 | DeleteWebhookResponse413 | DeleteWebhookResponse422 | DeleteWebhookResponse503]
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
    Any
    | DeleteWebhookResponse401
    | DeleteWebhookResponse403
    | DeleteWebhookResponse404
    | DeleteWebhookResponse413
    | DeleteWebhookResponse422
    | DeleteWebhookResponse503
    | None
):
    """Delete Webhook

     Delete a webhook; its deliveries go with it (pending ones are not sent).

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DeleteWebhookResponse401 | DeleteWebhookResponse403 | DeleteWebhookResponse404 | DeleteWebhookResponse413 | DeleteWebhookResponse422 | DeleteWebhookResponse503
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
    Any
    | DeleteWebhookResponse401
    | DeleteWebhookResponse403
    | DeleteWebhookResponse404
    | DeleteWebhookResponse413
    | DeleteWebhookResponse422
    | DeleteWebhookResponse503
]:
    """Delete Webhook

     Delete a webhook; its deliveries go with it (pending ones are not sent).

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DeleteWebhookResponse401 | DeleteWebhookResponse403 | DeleteWebhookResponse404 | DeleteWebhookResponse413 | DeleteWebhookResponse422 | DeleteWebhookResponse503]
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
    Any
    | DeleteWebhookResponse401
    | DeleteWebhookResponse403
    | DeleteWebhookResponse404
    | DeleteWebhookResponse413
    | DeleteWebhookResponse422
    | DeleteWebhookResponse503
    | None
):
    """Delete Webhook

     Delete a webhook; its deliveries go with it (pending ones are not sent).

    Args:
        webhook_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DeleteWebhookResponse401 | DeleteWebhookResponse403 | DeleteWebhookResponse404 | DeleteWebhookResponse413 | DeleteWebhookResponse422 | DeleteWebhookResponse503
    """

    return (
        await asyncio_detailed(
            webhook_id=webhook_id,
            client=client,
        )
    ).parsed
