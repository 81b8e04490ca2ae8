from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.agent_usage_out import AgentUsageOut
from ...models.get_agent_usage_response_401 import GetAgentUsageResponse401
from ...models.get_agent_usage_response_403 import GetAgentUsageResponse403
from ...models.get_agent_usage_response_404 import GetAgentUsageResponse404
from ...models.get_agent_usage_response_413 import GetAgentUsageResponse413
from ...models.get_agent_usage_response_422 import GetAgentUsageResponse422
from ...models.get_agent_usage_response_503 import GetAgentUsageResponse503
from ...types import Response


def _get_kwargs(
    agent_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/agents/{agent_id}/usage".format(
            agent_id=quote(str(agent_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    AgentUsageOut
    | GetAgentUsageResponse401
    | GetAgentUsageResponse403
    | GetAgentUsageResponse404
    | GetAgentUsageResponse413
    | GetAgentUsageResponse422
    | GetAgentUsageResponse503
    | None
):
    if response.status_code == 200:
        response_200 = AgentUsageOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = GetAgentUsageResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetAgentUsageResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = GetAgentUsageResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = GetAgentUsageResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = GetAgentUsageResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = GetAgentUsageResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    AgentUsageOut
    | GetAgentUsageResponse401
    | GetAgentUsageResponse403
    | GetAgentUsageResponse404
    | GetAgentUsageResponse413
    | GetAgentUsageResponse422
    | GetAgentUsageResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    agent_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    AgentUsageOut
    | GetAgentUsageResponse401
    | GetAgentUsageResponse403
    | GetAgentUsageResponse404
    | GetAgentUsageResponse413
    | GetAgentUsageResponse422
    | GetAgentUsageResponse503
]:
    """Get Agent Usage

     What all runs of the agent's sessions spent, under any of its versions.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentUsageOut | GetAgentUsageResponse401 | GetAgentUsageResponse403 | GetAgentUsageResponse404 | GetAgentUsageResponse413 | GetAgentUsageResponse422 | GetAgentUsageResponse503]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    agent_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    AgentUsageOut
    | GetAgentUsageResponse401
    | GetAgentUsageResponse403
    | GetAgentUsageResponse404
    | GetAgentUsageResponse413
    | GetAgentUsageResponse422
    | GetAgentUsageResponse503
    | None
):
    """Get Agent Usage

     What all runs of the agent's sessions spent, under any of its versions.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentUsageOut | GetAgentUsageResponse401 | GetAgentUsageResponse403 | GetAgentUsageResponse404 | GetAgentUsageResponse413 | GetAgentUsageResponse422 | GetAgentUsageResponse503
    """

    return sync_detailed(
        agent_id=agent_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    agent_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    AgentUsageOut
    | GetAgentUsageResponse401
    | GetAgentUsageResponse403
    | GetAgentUsageResponse404
    | GetAgentUsageResponse413
    | GetAgentUsageResponse422
    | GetAgentUsageResponse503
]:
    """Get Agent Usage

     What all runs of the agent's sessions spent, under any of its versions.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentUsageOut | GetAgentUsageResponse401 | GetAgentUsageResponse403 | GetAgentUsageResponse404 | GetAgentUsageResponse413 | GetAgentUsageResponse422 | GetAgentUsageResponse503]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    agent_id: str,
    *,
    client: AuthenticatedClient,
) -> (
    AgentUsageOut
    | GetAgentUsageResponse401
    | GetAgentUsageResponse403
    | GetAgentUsageResponse404
    | GetAgentUsageResponse413
    | GetAgentUsageResponse422
    | GetAgentUsageResponse503
    | None
):
    """Get Agent Usage

     What all runs of the agent's sessions spent, under any of its versions.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentUsageOut | GetAgentUsageResponse401 | GetAgentUsageResponse403 | GetAgentUsageResponse404 | GetAgentUsageResponse413 | GetAgentUsageResponse422 | GetAgentUsageResponse503
    """

    return (
        await asyncio_detailed(
            agent_id=agent_id,
            client=client,
        )
    ).parsed
