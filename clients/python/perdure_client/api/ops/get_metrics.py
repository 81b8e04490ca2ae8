from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_metrics_response_401 import GetMetricsResponse401
from ...models.get_metrics_response_403 import GetMetricsResponse403
from ...models.get_metrics_response_413 import GetMetricsResponse413
from ...models.get_metrics_response_422 import GetMetricsResponse422
from ...models.get_metrics_response_503 import GetMetricsResponse503
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/metrics",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    GetMetricsResponse401
    | GetMetricsResponse403
    | GetMetricsResponse413
    | GetMetricsResponse422
    | GetMetricsResponse503
    | str
    | None
):
    if response.status_code == 200:
        response_200 = response.text
        return response_200

    if response.status_code == 401:
        response_401 = GetMetricsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetMetricsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = GetMetricsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = GetMetricsResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = GetMetricsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    GetMetricsResponse401
    | GetMetricsResponse403
    | GetMetricsResponse413
    | GetMetricsResponse422
    | GetMetricsResponse503
    | str
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
    GetMetricsResponse401
    | GetMetricsResponse403
    | GetMetricsResponse413
    | GetMetricsResponse422
    | GetMetricsResponse503
    | str
]:
    """Get Metrics

     The fleet's metrics in Prometheus text format (scope `metrics:read`).

    Runs by status and pending approvals are read from the database at each scrape; the
    rest are this process's counters (every process's, under `PROMETHEUS_MULTIPROC_DIR`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetMetricsResponse401 | GetMetricsResponse403 | GetMetricsResponse413 | GetMetricsResponse422 | GetMetricsResponse503 | str]
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
    GetMetricsResponse401
    | GetMetricsResponse403
    | GetMetricsResponse413
    | GetMetricsResponse422
    | GetMetricsResponse503
    | str
    | None
):
    """Get Metrics

     The fleet's metrics in Prometheus text format (scope `metrics:read`).

    Runs by status and pending approvals are read from the database at each scrape; the
    rest are this process's counters (every process's, under `PROMETHEUS_MULTIPROC_DIR`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetMetricsResponse401 | GetMetricsResponse403 | GetMetricsResponse413 | GetMetricsResponse422 | GetMetricsResponse503 | str
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[
    GetMetricsResponse401
    | GetMetricsResponse403
    | GetMetricsResponse413
    | GetMetricsResponse422
    | GetMetricsResponse503
    | str
]:
    """Get Metrics

     The fleet's metrics in Prometheus text format (scope `metrics:read`).

    Runs by status and pending approvals are read from the database at each scrape; the
    rest are this process's counters (every process's, under `PROMETHEUS_MULTIPROC_DIR`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetMetricsResponse401 | GetMetricsResponse403 | GetMetricsResponse413 | GetMetricsResponse422 | GetMetricsResponse503 | str]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> (
    GetMetricsResponse401
    | GetMetricsResponse403
    | GetMetricsResponse413
    | GetMetricsResponse422
    | GetMetricsResponse503
    | str
    | None
):
    """Get Metrics

     The fleet's metrics in Prometheus text format (scope `metrics:read`).

    Runs by status and pending approvals are read from the database at each scrape; the
    rest are this process's counters (every process's, under `PROMETHEUS_MULTIPROC_DIR`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetMetricsResponse401 | GetMetricsResponse403 | GetMetricsResponse413 | GetMetricsResponse422 | GetMetricsResponse503 | str
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
