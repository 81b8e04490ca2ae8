from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_schedule_response_401 import CreateScheduleResponse401
from ...models.create_schedule_response_403 import CreateScheduleResponse403
from ...models.create_schedule_response_404 import CreateScheduleResponse404
from ...models.create_schedule_response_409 import CreateScheduleResponse409
from ...models.create_schedule_response_413 import CreateScheduleResponse413
from ...models.create_schedule_response_422 import CreateScheduleResponse422
from ...models.create_schedule_response_503 import CreateScheduleResponse503
from ...models.schedule_create import ScheduleCreate
from ...models.schedule_out import ScheduleOut
from ...types import Response


def _get_kwargs(
    *,
    body: ScheduleCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/schedules",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse404
    | CreateScheduleResponse409
    | CreateScheduleResponse413
    | CreateScheduleResponse422
    | CreateScheduleResponse503
    | ScheduleOut
    | None
):
    if response.status_code == 201:
        response_201 = ScheduleOut.from_dict(response.json())

        return response_201

    if response.status_code == 401:
        response_401 = CreateScheduleResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateScheduleResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = CreateScheduleResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = CreateScheduleResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = CreateScheduleResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = CreateScheduleResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CreateScheduleResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse404
    | CreateScheduleResponse409
    | CreateScheduleResponse413
    | CreateScheduleResponse422
    | CreateScheduleResponse503
    | ScheduleOut
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
    body: ScheduleCreate,
) -> Response[
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse404
    | CreateScheduleResponse409
    | CreateScheduleResponse413
    | CreateScheduleResponse422
    | CreateScheduleResponse503
    | ScheduleOut
]:
    """Create Schedule

     Start runs of an agent on a cron expression or an interval.

    Workers fire each due time once, however many run. The first due time is the next
    one after now (on the database's clock).

    Args:
        body (ScheduleCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateScheduleResponse401 | CreateScheduleResponse403 | CreateScheduleResponse404 | CreateScheduleResponse409 | CreateScheduleResponse413 | CreateScheduleResponse422 | CreateScheduleResponse503 | ScheduleOut]
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
    body: ScheduleCreate,
) -> (
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse404
    | CreateScheduleResponse409
    | CreateScheduleResponse413
    | CreateScheduleResponse422
    | CreateScheduleResponse503
    | ScheduleOut
    | None
):
    """Create Schedule

     Start runs of an agent on a cron expression or an interval.

    Workers fire each due time once, however many run. The first due time is the next
    one after now (on the database's clock).

    Args:
        body (ScheduleCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateScheduleResponse401 | CreateScheduleResponse403 | CreateScheduleResponse404 | CreateScheduleResponse409 | CreateScheduleResponse413 | CreateScheduleResponse422 | CreateScheduleResponse503 | ScheduleOut
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ScheduleCreate,
) -> Response[
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse404
    | CreateScheduleResponse409
    | CreateScheduleResponse413
    | CreateScheduleResponse422
    | CreateScheduleResponse503
    | ScheduleOut
]:
    """Create Schedule

     Start runs of an agent on a cron expression or an interval.

    Workers fire each due time once, however many run. The first due time is the next
    one after now (on the database's clock).

    Args:
        body (ScheduleCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateScheduleResponse401 | CreateScheduleResponse403 | CreateScheduleResponse404 | CreateScheduleResponse409 | CreateScheduleResponse413 | CreateScheduleResponse422 | CreateScheduleResponse503 | ScheduleOut]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ScheduleCreate,
) -> (
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse404
    | CreateScheduleResponse409
    | CreateScheduleResponse413
    | CreateScheduleResponse422
    | CreateScheduleResponse503
    | ScheduleOut
    | None
):
    """Create Schedule

     Start runs of an agent on a cron expression or an interval.

    Workers fire each due time once, however many run. The first due time is the next
    one after now (on the database's clock).

    Args:
        body (ScheduleCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateScheduleResponse401 | CreateScheduleResponse403 | CreateScheduleResponse404 | CreateScheduleResponse409 | CreateScheduleResponse413 | CreateScheduleResponse422 | CreateScheduleResponse503 | ScheduleOut
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
