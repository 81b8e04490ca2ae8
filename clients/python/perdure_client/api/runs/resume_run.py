from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.resume_run_response_401 import ResumeRunResponse401
from ...models.resume_run_response_403 import ResumeRunResponse403
from ...models.resume_run_response_404 import ResumeRunResponse404
from ...models.resume_run_response_409 import ResumeRunResponse409
from ...models.resume_run_response_413 import ResumeRunResponse413
from ...models.resume_run_response_422 import ResumeRunResponse422
from ...models.resume_run_response_503 import ResumeRunResponse503
from ...models.run_out import RunOut
from ...types import Response


def _get_kwargs(
    run_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/runs/{run_id}/resume".format(
            run_id=quote(str(run_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ResumeRunResponse401
    | ResumeRunResponse403
    | ResumeRunResponse404
    | ResumeRunResponse409
    | ResumeRunResponse413
    | ResumeRunResponse422
    | ResumeRunResponse503
    | RunOut
    | None
):
    if response.status_code == 200:
        response_200 = RunOut.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ResumeRunResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ResumeRunResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ResumeRunResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ResumeRunResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ResumeRunResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ResumeRunResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ResumeRunResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ResumeRunResponse401
    | ResumeRunResponse403
    | ResumeRunResponse404
    | ResumeRunResponse409
    | ResumeRunResponse413
    | ResumeRunResponse422
    | ResumeRunResponse503
    | RunOut
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[
    ResumeRunResponse401
    | ResumeRunResponse403
    | ResumeRunResponse404
    | ResumeRunResponse409
    | ResumeRunResponse413
    | ResumeRunResponse422
    | ResumeRunResponse503
    | RunOut
]:
    """Resume Run

     Queue a failed run again. It continues from its checkpoint with what is left of its
    step budget; completed steps are not re-run.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ResumeRunResponse401 | ResumeRunResponse403 | ResumeRunResponse404 | ResumeRunResponse409 | ResumeRunResponse413 | ResumeRunResponse422 | ResumeRunResponse503 | RunOut]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
) -> (
    ResumeRunResponse401
    | ResumeRunResponse403
    | ResumeRunResponse404
    | ResumeRunResponse409
    | ResumeRunResponse413
    | ResumeRunResponse422
    | ResumeRunResponse503
    | RunOut
    | None
):
    """Resume Run

     Queue a failed run again. It continues from its checkpoint with what is left of its
    step budget; completed steps are not re-run.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ResumeRunResponse401 | ResumeRunResponse403 | ResumeRunResponse404 | ResumeRunResponse409 | ResumeRunResponse413 | ResumeRunResponse422 | ResumeRunResponse503 | RunOut
    """

    return sync_detailed(
        run_id=run_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[
    ResumeRunResponse401
    | ResumeRunResponse403
    | ResumeRunResponse404
    | ResumeRunResponse409
    | ResumeRunResponse413
    | ResumeRunResponse422
    | ResumeRunResponse503
    | RunOut
]:
    """Resume Run

     Queue a failed run again. It continues from its checkpoint with what is left of its
    step budget; completed steps are not re-run.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ResumeRunResponse401 | ResumeRunResponse403 | ResumeRunResponse404 | ResumeRunResponse409 | ResumeRunResponse413 | ResumeRunResponse422 | ResumeRunResponse503 | RunOut]
    """

    kwargs = _get_kwargs(
        run_id=run_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    run_id: UUID,
    *,
    client: AuthenticatedClient,
) -> (
    ResumeRunResponse401
    | ResumeRunResponse403
    | ResumeRunResponse404
    | ResumeRunResponse409
    | ResumeRunResponse413
    | ResumeRunResponse422
    | ResumeRunResponse503
    | RunOut
    | None
):
    """Resume Run

     Queue a failed run again. It continues from its checkpoint with what is left of its
    step budget; completed steps are not re-run.

    Args:
        run_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ResumeRunResponse401 | ResumeRunResponse403 | ResumeRunResponse404 | ResumeRunResponse409 | ResumeRunResponse413 | ResumeRunResponse422 | ResumeRunResponse503 | RunOut
    """

    return (
        await asyncio_detailed(
            run_id=run_id,
            client=client,
        )
    ).parsed
