from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.approval_out import ApprovalOut
from ...models.decide_approval_response_401 import DecideApprovalResponse401
from ...models.decide_approval_response_403 import DecideApprovalResponse403
from ...models.decide_approval_response_404 import DecideApprovalResponse404
from ...models.decide_approval_response_409 import DecideApprovalResponse409
from ...models.decide_approval_response_413 import DecideApprovalResponse413
from ...models.decide_approval_response_422 import DecideApprovalResponse422
from ...models.decide_approval_response_503 import DecideApprovalResponse503
from ...models.decision_in import DecisionIn
from ...types import Response


def _get_kwargs(
    approval_id: UUID,
    *,
    body: DecisionIn,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/approvals/{approval_id}/decision".format(
            approval_id=quote(str(approval_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ApprovalOut
    | DecideApprovalResponse401
    | DecideApprovalResponse403
    | DecideApprovalResponse404
    | DecideApprovalResponse409
    | DecideApprovalResponse413
    | DecideApprovalResponse422
    | DecideApprovalResponse503
    | None
):
    if response.status_code == 200:
        response_200 = ApprovalOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = DecideApprovalResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = DecideApprovalResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = DecideApprovalResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = DecideApprovalResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = DecideApprovalResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = DecideApprovalResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = DecideApprovalResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ApprovalOut
    | DecideApprovalResponse401
    | DecideApprovalResponse403
    | DecideApprovalResponse404
    | DecideApprovalResponse409
    | DecideApprovalResponse413
    | DecideApprovalResponse422
    | DecideApprovalResponse503
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
    body: DecisionIn,
) -> Response[
    ApprovalOut
    | DecideApprovalResponse401
    | DecideApprovalResponse403
    | DecideApprovalResponse404
    | DecideApprovalResponse409
    | DecideApprovalResponse413
    | DecideApprovalResponse422
    | DecideApprovalResponse503
]:
    """Decide Approval

     Approve or reject a gated call, optionally editing its arguments.

    The decision is durable when this answers. It never runs the tool: when the batch's
    last approval is decided the run is queued and a worker continues it.

    Args:
        approval_id (UUID):
        body (DecisionIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApprovalOut | DecideApprovalResponse401 | DecideApprovalResponse403 | DecideApprovalResponse404 | DecideApprovalResponse409 | DecideApprovalResponse413 | DecideApprovalResponse422 | DecideApprovalResponse503]
    """

    kwargs = _get_kwargs(
        approval_id=approval_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    approval_id: UUID,
    *,
    client: AuthenticatedClient,
    body: DecisionIn,
) -> (
    ApprovalOut
    | DecideApprovalResponse401
    | DecideApprovalResponse403
    | DecideApprovalResponse404
    | DecideApprovalResponse409
    | DecideApprovalResponse413
    | DecideApprovalResponse422
    | DecideApprovalResponse503
    | None
):
    """Decide Approval

     Approve or reject a gated call, optionally editing its arguments.

    The decision is durable when this answers. It never runs the tool: when the batch's
    last approval is decided the run is queued and a worker continues it.

    Args:
        approval_id (UUID):
        body (DecisionIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApprovalOut | DecideApprovalResponse401 | DecideApprovalResponse403 | DecideApprovalResponse404 | DecideApprovalResponse409 | DecideApprovalResponse413 | DecideApprovalResponse422 | DecideApprovalResponse503
    """

    return sync_detailed(
        approval_id=approval_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    approval_id: UUID,
    *,
    client: AuthenticatedClient,
    body: DecisionIn,
) -> Response[
    ApprovalOut
    | DecideApprovalResponse401
    | DecideApprovalResponse403
    | DecideApprovalResponse404
    | DecideApprovalResponse409
    | DecideApprovalResponse413
    | DecideApprovalResponse422
    | DecideApprovalResponse503
]:
    """Decide Approval

     Approve or reject a gated call, optionally editing its arguments.

    The decision is durable when this answers. It never runs the tool: when the batch's
    last approval is decided the run is queued and a worker continues it.

    Args:
        approval_id (UUID):
        body (DecisionIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApprovalOut | DecideApprovalResponse401 | DecideApprovalResponse403 | DecideApprovalResponse404 | DecideApprovalResponse409 | DecideApprovalResponse413 | DecideApprovalResponse422 | DecideApprovalResponse503]
    """

    kwargs = _get_kwargs(
        approval_id=approval_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    approval_id: UUID,
    *,
    client: AuthenticatedClient,
    body: DecisionIn,
) -> (
    ApprovalOut
    | DecideApprovalResponse401
    | DecideApprovalResponse403
    | DecideApprovalResponse404
    | DecideApprovalResponse409
    | DecideApprovalResponse413
    | DecideApprovalResponse422
    | DecideApprovalResponse503
    | None
):
    """Decide Approval

     Approve or reject a gated call, optionally editing its arguments.

    The decision is durable when this answers. It never runs the tool: when the batch's
    last approval is decided the run is queued and a worker continues it.

    Args:
        approval_id (UUID):
        body (DecisionIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApprovalOut | DecideApprovalResponse401 | DecideApprovalResponse403 | DecideApprovalResponse404 | DecideApprovalResponse409 | DecideApprovalResponse413 | DecideApprovalResponse422 | DecideApprovalResponse503
    """

    return (
        await asyncio_detailed(
            approval_id=approval_id,
            client=client,
            body=body,
        )
    ).parsed
