from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.stream_run_response_200 import StreamRunResponse200
from ...models.stream_run_response_401 import StreamRunResponse401
from ...models.stream_run_response_403 import StreamRunResponse403
from ...models.stream_run_response_404 import StreamRunResponse404
from ...models.stream_run_response_413 import StreamRunResponse413
from ...models.stream_run_response_422 import StreamRunResponse422
from ...models.stream_run_response_503 import StreamRunResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    run_id: UUID,
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
        "url": "/v1/runs/{run_id}/stream".format(
            run_id=quote(str(run_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    StreamRunResponse200
    | StreamRunResponse401
    | StreamRunResponse403
    | StreamRunResponse404
    | StreamRunResponse413
    | StreamRunResponse422
    | StreamRunResponse503
    | None
):
    if response.status_code == 200:
        response_200 = StreamRunResponse200.from_dict(response.text)

        return response_200

    if response.status_code == 401:
        response_401 = StreamRunResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = StreamRunResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = StreamRunResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = StreamRunResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = StreamRunResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = StreamRunResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    StreamRunResponse200
    | StreamRunResponse401
    | StreamRunResponse403
    | StreamRunResponse404
    | StreamRunResponse413
    | StreamRunResponse422
    | StreamRunResponse503
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
    after: int | None | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> Response[
    StreamRunResponse200
    | StreamRunResponse401
    | StreamRunResponse403
    | StreamRunResponse404
    | StreamRunResponse413
    | StreamRunResponse422
    | StreamRunResponse503
]:
    """Stream Run

     The run's events as Server-Sent Events, live, ending after its terminal event
    (`run.finished`, `run.failed`, `run.cancelled`). A reconnecting client sends
    `Last-Event-ID` (or `?after=`) and gets exactly the events it missed.

    Args:
        run_id (UUID):
        after (int | None | Unset): As `Last-Event-ID`, for clients that cannot set it.
        last_event_id (int | None | Unset): The last event id the client saw; the stream resumes
            after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[StreamRunResponse200 | StreamRunResponse401 | StreamRunResponse403 | StreamRunResponse404 | StreamRunResponse413 | StreamRunResponse422 | StreamRunResponse503]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
        after=after,
        last_event_id=last_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | None | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> (
    StreamRunResponse200
    | StreamRunResponse401
    | StreamRunResponse403
    | StreamRunResponse404
    | StreamRunResponse413
    | StreamRunResponse422
    | StreamRunResponse503
    | None
):
    """Stream Run

     The run's events as Server-Sent Events, live, ending after its terminal event
    (`run.finished`, `run.failed`, `run.cancelled`). A reconnecting client sends
    `Last-Event-ID` (or `?after=`) and gets exactly the events it missed.

    Args:
        run_id (UUID):
        after (int | None | Unset): As `Last-Event-ID`, for clients that cannot set it.
        last_event_id (int | None | Unset): The last event id the client saw; the stream resumes
            after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        StreamRunResponse200 | StreamRunResponse401 | StreamRunResponse403 | StreamRunResponse404 | StreamRunResponse413 | StreamRunResponse422 | StreamRunResponse503
    """

    return sync_detailed(
        run_id=run_id,
        client=client,
        after=after,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | None | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> Response[
    StreamRunResponse200
    | StreamRunResponse401
    | StreamRunResponse403
    | StreamRunResponse404
    | StreamRunResponse413
    | StreamRunResponse422
    | StreamRunResponse503
]:
    """Stream Run

     The run's events as Server-Sent Events, live, ending after its terminal event
    (`run.finished`, `run.failed`, `run.cancelled`). A reconnecting client sends
    `Last-Event-ID` (or `?after=`) and gets exactly the events it missed.

    Args:
        run_id (UUID):
        after (int | None | Unset): As `Last-Event-ID`, for clients that cannot set it.
        last_event_id (int | None | Unset): The last event id the client saw; the stream resumes
            after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[StreamRunResponse200 | StreamRunResponse401 | StreamRunResponse403 | StreamRunResponse404 | StreamRunResponse413 | StreamRunResponse422 | StreamRunResponse503]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
        after=after,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    after: int | None | Unset = UNSET,
    last_event_id: int | None | Unset = UNSET,
) -> (
    StreamRunResponse200
    | StreamRunResponse401
    | StreamRunResponse403
    | StreamRunResponse404
    | StreamRunResponse413
    | StreamRunResponse422
    | StreamRunResponse503
    | None
):
    """Stream Run

     The run's events as Server-Sent Events, live, ending after its terminal event
    (`run.finished`, `run.failed`, `run.cancelled`). A reconnecting client sends
    `Last-Event-ID` (or `?after=`) and gets exactly the events it missed.

    Args:
        run_id (UUID):
        after (int | None | Unset): As `Last-Event-ID`, for clients that cannot set it.
        last_event_id (int | None | Unset): The last event id the client saw; the stream resumes
            after it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        StreamRunResponse200 | StreamRunResponse401 | StreamRunResponse403 | StreamRunResponse404 | StreamRunResponse413 | StreamRunResponse422 | StreamRunResponse503
    """

    return (
        await asyncio_detailed(
            run_id=run_id,
            client=client,
            after=after,
            last_event_id=last_event_id,
        )
    ).parsed
