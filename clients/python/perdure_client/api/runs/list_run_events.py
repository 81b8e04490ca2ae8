from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.event_page import EventPage
from ...models.list_run_events_response_401 import ListRunEventsResponse401
from ...models.list_run_events_response_403 import ListRunEventsResponse403
from ...models.list_run_events_response_404 import ListRunEventsResponse404
from ...models.list_run_events_response_413 import ListRunEventsResponse413
from ...models.list_run_events_response_422 import ListRunEventsResponse422
from ...models.list_run_events_response_503 import ListRunEventsResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    run_id: UUID,
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
        "url": "/v1/runs/{run_id}/events".format(
            run_id=quote(str(run_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    EventPage
    | ListRunEventsResponse401
    | ListRunEventsResponse403
    | ListRunEventsResponse404
    | ListRunEventsResponse413
    | ListRunEventsResponse422
    | ListRunEventsResponse503
    | None
):
    if response.status_code == 200:
        response_200 = EventPage.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListRunEventsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListRunEventsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ListRunEventsResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = ListRunEventsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ListRunEventsResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ListRunEventsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    EventPage
    | ListRunEventsResponse401
    | ListRunEventsResponse403
    | ListRunEventsResponse404
    | ListRunEventsResponse413
    | ListRunEventsResponse422
    | ListRunEventsResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[
    EventPage
    | ListRunEventsResponse401
    | ListRunEventsResponse403
    | ListRunEventsResponse404
    | ListRunEventsResponse413
    | ListRunEventsResponse422
    | ListRunEventsResponse503
]:
    """List Run Events

     The run's events, oldest first: every change of its state (docs/design.md,
    "Events"). Ids are its session's, so they skip the events of the session's other runs.
    `GET /v1/runs/{id}/stream` follows them live.

    Args:
        run_id (UUID):
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventPage | ListRunEventsResponse401 | ListRunEventsResponse403 | ListRunEventsResponse404 | ListRunEventsResponse413 | ListRunEventsResponse422 | ListRunEventsResponse503]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> (
    EventPage
    | ListRunEventsResponse401
    | ListRunEventsResponse403
    | ListRunEventsResponse404
    | ListRunEventsResponse413
    | ListRunEventsResponse422
    | ListRunEventsResponse503
    | None
):
    """List Run Events

     The run's events, oldest first: every change of its state (docs/design.md,
    "Events"). Ids are its session's, so they skip the events of the session's other runs.
    `GET /v1/runs/{id}/stream` follows them live.

    Args:
        run_id (UUID):
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventPage | ListRunEventsResponse401 | ListRunEventsResponse403 | ListRunEventsResponse404 | ListRunEventsResponse413 | ListRunEventsResponse422 | ListRunEventsResponse503
    """

    return sync_detailed(
        run_id=run_id,
        client=client,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[
    EventPage
    | ListRunEventsResponse401
    | ListRunEventsResponse403
    | ListRunEventsResponse404
    | ListRunEventsResponse413
    | ListRunEventsResponse422
    | ListRunEventsResponse503
]:
    """List Run Events

     The run's events, oldest first: every change of its state (docs/design.md,
    "Events"). Ids are its session's, so they skip the events of the session's other runs.
    `GET /v1/runs/{id}/stream` follows them live.

    Args:
        run_id (UUID):
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventPage | ListRunEventsResponse401 | ListRunEventsResponse403 | ListRunEventsResponse404 | ListRunEventsResponse413 | ListRunEventsResponse422 | ListRunEventsResponse503]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> (
    EventPage
    | ListRunEventsResponse401
    | ListRunEventsResponse403
    | ListRunEventsResponse404
    | ListRunEventsResponse413
    | ListRunEventsResponse422
    | ListRunEventsResponse503
    | None
):
    """List Run Events

     The run's events, oldest first: every change of its state (docs/design.md,
    "Events"). Ids are its session's, so they skip the events of the session's other runs.
    `GET /v1/runs/{id}/stream` follows them live.

    Args:
        run_id (UUID):
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventPage | ListRunEventsResponse401 | ListRunEventsResponse403 | ListRunEventsResponse404 | ListRunEventsResponse413 | ListRunEventsResponse422 | ListRunEventsResponse503
    """

    return (
        await asyncio_detailed(
            run_id=run_id,
            client=client,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
