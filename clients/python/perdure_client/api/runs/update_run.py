from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.metadata_patch_in import MetadataPatchIn
from ...models.run_out import RunOut
from ...models.update_run_response_401 import UpdateRunResponse401
from ...models.update_run_response_403 import UpdateRunResponse403
from ...models.update_run_response_404 import UpdateRunResponse404
from ...models.update_run_response_413 import UpdateRunResponse413
from ...models.update_run_response_422 import UpdateRunResponse422
from ...models.update_run_response_503 import UpdateRunResponse503
from ...types import Response


def _get_kwargs(
    run_id: UUID,
    *,
    body: MetadataPatchIn,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/runs/{run_id}".format(
            run_id=quote(str(run_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    RunOut
    | UpdateRunResponse401
    | UpdateRunResponse403
    | UpdateRunResponse404
    | UpdateRunResponse413
    | UpdateRunResponse422
    | UpdateRunResponse503
    | None
):
    if response.status_code == 200:
        response_200 = RunOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = UpdateRunResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = UpdateRunResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = UpdateRunResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = UpdateRunResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = UpdateRunResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = UpdateRunResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    RunOut
    | UpdateRunResponse401
    | UpdateRunResponse403
    | UpdateRunResponse404
    | UpdateRunResponse413
    | UpdateRunResponse422
    | UpdateRunResponse503
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
    body: MetadataPatchIn,
) -> Response[
    RunOut
    | UpdateRunResponse401
    | UpdateRunResponse403
    | UpdateRunResponse404
    | UpdateRunResponse413
    | UpdateRunResponse422
    | UpdateRunResponse503
]:
    """Update Run

     Set or remove metadata keys (`null` removes one); keys not named are kept.

    Args:
        run_id (UUID):
        body (MetadataPatchIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[RunOut | UpdateRunResponse401 | UpdateRunResponse403 | UpdateRunResponse404 | UpdateRunResponse413 | UpdateRunResponse422 | UpdateRunResponse503]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    body: MetadataPatchIn,
) -> (
    RunOut
    | UpdateRunResponse401
    | UpdateRunResponse403
    | UpdateRunResponse404
    | UpdateRunResponse413
    | UpdateRunResponse422
    | UpdateRunResponse503
    | None
):
    """Update Run

     Set or remove metadata keys (`null` removes one); keys not named are kept.

    Args:
        run_id (UUID):
        body (MetadataPatchIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        RunOut | UpdateRunResponse401 | UpdateRunResponse403 | UpdateRunResponse404 | UpdateRunResponse413 | UpdateRunResponse422 | UpdateRunResponse503
    """

    return sync_detailed(
        run_id=run_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    body: MetadataPatchIn,
) -> Response[
    RunOut
    | UpdateRunResponse401
    | UpdateRunResponse403
    | UpdateRunResponse404
    | UpdateRunResponse413
    | UpdateRunResponse422
    | UpdateRunResponse503
]:
    """Update Run

     Set or remove metadata keys (`null` removes one); keys not named are kept.

    Args:
        run_id (UUID):
        body (MetadataPatchIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[RunOut | UpdateRunResponse401 | UpdateRunResponse403 | UpdateRunResponse404 | UpdateRunResponse413 | UpdateRunResponse422 | UpdateRunResponse503]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    body: MetadataPatchIn,
) -> (
    RunOut
    | UpdateRunResponse401
    | UpdateRunResponse403
    | UpdateRunResponse404
    | UpdateRunResponse413
    | UpdateRunResponse422
    | UpdateRunResponse503
    | None
):
    """Update Run

     Set or remove metadata keys (`null` removes one); keys not named are kept.

    Args:
        run_id (UUID):
        body (MetadataPatchIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        RunOut | UpdateRunResponse401 | UpdateRunResponse403 | UpdateRunResponse404 | UpdateRunResponse413 | UpdateRunResponse422 | UpdateRunResponse503
    """

    return (
        await asyncio_detailed(
            run_id=run_id,
            client=client,
            body=body,
        )
    ).parsed
