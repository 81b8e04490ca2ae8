from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.metadata_patch_in import MetadataPatchIn
from ...models.session_out import SessionOut
from ...models.update_session_response_401 import UpdateSessionResponse401
from ...models.update_session_response_403 import UpdateSessionResponse403
from ...models.update_session_response_404 import UpdateSessionResponse404
from ...models.update_session_response_413 import UpdateSessionResponse413
from ...models.update_session_response_422 import UpdateSessionResponse422
from ...models.update_session_response_503 import UpdateSessionResponse503
from ...types import Response


def _get_kwargs(
    session_id: str,
    *,
    body: MetadataPatchIn,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/sessions/{session_id}".format(
            session_id=quote(str(session_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    SessionOut
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse404
    | UpdateSessionResponse413
    | UpdateSessionResponse422
    | UpdateSessionResponse503
    | None
):
    if response.status_code == 200:
        response_200 = SessionOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = UpdateSessionResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = UpdateSessionResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = UpdateSessionResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = UpdateSessionResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = UpdateSessionResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = UpdateSessionResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    SessionOut
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse404
    | UpdateSessionResponse413
    | UpdateSessionResponse422
    | UpdateSessionResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: MetadataPatchIn,
) -> Response[
    SessionOut
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse404
    | UpdateSessionResponse413
    | UpdateSessionResponse422
    | UpdateSessionResponse503
]:
    """Update Session

     Set or remove metadata keys (`null` removes one); keys not named are kept.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (MetadataPatchIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[SessionOut | UpdateSessionResponse401 | UpdateSessionResponse403 | UpdateSessionResponse404 | UpdateSessionResponse413 | UpdateSessionResponse422 | UpdateSessionResponse503]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: MetadataPatchIn,
) -> (
    SessionOut
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse404
    | UpdateSessionResponse413
    | UpdateSessionResponse422
    | UpdateSessionResponse503
    | None
):
    """Update Session

     Set or remove metadata keys (`null` removes one); keys not named are kept.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (MetadataPatchIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        SessionOut | UpdateSessionResponse401 | UpdateSessionResponse403 | UpdateSessionResponse404 | UpdateSessionResponse413 | UpdateSessionResponse422 | UpdateSessionResponse503
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: MetadataPatchIn,
) -> Response[
    SessionOut
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse404
    | UpdateSessionResponse413
    | UpdateSessionResponse422
    | UpdateSessionResponse503
]:
    """Update Session

     Set or remove metadata keys (`null` removes one); keys not named are kept.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (MetadataPatchIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[SessionOut | UpdateSessionResponse401 | UpdateSessionResponse403 | UpdateSessionResponse404 | UpdateSessionResponse413 | UpdateSessionResponse422 | UpdateSessionResponse503]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: MetadataPatchIn,
) -> (
    SessionOut
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse404
    | UpdateSessionResponse413
    | UpdateSessionResponse422
    | UpdateSessionResponse503
    | None
):
    """Update Session

     Set or remove metadata keys (`null` removes one); keys not named are kept.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        body (MetadataPatchIn):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        SessionOut | UpdateSessionResponse401 | UpdateSessionResponse403 | UpdateSessionResponse404 | UpdateSessionResponse413 | UpdateSessionResponse422 | UpdateSessionResponse503
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            body=body,
        )
    ).parsed
