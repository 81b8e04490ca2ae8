from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.compare_out import CompareOut
from ...models.compare_sessions_response_401 import CompareSessionsResponse401
from ...models.compare_sessions_response_403 import CompareSessionsResponse403
from ...models.compare_sessions_response_404 import CompareSessionsResponse404
from ...models.compare_sessions_response_413 import CompareSessionsResponse413
from ...models.compare_sessions_response_422 import CompareSessionsResponse422
from ...models.compare_sessions_response_503 import CompareSessionsResponse503
from ...types import UNSET, Response


def _get_kwargs(
    session_id: str,
    *,
    with_: str,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["with"] = with_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/sessions/{session_id}/compare".format(
            session_id=quote(str(session_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CompareOut
    | CompareSessionsResponse401
    | CompareSessionsResponse403
    | CompareSessionsResponse404
    | CompareSessionsResponse413
    | CompareSessionsResponse422
    | CompareSessionsResponse503
    | None
):
    if response.status_code == 200:
        response_200 = CompareOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = CompareSessionsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CompareSessionsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = CompareSessionsResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = CompareSessionsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = CompareSessionsResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CompareSessionsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CompareOut
    | CompareSessionsResponse401
    | CompareSessionsResponse403
    | CompareSessionsResponse404
    | CompareSessionsResponse413
    | CompareSessionsResponse422
    | CompareSessionsResponse503
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
    with_: str,
) -> Response[
    CompareOut
    | CompareSessionsResponse401
    | CompareSessionsResponse403
    | CompareSessionsResponse404
    | CompareSessionsResponse413
    | CompareSessionsResponse422
    | CompareSessionsResponse503
]:
    """Compare Sessions

     Each session's steps (one per assistant turn), where they diverge, and the drift.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        with_ (str): The other session.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CompareOut | CompareSessionsResponse401 | CompareSessionsResponse403 | CompareSessionsResponse404 | CompareSessionsResponse413 | CompareSessionsResponse422 | CompareSessionsResponse503]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        with_=with_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    with_: str,
) -> (
    CompareOut
    | CompareSessionsResponse401
    | CompareSessionsResponse403
    | CompareSessionsResponse404
    | CompareSessionsResponse413
    | CompareSessionsResponse422
    | CompareSessionsResponse503
    | None
):
    """Compare Sessions

     Each session's steps (one per assistant turn), where they diverge, and the drift.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        with_ (str): The other session.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CompareOut | CompareSessionsResponse401 | CompareSessionsResponse403 | CompareSessionsResponse404 | CompareSessionsResponse413 | CompareSessionsResponse422 | CompareSessionsResponse503
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        with_=with_,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    with_: str,
) -> Response[
    CompareOut
    | CompareSessionsResponse401
    | CompareSessionsResponse403
    | CompareSessionsResponse404
    | CompareSessionsResponse413
    | CompareSessionsResponse422
    | CompareSessionsResponse503
]:
    """Compare Sessions

     Each session's steps (one per assistant turn), where they diverge, and the drift.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        with_ (str): The other session.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CompareOut | CompareSessionsResponse401 | CompareSessionsResponse403 | CompareSessionsResponse404 | CompareSessionsResponse413 | CompareSessionsResponse422 | CompareSessionsResponse503]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        with_=with_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    with_: str,
) -> (
    CompareOut
    | CompareSessionsResponse401
    | CompareSessionsResponse403
    | CompareSessionsResponse404
    | CompareSessionsResponse413
    | CompareSessionsResponse422
    | CompareSessionsResponse503
    | None
):
    """Compare Sessions

     Each session's steps (one per assistant turn), where they diverge, and the drift.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        with_ (str): The other session.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CompareOut | CompareSessionsResponse401 | CompareSessionsResponse403 | CompareSessionsResponse404 | CompareSessionsResponse413 | CompareSessionsResponse422 | CompareSessionsResponse503
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            with_=with_,
        )
    ).parsed
