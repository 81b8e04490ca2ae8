from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.post_tool_results_response_401 import PostToolResultsResponse401
from ...models.post_tool_results_response_403 import PostToolResultsResponse403
from ...models.post_tool_results_response_404 import PostToolResultsResponse404
from ...models.post_tool_results_response_409 import PostToolResultsResponse409
from ...models.post_tool_results_response_413 import PostToolResultsResponse413
from ...models.post_tool_results_response_422 import PostToolResultsResponse422
from ...models.post_tool_results_response_503 import PostToolResultsResponse503
from ...models.run_out import RunOut
from ...models.tool_results_in import ToolResultsIn
from ...types import Response


def _get_kwargs(
    run_id: UUID,
    *,
    body: ToolResultsIn,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/runs/{run_id}/tool-results".format(
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
    PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse404
    | PostToolResultsResponse409
    | PostToolResultsResponse413
    | PostToolResultsResponse422
    | PostToolResultsResponse503
    | RunOut
    | None
):
    if response.status_code == 200:
        response_200 = RunOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = PostToolResultsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = PostToolResultsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = PostToolResultsResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = PostToolResultsResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = PostToolResultsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = PostToolResultsResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = PostToolResultsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse404
    | PostToolResultsResponse409
    | PostToolResultsResponse413
    | PostToolResultsResponse422
    | PostToolResultsResponse503
    | RunOut
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
    body: ToolResultsIn,
) -> Response[
    PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse404
    | PostToolResultsResponse409
    | PostToolResultsResponse413
    | PostToolResultsResponse422
    | PostToolResultsResponse503
    | RunOut
]:
    """Post Tool Results

     Outputs of client tools, for some or all of the calls the run awaits.

    Each call takes one output (a second is 409). Once every awaited call has its output
    the run is queued and a worker continues it.

    Args:
        run_id (UUID):
        body (ToolResultsIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PostToolResultsResponse401 | PostToolResultsResponse403 | PostToolResultsResponse404 | PostToolResultsResponse409 | PostToolResultsResponse413 | PostToolResultsResponse422 | PostToolResultsResponse503 | RunOut]
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
    body: ToolResultsIn,
) -> (
    PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse404
    | PostToolResultsResponse409
    | PostToolResultsResponse413
    | PostToolResultsResponse422
    | PostToolResultsResponse503
    | RunOut
    | None
):
    """Post Tool Results

     Outputs of client tools, for some or all of the calls the run awaits.

    Each call takes one output (a second is 409). Once every awaited call has its output
    the run is queued and a worker continues it.

    Args:
        run_id (UUID):
        body (ToolResultsIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PostToolResultsResponse401 | PostToolResultsResponse403 | PostToolResultsResponse404 | PostToolResultsResponse409 | PostToolResultsResponse413 | PostToolResultsResponse422 | PostToolResultsResponse503 | RunOut
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
    body: ToolResultsIn,
) -> Response[
    PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse404
    | PostToolResultsResponse409
    | PostToolResultsResponse413
    | PostToolResultsResponse422
    | PostToolResultsResponse503
    | RunOut
]:
    """Post Tool Results

     Outputs of client tools, for some or all of the calls the run awaits.

    Each call takes one output (a second is 409). Once every awaited call has its output
    the run is queued and a worker continues it.

    Args:
        run_id (UUID):
        body (ToolResultsIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PostToolResultsResponse401 | PostToolResultsResponse403 | PostToolResultsResponse404 | PostToolResultsResponse409 | PostToolResultsResponse413 | PostToolResultsResponse422 | PostToolResultsResponse503 | RunOut]
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
    body: ToolResultsIn,
) -> (
    PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse404
    | PostToolResultsResponse409
    | PostToolResultsResponse413
    | PostToolResultsResponse422
    | PostToolResultsResponse503
    | RunOut
    | None
):
    """Post Tool Results

     Outputs of client tools, for some or all of the calls the run awaits.

    Each call takes one output (a second is 409). Once every awaited call has its output
    the run is queued and a worker continues it.

    Args:
        run_id (UUID):
        body (ToolResultsIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PostToolResultsResponse401 | PostToolResultsResponse403 | PostToolResultsResponse404 | PostToolResultsResponse409 | PostToolResultsResponse413 | PostToolResultsResponse422 | PostToolResultsResponse503 | RunOut
    """

    return (
        await asyncio_detailed(
            run_id=run_id,
            client=client,
            body=body,
        )
    ).parsed
