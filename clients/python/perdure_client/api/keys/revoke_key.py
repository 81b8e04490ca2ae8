from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.key_out import KeyOut
from ...models.revoke_key_response_401 import RevokeKeyResponse401
from ...models.revoke_key_response_403 import RevokeKeyResponse403
from ...models.revoke_key_response_404 import RevokeKeyResponse404
from ...models.revoke_key_response_413 import RevokeKeyResponse413
from ...models.revoke_key_response_422 import RevokeKeyResponse422
from ...models.revoke_key_response_503 import RevokeKeyResponse503
from ...types import Response


def _get_kwargs(
    prefix: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/keys/{prefix}".format(
            prefix=quote(str(prefix), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    KeyOut
    | RevokeKeyResponse401
    | RevokeKeyResponse403
    | RevokeKeyResponse404
    | RevokeKeyResponse413
    | RevokeKeyResponse422
    | RevokeKeyResponse503
    | None
):
    if response.status_code == 200:
        response_200 = KeyOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = RevokeKeyResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = RevokeKeyResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = RevokeKeyResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = RevokeKeyResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = RevokeKeyResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = RevokeKeyResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    KeyOut
    | RevokeKeyResponse401
    | RevokeKeyResponse403
    | RevokeKeyResponse404
    | RevokeKeyResponse413
    | RevokeKeyResponse422
    | RevokeKeyResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    prefix: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    KeyOut
    | RevokeKeyResponse401
    | RevokeKeyResponse403
    | RevokeKeyResponse404
    | RevokeKeyResponse413
    | RevokeKeyResponse422
    | RevokeKeyResponse503
]:
    """Revoke Key

     Revoke a key: every replica refuses it from the next request on.

    Args:
        prefix (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeyOut | RevokeKeyResponse401 | RevokeKeyResponse403 | RevokeKeyResponse404 | RevokeKeyResponse413 | RevokeKeyResponse422 | RevokeKeyResponse503]
    """

    kwargs = _get_kwargs(
        prefix=prefix,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    prefix: str,
    *,
    client: AuthenticatedClient,
) -> (
    KeyOut
    | RevokeKeyResponse401
    | RevokeKeyResponse403
    | RevokeKeyResponse404
    | RevokeKeyResponse413
    | RevokeKeyResponse422
    | RevokeKeyResponse503
    | None
):
    """Revoke Key

     Revoke a key: every replica refuses it from the next request on.

    Args:
        prefix (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeyOut | RevokeKeyResponse401 | RevokeKeyResponse403 | RevokeKeyResponse404 | RevokeKeyResponse413 | RevokeKeyResponse422 | RevokeKeyResponse503
    """

    return sync_detailed(
        prefix=prefix,
        client=client,
    ).parsed


async def asyncio_detailed(
    prefix: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    KeyOut
    | RevokeKeyResponse401
    | RevokeKeyResponse403
    | RevokeKeyResponse404
    | RevokeKeyResponse413
    | RevokeKeyResponse422
    | RevokeKeyResponse503
]:
    """Revoke Key

     Revoke a key: every replica refuses it from the next request on.

    Args:
        prefix (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeyOut | RevokeKeyResponse401 | RevokeKeyResponse403 | RevokeKeyResponse404 | RevokeKeyResponse413 | RevokeKeyResponse422 | RevokeKeyResponse503]
    """

    kwargs = _get_kwargs(
        prefix=prefix,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    prefix: str,
    *,
    client: AuthenticatedClient,
) -> (
    KeyOut
    | RevokeKeyResponse401
    | RevokeKeyResponse403
    | RevokeKeyResponse404
    | RevokeKeyResponse413
    | RevokeKeyResponse422
    | RevokeKeyResponse503
    | None
):
    """Revoke Key

     Revoke a key: every replica refuses it from the next request on.

    Args:
        prefix (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeyOut | RevokeKeyResponse401 | RevokeKeyResponse403 | RevokeKeyResponse404 | RevokeKeyResponse413 | RevokeKeyResponse422 | RevokeKeyResponse503
    """

    return (
        await asyncio_detailed(
            prefix=prefix,
            client=client,
        )
    ).parsed
