from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_runs_response_401 import ListRunsResponse401
from ...models.list_runs_response_403 import ListRunsResponse403
from ...models.list_runs_response_413 import ListRunsResponse413
from ...models.list_runs_response_422 import ListRunsResponse422
from ...models.list_runs_response_503 import ListRunsResponse503
from ...models.run_page import RunPage
from ...models.run_status import RunStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    status: list[RunStatus] | None | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: list[str] | None | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, list):
        json_status = []
        for status_type_0_item_data in status:
            status_type_0_item = status_type_0_item_data.value
            json_status.append(status_type_0_item)

    else:
        json_status = status
    params["status"] = json_status

    json_session_id: None | str | Unset
    if isinstance(session_id, Unset):
        json_session_id = UNSET
    else:
        json_session_id = session_id
    params["session_id"] = json_session_id

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
        "url": "/v1/runs",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse413
    | ListRunsResponse422
    | ListRunsResponse503
    | RunPage
    | None
):
    if response.status_code == 200:
        response_200 = RunPage.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListRunsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListRunsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = ListRunsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ListRunsResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ListRunsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse413
    | ListRunsResponse422
    | ListRunsResponse503
    | RunPage
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
    status: list[RunStatus] | None | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[
    ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse413
    | ListRunsResponse422
    | ListRunsResponse503
    | RunPage
]:
    """List Runs

     Runs across sessions, newest first: the ops view of pending, failing, paused runs.

    Args:
        status (list[RunStatus] | None | Unset): Repeat for several.
        session_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListRunsResponse401 | ListRunsResponse403 | ListRunsResponse413 | ListRunsResponse422 | ListRunsResponse503 | RunPage]
    """

    kwargs = _get_kwargs(
        status=status,
        session_id=session_id,
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
    status: list[RunStatus] | None | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> (
    ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse413
    | ListRunsResponse422
    | ListRunsResponse503
    | RunPage
    | None
):
    """List Runs

     Runs across sessions, newest first: the ops view of pending, failing, paused runs.

    Args:
        status (list[RunStatus] | None | Unset): Repeat for several.
        session_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListRunsResponse401 | ListRunsResponse403 | ListRunsResponse413 | ListRunsResponse422 | ListRunsResponse503 | RunPage
    """

    return sync_detailed(
        client=client,
        status=status,
        session_id=session_id,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    status: list[RunStatus] | None | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[
    ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse413
    | ListRunsResponse422
    | ListRunsResponse503
    | RunPage
]:
    """List Runs

     Runs across sessions, newest first: the ops view of pending, failing, paused runs.

    Args:
        status (list[RunStatus] | None | Unset): Repeat for several.
        session_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListRunsResponse401 | ListRunsResponse403 | ListRunsResponse413 | ListRunsResponse422 | ListRunsResponse503 | RunPage]
    """

    kwargs = _get_kwargs(
        status=status,
        session_id=session_id,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    status: list[RunStatus] | None | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> (
    ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse413
    | ListRunsResponse422
    | ListRunsResponse503
    | RunPage
    | None
):
    """List Runs

     Runs across sessions, newest first: the ops view of pending, failing, paused runs.

    Args:
        status (list[RunStatus] | None | Unset): Repeat for several.
        session_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListRunsResponse401 | ListRunsResponse403 | ListRunsResponse413 | ListRunsResponse422 | ListRunsResponse503 | RunPage
    """

    return (
        await asyncio_detailed(
            client=client,
            status=status,
            session_id=session_id,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
