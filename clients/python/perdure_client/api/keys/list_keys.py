from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.key_list import KeyList
from ...models.list_keys_response_401 import ListKeysResponse401
from ...models.list_keys_response_403 import ListKeysResponse403
from ...models.list_keys_response_413 import ListKeysResponse413
from ...models.list_keys_response_422 import ListKeysResponse422
from ...models.list_keys_response_503 import ListKeysResponse503
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/keys",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    KeyList
    | ListKeysResponse401
    | ListKeysResponse403
    | ListKeysResponse413
    | ListKeysResponse422
    | ListKeysResponse503
    | None
):
    if response.status_code == 200:
        response_200 = KeyList.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListKeysResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListKeysResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = ListKeysResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ListKeysResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ListKeysResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    KeyList
    | ListKeysResponse401
    | ListKeysResponse403
    | ListKeysResponse413
    | ListKeysResponse422
    | ListKeysResponse503
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
) -> Response[
    KeyList
    | ListKeysResponse401
    | ListKeysResponse403
    | ListKeysResponse413
    | ListKeysResponse422
    | ListKeysResponse503
]:
    """List Keys

     The tenant's keys, newest first, revoked ones included (never a key or its hash).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeyList | ListKeysResponse401 | ListKeysResponse403 | ListKeysResponse413 | ListKeysResponse422 | ListKeysResponse503]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> (
    KeyList
    | ListKeysResponse401
    | ListKeysResponse403
    | ListKeysResponse413
    | ListKeysResponse422
    | ListKeysResponse503
    | None
):
    """List Keys

     The tenant's keys, newest first, revoked ones included (never a key or its hash).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeyList | ListKeysResponse401 | ListKeysResponse403 | ListKeysResponse413 | ListKeysResponse422 | ListKeysResponse503
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[
    KeyList
    | ListKeysResponse401
    | ListKeysResponse403
    | ListKeysResponse413
    | ListKeysResponse422
    | ListKeysResponse503
]:
    """List Keys

     The tenant's keys, newest first, revoked ones included (never a key or its hash).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeyList | ListKeysResponse401 | ListKeysResponse403 | ListKeysResponse413 | ListKeysResponse422 | ListKeysResponse503]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> (
    KeyList
    | ListKeysResponse401
    | ListKeysResponse403
    | ListKeysResponse413
    | ListKeysResponse422
    | ListKeysResponse503
    | None
):
    """List Keys

     The tenant's keys, newest first, revoked ones included (never a key or its hash).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeyList | ListKeysResponse401 | ListKeysResponse403 | ListKeysResponse413 | ListKeysResponse422 | ListKeysResponse503
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
