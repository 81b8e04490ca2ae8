import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_sessions_response_401 import ListSessionsResponse401
from ...models.list_sessions_response_403 import ListSessionsResponse403
from ...models.list_sessions_response_413 import ListSessionsResponse413
from ...models.list_sessions_response_422 import ListSessionsResponse422
from ...models.list_sessions_response_503 import ListSessionsResponse503
from ...models.session_page import SessionPage
from ...models.session_status import SessionStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    status: list[SessionStatus] | None | Unset = UNSET,
    agent_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    created_after: datetime.datetime | None | Unset = UNSET,
    created_before: datetime.datetime | None | Unset = UNSET,
    updated_after: datetime.datetime | None | Unset = UNSET,
    updated_before: datetime.datetime | None | Unset = UNSET,
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

    json_agent_id: None | str | Unset
    if isinstance(agent_id, Unset):
        json_agent_id = UNSET
    else:
        json_agent_id = agent_id
    params["agent_id"] = json_agent_id

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    params["limit"] = limit

    json_created_after: None | str | Unset
    if isinstance(created_after, Unset):
        json_created_after = UNSET
    elif isinstance(created_after, datetime.datetime):
        json_created_after = created_after.isoformat()
    else:
        json_created_after = created_after
    params["created_after"] = json_created_after

    json_created_before: None | str | Unset
    if isinstance(created_before, Unset):
        json_created_before = UNSET
    elif isinstance(created_before, datetime.datetime):
        json_created_before = created_before.isoformat()
    else:
        json_created_before = created_before
    params["created_before"] = json_created_before

    json_updated_after: None | str | Unset
    if isinstance(updated_after, Unset):
        json_updated_after = UNSET
    elif isinstance(updated_after, datetime.datetime):
        json_updated_after = updated_after.isoformat()
    else:
        json_updated_after = updated_after
    params["updated_after"] = json_updated_after

    json_updated_before: None | str | Unset
    if isinstance(updated_before, Unset):
        json_updated_before = UNSET
    elif isinstance(updated_before, datetime.datetime):
        json_updated_before = updated_before.isoformat()
    else:
        json_updated_before = updated_before
    params["updated_before"] = json_updated_before

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/sessions",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse413
    | ListSessionsResponse422
    | ListSessionsResponse503
    | SessionPage
    | None
):
    if response.status_code == 200:
        response_200 = SessionPage.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListSessionsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListSessionsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = ListSessionsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ListSessionsResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ListSessionsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse413
    | ListSessionsResponse422
    | ListSessionsResponse503
    | SessionPage
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
    status: list[SessionStatus] | None | Unset = UNSET,
    agent_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    created_after: datetime.datetime | None | Unset = UNSET,
    created_before: datetime.datetime | None | Unset = UNSET,
    updated_after: datetime.datetime | None | Unset = UNSET,
    updated_before: datetime.datetime | None | Unset = UNSET,
) -> Response[
    ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse413
    | ListSessionsResponse422
    | ListSessionsResponse503
    | SessionPage
]:
    """List Sessions

     Sessions newest first, with the status of their latest run (`idle`: none yet). Filter on metadata
    with `?metadata.<key>=<value>` (several are ANDed; answered from a containment index).

    Args:
        status (list[SessionStatus] | None | Unset): Repeat for several.
        agent_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.
        created_after (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        created_before (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        updated_after (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        updated_before (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListSessionsResponse401 | ListSessionsResponse403 | ListSessionsResponse413 | ListSessionsResponse422 | ListSessionsResponse503 | SessionPage]
    """

    kwargs = _get_kwargs(
        status=status,
        agent_id=agent_id,
        cursor=cursor,
        limit=limit,
        created_after=created_after,
        created_before=created_before,
        updated_after=updated_after,
        updated_before=updated_before,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    status: list[SessionStatus] | None | Unset = UNSET,
    agent_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    created_after: datetime.datetime | None | Unset = UNSET,
    created_before: datetime.datetime | None | Unset = UNSET,
    updated_after: datetime.datetime | None | Unset = UNSET,
    updated_before: datetime.datetime | None | Unset = UNSET,
) -> (
    ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse413
    | ListSessionsResponse422
    | ListSessionsResponse503
    | SessionPage
    | None
):
    """List Sessions

     Sessions newest first, with the status of their latest run (`idle`: none yet). Filter on metadata
    with `?metadata.<key>=<value>` (several are ANDed; answered from a containment index).

    Args:
        status (list[SessionStatus] | None | Unset): Repeat for several.
        agent_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.
        created_after (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        created_before (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        updated_after (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        updated_before (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListSessionsResponse401 | ListSessionsResponse403 | ListSessionsResponse413 | ListSessionsResponse422 | ListSessionsResponse503 | SessionPage
    """

    return sync_detailed(
        client=client,
        status=status,
        agent_id=agent_id,
        cursor=cursor,
        limit=limit,
        created_after=created_after,
        created_before=created_before,
        updated_after=updated_after,
        updated_before=updated_before,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    status: list[SessionStatus] | None | Unset = UNSET,
    agent_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    created_after: datetime.datetime | None | Unset = UNSET,
    created_before: datetime.datetime | None | Unset = UNSET,
    updated_after: datetime.datetime | None | Unset = UNSET,
    updated_before: datetime.datetime | None | Unset = UNSET,
) -> Response[
    ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse413
    | ListSessionsResponse422
    | ListSessionsResponse503
    | SessionPage
]:
    """List Sessions

     Sessions newest first, with the status of their latest run (`idle`: none yet). Filter on metadata
    with `?metadata.<key>=<value>` (several are ANDed; answered from a containment index).

    Args:
        status (list[SessionStatus] | None | Unset): Repeat for several.
        agent_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.
        created_after (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        created_before (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        updated_after (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        updated_before (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListSessionsResponse401 | ListSessionsResponse403 | ListSessionsResponse413 | ListSessionsResponse422 | ListSessionsResponse503 | SessionPage]
    """

    kwargs = _get_kwargs(
        status=status,
        agent_id=agent_id,
        cursor=cursor,
        limit=limit,
        created_after=created_after,
        created_before=created_before,
        updated_after=updated_after,
        updated_before=updated_before,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    status: list[SessionStatus] | None | Unset = UNSET,
    agent_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    created_after: datetime.datetime | None | Unset = UNSET,
    created_before: datetime.datetime | None | Unset = UNSET,
    updated_after: datetime.datetime | None | Unset = UNSET,
    updated_before: datetime.datetime | None | Unset = UNSET,
) -> (
    ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse413
    | ListSessionsResponse422
    | ListSessionsResponse503
    | SessionPage
    | None
):
    """List Sessions

     Sessions newest first, with the status of their latest run (`idle`: none yet). Filter on metadata
    with `?metadata.<key>=<value>` (several are ANDed; answered from a containment index).

    Args:
        status (list[SessionStatus] | None | Unset): Repeat for several.
        agent_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.
        created_after (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        created_before (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        updated_after (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.
        updated_before (datetime.datetime | None | Unset): An RFC 3339 time with its offset, e.g.
            `2026-12-01T09:00:00Z`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListSessionsResponse401 | ListSessionsResponse403 | ListSessionsResponse413 | ListSessionsResponse422 | ListSessionsResponse503 | SessionPage
    """

    return (
        await asyncio_detailed(
            client=client,
            status=status,
            agent_id=agent_id,
            cursor=cursor,
            limit=limit,
            created_after=created_after,
            created_before=created_before,
            updated_after=updated_after,
            updated_before=updated_before,
        )
    ).parsed
