from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.stream_session_response_200 import StreamSessionResponse200
from ...models.stream_session_response_401 import StreamSessionResponse401
from ...models.stream_session_response_403 import StreamSessionResponse403
from ...models.stream_session_response_404 import StreamSessionResponse404
from ...models.stream_session_response_413 import StreamSessionResponse413
from ...models.stream_session_response_422 import StreamSessionResponse422
from ...models.stream_session_response_503 import StreamSessionResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    session_id: str,
    *,
    after: int | None | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = last_event_id

    params: dict[str, Any] = {}

    json_after: int | None | Unset
    if isinstance(after, Unset):
        json_after = UNSET
    else:
        json_after = after
    params["after"] = json_after

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/sessions/{session_id}/stream".format(
            session_id=quote(str(session_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    StreamSessionResponse200
    | StreamSessionResponse401
    | StreamSessionResponse403
    | StreamSessionResponse404
    | StreamSessionResponse413
    | StreamSessionResponse422
    | StreamSessionResponse503
    | None
):
    if response.status_code == 200:
        response_200 = StreamSessionResponse200.from_dict(response.text)

        return response_200

    if response.status_code == 401:
        response_401 = StreamSessionResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = StreamSessionResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = StreamSessionResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = StreamSessionResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = StreamSessionResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = StreamSessionResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    StreamSessionResponse200
    | StreamSessionResponse401
    | StreamSessionResponse403
    | StreamSessionResponse404
    | StreamSessionResponse413
    | StreamSessionResponse422
    | StreamSessionResponse503
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
    after: int | None | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> Response[
    StreamSessionResponse200
    | StreamSessionResponse401
    | StreamSessionResponse403
    | StreamSessionResponse404
    | StreamSessionResponse413
    | StreamSessionResponse422
    | StreamSessionResponse503
]:
    """Stream Session

     The session's events (all its runs') as Server-Sent Events, live; the stream stays
    open. A reconnecting client sends `Last-Event-ID` (or `?after=`).

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        after (int | None | Unset): As `Last-Event-ID`, for clients that cannot set it.
        last_event_id (int | None | Unset): The last event id the client saw; the stream resumes
            after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[StreamSessionResponse200 | StreamSessionResponse401 | StreamSessionResponse403 | StreamSessionResponse404 | StreamSessionResponse413 | StreamSessionResponse422 | StreamSessionResponse503]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        after=after,
        last_event_id=last_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    after: int | None | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> (
    StreamSessionResponse200
    | StreamSessionResponse401
    | StreamSessionResponse403
    | StreamSessionResponse404
    | StreamSessionResponse413
    | StreamSessionResponse422
    | StreamSessionResponse503
    | None
):
    """Stream Session

     The session's events (all its runs') as Server-Sent Events, live; the stream stays
    open. A reconnecting client sends `Last-Event-ID` (or `?after=`).

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        after (int | None | Unset): As `Last-Event-ID`, for clients that cannot set it.
        last_event_id (int | None | Unset): The last event id the client saw; the stream resumes
            after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        StreamSessionResponse200 | StreamSessionResponse401 | StreamSessionResponse403 | StreamSessionResponse404 | StreamSessionResponse413 | StreamSessionResponse422 | StreamSessionResponse503
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        after=after,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    after: int | None | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> Response[
    StreamSessionResponse200
    | StreamSessionResponse401
    | StreamSessionResponse403
    | StreamSessionResponse404
    | StreamSessionResponse413
    | StreamSessionResponse422
    | StreamSessionResponse503
]:
    """Stream Session

     The session's events (all its runs') as Server-Sent Events, live; the stream stays
    open. A reconnecting client sends `Last-Event-ID` (or `?after=`).

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        after (int | None | Unset): As `Last-Event-ID`, for clients that cannot set it.
        last_event_id (int | None | Unset): The last event id the client saw; the stream resumes
            after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[StreamSessionResponse200 | StreamSessionResponse401 | StreamSessionResponse403 | StreamSessionResponse404 | StreamSessionResponse413 | StreamSessionResponse422 | StreamSessionResponse503]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        after=after,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    after: int | None | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> (
    StreamSessionResponse200
    | StreamSessionResponse401
    | StreamSessionResponse403
    | StreamSessionResponse404
    | StreamSessionResponse413
    | StreamSessionResponse422
    | StreamSessionResponse503
    | None
):
    """Stream Session

     The session's events (all its runs') as Server-Sent Events, live; the stream stays
    open. A reconnecting client sends `Last-Event-ID` (or `?after=`).

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        after (int | None | Unset): As `Last-Event-ID`, for clients that cannot set it.
        last_event_id (int | None | Unset): The last event id the client saw; the stream resumes
            after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        StreamSessionResponse200 | StreamSessionResponse401 | StreamSessionResponse403 | StreamSessionResponse404 | StreamSessionResponse413 | StreamSessionResponse422 | StreamSessionResponse503
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            after=after,
            last_event_id=last_event_id,
        )
    ).parsed
