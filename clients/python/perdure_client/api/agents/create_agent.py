from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.agent_create import AgentCreate
from ...models.agent_out import AgentOut
from ...models.create_agent_response_401 import CreateAgentResponse401
from ...models.create_agent_response_403 import CreateAgentResponse403
from ...models.create_agent_response_409 import CreateAgentResponse409
from ...models.create_agent_response_413 import CreateAgentResponse413
from ...models.create_agent_response_422 import CreateAgentResponse422
from ...models.create_agent_response_503 import CreateAgentResponse503
from ...types import Response


def _get_kwargs(
    *,
    body: AgentCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/agents",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    AgentOut
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse409
    | CreateAgentResponse413
    | CreateAgentResponse422
    | CreateAgentResponse503
    | None
):
    if response.status_code == 201:
        response_201 = AgentOut.from_dict(response.json())

        return response_201

    if response.status_code == 401:
        response_401 = CreateAgentResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateAgentResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = CreateAgentResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = CreateAgentResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = CreateAgentResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CreateAgentResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    AgentOut
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse409
    | CreateAgentResponse413
    | CreateAgentResponse422
    | CreateAgentResponse503
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
    body: AgentCreate,
) -> Response[
    AgentOut
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse409
    | CreateAgentResponse413
    | CreateAgentResponse422
    | CreateAgentResponse503
]:
    """Create Agent

     Define an agent (version 1).

    Args:
        body (AgentCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentOut | CreateAgentResponse401 | CreateAgentResponse403 | CreateAgentResponse409 | CreateAgentResponse413 | CreateAgentResponse422 | CreateAgentResponse503]
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
    body: AgentCreate,
) -> (
    AgentOut
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse409
    | CreateAgentResponse413
    | CreateAgentResponse422
    | CreateAgentResponse503
    | None
):
    """Create Agent

     Define an agent (version 1).

    Args:
        body (AgentCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentOut | CreateAgentResponse401 | CreateAgentResponse403 | CreateAgentResponse409 | CreateAgentResponse413 | CreateAgentResponse422 | CreateAgentResponse503
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: AgentCreate,
) -> Response[
    AgentOut
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse409
    | CreateAgentResponse413
    | CreateAgentResponse422
    | CreateAgentResponse503
]:
    """Create Agent

     Define an agent (version 1).

    Args:
        body (AgentCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AgentOut | CreateAgentResponse401 | CreateAgentResponse403 | CreateAgentResponse409 | CreateAgentResponse413 | CreateAgentResponse422 | CreateAgentResponse503]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: AgentCreate,
) -> (
    AgentOut
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse409
    | CreateAgentResponse413
    | CreateAgentResponse422
    | CreateAgentResponse503
    | None
):
    """Create Agent

     Define an agent (version 1).

    Args:
        body (AgentCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AgentOut | CreateAgentResponse401 | CreateAgentResponse403 | CreateAgentResponse409 | CreateAgentResponse413 | CreateAgentResponse422 | CreateAgentResponse503
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
