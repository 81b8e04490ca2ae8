"""The API as the runbook calls it: PERDURE_URL and PERDURE_API_KEY, problems as errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_URL = "http://127.0.0.1:8000"
PAGE = 500


class ClientSettings(BaseSettings):
    """Where the server is and how to prove who we are (the server's own settings are
    `app.settings`; the two share only the prefix)."""

    model_config = SettingsConfigDict(env_prefix="PERDURE_", extra="ignore")

    url: str = DEFAULT_URL
    api_key: SecretStr | None = None
    timeout_s: float = 30.0


class ApiProblem(Exception):
    """An answer that is not a success: the problem's stable `code` and its detail."""

    def __init__(self, code: str, detail: str, status: int | None = None) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail
        self.status = status


class Api:
    """A synchronous client of the API (a command makes a few calls, one after another)."""

    def __init__(self, settings: ClientSettings) -> None:
        headers = {"Accept": "application/json"}
        if settings.api_key is not None:
            headers["Authorization"] = f"Bearer {settings.api_key.get_secret_value()}"
        self.url = settings.url.rstrip("/")
        self.http = httpx.Client(base_url=self.url, headers=headers, timeout=settings.timeout_s)

    def __enter__(self) -> Api:
        return self

    def __exit__(self, *_: object) -> None:
        self.http.close()

    def call(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | list[tuple[str, Any]] | None = None,
        body: dict[str, Any] | None = None,
    ) -> Any:
        """The JSON of a successful answer.

        Raises:
            ApiProblem: the server answered with a problem, or could not be reached
                (`UNREACHABLE`).
        """
        try:
            response = self.http.request(method, path, params=params, json=body)
        except httpx.HTTPError as exc:
            raise ApiProblem(
                "UNREACHABLE",
                f"cannot reach {self.url} ({type(exc).__name__}: {exc}); is PERDURE_URL right?",
            ) from exc
        if response.is_success:
            return response.json()
        try:
            problem = response.json()
        except ValueError:
            problem = {}
        if not isinstance(problem, dict):
            problem = {}
        raise ApiProblem(
            str(problem.get("code") or f"HTTP_{response.status_code}"),
            str(problem.get("detail") or problem.get("title") or response.reason_phrase),
            response.status_code,
        )

    def items(
        self, path: str, params: list[tuple[str, Any]], *, most: int | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every item of a paginated list (at most `most`), following `next_cursor`."""
        cursor: str | None = None
        given = 0
        while True:
            page_size = PAGE if most is None else min(PAGE, most - given)
            query = [*params, ("limit", page_size)]
            if cursor is not None:
                query.append(("cursor", cursor))
            page = self.call("GET", path, params=query)
            for item in page["items"]:
                yield item
                given += 1
            cursor = page.get("next_cursor")
            if cursor is None or (most is not None and given >= most):
                return
