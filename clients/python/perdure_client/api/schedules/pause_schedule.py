from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.pause_schedule_response_401 import PauseScheduleResponse401
from ...models.pause_schedule_response_403 import PauseScheduleResponse403
from ...models.pause_schedule_response_404 import PauseScheduleResponse404
from ...models.pause_schedule_response_413 import PauseScheduleResponse413
from ...models.pause_schedule_response_422 import PauseScheduleResponse422
from ...models.pause_schedule_response_503 import PauseScheduleResponse503
from ...models.schedule_out import ScheduleOut
from ...types import Response


def _get_kwargs(
    schedule_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/schedules/{schedule_id}/pause".format(
            schedule_id=quote(str(schedule_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse404
    | PauseScheduleResponse413
    | PauseScheduleResponse422
    | PauseScheduleResponse503
    | ScheduleOut
    | None
):
    if response.status_code == 200:
        response_200 = ScheduleOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = PauseScheduleResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = PauseScheduleResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = PauseScheduleResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = PauseScheduleResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = PauseScheduleResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = PauseScheduleResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse404
    | PauseScheduleResponse413
    | PauseScheduleResponse422
    | PauseScheduleResponse503
    | ScheduleOut
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
    PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse404
    | PauseScheduleResponse413
    | PauseScheduleResponse422
    | PauseScheduleResponse503
    | ScheduleOut
]:
    """Pause Schedule

     Stop firing. Due times that pass while paused are neither fired nor recorded;
    runs already started go on.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PauseScheduleResponse401 | PauseScheduleResponse403 | PauseScheduleResponse404 | PauseScheduleResponse413 | PauseScheduleResponse422 | PauseScheduleResponse503 | ScheduleOut]
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
    PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse404
    | PauseScheduleResponse413
    | PauseScheduleResponse422
    | PauseScheduleResponse503
    | ScheduleOut
    | None
):
    """Pause Schedule

     Stop firing. Due times that pass while paused are neither fired nor recorded;
    runs already started go on.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PauseScheduleResponse401 | PauseScheduleResponse403 | PauseScheduleResponse404 | PauseScheduleResponse413 | PauseScheduleResponse422 | PauseScheduleResponse503 | ScheduleOut
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
    PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse404
    | PauseScheduleResponse413
    | PauseScheduleResponse422
    | PauseScheduleResponse503
    | ScheduleOut
]:
    """Pause Schedule

     Stop firing. Due times that pass while paused are neither fired nor recorded;
    runs already started go on.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PauseScheduleResponse401 | PauseScheduleResponse403 | PauseScheduleResponse404 | PauseScheduleResponse413 | PauseScheduleResponse422 | PauseScheduleResponse503 | ScheduleOut]
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
    PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse404
    | PauseScheduleResponse413
    | PauseScheduleResponse422
    | PauseScheduleResponse503
    | ScheduleOut
    | None
):
    """Pause Schedule

     Stop firing. Due times that pass while paused are neither fired nor recorded;
    runs already started go on.

    Args:
        schedule_id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PauseScheduleResponse401 | PauseScheduleResponse403 | PauseScheduleResponse404 | PauseScheduleResponse413 | PauseScheduleResponse422 | PauseScheduleResponse503 | ScheduleOut
    """

    return (
        await asyncio_detailed(
            schedule_id=schedule_id,
            client=client,
        )
    ).parsed
