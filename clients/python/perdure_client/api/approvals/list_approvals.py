from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.approval_page import ApprovalPage
from ...models.list_approvals_response_401 import ListApprovalsResponse401
from ...models.list_approvals_response_403 import ListApprovalsResponse403
from ...models.list_approvals_response_413 import ListApprovalsResponse413
from ...models.list_approvals_response_422 import ListApprovalsResponse422
from ...models.list_approvals_response_503 import ListApprovalsResponse503
from ...models.list_approvals_status_type_0 import ListApprovalsStatusType0
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    status: ListApprovalsStatusType0 | None | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    run_id: None | Unset | UUID = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: None | str | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, ListApprovalsStatusType0):
        json_status = status.value
    else:
        json_status = status
    params["status"] = json_status

    json_session_id: None | str | Unset
    if isinstance(session_id, Unset):
        json_session_id = UNSET
    else:
        json_session_id = session_id
    params["session_id"] = json_session_id

    json_run_id: None | str | Unset
    if isinstance(run_id, Unset):
        json_run_id = UNSET
    elif isinstance(run_id, UUID):
        json_run_id = str(run_id)
    else:
        json_run_id = run_id
    params["run_id"] = json_run_id

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/approvals",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ApprovalPage
    | ListApprovalsResponse401
    | ListApprovalsResponse403
    | ListApprovalsResponse413
    | ListApprovalsResponse422
    | ListApprovalsResponse503
    | None
):
    if response.status_code == 200:
        response_200 = ApprovalPage.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListApprovalsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListApprovalsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = ListApprovalsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ListApprovalsResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ListApprovalsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ApprovalPage
    | ListApprovalsResponse401
    | ListApprovalsResponse403
    | ListApprovalsResponse413
    | ListApprovalsResponse422
    | ListApprovalsResponse503
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
    status: ListApprovalsStatusType0 | None | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    run_id: None | Unset | UUID = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[
    ApprovalPage
    | ListApprovalsResponse401
    | ListApprovalsResponse403
    | ListApprovalsResponse413
    | ListApprovalsResponse422
    | ListApprovalsResponse503
]:
    """List Approvals

     Approvals oldest first: `?status=pending` is the queue a human works through.

    Args:
        status (ListApprovalsStatusType0 | None | Unset):
        session_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        run_id (None | Unset | UUID):
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApprovalPage | ListApprovalsResponse401 | ListApprovalsResponse403 | ListApprovalsResponse413 | ListApprovalsResponse422 | ListApprovalsResponse503]
    """

    kwargs = _get_kwargs(
        status=status,
        session_id=session_id,
        run_id=run_id,
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    status: ListApprovalsStatusType0 | None | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    run_id: None | Unset | UUID = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> (
    ApprovalPage
    | ListApprovalsResponse401
    | ListApprovalsResponse403
    | ListApprovalsResponse413
    | ListApprovalsResponse422
    | ListApprovalsResponse503
    | None
):
    """List Approvals

     Approvals oldest first: `?status=pending` is the queue a human works through.

    Args:
        status (ListApprovalsStatusType0 | None | Unset):
        session_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        run_id (None | Unset | UUID):
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApprovalPage | ListApprovalsResponse401 | ListApprovalsResponse403 | ListApprovalsResponse413 | ListApprovalsResponse422 | ListApprovalsResponse503
    """

    return sync_detailed(
        client=client,
        status=status,
        session_id=session_id,
        run_id=run_id,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    status: ListApprovalsStatusType0 | None | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    run_id: None | Unset | UUID = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[
    ApprovalPage
    | ListApprovalsResponse401
    | ListApprovalsResponse403
    | ListApprovalsResponse413
    | ListApprovalsResponse422
    | ListApprovalsResponse503
]:
    """List Approvals

     Approvals oldest first: `?status=pending` is the queue a human works through.

    Args:
        status (ListApprovalsStatusType0 | None | Unset):
        session_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        run_id (None | Unset | UUID):
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ApprovalPage | ListApprovalsResponse401 | ListApprovalsResponse403 | ListApprovalsResponse413 | ListApprovalsResponse422 | ListApprovalsResponse503]
    """

    kwargs = _get_kwargs(
        status=status,
        session_id=session_id,
        run_id=run_id,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    status: ListApprovalsStatusType0 | None | Unset = UNSET,
    session_id: None | str | Unset = UNSET,
    run_id: None | Unset | UUID = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 50,
) -> (
    ApprovalPage
    | ListApprovalsResponse401
    | ListApprovalsResponse403
    | ListApprovalsResponse413
    | ListApprovalsResponse422
    | ListApprovalsResponse503
    | None
):
    """List Approvals

     Approvals oldest first: `?status=pending` is the queue a human works through.

    Args:
        status (ListApprovalsStatusType0 | None | Unset):
        session_id (None | str | Unset): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        run_id (None | Unset | UUID):
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ApprovalPage | ListApprovalsResponse401 | ListApprovalsResponse403 | ListApprovalsResponse413 | ListApprovalsResponse422 | ListApprovalsResponse503
    """

    return (
        await asyncio_detailed(
            client=client,
            status=status,
            session_id=session_id,
            run_id=run_id,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
