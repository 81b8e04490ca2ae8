from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_session_response_401 import GetSessionResponse401
from ...models.get_session_response_403 import GetSessionResponse403
from ...models.get_session_response_404 import GetSessionResponse404
from ...models.get_session_response_413 import GetSessionResponse413
from ...models.get_session_response_422 import GetSessionResponse422
from ...models.get_session_response_503 import GetSessionResponse503
from ...models.session_out import SessionOut
from ...types import Response


def _get_kwargs(
    session_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/sessions/{session_id}".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse404
    | GetSessionResponse413
    | GetSessionResponse422
    | GetSessionResponse503
    | SessionOut
    | None
):
    if response.status_code == 200:
        response_200 = SessionOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = GetSessionResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetSessionResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = GetSessionResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = GetSessionResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = GetSessionResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = GetSessionResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse404
    | GetSessionResponse413
    | GetSessionResponse422
    | GetSessionResponse503
    | SessionOut
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
) -> Response[
    GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse404
    | GetSessionResponse413
    | GetSessionResponse422
    | GetSessionResponse503
    | SessionOut
]:
    """Get Session

     A session: its status (its latest run's, or `idle`), usage, budget and metadata.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetSessionResponse401 | GetSessionResponse403 | GetSessionResponse404 | GetSessionResponse413 | GetSessionResponse422 | GetSessionResponse503 | SessionOut]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse404
    | GetSessionResponse413
    | GetSessionResponse422
    | GetSessionResponse503
    | SessionOut
    | None
):
    """Get Session

     A session: its status (its latest run's, or `idle`), usage, budget and metadata.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetSessionResponse401 | GetSessionResponse403 | GetSessionResponse404 | GetSessionResponse413 | GetSessionResponse422 | GetSessionResponse503 | SessionOut
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse404
    | GetSessionResponse413
    | GetSessionResponse422
    | GetSessionResponse503
    | SessionOut
]:
    """Get Session

     A session: its status (its latest run's, or `idle`), usage, budget and metadata.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetSessionResponse401 | GetSessionResponse403 | GetSessionResponse404 | GetSessionResponse413 | GetSessionResponse422 | GetSessionResponse503 | SessionOut]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse404
    | GetSessionResponse413
    | GetSessionResponse422
    | GetSessionResponse503
    | SessionOut
    | None
):
    """Get Session

     A session: its status (its latest run's, or `idle`), usage, budget and metadata.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetSessionResponse401 | GetSessionResponse403 | GetSessionResponse404 | GetSessionResponse413 | GetSessionResponse422 | GetSessionResponse503 | SessionOut
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
        )
    ).parsed
