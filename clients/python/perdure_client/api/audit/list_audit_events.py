from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.audit_page import AuditPage
from ...models.list_audit_events_response_401 import ListAuditEventsResponse401
from ...models.list_audit_events_response_403 import ListAuditEventsResponse403
from ...models.list_audit_events_response_413 import ListAuditEventsResponse413
from ...models.list_audit_events_response_422 import ListAuditEventsResponse422
from ...models.list_audit_events_response_503 import ListAuditEventsResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_cursor: int | None | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/audit",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    AuditPage
    | ListAuditEventsResponse401
    | ListAuditEventsResponse403
    | ListAuditEventsResponse413
    | ListAuditEventsResponse422
    | ListAuditEventsResponse503
    | None
):
    if response.status_code == 200:
        response_200 = AuditPage.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListAuditEventsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListAuditEventsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = ListAuditEventsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ListAuditEventsResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ListAuditEventsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    AuditPage
    | ListAuditEventsResponse401
    | ListAuditEventsResponse403
    | ListAuditEventsResponse413
    | ListAuditEventsResponse422
    | ListAuditEventsResponse503
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
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[
    AuditPage
    | ListAuditEventsResponse401
    | ListAuditEventsResponse403
    | ListAuditEventsResponse413
    | ListAuditEventsResponse422
    | ListAuditEventsResponse503
]:
    """List Audit Events

     Who did what in this tenant, newest first (`cursor`: the `next_cursor` of a page).

    Args:
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditPage | ListAuditEventsResponse401 | ListAuditEventsResponse403 | ListAuditEventsResponse413 | ListAuditEventsResponse422 | ListAuditEventsResponse503]
    """

    kwargs = _get_kwargs(
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> (
    AuditPage
    | ListAuditEventsResponse401
    | ListAuditEventsResponse403
    | ListAuditEventsResponse413
    | ListAuditEventsResponse422
    | ListAuditEventsResponse503
    | None
):
    """List Audit Events

     Who did what in this tenant, newest first (`cursor`: the `next_cursor` of a page).

    Args:
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditPage | ListAuditEventsResponse401 | ListAuditEventsResponse403 | ListAuditEventsResponse413 | ListAuditEventsResponse422 | ListAuditEventsResponse503
    """

    return sync_detailed(
        client=client,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[
    AuditPage
    | ListAuditEventsResponse401
    | ListAuditEventsResponse403
    | ListAuditEventsResponse413
    | ListAuditEventsResponse422
    | ListAuditEventsResponse503
]:
    """List Audit Events

     Who did what in this tenant, newest first (`cursor`: the `next_cursor` of a page).

    Args:
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditPage | ListAuditEventsResponse401 | ListAuditEventsResponse403 | ListAuditEventsResponse413 | ListAuditEventsResponse422 | ListAuditEventsResponse503]
    """

    kwargs = _get_kwargs(
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> (
    AuditPage
    | ListAuditEventsResponse401
    | ListAuditEventsResponse403
    | ListAuditEventsResponse413
    | ListAuditEventsResponse422
    | ListAuditEventsResponse503
    | None
):
    """List Audit Events

     Who did what in this tenant, newest first (`cursor`: the `next_cursor` of a page).

    Args:
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditPage | ListAuditEventsResponse401 | ListAuditEventsResponse403 | ListAuditEventsResponse413 | ListAuditEventsResponse422 | ListAuditEventsResponse503
    """

    return (
        await asyncio_detailed(
            client=client,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
