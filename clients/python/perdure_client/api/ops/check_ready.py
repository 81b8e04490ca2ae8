from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.check_ready_response_413 import CheckReadyResponse413
from ...models.check_ready_response_422 import CheckReadyResponse422
from ...models.check_ready_response_503 import CheckReadyResponse503
from ...models.ready import Ready
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/readyz",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CheckReadyResponse413 | CheckReadyResponse422 | CheckReadyResponse503 | Ready | None
):
    if response.status_code == 200:
        response_200 = Ready.from_dict(response.json())

        return response_200

    if response.status_code == 413:
        response_413 = CheckReadyResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = CheckReadyResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CheckReadyResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CheckReadyResponse413 | CheckReadyResponse422 | CheckReadyResponse503 | Ready
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    CheckReadyResponse413 | CheckReadyResponse422 | CheckReadyResponse503 | Ready
]:
    """Check Ready

     The database answers and its schema is at the newest migration.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckReadyResponse413 | CheckReadyResponse422 | CheckReadyResponse503 | Ready]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> (
    CheckReadyResponse413 | CheckReadyResponse422 | CheckReadyResponse503 | Ready | None
):
    """Check Ready

     The database answers and its schema is at the newest migration.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckReadyResponse413 | CheckReadyResponse422 | CheckReadyResponse503 | Ready
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    CheckReadyResponse413 | CheckReadyResponse422 | CheckReadyResponse503 | Ready
]:
    """Check Ready

     The database answers and its schema is at the newest migration.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckReadyResponse413 | CheckReadyResponse422 | CheckReadyResponse503 | Ready]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> (
    CheckReadyResponse413 | CheckReadyResponse422 | CheckReadyResponse503 | Ready | None
):
    """Check Ready

     The database answers and its schema is at the newest migration.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckReadyResponse413 | CheckReadyResponse422 | CheckReadyResponse503 | Ready
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
