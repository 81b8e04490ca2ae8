from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.agent_out import AgentOut
from ...models.get_agent_response_401 import GetAgentResponse401
from ...models.get_agent_response_403 import GetAgentResponse403
from ...models.get_agent_response_404 import GetAgentResponse404
from ...models.get_agent_response_413 import GetAgentResponse413
from ...models.get_agent_response_422 import GetAgentResponse422
from ...models.get_agent_response_503 import GetAgentResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    agent_id: str,
    *,
    version: int | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_version: int | None | Unset
    if isinstance(version, Unset):
        json_version = UNSET
    else:
        json_version = version
    params["version"] = json_version

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/agents/{agent_id}".format(
            agent_id=quote(str(agent_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    AgentOut
    | GetAgentResponse401
    | GetAgentResponse403
    | GetAgentResponse404
    | GetAgentResponse413
    | GetAgentResponse422
    | GetAgentResponse503
    | None
):
    if response.status_code == 200:
        response_200 = AgentOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = GetAgentResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetAgentResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = GetAgentResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = GetAgentResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = GetAgentResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = GetAgentResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    AgentOut
    | GetAgentResponse401
    | GetAgentResponse403
    | GetAgentResponse404
    | GetAgentResponse413
    | GetAgentResponse422
    | GetAgentResponse503
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
    version: int | None | Unset = UNSET,
) -> Response[
    AgentOut
    | GetAgentResponse401
    | GetAgentResponse403
    | GetAgentResponse404
    | GetAgentResponse413
    | GetAgentResponse422
    | GetAgentResponse503
]:
    """Get Agent

     The latest version of an agent, or the one asked for.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        version (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentOut | GetAgentResponse401 | GetAgentResponse403 | GetAgentResponse404 | GetAgentResponse413 | GetAgentResponse422 | GetAgentResponse503]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        version=version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    agent_id: str,
    *,
    client: AuthenticatedClient,
    version: int | None | Unset = UNSET,
) -> (
    AgentOut
    | GetAgentResponse401
    | GetAgentResponse403
    | GetAgentResponse404
    | GetAgentResponse413
    | GetAgentResponse422
    | GetAgentResponse503
    | None
):
    """Get Agent

     The latest version of an agent, or the one asked for.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        version (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentOut | GetAgentResponse401 | GetAgentResponse403 | GetAgentResponse404 | GetAgentResponse413 | GetAgentResponse422 | GetAgentResponse503
    """

    return sync_detailed(
        agent_id=agent_id,
        client=client,
        version=version,
    ).parsed


async def asyncio_detailed(
    agent_id: str,
    *,
    client: AuthenticatedClient,
    version: int | None | Unset = UNSET,
) -> Response[
    AgentOut
    | GetAgentResponse401
    | GetAgentResponse403
    | GetAgentResponse404
    | GetAgentResponse413
    | GetAgentResponse422
    | GetAgentResponse503
]:
    """Get Agent

     The latest version of an agent, or the one asked for.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        version (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentOut | GetAgentResponse401 | GetAgentResponse403 | GetAgentResponse404 | GetAgentResponse413 | GetAgentResponse422 | GetAgentResponse503]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        version=version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    agent_id: str,
    *,
    client: AuthenticatedClient,
    version: int | None | Unset = UNSET,
) -> (
    AgentOut
    | GetAgentResponse401
    | GetAgentResponse403
    | GetAgentResponse404
    | GetAgentResponse413
    | GetAgentResponse422
    | GetAgentResponse503
    | None
):
    """Get Agent

     The latest version of an agent, or the one asked for.

    Args:
        agent_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        version (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentOut | GetAgentResponse401 | GetAgentResponse403 | GetAgentResponse404 | GetAgentResponse413 | GetAgentResponse422 | GetAgentResponse503
    """

    return (
        await asyncio_detailed(
            agent_id=agent_id,
            client=client,
            version=version,
        )
    ).parsed
