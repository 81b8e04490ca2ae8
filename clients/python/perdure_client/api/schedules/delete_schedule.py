from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delete_schedule_response_401 import DeleteScheduleResponse401
from ...models.delete_schedule_response_403 import DeleteScheduleResponse403
from ...models.delete_schedule_response_404 import DeleteScheduleResponse404
from ...models.delete_schedule_response_413 import DeleteScheduleResponse413
from ...models.delete_schedule_response_422 import DeleteScheduleResponse422
from ...models.delete_schedule_response_503 import DeleteScheduleResponse503
from ...types import Response


def _get_kwargs(
    schedule_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/schedules/{schedule_id}".format(
            schedule_id=quote(str(schedule_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Any
    | DeleteScheduleResponse401
    | DeleteScheduleResponse403
    | DeleteScheduleResponse404
    | DeleteScheduleResponse413
    | DeleteScheduleResponse422
    | DeleteScheduleResponse503
    | None
):
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

    if response.status_code == 401:
        response_401 = DeleteScheduleResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = DeleteScheduleResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = DeleteScheduleResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = DeleteScheduleResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = DeleteScheduleResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = DeleteScheduleResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Any
    | DeleteScheduleResponse401
    | DeleteScheduleResponse403
    | DeleteScheduleResponse404
    | DeleteScheduleResponse413
    | DeleteScheduleResponse422
    | DeleteScheduleResponse503
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
) -> Response[
    Any
    | DeleteScheduleResponse401
    | DeleteScheduleResponse403
    | DeleteScheduleResponse404
    | DeleteScheduleResponse413
    | DeleteScheduleResponse422
    | DeleteScheduleResponse503
]:
    """Delete Schedule

     Delete a schedule and its fire records. The runs it started are not touched.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DeleteScheduleResponse401 | DeleteScheduleResponse403 | DeleteScheduleResponse404 | DeleteScheduleResponse413 | DeleteScheduleResponse422 | DeleteScheduleResponse503]
    """

    kwargs = _get_kwargs(
        schedule_id=schedule_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    schedule_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    Any
    | DeleteScheduleResponse401
    | DeleteScheduleResponse403
    | DeleteScheduleResponse404
    | DeleteScheduleResponse413
    | DeleteScheduleResponse422
    | DeleteScheduleResponse503
    | None
):
    """Delete Schedule

     Delete a schedule and its fire records. The runs it started are not touched.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DeleteScheduleResponse401 | DeleteScheduleResponse403 | DeleteScheduleResponse404 | DeleteScheduleResponse413 | DeleteScheduleResponse422 | DeleteScheduleResponse503
    """

    return sync_detailed(
        schedule_id=schedule_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    schedule_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    Any
    | DeleteScheduleResponse401
    | DeleteScheduleResponse403
    | DeleteScheduleResponse404
    | DeleteScheduleResponse413
    | DeleteScheduleResponse422
    | DeleteScheduleResponse503
]:
    """Delete Schedule

     Delete a schedule and its fire records. The runs it started are not touched.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DeleteScheduleResponse401 | DeleteScheduleResponse403 | DeleteScheduleResponse404 | DeleteScheduleResponse413 | DeleteScheduleResponse422 | DeleteScheduleResponse503]
    """

    kwargs = _get_kwargs(
        schedule_id=schedule_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    schedule_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    Any
    | DeleteScheduleResponse401
    | DeleteScheduleResponse403
    | DeleteScheduleResponse404
    | DeleteScheduleResponse413
    | DeleteScheduleResponse422
    | DeleteScheduleResponse503
    | None
):
    """Delete Schedule

     Delete a schedule and its fire records. The runs it started are not touched.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DeleteScheduleResponse401 | DeleteScheduleResponse403 | DeleteScheduleResponse404 | DeleteScheduleResponse413 | DeleteScheduleResponse422 | DeleteScheduleResponse503
    """

    return (
        await asyncio_detailed(
            schedule_id=schedule_id,
            client=client,
        )
    ).parsed
