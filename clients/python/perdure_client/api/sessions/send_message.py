from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.run_out import RunOut
from ...models.send_message_response_401 import SendMessageResponse401
from ...models.send_message_response_403 import SendMessageResponse403
from ...models.send_message_response_404 import SendMessageResponse404
from ...models.send_message_response_409 import SendMessageResponse409
from ...models.send_message_response_413 import SendMessageResponse413
from ...models.send_message_response_422 import SendMessageResponse422
from ...models.send_message_response_503 import SendMessageResponse503
from ...models.send_request import SendRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    session_id: str,
    *,
    body: SendRequest,
    wait: float | Unset = 0.0,
    stream: bool | Unset = False,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    params["wait"] = wait

    params["stream"] = stream

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/sessions/{session_id}/runs".format(
            session_id=quote(str(session_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    RunOut
    | SendMessageResponse401
    | SendMessageResponse403
    | SendMessageResponse404
    | SendMessageResponse409
    | SendMessageResponse413
    | SendMessageResponse422
    | SendMessageResponse503
    | None
):
    if response.status_code == 200:
        response_200 = RunOut.from_dict(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = RunOut.from_dict(response.json())

        return response_202

    if response.status_code == 401:
        response_401 = SendMessageResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = SendMessageResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = SendMessageResponse404.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = SendMessageResponse409.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = SendMessageResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = SendMessageResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = SendMessageResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    RunOut
    | SendMessageResponse401
    | SendMessageResponse403
    | SendMessageResponse404
    | SendMessageResponse409
    | SendMessageResponse413
    | SendMessageResponse422
    | SendMessageResponse503
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
    body: SendRequest,
    wait: float | Unset = 0.0,
    stream: bool | Unset = False,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[
    RunOut
    | SendMessageResponse401
    | SendMessageResponse403
    | SendMessageResponse404
    | SendMessageResponse409
    | SendMessageResponse413
    | SendMessageResponse422
    | SendMessageResponse503
]:
    """Send Message

     Send input to a session (created on first use when `agent_id` is given).

    The run is durable when this answers. With `Idempotency-Key`, a redelivered request
    returns the first run instead of starting another. With `stream=true` the answer is
    the run's stream from its first event, so a chat client needs one request.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        wait (float | Unset): Seconds to wait for a rest (capped by PERDURE_MAX_WAIT_S). Default:
            0.0.
        stream (bool | Unset): Answer with the run's events as `text/event-stream` (as `GET
            /v1/runs/{run_id}/stream`) instead of the run. Default: False.
        idempotency_key (None | str | Unset): A redelivered request with the same key returns the
            first run (the same key with another body is 422 IDEMPOTENCY_KEY_REUSED).
        body (SendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[RunOut | SendMessageResponse401 | SendMessageResponse403 | SendMessageResponse404 | SendMessageResponse409 | SendMessageResponse413 | SendMessageResponse422 | SendMessageResponse503]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
        wait=wait,
        stream=stream,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: SendRequest,
    wait: float | Unset = 0.0,
    stream: bool | Unset = False,
    idempotency_key: None | str | Unset = UNSET,
) -> (
    RunOut
    | SendMessageResponse401
    | SendMessageResponse403
    | SendMessageResponse404
    | SendMessageResponse409
    | SendMessageResponse413
    | SendMessageResponse422
    | SendMessageResponse503
    | None
):
    """Send Message

     Send input to a session (created on first use when `agent_id` is given).

    The run is durable when this answers. With `Idempotency-Key`, a redelivered request
    returns the first run instead of starting another. With `stream=true` the answer is
    the run's stream from its first event, so a chat client needs one request.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        wait (float | Unset): Seconds to wait for a rest (capped by PERDURE_MAX_WAIT_S). Default:
            0.0.
        stream (bool | Unset): Answer with the run's events as `text/event-stream` (as `GET
            /v1/runs/{run_id}/stream`) instead of the run. Default: False.
        idempotency_key (None | str | Unset): A redelivered request with the same key returns the
            first run (the same key with another body is 422 IDEMPOTENCY_KEY_REUSED).
        body (SendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        RunOut | SendMessageResponse401 | SendMessageResponse403 | SendMessageResponse404 | SendMessageResponse409 | SendMessageResponse413 | SendMessageResponse422 | SendMessageResponse503
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        body=body,
        wait=wait,
        stream=stream,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: SendRequest,
    wait: float | Unset = 0.0,
    stream: bool | Unset = False,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[
    RunOut
    | SendMessageResponse401
    | SendMessageResponse403
    | SendMessageResponse404
    | SendMessageResponse409
    | SendMessageResponse413
    | SendMessageResponse422
    | SendMessageResponse503
]:
    """Send Message

     Send input to a session (created on first use when `agent_id` is given).

    The run is durable when this answers. With `Idempotency-Key`, a redelivered request
    returns the first run instead of starting another. With `stream=true` the answer is
    the run's stream from its first event, so a chat client needs one request.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        wait (float | Unset): Seconds to wait for a rest (capped by PERDURE_MAX_WAIT_S). Default:
            0.0.
        stream (bool | Unset): Answer with the run's events as `text/event-stream` (as `GET
            /v1/runs/{run_id}/stream`) instead of the run. Default: False.
        idempotency_key (None | str | Unset): A redelivered request with the same key returns the
            first run (the same key with another body is 422 IDEMPOTENCY_KEY_REUSED).
        body (SendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[RunOut | SendMessageResponse401 | SendMessageResponse403 | SendMessageResponse404 | SendMessageResponse409 | SendMessageResponse413 | SendMessageResponse422 | SendMessageResponse503]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        body=body,
        wait=wait,
        stream=stream,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    body: SendRequest,
    wait: float | Unset = 0.0,
    stream: bool | Unset = False,
    idempotency_key: None | str | Unset = UNSET,
) -> (
    RunOut
    | SendMessageResponse401
    | SendMessageResponse403
    | SendMessageResponse404
    | SendMessageResponse409
    | SendMessageResponse413
    | SendMessageResponse422
    | SendMessageResponse503
    | None
):
    """Send Message

     Send input to a session (created on first use when `agent_id` is given).

    The run is durable when this answers. With `Idempotency-Key`, a redelivered request
    returns the first run instead of starting another. With `stream=true` the answer is
    the run's stream from its first event, so a chat client needs one request.

    Args:
        session_id (str): 1-200 of A-Za-z0-9_-., not starting or ending with '.'
        wait (float | Unset): Seconds to wait for a rest (capped by PERDURE_MAX_WAIT_S). Default:
            0.0.
        stream (bool | Unset): Answer with the run's events as `text/event-stream` (as `GET
            /v1/runs/{run_id}/stream`) instead of the run. Default: False.
        idempotency_key (None | str | Unset): A redelivered request with the same key returns the
            first run (the same key with another body is 422 IDEMPOTENCY_KEY_REUSED).
        body (SendRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        RunOut | SendMessageResponse401 | SendMessageResponse403 | SendMessageResponse404 | SendMessageResponse409 | SendMessageResponse413 | SendMessageResponse422 | SendMessageResponse503
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            body=body,
            wait=wait,
            stream=stream,
            idempotency_key=idempotency_key,
        )
    ).parsed
