from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_key_response_401 import CreateKeyResponse401
from ...models.create_key_response_403 import CreateKeyResponse403
from ...models.create_key_response_413 import CreateKeyResponse413
from ...models.create_key_response_422 import CreateKeyResponse422
from ...models.create_key_response_503 import CreateKeyResponse503
from ...models.key_create import KeyCreate
from ...models.key_created import KeyCreated
from ...types import Response


def _get_kwargs(
    *,
    body: KeyCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/keys",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse422
    | CreateKeyResponse503
    | KeyCreated
    | None
):
    if response.status_code == 201:
        response_201 = KeyCreated.from_dict(response.json())

        return response_201

    if response.status_code == 401:
        response_401 = CreateKeyResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateKeyResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = CreateKeyResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = CreateKeyResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CreateKeyResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse422
    | CreateKeyResponse503
    | KeyCreated
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
    body: KeyCreate,
) -> Response[
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse422
    | CreateKeyResponse503
    | KeyCreated
]:
    """Create Key

     Make a key in the caller's tenant. The answer is the only time the key is shown.

    `metrics:read` (every tenant's counts) is the operator's to give: a key may pass it on
    only if it holds it (`perdure keys create` gives it), so a tenant's admin cannot.

    Args:
        body (KeyCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateKeyResponse401 | CreateKeyResponse403 | CreateKeyResponse413 | CreateKeyResponse422 | CreateKeyResponse503 | KeyCreated]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: KeyCreate,
) -> (
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse422
    | CreateKeyResponse503
    | KeyCreated
    | None
):
    """Create Key

     Make a key in the caller's tenant. The answer is the only time the key is shown.

    `metrics:read` (every tenant's counts) is the operator's to give: a key may pass it on
    only if it holds it (`perdure keys create` gives it), so a tenant's admin cannot.

    Args:
        body (KeyCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateKeyResponse401 | CreateKeyResponse403 | CreateKeyResponse413 | CreateKeyResponse422 | CreateKeyResponse503 | KeyCreated
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: KeyCreate,
) -> Response[
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse422
    | CreateKeyResponse503
    | KeyCreated
]:
    """Create Key

     Make a key in the caller's tenant. The answer is the only time the key is shown.

    `metrics:read` (every tenant's counts) is the operator's to give: a key may pass it on
    only if it holds it (`perdure keys create` gives it), so a tenant's admin cannot.

    Args:
        body (KeyCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateKeyResponse401 | CreateKeyResponse403 | CreateKeyResponse413 | CreateKeyResponse422 | CreateKeyResponse503 | KeyCreated]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: KeyCreate,
) -> (
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse422
    | CreateKeyResponse503
    | KeyCreated
    | None
):
    """Create Key

     Make a key in the caller's tenant. The answer is the only time the key is shown.

    `metrics:read` (every tenant's counts) is the operator's to give: a key may pass it on
    only if it holds it (`perdure keys create` gives it), so a tenant's admin cannot.

    Args:
        body (KeyCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateKeyResponse401 | CreateKeyResponse403 | CreateKeyResponse413 | CreateKeyResponse422 | CreateKeyResponse503 | KeyCreated
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
