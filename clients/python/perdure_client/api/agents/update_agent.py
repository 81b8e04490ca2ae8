from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.agent_definition import AgentDefinition
from ...models.agent_out import AgentOut
from ...models.update_agent_response_401 import UpdateAgentResponse401
from ...models.update_agent_response_403 import UpdateAgentResponse403
from ...models.update_agent_response_404 import UpdateAgentResponse404
from ...models.update_agent_response_413 import UpdateAgentResponse413
from ...models.update_agent_response_422 import UpdateAgentResponse422
from ...models.update_agent_response_503 import UpdateAgentResponse503
from ...types import Response


def _get_kwargs(
    agent_id: str,
    *,
    body: AgentDefinition,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/agents/{agent_id}".format(
            agent_id=quote(str(agent_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    AgentOut
    | UpdateAgentResponse401
    | UpdateAgentResponse403
    | UpdateAgentResponse404
    | UpdateAgentResponse413
    | UpdateAgentResponse422
    | UpdateAgentResponse503
    | None
):
    if response.status_code == 200:
        response_200 = AgentOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = UpdateAgentResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = UpdateAgentResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = UpdateAgentResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = UpdateAgentResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = UpdateAgentResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = UpdateAgentResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    AgentOut
    | UpdateAgentResponse401
    | UpdateAgentResponse403
    | UpdateAgentResponse404
    | UpdateAgentResponse413
    | UpdateAgentResponse422
    | UpdateAgentResponse503
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
    body: AgentDefinition,
) -> Response[
    AgentOut
    | UpdateAgentResponse401
    | UpdateAgentResponse403
    | UpdateAgentResponse404
    | UpdateAgentResponse413
    | UpdateAgentResponse422
    | UpdateAgentResponse503
]:
    """Update Agent

     Make a new version. Sessions already started keep the version they started with.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (AgentDefinition):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentOut | UpdateAgentResponse401 | UpdateAgentResponse403 | UpdateAgentResponse404 | UpdateAgentResponse413 | UpdateAgentResponse422 | UpdateAgentResponse503]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    agent_id: str,
    *,
    client: AuthenticatedClient,
    body: AgentDefinition,
) -> (
    AgentOut
    | UpdateAgentResponse401
    | UpdateAgentResponse403
    | UpdateAgentResponse404
    | UpdateAgentResponse413
    | UpdateAgentResponse422
    | UpdateAgentResponse503
    | None
):
    """Update Agent

     Make a new version. Sessions already started keep the version they started with.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (AgentDefinition):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentOut | UpdateAgentResponse401 | UpdateAgentResponse403 | UpdateAgentResponse404 | UpdateAgentResponse413 | UpdateAgentResponse422 | UpdateAgentResponse503
    """

    return sync_detailed(
        agent_id=agent_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    agent_id: str,
    *,
    client: AuthenticatedClient,
    body: AgentDefinition,
) -> Response[
    AgentOut
    | UpdateAgentResponse401
    | UpdateAgentResponse403
    | UpdateAgentResponse404
    | UpdateAgentResponse413
    | UpdateAgentResponse422
    | UpdateAgentResponse503
]:
    """Update Agent

     Make a new version. Sessions already started keep the version they started with.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (AgentDefinition):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentOut | UpdateAgentResponse401 | UpdateAgentResponse403 | UpdateAgentResponse404 | UpdateAgentResponse413 | UpdateAgentResponse422 | UpdateAgentResponse503]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    agent_id: str,
    *,
    client: AuthenticatedClient,
    body: AgentDefinition,
) -> (
    AgentOut
    | UpdateAgentResponse401
    | UpdateAgentResponse403
    | UpdateAgentResponse404
    | UpdateAgentResponse413
    | UpdateAgentResponse422
    | UpdateAgentResponse503
    | None
):
    """Update Agent

     Make a new version. Sessions already started keep the version they started with.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (AgentDefinition):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentOut | UpdateAgentResponse401 | UpdateAgentResponse403 | UpdateAgentResponse404 | UpdateAgentResponse413 | UpdateAgentResponse422 | UpdateAgentResponse503
    """

    return (
        await asyncio_detailed(
            agent_id=agent_id,
            client=client,
            body=body,
        )
    ).parsed
