from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_fork_response_401 import CreateForkResponse401
from ...models.create_fork_response_403 import CreateForkResponse403
from ...models.create_fork_response_404 import CreateForkResponse404
from ...models.create_fork_response_409 import CreateForkResponse409
from ...models.create_fork_response_413 import CreateForkResponse413
from ...models.create_fork_response_422 import CreateForkResponse422
from ...models.create_fork_response_503 import CreateForkResponse503
from ...models.fork_in import ForkIn
from ...models.fork_out import ForkOut
from ...types import Response


def _get_kwargs(
    session_id: str,
    *,
    body: ForkIn,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/sessions/{session_id}/forks".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateForkResponse401
    | CreateForkResponse403
    | CreateForkResponse404
    | CreateForkResponse409
    | CreateForkResponse413
    | CreateForkResponse422
    | CreateForkResponse503
    | ForkOut
    | None
):
    if response.status_code == 201:
        response_201 = ForkOut.from_dict(response.json())

        return response_201

    if response.status_code == 401:
        response_401 = CreateForkResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateForkResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = CreateForkResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = CreateForkResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = CreateForkResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = CreateForkResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CreateForkResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateForkResponse401
    | CreateForkResponse403
    | CreateForkResponse404
    | CreateForkResponse409
    | CreateForkResponse413
    | CreateForkResponse422
    | CreateForkResponse503
    | ForkOut
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
    body: ForkIn,
) -> Response[
    CreateForkResponse401
    | CreateForkResponse403
    | CreateForkResponse404
    | CreateForkResponse409
    | CreateForkResponse413
    | CreateForkResponse422
    | CreateForkResponse503
    | ForkOut
]:
    """Create Fork

     A new session from the newest save of `from_step`, patched, then resumed like any
    unfinished run: calls without a result run first, gated calls ask again. The source
    session is not touched.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (ForkIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateForkResponse401 | CreateForkResponse403 | CreateForkResponse404 | CreateForkResponse409 | CreateForkResponse413 | CreateForkResponse422 | CreateForkResponse503 | ForkOut]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: ForkIn,
) -> (
    CreateForkResponse401
    | CreateForkResponse403
    | CreateForkResponse404
    | CreateForkResponse409
    | CreateForkResponse413
    | CreateForkResponse422
    | CreateForkResponse503
    | ForkOut
    | None
):
    """Create Fork

     A new session from the newest save of `from_step`, patched, then resumed like any
    unfinished run: calls without a result run first, gated calls ask again. The source
    session is not touched.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (ForkIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateForkResponse401 | CreateForkResponse403 | CreateForkResponse404 | CreateForkResponse409 | CreateForkResponse413 | CreateForkResponse422 | CreateForkResponse503 | ForkOut
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: ForkIn,
) -> Response[
    CreateForkResponse401
    | CreateForkResponse403
    | CreateForkResponse404
    | CreateForkResponse409
    | CreateForkResponse413
    | CreateForkResponse422
    | CreateForkResponse503
    | ForkOut
]:
    """Create Fork

     A new session from the newest save of `from_step`, patched, then resumed like any
    unfinished run: calls without a result run first, gated calls ask again. The source
    session is not touched.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (ForkIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateForkResponse401 | CreateForkResponse403 | CreateForkResponse404 | CreateForkResponse409 | CreateForkResponse413 | CreateForkResponse422 | CreateForkResponse503 | ForkOut]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: ForkIn,
) -> (
    CreateForkResponse401
    | CreateForkResponse403
    | CreateForkResponse404
    | CreateForkResponse409
    | CreateForkResponse413
    | CreateForkResponse422
    | CreateForkResponse503
    | ForkOut
    | None
):
    """Create Fork

     A new session from the newest save of `from_step`, patched, then resumed like any
    unfinished run: calls without a result run first, gated calls ask again. The source
    session is not touched.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (ForkIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateForkResponse401 | CreateForkResponse403 | CreateForkResponse404 | CreateForkResponse409 | CreateForkResponse413 | CreateForkResponse422 | CreateForkResponse503 | ForkOut
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            body=body,
        )
    ).parsed
