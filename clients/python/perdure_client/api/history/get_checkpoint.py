from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.checkpoint_detail import CheckpointDetail
from ...models.get_checkpoint_response_401 import GetCheckpointResponse401
from ...models.get_checkpoint_response_403 import GetCheckpointResponse403
from ...models.get_checkpoint_response_404 import GetCheckpointResponse404
from ...models.get_checkpoint_response_413 import GetCheckpointResponse413
from ...models.get_checkpoint_response_422 import GetCheckpointResponse422
from ...models.get_checkpoint_response_503 import GetCheckpointResponse503
from ...types import Response


def _get_kwargs(
    session_id: str,
    seq: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/sessions/{session_id}/checkpoints/{seq}".format(
            session_id=quote(str(session_id), safe=""),
            seq=quote(str(seq), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CheckpointDetail
    | GetCheckpointResponse401
    | GetCheckpointResponse403
    | GetCheckpointResponse404
    | GetCheckpointResponse413
    | GetCheckpointResponse422
    | GetCheckpointResponse503
    | None
):
    if response.status_code == 200:
        response_200 = CheckpointDetail.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = GetCheckpointResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetCheckpointResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = GetCheckpointResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = GetCheckpointResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = GetCheckpointResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = GetCheckpointResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CheckpointDetail
    | GetCheckpointResponse401
    | GetCheckpointResponse403
    | GetCheckpointResponse404
    | GetCheckpointResponse413
    | GetCheckpointResponse422
    | GetCheckpointResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    session_id: str,
    seq: int,
    *,
    client: AuthenticatedClient,
) -> Response[
    CheckpointDetail
    | GetCheckpointResponse401
    | GetCheckpointResponse403
    | GetCheckpointResponse404
    | GetCheckpointResponse413
    | GetCheckpointResponse422
    | GetCheckpointResponse503
]:
    """Get Checkpoint

     The transcript and state exactly as they were at that save.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        seq (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckpointDetail | GetCheckpointResponse401 | GetCheckpointResponse403 | GetCheckpointResponse404 | GetCheckpointResponse413 | GetCheckpointResponse422 | GetCheckpointResponse503]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        seq=seq,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    seq: int,
    *,
    client: AuthenticatedClient,
) -> (
    CheckpointDetail
    | GetCheckpointResponse401
    | GetCheckpointResponse403
    | GetCheckpointResponse404
    | GetCheckpointResponse413
    | GetCheckpointResponse422
    | GetCheckpointResponse503
    | None
):
    """Get Checkpoint

     The transcript and state exactly as they were at that save.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        seq (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckpointDetail | GetCheckpointResponse401 | GetCheckpointResponse403 | GetCheckpointResponse404 | GetCheckpointResponse413 | GetCheckpointResponse422 | GetCheckpointResponse503
    """

    return sync_detailed(
        session_id=session_id,
        seq=seq,
        client=client,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    seq: int,
    *,
    client: AuthenticatedClient,
) -> Response[
    CheckpointDetail
    | GetCheckpointResponse401
    | GetCheckpointResponse403
    | GetCheckpointResponse404
    | GetCheckpointResponse413
    | GetCheckpointResponse422
    | GetCheckpointResponse503
]:
    """Get Checkpoint

     The transcript and state exactly as they were at that save.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        seq (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckpointDetail | GetCheckpointResponse401 | GetCheckpointResponse403 | GetCheckpointResponse404 | GetCheckpointResponse413 | GetCheckpointResponse422 | GetCheckpointResponse503]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        seq=seq,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    seq: int,
    *,
    client: AuthenticatedClient,
) -> (
    CheckpointDetail
    | GetCheckpointResponse401
    | GetCheckpointResponse403
    | GetCheckpointResponse404
    | GetCheckpointResponse413
    | GetCheckpointResponse422
    | GetCheckpointResponse503
    | None
):
    """Get Checkpoint

     The transcript and state exactly as they were at that save.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        seq (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckpointDetail | GetCheckpointResponse401 | GetCheckpointResponse403 | GetCheckpointResponse404 | GetCheckpointResponse413 | GetCheckpointResponse422 | GetCheckpointResponse503
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            seq=seq,
            client=client,
        )
    ).parsed
