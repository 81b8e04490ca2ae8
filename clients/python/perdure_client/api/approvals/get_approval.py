from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.approval_out import ApprovalOut
from ...models.get_approval_response_401 import GetApprovalResponse401
from ...models.get_approval_response_403 import GetApprovalResponse403
from ...models.get_approval_response_404 import GetApprovalResponse404
from ...models.get_approval_response_413 import GetApprovalResponse413
from ...models.get_approval_response_422 import GetApprovalResponse422
from ...models.get_approval_response_503 import GetApprovalResponse503
from ...types import Response


def _get_kwargs(
    approval_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/approvals/{approval_id}".format(
            approval_id=quote(str(approval_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ApprovalOut
    | GetApprovalResponse401
    | GetApprovalResponse403
    | GetApprovalResponse404
    | GetApprovalResponse413
    | GetApprovalResponse422
    | GetApprovalResponse503
    | None
):
    if response.status_code == 200:
        response_200 = ApprovalOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = GetApprovalResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetApprovalResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = GetApprovalResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = GetApprovalResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = GetApprovalResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = GetApprovalResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ApprovalOut
    | GetApprovalResponse401
    | GetApprovalResponse403
    | GetApprovalResponse404
    | GetApprovalResponse413
    | GetApprovalResponse422
    | GetApprovalResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    approval_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[
    ApprovalOut
    | GetApprovalResponse401
    | GetApprovalResponse403
    | GetApprovalResponse404
    | GetApprovalResponse413
    | GetApprovalResponse422
    | GetApprovalResponse503
]:
    """Get Approval

     The gated call (tool, arguments), its run and session, and when it was asked.

    Args:
        approval_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApprovalOut | GetApprovalResponse401 | GetApprovalResponse403 | GetApprovalResponse404 | GetApprovalResponse413 | GetApprovalResponse422 | GetApprovalResponse503]
    """

    kwargs = _get_kwargs(
        approval_id=approval_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    approval_id: UUID,
    *,
    client: AuthenticatedClient,
) -> (
    ApprovalOut
    | GetApprovalResponse401
    | GetApprovalResponse403
    | GetApprovalResponse404
    | GetApprovalResponse413
    | GetApprovalResponse422
    | GetApprovalResponse503
    | None
):
    """Get Approval

     The gated call (tool, arguments), its run and session, and when it was asked.

    Args:
        approval_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApprovalOut | GetApprovalResponse401 | GetApprovalResponse403 | GetApprovalResponse404 | GetApprovalResponse413 | GetApprovalResponse422 | GetApprovalResponse503
    """

    return sync_detailed(
        approval_id=approval_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    approval_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[
    ApprovalOut
    | GetApprovalResponse401
    | GetApprovalResponse403
    | GetApprovalResponse404
    | GetApprovalResponse413
    | GetApprovalResponse422
    | GetApprovalResponse503
]:
    """Get Approval

     The gated call (tool, arguments), its run and session, and when it was asked.

    Args:
        approval_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApprovalOut | GetApprovalResponse401 | GetApprovalResponse403 | GetApprovalResponse404 | GetApprovalResponse413 | GetApprovalResponse422 | GetApprovalResponse503]
    """

    kwargs = _get_kwargs(
        approval_id=approval_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    approval_id: UUID,
    *,
    client: AuthenticatedClient,
) -> (
    ApprovalOut
    | GetApprovalResponse401
    | GetApprovalResponse403
    | GetApprovalResponse404
    | GetApprovalResponse413
    | GetApprovalResponse422
    | GetApprovalResponse503
    | None
):
    """Get Approval

     The gated call (tool, arguments), its run and session, and when it was asked.

    Args:
        approval_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApprovalOut | GetApprovalResponse401 | GetApprovalResponse403 | GetApprovalResponse404 | GetApprovalResponse413 | GetApprovalResponse422 | GetApprovalResponse503
    """

    return (
        await asyncio_detailed(
            approval_id=approval_id,
            client=client,
        )
    ).parsed
