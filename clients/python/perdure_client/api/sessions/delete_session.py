from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delete_session_response_401 import DeleteSessionResponse401
from ...models.delete_session_response_403 import DeleteSessionResponse403
from ...models.delete_session_response_404 import DeleteSessionResponse404
from ...models.delete_session_response_413 import DeleteSessionResponse413
from ...models.delete_session_response_422 import DeleteSessionResponse422
from ...models.delete_session_response_503 import DeleteSessionResponse503
from ...types import Response


def _get_kwargs(
    session_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/sessions/{session_id}".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Any
    | DeleteSessionResponse401
    | DeleteSessionResponse403
    | DeleteSessionResponse404
    | DeleteSessionResponse413
    | DeleteSessionResponse422
    | DeleteSessionResponse503
    | None
):
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

    if response.status_code == 401:
        response_401 = DeleteSessionResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = DeleteSessionResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = DeleteSessionResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = DeleteSessionResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = DeleteSessionResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = DeleteSessionResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Any
    | DeleteSessionResponse401
    | DeleteSessionResponse403
    | DeleteSessionResponse404
    | DeleteSessionResponse413
    | DeleteSessionResponse422
    | DeleteSessionResponse503
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
    Any
    | DeleteSessionResponse401
    | DeleteSessionResponse403
    | DeleteSessionResponse404
    | DeleteSessionResponse413
    | DeleteSessionResponse422
    | DeleteSessionResponse503
]:
    """Delete Session

     End a session: its runs stop, its transcript and checkpoints are deleted.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DeleteSessionResponse401 | DeleteSessionResponse403 | DeleteSessionResponse404 | DeleteSessionResponse413 | DeleteSessionResponse422 | DeleteSessionResponse503]
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
    Any
    | DeleteSessionResponse401
    | DeleteSessionResponse403
    | DeleteSessionResponse404
    | DeleteSessionResponse413
    | DeleteSessionResponse422
    | DeleteSessionResponse503
    | None
):
    """Delete Session

     End a session: its runs stop, its transcript and checkpoints are deleted.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DeleteSessionResponse401 | DeleteSessionResponse403 | DeleteSessionResponse404 | DeleteSessionResponse413 | DeleteSessionResponse422 | DeleteSessionResponse503
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
    Any
    | DeleteSessionResponse401
    | DeleteSessionResponse403
    | DeleteSessionResponse404
    | DeleteSessionResponse413
    | DeleteSessionResponse422
    | DeleteSessionResponse503
]:
    """Delete Session

     End a session: its runs stop, its transcript and checkpoints are deleted.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | DeleteSessionResponse401 | DeleteSessionResponse403 | DeleteSessionResponse404 | DeleteSessionResponse413 | DeleteSessionResponse422 | DeleteSessionResponse503]
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
    Any
    | DeleteSessionResponse401
    | DeleteSessionResponse403
    | DeleteSessionResponse404
    | DeleteSessionResponse413
    | DeleteSessionResponse422
    | DeleteSessionResponse503
    | None
):
    """Delete Session

     End a session: its runs stop, its transcript and checkpoints are deleted.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | DeleteSessionResponse401 | DeleteSessionResponse403 | DeleteSessionResponse404 | DeleteSessionResponse413 | DeleteSessionResponse422 | DeleteSessionResponse503
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
        )
    ).parsed
