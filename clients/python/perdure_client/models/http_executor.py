from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.http_executor_headers import HttpExecutorHeaders


T = TypeVar("T", bound="HttpExecutor")


@_attrs_define
class HttpExecutor:
    """POST {tool_call_id, session_id, run_id, arguments}; the JSON reply is the result.

    Attributes:
        type_ (Literal['http']):
        url (str):
        headers (HttpExecutorHeaders | Unset): Extra request headers; a value {"env": "NAME"} is read from the worker's
            environment at call time, so secrets never sit in the definition.
        max_response_bytes (int | Unset):  Default: 1048576.
        max_retries (int | Unset):  Default: 2.
        timeout_s (float | Unset):  Default: 30.0.
    """

    type_: Literal["http"]
    url: str
    headers: HttpExecutorHeaders | Unset = UNSET
    max_response_bytes: int | Unset = 1048576
    max_retries: int | Unset = 2
    timeout_s: float | Unset = 30.0

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        url = self.url

        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        max_response_bytes = self.max_response_bytes

        max_retries = self.max_retries

        timeout_s = self.timeout_s

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "url": url,
            }
        )
        if headers is not UNSET:
            field_dict["headers"] = headers
        if max_response_bytes is not UNSET:
            field_dict["max_response_bytes"] = max_response_bytes
        if max_retries is not UNSET:
            field_dict["max_retries"] = max_retries
        if timeout_s is not UNSET:
            field_dict["timeout_s"] = timeout_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.http_executor_headers import HttpExecutorHeaders  # noqa: PLC0415

        d = dict(src_dict)
        type_ = cast(Literal["http"], d.pop("type"))
        if type_ != "http":
            raise ValueError(f"type must match const 'http', got '{type_}'")

        url = d.pop("url")

        _headers = d.pop("headers", UNSET)
        headers: HttpExecutorHeaders | Unset
        if isinstance(_headers, Unset):
            headers = UNSET
        else:
            headers = HttpExecutorHeaders.from_dict(_headers)

        max_response_bytes = d.pop("max_response_bytes", UNSET)

        max_retries = d.pop("max_retries", UNSET)

        timeout_s = d.pop("timeout_s", UNSET)

        http_executor = cls(
            type_=type_,
            url=url,
            headers=headers,
            max_response_bytes=max_response_bytes,
            max_retries=max_retries,
            timeout_s=timeout_s,
        )

        return http_executor
