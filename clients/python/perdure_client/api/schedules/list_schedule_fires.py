from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.fire_page import FirePage
from ...models.list_schedule_fires_response_401 import ListScheduleFiresResponse401
from ...models.list_schedule_fires_response_403 import ListScheduleFiresResponse403
from ...models.list_schedule_fires_response_404 import ListScheduleFiresResponse404
from ...models.list_schedule_fires_response_413 import ListScheduleFiresResponse413
from ...models.list_schedule_fires_response_422 import ListScheduleFiresResponse422
from ...models.list_schedule_fires_response_503 import ListScheduleFiresResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    schedule_id: str,
    *,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/schedules/{schedule_id}/fires".format(
            schedule_id=quote(str(schedule_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    FirePage
    | ListScheduleFiresResponse401
    | ListScheduleFiresResponse403
    | ListScheduleFiresResponse404
    | ListScheduleFiresResponse413
    | ListScheduleFiresResponse422
    | ListScheduleFiresResponse503
    | None
):
    if response.status_code == 200:
        response_200 = FirePage.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListScheduleFiresResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListScheduleFiresResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ListScheduleFiresResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = ListScheduleFiresResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ListScheduleFiresResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ListScheduleFiresResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    FirePage
    | ListScheduleFiresResponse401
    | ListScheduleFiresResponse403
    | ListScheduleFiresResponse404
    | ListScheduleFiresResponse413
    | ListScheduleFiresResponse422
    | ListScheduleFiresResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    schedule_id: str,
    *,
    client: AuthenticatedClient,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[
    FirePage
    | ListScheduleFiresResponse401
    | ListScheduleFiresResponse403
    | ListScheduleFiresResponse404
    | ListScheduleFiresResponse413
    | ListScheduleFiresResponse422
    | ListScheduleFiresResponse503
]:
    """List Schedule Fires

     What each due time came to, newest first: the run it started, or why none.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FirePage | ListScheduleFiresResponse401 | ListScheduleFiresResponse403 | ListScheduleFiresResponse404 | ListScheduleFiresResponse413 | ListScheduleFiresResponse422 | ListScheduleFiresResponse503]
    """

    kwargs = _get_kwargs(
        schedule_id=schedule_id,
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    schedule_id: str,
    *,
    client: AuthenticatedClient,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> (
    FirePage
    | ListScheduleFiresResponse401
    | ListScheduleFiresResponse403
    | ListScheduleFiresResponse404
    | ListScheduleFiresResponse413
    | ListScheduleFiresResponse422
    | ListScheduleFiresResponse503
    | None
):
    """List Schedule Fires

     What each due time came to, newest first: the run it started, or why none.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FirePage | ListScheduleFiresResponse401 | ListScheduleFiresResponse403 | ListScheduleFiresResponse404 | ListScheduleFiresResponse413 | ListScheduleFiresResponse422 | ListScheduleFiresResponse503
    """

    return sync_detailed(
        schedule_id=schedule_id,
        client=client,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    schedule_id: str,
    *,
    client: AuthenticatedClient,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[
    FirePage
    | ListScheduleFiresResponse401
    | ListScheduleFiresResponse403
    | ListScheduleFiresResponse404
    | ListScheduleFiresResponse413
    | ListScheduleFiresResponse422
    | ListScheduleFiresResponse503
]:
    """List Schedule Fires

     What each due time came to, newest first: the run it started, or why none.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FirePage | ListScheduleFiresResponse401 | ListScheduleFiresResponse403 | ListScheduleFiresResponse404 | ListScheduleFiresResponse413 | ListScheduleFiresResponse422 | ListScheduleFiresResponse503]
    """

    kwargs = _get_kwargs(
        schedule_id=schedule_id,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    schedule_id: str,
    *,
    client: AuthenticatedClient,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> (
    FirePage
    | ListScheduleFiresResponse401
    | ListScheduleFiresResponse403
    | ListScheduleFiresResponse404
    | ListScheduleFiresResponse413
    | ListScheduleFiresResponse422
    | ListScheduleFiresResponse503
    | None
):
    """List Schedule Fires

     What each due time came to, newest first: the run it started, or why none.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FirePage | ListScheduleFiresResponse401 | ListScheduleFiresResponse403 | ListScheduleFiresResponse404 | ListScheduleFiresResponse413 | ListScheduleFiresResponse422 | ListScheduleFiresResponse503
    """

    return (
        await asyncio_detailed(
            schedule_id=schedule_id,
            client=client,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
