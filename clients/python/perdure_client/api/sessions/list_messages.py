from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_messages_response_401 import ListMessagesResponse401
from ...models.list_messages_response_403 import ListMessagesResponse403
from ...models.list_messages_response_404 import ListMessagesResponse404
from ...models.list_messages_response_413 import ListMessagesResponse413
from ...models.list_messages_response_422 import ListMessagesResponse422
from ...models.list_messages_response_503 import ListMessagesResponse503
from ...models.message_page import MessagePage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    session_id: str,
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
        "url": "/v1/sessions/{session_id}/messages".format(
            session_id=quote(str(session_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ListMessagesResponse401
    | ListMessagesResponse403
    | ListMessagesResponse404
    | ListMessagesResponse413
    | ListMessagesResponse422
    | ListMessagesResponse503
    | MessagePage
    | None
):
    if response.status_code == 200:
        response_200 = MessagePage.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListMessagesResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListMessagesResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ListMessagesResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = ListMessagesResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ListMessagesResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ListMessagesResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ListMessagesResponse401
    | ListMessagesResponse403
    | ListMessagesResponse404
    | ListMessagesResponse413
    | ListMessagesResponse422
    | ListMessagesResponse503
    | MessagePage
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[
    ListMessagesResponse401
    | ListMessagesResponse403
    | ListMessagesResponse404
    | ListMessagesResponse413
    | ListMessagesResponse422
    | ListMessagesResponse503
    | MessagePage
]:
    """List Messages

     The transcript in order: each assistant turn, then its calls' results in call order.

    A call without a result yet is not listed.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListMessagesResponse401 | ListMessagesResponse403 | ListMessagesResponse404 | ListMessagesResponse413 | ListMessagesResponse422 | ListMessagesResponse503 | MessagePage]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> (
    ListMessagesResponse401
    | ListMessagesResponse403
    | ListMessagesResponse404
    | ListMessagesResponse413
    | ListMessagesResponse422
    | ListMessagesResponse503
    | MessagePage
    | None
):
    """List Messages

     The transcript in order: each assistant turn, then its calls' results in call order.

    A call without a result yet is not listed.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListMessagesResponse401 | ListMessagesResponse403 | ListMessagesResponse404 | ListMessagesResponse413 | ListMessagesResponse422 | ListMessagesResponse503 | MessagePage
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[
    ListMessagesResponse401
    | ListMessagesResponse403
    | ListMessagesResponse404
    | ListMessagesResponse413
    | ListMessagesResponse422
    | ListMessagesResponse503
    | MessagePage
]:
    """List Messages

     The transcript in order: each assistant turn, then its calls' results in call order.

    A call without a result yet is not listed.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListMessagesResponse401 | ListMessagesResponse403 | ListMessagesResponse404 | ListMessagesResponse413 | ListMessagesResponse422 | ListMessagesResponse503 | MessagePage]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    cursor: int | None | Unset = UNSET,
    limit: int | Unset = 100,
) -> (
    ListMessagesResponse401
    | ListMessagesResponse403
    | ListMessagesResponse404
    | ListMessagesResponse413
    | ListMessagesResponse422
    | ListMessagesResponse503
    | MessagePage
    | None
):
    """List Messages

     The transcript in order: each assistant turn, then its calls' results in call order.

    A call without a result yet is not listed.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        cursor (int | None | Unset): `next_cursor` of a page.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListMessagesResponse401 | ListMessagesResponse403 | ListMessagesResponse404 | ListMessagesResponse413 | ListMessagesResponse422 | ListMessagesResponse503 | MessagePage
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
