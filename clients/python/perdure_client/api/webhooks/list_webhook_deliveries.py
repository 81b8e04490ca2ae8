from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delivery_list import DeliveryList
from ...models.list_webhook_deliveries_response_401 import (
    ListWebhookDeliveriesResponse401,
)
from ...models.list_webhook_deliveries_response_403 import (
    ListWebhookDeliveriesResponse403,
)
from ...models.list_webhook_deliveries_response_404 import (
    ListWebhookDeliveriesResponse404,
)
from ...models.list_webhook_deliveries_response_413 import (
    ListWebhookDeliveriesResponse413,
)
from ...models.list_webhook_deliveries_response_422 import (
    ListWebhookDeliveriesResponse422,
)
from ...models.list_webhook_deliveries_response_503 import (
    ListWebhookDeliveriesResponse503,
)
from ...models.list_webhook_deliveries_status_type_0 import (
    ListWebhookDeliveriesStatusType0,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    webhook_id: UUID,
    *,
    status: ListWebhookDeliveriesStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: None | str | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, ListWebhookDeliveriesStatusType0):
        json_status = status.value
    else:
        json_status = status
    params["status"] = json_status

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/webhooks/{webhook_id}/deliveries".format(
            webhook_id=quote(str(webhook_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    DeliveryList
    | ListWebhookDeliveriesResponse401
    | ListWebhookDeliveriesResponse403
    | ListWebhookDeliveriesResponse404
    | ListWebhookDeliveriesResponse413
    | ListWebhookDeliveriesResponse422
    | ListWebhookDeliveriesResponse503
    | None
):
    if response.status_code == 200:
        response_200 = DeliveryList.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListWebhookDeliveriesResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListWebhookDeliveriesResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ListWebhookDeliveriesResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = ListWebhookDeliveriesResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ListWebhookDeliveriesResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ListWebhookDeliveriesResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    DeliveryList
    | ListWebhookDeliveriesResponse401
    | ListWebhookDeliveriesResponse403
    | ListWebhookDeliveriesResponse404
    | ListWebhookDeliveriesResponse413
    | ListWebhookDeliveriesResponse422
    | ListWebhookDeliveriesResponse503
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
    status: ListWebhookDeliveriesStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[
    DeliveryList
    | ListWebhookDeliveriesResponse401
    | ListWebhookDeliveriesResponse403
    | ListWebhookDeliveriesResponse404
    | ListWebhookDeliveriesResponse413
    | ListWebhookDeliveriesResponse422
    | ListWebhookDeliveriesResponse503
]:
    """List Webhook Deliveries

     The webhook's deliveries, newest first: attempts, last answer or error, next try.

    Args:
        webhook_id (UUID):
        status (ListWebhookDeliveriesStatusType0 | None | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryList | ListWebhookDeliveriesResponse401 | ListWebhookDeliveriesResponse403 | ListWebhookDeliveriesResponse404 | ListWebhookDeliveriesResponse413 | ListWebhookDeliveriesResponse422 | ListWebhookDeliveriesResponse503]
    """

    kwargs = _get_kwargs(
        webhook_id=webhook_id,
        status=status,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,
    status: ListWebhookDeliveriesStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> (
    DeliveryList
    | ListWebhookDeliveriesResponse401
    | ListWebhookDeliveriesResponse403
    | ListWebhookDeliveriesResponse404
    | ListWebhookDeliveriesResponse413
    | ListWebhookDeliveriesResponse422
    | ListWebhookDeliveriesResponse503
    | None
):
    """List Webhook Deliveries

     The webhook's deliveries, newest first: attempts, last answer or error, next try.

    Args:
        webhook_id (UUID):
        status (ListWebhookDeliveriesStatusType0 | None | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryList | ListWebhookDeliveriesResponse401 | ListWebhookDeliveriesResponse403 | ListWebhookDeliveriesResponse404 | ListWebhookDeliveriesResponse413 | ListWebhookDeliveriesResponse422 | ListWebhookDeliveriesResponse503
    """

    return sync_detailed(
        webhook_id=webhook_id,
        client=client,
        status=status,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,
    status: ListWebhookDeliveriesStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[
    DeliveryList
    | ListWebhookDeliveriesResponse401
    | ListWebhookDeliveriesResponse403
    | ListWebhookDeliveriesResponse404
    | ListWebhookDeliveriesResponse413
    | ListWebhookDeliveriesResponse422
    | ListWebhookDeliveriesResponse503
]:
    """List Webhook Deliveries

     The webhook's deliveries, newest first: attempts, last answer or error, next try.

    Args:
        webhook_id (UUID):
        status (ListWebhookDeliveriesStatusType0 | None | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeliveryList | ListWebhookDeliveriesResponse401 | ListWebhookDeliveriesResponse403 | ListWebhookDeliveriesResponse404 | ListWebhookDeliveriesResponse413 | ListWebhookDeliveriesResponse422 | ListWebhookDeliveriesResponse503]
    """

    kwargs = _get_kwargs(
        webhook_id=webhook_id,
        status=status,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    webhook_id: UUID,
    *,
    client: AuthenticatedClient,
    status: ListWebhookDeliveriesStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> (
    DeliveryList
    | ListWebhookDeliveriesResponse401
    | ListWebhookDeliveriesResponse403
    | ListWebhookDeliveriesResponse404
    | ListWebhookDeliveriesResponse413
    | ListWebhookDeliveriesResponse422
    | ListWebhookDeliveriesResponse503
    | None
):
    """List Webhook Deliveries

     The webhook's deliveries, newest first: attempts, last answer or error, next try.

    Args:
        webhook_id (UUID):
        status (ListWebhookDeliveriesStatusType0 | None | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeliveryList | ListWebhookDeliveriesResponse401 | ListWebhookDeliveriesResponse403 | ListWebhookDeliveriesResponse404 | ListWebhookDeliveriesResponse413 | ListWebhookDeliveriesResponse422 | ListWebhookDeliveriesResponse503
    """

    return (
        await asyncio_detailed(
            webhook_id=webhook_id,
            client=client,
            status=status,
            limit=limit,
        )
    ).parsed
